"""Requests shaped as the real service's documentation shows its own: each is accepted once the
spec's rules are met (a `profile_id`, billing beside method data, a customer that exists, a card
that has not expired), and what it sent shows in the answer.

The requests that charge a saved card or a mandate (`payment_token`, `mandate_id`, and
`recurring_details` naming one) are in the tests of saved methods and mandates.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests import payloads
from tests.api.scenarios import create, ok
from tests.conftest import Api
from tests.payloads import PROFILE_ID

pytestmark = pytest.mark.usefixtures("frozen")

ACCEPTANCE = {
    "acceptance_type": "online",
    "accepted_at": "2026-05-03T04:07:52.723Z",
    "online": {"ip_address": "127.0.0.1", "user_agent": "Mozilla/5.0"},
}
CARD = {
    "card_number": "4242424242424242",
    "card_exp_month": "10",
    "card_exp_year": "2030",
    "card_holder_name": "Ada Lovelace",
    "card_cvc": "123",
}
ADDRESS = {
    "line1": "1467",
    "line2": "Harrison Street",
    "line3": "Harrison Street",
    "city": "San Francisco",
    "state": "California",
    "zip": "94122",
    "country": "US",
    "first_name": "Ada",
    "last_name": "Lovelace",
}
BILLING = {"address": ADDRESS, "phone": {"number": "9123456789", "country_code": "+91"}}

CREATES: dict[str, dict[str, Any]] = {
    "minimal fields": {},
    "customer details and metadata": {
        "customer": {
            "id": "cus_real",
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "phone": "9123456789",
        },
        "description": "A first payment",
        "metadata": {"udf1": "one", "udf2": "two"},
        "payment_id": "pay_shaped",
        "statement_descriptor_name": "ada",
        "statement_descriptor_suffix": "AL",
    },
    "a 3DS payment": {"authentication_type": "three_ds"},
    "manual capture": {"capture_method": "manual"},
    "a setup mandate": {
        "authentication_type": "no_three_ds",
        "confirm": True,
        "customer_acceptance": ACCEPTANCE,
        "customer_id": "cus_real",
        "mandate_data": {
            "customer_acceptance": ACCEPTANCE,
            "mandate_type": {"single_use": {"amount": 6540, "currency": "USD"}},
        },
        "payment_method": "card",
        "payment_method_data": {"card": CARD},
        "setup_future_usage": "off_session",
        "billing": BILLING,
    },
    "a card to save": {
        "authentication_type": "no_three_ds",
        "confirm": True,
        "customer_acceptance": ACCEPTANCE,
        "customer_id": "cus_real",
        "payment_method": "card",
        "payment_method_data": {"card": CARD},
        "setup_future_usage": "off_session",
        "billing": BILLING,
    },
    "billing details": {"billing": BILLING, "customer": {"id": "cus_real"}},
    "a merchant-initiated payment with a network transaction id and card details": {
        "confirm": True,
        "off_session": True,
        "customer_id": "cus_real",
        "payment_method": "card",
        "recurring_details": {
            "type": "network_transaction_id_and_card_details",
            "data": {
                "card_number": "4242424242424242",
                "card_exp_month": "10",
                "card_exp_year": "30",
                "card_holder_name": "Ada Lovelace",
                "network_transaction_id": "MCC5ZRGMI0925",
            },
        },
    },
    "a merchant-initiated payment with a network transaction id and network token details": {
        "confirm": True,
        "off_session": True,
        "payment_method": "card",
        "recurring_details": {
            "type": "network_transaction_id_and_network_token_details",
            "data": {
                "network_token": "4604000460040787",
                "token_exp_month": "09",
                "token_exp_year": "2030",
                "card_holder_name": "Ada Lovelace",
                "card_network": "Visa",
                "eci": "05",
                "network_transaction_id": "MCC5ZRGMI0925",
            },
        },
    },
    "a merchant-initiated payment with a processor payment token": {
        "confirm": True,
        "off_session": True,
        "customer_id": "cus_real",
        "payment_method": "card",
        "recurring_details": {
            "type": "processor_payment_token",
            "data": {"processor_payment_token": "pm_1Q0PsIJ", "merchant_connector_id": "mca_123"},
        },
    },
    "a split payment": {
        "amount": 200,
        "amount_to_capture": 200,
        "authentication_type": "no_three_ds",
        "billing": BILLING,
        "capture_method": "automatic",
        "confirm": True,
        "customer_acceptance": {**ACCEPTANCE, "acceptance_type": "offline"},
        "customer_id": "cus_real",
        "description": "A first payment",
        "name": "Ada Lovelace",
        "payment_method": "card",
        "payment_method_data": {"card": {**CARD, "card_exp_month": "09"}},
        "payment_method_type": "debit",
        "phone": "999999999",
        "phone_country_code": "+65",
        "return_url": "https://shop.example/return",
        "setup_future_usage": "off_session",
        "split_payments": {
            "stripe_split_payment": {
                "application_fees": 100,
                "charge_type": "direct",
                "transfer_account_id": "acct_123456789",
            }
        },
    },
}


@pytest.fixture
def customer(api: Api) -> str:
    return ok(api.post("/customers", {"customer_id": "cus_real", "name": "Ada Lovelace"}))["customer_id"]


@pytest.mark.parametrize("case", list(CREATES))
def test_a_create_shaped_as_the_real_services_is_accepted(api: Api, customer: str, case: str) -> None:
    sent = {"amount": 6540, "currency": "USD", "profile_id": PROFILE_ID, **CREATES[case]}

    body = ok(api.post("/payments", sent))

    confirmed = sent.get("confirm", False)
    assert body["status"] == ("succeeded" if confirmed else "requires_payment_method")
    assert (body["amount"], body["currency"]) == (sent["amount"], "USD")
    for name in (
        "description",
        "metadata",
        "setup_future_usage",
        "split_payments",
        "statement_descriptor_name",
    ):
        assert body.get(name) == sent.get(name)
    named = sent.get("customer_id") or sent.get("customer", {}).get("id")
    assert body["customer_id"] == named
    assert body["billing"] == sent.get("billing")


def test_updates_shaped_as_the_real_services_are_accepted(api: Api) -> None:
    create(api, None, payment_id="pay_1")

    assert ok(api.post("/payments/pay_1", {"amount": 7654}))["amount"] == 7654
    shipping = {"address": ADDRESS, "phone": {"country_code": "+91", "number": "9123456789"}}
    assert ok(api.post("/payments/pay_1", {"shipping": shipping}))["shipping"] == shipping


def test_a_confirm_shaped_as_the_real_services_is_accepted(api: Api) -> None:
    create(api, None, payment_id="pay_1")
    sent = {
        "customer_acceptance": ACCEPTANCE,
        "payment_method": "card",
        "payment_method_data": {"card": CARD},
        "payment_method_type": "credit",
        "billing": BILLING,
    }

    body = ok(api.post("/payments/pay_1/confirm", sent))

    assert (body["status"], body["payment_method_data"]["card"]["last4"]) == ("succeeded", "4242")


@pytest.mark.parametrize("capture", [{"amount_to_capture": 654}, {}])
def test_captures_shaped_as_the_real_services_are_accepted(api: Api, capture: dict[str, Any]) -> None:
    create(api, payment_id="pay_1", amount=6540, capture_method="manual")

    body = ok(api.post("/payments/pay_1/capture", capture))

    assert body["amount_received"] == capture.get("amount_to_capture", 6540)


@pytest.mark.parametrize("cancel", [{"cancellation_reason": "requested_by_customer"}, {}])
def test_cancels_shaped_as_the_real_services_are_accepted(api: Api, cancel: dict[str, Any]) -> None:
    create(api, None, payment_id="pay_1")

    body = ok(api.post("/payments/pay_1/cancel", cancel))

    assert (body["status"], body["cancellation_reason"]) == ("cancelled", cancel.get("cancellation_reason"))


@pytest.mark.parametrize(
    "refund",
    [{"amount": 654}, {}, {"amount": 6540, "reason": "Customer returned product"}],
    ids=["partial", "whole", "with a reason"],
)
def test_refunds_shaped_as_the_real_services_are_accepted(api: Api, refund: dict[str, Any]) -> None:
    create(api, payment_id="pay_1", amount=6540)

    body = ok(api.post("/refunds", {"payment_id": "pay_1", "refund_type": "instant", **refund}))

    assert (body["amount"], body["reason"]) == (refund.get("amount", 6540), refund.get("reason"))
    updated = ok(api.post(f"/refunds/{body['refund_id']}", {"reason": "Paid by mistake"}))
    assert updated["reason"] == "Paid by mistake"


def test_customer_and_profile_updates_shaped_as_the_real_services_are_accepted(api: Api) -> None:
    customer_id = ok(api.post("/customers", {"name": "Ada", "email": "ada@example.com"}))["customer_id"]

    customer = ok(api.post(f"/customers/{customer_id}", {"name": "Ada L", "email": "ada.l@example.com"}))
    profile = ok(
        api.post(f"/account/{payloads.MERCHANT_ID}/business_profile/{PROFILE_ID}", {"profile_name": "shoes"})
    )

    assert (customer["name"], customer["email"]) == ("Ada L", "ada.l@example.com")
    assert profile["profile_name"] == "shoes"


def test_an_event_list_shaped_as_the_real_services_is_accepted(api: Api) -> None:
    sent = {
        "created_after": "2026-01-01T00:00:00",
        "created_before": "2026-01-31T23:59:59",
        "event_classes": ["payments", "refunds"],
        "event_types": ["payment_succeeded"],
        "is_delivered": True,
        "limit": 5,
        "object_id": "pay_1",
        "offset": 0,
        "profile_id": PROFILE_ID,
    }

    assert ok(api.post(f"/events/{payloads.MERCHANT_ID}", sent)) == {"events": [], "total_count": 0}
