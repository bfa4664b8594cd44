"""PayoutService: payouts to a customer's bank account, their state table, timers and events.

A payout is confirmed when it is created (`requires_fulfillment`), unless the create says
`confirm: false` alongside `auto_fulfill: true`: then it waits in `requires_fulfillment` and the
confirm operation (or an update with `confirm: true`) fulfils it. Confirm is the `confirm.details`
row of the table: it changes the fields sent, as an update does, and fulfils the payout when its
`auto_fulfill` is set. A payout may be created without `payout_method_data`; fulfilment needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any

from mocksrv.domain.bounds import Within
from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import ClientSecretInvalid, DuplicateResource, InvalidField, ResourceNotFound
from mocksrv.domain.events import ContentType, EventType
from mocksrv.domain.ids import new_client_secret, new_real_id, same_secret
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.merchants import MerchantService
from mocksrv.domain.models import CONNECTOR, JsonObject, Page, Profile
from mocksrv.domain.money import MAX_AMOUNT
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.payments.bank import kept_details
from mocksrv.domain.payments.outcomes import OutcomeResult
from mocksrv.domain.payments.sent import check_customer
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import MemoryStore, Query
from mocksrv.domain.transitions import TransitionTable, action_of, rows

PAYOUTS = "payout"
SETTLE_TIMER = "payout.settle"
SETTLE_AFTER = timedelta(hours=1)
PAYOUT_METHOD = "payout"  # how payouts are named in the magic-value table
DEFAULT_ENTITY_TYPE = "Individual"
PAYOUT_TYPES = ("card", "bank", "wallet", "bank_redirect")
PASSTHROUGH = "passthrough"
CARD_TYPES = frozenset({"credit", "debit"})  # a passthrough token of these is a card payout's
# The fields of a create or update body that are stored under their own names and shown.
_STORED_FIELDS = (
    "amount",
    "currency",
    "customer_id",
    "description",
    "metadata",
    "auto_fulfill",
    "merchant_order_reference_id",
    "billing",
    "return_url",
    "business_country",
    "business_label",
    "entity_type",
    "recurring",
    "priority",
    "email",
    "name",
    "phone",
    "phone_country_code",
    "payout_method_id",
)


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
    CONFIRM = "confirm.details"
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
        *rows([P.REQUIRES_FULFILLMENT], PayoutEvent.CONFIRM, P.REQUIRES_FULFILLMENT),
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
    amount: Annotated[int, Within(0, MAX_AMOUNT)]
    currency: str
    payout_type: str | None
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
    client_secret: str = ""
    merchant_order_reference_id: str | None = None
    billing: JsonObject | None = None
    return_url: str | None = None
    business_country: str | None = None
    business_label: str | None = None
    entity_type: str = DEFAULT_ENTITY_TYPE
    recurring: bool = False
    priority: str | None = None
    email: str | None = None
    name: str | None = None
    phone: str | None = None
    phone_country_code: str | None = None
    payout_method_id: str | None = None
    connector: str = CONNECTOR  # the merchant's, when the payout was made


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
            payout_id = fields.get("payout_id") or new_real_id("payout", self._store.ids(merchant_id))
            if self._store.get(PAYOUTS, merchant_id, payout_id) is not None:
                raise DuplicateResource("payout", "payout_id")
            profile = self._profile(merchant_id, fields.get("profile_id"))
            check_customer(self._store, merchant_id, fields)
            described = _described(fields)
            data = fields.get("payout_method_data")
            payout_type = fields.get("payout_type")
            method = self._method(merchant_id, payout_type, data) if data is not None else {}
            now = self._clock.now(merchant_id)
            record: dict[str, Any] = {
                "payout_id": payout_id,
                "merchant_id": merchant_id,
                "profile_id": profile.profile_id,
                "payout_type": payout_type,
                "status": PayoutStatus.REQUIRES_FULFILLMENT,
                "created": now,
                "updated_at": now,
                "planned_result": PayoutEvent.SUCCEED,
                "connector": self._merchants.merchant(merchant_id).connector,
                "client_secret": new_client_secret(payout_id, self._store.ids(merchant_id)),
                "return_url": profile.return_url,
            }
            payout = Payout(**{**record, **described, **method})
            # `confirm: false` holds an auto-fulfilled payout back until it is confirmed.
            if payout.auto_fulfill and fields.get("confirm", True):
                return self._fulfill(payout, now)
            self._store.put(PAYOUTS, merchant_id, payout)
            return payout

    def update(self, merchant_id: str, payout_id: str, fields: Mapping[str, Any]) -> Payout:
        """Change the fields sent; with `confirm: true`, confirm the payout as `confirm` does."""
        event = PayoutEvent.CONFIRM if fields.get("confirm") else PayoutEvent.UPDATE
        with self._store.transaction(merchant_id):
            payout = self.retrieve(merchant_id, payout_id)
            return self._change(payout, event, fields, self._clock.now(merchant_id))

    def confirm(self, merchant_id: str, payout_id: str, fields: Mapping[str, Any]) -> Payout:
        """Confirm a payout with its client secret, changing the fields sent; fulfil it if auto_fulfill."""
        with self._store.transaction(merchant_id):
            payout = self.retrieve(merchant_id, payout_id)
            return self._change(payout, PayoutEvent.CONFIRM, fields, self._clock.now(merchant_id))

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

    def filters(self, merchant_id: str, start: datetime, end: datetime | None) -> dict[str, list[str]]:
        """The values of each list filter that the merchant's payouts made in [start, end] hold (end:
        now on its clock), as the real service offers them to choose from."""
        end = self._clock.now(merchant_id) if end is None else end
        if end < start:
            raise InvalidField("end_time", "is before start_time")
        _, made = self._store.created_between(PAYOUTS, merchant_id, start, end)
        return {
            "connector": sorted({payout.connector for payout in made}),
            "currency": sorted({payout.currency for payout in made}),
            "status": sorted({payout.status.value for payout in made}),
            "payout_method": sorted({payout.payout_type for payout in made if payout.payout_type}),
        }

    def list(self, merchant_id: str, query: Query) -> Page:
        missing = self._store.missing_cursor(PAYOUTS, merchant_id, query)
        if missing is not None:
            raise InvalidField(missing, "no such payout")
        return self._store.query(PAYOUTS, merchant_id, query)

    def _change(self, payout: Payout, event: PayoutEvent, fields: Mapping[str, Any], now: datetime) -> Payout:
        """Update or confirm: the fields sent, through the table; a confirmed auto_fulfill payout goes on."""
        PAYOUT_TRANSITIONS.check_action(payout.status, action_of(event))
        secret = fields.get("client_secret")
        if secret is not None and not same_secret(secret, payout.client_secret):
            raise ClientSecretInvalid("Payout")
        changes = _described(fields)
        if "profile_id" in fields:
            changes["profile_id"] = self._profile(payout.merchant_id, fields["profile_id"]).profile_id
        check_customer(self._store, payout.merchant_id, fields)
        payout_type = fields.get("payout_type", payout.payout_type)
        data = fields.get("payout_method_data")
        if data is not None:
            changes.update(self._method(payout.merchant_id, payout_type, data))
        elif "payout_type" in fields:
            kept = payout.payout_method_data
            if kept is not None and payout_type not in kept:
                raise InvalidField(f"payout_method_data.{payout_type}", missing=True)
            changes["payout_type"] = payout_type
        fulfilling = event is PayoutEvent.CONFIRM and changes.get("auto_fulfill", payout.auto_fulfill)
        if fulfilling and changes.get("payout_method_data", payout.payout_method_data) is None:
            raise InvalidField("payout_method_data", missing=True)  # before anything changes
        moved = self._lifecycle.move(payout, event, now, **changes)
        return self._fulfill(moved, now) if fulfilling else moved

    def _fulfill(self, payout: Payout, now: datetime) -> Payout:
        PAYOUT_TRANSITIONS.check_action(payout.status, "fulfill")
        if payout.payout_method_data is None:
            raise InvalidField("payout_method_data", missing=True)
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

    def _profile(self, merchant_id: str, profile_id: str | None) -> Profile:
        """The business profile named, or the merchant's default one; IR_04 if none is named so."""
        if profile_id is None:
            return self._merchants.default_profile(merchant_id)
        profile = self._merchants.profile(merchant_id, profile_id)
        if profile is None:
            raise InvalidField("profile_id", "no such business profile")
        return profile

    def _method(self, merchant_id: str, payout_type: str | None, data: JsonObject) -> dict[str, Any]:
        """What is kept of the payout method, its type, and how the payout will turn out."""
        kind = payout_type
        if PASSTHROUGH in data:  # a token of the processor's, of a card or of another method
            kind = PASSTHROUGH
            if payout_type is None:
                payout_type = "card" if data[PASSTHROUGH]["token_type"] in CARD_TYPES else "bank"
        elif payout_type is None:  # the type is the method sent
            kind = payout_type = next((name for name in data if name in PAYOUT_TYPES), None)
            if payout_type is None:
                raise InvalidField("payout_type", missing=True)
        if kind not in data:
            raise InvalidField(f"payout_method_data.{kind}", missing=True)
        outcome = self._merchants.outcomes(merchant_id).match(PAYOUT_METHOD, payout_type, data)
        planned = PayoutEvent.FAIL if outcome.result is OutcomeResult.DECLINE else PayoutEvent.SUCCEED
        failing = planned is PayoutEvent.FAIL
        return {
            "payout_type": payout_type,
            "payout_method_data": {kind: kept_details(data[kind])},
            "planned_result": planned,
            "planned_error": (outcome.error_code, outcome.error_message) if failing else (None, None),
        }


def _described(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The stored fields a create or update body sets; `customer.id` names the customer as `customer_id`
    (the answer shows the customer's own details, as the real service does, not those sent beside it)."""
    changes = {name: fields[name] for name in _STORED_FIELDS if name in fields}
    customer = fields.get("customer")
    if customer is not None and changes.setdefault("customer_id", customer["id"]) != customer["id"]:
        raise InvalidField("customer.id", "differs from customer_id")
    return changes
