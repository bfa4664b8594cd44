"""The payout routes take the real API's bodies: every create, update and confirm field, and confirm.

Spec section 4.5 (the create body) and decisions section 4 (payouts). The fields that act: amount,
currency, payout_type, payout_method_data, auto_fulfill, confirm, customer_id / customer,
profile_id and client_secret; the ones stored and shown; and the ones only checked.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from mocksrv.domain.sandbox import Sandbox
from tests.api.expected import case_id, error, invalid, malformed, missing
from tests.api.scenarios import advance, ok, sent_webhook
from tests.api.test_payouts_api import (
    ADA,
    BANK,
    CREATE,
    CUSTOMER_ID,
    GENERATED_PAYOUT_ID,
    MASKED_BANK,
    add_customer,
    create_payout,
    get_payout,
    payout_body,
    payout_events,
    refused,
)
from tests.conftest import Api
from tests.payloads import MERCHANT_ID, PROFILE_ID

pytestmark = pytest.mark.usefixtures("frozen")

BILLING: dict[str, Any] = {
    "address": {
        "city": "San Francisco",
        "country": "US",
        "line1": "1467 Harrison Street",
        "line2": "Harrison Street",
        "line3": "Suite 2",
        "zip": "94122",
        "state": "California",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "origin_zip": "94107",
    },
    "phone": {"number": "8056594427", "country_code": "+1"},
    "email": "ada@example.com",
}
CUSTOMER: dict[str, Any] = {
    "id": CUSTOMER_ID,
    "name": "Ada Lovelace",
    "email": "ada@example.com",
    "phone": "8056594427",
    "phone_country_code": "+1",
    "tax_registration_id": "TAX123",
}
BROWSER_INFO: dict[str, Any] = {
    "color_depth": 24,
    "java_enabled": True,
    "java_script_enabled": True,
    "language": "en-US",
    "screen_height": 1080,
    "screen_width": 1920,
    "time_zone": -120,
    "ip_address": "203.0.113.7",
    "accept_header": "text/html",
    "user_agent": "Mozilla/5.0",
    "os_type": "linux",
    "os_version": "6.1",
    "device_model": "desktop",
    "accept_language": "en",
    "referer": "https://shop.example/",
}
# Every field of the real create body, each with a valid value.
EVERY_FIELD: dict[str, Any] = {
    "merchant_order_reference_id": "order_42",
    "amount": 1000,
    "currency": "USD",
    "routing": {"type": "single", "data": {"connector": "wise"}},
    "connector": ["wise", "adyen"],
    "confirm": True,
    "payout_type": "bank",
    "payout_method_data": {"bank": BANK},
    "billing": BILLING,
    "auto_fulfill": False,
    "customer_id": CUSTOMER_ID,
    "customer": CUSTOMER,
    "return_url": "https://shop.example/payouts/done",
    "business_country": "US",
    "business_label": "food",
    "entity_type": "Company",
    "recurring": True,
    "metadata": {"batch": "b1"},
    "payout_token": "tok_1",
    "profile_id": PROFILE_ID,
    "priority": "instant",
    "payout_link": False,
    "payout_link_config": {"theme": "#4E6ADD", "test_mode": True},
    "session_expiry": 900,
    "email": "ada@example.com",
    "name": "Ada Lovelace",
    "phone": "8056594427",
    "phone_country_code": "+1",
    "payout_method_id": "pm_1",
    "browser_info": BROWSER_INFO,
    "client_secret": "ignored_at_create",
    "description": "Weekly payout",
}
# What the answer shows of EVERY_FIELD beyond payout_body's defaults.
EVERY_FIELD_SHOWN: dict[str, Any] = {
    "customer_id": CUSTOMER_ID,
    "customer": ADA,  # the customer's own details, not those sent
    "description": "Weekly payout",
    "metadata": {"batch": "b1"},
    "merchant_order_reference_id": "order_42",
    "billing": BILLING,
    "return_url": "https://shop.example/payouts/done",
    "business_country": "US",
    "business_label": "food",
    "entity_type": "Company",
    "recurring": True,
    "priority": "instant",
    "email": "ada@example.com",
    "name": "Ada Lovelace",
    "phone": "8056594427",
    "phone_country_code": "+1",
    "payout_method_id": "pm_1",
}
SPEC_BODY: dict[str, Any] = {
    "amount": 1000,
    "currency": "USD",
    "customer_id": CUSTOMER_ID,
    "payout_type": "bank",
    "description": "Its my first payout request",
    "metadata": {"ref": "123"},
}
PAYPAL = {"email": "ada@example.com", "telephone_number": "4155550100", "paypal_id": "G83KXTJ5EHCQ2"}


def every_field(api: Api) -> dict[str, Any]:
    """EVERY_FIELD, its customer made first."""
    add_customer(api)
    return {**copy.deepcopy(EVERY_FIELD), "profile_id": PROFILE_ID}


def secret(api: Api, payout_id: str = "po_1") -> str:
    value: str = get_payout(api, payout_id)["client_secret"]
    return value


# -- create ------------------------------------------------------------------------------------------


def test_a_create_with_every_real_field_is_accepted_and_shows_what_it_keeps(api: Api, frozen: str) -> None:
    body = every_field(api)

    response = api.post("/payouts/create", body)

    assert response.status_code == 200
    assert response.json == payout_body(frozen, GENERATED_PAYOUT_ID, **EVERY_FIELD_SHOWN)
    assert get_payout(api, response.json["payout_id"]) == response.json


def test_the_spec_body_without_a_payout_method_is_accepted(api: Api, frozen: str) -> None:
    add_customer(api)

    response = api.post("/payouts/create", SPEC_BODY)

    assert response.status_code == 200
    assert response.json == payout_body(
        frozen,
        GENERATED_PAYOUT_ID,
        payout_method_data=None,
        customer_id=CUSTOMER_ID,
        customer=ADA,
        description="Its my first payout request",
        metadata={"ref": "123"},
    )


def test_nulls_for_every_optional_field_are_as_if_not_sent(api: Api, frozen: str) -> None:
    body = dict.fromkeys(EVERY_FIELD)
    body.update(amount=1000, currency="USD", payout_id="po_1")

    response = api.post("/payouts/create", body)

    assert response.status_code == 200
    assert response.json == payout_body(frozen, payout_type=None, payout_method_data=None)


def test_the_payout_type_is_that_of_the_method_sent(api: Api, frozen: str) -> None:
    response = api.post(
        "/payouts/create", {"amount": 1000, "currency": "USD", "payout_method_data": {"bank": BANK}}
    )

    assert response.status_code == 200
    assert response.json == payout_body(frozen, GENERATED_PAYOUT_ID)


def test_a_customer_object_names_the_customer(api: Api, frozen: str) -> None:
    add_customer(api)

    response = api.post("/payouts/create", {**CREATE, "payout_id": "po_1", "customer": {"id": CUSTOMER_ID}})

    assert response.status_code == 200
    assert response.json == payout_body(frozen, customer_id=CUSTOMER_ID, customer=ADA)


def test_the_customer_shown_is_the_stored_one_not_the_details_sent(api: Api, frozen: str) -> None:
    """As the real service answers: the customer's own details, whatever the create sent beside its id."""
    add_customer(api)

    response = api.post(
        "/payouts/create", {**CREATE, "payout_id": "po_1", "customer": {**CUSTOMER, "name": "Someone Else"}}
    )

    assert response.status_code == 200
    assert response.json == payout_body(frozen, customer_id=CUSTOMER_ID, customer=ADA)


def test_the_customer_shown_follows_the_customer_record(api: Api, frozen: str) -> None:
    add_customer(api)
    ok(api.post("/payouts/create", {**CREATE, "payout_id": "po_1", "customer_id": CUSTOMER_ID}))
    ok(api.post(f"/customers/{CUSTOMER_ID}", {"email": "ada@example.com"}))

    assert get_payout(api)["customer"] == {**ADA, "email": "ada@example.com"}
    ok(api.delete(f"/customers/{CUSTOMER_ID}"))
    assert get_payout(api)["customer"] is None
    assert get_payout(api)["customer_id"] == CUSTOMER_ID


@pytest.mark.parametrize(
    ("method", "shown"),
    [
        (
            {"bank": {"iban": "DE89370400440532013000", "bic": "DEUTDEFF", "bank_name": "Deutsche"}},
            {"bank": {"iban": "****3000", "bic": "DEUTDEFF", "bank_name": "Deutsche"}},
        ),
        (
            {"bank": {"bank_account_number": "55779911", "bank_sort_code": "200000"}},
            {"bank": {"bank_account_number": "****9911", "bank_sort_code": "200000"}},
        ),
        (
            {"bank": {"bank_account_number": "10000000", "pix_key": "ada@example.com", "tax_id": "1"}},
            {"bank": {"bank_account_number": "****0000", "pix_key": "ada@example.com", "tax_id": "1"}},
        ),
    ],
    ids=["sepa", "bacs", "pix"],
)
def test_every_bank_transfer_is_accepted_and_keeps_only_the_last_four(
    api: Api, frozen: str, method: dict[str, Any], shown: dict[str, Any]
) -> None:
    response = api.post("/payouts/create", {**CREATE, "payout_id": "po_1", "payout_method_data": method})

    assert response.status_code == 200
    assert response.json == payout_body(frozen, payout_method_data=shown)


@pytest.mark.parametrize(
    ("payout_type", "method", "shown"),
    [
        (
            "card",
            {
                "card_number": "4111111111111111",
                "expiry_month": "12",
                "expiry_year": "2030",
                "card_holder_name": "Ada Lovelace",
                "card_network": "Visa",
            },
            {
                "card_number": "****1111",
                "expiry_month": "12",
                "expiry_year": "2030",
                "card_holder_name": "Ada Lovelace",
                "card_network": "Visa",
                "last4": "1111",
                "card_exp_month": "12",
                "card_exp_year": "2030",
            },
        ),
        # A wallet and a bank redirect are answered as their details alone, as the real service does.
        ("wallet", {"paypal": PAYPAL}, PAYPAL),
        ("wallet", {"venmo": {"telephone_number": "4155550100"}}, {"telephone_number": "4155550100"}),
        (
            "wallet",
            {
                "apple_pay_decrypt": {
                    "dpan": "4761360080000093",
                    "expiry_month": "12",
                    "expiry_year": "2030",
                    "card_holder_name": "Ada Lovelace",
                }
            },
            {"card_exp_month": "12", "card_exp_year": "2030", "card_holder_name": "Ada Lovelace"},
        ),
        ("bank_redirect", {"interac": {"email": "ada@example.com"}}, {"email": "ada@example.com"}),
    ],
    ids=["card", "paypal", "venmo", "apple_pay_decrypt", "interac"],
)
def test_every_payout_type_is_accepted(
    api: Api, sandbox: Sandbox, frozen: str, payout_type: str, method: dict[str, Any], shown: dict[str, Any]
) -> None:
    body = {
        **CREATE,
        "payout_id": "po_1",
        "payout_type": payout_type,
        "payout_method_data": {payout_type: method},
    }

    response = api.post("/payouts/create", body)

    assert response.status_code == 200
    assert response.json == payout_body(
        frozen, payout_type=payout_type, payout_method_data={payout_type: shown}
    )
    stored = json.dumps(sandbox.payouts.retrieve(MERCHANT_ID, "po_1").payout_method_data)
    assert "4761360080000093" not in stored
    assert "4111111111111111" not in stored


@pytest.mark.parametrize(
    ("sent", "payout_type"),
    [
        ({"token_type": "debit"}, "card"),
        ({"token_type": "ach"}, "bank"),
        ({"token_type": "ach", "type": "card"}, "card"),
    ],
    ids=["a card token", "a bank token", "the type sent"],
)
def test_a_passthrough_token_is_paid_out_as_the_type_of_method_it_stands_for(
    api: Api, frozen: str, sent: dict[str, str], payout_type: str
) -> None:
    token = {"psp_token": "tok_1", "token_type": sent["token_type"]}
    body = {
        "amount": 1000,
        "currency": "USD",
        "payout_id": "po_1",
        "payout_method_data": {"passthrough": token},
    }
    if "type" in sent:
        body["payout_type"] = sent["type"]

    response = api.post("/payouts/create", body)

    assert response.status_code == 200
    assert response.json == payout_body(
        frozen, payout_type=payout_type, payout_method_data={"passthrough": token}
    )


def test_a_passthrough_without_its_token_type_is_refused(api: Api) -> None:
    body = {**CREATE, "payout_method_data": {"passthrough": {"psp_token": "tok_1"}}}

    response = api.post("/payouts/create", body)

    assert response.status_code == 400
    assert response.json["error"]["param"] == "payout_method_data.passthrough.token_type"


def invalid_for_connector() -> dict[str, Any]:
    return invalid(
        "connector.0",
        "must be one of: adyen, adyenplatform, cybersource, ebanx, gigadat, loonio, nomupay, nuvei, "
        "payone, paypal, stripe, wise, worldpay, worldpayxml",
    )


INVALID: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (
        {"entity_type": "Trust"},
        invalid(
            "entity_type",
            "must be one of: "
            + ", ".join(
                [
                    "Individual",
                    "Company",
                    "NonProfit",
                    "PublicSector",
                    "NaturalPerson",
                    "lowercase",
                    "Personal",
                ]
            ),
        ),
    ),
    (
        {"priority": "slow"},
        invalid("priority", "must be one of: instant, fast, regular, wire, cross_border, internal"),
    ),
    ({"connector": "wise"}, invalid("connector", "not a valid list")),
    ({"connector": ["bank_of_tests"]}, invalid_for_connector()),
    ({"business_country": "XX"}, invalid("business_country", "not an ISO 3166 alpha-2 country code")),
    ({"recurring": "no"}, invalid("recurring", "not a valid boolean")),
    ({"confirm": 1}, invalid("confirm", "not a valid boolean")),
    (
        {"session_expiry": -1},
        invalid("session_expiry", "must be greater than or equal to 0 and less than or equal to 2147483647"),
    ),
    (
        {"return_url": "not a url"},
        invalid("return_url", "not an http or https URL with a host and a port of 1 to 65535"),
    ),
    ({"email": "nobody"}, invalid("email", "not a valid email address")),
    ({"routing": "wise"}, invalid("routing", "not a valid mapping type")),
    (
        {"billing": {"address": {"line2": "x" * 51}}},
        invalid("billing.address.line2", "longer than maximum length 50"),
    ),
    (
        {"billing": {"address": {"country": "USA"}}},
        invalid("billing.address.country", "not an ISO 3166 alpha-2 country code"),
    ),
    ({"customer": {"name": "Ada"}}, missing("customer.id")),
    ({"customer": {"id": "cus_other"}}, invalid("customer.id", "differs from customer_id")),
    ({"browser_info": {"color_depth": "24"}}, invalid("browser_info.color_depth", "not a valid integer")),
    ({"profile_id": "pro_missing"}, invalid("profile_id", "no such business profile")),
    (
        {"payout_method_data": {"bank": {"iban": "DE89370400440532013000"}}},
        missing("payout_method_data.bank.bic"),
    ),
    (
        {"payout_method_data": {"bank": {"bank_account_number": "55779911", "bank_sort_code": "2000"}}},
        invalid("payout_method_data.bank.bank_sort_code", "string does not match expected pattern"),
    ),
    (
        {"payout_method_data": {"bank": BANK, "wallet": {"paypal": PAYPAL}}},
        invalid("payout_method_data", "takes one payout method, not several"),
    ),
    (
        {"payout_type": "wallet", "payout_method_data": {"wallet": {}}},
        invalid("payout_method_data.wallet", "must hold exactly one of: apple_pay_decrypt, paypal, venmo"),
    ),
    (
        {"payout_type": "wallet", "payout_method_data": {"wallet": {"paypal": {"email": "ada@example.com"}}}},
        missing("payout_method_data.wallet.paypal.telephone_number"),
    ),
    (
        {"payout_type": "wallet", "payout_method_data": {"wallet": {"venmo": {}}}},
        missing("payout_method_data.wallet.venmo.telephone_number"),
    ),
    (
        {
            "payout_type": "wallet",
            "payout_method_data": {"wallet": {"apple_pay_decrypt": {"dpan": "4761360080000093"}}},
        },
        missing("payout_method_data.wallet.apple_pay_decrypt.expiry_month"),
    ),
    (
        {"payout_type": "bank_redirect", "payout_method_data": {"bank_redirect": {"interac": {}}}},
        missing("payout_method_data.bank_redirect.interac.email"),
    ),
    (
        {"payout_type": "bank_redirect", "payout_method_data": {"bank_redirect": {}}},
        invalid("payout_method_data.bank_redirect", "must hold exactly one of: interac"),
    ),
    (
        {"payout_type": "card", "payout_method_data": {"card": {"card_number": "4111111111111111"}}},
        missing("payout_method_data.card.expiry_month"),
    ),
]


@pytest.mark.parametrize(("changes", "expected"), INVALID, ids=[case_id(c) for c, _ in INVALID])
def test_a_real_field_with_an_invalid_value_is_IR_04_naming_it(
    api: Api, changes: dict[str, Any], expected: dict[str, Any]
) -> None:
    add_customer(api)
    body = {**CREATE, "customer_id": CUSTOMER_ID, **changes}

    response = api.post("/payouts/create", body)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.post("/payouts/list", {}))["total_count"] == 0


@pytest.mark.parametrize("field", ["payout_link_id", "force_sync", "merchant_id"])
def test_a_field_the_real_api_does_not_define_is_IR_06(api: Api, field: str) -> None:
    response = api.post("/payouts/create", {**CREATE, field: "x"})

    assert response.status_code == 400
    assert response.json == malformed(f"unknown field `{field}`")


# -- fulfil needs a payout method --------------------------------------------------------------------


def test_fulfil_without_a_payout_method_is_IR_04_and_changes_nothing(api: Api) -> None:
    created = ok(api.post("/payouts/create", {**SPEC_BODY, "customer_id": None, "payout_id": "po_1"}))

    response = api.post("/payouts/po_1/fulfill")

    assert response.status_code == 400
    assert response.json == missing("payout_method_data")
    assert get_payout(api) == created
    assert payout_events(api) == []


def test_auto_fulfill_without_a_payout_method_is_IR_04_and_stores_nothing(api: Api) -> None:
    response = api.post("/payouts/create", {"amount": 1000, "currency": "USD", "auto_fulfill": True})

    assert response.status_code == 400
    assert response.json == missing("payout_method_data")
    assert ok(api.post("/payouts/list", {}))["total_count"] == 0


def test_a_payout_method_added_by_update_makes_it_fulfillable(api: Api, frozen: str) -> None:
    ok(api.post("/payouts/create", {"amount": 1000, "currency": "USD", "payout_id": "po_1"}))
    ok(api.post("/payouts/po_1", {"payout_method_data": {"bank": BANK}}))

    response = api.post("/payouts/po_1/fulfill")

    assert response.status_code == 200
    assert response.json == payout_body(frozen, status="pending")


# -- fulfil and cancel take the payout's id in the body ----------------------------------------------


@pytest.mark.parametrize(("route", "status"), [("fulfill", "pending"), ("cancel", "cancelled")])
def test_fulfil_and_cancel_take_the_payout_id_in_the_body(
    api: Api, frozen: str, route: str, status: str
) -> None:
    create_payout(api)

    response = api.post(f"/payouts/po_1/{route}", {"payout_id": "po_1"})

    assert response.status_code == 200
    assert response.json == payout_body(frozen, status=status)


@pytest.mark.parametrize("route", ["fulfill", "cancel"])
def test_fulfil_and_cancel_with_another_payout_id_in_the_body_are_IR_04(api: Api, route: str) -> None:
    created = create_payout(api)

    response = api.post(f"/payouts/po_1/{route}", {"payout_id": "po_2"})

    assert response.status_code == 400
    assert response.json == invalid("payout_id", "does not match the payout in the path")
    assert get_payout(api) == created


# -- update through POST -----------------------------------------------------------------------------


def test_post_on_the_payout_updates_it_as_put_does(api: Api, frozen: str) -> None:
    create_payout(api)
    advance(api, 60)

    response = api.post(
        "/payouts/po_1",
        {"amount": 2500, "priority": "fast", "recurring": True, "billing": BILLING, "entity_type": "Company"},
    )

    assert response.status_code == 200
    assert response.json == payout_body(
        frozen,
        amount=2500,
        priority="fast",
        recurring=True,
        billing=BILLING,
        entity_type="Company",
    )
    assert get_payout(api) == response.json


def test_post_update_with_a_wrong_client_secret_is_IR_09(api: Api) -> None:
    created = create_payout(api)

    response = api.post("/payouts/po_1", {"amount": 2500, "client_secret": "po_1_secret_wrong"})

    assert response.status_code == 400
    assert response.json == WRONG_SECRET
    assert get_payout(api) == created


@pytest.mark.parametrize("status", ["pending", "cancelled"])
def test_post_update_after_fulfilment_is_IR_14(api: Api, status: str) -> None:
    create_payout(api, auto_fulfill=status == "pending")
    if status == "cancelled":
        ok(api.post("/payouts/po_1/cancel"))
    shown = get_payout(api)

    response = api.post("/payouts/po_1", {"amount": 2500})

    assert response.status_code == 400
    assert response.json == refused("updated", status)
    assert get_payout(api) == shown


def test_post_update_with_confirm_fulfils_an_auto_fulfill_payout(api: Api, frozen: str) -> None:
    create_payout(api, confirm=False, auto_fulfill=True)

    response = api.post("/payouts/po_1", {"confirm": True})

    assert response.status_code == 200
    assert response.json == payout_body(frozen, status="pending", auto_fulfill=True)


# -- confirm -----------------------------------------------------------------------------------------

WRONG_SECRET = error(
    "IR_09",
    "The client_secret provided does not match the client_secret associated with the Payout",
    "client_secret",
)


def test_confirm_with_the_client_secret_changes_the_fields_sent(api: Api, frozen: str) -> None:
    create_payout(api)
    advance(api, 60)

    response = api.post(
        "/payouts/po_1/confirm", {"client_secret": secret(api), "amount": 1500, "business_country": "DE"}
    )

    assert response.status_code == 200
    assert response.json == payout_body(frozen, amount=1500, business_country="DE")
    assert payout_events(api) == []


def test_confirm_of_an_auto_fulfill_payout_held_back_by_confirm_false_fulfils_it(
    api: Api, frozen: str
) -> None:
    held = create_payout(api, confirm=False, auto_fulfill=True)
    assert held == payout_body(frozen, auto_fulfill=True)

    response = api.post("/payouts/po_1/confirm", {"client_secret": held["client_secret"]})

    assert response.status_code == 200
    assert response.json == payout_body(frozen, status="pending", auto_fulfill=True)
    assert [event[0] for event in payout_events(api)] == ["payout_initiated"]


def test_confirm_with_auto_fulfill_in_the_body_fulfils(api: Api, frozen: str) -> None:
    create_payout(api)

    response = api.post("/payouts/po_1/confirm", {"client_secret": secret(api), "auto_fulfill": True})

    assert response.status_code == 200
    assert response.json == payout_body(frozen, status="pending", auto_fulfill=True)


def test_confirm_with_auto_fulfill_but_no_payout_method_is_IR_04(api: Api) -> None:
    created = ok(api.post("/payouts/create", {"amount": 1000, "currency": "USD", "payout_id": "po_1"}))

    response = api.post(
        "/payouts/po_1/confirm", {"client_secret": created["client_secret"], "auto_fulfill": True}
    )

    assert response.status_code == 400
    assert response.json == missing("payout_method_data")
    assert get_payout(api) == created


def test_confirm_without_the_client_secret_is_IR_04(api: Api) -> None:
    created = create_payout(api)

    response = api.post("/payouts/po_1/confirm", {"amount": 1500})

    assert response.status_code == 400
    assert response.json == missing("client_secret")
    assert get_payout(api) == created


def test_confirm_with_a_wrong_client_secret_is_IR_09(api: Api) -> None:
    created = create_payout(api)

    response = api.post("/payouts/po_1/confirm", {"client_secret": "po_1_secret_0000"})

    assert response.status_code == 400
    assert response.json == WRONG_SECRET
    assert get_payout(api) == created


def test_confirm_with_a_field_the_real_confirm_does_not_take_is_IR_06(api: Api) -> None:
    create_payout(api)

    response = api.post("/payouts/po_1/confirm", {"client_secret": secret(api), "confirm": True})

    assert response.status_code == 400
    assert response.json == malformed("unknown field `confirm`")


def test_confirm_after_fulfilment_is_IR_14(api: Api) -> None:
    shown = create_payout(api, auto_fulfill=True)

    response = api.post("/payouts/po_1/confirm", {"client_secret": shown["client_secret"]})

    assert response.status_code == 400
    assert response.json == refused("confirmed", "pending")
    assert get_payout(api) == shown


def test_confirm_of_an_unknown_payout_is_404_HE_02(api: Api) -> None:
    response = api.post("/payouts/po_missing/confirm", {"client_secret": "x"})

    assert response.status_code == 404
    assert response.json == error("HE_02", "Payout does not exist in our records")


def test_the_bank_account_of_every_field_is_kept_as_its_last_four(api: Api) -> None:
    shown = ok(api.post("/payouts/create", every_field(api)))

    assert shown["payout_method_data"] == {"bank": MASKED_BANK}


# -- the answer: the real PayoutCreateResponse's fields, and no others --------------------------------

# Every field of the real service's payout answer (`PayoutCreateResponse`, which takes no others).
REAL_ANSWER_FIELDS = frozenset(
    {
        "payout_id",
        "merchant_id",
        "merchant_order_reference_id",
        "amount",
        "currency",
        "connector",
        "payout_type",
        "payout_method_data",
        "billing",
        "auto_fulfill",
        "customer_id",
        "customer",
        "client_secret",
        "return_url",
        "business_country",
        "business_label",
        "description",
        "entity_type",
        "recurring",
        "metadata",
        "merchant_connector_id",
        "status",
        "error_message",
        "error_code",
        "profile_id",
        "created",
        "connector_transaction_id",
        "priority",
        "attempts",
        "payout_link",
        "email",
        "name",
        "phone",
        "phone_country_code",
        "unified_code",
        "unified_message",
        "payout_method_id",
    }
)
# The optional ones mocksrv has nothing true for: one processor of its own, no attempts or links.
NOT_SHOWN = frozenset(
    {
        "merchant_connector_id",
        "connector_transaction_id",
        "attempts",
        "payout_link",
        "unified_code",
        "unified_message",
    }
)


def test_every_answer_about_a_payout_holds_the_real_answers_fields_and_no_others(api: Api) -> None:
    created = create_payout(api, auto_fulfill=True)  # fulfilled at once: pending, payout_initiated
    (event,) = ok(api.get("/__mock/events"))["data"]
    sent = sent_webhook(api, event["event_id"])["content"]["object"]
    listed = ok(api.post("/payouts/list", {}))["data"]

    for shown in (created, get_payout(api), *listed, sent):
        assert set(shown) == REAL_ANSWER_FIELDS - NOT_SHOWN
