"""The legacy card API, /api/v1: its token, its transactions, and every refusal, with exact bodies."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from mocksrv.app import create_app, create_sandbox
from mocksrv.domain.legacy.tokens import LEGACY_TOKENS, LegacyTokenStatus
from mocksrv.domain.merchants import key_hash
from mocksrv.domain.sandbox import Sandbox
from mocksrv.settings import Settings
from tests.api.expected import GENERATED_PAYMENT_ID, UNAUTHORIZED, Matches
from tests.api.scenarios import advance, ok, retrieve
from tests.conftest import Api, CheckedClient
from tests.payloads import MERCHANT_ID

CLIENT_ID = "legacy_client_id"
CLIENT_SECRET = "legacy_client_secret"
TOKEN_PATH = "/api/v1"
INITIATE = "/api/v1/mocksrv/card/initiate"
UNIFIED = "/api/v1/card/unified"
RETURN_URL = "https://shop.example/return"
THREE_DS_CARD = "4000000000003063"  # a challenge when the payment asks for 3D Secure

BAD_BASIC = "Invalid Authorization header: expected Basic and the base64 of client_id:client_secret"
BAD_BEARER = "Invalid Authorization header: expected Bearer and an access token from GET /api/v1"
BAD_CLIENT = "Invalid client credentials: the client id or client secret is wrong"
BAD_TOKEN = "Invalid access token"
EXPIRED_TOKEN = "The access token has expired: get a new one with GET /api/v1"
DECIMAL_STRING = 'a decimal string in major units, such as "10.50"'

pytestmark = pytest.mark.usefixtures("frozen")


def error(status_code: int, code: str, message: str, param: str | None = None) -> tuple[int, Any]:
    body: dict[str, Any] = {"type": "invalid_request", "code": code, "message": message}
    if param is not None:
        body["param"] = param
    return status_code, {"error": body}


def answer(response: TestResponse) -> tuple[int, Any]:
    return response.status_code, response.json


def basic(client_id: str = CLIENT_ID, secret: str = CLIENT_SECRET) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()}


def get_token(client: FlaskClient, client_id: str = CLIENT_ID, secret: str = CLIENT_SECRET) -> str:
    token: str = ok(client.get(TOKEN_PATH, headers=basic(client_id, secret)))["access_token"]
    return token


class Legacy:
    """The legacy API with a bearer token of the default merchant."""

    def __init__(self, client: FlaskClient, token: str) -> None:
        self.client = client
        self.token = token

    def post(self, path: str, body: Any) -> TestResponse:
        return self.client.post(path, json=body, headers={"Authorization": f"Bearer {self.token}"})


@pytest.fixture
def legacy(client: FlaskClient) -> Legacy:
    return Legacy(client, get_token(client))


def card(number: str = "4242424242424242", **overrides: str) -> dict[str, str]:
    return {"number": number, "expiry_month": "12", "expiry_year": "2099", "cvv": "123", **overrides}


def transaction(amount: str = "10.50", currency: str = "USD", **fields: Any) -> dict[str, Any]:
    return {"amount": amount, "currency": currency, **fields}


# -- the token ----------------------------------------------------------------------------------


def test_the_fixtures_client_credentials_get_a_bearer_token_for_an_hour(client: FlaskClient) -> None:
    response = client.get(TOKEN_PATH, headers=basic())

    assert answer(response) == (
        200,
        {
            "access_token": Matches(r"lat_[0-9a-f]{40}merchant_default"),
            "token_type": "Bearer",
            "expires_in": 3600,
        },
    )


def test_only_the_hash_of_a_token_is_stored(client: FlaskClient, sandbox: Sandbox) -> None:
    token = get_token(client)

    [record] = sandbox.store.all(LEGACY_TOKENS, MERCHANT_ID)
    assert (record.token_hash, record.status) == (key_hash(token), LegacyTokenStatus.ACTIVE)


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        pytest.param({}, UNAUTHORIZED, id="no credentials"),
        pytest.param({"api-key": "snd_default_secret_key"}, UNAUTHORIZED, id="an api key instead"),
        pytest.param(basic(secret="wrong"), BAD_CLIENT, id="a wrong secret"),
        pytest.param(basic(client_id="nobody"), BAD_CLIENT, id="an unknown client id"),
        pytest.param(basic(secret=""), BAD_CLIENT, id="an empty secret"),
        pytest.param({"Authorization": "Basic !!!"}, BAD_BASIC, id="not base64"),
        pytest.param(
            {"Authorization": "Basic " + base64.b64encode(b"no colon").decode()}, BAD_BASIC, id="no colon"
        ),
        pytest.param(
            {"Authorization": "Basic " + base64.b64encode(b":secret").decode()}, BAD_BASIC, id="no id"
        ),
        pytest.param(
            {"Authorization": "Basic " + base64.b64encode(b"\xff:x").decode()}, BAD_BASIC, id="not utf-8"
        ),
        pytest.param({"Authorization": "Basic \xe9\xe9"}, BAD_BASIC, id="not ascii"),
        pytest.param({"Authorization": "Bearer lat_x"}, BAD_BASIC, id="a bearer token"),
    ],
)
def test_a_token_is_refused_without_the_right_basic_credentials(
    client: FlaskClient, headers: dict[str, str], message: str
) -> None:
    response = client.get(TOKEN_PATH, headers=headers)

    assert answer(response) == error(401, "IR_01", message)


def test_a_merchant_made_by_the_control_plane_gets_credentials_of_its_own(
    client: FlaskClient, admin: Api
) -> None:
    made = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_other"}))
    other = Legacy(client, get_token(client, made["legacy_client_id"], made["legacy_client_secret"]))

    created = ok(other.post(INITIATE, transaction()))

    other_api = admin.as_key(made["secret_key"])
    assert retrieve(other_api, created["transaction_id"])["amount"] == 1050
    assert (
        admin.as_key("snd_default_secret_key").get(f"/payments/{created['transaction_id']}").status_code
        == 404
    )


# -- the bearer token on the transaction routes ---------------------------------------------------

# A token of the right shape that was never issued, and one naming no merchant.
UNISSUED = f"lat_{'0' * 40}{MERCHANT_ID}"
NO_MERCHANT = f"lat_{'0' * 40}merchant_nobody"


@pytest.mark.parametrize("path", [INITIATE, UNIFIED])
@pytest.mark.parametrize(
    ("headers", "message"),
    [
        pytest.param({}, UNAUTHORIZED, id="no credentials"),
        pytest.param({"api-key": "snd_default_secret_key"}, UNAUTHORIZED, id="an api key instead"),
        pytest.param(basic(), BAD_BEARER, id="basic credentials"),
        pytest.param({"Authorization": "Bearer"}, BAD_BEARER, id="no token"),
        pytest.param({"Authorization": "Bearer abc"}, BAD_TOKEN, id="malformed"),
        pytest.param({"Authorization": f"Bearer lat_{'g' * 40}{MERCHANT_ID}"}, BAD_TOKEN, id="not hex"),
        pytest.param({"Authorization": f"Bearer lat_{'0' * 40}"}, BAD_TOKEN, id="no merchant"),
        pytest.param({"Authorization": f"Bearer {UNISSUED}"}, BAD_TOKEN, id="never issued"),
        pytest.param({"Authorization": f"Bearer {NO_MERCHANT}"}, BAD_TOKEN, id="an unknown merchant"),
    ],
)
def test_a_transaction_route_refuses_a_missing_or_malformed_token(
    client: FlaskClient, path: str, headers: dict[str, str], message: str
) -> None:
    response = client.post(path, json=transaction(), headers=headers)

    assert answer(response) == error(401, "IR_01", message)


def test_a_token_naming_an_unknown_merchant_makes_no_room_for_it(
    client: FlaskClient, sandbox: Sandbox
) -> None:
    before = sandbox.store.merchant_ids()

    client.post(INITIATE, json=transaction(), headers={"Authorization": f"Bearer {NO_MERCHANT}"})

    assert sandbox.store.merchant_ids() == before


def test_a_token_works_until_an_hour_has_passed_on_the_mock_clock(
    api: Api, legacy: Legacy, sandbox: Sandbox
) -> None:
    advance(api, 3599)
    assert legacy.post(INITIATE, transaction()).status_code == 200

    moved = advance(api, 1)

    assert answer(legacy.post(INITIATE, transaction())) == error(401, "IR_01", EXPIRED_TOKEN)
    [record] = sandbox.store.all(LEGACY_TOKENS, MERCHANT_ID)
    assert record.status is LegacyTokenStatus.EXPIRED
    assert moved["timers_fired"] == [
        {"due_at": moved["now"], "kind": "legacy_token.expire", "target_id": record.token_hash}
    ]


def test_a_token_past_its_expiry_is_refused_before_its_timer_fires(legacy: Legacy, sandbox: Sandbox) -> None:
    sandbox.clock.move_to(MERCHANT_ID, sandbox.clock.now(MERCHANT_ID).replace(year=2100))  # no timer fired

    assert answer(legacy.post(UNIFIED, transaction(card=card()))) == error(401, "IR_01", EXPIRED_TOKEN)


def test_a_new_token_works_after_the_old_one_expired(api: Api, client: FlaskClient, legacy: Legacy) -> None:
    advance(api, 3600)

    fresh = Legacy(client, get_token(client))

    assert fresh.post(INITIATE, transaction()).status_code == 200


def test_a_reset_forgets_the_merchants_tokens(api: Api, legacy: Legacy) -> None:
    ok(api.post("/__mock/reset"))

    assert answer(legacy.post(INITIATE, transaction())) == error(401, "IR_01", BAD_TOKEN)


def test_a_token_survives_a_snapshot_and_restore(api: Api, legacy: Legacy) -> None:
    document = ok(api.get("/__mock/snapshot"))
    ok(api.post("/__mock/reset"))

    ok(api.post("/__mock/restore", document))

    assert legacy.post(INITIATE, transaction()).status_code == 200


# -- transactions -------------------------------------------------------------------------------


def test_an_initiate_with_a_card_is_a_payment_processed_at_once(
    api: Api, legacy: Legacy, frozen: str
) -> None:
    body = transaction(order_id="order_42", description="Two books", card=card(holder_name="Ada Lovelace"))

    response = legacy.post(INITIATE, body)

    assert answer(response) == (
        200,
        {
            "transaction_id": GENERATED_PAYMENT_ID,
            "status": "succeeded",
            "amount": "10.50",
            "currency": "USD",
            "amount_minor_units": 1050,
            "order_id": "order_42",
            "card": {
                "last4": "4242",
                "brand": "Visa",
                "expiry_month": "12",
                "expiry_year": "2099",
                "holder_name": "Ada Lovelace",
            },
            "redirect_url": None,
            "error_code": None,
            "error_message": None,
            "created": frozen,
        },
    )
    payment = retrieve(api, response.json["transaction_id"])
    assert (payment["status"], payment["amount"], payment["amount_received"], payment["metadata"]) == (
        "succeeded",
        1050,
        1050,
        {"order_id": "order_42"},
    )
    assert (payment["description"], payment["payment_method"]) == ("Two books", "card")


def test_an_initiate_without_a_card_waits_for_one(legacy: Legacy) -> None:
    response = legacy.post(INITIATE, transaction(transaction_id="order_7"))

    assert response.status_code == 200
    assert {name: response.json[name] for name in ("transaction_id", "status", "card", "redirect_url")} == {
        "transaction_id": "order_7",
        "status": "requires_payment_method",
        "card": None,
        "redirect_url": None,
    }


def test_unified_processes_the_card_of_an_initiated_transaction(api: Api, legacy: Legacy) -> None:
    ok(legacy.post(INITIATE, transaction(transaction_id="order_7", capture_method="manual")))

    response = legacy.post(UNIFIED, {"transaction_id": "order_7", "card": card()})

    assert (response.status_code, response.json["status"], response.json["card"]["last4"]) == (
        200,
        "requires_capture",
        "4242",
    )
    assert retrieve(api, "order_7")["amount_capturable"] == 1050


def test_unified_makes_and_processes_a_new_transaction_in_one_call(legacy: Legacy) -> None:
    response = legacy.post(UNIFIED, transaction("5", "EUR", card=card()))

    assert response.status_code == 200
    assert (response.json["status"], response.json["amount"], response.json["amount_minor_units"]) == (
        "succeeded",
        "5.00",
        500,
    )


def test_a_declined_card_fails_the_transaction_with_its_reason(legacy: Legacy) -> None:
    response = legacy.post(UNIFIED, transaction(card=card("4000000000000002")))

    assert response.status_code == 200
    assert (response.json["status"], response.json["error_code"], response.json["error_message"]) == (
        "failed",
        "card_declined",
        "Your card was declined.",
    )


def test_a_3ds_transaction_waits_for_the_customer_on_the_hosted_page(
    api: Api, client: FlaskClient, legacy: Legacy
) -> None:
    body = transaction(return_url=RETURN_URL, three_ds=True, card=card(THREE_DS_CARD))
    started = ok(legacy.post(INITIATE, body))
    payment_id = started["transaction_id"]
    client_secret = retrieve(api, payment_id)["client_secret"]
    assert (started["status"], started["redirect_url"]) == (
        "requires_customer_action",
        f"http://localhost/web/3ds/{MERCHANT_ID}/{payment_id}?client_secret={client_secret}",
    )

    page = client.get(started["redirect_url"])
    finished = client.post(
        f"/web/3ds/{MERCHANT_ID}/{payment_id}", data={"client_secret": client_secret, "action": "complete"}
    )

    assert page.status_code == 200
    assert finished.status_code == 302
    assert retrieve(api, payment_id)["status"] == "succeeded"


def test_without_three_ds_the_same_card_goes_through_at_once(legacy: Legacy) -> None:
    response = legacy.post(UNIFIED, transaction(three_ds=False, card=card(THREE_DS_CARD)))

    assert (response.json["status"], response.json["redirect_url"]) == ("succeeded", None)


@pytest.mark.parametrize(("three_ds", "status"), [(True, "requires_customer_action"), (False, "succeeded")])
def test_three_ds_asked_at_initiate_holds_for_the_card_unified_sends_later(
    api: Api, legacy: Legacy, three_ds: bool, status: str
) -> None:
    started = ok(legacy.post(INITIATE, transaction(return_url=RETURN_URL, three_ds=three_ds)))
    payment_id = started["transaction_id"]
    assert retrieve(api, payment_id)["authentication_type"] == ("three_ds" if three_ds else "no_three_ds")

    processed = ok(legacy.post(UNIFIED, {"transaction_id": payment_id, "card": card(THREE_DS_CARD)}))

    assert processed["status"] == status


def test_a_description_takes_as_many_characters_as_a_payments(api: Api, legacy: Legacy) -> None:
    longest = ok(legacy.post(INITIATE, transaction(description="d" * 1000)))
    too_long = legacy.post(INITIATE, transaction(description="d" * 1001))

    assert retrieve(api, longest["transaction_id"])["description"] == "d" * 1000
    assert too_long.status_code == 400
    assert too_long.json["error"]["param"] == "description"


def test_a_legacy_transaction_emits_the_payment_events(api: Api, legacy: Legacy) -> None:
    created = ok(legacy.post(UNIFIED, transaction(card=card())))

    events = ok(api.get(f"/events/{MERCHANT_ID}"))

    assert [(event["event_type"], event["object_id"]) for event in events["events"]] == [
        ("payment_succeeded", created["transaction_id"])
    ]


@pytest.mark.parametrize(
    ("amount", "currency", "minor", "written"),
    [
        ("10.50", "USD", 1050, "10.50"),
        ("10", "USD", 1000, "10.00"),
        ("0.01", "USD", 1, "0.01"),
        ("007.5", "EUR", 750, "7.50"),
        ("1000", "JPY", 1000, "1000"),
        ("1.234", "KWD", 1234, "1.234"),
        ("1.2", "KWD", 1200, "1.200"),
        ("1.234", "IQD", 1234, "1.234"),  # the real service's 3 decimals, where CLDR gives none
        ("12.34", "RSD", 1234, "12.34"),
        ("25", "MGA", 25, "25"),  # none, where ISO 4217 gives 2
        ("999999999.99", "USD", 99_999_999_999, "999999999.99"),
    ],
)
def test_an_amount_in_major_units_is_converted_with_the_currencys_exponent(
    api: Api, legacy: Legacy, amount: str, currency: str, minor: int, written: str
) -> None:
    response = legacy.post(INITIATE, transaction(amount, currency))

    assert (response.status_code, response.json["amount_minor_units"], response.json["amount"]) == (
        200,
        minor,
        written,
    )
    assert retrieve(api, response.json["transaction_id"])["amount"] == minor


@pytest.mark.parametrize(
    ("amount", "currency", "reason"),
    [
        pytest.param("10.505", "USD", "USD takes at most 2 decimals", id="three decimals of USD"),
        pytest.param("1000.5", "JPY", "JPY takes no decimals", id="a decimal of JPY"),
        pytest.param("1000.0", "JPY", "JPY takes no decimals", id="a zero decimal of JPY"),
        pytest.param("1.2345", "KWD", "KWD takes at most 3 decimals", id="four decimals of KWD"),
        pytest.param("0", "USD", "from 0.01 to 999999999.99 USD", id="zero"),
        pytest.param("0.00", "KWD", "from 0.001 to 99999999.999 KWD", id="zero of KWD"),
        pytest.param("1000000000.00", "USD", "from 0.01 to 999999999.99 USD", id="too large"),
        pytest.param("9" * 200, "JPY", "from 1 to 99999999999 JPY", id="two hundred digits"),
        pytest.param("9" * 5000, "JPY", "longer than maximum length 255", id="five thousand digits"),
        pytest.param("1,000.00", "USD", DECIMAL_STRING, id="a thousands separator"),
        pytest.param("-1.00", "USD", DECIMAL_STRING, id="negative"),
        pytest.param("1e3", "USD", DECIMAL_STRING, id="an exponent"),
        pytest.param(" 10.00", "USD", DECIMAL_STRING, id="a space"),
        pytest.param("10.", "USD", DECIMAL_STRING, id="a point without decimals"),
        pytest.param(".50", "USD", DECIMAL_STRING, id="decimals without units"),
        pytest.param("\u0661\u0660", "USD", DECIMAL_STRING, id="other digits"),
        pytest.param("", "USD", DECIMAL_STRING, id="empty"),
        pytest.param(10.5, "USD", DECIMAL_STRING, id="a JSON number"),
    ],
)
@pytest.mark.parametrize("path", [INITIATE, UNIFIED])
def test_a_bad_amount_is_refused_naming_the_reason(
    legacy: Legacy, path: str, amount: Any, currency: str, reason: str
) -> None:
    response = legacy.post(path, transaction(amount, currency, card=card()))

    assert answer(response) == error(400, "IR_04", f"Invalid value provided: amount: {reason}", "amount")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            {"currency": "USD"}, error(400, "IR_04", "Missing required param: amount", "amount"), id="amount"
        ),
        pytest.param(
            {"amount": "1.00"},
            error(400, "IR_04", "Missing required param: currency", "currency"),
            id="currency",
        ),
        pytest.param(
            transaction(currency="ABC"),
            error(
                400,
                "IR_04",
                "Invalid value provided: currency: not an ISO 4217 currency code of money the service takes",
                "currency",
            ),
            id="not a currency",
        ),
        pytest.param(
            transaction(capture_method="manual_multiple"),
            error(
                400,
                "IR_04",
                "Invalid value provided: capture_method: must be one of: automatic, manual",
                "capture_method",
            ),
            id="capture method",
        ),
        pytest.param(
            transaction(card=card(THREE_DS_CARD), three_ds=True),
            error(400, "IR_04", "Missing required param: return_url", "return_url"),
            id="3DS without a return_url",
        ),
        pytest.param(
            transaction(colour="red"),
            error(400, "IR_06", "Json deserialize error: unknown field `colour`"),
            id="unknown field",
        ),
    ],
)
def test_an_initiate_with_a_bad_field_is_refused(
    legacy: Legacy, body: Any, expected: tuple[int, Any]
) -> None:
    assert answer(legacy.post(INITIATE, body)) == expected


@pytest.mark.parametrize(
    ("legacy_card", "field", "reason"),
    [
        (card("4242424242424241"), "card.number", "the card number is not valid"),
        (card(cvv="12"), "card.cvv", "three or four digits"),
        (card(expiry_month="13"), "card.expiry_month", "a month from 01 to 12"),
        (card(expiry_year="2001"), "card.expiry_year", "the card has expired"),
    ],
)
@pytest.mark.parametrize("path", [INITIATE, UNIFIED])
def test_a_bad_card_is_refused_naming_the_legacy_field(
    legacy: Legacy, path: str, legacy_card: dict[str, str], field: str, reason: str
) -> None:
    response = legacy.post(path, transaction(card=legacy_card))

    assert answer(response) == error(400, "IR_04", f"Invalid value provided: {field}: {reason}", field)


def test_a_card_without_its_cvv_is_refused(legacy: Legacy) -> None:
    body = transaction(card={"number": "4242424242424242", "expiry_month": "12", "expiry_year": "2099"})

    assert answer(legacy.post(INITIATE, body)) == error(
        400, "IR_04", "Missing required param: card.cvv", "card.cvv"
    )


def test_a_transaction_id_taken_already_is_refused(legacy: Legacy) -> None:
    ok(legacy.post(INITIATE, transaction(transaction_id="order_7")))

    response = legacy.post(INITIATE, transaction(transaction_id="order_7"))

    assert answer(response) == error(
        400,
        "HE_01",
        "The payment with the specified transaction_id already exists in our records",
        "transaction_id",
    )


def test_an_initiate_for_another_gateway_than_the_merchants_is_not_found(legacy: Legacy) -> None:
    response = legacy.post("/api/v1/adyen/card/initiate", transaction())

    assert answer(response) == error(404, "HE_02", "Gateway does not exist in our records")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            {"card": card()},
            error(400, "IR_04", "Missing required param: transaction_id", "transaction_id"),
            id="neither transaction_id nor amount",
        ),
        pytest.param(
            {"transaction_id": "order_7"},
            error(400, "IR_04", "Missing required param: card", "card"),
            id="card",
        ),
        pytest.param(
            {"transaction_id": "order_7", "card": card(), "order_id": "order_8"},
            error(
                400,
                "IR_04",
                "Invalid value provided: order_id: only for a new transaction, with its amount and currency",
                "order_id",
            ),
            id="a new transaction's field",
        ),
        pytest.param(
            {"amount": "1.00", "card": card()},
            error(400, "IR_04", "Missing required param: currency", "currency"),
            id="amount without currency",
        ),
        pytest.param(
            {"transaction_id": "pay_none", "card": card()},
            error(404, "IR_05", "Payment not found"),
            id="unknown",
        ),
    ],
)
def test_a_unified_with_a_bad_body_is_refused(legacy: Legacy, body: Any, expected: tuple[int, Any]) -> None:
    assert answer(legacy.post(UNIFIED, body)) == expected


def test_a_transaction_is_processed_only_once(legacy: Legacy) -> None:
    ok(legacy.post(UNIFIED, transaction(transaction_id="order_7", card=card())))

    response = legacy.post(UNIFIED, {"transaction_id": "order_7", "card": card()})

    assert answer(response) == error(
        400,
        "IR_14",
        "This Payment could not be confirmed because it has a status of succeeded. "
        "The expected state is requires_payment_method, requires_confirmation",
    )


@pytest.mark.parametrize("path", [INITIATE, UNIFIED])
def test_a_body_over_the_size_limit_is_refused(path: str) -> None:
    app = create_app(Settings(max_body_bytes=64))
    app.test_client_class = CheckedClient
    client = app.test_client()
    legacy = Legacy(client, get_token(client))

    response = legacy.post(path, transaction(description="x" * 64))

    assert answer(response) == error(413, "IR_06", "Request body is larger than the limit of 64 bytes")


def test_the_journal_records_a_legacy_request_with_its_card_masked(api: Api, legacy: Legacy) -> None:
    legacy.post(UNIFIED, transaction(card=card()))

    [entry] = ok(api.get("/__mock/requests?path=/api/v1/card/unified"))["data"]

    assert (entry["status"], entry["request_body"]["card"]) == (
        200,
        {"number": "************4242", "expiry_month": "12", "expiry_year": "2099", "cvv": "***"},
    )


def test_the_journal_keeps_the_last_four_of_an_access_token_it_hands_out(
    api: Api, client: FlaskClient
) -> None:
    token = get_token(client)

    [entry] = ok(api.get("/__mock/requests?path=/api/v1"))["data"]

    assert entry["response_body"]["access_token"] == "*" * (len(token) - 4) + token[-4:]


@pytest.mark.parametrize("number", ["4242  4242  4242  4242", "4242.4242.4242.4242"])
def test_the_journal_masks_a_legacy_card_number_whatever_separates_its_groups(
    api: Api, legacy: Legacy, number: str
) -> None:
    legacy.post(UNIFIED, transaction(card=card(number=number)))

    [entry] = ok(api.get("/__mock/requests?path=/api/v1/card/unified"))["data"]

    assert entry["request_body"]["card"]["number"] == "*" * (len(number) - 4) + "4242"


def test_a_fault_rule_applies_to_legacy_requests_as_to_the_payments_api(api: Api, legacy: Legacy) -> None:
    ok(
        api.post(
            "/__mock/faults", {"match": {"path": "/api/v1/*/card/initiate"}, "effect": {"type": "error"}}
        )
    )

    status, body = answer(legacy.post(INITIATE, transaction(card=card())))

    assert (status, body["error"]["code"]) == (503, "HE_00")
    assert ok(api.post("/payments/list", {}))["total_count"] == 0
    [entry] = ok(api.get("/__mock/requests?path=/api/v1/*"))["data"]
    assert (entry["status"], entry["fault"]["effect"], entry["key_kind"]) == (503, "error", "secret")


def test_legacy_requests_count_against_the_merchants_rate_limit(client: FlaskClient) -> None:
    app = create_app(Settings(rate_limit=2))
    app.test_client_class = CheckedClient
    limited = app.test_client()
    legacy = Legacy(limited, get_token(limited))

    first = legacy.post(INITIATE, transaction())
    second = legacy.post(INITIATE, transaction())
    unified = legacy.post(UNIFIED, transaction(card=card()))
    token = limited.get(TOKEN_PATH, headers=basic())

    assert first.status_code == 200
    assert [second.status_code, unified.status_code, token.status_code] == [429, 429, 429]
    assert second.json["error"]["code"] == "RL_01"
    assert second.headers["X-RateLimit-Limit"] == "2"


def test_a_token_request_the_rate_limit_refuses_stores_no_token() -> None:
    settings = Settings(rate_limit=2)
    limited_sandbox = create_sandbox(settings)
    app = create_app(settings, limited_sandbox)
    app.test_client_class = CheckedClient
    limited = app.test_client()

    statuses = [limited.get(TOKEN_PATH, headers=basic()).status_code for _ in range(4)]

    assert statuses == [200, 200, 429, 429]
    assert len(limited_sandbox.store.all(LEGACY_TOKENS, MERCHANT_ID)) == 2


def test_a_token_request_a_fault_refuses_before_it_acts_stores_no_token(
    api: Api, client: FlaskClient, sandbox: Sandbox
) -> None:
    fault = {"match": {"path": "/api/v1"}, "effect": {"type": "error", "status": 503}, "timing": "before"}
    ok(api.post("/__mock/faults", fault))

    response = client.get(TOKEN_PATH, headers=basic())

    assert response.status_code == 503
    assert sandbox.store.all(LEGACY_TOKENS, MERCHANT_ID) == []


def test_a_head_request_for_a_token_is_refused_and_stores_none(client: FlaskClient, sandbox: Sandbox) -> None:
    response = client.head(TOKEN_PATH, headers=basic())

    assert (response.status_code, response.headers["Allow"]) == (405, "GET")
    assert sandbox.store.all(LEGACY_TOKENS, MERCHANT_ID) == []


def test_metadata_that_order_id_would_take_past_the_key_limit_is_refused_and_nothing_is_stored(
    api: Api, legacy: Legacy
) -> None:
    metadata = {f"k{number}": "v" for number in range(50)}

    refused = legacy.post(INITIATE, transaction(transaction_id="big", order_id="o1", metadata=metadata))
    taken = legacy.post(
        INITIATE,
        transaction(transaction_id="fits", order_id="o1", metadata=dict(list(metadata.items())[:49])),
    )

    assert answer(refused) == error(
        400,
        "IR_04",
        "Invalid value provided: metadata: has more than 50 keys, counting order_id, which it holds too",
        "metadata",
    )
    assert ok(api.post("/payments/list", {}))["total_count"] == 1
    assert taken.status_code == 200
    assert len(retrieve(api, "fits")["metadata"]) == 50
