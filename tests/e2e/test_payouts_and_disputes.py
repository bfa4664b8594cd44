"""Payouts and disputes over real HTTP: MockServer in this process, webhooks to a receiver on 127.0.0.1.

Each test has a merchant of its own with a frozen clock and a receiver path of its own. No test
sleeps: POST /__mock/webhooks/wait blocks until the merchant's deliveries have been attempted, and
payouts settle, disputes expire and evidence decides when the test advances the mock clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mocksrv.webhooks import SIGNATURE_HEADER, verify_signature
from tests import payloads
from tests.api.expected import later
from tests.e2e.harness import Merchant, Receiver
from tests.e2e.test_webhooks import hmac_sha512, now, ok, wait

HOUR = 3600
DAY = 24 * HOUR
WEEK = 7 * DAY
CLOSED_ACCOUNT = "000111111116"
DISPUTE_CARD = "4000000000000259"
BANK = {
    "bank_account_number": "123456789012",
    "bank_routing_number": "110000000",
    "bank_name": "Bank of Tests",
}
CONTENT_TYPES = ("payout_details", "dispute_details")

# -- fixtures (as in test_webhooks.py) --------------------------------------------------------------


@pytest.fixture
def merchant(webhook_merchant: Merchant) -> Merchant:
    return webhook_merchant


# -- steps ------------------------------------------------------------------------------------------


def pay(merchant: Merchant, number: str = "4242424242424242") -> str:
    body = payloads.payment(number, profile_id=merchant.profile_id)
    payment_id: str = ok(merchant.post("/payments", body))["payment_id"]
    return payment_id


def create_payout(merchant: Merchant, account: str = BANK["bank_account_number"], **fields: Any) -> str:
    body = {
        "amount": 1000,
        "currency": "USD",
        "payout_type": "bank",
        "payout_method_data": {"bank": {**BANK, "bank_account_number": account}},
        **fields,
    }
    payout_id: str = ok(merchant.post("/payouts/create", body))["payout_id"]
    return payout_id


def get_payout(merchant: Merchant, payout_id: str) -> dict[str, Any]:
    shown: dict[str, Any] = ok(merchant.get(f"/payouts/{payout_id}"))
    return shown


def open_dispute(merchant: Merchant, payment_id: str | None = None) -> str:
    dispute_id: str = merchant.open_dispute(payment_id or pay(merchant))["dispute_id"]
    return dispute_id


def get_dispute(merchant: Merchant, dispute_id: str) -> dict[str, Any]:
    shown: dict[str, Any] = ok(merchant.get(f"/disputes/{dispute_id}"))
    return shown


def submit(merchant: Merchant, dispute_id: str, text: str = "We shipped it") -> dict[str, Any]:
    answered: dict[str, Any] = ok(
        merchant.post("/disputes/evidence", {"dispute_id": dispute_id, "uncategorized_text": text})
    )
    return answered


def hooks(receiver: Receiver) -> list[dict[str, Any]]:
    """The payout and dispute webhooks received, in order; payment webhooks left out."""
    return [body for body in receiver.bodies() if body["content"]["type"] in CONTENT_TYPES]


def webhook(merchant: Merchant, event_type: str, shown: dict[str, Any]) -> dict[str, Any]:
    """The body of a payout or dispute webhook: the object as GET showed it right after the step, at
    the time of the event (a dispute's `modified_at`; a payout shows no time of its latest change)."""
    if "payout_id" in shown:
        content_type, object_id = "payout_details", shown["payout_id"]
    else:
        content_type, object_id = "dispute_details", shown["dispute_id"]
    ((event_id, created),) = [
        (e["event_id"], e["created"])
        for e in merchant.events()
        if (e["event_type"], e["object_id"]) == (event_type, object_id)
    ]
    assert content_type == "payout_details" or created == shown["modified_at"]
    return {
        "merchant_id": merchant.merchant_id,
        "event_id": event_id,
        "event_type": event_type,
        "content": {"type": content_type, "object": shown},
        "timestamp": created,
    }


# -- one webhook per event ----------------------------------------------------------------------------

Snapshots = list[tuple[str, dict[str, Any]]]  # (event type, GET of the object right after the step)


def _payout_initiated(merchant: Merchant) -> Snapshots:
    payout_id = create_payout(merchant)
    ok(merchant.post(f"/payouts/{payout_id}/fulfill"))
    return [("payout_initiated", get_payout(merchant, payout_id))]


def _payout_success(merchant: Merchant) -> Snapshots:
    payout_id = create_payout(merchant, auto_fulfill=True)
    pending = get_payout(merchant, payout_id)
    merchant.advance(HOUR)
    return [("payout_initiated", pending), ("payout_success", get_payout(merchant, payout_id))]


def _payout_failed(merchant: Merchant) -> Snapshots:
    payout_id = create_payout(merchant, CLOSED_ACCOUNT, auto_fulfill=True)
    pending = get_payout(merchant, payout_id)
    merchant.advance(HOUR)
    return [("payout_initiated", pending), ("payout_failed", get_payout(merchant, payout_id))]


def _payout_cancelled(merchant: Merchant) -> Snapshots:
    payout_id = create_payout(merchant)
    ok(merchant.post(f"/payouts/{payout_id}/cancel"))
    return [("payout_cancelled", get_payout(merchant, payout_id))]


def _payout_reversed(merchant: Merchant) -> Snapshots:
    payout_id = create_payout(merchant, auto_fulfill=True)
    pending = get_payout(merchant, payout_id)
    merchant.settle_payout(payout_id)
    succeeded = get_payout(merchant, payout_id)
    merchant.settle_payout(payout_id, "reversed")
    return [
        ("payout_initiated", pending),
        ("payout_success", succeeded),
        ("payout_reversed", get_payout(merchant, payout_id)),
    ]


def _dispute_opened_by_the_card(merchant: Merchant) -> Snapshots:
    pay(merchant, DISPUTE_CARD)
    (listed,) = ok(merchant.get("/disputes/list"))["data"]
    return [("dispute_opened", get_dispute(merchant, listed["dispute_id"]))]


def _dispute_challenged(merchant: Merchant) -> Snapshots:
    dispute_id = open_dispute(merchant)
    opened = get_dispute(merchant, dispute_id)
    submit(merchant, dispute_id)
    return [("dispute_opened", opened), ("dispute_challenged", get_dispute(merchant, dispute_id))]


def _dispute_accepted(merchant: Merchant) -> Snapshots:
    dispute_id = open_dispute(merchant)
    opened = get_dispute(merchant, dispute_id)
    ok(merchant.post(f"/disputes/accept/{dispute_id}"))
    return [("dispute_opened", opened), ("dispute_accepted", get_dispute(merchant, dispute_id))]


def _decided_by_evidence(text: str, event_type: str) -> Callable[[Merchant], Snapshots]:
    def flow(merchant: Merchant) -> Snapshots:
        dispute_id = open_dispute(merchant)
        opened = get_dispute(merchant, dispute_id)
        submit(merchant, dispute_id, text)
        challenged = get_dispute(merchant, dispute_id)
        merchant.advance(DAY)
        return [
            ("dispute_opened", opened),
            ("dispute_challenged", challenged),
            (event_type, get_dispute(merchant, dispute_id)),
        ]

    flow.__name__ = event_type
    return flow


def _dispute_expired(merchant: Merchant) -> Snapshots:
    dispute_id = open_dispute(merchant)
    opened = get_dispute(merchant, dispute_id)
    merchant.advance(WEEK)
    return [("dispute_opened", opened), ("dispute_expired", get_dispute(merchant, dispute_id))]


def _dispute_cancelled(merchant: Merchant) -> Snapshots:
    dispute_id = open_dispute(merchant)
    opened = get_dispute(merchant, dispute_id)
    merchant.resolve_dispute(dispute_id, "cancelled")
    return [("dispute_opened", opened), ("dispute_cancelled", get_dispute(merchant, dispute_id))]


FLOWS: list[Callable[[Merchant], Snapshots]] = [
    _payout_initiated,
    _payout_success,
    _payout_failed,
    _payout_cancelled,
    _payout_reversed,
    _dispute_opened_by_the_card,
    _dispute_challenged,
    _dispute_accepted,
    _decided_by_evidence("winning_evidence", "dispute_won"),
    _decided_by_evidence("losing_evidence", "dispute_lost"),
    _dispute_expired,
    _dispute_cancelled,
]


def _flow_id(flow: Callable[[Merchant], Snapshots]) -> str:
    return flow.__name__.strip("_")


@pytest.mark.parametrize("flow", FLOWS, ids=_flow_id)
def test_each_event_arrives_as_one_webhook_holding_the_object_as_get_showed_it(
    merchant: Merchant, receiver: Receiver, flow: Callable[[Merchant], Snapshots]
) -> None:
    snapshots = flow(merchant)

    wait(merchant)
    assert hooks(receiver) == [webhook(merchant, event_type, shown) for event_type, shown in snapshots]


@pytest.mark.parametrize("flow", FLOWS, ids=_flow_id)
def test_each_webhook_is_signed_with_hmac_sha512_of_its_raw_body(
    merchant: Merchant, receiver: Receiver, flow: Callable[[Merchant], Snapshots]
) -> None:
    flow(merchant)

    wait(merchant)
    received = receiver.received()
    assert [request.headers[SIGNATURE_HEADER] for request in received] == [
        hmac_sha512(merchant.signing_key, request.get_data()) for request in received
    ]
    assert [request.headers["Content-Type"] for request in received] == ["application/json"] * len(received)


@pytest.mark.parametrize("flow", FLOWS, ids=_flow_id)
def test_each_event_is_listed_delivered_after_one_attempt(
    merchant: Merchant, flow: Callable[[Merchant], Snapshots]
) -> None:
    snapshots = flow(merchant)

    wait(merchant)
    listed = [e for e in reversed(merchant.events()) if e["content_type"] in CONTENT_TYPES]
    assert [(e["event_type"], e["delivery"]) for e in listed] == [
        (event_type, {"state": "delivered", "attempts": 1, "next_attempt_at": None})
        for event_type, _ in snapshots
    ]


def test_the_dispute_card_sends_dispute_opened_after_payment_succeeded(
    merchant: Merchant, receiver: Receiver
) -> None:
    payment_id = pay(merchant, DISPUTE_CARD)

    wait(merchant)
    bodies = receiver.bodies()
    assert [(b["event_type"], b["content"]["type"]) for b in bodies] == [
        ("payment_succeeded", "payment_details"),
        ("dispute_opened", "dispute_details"),
    ]
    assert bodies[1]["content"]["object"]["payment_id"] == payment_id


def test_an_update_of_a_payout_sends_no_webhook(merchant: Merchant, receiver: Receiver) -> None:
    payout_id = create_payout(merchant)
    ok(merchant.put(f"/payouts/{payout_id}", {"amount": 2500}))

    wait(merchant)
    assert receiver.received() == []


def test_a_refused_operation_sends_no_webhook(merchant: Merchant, receiver: Receiver) -> None:
    payout_id = create_payout(merchant)
    ok(merchant.post(f"/payouts/{payout_id}/cancel"))
    dispute_id = open_dispute(merchant)
    ok(merchant.post(f"/disputes/accept/{dispute_id}"))
    wait(merchant)
    before = len(receiver.received())

    refused = [
        merchant.post(f"/payouts/{payout_id}/fulfill"),
        merchant.post(f"/disputes/accept/{dispute_id}"),
        merchant.post("/disputes/evidence", {"dispute_id": dispute_id, "receipt": "Receipt #1"}),
    ]

    assert [r.status_code for r in refused] == [400, 400, 400]
    wait(merchant)
    assert len(receiver.received()) == before


# -- the QA scenarios -------------------------------------------------------------------------------


def test_scenario_dispute_expires_unanswered(merchant: Merchant, receiver: Receiver) -> None:
    """A customer disputes a payment made with 4000000000000259; nobody answers for 7 days."""
    started = now(merchant)
    payment_id = pay(merchant, DISPUTE_CARD)

    # The dispute is open at once, with a week to answer.
    (opened,) = ok(merchant.get(f"/disputes/list?payment_id={payment_id}"))["data"]
    assert (opened["dispute_status"], opened["amount"], opened["challenge_required_by"]) == (
        "dispute_opened",
        "1000",
        later(started, WEEK),
    )
    wait(merchant)
    assert hooks(receiver) == [webhook(merchant, "dispute_opened", opened)]

    # A second before the deadline nothing has happened.
    merchant.advance(WEEK - 1)
    wait(merchant)
    assert get_dispute(merchant, opened["dispute_id"]) == opened
    assert len(hooks(receiver)) == 1

    # At the deadline the dispute expires, and the shop's receiver gets a signed dispute_expired.
    merchant.advance(1)
    wait(merchant)
    expired = get_dispute(merchant, opened["dispute_id"])
    assert expired == {
        **opened,
        "dispute_status": "dispute_expired",
        "connector_status": "lost",
        "modified_at": later(started, WEEK),
        "connector_updated_at": later(started, WEEK),
    }
    assert hooks(receiver) == [
        webhook(merchant, "dispute_opened", opened),
        webhook(merchant, "dispute_expired", expired),
    ]
    last = receiver.received()[-1]
    assert verify_signature(last.get_data(), last.headers.get(SIGNATURE_HEADER), merchant.signing_key)

    # Too late to answer: accept and evidence are refused with HE_03.
    late = merchant.post(f"/disputes/accept/{opened['dispute_id']}")
    assert (late.status_code, late.json()["error"]["code"]) == (400, "HE_03")
    late = merchant.post("/disputes/evidence", {"dispute_id": opened["dispute_id"], "receipt": "Receipt #1"})
    assert (late.status_code, late.json()["error"]["code"]) == (400, "HE_03")


def test_scenario_payout_to_a_closed_account(merchant: Merchant, receiver: Receiver) -> None:
    """A marketplace pays a seller whose bank account 000111111116 was closed."""
    started = now(merchant)
    payout_id = create_payout(merchant, CLOSED_ACCOUNT, description="Seller payout")

    # Created, it waits for fulfilment and shows only the last four digits of the account.
    created = get_payout(merchant, payout_id)
    assert (created["status"], created["payout_method_data"]["bank"]["bank_account_number"]) == (
        "requires_fulfillment",
        "****1116",
    )

    # Fulfilled, it is pending, and the receiver gets payout_initiated.
    pending = ok(merchant.post(f"/payouts/{payout_id}/fulfill"))
    assert (pending["status"], pending["error_code"]) == ("pending", None)
    wait(merchant)
    assert hooks(receiver) == [webhook(merchant, "payout_initiated", pending)]

    # An hour later the bank refuses it: failed, account_closed, and a signed payout_failed.
    merchant.advance(HOUR)
    wait(merchant)
    failed = get_payout(merchant, payout_id)
    assert failed == {
        **pending,
        "status": "failed",
        "error_code": "account_closed",
        "error_message": "The bank account is closed.",
    }
    assert hooks(receiver) == [
        webhook(merchant, "payout_initiated", pending),
        webhook(merchant, "payout_failed", failed),
    ]
    assert [hook["timestamp"] for hook in hooks(receiver)] == [started, later(started, HOUR)]
    last = receiver.received()[-1]
    assert verify_signature(last.get_data(), last.headers.get(SIGNATURE_HEADER), merchant.signing_key)

    # The failed payout is listed as failed and can no longer be cancelled.
    listed = ok(merchant.post("/payouts/list", {"status": "failed"}))
    assert [p["payout_id"] for p in listed["data"]] == [payout_id]
    cancel = merchant.post(f"/payouts/{payout_id}/cancel")
    assert (cancel.status_code, cancel.json()["error"]["code"]) == (400, "IR_14")


def test_scenario_dispute_won_with_evidence(merchant: Merchant, receiver: Receiver) -> None:
    """The card network opens a dispute; the shop answers with winning evidence and wins a day later."""
    started = now(merchant)
    payment_id = pay(merchant)
    dispute_id = open_dispute(merchant, payment_id)
    opened = get_dispute(merchant, dispute_id)

    # The shop submits its evidence: the dispute is challenged.
    challenged = submit(merchant, dispute_id, "Signed delivery receipt: winning_evidence")
    assert (challenged["dispute_status"], challenged["evidence_submitted_at"]) == (
        "dispute_challenged",
        started,
    )
    assert ok(merchant.get(f"/disputes/evidence/{dispute_id}"))["evidence"] == {
        "uncategorized_text": "Signed delivery receipt: winning_evidence"
    }

    # A second before a day has passed it is still undecided.
    merchant.advance(DAY - 1)
    assert get_dispute(merchant, dispute_id) == challenged

    # A day after the evidence the dispute is won, and the receiver has every step, signed.
    merchant.advance(1)
    wait(merchant)
    won = get_dispute(merchant, dispute_id)
    assert won == {
        **challenged,
        "dispute_status": "dispute_won",
        "connector_status": "won",
        "modified_at": later(started, DAY),
        "connector_updated_at": later(started, DAY),
    }
    assert hooks(receiver) == [
        webhook(merchant, "dispute_opened", opened),
        webhook(merchant, "dispute_challenged", challenged),
        webhook(merchant, "dispute_won", won),
    ]
    assert [
        verify_signature(r.get_data(), r.headers.get(SIGNATURE_HEADER), merchant.signing_key)
        for r in receiver.received()
    ] == [True] * len(receiver.received())

    # The deadline passing later changes nothing, and a decided dispute takes no more evidence.
    merchant.advance(WEEK)
    assert get_dispute(merchant, dispute_id) == won
    more = merchant.post("/disputes/evidence", {"dispute_id": dispute_id, "receipt": "Receipt #1"})
    assert (more.status_code, more.json()["error"]["code"]) == (400, "HE_03")
