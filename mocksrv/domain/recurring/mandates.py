"""MandateService: the mandates customers give, as their setup payments and charges move them."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from datetime import datetime

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import DomainError, InvalidField, ResourceNotFound
from mocksrv.domain.events import PAID_EVENTS, ContentType, Event, EventType
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.models import Payment, evolve
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.payments.service import PAYMENTS
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.domain.recurring.records import (
    MANDATE_TRANSITIONS,
    MANDATES,
    PAYMENT_METHODS,
    Mandate,
    MandateEvent,
    MandateInvalid,
    MandateStatus,
    MandateType,
    mandate_refusal,
)
from mocksrv.domain.store import MemoryStore, Query
from mocksrv.domain.transitions import action_of

# The events of a payment that decide the mandate it set up, or count against the one it charged.
_UNPAID = frozenset(
    {EventType.PAYMENT_FAILED.value, EventType.PAYMENT_CANCELLED.value, EventType.PAYMENT_EXPIRED.value}
)
# A charge in these has no result yet: it holds all of its amount of the mandate until it has one.
_IN_FLIGHT = frozenset(
    {
        PaymentStatus.REQUIRES_PAYMENT_METHOD,
        PaymentStatus.REQUIRES_CONFIRMATION,
        PaymentStatus.REQUIRES_CUSTOMER_ACTION,
        PaymentStatus.REQUIRES_MERCHANT_ACTION,
        PaymentStatus.PROCESSING,
    }
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

    def check_none_in_force(self, merchant_id: str, customer_id: str) -> None:
        """IR_10 if the customer has a mandate that is, or may become, chargeable (before deleting it)."""
        mandates = self.of_customer(merchant_id, customer_id)
        if any(m.status in (MandateStatus.ACTIVE, MandateStatus.PENDING) for m in mandates):
            raise ActiveMandate()

    def delete_of_customer(self, merchant_id: str, customer_id: str) -> None:
        """Delete every mandate of the customer (in the caller's transaction, after
        `check_none_in_force`): none is left to name the customer's deleted methods."""
        for mandate in self.of_customer(merchant_id, customer_id):
            self._store.delete(MANDATES, merchant_id, mandate.mandate_id)

    def reserve(self, payment: Payment, now: datetime) -> Mandate:
        """At the confirmation of a payment charging its mandate: HE_03 unless the mandate allows the
        charge now; returns the mandate with the charge held against it from this moment, so that
        charges still in flight together never take more than it allows (in the caller's transaction)."""
        assert payment.mandate_id is not None
        mandate = self.retrieve(payment.merchant_id, payment.mandate_id)
        others = tuple(charge for charge in mandate.charged if charge != payment.payment_id)
        held = self._held(payment.merchant_id, others)
        reason = mandate_refusal(evolve(mandate, amount_captured=held), payment.amount, payment.currency, now)
        if reason is not None:
            raise MandateInvalid(reason, param="mandate_id")
        if mandate.customer_id is not None and mandate.customer_id != payment.customer_id:
            raise InvalidField("customer_id", "the mandate the payment charges belongs to another customer")
        if self._store.get(PAYMENT_METHODS, payment.merchant_id, mandate.payment_method_id) is None:
            raise MandateInvalid("the mandate's payment method has been deleted", param="mandate_id")
        charged = (*others, payment.payment_id)
        return evolve(mandate, updated_at=now, charged=charged, amount_captured=held + payment.amount)

    def on_event(self, event: Event) -> None:
        """Activate or lapse the mandate a payment set up; count a charge's result against its mandate."""
        payment = event.resource
        if not isinstance(payment, Payment) or payment.mandate_id is None:
            return
        mandate: Mandate | None = self._store.get(MANDATES, payment.merchant_id, payment.mandate_id)
        if mandate is None:
            return
        now = event.created
        paid = event.event_type in PAID_EVENTS
        if mandate.payment_id == payment.payment_id:
            self._on_setup(mandate, payment, event.event_type, now)
            return
        if payment.payment_id in mandate.charged:
            charged = mandate.charged
        elif paid:  # charged before its confirmation held it (a state saved by an earlier version)
            charged = (*mandate.charged, payment.payment_id)
        else:
            return
        held = self._held(payment.merchant_id, charged, payment)
        if paid and mandate.mandate_type is MandateType.SINGLE_USE and mandate.status is MandateStatus.ACTIVE:
            self._lifecycle.move(mandate, MandateEvent.USE_UP, now, charged=charged, amount_captured=held)
        elif charged != mandate.charged or held != mandate.amount_captured:
            updated = evolve(mandate, updated_at=now, charged=charged, amount_captured=held)
            self._store.put(MANDATES, payment.merchant_id, updated)

    def _on_setup(self, mandate: Mandate, payment: Payment, event_type: str, now: datetime) -> None:
        """The setup payment decides its mandate: paid, it is active; failed, cancelled or expired
        before anything was captured (an authorization voided or left to lapse), it is inactive. So
        is one paid whose method is not saved (its customer, or the method it named, deleted while it
        was under way; the saved methods handle the event first): nothing is left to charge."""
        if mandate.status is MandateStatus.PENDING and event_type in PAID_EVENTS:
            saved = self._store.get(PAYMENT_METHODS, payment.merchant_id, mandate.payment_method_id)
            decided = MandateEvent.ACTIVATE if saved is not None else MandateEvent.LAPSE
            self._lifecycle.move(mandate, decided, now)
        elif event_type in _UNPAID and (
            mandate.status is MandateStatus.PENDING
            or (mandate.status is MandateStatus.ACTIVE and payment.amount_received == 0)
        ):
            self._lifecycle.move(mandate, MandateEvent.LAPSE, now)

    def _held(self, merchant_id: str, charged: Iterable[str], current: Payment | None = None) -> int:
        """What the charges of a mandate hold of its amount: all of a charge still in flight, and of
        one with a result what it captured and may still capture; a declined charge, or an
        authorization cancelled or expired, gives back what it did not capture. `current` is the
        newest copy of one of them (the payment whose event is being handled)."""
        held = 0
        for payment_id in charged:
            charge: Payment | None = (
                current
                if current is not None and payment_id == current.payment_id
                else self._store.get(PAYMENTS, merchant_id, payment_id)
            )
            if charge is None:
                continue
            in_flight = charge.status in _IN_FLIGHT
            held += charge.amount if in_flight else charge.amount_received + charge.amount_capturable
        return held


class ActiveMandate(DomainError):
    code = "IR_10"

    def __init__(self) -> None:
        # The real service's message, word for word (its spelling too): clients may compare it.
        super().__init__("Customer has active mandate/subsciption")
