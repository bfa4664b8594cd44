"""DisputeService: chargebacks on captured payments, evidence, deadlines and decisions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import DomainError, ErrorKind, InvalidField, PaymentNotFound
from mocksrv.domain.events import ContentType, Event, EventType
from mocksrv.domain.ids import new_id
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.models import CONNECTOR, Page, Payment, evolve
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.payments.service import PAYMENTS
from mocksrv.domain.refunds import check_settled
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import MemoryStore, Query
from mocksrv.domain.transitions import Transition, TransitionTable, action_of, rows

DISPUTES = "dispute"
# The real service's stages of a dispute; mocksrv models one, and every dispute is at it.
DISPUTE_STAGES = frozenset({"pre_dispute", "dispute", "pre_arbitration", "arbitration", "dispute_reversal"})
MODELLED_STAGE = "dispute"
DEADLINE_TIMER = "dispute.deadline"
DECISION_TIMER = "dispute.decision"
CHALLENGE_WINDOW = timedelta(days=7)
DECISION_AFTER = timedelta(days=1)
WINNING_EVIDENCE = "winning_evidence"
LOSING_EVIDENCE = "losing_evidence"
DEFAULT_REASON = "fraudulent"

# The evidence fields of the real service's submit-evidence request; documents are file ids.
EVIDENCE_FIELDS = (
    "access_activity_log",
    "billing_address",
    "cancellation_policy",
    "cancellation_policy_disclosure",
    "cancellation_rebuttal",
    "customer_communication",
    "customer_email_address",
    "customer_name",
    "customer_purchase_ip",
    "customer_signature",
    "product_description",
    "receipt",
    "refund_policy",
    "refund_policy_disclosure",
    "refund_refusal_explanation",
    "service_date",
    "service_documentation",
    "shipping_address",
    "shipping_carrier",
    "shipping_date",
    "shipping_documentation",
    "shipping_tracking_number",
    "invoice_showing_distinct_transactions",
    "recurring_transaction_agreement",
    "uncategorized_file",
    "uncategorized_text",
)


class DisputeStatus(StrEnum):
    OPENED = "dispute_opened"
    CHALLENGED = "dispute_challenged"
    ACCEPTED = "dispute_accepted"
    WON = "dispute_won"
    LOST = "dispute_lost"
    EXPIRED = "dispute_expired"
    CANCELLED = "dispute_cancelled"


class DisputeEvent(StrEnum):
    ACCEPT = "accept.concede"
    CHALLENGE = "evidence.submit"
    WITHDRAW = "evidence.withdraw_all"  # the last piece of evidence deleted: unanswered again
    WIN = "decide.won"
    LOSE = "decide.lost"
    EXPIRE = "expire.deadline"
    CANCEL = "cancel.withdrawn"


S = DisputeStatus
_OPEN = [S.OPENED, S.CHALLENGED]
DISPUTE_TRANSITIONS: TransitionTable[DisputeStatus, DisputeEvent] = TransitionTable(
    "Dispute",
    [
        *rows(_OPEN, DisputeEvent.ACCEPT, S.ACCEPTED, EventType.DISPUTE_ACCEPTED),
        *rows(_OPEN, DisputeEvent.CHALLENGE, S.CHALLENGED, EventType.DISPUTE_CHALLENGED),
        # No event: the merchant withdrew the evidence itself, and the answer shows the dispute.
        Transition(S.CHALLENGED, DisputeEvent.WITHDRAW, S.OPENED),
        *rows(_OPEN, DisputeEvent.WIN, S.WON, EventType.DISPUTE_WON),
        *rows(_OPEN, DisputeEvent.LOSE, S.LOST, EventType.DISPUTE_LOST),
        *rows([S.OPENED], DisputeEvent.EXPIRE, S.EXPIRED, EventType.DISPUTE_EXPIRED),
        *rows(_OPEN, DisputeEvent.CANCEL, S.CANCELLED, EventType.DISPUTE_CANCELLED),
    ],
)

_VERBS = {"accept": "accepted", "evidence": "given evidence", "decide": "decided", "cancel": "cancelled"}


class DisputeNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "HE_04"

    def __init__(self) -> None:
        super().__init__("Dispute does not exist in our records")


class DisputeStateError(DomainError):
    code = "HE_03"

    def __init__(self, action: str, status: DisputeStatus) -> None:
        expected = ", ".join(DISPUTE_TRANSITIONS.expected_states(action))
        super().__init__(
            f"This dispute cannot be {_VERBS.get(action, action)} because it has a status of "
            f"{status.value}. The expected state is {expected}"
        )


@dataclass(frozen=True, slots=True)
class Dispute:
    dispute_id: str
    payment_id: str
    merchant_id: str
    profile_id: str
    amount: int
    currency: str
    status: DisputeStatus
    reason: str
    created: datetime
    updated_at: datetime
    challenge_required_by: datetime
    evidence: dict[str, str] | None = None
    evidence_submitted_at: datetime | None = None
    planned_decision: DisputeEvent | None = None  # set by winning or losing evidence
    attempt_id: str | None = None  # the payment's attempt that is disputed
    connector: str = CONNECTOR  # the payment's


class DisputeService:
    def __init__(self, store: MemoryStore, clock: Clock, scheduler: Scheduler, outbox: Outbox) -> None:
        self._store = store
        self._clock = clock
        self._scheduler = scheduler
        self._outbox = outbox
        self._lifecycle: Lifecycle[Dispute, DisputeStatus, DisputeEvent] = Lifecycle(
            store,
            outbox,
            DISPUTE_TRANSITIONS,
            kind=DISPUTES,
            id_field="dispute_id",
            content_type=ContentType.DISPUTE_DETAILS,
            refuse=lambda dispute, event: DisputeStateError(action_of(event), dispute.status),
        )
        scheduler.register(DEADLINE_TIMER, self._deadline_passed)
        scheduler.register(DECISION_TIMER, self._decision_due)

    def on_event(self, event: Event) -> None:
        """Open a dispute at once when a payment made with the dispute card succeeds."""
        payment = event.resource
        if (
            event.event_type == EventType.PAYMENT_SUCCEEDED
            and isinstance(payment, Payment)
            and payment.outcome is not None
            and payment.outcome.opens_dispute
        ):
            self._open(payment, payment.amount_received, DEFAULT_REASON, event.created)

    def open(self, merchant_id: str, payment_id: str, amount: int | None, reason: str | None) -> Dispute:
        """Open a dispute on a captured payment (the control plane)."""
        with self._store.transaction(merchant_id):
            payment: Payment | None = self._store.get(PAYMENTS, merchant_id, payment_id)
            if payment is None:
                raise PaymentNotFound()
            check_settled(payment, "disputed")
            amount = payment.amount_received if amount is None else amount
            if amount > payment.amount_received:
                raise InvalidField("amount", f"more than the payment received ({payment.amount_received})")
            return self._open(payment, amount, reason or DEFAULT_REASON, self._clock.now(merchant_id))

    def _open(self, payment: Payment, amount: int, reason: str, now: datetime) -> Dispute:
        dispute = Dispute(
            dispute_id=new_id("dp", entropy=self._store.ids(payment.merchant_id)),
            payment_id=payment.payment_id,
            merchant_id=payment.merchant_id,
            profile_id=payment.profile_id,
            amount=amount,
            currency=payment.currency,
            status=DisputeStatus.OPENED,
            reason=reason,
            created=now,
            updated_at=now,
            challenge_required_by=now + CHALLENGE_WINDOW,
            attempt_id=payment.attempt_id,
            connector=payment.connector,
        )
        self._store.put(DISPUTES, payment.merchant_id, dispute)
        self._outbox.emit(
            payment.merchant_id,
            EventType.DISPUTE_OPENED,
            ContentType.DISPUTE_DETAILS,
            dispute.dispute_id,
            dispute,
            at=now,
        )
        self._scheduler.schedule(
            payment.merchant_id, dispute.challenge_required_by, DEADLINE_TIMER, dispute.dispute_id
        )
        return dispute

    def retrieve(self, merchant_id: str, dispute_id: str) -> Dispute:
        dispute: Dispute | None = self._store.get(DISPUTES, merchant_id, dispute_id)
        if dispute is None:
            raise DisputeNotFound()
        return dispute

    def of_payment(self, merchant_id: str, payment_id: str) -> list[Dispute]:
        """The disputes of one payment, newest first."""
        if not self._store.count(DISPUTES, merchant_id):  # as for most merchants: every answer asks
            return []
        query = Query(where={"payment_id": payment_id}, limit=100)
        return list(self._store.query(DISPUTES, merchant_id, query).items)

    def list(self, merchant_id: str, query: Query) -> Page:
        return self._store.query(DISPUTES, merchant_id, query)

    def accept(self, merchant_id: str, dispute_id: str) -> Dispute:
        with self._store.transaction(merchant_id):
            return self._move(self.retrieve(merchant_id, dispute_id), DisputeEvent.ACCEPT)

    def submit_evidence(self, merchant_id: str, dispute_id: str, evidence: Mapping[str, str]) -> Dispute:
        """Add evidence; `winning_evidence` or `losing_evidence` in it decides the dispute a day later."""
        with self._store.transaction(merchant_id):
            dispute = self.retrieve(merchant_id, dispute_id)
            if not evidence:
                raise InvalidField("evidence", "at least one evidence field", missing=True)
            merged = {**(dispute.evidence or {}), **evidence}
            planned = _decision_of(merged)
            now = self._clock.now(merchant_id)
            updated = self._move(
                dispute,
                DisputeEvent.CHALLENGE,
                evidence=merged,
                evidence_submitted_at=now,
                planned_decision=planned,
            )
            if planned is not None:
                self._scheduler.schedule(merchant_id, now + DECISION_AFTER, DECISION_TIMER, dispute_id)
            return updated

    def evidence(self, merchant_id: str, dispute_id: str) -> Dispute:
        return self.retrieve(merchant_id, dispute_id)

    def delete_evidence(self, merchant_id: str, dispute_id: str, evidence_type: str) -> Dispute:
        """Remove one piece of evidence. Without any left the dispute is unanswered again
        (`dispute_opened`), so that its deadline expires it; already past, at once."""
        with self._store.transaction(merchant_id):
            dispute = self.retrieve(merchant_id, dispute_id)
            if DISPUTE_TRANSITIONS.find(dispute.status, DisputeEvent.CHALLENGE) is None:
                raise DisputeStateError("evidence", dispute.status)
            evidence = dict(dispute.evidence or {})
            if evidence.pop(evidence_type, None) is None:
                raise InvalidField("evidence_type", "no evidence of this type was submitted")
            now = self._clock.now(merchant_id)
            if evidence:
                updated = evolve(
                    dispute, evidence=evidence, planned_decision=_decision_of(evidence), updated_at=now
                )
                self._store.put(DISPUTES, merchant_id, updated)
                return updated
            unanswered = self._move(
                dispute,
                DisputeEvent.WITHDRAW,
                evidence={},
                evidence_submitted_at=None,
                planned_decision=None,
            )
            if now >= dispute.challenge_required_by:  # its deadline timer found it challenged
                return self._move(unanswered, DisputeEvent.EXPIRE)
            return unanswered

    def resolve(self, merchant_id: str, dispute_id: str, result: str) -> Dispute:
        """Decide a dispute by hand (the control plane): won, lost or cancelled."""
        event = {"won": DisputeEvent.WIN, "lost": DisputeEvent.LOSE, "cancelled": DisputeEvent.CANCEL}[result]
        with self._store.transaction(merchant_id):
            return self._move(self.retrieve(merchant_id, dispute_id), event)

    def _deadline_passed(self, merchant_id: str, dispute_id: str) -> None:
        dispute: Dispute | None = self._store.get(DISPUTES, merchant_id, dispute_id)
        if dispute is not None and DISPUTE_TRANSITIONS.find(dispute.status, DisputeEvent.EXPIRE) is not None:
            self._move(dispute, DisputeEvent.EXPIRE)

    def _decision_due(self, merchant_id: str, dispute_id: str) -> None:
        dispute: Dispute | None = self._store.get(DISPUTES, merchant_id, dispute_id)
        if dispute is None or dispute.planned_decision is None or dispute.evidence_submitted_at is None:
            return
        # Evidence submitted again moves the decision: an earlier timer finds it not yet due.
        due = dispute.evidence_submitted_at + DECISION_AFTER <= self._clock.now(merchant_id)
        if due and DISPUTE_TRANSITIONS.find(dispute.status, dispute.planned_decision) is not None:
            self._move(dispute, dispute.planned_decision)

    def _move(self, dispute: Dispute, event: DisputeEvent, **changes: Any) -> Dispute:
        return self._lifecycle.move(dispute, event, self._clock.now(dispute.merchant_id), **changes)


def _decision_of(evidence: Mapping[str, str]) -> DisputeEvent | None:
    """What the evidence decides: winning_evidence wins, losing_evidence loses, else nothing."""
    texts = " ".join(evidence.values())
    if WINNING_EVIDENCE in texts:
        return DisputeEvent.WIN
    if LOSING_EVIDENCE in texts:
        return DisputeEvent.LOSE
    return None
