"""Events on demand: each event type made to happen to a merchant's objects through the services
the API calls, with the magic values and waits a test would use (`POST /__mock/trigger`).

A recipe that needs time to pass (a settlement, a deadline, an authorization's expiry) moves the
merchant's clock forward by that much, as a test would, firing whatever else falls due on the way.
Each recipe is first walked dry, making nothing: one the merchant's outcome table would lead
elsewhere, or whose waits would take the clock past its end, is refused before anything is made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from mocksrv.domain.clock import LATEST, format_timestamp
from mocksrv.domain.errors import InvalidField
from mocksrv.domain.events import Event, EventType
from mocksrv.domain.payouts import PAYOUT_METHOD
from mocksrv.domain.sandbox import SEED_PAYMENT, Sandbox

DISPUTE_CARD = "4000000000000259"  # success, and at once a dispute opens
FAILING_REFUND_CARD = "4000000000005126"  # refunds go pending, then fail an hour later
PROCESSING_CARD = "4000000000000077"
CHALLENGE_CARD = "4000003800000446"
DECLINE_CARD = "4000000000000002"
CLOSED_ACCOUNT = "000111111116"  # a payout to it fails


DRY_ID = "(dry)"  # what a dry walk's steps answer for the objects they would make


@dataclass
class Walk:
    """One recipe's run: the sandbox, the merchant, and the ids of every object made on the way.

    A `dry` walk makes nothing: it checks each payment against the merchant's outcome table and adds
    up the waits, so that a recipe that cannot reach its event is refused before it makes anything.
    """

    sandbox: Sandbox
    merchant_id: str
    dry: bool = False
    objects: dict[str, str] = field(default_factory=dict)
    waited: timedelta = timedelta()

    def act(self, step: Callable[[], object]) -> None:
        """Take a step that changes the merchant's objects; a dry walk takes none."""
        if not self.dry:
            step()

    def pay(self, number: str = "4242424242424242", **fields: Any) -> str:
        card = {**SEED_PAYMENT["payment_method_data"]["card"], "card_number": number}
        body = {
            **SEED_PAYMENT,
            "amount": 1000,
            "profile_id": self.sandbox.merchants.merchant(self.merchant_id).profile_id,
            "return_url": "https://shop.example/return",
            "payment_method_data": {"card": card},
            **fields,
        }
        if self.dry:
            # A payment left unconfirmed meets no outcome.
            if body["confirm"] and not self.sandbox.merchants.card_leads_as_default(self.merchant_id, body):
                raise InvalidField(
                    "event_type",
                    f"the merchant's outcome table takes card {number} elsewhere than the default does: "
                    "nothing was made",
                )
            return DRY_ID
        payment = self.sandbox.payments.create(self.merchant_id, body)
        self.objects["payment_id"] = payment.payment_id
        return payment.payment_id

    def refund(self, payment_id: str) -> str:
        if self.dry:
            return DRY_ID
        refund = self.sandbox.refunds.create(self.merchant_id, {"payment_id": payment_id})
        self.objects["refund_id"] = refund.refund_id
        return refund.refund_id

    def dispute(self) -> str:
        payment_id = self.pay(DISPUTE_CARD)
        if self.dry:
            return DRY_ID
        disputes = self.sandbox.disputes.of_payment(self.merchant_id, payment_id)
        if not disputes:
            raise _not_reached(EventType.DISPUTE_OPENED, payment_id)
        dispute_id = disputes[0].dispute_id
        self.objects["dispute_id"] = dispute_id
        return dispute_id

    def evidence(self, text: str) -> str:
        dispute_id = self.dispute()
        evidence = {"uncategorized_text": text}
        self.act(lambda: self.sandbox.disputes.submit_evidence(self.merchant_id, dispute_id, evidence))
        return dispute_id

    def payout(self, account_number: str = "123456789012", *, fulfil: bool = True) -> str:
        bank = {
            "bank_account_number": account_number,
            "bank_routing_number": "110000000",
            "bank_name": "Bank of Triggers",
            "bank_country_code": "US",
            "bank_city": "San Francisco",
        }
        body = {
            "amount": 1000,
            "currency": "USD",
            "payout_type": "bank",
            "payout_method_data": {"bank": bank},
        }
        if self.dry:
            if not self.sandbox.merchants.leads_as_default(
                self.merchant_id, PAYOUT_METHOD, "bank", {"bank": bank}
            ):
                raise InvalidField(
                    "event_type",
                    f"the merchant's outcome table takes a payout to account {account_number} elsewhere than "
                    "the default does: nothing was made",
                )
            return DRY_ID
        payout = self.sandbox.payouts.create(self.merchant_id, body)
        self.objects["payout_id"] = payout.payout_id
        if fulfil:
            self.sandbox.payouts.fulfill(self.merchant_id, payout.payout_id)
        return payout.payout_id

    def mandate(self) -> str:
        customer_id = DRY_ID
        if not self.dry:
            customer_id = self.sandbox.customers.create(self.merchant_id, {}).customer_id
            self.objects["customer_id"] = customer_id
        acceptance = {"acceptance_type": "offline"}
        mandate_data = {
            "customer_acceptance": acceptance,
            "mandate_type": {"multi_use": {"amount": 10_000, "currency": "USD"}},
        }
        payment_id = self.pay(
            customer_id=customer_id, mandate_data=mandate_data, customer_acceptance=acceptance
        )
        if self.dry:
            return DRY_ID
        mandate_id = self.sandbox.payments.retrieve(self.merchant_id, payment_id).mandate_id
        if mandate_id is None:
            raise _not_reached(EventType.MANDATE_ACTIVE, payment_id)
        self.objects["mandate_id"] = mandate_id
        return mandate_id

    def wait(self, delay: timedelta) -> None:
        self.waited += delay
        self.act(lambda: self.sandbox.scheduler.advance(self.merchant_id, delay.total_seconds()))


Recipe = Callable[[Walk], str]  # makes the event happen; answers the id of the object it reports


def _cancelled(walk: Walk) -> str:
    payment_id = walk.pay(confirm=False)
    walk.act(lambda: walk.sandbox.payments.cancel(walk.merchant_id, payment_id, "requested_by_customer"))
    return payment_id


def _captured(walk: Walk) -> str:
    payment_id = walk.pay(capture_method="manual")
    walk.act(lambda: walk.sandbox.payments.capture(walk.merchant_id, payment_id, 400))  # a partial capture
    return payment_id


def _expired(walk: Walk) -> str:
    payment_id = walk.pay(capture_method="manual")
    walk.wait(timedelta(seconds=walk.sandbox.config.capture_window_seconds))
    return payment_id


def _refund_failed(walk: Walk) -> str:
    refund_id = walk.refund(walk.pay(FAILING_REFUND_CARD))
    walk.wait(timedelta(hours=1))
    return refund_id


def _dispute_decided(text: str) -> Recipe:
    def decide(walk: Walk) -> str:
        dispute_id = walk.evidence(text)
        walk.wait(timedelta(days=1))
        return dispute_id

    return decide


def _dispute_expired(walk: Walk) -> str:
    dispute_id = walk.dispute()
    walk.wait(timedelta(days=7))
    return dispute_id


def _dispute_accepted(walk: Walk) -> str:
    dispute_id = walk.dispute()
    walk.act(lambda: walk.sandbox.disputes.accept(walk.merchant_id, dispute_id))
    return dispute_id


def _dispute_cancelled(walk: Walk) -> str:
    dispute_id = walk.dispute()
    walk.act(lambda: walk.sandbox.disputes.resolve(walk.merchant_id, dispute_id, "cancelled"))
    return dispute_id


def _payout_settled(account_number: str) -> Recipe:
    def settle(walk: Walk) -> str:
        payout_id = walk.payout(account_number)
        walk.wait(timedelta(hours=1))
        return payout_id

    return settle


def _payout_cancelled(walk: Walk) -> str:
    payout_id = walk.payout(fulfil=False)
    walk.act(lambda: walk.sandbox.payouts.cancel(walk.merchant_id, payout_id))
    return payout_id


def _payout_reversed(walk: Walk) -> str:
    payout_id = _payout_settled("123456789012")(walk)
    walk.act(lambda: walk.sandbox.payouts.settle(walk.merchant_id, payout_id, "reversed"))
    return payout_id


def _mandate_revoked(walk: Walk) -> str:
    mandate_id = walk.mandate()
    walk.act(lambda: walk.sandbox.mandates.revoke(walk.merchant_id, mandate_id))
    return mandate_id


E = EventType
RECIPES: dict[str, Recipe] = {
    E.PAYMENT_SUCCEEDED: lambda walk: walk.pay(),
    E.PAYMENT_FAILED: lambda walk: walk.pay(DECLINE_CARD),
    E.PAYMENT_PROCESSING: lambda walk: walk.pay(PROCESSING_CARD),
    E.PAYMENT_CANCELLED: _cancelled,
    E.PAYMENT_AUTHORIZED: lambda walk: walk.pay(capture_method="manual"),
    E.PAYMENT_CAPTURED: _captured,
    E.PAYMENT_EXPIRED: _expired,
    E.ACTION_REQUIRED: lambda walk: walk.pay(CHALLENGE_CARD),
    E.REFUND_SUCCEEDED: lambda walk: walk.refund(walk.pay()),
    E.REFUND_FAILED: _refund_failed,
    E.DISPUTE_OPENED: lambda walk: walk.dispute(),
    E.DISPUTE_CHALLENGED: lambda walk: walk.evidence("our evidence"),
    E.DISPUTE_ACCEPTED: _dispute_accepted,
    E.DISPUTE_WON: _dispute_decided("winning_evidence"),
    E.DISPUTE_LOST: _dispute_decided("losing_evidence"),
    E.DISPUTE_EXPIRED: _dispute_expired,
    E.DISPUTE_CANCELLED: _dispute_cancelled,
    E.PAYOUT_INITIATED: lambda walk: walk.payout(),
    E.PAYOUT_SUCCESS: _payout_settled("123456789012"),
    E.PAYOUT_FAILED: _payout_settled(CLOSED_ACCOUNT),
    E.PAYOUT_CANCELLED: _payout_cancelled,
    E.PAYOUT_REVERSED: _payout_reversed,
    E.MANDATE_ACTIVE: lambda walk: walk.mandate(),
    E.MANDATE_REVOKED: _mandate_revoked,
}


@dataclass(frozen=True)
class Triggered:
    event: Event
    objects: dict[str, str]


def trigger(sandbox: Sandbox, merchant_id: str, event_type: str) -> Triggered:
    """Make `event_type` happen to a new object of the merchant; answers the event and the objects."""
    recipe = RECIPES.get(event_type)
    if recipe is None:
        raise InvalidField("event_type", f"one of {', '.join(sorted(RECIPES))}")
    dry = Walk(sandbox, merchant_id, dry=True)
    recipe(dry)
    if dry.waited:
        try:
            sandbox.clock.target_after(merchant_id, dry.waited.total_seconds())
        except InvalidField:
            raise InvalidField(
                "event_type",
                f"{event_type} moves the mock clock {dry.waited.total_seconds():g} seconds forward, "
                f"past its end ({format_timestamp(LATEST)})",
            ) from None
    walk = Walk(sandbox, merchant_id)
    object_id = recipe(walk)
    events, _ = sandbox.webhooks.events(merchant_id, 100, 0)
    for event, _delivery in events:
        if event.event_type == event_type and event.object_id == object_id:
            return Triggered(event, walk.objects)
    raise _not_reached(event_type, object_id)


def _not_reached(event_type: str, object_id: str) -> InvalidField:
    """The merchant's own magic values (PUT /__mock/outcomes) led elsewhere than the defaults do."""
    return InvalidField(
        "event_type", f"{object_id} did not reach {event_type}: the merchant's outcome table leads elsewhere"
    )
