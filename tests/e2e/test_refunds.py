"""Refunds over real HTTP: MockServer in this process, webhooks to a receiver on 127.0.0.1.

Each test has a merchant of its own with a frozen clock and a receiver path of its own. No test
sleeps: POST /__mock/webhooks/wait blocks until the merchant's deliveries have been attempted, and
the refund of card 4000000000005126 fails when the test advances the mock clock by an hour.
"""

from __future__ import annotations

from typing import Any

import pytest

from mocksrv.webhooks import SIGNATURE_HEADER, verify_signature
from tests import payloads
from tests.api.expected import later
from tests.e2e.harness import Merchant, Receiver
from tests.e2e.test_webhooks import hmac_sha512, now, ok, retrieve, wait

HOUR = 3600
REFUND_FAILS_CARD = "4000000000005126"

# -- fixtures (as in test_webhooks.py) --------------------------------------------------------------


@pytest.fixture
def merchant(webhook_merchant: Merchant) -> Merchant:
    return webhook_merchant


# -- steps ------------------------------------------------------------------------------------------


def pay(merchant: Merchant, number: str = "4242424242424242") -> str:
    body = payloads.payment(number, profile_id=merchant.profile_id)
    payment_id: str = ok(merchant.post("/payments", body))["payment_id"]
    return payment_id


def refund(merchant: Merchant, payment_id: str, **fields: Any) -> dict[str, Any]:
    created: dict[str, Any] = ok(merchant.post("/refunds", {"payment_id": payment_id, **fields}))
    return created


def get_refund(merchant: Merchant, refund_id: str) -> dict[str, Any]:
    shown: dict[str, Any] = ok(merchant.get(f"/refunds/{refund_id}"))
    return shown


def refund_webhooks(receiver: Receiver) -> list[dict[str, Any]]:
    return [body for body in receiver.bodies() if body["event_type"].startswith("refund_")]


def event_id_of(merchant: Merchant, event_type: str) -> str:
    (event_id,) = [e["event_id"] for e in merchant.events() if e["event_type"] == event_type]
    return event_id


def webhook(merchant: Merchant, event_type: str, refund: dict[str, Any]) -> dict[str, Any]:
    """The body of a refund webhook: the refund as GET /refunds/:id shows it."""
    return {
        "merchant_id": merchant.merchant_id,
        "event_id": event_id_of(merchant, event_type),
        "event_type": event_type,
        "content": {"type": "refund_details", "object": refund},
        "timestamp": refund["updated_at"],
    }


# -- refund_succeeded -------------------------------------------------------------------------------


def test_a_refund_arrives_as_a_refund_succeeded_webhook_holding_the_refund_as_get_shows_it(
    merchant: Merchant, receiver: Receiver
) -> None:
    created = refund(merchant, pay(merchant), amount=300, reason="returned", metadata={"order_id": "o1"})

    wait(merchant)
    assert refund_webhooks(receiver) == [
        webhook(merchant, "refund_succeeded", get_refund(merchant, created["refund_id"]))
    ]


def test_the_refund_webhook_follows_the_payment_webhook(merchant: Merchant, receiver: Receiver) -> None:
    payment_id = pay(merchant)
    created = refund(merchant, payment_id)

    wait(merchant)
    assert [(b["event_type"], b["content"]["type"]) for b in receiver.bodies()] == [
        ("payment_succeeded", "payment_details"),
        ("refund_succeeded", "refund_details"),
    ]
    assert receiver.bodies()[1]["content"]["object"]["refund_id"] == created["refund_id"]


def test_the_refund_webhook_is_signed_with_hmac_sha512_of_the_raw_body(
    merchant: Merchant, receiver: Receiver
) -> None:
    pay_id = pay(merchant)
    wait(merchant)
    refund(merchant, pay_id)

    wait(merchant)
    (_, request) = receiver.received()
    assert request.headers[SIGNATURE_HEADER] == hmac_sha512(merchant.signing_key, request.get_data())
    assert verify_signature(request.get_data(), request.headers.get(SIGNATURE_HEADER), merchant.signing_key)


def test_the_refund_webhook_is_a_json_post(merchant: Merchant, receiver: Receiver) -> None:
    refund(merchant, pay(merchant))

    wait(merchant)
    (_, request) = receiver.received()
    assert (request.method, request.headers["Content-Type"]) == ("POST", "application/json")


def test_each_partial_refund_arrives_as_its_own_webhook(merchant: Merchant, receiver: Receiver) -> None:
    payment_id = pay(merchant)
    first = refund(merchant, payment_id, amount=400)
    second = refund(merchant, payment_id, amount=600)

    wait(merchant)
    assert [(b["event_type"], b["content"]["object"]["refund_id"]) for b in refund_webhooks(receiver)] == [
        ("refund_succeeded", first["refund_id"]),
        ("refund_succeeded", second["refund_id"]),
    ]


def test_the_refund_event_is_listed_delivered_after_one_attempt(
    merchant: Merchant, receiver: Receiver
) -> None:
    created = refund(merchant, pay(merchant))

    wait(merchant)
    (latest, _) = merchant.events()
    assert (latest["event_type"], latest["content_type"], latest["object_id"], latest["delivery"]) == (
        "refund_succeeded",
        "refund_details",
        created["refund_id"],
        {"state": "delivered", "attempts": 1, "next_attempt_at": None},
    )


def test_a_refused_refund_sends_no_webhook(merchant: Merchant, receiver: Receiver) -> None:
    payment_id = pay(merchant)

    response = merchant.post("/refunds", {"payment_id": payment_id, "amount": 1001})

    assert response.status_code == 400
    wait(merchant)
    assert refund_webhooks(receiver) == []


def test_a_retried_refund_id_sends_no_second_webhook(merchant: Merchant, receiver: Receiver) -> None:
    payment_id = pay(merchant)
    refund(merchant, payment_id, refund_id="ref_retried", amount=100)

    again = merchant.post("/refunds", {"payment_id": payment_id, "refund_id": "ref_retried", "amount": 100})

    assert again.json()["error"]["code"] == "HE_01"
    wait(merchant)
    assert [b["content"]["object"]["refund_id"] for b in refund_webhooks(receiver)] == ["ref_retried"]


# -- card 4000000000005126: pending, then refund_failed on the clock --------------------------------


def test_a_refund_of_the_refund_failure_card_is_pending(merchant: Merchant) -> None:
    created = refund(merchant, pay(merchant, REFUND_FAILS_CARD))

    assert (created["status"], get_refund(merchant, created["refund_id"])["status"]) == ("pending", "pending")


def test_a_pending_refund_sends_no_webhook_before_the_hour_is_up(
    merchant: Merchant, receiver: Receiver
) -> None:
    refund(merchant, pay(merchant, REFUND_FAILS_CARD))

    merchant.advance(HOUR - 1)

    wait(merchant)
    assert refund_webhooks(receiver) == []


def test_an_hour_later_the_refund_fails_with_a_refund_failed_webhook(
    merchant: Merchant, receiver: Receiver
) -> None:
    created = refund(merchant, pay(merchant, REFUND_FAILS_CARD))

    merchant.advance(HOUR)

    wait(merchant)
    failed = get_refund(merchant, created["refund_id"])
    assert refund_webhooks(receiver) == [webhook(merchant, "refund_failed", failed)]


def test_the_refund_failed_webhook_is_signed(merchant: Merchant, receiver: Receiver) -> None:
    refund(merchant, pay(merchant, REFUND_FAILS_CARD))
    merchant.advance(HOUR)

    wait(merchant)
    (_, request) = receiver.received()
    assert verify_signature(request.get_data(), request.headers.get(SIGNATURE_HEADER), merchant.signing_key)


def test_a_refund_settled_by_hand_sends_its_webhook_and_none_when_the_hour_passes(
    merchant: Merchant, receiver: Receiver
) -> None:
    created = refund(merchant, pay(merchant, REFUND_FAILS_CARD))
    merchant.settle_refund(created["refund_id"])

    merchant.advance(HOUR)

    wait(merchant)
    succeeded = get_refund(merchant, created["refund_id"])
    assert refund_webhooks(receiver) == [webhook(merchant, "refund_succeeded", succeeded)]


# -- the QA scenario --------------------------------------------------------------------------------


def test_scenario_a_refund_that_fails_later(merchant: Merchant, receiver: Receiver) -> None:
    """A shop refunds an order paid with 4000000000005126: accepted, pending, then failed an hour later."""
    started = now(merchant)
    payment_id = pay(merchant, REFUND_FAILS_CARD)

    # The shop asks for the refund: the service accepts it, pending; nothing is refunded yet.
    accepted = refund(
        merchant, payment_id, reason="Customer returned the goods", metadata={"order_id": "o-42"}
    )
    assert (accepted["status"], accepted["amount"], accepted["error_code"]) == ("pending", 1000, None)
    assert retrieve(merchant, payment_id)["amount_refunded"] == 0

    # While it is pending, the amount is held: a second full refund is refused.
    held = merchant.post("/refunds", {"payment_id": payment_id})
    assert (held.status_code, held.json()["error"]["code"]) == (400, "IR_13")

    # An hour passes on the mock clock: the processor declines the refund.
    merchant.advance(HOUR)
    wait(merchant)

    failed = get_refund(merchant, accepted["refund_id"])
    assert failed == {
        **accepted,
        "status": "failed",
        "error_code": "refund_failed",
        "error_message": "The refund was declined by the processor",
        "updated_at": later(started, HOUR),
    }

    # The shop's receiver got a signed refund_failed holding the refund as the API shows it.
    (_, refund_hook) = receiver.received()
    assert verify_signature(
        refund_hook.get_data(), refund_hook.headers.get(SIGNATURE_HEADER), merchant.signing_key
    )
    assert refund_webhooks(receiver) == [webhook(merchant, "refund_failed", failed)]

    # The payment shows nothing refunded, and the whole amount can be refunded again.
    assert retrieve(merchant, payment_id)["amount_refunded"] == 0
    retried = merchant.post("/refunds", {"payment_id": payment_id})
    assert (retried.status_code, retried.json()["amount"], retried.json()["status"]) == (200, 1000, "pending")
