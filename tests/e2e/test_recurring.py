"""Saved cards and mandates over real HTTP: set up on session, charged off session a month later on
the mock clock, revoked; every outcome reported by a signed webhook to a receiver on 127.0.0.1."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.e2e.harness import DEADLINE, Merchant, Receiver
from tests.payloads import BILLING, card

pytestmark = pytest.mark.usefixtures("receiver")

WAIT_TIMEOUT = DEADLINE  # seconds a wait for deliveries may block; it returns once they are attempted
MONTH = 30 * 24 * 3600
ACCEPTANCE = {
    "acceptance_type": "online",
    "accepted_at": "2026-01-02T03:04:05Z",
    "online": {"ip_address": "203.0.113.7", "user_agent": "Mozilla/5.0"},
}


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def set_up(merchant: Merchant, number: str, **mandate_type: Any) -> dict[str, Any]:
    """A customer, and a zero-amount payment that saves its card and sets up a mandate."""
    ok(merchant.post("/customers", {"customer_id": "cus_1"}))
    return ok(
        merchant.post(
            "/payments",
            {
                "amount": 0,
                "currency": "USD",
                "profile_id": merchant.profile_id,
                "confirm": True,
                "customer_id": "cus_1",
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": card(number),
                "billing": copy.deepcopy(BILLING),
                "setup_future_usage": "off_session",
                "mandate_data": {"customer_acceptance": ACCEPTANCE, "mandate_type": mandate_type},
            },
        )
    )


def charge(merchant: Merchant, amount: int, **recurring: Any) -> Any:
    """A merchant-initiated payment: off session, with no card data."""
    return merchant.post(
        "/payments",
        {
            "amount": amount,
            "currency": "USD",
            "profile_id": merchant.profile_id,
            "confirm": True,
            "customer_id": "cus_1",
            "off_session": True,
            **recurring,
        },
    )


def delivered(merchant: Merchant, receiver: Receiver) -> list[tuple[str, str, str]]:
    """(event type, content type, status) of every webhook the receiver got, in order."""
    assert merchant.wait_webhooks(WAIT_TIMEOUT) is True
    return [
        (body["event_type"], body["content"]["type"], body["content"]["object"]["status"])
        for body in receiver.bodies()
    ]


def test_a_card_saved_with_a_mandate_is_charged_off_session_a_month_later_until_revoked(
    webhook_merchant: Merchant, receiver: Receiver
) -> None:
    merchant = webhook_merchant
    setup = set_up(merchant, "4242424242424242", multi_use={"amount": 5000, "currency": "USD"})
    assert (setup["status"], setup["amount_received"]) == ("succeeded", 0)
    mandate_id, method_id = setup["mandate_id"], setup["payment_method_id"]
    assert ok(merchant.get(f"/mandates/{mandate_id}"))["status"] == "active"
    assert delivered(merchant, receiver) == [
        ("payment_succeeded", "payment_details", "succeeded"),
        ("mandate_active", "mandate_details", "active"),
    ]

    merchant.advance(seconds=MONTH)
    by_mandate = ok(charge(merchant, 3000, recurring_details={"type": "mandate_id", "data": mandate_id}))
    by_method = ok(charge(merchant, 1500, recurring_details={"type": "payment_method_id", "data": method_id}))

    assert [(p["status"], p["amount_received"], p["mandate_id"]) for p in (by_mandate, by_method)] == [
        ("succeeded", 3000, mandate_id),
        ("succeeded", 1500, None),
    ]
    assert by_mandate["payment_method_id"] == by_method["payment_method_id"] == method_id
    assert by_mandate["payment_method_data"]["card"]["last4"] == "4242"
    # The mandate allows 5,000 in all; 3,000 of it is taken.
    over = charge(merchant, 2001, mandate_id=mandate_id, payment_method_data="mandate_payment")
    assert (over.status_code, over.json()["error"]["code"]) == (400, "HE_03")

    revoked = ok(merchant.post(f"/mandates/revoke/{mandate_id}"))
    refused = charge(merchant, 100, mandate_id=mandate_id)

    assert revoked == {
        "mandate_id": mandate_id,
        "status": "revoked",
        "error_code": None,
        "error_message": None,
    }
    assert (refused.status_code, refused.json()) == (
        400,
        {
            "error": {
                "type": "invalid_request",
                "code": "HE_03",
                "message": "Mandate Validation Failed: the mandate has been revoked",
                "param": "mandate_id",
            }
        },
    )
    assert delivered(merchant, receiver)[2:] == [
        ("payment_succeeded", "payment_details", "succeeded"),
        ("payment_succeeded", "payment_details", "succeeded"),
        ("mandate_revoked", "mandate_details", "revoked"),
    ]
    assert len(ok(merchant.get("/payments/list?limit=100"))["data"]) == 3


@pytest.mark.parametrize(
    ("number", "error_code"),
    [("4000002760003184", "authentication_required"), ("4000000000000341", "insufficient_funds")],
)
def test_a_card_that_pays_on_session_is_declined_off_session_with_a_webhook(
    webhook_merchant: Merchant, receiver: Receiver, number: str, error_code: str
) -> None:
    merchant = webhook_merchant
    setup = set_up(merchant, number, multi_use=None)
    merchant.advance(seconds=MONTH)

    declined = ok(
        charge(merchant, 2500, recurring_details={"type": "mandate_id", "data": setup["mandate_id"]})
    )

    assert (setup["status"], declined["status"]) == ("succeeded", "failed")
    assert declined["error_code"] == error_code
    assert delivered(merchant, receiver) == [
        ("payment_succeeded", "payment_details", "succeeded"),
        ("mandate_active", "mandate_details", "active"),
        ("payment_failed", "payment_details", "failed"),
    ]
    # A declined charge takes nothing from the mandate, which stays active.
    assert ok(merchant.get(f"/mandates/{setup['mandate_id']}"))["status"] == "active"
