"""MandateService: the mandates customers give, as their setup payments and charges move them."""

from __future__ import annotations

import sys

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import DomainError, ResourceNotFound
from mocksrv.domain.events import PAID_EVENTS, ContentType, Event, EventType
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.models import Payment, evolve
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.payments.service import PAYMENTS
from mocksrv.domain.recurring.records import (
    MANDATE_TRANSITIONS,
    MANDATES,
    Mandate,
    MandateEvent,
    MandateInvalid,
    MandateStatus,
    MandateType,
)
from mocksrv.domain.store import MemoryStore, Query
from mocksrv.domain.transitions import action_of

# The events of a payment that decide the mandate it set up, or count against the one it charged.
_UNPAID = frozenset(
    {EventType.PAYMENT_FAILED.value, EventType.PAYMENT_CANCELLED.value, EventType.PAYMENT_EXPIRED.value}
)


def _refuse(mandate: Mandate, event: MandateEvent) -> DomainError:
    if event is MandateEvent.REVOKE and mandate.status is MandateStatus.REVOKED:
        return MandateInvalid("the mandate has already been revoked")
    return MANDATE_TRANSITIONS.refusal(mandate.status, action_of(event))


class MandateService:
    def __init__(self, store: MemoryStore, clock: Clock, outbox: Outbox) -> None:
        self._store = store
        self._clock = clock
        self._lifecycle: Lifecycle[Mandate, MandateStatus, MandateEvent] = Lifecycle(
            store,
            outbox,
            MANDATE_TRANSITIONS,
            kind=MANDATES,
            id_field="mandate_id",
            content_type=ContentType.MANDATE_DETAILS,
            refuse=_refuse,
        )

    def retrieve(self, merchant_id: str, mandate_id: str) -> Mandate:
        mandate: Mandate | None = self._store.get(MANDATES, merchant_id, mandate_id)
        if mandate is None:
            raise ResourceNotFound("Mandate")
        return mandate

    def of_customer(self, merchant_id: str, customer_id: str) -> list[Mandate]:
        """The customer's mandates, newest first."""
        page = self._store.query(MANDATES, merchant_id, Query.of(customer_id=customer_id, limit=sys.maxsize))
        mandates: list[Mandate] = page.items
        return mandates

    def revoke(self, merchant_id: str, mandate_id: str) -> Mandate:
        with self._store.transaction(merchant_id):
            mandate = self.retrieve(merchant_id, mandate_id)
            return self._lifecycle.move(mandate, MandateEvent.REVOKE, self._clock.now(merchant_id))

    def check_none_active(self, merchant_id: str, customer_id: str) -> None:
        """IR_10 if the customer has a mandate that may still be charged (before deleting it)."""
        if any(m.status is MandateStatus.ACTIVE for m in self.of_customer(merchant_id, customer_id)):
            raise ActiveMandate()

    def on_event(self, event: Event) -> None:
        """Activate or lapse the mandate a payment set up; count a paid charge against its mandate."""
        payment = event.resource
        if not isinstance(payment, Payment) or payment.mandate_id is None:
            return
        mandate: Mandate | None = self._store.get(MANDATES, payment.merchant_id, payment.mandate_id)
        if mandate is None:
            return
        now = event.created
        if mandate.payment_id == payment.payment_id:
            if mandate.status is MandateStatus.PENDING and event.event_type in PAID_EVENTS:
                self._lifecycle.move(mandate, MandateEvent.ACTIVATE, now)
            elif mandate.status is MandateStatus.PENDING and event.event_type in _UNPAID:
                self._lifecycle.move(mandate, MandateEvent.LAPSE, now)
            return
        if payment.payment_id in mandate.charged:
            charged = mandate.charged
        elif event.event_type in PAID_EVENTS:
            charged = (*mandate.charged, payment.payment_id)
        else:
            return
        captured = self._held(payment, charged)
        if payment.payment_id not in mandate.charged and (
            mandate.mandate_type is MandateType.SINGLE_USE and mandate.status is MandateStatus.ACTIVE
        ):
            self._lifecycle.move(mandate, MandateEvent.USE_UP, now, charged=charged, amount_captured=captured)
        elif charged != mandate.charged or captured != mandate.amount_captured:
            updated = evolve(mandate, updated_at=now, charged=charged, amount_captured=captured)
            self._store.put(MANDATES, payment.merchant_id, updated)

    def _held(self, payment: Payment, charged: tuple[str, ...]) -> int:
        """What the charges of a mandate hold of its amount: what each captured, and what each still
        may capture; an authorization cancelled or expired gives back what it did not capture."""
        held = 0
        for payment_id in charged:
            charge: Payment | None = (
                payment
                if payment_id == payment.payment_id
                else self._store.get(PAYMENTS, payment.merchant_id, payment_id)
            )
            if charge is not None:
                held += charge.amount_received + charge.amount_capturable
        return held


class ActiveMandate(DomainError):
    code = "IR_10"

    def __init__(self) -> None:
        # The real service's message, word for word (its spelling too): clients may compare it.
        super().__init__("Customer has active mandate/subsciption")
