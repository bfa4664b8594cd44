"""Every field table of the spec: a missing or invalid field is 400 IR_04 naming its dotted path.

Each rejected request must leave the store as it was.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from mocksrv.api import real_values
from mocksrv.fieldtypes import RESERVED_IDS
from tests import payloads
from tests.api.expected import (
    PAYMENT_NOT_FOUND,
    case_id,
    error,
    invalid,
    invalid_for_any_reason,
    malformed,
    missing,
)
from tests.api.scenarios import CHALLENGE_CARD, create, ok, payment_count, retrieve
from tests.conftest import Api
from tests.payloads import ADMIN_KEY, BILLING, MERCHANT_ID, SECRET_KEY

pytestmark = pytest.mark.usefixtures("frozen")

MIB = 1024 * 1024
ORDER_LINE = {"name": "Tea", "quantity": 2, "amount": 500, "currency": "USD"}
# Digits outside ASCII: str.isdigit() says yes, but no card network prints them.
FULLWIDTH_4242 = "\uff14\uff12" * 8
ARABIC_INDIC_12 = "\u0661\u0662"
ARABIC_INDIC_123 = "\u0661\u0662\u0663"
ARABIC_INDIC_2099 = "\u0662\u0660\u0669\u0669"
BROWSER_INFO = {
    "user_agent": "Mozilla/5.0",
    "language": "en-US",
    "color_depth": 24,
    "screen_width": 1024,
    "java_enabled": False,
}
CRYPTO = {"crypto": {"pay_currency": "BTC", "wallet_address": "bc1qexample"}}


def _path(path: str) -> list[str | int]:
    return [int(part) if part.isdigit() else part for part in path.split(".")]


def without(body: dict[str, Any], path: str) -> dict[str, Any]:
    """A copy of `body` without the field at the dotted `path`."""
    changed = copy.deepcopy(body)
    *parents, last = _path(path)
    node: Any = changed
    for part in parents:
        node = node[part]
    del node[last]
    return changed


def replaced(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `body` with `value` at the dotted `path`."""
    changed = copy.deepcopy(body)
    *parents, last = _path(path)
    node: Any = changed
    for part in parents:
        node = node[part]
    node[last] = value
    return changed


def full_create_body(**overrides: Any) -> dict[str, Any]:
    """A valid create body that sends every nested object of the spec."""
    return payloads.payment(
        payment_id="pay_new",
        order_details=[dict(ORDER_LINE)],
        browser_info=dict(BROWSER_INFO),
        **overrides,
    )


def crypto_body() -> dict[str, Any]:
    return payloads.payment(
        payment_id="pay_new",
        payment_method="crypto",
        payment_method_type="crypto_currency",
        payment_method_data=copy.deepcopy(CRYPTO),
    )


def assert_no_payments(api: Api) -> None:
    assert payment_count(api) == 0


# -- create: missing fields -------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "amount",
        "currency",
        "profile_id",
        "billing",
        "billing.address",
        "billing.phone",
        "billing.address.line1",
        "billing.address.city",
        "billing.address.state",
        "billing.address.zip",
        "billing.address.country",
        "billing.address.first_name",
        "billing.address.last_name",
        "billing.phone.number",
        "billing.phone.country_code",
        "payment_method_data.card.card_number",
        "payment_method_data.card.card_exp_month",
        "payment_method_data.card.card_exp_year",
        "payment_method_data.card.card_cvc",
        "order_details.0.name",
        "order_details.0.quantity",
        "order_details.0.amount",
        "payment_method",
        "payment_method_data",
    ],
)
def test_create_without_a_required_field_names_it(api: Api, path: str) -> None:
    response = api.post("/payments", without(full_create_body(), path))

    assert response.status_code == 400
    assert response.json == missing(path)
    assert_no_payments(api)


@pytest.mark.parametrize(
    "path", ["payment_method_data.crypto.pay_currency", "payment_method_data.crypto.wallet_address"]
)
def test_create_without_a_required_crypto_field_names_it(api: Api, path: str) -> None:
    response = api.post("/payments", without(crypto_body(), path))

    assert response.status_code == 400
    assert response.json == missing(path)
    assert_no_payments(api)


@pytest.mark.parametrize(
    "path", ["payment_method_data.crypto.pay_currency", "payment_method_data.crypto.wallet_address"]
)
@pytest.mark.parametrize("blank", ["", "  "])
def test_create_with_a_blank_required_crypto_field_names_it(api: Api, path: str, blank: str) -> None:
    response = api.post("/payments", replaced(crypto_body(), path, blank))

    assert response.status_code == 400
    assert response.json == invalid(path, "empty or blank: the field is required")
    assert_no_payments(api)


def test_create_of_a_3ds_payment_without_return_url_is_ir_04(api: Api) -> None:
    response = api.post("/payments", without(payloads.payment(CHALLENGE_CARD), "return_url"))

    assert response.status_code == 400
    assert response.json == missing("return_url")
    assert_no_payments(api)


@pytest.mark.parametrize(
    "path",
    ["billing.address.line2", "payment_method_data.card.card_holder_name", "return_url", "capture_method"],
)
def test_create_without_an_optional_field_succeeds(api: Api, path: str) -> None:
    body = replaced(full_create_body(), "billing.address.line2", "Suite 1")
    body = replaced(body, "payment_method_data.card.card_holder_name", "Ada Lovelace")

    response = api.post("/payments", without(body, path))

    assert response.status_code == 200
    assert response.json["status"] == "succeeded"


# -- create: invalid values -------------------------------------------------------------------

INVALID_CREATE_FIELDS = [
    # amount: an integer from 1 to 99,999,999,999
    ("amount", "1000", "not a valid integer"),
    ("amount", True, "not a valid integer"),
    ("amount", 10.5, "not a valid integer"),
    ("amount", 1000.0, "not a valid integer"),
    ("amount", None, "field may not be null"),
    ("amount", 0, "0 only for a setup payment, with mandate_data or setup_future_usage"),
    ("amount", -1, "must be greater than or equal to 0 and less than or equal to 99999999999"),
    ("amount", 100_000_000_000, "must be greater than or equal to 0 and less than or equal to 99999999999"),
    # currency: ISO 4217
    ("currency", "usd", "not an ISO 4217 currency code of money the service takes"),
    ("currency", "US", "not an ISO 4217 currency code of money the service takes"),
    ("currency", "XXX", "not an ISO 4217 currency code of money the service takes"),
    ("currency", "XAU", "not an ISO 4217 currency code of money the service takes"),
    ("currency", "XTS", "not an ISO 4217 currency code of money the service takes"),
    ("currency", "ABC", "not an ISO 4217 currency code of money the service takes"),
    ("currency", 840, "not a valid string"),
    # payment_id: 1-64 of [A-Za-z0-9_-]
    ("payment_id", "", "1-64 letters, digits, _ or -"),
    ("payment_id", "pay 1", "1-64 letters, digits, _ or -"),
    ("payment_id", "pay/1", "1-64 letters, digits, _ or -"),
    ("payment_id", "pay.1", "1-64 letters, digits, _ or -"),
    ("payment_id", "p" * 65, "1-64 letters, digits, _ or -"),
    ("payment_id", "paiement_é", "1-64 letters, digits, _ or -"),
    ("payment_id", "pay_1\n", "1-64 letters, digits, _ or -"),
    ("payment_id", 1, "not a valid string"),
    # the other top-level fields
    ("profile_id", 7, "not a valid string"),
    ("confirm", "true", "not a valid boolean"),
    ("confirm", 1, "not a valid boolean"),
    ("capture_method", "later", f"must be one of: {', '.join(real_values.CAPTURE_METHODS)}"),
    ("authentication_type", "maybe", "must be one of: three_ds, no_three_ds"),
    ("email", "not-an-email", "not a valid email address"),
    ("phone", "12", "4-20 digits, spaces, brackets or -"),
    ("phone", "4155550100\n", "4-20 digits, spaces, brackets or -"),
    ("phone_country_code", "1", "a plus sign and 1-4 digits"),
    ("phone_country_code", "+1\n", "a plus sign and 1-4 digits"),
    ("payment_method", "cash", f"must be one of: {', '.join(real_values.PAYMENT_METHODS)}"),
    ("payment_method_type", 3, "not a valid string"),
    ("payment_method_type", "cheque", f"must be one of: {', '.join(real_values.PAYMENT_METHOD_TYPES)}"),
    ("payment_method_type", "CREDIT", f"must be one of: {', '.join(real_values.PAYMENT_METHOD_TYPES)}"),
    ("return_url", "not a url", "not an http or https URL with a host and a port of 1 to 65535"),
    (
        "return_url",
        "ftp://shop.example/done",
        "not an http or https URL with a host and a port of 1 to 65535",
    ),
    (
        "return_url",
        "https://shop.example:99999/",
        "not an http or https URL with a host and a port of 1 to 65535",
    ),
    (
        "return_url",
        "https://shop.example:0/",
        "not an http or https URL with a host and a port of 1 to 65535",
    ),
    ("return_url", "https:///done", "not an http or https URL with a host and a port of 1 to 65535"),
    ("description", "d" * 1001, "longer than maximum length 1000"),
    ("statement_descriptor", "S" * 23, "longer than maximum length 22"),
    ("metadata", ["order_id"], "not a valid mapping type"),
    ("browser_info", "Mozilla", "invalid input type"),
    ("browser_info.color_depth", "24", "not a valid integer"),
    ("browser_info.screen_width", 1024.5, "not a valid integer"),
    ("browser_info.java_enabled", "yes", "not a valid boolean"),
    ("browser_info.language", 5, "not a valid string"),
    (
        "browser_info.color_depth",
        -1,
        "must be greater than or equal to 0 and less than or equal to 2147483647",
    ),
    (
        "browser_info.screen_height",
        2**31,
        "must be greater than or equal to 0 and less than or equal to 2147483647",
    ),
    (
        "browser_info.time_zone",
        -(2**31) - 1,
        "must be greater than or equal to -2147483648 and less than or equal to 2147483647",
    ),
    # billing
    ("billing", "1 Market Street", "invalid input type"),
    ("billing.address.country", "XX", "not an ISO 3166 alpha-2 country code"),
    ("billing.address.country", "us", "not an ISO 3166 alpha-2 country code"),
    ("billing.address.country", "USA", "not an ISO 3166 alpha-2 country code"),
    ("billing.address.country", "ZZ", "not an ISO 3166 alpha-2 country code"),
    ("billing.address.zip", 94105, "not a valid string"),
    # the real service's lengths
    ("billing.address.line1", "l" * 201, "longer than maximum length 200"),
    # what a form's untouched fields send, where the spec requires a value
    ("billing.address.line1", "", "empty or blank: the field is required"),
    ("billing.address.city", "   ", "empty or blank: the field is required"),
    ("billing.address.state", "", "empty or blank: the field is required"),
    ("billing.address.zip", "\t", "empty or blank: the field is required"),
    ("billing.address.first_name", "", "empty or blank: the field is required"),
    ("billing.address.last_name", " ", "empty or blank: the field is required"),
    ("billing.address.line2", "l" * 51, "longer than maximum length 50"),
    ("billing.address.city", "c" * 51, "longer than maximum length 50"),
    ("billing.address.zip", "9" * 51, "longer than maximum length 50"),
    ("billing.address.origin_zip", "9" * 51, "longer than maximum length 50"),
    ("billing.phone.number", "phone", "4-20 digits, spaces, brackets or -"),
    ("billing.phone.country_code", "1", "a plus sign and 1-4 digits"),
    ("billing.email", "nope", "not a valid email address"),
    # payment_method_data
    (
        "payment_method_data",
        {},
        "exactly one kind of method data, such as card, wallet, bank_transfer or crypto",
    ),
    (
        "payment_method_data",
        {**payloads.card(), **CRYPTO},
        "exactly one kind of method data, such as card, wallet, bank_transfer or crypto",
    ),
    ("payment_method_data", CRYPTO, "holds crypto data for payment_method card"),
    ("payment_method_data.card.card_number", 4242424242424242, "not a valid string"),
    ("payment_method_data.card.card_number", "4242424242424241", "the card number is not valid"),
    ("payment_method_data.card.card_number", "4242-4242-4242-4242", "the card number is not valid"),
    ("payment_method_data.card.card_number", "42424242426", "the card number is not valid"),
    (
        "payment_method_data.card.card_number",
        FULLWIDTH_4242,
        "the card number is not valid",
    ),
    ("payment_method_data.card.card_exp_month", "13", "a month from 01 to 12"),
    ("payment_method_data.card.card_exp_month", "00", "a month from 01 to 12"),
    ("payment_method_data.card.card_exp_month", "ab", "a month from 01 to 12"),
    ("payment_method_data.card.card_exp_month", ARABIC_INDIC_12, "a month from 01 to 12"),
    ("payment_method_data.card.card_exp_year", "209", "a year of two or four digits"),
    ("payment_method_data.card.card_exp_year", "twenty", "a year of two or four digits"),
    ("payment_method_data.card.card_exp_year", ARABIC_INDIC_2099, "a year of two or four digits"),
    ("payment_method_data.card.card_exp_year", "2020", "the card has expired"),
    ("payment_method_data.card.card_cvc", "12", "three or four digits"),
    ("payment_method_data.card.card_cvc", "12345", "three or four digits"),
    ("payment_method_data.card.card_cvc", "abc", "three or four digits"),
    ("payment_method_data.card.card_cvc", ARABIC_INDIC_123, "three or four digits"),
    # order_details
    ("order_details", {"name": "Tea"}, "not a valid list"),
    ("order_details.0", None, "field may not be null"),
    (
        "order_details.0.quantity",
        -1,
        "must be greater than or equal to 0 and less than or equal to 2147483647",
    ),
    (
        "order_details.0.quantity",
        2**31,
        "must be greater than or equal to 0 and less than or equal to 2147483647",
    ),
    ("order_details.0.quantity", "2", "not a valid integer"),
    (
        "order_details.0.amount",
        -1,
        "must be greater than or equal to 0 and less than or equal to 99999999999",
    ),
    ("order_details.0.amount", 5.5, "not a valid integer"),
    ("order_details.0.currency", "usd", "not an ISO 4217 currency code of money the service takes"),
    (
        "order_details.0.product_type",
        "gadget",
        "must be one of: physical, digital, travel, ride, event, accommodation",
    ),
]


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    INVALID_CREATE_FIELDS,
    ids=[f"{path}={value!r}"[:60] for path, value, _ in INVALID_CREATE_FIELDS],
)
def test_create_with_an_invalid_field_names_it(api: Api, path: str, value: Any, reason: str) -> None:
    response = api.post("/payments", replaced(full_create_body(), path, value))

    assert response.status_code == 400
    assert response.json == invalid(path, reason)
    assert_no_payments(api)


# A null sent for an optional field is as if the field were not sent; a required field refuses it.
NULL_CREATE_FIELDS = [
    ("billing", None, missing("billing")),  # billing goes with payment_method_data
    ("payment_method_data", None, missing("payment_method_data")),  # confirm: true needs it
    (
        "payment_method_data.card",
        None,
        invalid(
            "payment_method_data",
            "exactly one kind of method data, such as card, wallet, bank_transfer or crypto",
        ),
    ),
    ("amount", None, invalid("amount", "field may not be null")),
    ("profile_id", None, invalid("profile_id", "field may not be null")),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"), NULL_CREATE_FIELDS, ids=[p for p, _, _ in NULL_CREATE_FIELDS]
)
def test_create_takes_a_null_optional_field_as_absent(api: Api, path: str, value: Any, expected: Any) -> None:
    response = api.post("/payments", replaced(full_create_body(), path, value))

    assert (response.status_code, response.json) == (400, expected)
    assert_no_payments(api)


def test_create_with_every_optional_field_null_is_the_create_without_them(api: Api) -> None:
    optional = [
        "payment_id",
        "customer_id",
        "capture_method",
        "authentication_type",
        "description",
        "email",
        "name",
        "phone",
        "phone_country_code",
        "payment_method",
        "payment_method_type",
        "payment_method_data",
        "billing",
        "return_url",
        "order_details",
        "browser_info",
        "metadata",
        "statement_descriptor",
        "confirm",
    ]
    body = {"amount": 1000, "currency": "USD", "profile_id": payloads.PROFILE_ID}

    with_nulls = api.post("/payments", {**body, **dict.fromkeys(optional)})
    without = api.post("/payments", body)

    assert (with_nulls.status_code, without.status_code) == (200, 200)
    ids = ("payment_id", "client_secret")
    assert {k: v for k, v in with_nulls.json.items() if k not in ids} == {
        k: v for k, v in without.json.items() if k not in ids
    }
    assert with_nulls.json["status"] == "requires_payment_method"


@pytest.mark.parametrize("amount", [1, 99_999_999_999])
def test_create_accepts_the_smallest_and_largest_amounts(api: Api, amount: int) -> None:
    response = api.post("/payments", payloads.payment(amount=amount))

    assert response.status_code == 200
    assert (response.json["amount"], response.json["amount_received"]) == (amount, amount)


@pytest.mark.parametrize("payment_id", ["a", "p" * 64, "Pay_2026-01-22_ABC"])
def test_create_accepts_every_payment_id_of_the_pattern(api: Api, payment_id: str) -> None:
    response = api.post("/payments", payloads.payment(payment_id=payment_id))

    assert response.status_code == 200
    assert response.json["payment_id"] == payment_id


@pytest.mark.parametrize(
    "return_url",
    [
        "http://checkout_web:3000/done",  # a compose service name
        "http://localhost:8000/done?order=1#top",
        "https://shop.example.com/done",
        "http://127.0.0.1:65535/",
        "http://[::1]:8080/done",
    ],
)
def test_create_accepts_every_http_return_url_a_browser_can_reach(api: Api, return_url: str) -> None:
    response = api.post("/payments", payloads.payment(return_url=return_url))

    assert response.status_code == 200
    assert response.json["return_url"] == return_url
    assert retrieve(api, response.json["payment_id"])["return_url"] == return_url


def test_create_accepts_a_card_number_written_in_groups(api: Api) -> None:
    response = api.post("/payments", payloads.payment("4242 4242 4242 4242"))

    assert response.status_code == 200
    assert response.json["payment_method_data"]["card"]["last4"] == "4242"


def test_create_with_customer_id_of_no_customer_is_ir_04(api: Api) -> None:
    response = api.post("/payments", payloads.payment(customer_id="cus_missing"))

    assert response.status_code == 400
    assert response.json == invalid("customer_id", "no such customer; create it with POST /customers first")
    assert_no_payments(api)


def test_create_with_a_method_that_does_not_match_its_data_is_ir_04(api: Api) -> None:
    response = api.post("/payments", payloads.payment(payment_method="crypto"))

    assert response.status_code == 400
    assert response.json == invalid("payment_method_data", "holds card data for payment_method crypto")
    assert_no_payments(api)


# -- card expiry on the mock clock ------------------------------------------------------------


@pytest.fixture
def june_2090(api: Api) -> None:
    ok(api.post("/__mock/clock/set", {"now": "2090-06-15T12:00:00Z"}))


@pytest.mark.usefixtures("june_2090")
@pytest.mark.parametrize(("month", "year"), [("05", "2090"), ("5", "90"), ("12", "2089")])
def test_a_card_that_expired_before_the_mock_clock_month_is_ir_04(api: Api, month: str, year: str) -> None:
    card = payloads.card(card_exp_month=month, card_exp_year=year)

    response = api.post("/payments", payloads.payment(payment_method_data=card))

    assert response.status_code == 400
    assert response.json == invalid("payment_method_data.card.card_exp_year", "the card has expired")
    assert_no_payments(api)


@pytest.mark.usefixtures("june_2090")
@pytest.mark.parametrize(
    ("month", "year", "shown"), [("06", "2090", "2090"), ("6", "90", "2090"), ("01", "2091", "2091")]
)
def test_a_card_that_expires_in_or_after_the_mock_clock_month_is_accepted(
    api: Api, month: str, year: str, shown: str
) -> None:
    card = payloads.card(card_exp_month=month, card_exp_year=year)

    response = api.post("/payments", payloads.payment(payment_method_data=card))

    assert response.status_code == 200
    assert response.json["payment_method_data"]["card"]["exp_month"] == month.rjust(2, "0")
    assert response.json["payment_method_data"]["card"]["exp_year"] == shown


@pytest.mark.usefixtures("june_2090")
def test_a_card_expires_when_the_mock_clock_passes_its_month(api: Api) -> None:
    card = payloads.card(card_exp_month="06", card_exp_year="2090")
    ok(api.post("/__mock/clock/set", {"now": "2090-07-01T00:00:00Z"}))

    response = api.post("/payments", payloads.payment(payment_method_data=card))

    assert response.status_code == 400
    assert response.json == invalid("payment_method_data.card.card_exp_year", "the card has expired")


@pytest.mark.parametrize(
    ("name", "moment"),
    [("created_gte", "9999-12-31T23:59:59-01:00"), ("created_lte", "0001-01-01T00:00:00+01:00")],
)
def test_a_list_bound_beyond_the_calendar_in_utc_is_ir_04(api: Api, name: str, moment: str) -> None:
    response = api.post("/payments/list", {name: moment})

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason(name)


# -- order lines ------------------------------------------------------------------------------


@pytest.mark.parametrize("alias", ["items", "line_items", "cart_items"])
def test_create_with_an_order_line_alias_says_to_use_order_details(api: Api, alias: str) -> None:
    response = api.post("/payments", payloads.payment(**{alias: [ORDER_LINE]}))

    assert response.status_code == 400
    assert response.json == invalid(alias, "order lines are sent as order_details")
    assert_no_payments(api)


@pytest.mark.parametrize("alias", ["items", "line_items", "cart_items"])
@pytest.mark.parametrize("route", ["/payments/pay_1", "/payments/pay_1/confirm"])
def test_update_and_confirm_with_an_order_line_alias_say_to_use_order_details(
    api: Api, route: str, alias: str
) -> None:
    before = create(api, None, payment_id="pay_1")

    response = api.post(route, {alias: [ORDER_LINE]})

    assert response.status_code == 400
    assert response.json == invalid(alias, "order lines are sent as order_details")
    assert retrieve(api, "pay_1") == before


# -- unknown fields ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "merchant_id",
        "billing.address.line4",
        "billing.phone.extension",
        "payment_method_data.card.pin",
        "order_details.0.stock_keeping_unit",
    ],
)
def test_create_with_an_unknown_field_is_ir_06(api: Api, path: str) -> None:
    response = api.post("/payments", replaced(full_create_body(), path, "x"))

    assert response.status_code == 400
    assert response.json == malformed(f"unknown field `{path}`")
    assert_no_payments(api)


@pytest.mark.parametrize(
    ("route", "field"),
    [
        ("/payments/pay_1", "status"),
        ("/payments/pay_1/confirm", "status"),
        ("/payments/pay_1/capture", "amount"),
        ("/payments/pay_1/cancel", "reason"),
    ],
)
def test_an_operation_with_an_unknown_field_is_ir_06(api: Api, route: str, field: str) -> None:
    before = create(api, payment_id="pay_1", capture_method="manual")

    response = api.post(route, {field: "x"})

    assert response.status_code == 400
    assert response.json == malformed(f"unknown field `{field}`")
    assert retrieve(api, "pay_1") == before


# -- update, confirm, capture, cancel: invalid values -----------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"amount": 0},
            invalid("amount", "must be greater than or equal to 1 and less than or equal to 99999999999"),
        ),
        ({"amount": "10"}, invalid("amount", "not a valid integer")),
        (
            {"currency": "EURO"},
            invalid("currency", "not an ISO 4217 currency code of money the service takes"),
        ),
        ({"metadata": "order 42"}, invalid("metadata", "not a valid mapping type")),
        (
            {"customer_id": "cus_missing"},
            invalid("customer_id", "no such customer; create it with POST /customers first"),
        ),
        ({"payment_method": "card", "payment_method_data": payloads.card()}, missing("billing")),
        (
            payloads.confirmation("4242424242424241"),
            invalid("payment_method_data.card.card_number", "the card number is not valid"),
        ),
    ],
    ids=case_id,
)
def test_update_with_an_invalid_field_leaves_the_payment_unchanged(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1", body)

    assert response.status_code == 400
    assert response.json == expected
    assert retrieve(api, "pay_1") == before


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"payment_method_data": payloads.card()}, missing("billing")),
        (without(payloads.confirmation(), "billing.address.zip"), missing("billing.address.zip")),
        (
            without(payloads.confirmation(), "payment_method_data.card.card_cvc"),
            missing("payment_method_data.card.card_cvc"),
        ),
        (
            payloads.confirmation("4242424242424241"),
            invalid("payment_method_data.card.card_number", "the card number is not valid"),
        ),
        (
            payloads.confirmation(return_url="nope"),
            invalid("return_url", "not an http or https URL with a host and a port of 1 to 65535"),
        ),
        (
            payloads.confirmation(browser_info={"time_zone": "UTC"}),
            invalid("browser_info.time_zone", "not a valid integer"),
        ),
        (
            payloads.confirmation(customer_acceptance="yes"),
            invalid("customer_acceptance", "invalid input type"),
        ),
    ],
    ids=case_id,
)
def test_confirm_with_an_invalid_field_leaves_the_payment_unchanged(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1/confirm", body)

    assert response.status_code == 400
    assert response.json == expected
    assert retrieve(api, "pay_1") == before


def test_confirm_of_a_3ds_card_without_return_url_is_ir_04(api: Api) -> None:
    before = ok(api.post("/payments", without(payloads.payment(None, payment_id="pay_1"), "return_url")))

    response = api.post("/payments/pay_1/confirm", payloads.confirmation(CHALLENGE_CARD))

    assert response.status_code == 400
    assert response.json == missing("return_url")
    assert retrieve(api, "pay_1") == before


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("1000", "not a valid integer"),
        (True, "not a valid integer"),
        (500.5, "not a valid integer"),
        (0, "must be greater than or equal to 1 and less than or equal to 99999999999"),
        (-5, "must be greater than or equal to 1 and less than or equal to 99999999999"),
    ],
)
def test_capture_with_an_invalid_amount_is_ir_04(api: Api, value: Any, reason: str) -> None:
    before = create(api, payment_id="pay_1", capture_method="manual")

    response = api.post("/payments/pay_1/capture", {"amount_to_capture": value})

    assert response.status_code == 400
    assert response.json == invalid("amount_to_capture", reason)
    assert retrieve(api, "pay_1") == before


@pytest.mark.parametrize(
    ("value", "reason"),
    [("r" * 1001, "longer than maximum length 1000"), (42, "not a valid string")],
)
def test_cancel_with_an_invalid_reason_is_ir_04(api: Api, value: Any, reason: str) -> None:
    before = create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1/cancel", {"cancellation_reason": value})

    assert response.status_code == 400
    assert response.json == invalid("cancellation_reason", reason)
    assert retrieve(api, "pay_1") == before


# -- bodies that are not JSON objects ---------------------------------------------------------

BODY_ROUTES = [
    "/payments",
    "/payments/list",
    "/payments/pay_1",
    "/payments/pay_1/confirm",
    "/payments/pay_1/capture",
    "/payments/pay_1/cancel",
    "/payments/pay_1/approve",
    "/payments/pay_1/reject",
    "/customers",
    "/customers/cus_1",
]

NOT_JSON_OBJECTS = [
    pytest.param(
        "text/plain", json.dumps(payloads.payment()), "the Content-Type must be application/json", id="text"
    ),
    pytest.param(
        "application/x-www-form-urlencoded",
        "amount=1000&currency=USD",
        "the Content-Type must be application/json",
        id="form",
    ),
    pytest.param(
        "application/json",
        '{"amount": 1000,',
        "unexpected end of data: line 1 column 17 (char 16)",
        id="truncated JSON",
    ),
    pytest.param(
        "application/json",
        b'{"amount": "\xff"}',
        "the body is not UTF-8: byte 0xff at offset 12",
        id="not UTF-8",
    ),
    pytest.param(
        "application/json",
        b'{"name": "caf\xe9"}',
        "the body is not UTF-8: byte 0xe9 at offset 13",
        id="Latin-1",
    ),
    pytest.param("application/json", "[1000]", "expected a JSON object", id="array"),
    pytest.param("application/json", '"amount"', "expected a JSON object", id="string"),
    pytest.param("application/json", "null", "expected a JSON object", id="null"),
    pytest.param(
        "application/json",
        "[" * 100_000 + "]" * 100_000,
        "depth limit exceeded: line 1 column 1026 (char 1025)",
        id="nested 100,000 deep",
    ),
]


@pytest.fixture
def stored(api: Api) -> dict[str, Any]:
    """One payment and one customer, to check that a rejected request changes neither."""
    ok(api.post("/customers", {"customer_id": "cus_1", "name": "Ada"}))
    return create(api, payment_id="pay_1", capture_method="manual")


def assert_unchanged(api: Api, stored: dict[str, Any]) -> None:
    assert retrieve(api, "pay_1") == stored
    assert payment_count(api) == 1
    assert ok(api.get("/customers/cus_1"))["name"] == "Ada"


@pytest.mark.parametrize(("content_type", "data", "detail"), NOT_JSON_OBJECTS)
@pytest.mark.parametrize("route", BODY_ROUTES)
def test_a_body_that_is_not_a_json_object_is_ir_06(
    api: Api,
    client: FlaskClient,
    stored: dict[str, Any],
    route: str,
    content_type: str,
    data: Any,
    detail: str,
) -> None:
    response = client.post(route, data=data, headers={"api-key": SECRET_KEY, "Content-Type": content_type})

    assert response.status_code == 400
    assert response.json == malformed(detail)
    assert_unchanged(api, stored)


@pytest.mark.parametrize("route", BODY_ROUTES)
def test_a_body_over_1_mib_is_413(api: Api, client: FlaskClient, stored: dict[str, Any], route: str) -> None:
    data = json.dumps({"metadata": {"padding": "x" * MIB}})

    response = client.post(
        route, data=data, headers={"api-key": SECRET_KEY, "Content-Type": "application/json"}
    )

    assert response.status_code == 413
    assert response.json == error("IR_06", "Request body is larger than the limit of 1048576 bytes")
    assert_unchanged(api, stored)


# -- routes that take no body ----------------------------------------------------------------


def _dispute(api: Api) -> str:
    create(api, payment_id="pay_disputed")
    return (
        f"/disputes/accept/{ok(api.post('/__mock/disputes', {'payment_id': 'pay_disputed'}))['dispute_id']}"
    )


def _mandate(api: Api) -> str:
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    acceptance = {"acceptance_type": "offline"}
    mandate_data = {
        "customer_acceptance": acceptance,
        "mandate_type": {"multi_use": {"amount": 5000, "currency": "USD"}},
    }
    setup = create(api, payment_id="pay_setup", customer_id="cus_2", mandate_data=mandate_data)
    return f"/mandates/revoke/{setup['mandate_id']}"


def _saved_card(api: Api) -> str:
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    card = {
        "card_number": "4111111111111111",
        "card_exp_month": "12",
        "card_exp_year": "2099",
        "card_holder_name": "Q",
    }
    saved = ok(api.post("/payment_methods", {"payment_method": "card", "customer_id": "cus_2", "card": card}))
    payment_method_id: str = saved["payment_method_id"]
    return payment_method_id


def _ephemeral_key(api: Api) -> str:
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    return f"/ephemeral_keys/{ok(api.post('/ephemeral_keys', {'customer_id': 'cus_2'}))['id']}"


def _api_key(api: Api) -> str:
    key = ok(api.post(f"/api_keys/{MERCHANT_ID}", {"name": "ci", "expiration": "never"}))
    return f"/api_keys/{MERCHANT_ID}/{key['key_id']}"


def _profile(api: Api) -> str:
    profiles = f"/account/{MERCHANT_ID}/business_profile"
    return f"{profiles}/{ok(api.post(profiles, {}))['profile_id']}"


def _customer(api: Api) -> str:
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    return "/customers/cus_2"


# Every route of the API that reads no body, with a step that makes what it acts on (giving the
# path) and what it answers once done: done twice, each would be refused, so that a request
# refused for its body and then sent again shows the first changed nothing.
BODILESS_ROUTES = [
    pytest.param("POST", _dispute, {"dispute_status": "dispute_accepted"}, id="accept a dispute"),
    pytest.param("POST", _mandate, {"status": "revoked"}, id="revoke a mandate"),
    pytest.param(
        "POST",
        lambda api: f"/cus_2/payment_methods/{_saved_card(api)}/default",
        {"customer_id": "cus_2"},
        id="set the default method",
    ),
    pytest.param(
        "DELETE", lambda api: f"/payment_methods/{_saved_card(api)}", {"deleted": True}, id="delete a method"
    ),
    pytest.param("DELETE", _customer, {"customer_deleted": True}, id="delete a customer"),
    pytest.param("DELETE", _ephemeral_key, {"customer_id": "cus_2"}, id="delete an ephemeral key"),
    pytest.param("DELETE", _api_key, {"revoked": True}, id="revoke an API key"),
    pytest.param("DELETE", _profile, True, id="delete a profile"),
]

NOT_JSON_TO_A_BODILESS_ROUTE = [
    pytest.param("text/plain", "this is not json", "the Content-Type must be application/json", id="text"),
    pytest.param(
        "application/x-www-form-urlencoded",
        "reason=none",
        "the Content-Type must be application/json",
        id="form",
    ),
    pytest.param(
        "application/json", "{", "unexpected end of data: line 1 column 2 (char 1)", id="truncated JSON"
    ),
    pytest.param("application/json", "[]", "expected a JSON object", id="array"),
    pytest.param("application/json", '{"reason": "none"}', "unknown field `reason`", id="a field"),
]


def _answered(response: Any, done: Any) -> None:
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body == done if not isinstance(done, dict) else {name: body[name] for name in done} == done


@pytest.mark.parametrize(("content_type", "data", "detail"), NOT_JSON_TO_A_BODILESS_ROUTE)
@pytest.mark.parametrize(("method", "path_of", "done"), BODILESS_ROUTES)
def test_a_body_sent_to_a_route_that_reads_none_must_be_an_empty_json_object(
    api: Api,
    client: FlaskClient,
    method: str,
    path_of: Callable[[Api], str],
    done: Any,
    content_type: str,
    data: str,
    detail: str,
) -> None:
    path = path_of(api)

    response = client.open(
        path, method=method, data=data, headers={"api-key": SECRET_KEY, "Content-Type": content_type}
    )

    assert response.status_code == 400
    assert response.json == malformed(detail)
    _answered(client.open(path, method=method, headers={"api-key": SECRET_KEY}), done)


@pytest.mark.parametrize(
    ("content_type", "data"),
    [
        pytest.param(None, b"", id="no body"),
        pytest.param("text/plain", b"", id="an empty body of any type"),
        pytest.param("application/json", b"", id="an empty JSON body"),
        pytest.param("application/json", b"{}", id="an empty object"),
    ],
)
@pytest.mark.parametrize(("method", "path_of", "done"), BODILESS_ROUTES)
def test_a_route_that_reads_no_body_takes_none_or_a_json_object(
    api: Api,
    client: FlaskClient,
    method: str,
    path_of: Callable[[Api], str],
    done: Any,
    content_type: str | None,
    data: bytes,
) -> None:
    path = path_of(api)
    headers = {"api-key": SECRET_KEY} | ({} if content_type is None else {"Content-Type": content_type})

    response = client.open(path, method=method, data=data, headers=headers)

    _answered(response, done)


def test_a_body_of_exactly_1_mib_is_accepted(client: FlaskClient) -> None:
    body = json.dumps(payloads.payment(payment_id="pay_big"))
    data = body + " " * (MIB - len(body))

    response = client.post(
        "/payments", data=data, headers={"api-key": SECRET_KEY, "Content-Type": "application/json"}
    )

    assert response.status_code == 200
    assert response.json["payment_id"] == "pay_big"


def test_an_empty_body_is_read_as_an_empty_object(api: Api) -> None:
    response = api.post("/payments")

    assert response.status_code == 400
    assert response.json == missing("amount")


def test_a_json_content_type_with_charset_is_accepted(client: FlaskClient) -> None:
    response = client.post(
        "/payments",
        data=json.dumps(payloads.payment(payment_id="pay_1")),
        headers={"api-key": SECRET_KEY, "Content-Type": "application/json; charset=utf-8"},
    )

    assert response.status_code == 200
    assert response.json["payment_id"] == "pay_1"


# -- routes and methods -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/"),
        ("GET", "/payment"),
        ("POST", "/payment"),
        ("GET", "/v1/payments"),
        ("POST", "/payments/pay_1/refund"),
        ("POST", "/payments/pay_1/capture/extra"),
        ("GET", "/__mock/nope"),
        ("GET", "/web/3ds"),
        ("POST", "/refunds/list/extra/path"),
        # An empty segment, where an id or a word should be: no slashes are merged into another route.
        ("POST", "/payments//cancel"),
        ("POST", "/payments/%2F/cancel"),
        ("GET", "/customers//payment_methods"),
        ("GET", "/__mock//clock"),
    ],
)
@pytest.mark.parametrize("key", [SECRET_KEY, None])
def test_an_unknown_route_is_ir_02(client: FlaskClient, method: str, path: str, key: str | None) -> None:
    headers = {"api-key": key} if key else {}

    response = client.open(path, method=method, headers=headers, json={})

    assert response.status_code == 404
    assert response.json == error("IR_02", "Unrecognized request URL")


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "//payments"), ("POST", "//payments/list"), ("GET", "//health"), ("GET", "///__mock/clock")],
)
def test_a_leading_empty_segment_names_no_route_either(
    api: Api, client: FlaskClient, method: str, path: str
) -> None:
    # As a server hands the path over: a test client would read `//payments` as a host and a path.
    response = client.open(
        "/", method=method, headers={"api-key": SECRET_KEY}, json={}, environ_overrides={"PATH_INFO": path}
    )

    assert (response.status_code, response.json) == (404, error("IR_02", "Unrecognized request URL"))
    assert payment_count(api) == 0


@pytest.mark.parametrize(
    "host", ["a b", "", "shop:99999", "shop:0", "[::1", "a, b", "shop/x", "u@shop", "[v1.x]"]
)
def test_a_host_header_that_names_no_host_is_refused(api: Api, client: FlaskClient, host: str) -> None:
    # Each would have written the link `http:/payment_link/...`.
    response = client.post(
        "/payment_link",
        headers={"api-key": SECRET_KEY, "Host": host},
        json={"amount": 100, "currency": "USD"},
    )

    assert (response.status_code, response.json) == (
        400,
        error(
            "IR_04",
            "Malformed HTTP request: the Host header must be one host, with a port from 1 to 65535 or none",
        ),
    )
    assert ok(api.post("/payment_link/list", {}))["data"] == []


@pytest.mark.parametrize(
    "host",
    [
        "shop.example:8080",
        "SHOP.example",
        "127.0.0.1:9",
        "[::1]:8080",
        "payments_mock:8080",
        "münchen.example",
    ],
)
def test_a_host_header_that_names_a_host_writes_the_links(client: FlaskClient, host: str) -> None:
    response = client.post(
        "/payment_link",
        headers={"api-key": SECRET_KEY, "Host": host},
        json={"amount": 100, "currency": "USD"},
    )

    assert response.status_code == 200
    assert response.json["link"].startswith(f"http://{host}/payment_link/{MERCHANT_ID}/plink_")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/payments"),
        ("DELETE", "/payments"),
        ("PUT", "/payments/pay_1"),
        ("DELETE", "/payments/pay_1"),
        ("PATCH", "/payments/pay_1"),
        ("GET", "/payments/pay_1/confirm"),
        ("GET", "/payments/pay_1/capture"),
        ("PUT", "/payments/pay_1/cancel"),
        ("GET", "/payments/pay_1/approve"),
        ("DELETE", "/payments/pay_1/reject"),
        ("PUT", "/payments/list"),
        ("POST", "/health"),
        ("PUT", "/customers"),
        ("PATCH", "/customers/cus_1"),
        ("POST", "/__mock/clock"),
        ("GET", "/__mock/clock/advance"),
        ("POST", "/__mock/outcomes"),
        ("DELETE", "/__mock/merchants"),
    ],
)
def test_a_method_the_route_does_not_take_is_ir_03(
    api: Api, client: FlaskClient, stored: dict[str, Any], method: str, path: str
) -> None:
    response = client.open(path, method=method, headers={"api-key": SECRET_KEY}, json={})

    assert response.status_code == 405
    assert response.json == error("IR_03", "The HTTP method is not applicable for this API")
    assert_unchanged(api, stored)


def test_a_payment_id_of_another_shape_in_the_path_is_simply_not_found(api: Api) -> None:
    response = api.get("/payments/no such payment")

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


def test_billing_is_kept_as_sent(api: Api) -> None:
    billing = replaced(BILLING, "address.line2", "Suite 1")

    response = api.post("/payments", payloads.payment(billing=billing))

    assert response.status_code == 200
    assert response.json["billing"] == billing


@pytest.mark.parametrize(
    "query",
    ["created_lt=0001-01-01T00:00:00Z", "created_gt=9999-12-31T23:59:59.999Z"],
)
def test_a_strict_list_bound_at_the_calendars_end_finds_nothing(api: Api, query: str) -> None:
    create(api, None, payment_id="pay_1")

    response = api.get(f"/payments/list?{query}")

    assert response.status_code == 200
    assert response.json == {"size": 0, "data": []}


def test_a_method_the_route_does_not_take_is_answered_with_the_methods_it_does(client: FlaskClient) -> None:
    response = client.open("/customers", method="PUT", headers={"api-key": SECRET_KEY}, json={})

    assert (response.status_code, response.headers["Allow"]) == (405, "OPTIONS, POST")


# A word that is a route of its own beside an id's place is never an id, so the route's Allow names
# only the methods of its own rule, not those of the id's rule beside it.
@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/payouts/create", ["OPTIONS", "POST"]),
        ("/payouts/filter", ["OPTIONS", "POST"]),
        ("/payouts/list", ["GET", "HEAD", "OPTIONS", "POST"]),
        ("/disputes/evidence", ["DELETE", "OPTIONS", "POST"]),
        ("/customers/payment_methods", ["GET", "HEAD", "OPTIONS"]),
        ("/payments/session_tokens", ["OPTIONS", "POST"]),
        ("/payment_link/plink_1/customer_info", ["OPTIONS", "POST"]),
    ],
)
def test_options_allows_only_the_methods_of_the_route_itself(
    client: FlaskClient, path: str, allowed: list[str]
) -> None:
    response = client.options(path)

    assert response.status_code == 204
    assert sorted(response.headers["Allow"].split(", ")) == allowed


def test_a_method_a_word_route_does_not_take_is_a_wrong_method_not_an_id(client: FlaskClient) -> None:
    response = client.put("/payouts/create", headers={"api-key": SECRET_KEY}, json={})

    assert (response.status_code, response.headers["Allow"]) == (405, "OPTIONS, POST")
    assert response.json == error("IR_03", "The HTTP method is not applicable for this API")


def test_every_route_without_an_id_allows_only_its_own_methods(client: FlaskClient) -> None:
    app = client.application
    own: dict[str, set[str]] = {}
    for rule in app.url_map.iter_rules():
        if not rule.arguments:
            own.setdefault(rule.rule, {"OPTIONS"}).update(rule.methods or ())

    answers = {path: client.options(path, headers={"api-key": ADMIN_KEY}) for path in own}
    assert {path: set(answer.headers["Allow"].split(", ")) for path, answer in answers.items()} == own


@pytest.mark.parametrize("word", RESERVED_IDS)
def test_a_customer_id_that_is_a_routes_word_is_refused(api: Api, word: str) -> None:
    response = api.post("/customers", {"customer_id": word})

    assert response.status_code == 400
    assert response.json == invalid("customer_id", f"'{word}' names a route of its own: choose another id")
    assert api.get("/customers/list").json["total_count"] == 0
