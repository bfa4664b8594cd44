"""PayoutService: payouts to a customer's bank account, their state table, timers and events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from mocksrv.domain.bank import kept_account
from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import DuplicateResource, InvalidField, ResourceNotFound
from mocksrv.domain.events import ContentType, EventType
from mocksrv.domain.ids import new_id
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.merchants import MerchantService
from mocksrv.domain.models import JsonObject, Page
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.outcomes import OutcomeResult
from mocksrv.domain.payments import check_customer
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import MemoryStore, Query
from mocksrv.domain.transitions import TransitionTable, rows

PAYOUTS = "payout"
SETTLE_TIMER = "payout.settle"
SETTLE_AFTER = timedelta(hours=1)
PAYOUT_METHOD = "payout"  # how payouts are named in the magic-value table


class PayoutStatus(StrEnum):
    REQUIRES_FULFILLMENT = "requires_fulfillment"
    INITIATED = "initiated"
    PENDING = "pending"
    SUCCESS = "success"
    FAILED = "failed"
    CANCELLED = "cancelled"
    REVERSED = "reversed"


class PayoutEvent(StrEnum):
    UPDATE = "update.details"
    FULFILL = "fulfill.start"
    SUCCEED = "settle.success"
    FAIL = "settle.failed"
    CANCEL = "cancel.release"
    REVERSE = "reverse.return"


P = PayoutStatus
PAYOUT_TRANSITIONS: TransitionTable[PayoutStatus, PayoutEvent] = TransitionTable(
    "Payout",
    [
        *rows([P.REQUIRES_FULFILLMENT], PayoutEvent.UPDATE, P.REQUIRES_FULFILLMENT),
        *rows([P.REQUIRES_FULFILLMENT], PayoutEvent.FULFILL, P.PENDING, EventType.PAYOUT_INITIATED),
        *rows([P.INITIATED, P.PENDING], PayoutEvent.SUCCEED, P.SUCCESS, EventType.PAYOUT_SUCCESS),
        *rows([P.INITIATED, P.PENDING], PayoutEvent.FAIL, P.FAILED, EventType.PAYOUT_FAILED),
        *rows([P.REQUIRES_FULFILLMENT], PayoutEvent.CANCEL, P.CANCELLED, EventType.PAYOUT_CANCELLED),
        *rows([P.SUCCESS], PayoutEvent.REVERSE, P.REVERSED, EventType.PAYOUT_REVERSED),
    ],
)


@dataclass(frozen=True, slots=True)
class Payout:
    payout_id: str
    merchant_id: str
    profile_id: str
    amount: int
    currency: str
    payout_type: str
    status: PayoutStatus
    created: datetime
    updated_at: datetime
    planned_result: PayoutEvent  # what a pending payout settles to
    payout_method_data: JsonObject | None = None  # the account number is kept as its last four
    customer_id: str | None = None
    description: str | None = None
    metadata: JsonObject | None = None
    auto_fulfill: bool = False
    error_code: str | None = None
    error_message: str | None = None
    planned_error: tuple[str | None, str | None] = (None, None)  # shown once it has failed


class PayoutService:
    def __init__(
        self,
        store: MemoryStore,
        clock: Clock,
        scheduler: Scheduler,
        outbox: Outbox,
        merchants: MerchantService,
    ) -> None:
        self._store = store
        self._clock = clock
        self._scheduler = scheduler
        self._merchants = merchants
        self._lifecycle: Lifecycle[Payout, PayoutStatus, PayoutEvent] = Lifecycle(
            store,
            outbox,
            PAYOUT_TRANSITIONS,
            kind=PAYOUTS,
            id_field="payout_id",
            content_type=ContentType.PAYOUT_DETAILS,
        )
        scheduler.register(SETTLE_TIMER, self._settle_due)

    def create(self, merchant_id: str, fields: Mapping[str, Any]) -> Payout:
        with self._store.transaction(merchant_id):
            payout_id = fields.get("payout_id") or new_id("payout")
            if self._store.get(PAYOUTS, merchant_id, payout_id) is not None:
                raise DuplicateResource("payout", "payout_id")
            check_customer(self._store, merchant_id, fields)
            now = self._clock.now(merchant_id)
            payout = Payout(
                payout_id=payout_id,
                merchant_id=merchant_id,
                profile_id=self._merchants.merchant(merchant_id).profile_id,
                amount=fields["amount"],
                currency=fields["currency"],
                payout_type=fields["payout_type"],
                status=PayoutStatus.REQUIRES_FULFILLMENT,
                created=now,
                updated_at=now,
                customer_id=fields.get("customer_id"),
                description=fields.get("description"),
                metadata=fields.get("metadata"),
                auto_fulfill=bool(fields.get("auto_fulfill")),
                **self._method(merchant_id, fields),
            )
            if payout.auto_fulfill:
                return self._fulfill(payout, now)
            self._store.put(PAYOUTS, merchant_id, payout)
            return payout

    def update(self, merchant_id: str, payout_id: str, fields: Mapping[str, Any]) -> Payout:
        with self._store.transaction(merchant_id):
            payout = self.retrieve(merchant_id, payout_id)
            PAYOUT_TRANSITIONS.check_action(payout.status, "update")
            check_customer(self._store, merchant_id, fields)
            names = ("amount", "currency", "customer_id", "description", "metadata")
            changes: dict[str, Any] = {name: fields[name] for name in names if name in fields}
            if "payout_method_data" in fields:
                changes.update(self._method(merchant_id, {"payout_type": payout.payout_type, **fields}))
            return self._lifecycle.move(payout, PayoutEvent.UPDATE, self._clock.now(merchant_id), **changes)

    def fulfill(self, merchant_id: str, payout_id: str) -> Payout:
        with self._store.transaction(merchant_id):
            return self._fulfill(self.retrieve(merchant_id, payout_id), self._clock.now(merchant_id))

    def cancel(self, merchant_id: str, payout_id: str) -> Payout:
        with self._store.transaction(merchant_id):
            payout = self.retrieve(merchant_id, payout_id)
            return self._lifecycle.move(payout, PayoutEvent.CANCEL, self._clock.now(merchant_id))

    def settle(self, merchant_id: str, payout_id: str, result: str) -> Payout:
        """Settle a pending payout, or reverse a successful one, by hand (the control plane)."""
        event = {"success": PayoutEvent.SUCCEED, "failed": PayoutEvent.FAIL, "reversed": PayoutEvent.REVERSE}
        with self._store.transaction(merchant_id):
            payout = self.retrieve(merchant_id, payout_id)
            return self._finish(payout, event[result], self._clock.now(merchant_id))

    def retrieve(self, merchant_id: str, payout_id: str) -> Payout:
        payout: Payout | None = self._store.get(PAYOUTS, merchant_id, payout_id)
        if payout is None:
            raise ResourceNotFound("Payout")
        return payout

    def list(self, merchant_id: str, query: Query) -> Page:
        return self._store.query(PAYOUTS, merchant_id, query)

    def _fulfill(self, payout: Payout, now: datetime) -> Payout:
        moved = self._lifecycle.move(payout, PayoutEvent.FULFILL, now)
        self._scheduler.schedule(payout.merchant_id, now + SETTLE_AFTER, SETTLE_TIMER, payout.payout_id)
        return moved

    def _settle_due(self, merchant_id: str, payout_id: str) -> None:
        payout: Payout | None = self._store.get(PAYOUTS, merchant_id, payout_id)
        if payout is not None and PAYOUT_TRANSITIONS.find(payout.status, payout.planned_result) is not None:
            self._finish(payout, payout.planned_result, self._clock.now(merchant_id))

    def _finish(self, payout: Payout, event: PayoutEvent, now: datetime) -> Payout:
        changes: dict[str, Any] = {}
        if event is PayoutEvent.FAIL:
            code, message = payout.planned_error
            changes = {
                "error_code": code or "payout_failed",
                "error_message": message or "The payout was declined by the bank",
            }
        return self._lifecycle.move(payout, event, now, **changes)

    def _method(self, merchant_id: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        """What is kept of the payout method, and how the payout will turn out."""
        data: JsonObject = fields["payout_method_data"]
        payout_type = fields["payout_type"]
        if payout_type not in data:
            raise InvalidField(f"payout_method_data.{payout_type}", missing=True)
        outcome = self._merchants.outcomes(merchant_id).match(PAYOUT_METHOD, payout_type, data)
        planned = PayoutEvent.FAIL if outcome.result is OutcomeResult.DECLINE else PayoutEvent.SUCCEED
        bank = kept_account(data[payout_type])
        failing = planned is PayoutEvent.FAIL
        return {
            "payout_method_data": {payout_type: bank},
            "planned_result": planned,
            "planned_error": (outcome.error_code, outcome.error_message) if failing else (None, None),
        }
