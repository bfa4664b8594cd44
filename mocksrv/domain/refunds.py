"""RefundService: refunds of captured payments, their state table, timers and events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any

from mocksrv.domain.bounds import Within
from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import (
    DomainError,
    DuplicateResource,
    InvalidField,
    PaymentNotFound,
    ResourceNotFound,
)
from mocksrv.domain.events import ContentType, EventType
from mocksrv.domain.ids import new_real_id
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.models import CONNECTOR, JsonObject, Page, Payment, build, evolve
from mocksrv.domain.money import MAX_AMOUNT
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.payments.service import PAYMENTS
from mocksrv.domain.payments.states import PAYMENT_TRANSITIONS, PaymentStatus
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import MemoryStore, Query
from mocksrv.domain.transitions import TransitionTable, rows

REFUNDS = "refund"
SETTLE_TIMER = "refund.settle"
MAX_REFUNDS = 10
SETTLE_AFTER = timedelta(hours=1)  # an asynchronous refund outcome, on the mock clock

REFUND_FAILED_CODE = "refund_failed"
REFUND_FAILED_MESSAGE = "The refund was declined by the processor"


class RefundType(StrEnum):
    INSTANT = "instant"
    SCHEDULED = "scheduled"


# `refund_type` as either side spells it: the spec's `Instant` and `Regular`, the real service's
# `instant` and `scheduled`. `Regular` is `scheduled`. A refund keeps the spelling it was sent with;
# both kinds settle alike, by the outcome of the payment.
REFUND_TYPES: Mapping[str, RefundType] = {
    "Instant": RefundType.INSTANT,
    "Regular": RefundType.SCHEDULED,
    "instant": RefundType.INSTANT,
    "scheduled": RefundType.SCHEDULED,
}


class RefundStatus(StrEnum):
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    REVIEW = "review"


class RefundEvent(StrEnum):
    SUCCEED = "settle.succeeded"
    FAIL = "settle.failed"


R = RefundStatus
REFUND_TRANSITIONS: TransitionTable[RefundStatus, RefundEvent] = TransitionTable(
    "Refund",
    [
        *rows([R.PENDING, R.REVIEW], RefundEvent.SUCCEED, R.SUCCEEDED, EventType.REFUND_SUCCEEDED),
        *rows([R.PENDING, R.REVIEW], RefundEvent.FAIL, R.FAILED, EventType.REFUND_FAILED),
    ],
)

# The payment states a refund may be made from, and an expired one that holds captured funds.
REFUNDABLE = (
    PaymentStatus.SUCCEEDED,
    PaymentStatus.PARTIALLY_CAPTURED,
    PaymentStatus.PARTIALLY_CAPTURED_AND_CAPTURABLE,
)


def check_settled(payment: Payment, action: str) -> None:
    """Refuse a refund or a dispute (`action`) of a payment that holds no captured funds: IR_14.

    The spec lets any settled payment be refunded. An authorization whose capture window closed after
    a part of it was captured is `expired`, yet that part was settled: it may be refunded or disputed
    as it could be had the rest been cancelled (`partially_captured`).
    """
    if payment.status in REFUNDABLE:
        return
    if payment.status is PaymentStatus.EXPIRED and payment.amount_received > 0:
        return
    expected = [*(s.value for s in REFUNDABLE), f"{PaymentStatus.EXPIRED.value} with a part captured"]
    raise PAYMENT_TRANSITIONS.refusal_for(payment.status, action, expected)


class RefundTooLarge(DomainError):
    code = "IR_13"

    def __init__(self, refundable: int) -> None:
        super().__init__(
            f"The refund amount exceeds the amount captured: at most {refundable} can be refunded",
            param="amount",
        )


class TooManyRefunds(DomainError):
    code = "IR_12"

    def __init__(self) -> None:
        super().__init__(f"Reached maximum refund attempts ({MAX_REFUNDS} per payment)")


@dataclass(frozen=True, slots=True)
class Refund:
    refund_id: str
    payment_id: str
    merchant_id: str
    profile_id: str
    amount: Annotated[int, Within(0, MAX_AMOUNT)]
    currency: str
    status: RefundStatus
    created: datetime
    updated_at: datetime
    planned_result: RefundEvent  # what the pending refund settles to
    reason: str | None = None
    refund_type: str | None = None  # as sent: a key of REFUND_TYPES
    metadata: JsonObject | None = None
    split_refunds: JsonObject | None = None
    connector: str = CONNECTOR
    error_code: str | None = None
    error_message: str | None = None


class RefundService:
    def __init__(self, store: MemoryStore, clock: Clock, scheduler: Scheduler, outbox: Outbox) -> None:
        self._store = store
        self._clock = clock
        self._scheduler = scheduler
        self._lifecycle: Lifecycle[Refund, RefundStatus, RefundEvent] = Lifecycle(
            store,
            outbox,
            REFUND_TRANSITIONS,
            kind=REFUNDS,
            id_field="refund_id",
            content_type=ContentType.REFUND_DETAILS,
        )
        scheduler.register(SETTLE_TIMER, self._settle_due)

    def create(self, merchant_id: str, fields: Mapping[str, Any]) -> Refund:
        # A `merchant_id` in the body may only repeat the merchant the API key belongs to.
        if fields.get("merchant_id", merchant_id) != merchant_id:
            raise InvalidField("merchant_id", "not the merchant of the API key")
        with self._store.transaction(merchant_id):
            payment: Payment | None = self._store.get(PAYMENTS, merchant_id, fields["payment_id"])
            if payment is None:
                raise PaymentNotFound()
            check_settled(payment, "refunded")
            refund_id = fields.get("refund_id") or new_real_id("ref", self._store.ids(merchant_id))
            if self._store.get(REFUNDS, merchant_id, refund_id) is not None:
                raise DuplicateResource("refund", "refund_id")
            earlier = self._store.query(
                REFUNDS, merchant_id, Query(where={"payment_id": payment.payment_id}, limit=MAX_REFUNDS + 1)
            ).items
            if len(earlier) >= MAX_REFUNDS:
                raise TooManyRefunds()
            held = sum(r.amount for r in earlier if r.status is not RefundStatus.FAILED)
            refundable = payment.amount_received - held
            amount = fields.get("amount", refundable)
            if amount > refundable or amount <= 0:
                raise RefundTooLarge(refundable)
            now = self._clock.now(merchant_id)
            fails = payment.outcome is not None and payment.outcome.refund_result == "failed"
            refund = build(
                Refund,
                refund_id=refund_id,
                payment_id=payment.payment_id,
                merchant_id=payment.merchant_id,
                profile_id=payment.profile_id,
                amount=amount,
                currency=payment.currency,
                status=RefundStatus.PENDING,
                created=now,
                updated_at=now,
                planned_result=RefundEvent.FAIL if fails else RefundEvent.SUCCEED,
                reason=fields.get("reason"),
                refund_type=fields.get("refund_type"),
                metadata=fields.get("metadata"),
                split_refunds=fields.get("split_refunds"),
                connector=payment.connector,
            )
            self._store.put(REFUNDS, merchant_id, refund)
            if fails:
                self._scheduler.schedule(merchant_id, now + SETTLE_AFTER, SETTLE_TIMER, refund_id)
                return refund
            return self._settle(refund, RefundEvent.SUCCEED, now)

    def retrieve(self, merchant_id: str, refund_id: str) -> Refund:
        refund: Refund | None = self._store.get(REFUNDS, merchant_id, refund_id)
        if refund is None:
            raise ResourceNotFound("Refund")
        return refund

    def update(self, merchant_id: str, refund_id: str, fields: Mapping[str, Any]) -> Refund:
        with self._store.transaction(merchant_id):
            refund = self.retrieve(merchant_id, refund_id)
            changes = {name: fields[name] for name in ("reason", "metadata") if name in fields}
            updated = evolve(refund, updated_at=self._clock.now(merchant_id), **changes)
            self._store.put(REFUNDS, merchant_id, updated)
            return updated

    def list(self, merchant_id: str, query: Query) -> Page:
        return self._store.query(REFUNDS, merchant_id, query)

    def of_payment(self, merchant_id: str, payment_id: str) -> tuple[Refund, ...]:
        """The refunds of one payment, newest first."""
        if not self._store.count(REFUNDS, merchant_id):  # as for most merchants: every answer asks
            return ()
        return tuple(
            self._store.query(REFUNDS, merchant_id, Query(where={"payment_id": payment_id}, limit=100)).items
        )

    def settle(self, merchant_id: str, refund_id: str, *, succeeded: bool) -> Refund:
        """Settle a pending refund by hand (the control plane)."""
        with self._store.transaction(merchant_id):
            refund = self.retrieve(merchant_id, refund_id)
            event = RefundEvent.SUCCEED if succeeded else RefundEvent.FAIL
            return self._settle(refund, event, self._clock.now(merchant_id))

    def _settle_due(self, merchant_id: str, refund_id: str) -> None:
        refund: Refund | None = self._store.get(REFUNDS, merchant_id, refund_id)
        if refund is not None and REFUND_TRANSITIONS.find(refund.status, refund.planned_result) is not None:
            self._settle(refund, refund.planned_result, self._clock.now(merchant_id))

    def _settle(self, refund: Refund, event: RefundEvent, now: datetime) -> Refund:
        changes: dict[str, Any] = {}
        if event is RefundEvent.FAIL:
            changes = {"error_code": REFUND_FAILED_CODE, "error_message": REFUND_FAILED_MESSAGE}
        updated = self._lifecycle.move(refund, event, now, **changes)
        if event is RefundEvent.SUCCEED:
            payment: Payment = self._store.get(PAYMENTS, refund.merchant_id, refund.payment_id)
            refunded = evolve(payment, amount_refunded=payment.amount_refunded + refund.amount)
            self._store.put(PAYMENTS, refund.merchant_id, refunded)
        return updated
