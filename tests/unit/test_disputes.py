"""Disputes: the dispute transition table pair by pair, and DisputeService through the sandbox on the clock.

Decisions section 2 (error rows HE_03, HE_04, IR_04, IR_05, IR_14), section 4 (disputes: the
challenge window of 7 days, evidence, the decision a day after `winning_evidence` or
`losing_evidence`), section 5 (card 4000000000000259 opens a dispute at once), section 6 (dispute
events) and section 9 (the control plane opens and resolves disputes).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from mocksrv.domain.disputes import (
    DEADLINE_TIMER,
    DECISION_TIMER,
    DISPUTE_TRANSITIONS,
    DISPUTES,
    EVIDENCE_FIELDS,
    Dispute,
    DisputeEvent,
    DisputeStatus,
)
from mocksrv.domain.errors import ErrorKind
from mocksrv.domain.events import ContentType
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.models import Payment
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.store import Query
from tests.api.expected import Matches
from tests.payloads import MERCHANT_ID, PROFILE_ID, payment
from tests.unit.fakes import T0, at
from tests.unit.helpers import advance, error_of, event_types_of, events_of, raised_by, timers
from tests.unit.test_payments_service import payment_in

S = DisputeStatus
E = DisputeEvent
DAY = 24 * 3600
WEEK = 7 * DAY
DISPUTE_CARD = "4000000000000259"
GENERATED_DISPUTE_ID = Matches(r"dp_[A-Za-z0-9]{20}")
OPEN_STATES = "dispute_opened, dispute_challenged"
DISPUTABLE = "succeeded, partially_captured, partially_captured_and_capturable, expired with a part captured"
NOT_FOUND = "Dispute does not exist in our records"

# Every allowed (state, event) pair, written out from decisions sections 4 and 6.
ALLOWED: dict[tuple[DisputeStatus, DisputeEvent], tuple[DisputeStatus, str | None]] = {
    (S.OPENED, E.ACCEPT): (S.ACCEPTED, "dispute_accepted"),
    (S.CHALLENGED, E.ACCEPT): (S.ACCEPTED, "dispute_accepted"),
    (S.OPENED, E.CHALLENGE): (S.CHALLENGED, "dispute_challenged"),
    (S.CHALLENGED, E.CHALLENGE): (S.CHALLENGED, "dispute_challenged"),
    (S.CHALLENGED, E.WITHDRAW): (S.OPENED, None),
    (S.OPENED, E.WIN): (S.WON, "dispute_won"),
    (S.CHALLENGED, E.WIN): (S.WON, "dispute_won"),
    (S.OPENED, E.LOSE): (S.LOST, "dispute_lost"),
    (S.CHALLENGED, E.LOSE): (S.LOST, "dispute_lost"),
    (S.OPENED, E.EXPIRE): (S.EXPIRED, "dispute_expired"),
    (S.OPENED, E.CANCEL): (S.CANCELLED, "dispute_cancelled"),
    (S.CHALLENGED, E.CANCEL): (S.CANCELLED, "dispute_cancelled"),
}

OPEN = [S.OPENED, S.CHALLENGED]
CLOSED = [S.ACCEPTED, S.WON, S.LOST, S.EXPIRED, S.CANCELLED]

# The payment states a dispute cannot be opened from.
NOT_DISPUTABLE = [
    PaymentStatus.REQUIRES_PAYMENT_METHOD,
    PaymentStatus.REQUIRES_CONFIRMATION,
    PaymentStatus.REQUIRES_CUSTOMER_ACTION,
    PaymentStatus.REQUIRES_MERCHANT_ACTION,
    PaymentStatus.PROCESSING,
    PaymentStatus.REQUIRES_CAPTURE,
    PaymentStatus.FAILED,
    PaymentStatus.CANCELLED,
    PaymentStatus.EXPIRED,
]

# What resolving by hand does, by result.
RESOLVED = {
    "won": (S.WON, "dispute_won"),
    "lost": (S.LOST, "dispute_lost"),
    "cancelled": (S.CANCELLED, "dispute_cancelled"),
}
RESOLVE_VERB = {"won": "decided", "lost": "decided", "cancelled": "cancelled"}


def closed_message(verb: str, status: str) -> str:
    """The HE_03 message of an operation a closed dispute does not allow."""
    return (
        f"This dispute cannot be {verb} because it has a status of {status}. "
        f"The expected state is {OPEN_STATES}"
    )


# -- helpers ---------------------------------------------------------------------------------------


def pay(sandbox: Sandbox, number: str = "4242424242424242", **overrides: Any) -> Payment:
    return sandbox.payments.create(MERCHANT_ID, payment(number, **overrides))


def pay_as_another_merchant(sandbox: Sandbox) -> Payment:
    """A succeeded payment of a second merchant."""
    credentials = sandbox.merchants.create(MerchantSeed())
    body = payment(profile_id=credentials.profile.profile_id)
    return sandbox.payments.create(credentials.merchant.merchant_id, body)


def open_dispute(
    sandbox: Sandbox, payment_id: str | None = None, amount: int | None = None, reason: str | None = None
) -> Dispute:
    """Open a dispute through the control plane's operation, on a new payment unless one is named."""
    if payment_id is None:
        payment_id = pay(sandbox).payment_id
    return sandbox.disputes.open(MERCHANT_ID, payment_id, amount, reason)


def evidence(sandbox: Sandbox, dispute_id: str, **fields: str) -> Dispute:
    return sandbox.disputes.submit_evidence(MERCHANT_ID, dispute_id, fields or {"receipt": "Receipt #1"})


def stored(sandbox: Sandbox, dispute_id: str) -> Dispute:
    return sandbox.disputes.retrieve(MERCHANT_ID, dispute_id)


def dispute_in(sandbox: Sandbox, status: DisputeStatus) -> Dispute:
    """Drive a new dispute, through the public operations, into `status`."""
    disputes = sandbox.disputes
    if status is S.OPENED:
        return open_dispute(sandbox)
    if status is S.CHALLENGED:
        return evidence(sandbox, open_dispute(sandbox).dispute_id)
    if status is S.ACCEPTED:
        return disputes.accept(MERCHANT_ID, open_dispute(sandbox).dispute_id)
    if status is S.WON:
        return disputes.resolve(MERCHANT_ID, open_dispute(sandbox).dispute_id, "won")
    if status is S.LOST:
        return disputes.resolve(MERCHANT_ID, open_dispute(sandbox).dispute_id, "lost")
    if status is S.CANCELLED:
        return disputes.resolve(MERCHANT_ID, open_dispute(sandbox).dispute_id, "cancelled")
    if status is S.EXPIRED:
        dispute = open_dispute(sandbox)
        advance(sandbox, WEEK)
        return stored(sandbox, dispute.dispute_id)
    raise AssertionError(status)


def listed(sandbox: Sandbox, merchant_id: str = MERCHANT_ID, **criteria: Any) -> tuple[list[str], int]:
    """The ids a list returns, in order, and its total count."""
    page = sandbox.disputes.list(merchant_id, Query.of(**criteria))
    return [d.dispute_id for d in page.items], page.total_count


@pytest.mark.parametrize("status", list(DisputeStatus))
def test_dispute_in_reaches_the_status(sandbox: Sandbox, status: DisputeStatus) -> None:
    assert dispute_in(sandbox, status).status is status


# -- the transition table ----------------------------------------------------------------------------


def test_the_statuses_are_those_of_the_decisions() -> None:
    assert [s.value for s in DisputeStatus] == [
        "dispute_opened",
        "dispute_challenged",
        "dispute_accepted",
        "dispute_won",
        "dispute_lost",
        "dispute_expired",
        "dispute_cancelled",
    ]


@pytest.mark.parametrize("status", CLOSED)
def test_closed_dispute_state_allows_no_event(status: DisputeStatus) -> None:
    assert DISPUTE_TRANSITIONS.allowed_events(status) == []


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("accept", ["dispute_opened", "dispute_challenged"]),
        ("evidence", ["dispute_opened", "dispute_challenged"]),
        ("decide", ["dispute_opened", "dispute_challenged"]),
        ("expire", ["dispute_opened"]),
        ("cancel", ["dispute_opened", "dispute_challenged"]),
    ],
)
def test_each_action_expects_its_states(action: str, expected: list[str]) -> None:
    assert DISPUTE_TRANSITIONS.expected_states(action) == expected


# -- the dispute card --------------------------------------------------------------------------------


def test_the_dispute_card_opens_a_dispute_for_everything_received(sandbox: Sandbox) -> None:
    paid = pay(sandbox, DISPUTE_CARD)

    page = sandbox.disputes.list(MERCHANT_ID, Query.of())

    assert page.items == [
        Dispute(
            dispute_id=GENERATED_DISPUTE_ID,
            payment_id=paid.payment_id,
            merchant_id=MERCHANT_ID,
            profile_id=PROFILE_ID,
            amount=1000,
            currency="USD",
            status=S.OPENED,
            reason="fraudulent",
            created=T0,
            updated_at=T0,
            challenge_required_by=at(WEEK),
            attempt_id=f"{paid.payment_id}_1",
        )
    ]


def test_the_dispute_card_payment_succeeds(sandbox: Sandbox) -> None:
    assert pay(sandbox, DISPUTE_CARD).status is PaymentStatus.SUCCEEDED


def test_the_dispute_opened_event_follows_the_payment_succeeded_event(sandbox: Sandbox) -> None:
    paid = pay(sandbox, DISPUTE_CARD)

    assert [(e.event_type, e.object_id) for e in sandbox.store.events(MERCHANT_ID)] == [
        ("payment_succeeded", paid.payment_id),
        ("dispute_opened", listed(sandbox)[0][0]),
    ]


def test_the_dispute_opened_event_holds_the_dispute_as_opened(sandbox: Sandbox) -> None:
    pay(sandbox, DISPUTE_CARD)
    (dispute_id,), _ = listed(sandbox)

    (event,) = events_of(sandbox, dispute_id)
    assert (event.content_type, event.created, event.resource) == (
        ContentType.DISPUTE_DETAILS,
        T0,
        stored(sandbox, dispute_id),
    )


def test_an_ordinary_card_opens_no_dispute(sandbox: Sandbox) -> None:
    pay(sandbox)

    assert sandbox.store.count(DISPUTES, MERCHANT_ID) == 0


def test_the_dispute_card_authorized_for_manual_capture_opens_no_dispute_yet(sandbox: Sandbox) -> None:
    pay(sandbox, DISPUTE_CARD, capture_method="manual")

    assert sandbox.store.count(DISPUTES, MERCHANT_ID) == 0


def test_the_dispute_card_opens_its_dispute_when_the_payment_is_captured_in_full(sandbox: Sandbox) -> None:
    authorized = pay(sandbox, DISPUTE_CARD, capture_method="manual")
    advance(sandbox, 60)

    sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, None)

    (dispute_id,), _ = listed(sandbox)
    dispute = stored(sandbox, dispute_id)
    assert (dispute.payment_id, dispute.amount, dispute.created) == (authorized.payment_id, 1000, at(60))


def test_the_dispute_card_dispute_expires_a_week_later_unanswered(sandbox: Sandbox) -> None:
    pay(sandbox, DISPUTE_CARD)
    (dispute_id,), _ = listed(sandbox)

    advance(sandbox, WEEK)

    assert stored(sandbox, dispute_id).status is S.EXPIRED


# -- open through the control plane ----------------------------------------------------------------


def test_open_without_amount_disputes_everything_received(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    advance(sandbox, 60)

    opened = open_dispute(sandbox, paid.payment_id)

    assert opened == Dispute(
        dispute_id=GENERATED_DISPUTE_ID,
        payment_id=paid.payment_id,
        merchant_id=MERCHANT_ID,
        profile_id=PROFILE_ID,
        amount=1000,
        currency="USD",
        status=S.OPENED,
        reason="fraudulent",
        created=at(60),
        updated_at=at(60),
        challenge_required_by=at(60 + WEEK),
        attempt_id=f"{paid.payment_id}_1",
    )


def test_open_stores_the_dispute(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)

    assert stored(sandbox, opened.dispute_id) == opened


@pytest.mark.parametrize(
    ("status", "received"),
    [
        (PaymentStatus.SUCCEEDED, 1000),
        (PaymentStatus.PARTIALLY_CAPTURED, 400),
        (PaymentStatus.PARTIALLY_CAPTURED_AND_CAPTURABLE, 400),
    ],
)
def test_open_on_a_captured_payment_disputes_what_it_received(
    sandbox: Sandbox, status: PaymentStatus, received: int
) -> None:
    captured = payment_in(sandbox, status)

    assert open_dispute(sandbox, captured.payment_id).amount == received


def test_open_on_a_payment_that_expired_after_a_partial_capture_disputes_what_it_received(
    sandbox: Sandbox,
) -> None:
    captured = payment_in(sandbox, PaymentStatus.PARTIALLY_CAPTURED_AND_CAPTURABLE)
    advance(sandbox, WEEK)
    assert sandbox.payments.retrieve(MERCHANT_ID, captured.payment_id).status is PaymentStatus.EXPIRED

    assert open_dispute(sandbox, captured.payment_id).amount == 400


def test_open_with_an_amount_and_a_reason_keeps_them(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox, amount=250, reason="product_not_received")

    assert (opened.amount, opened.reason) == (250, "product_not_received")


def test_open_for_exactly_what_was_received_is_allowed(sandbox: Sandbox) -> None:
    assert open_dispute(sandbox, amount=1000).amount == 1000


def test_open_for_more_than_was_received_is_IR_04(sandbox: Sandbox) -> None:
    paid = pay(sandbox)

    error = raised_by(lambda: open_dispute(sandbox, paid.payment_id, amount=1001))

    assert error_of(error) == (
        "IR_04",
        ErrorKind.INVALID,
        "Invalid value provided: amount: more than the payment received (1000)",
        "amount",
    )


def test_open_for_more_than_a_partial_capture_received_is_IR_04_naming_it(sandbox: Sandbox) -> None:
    captured = payment_in(sandbox, PaymentStatus.PARTIALLY_CAPTURED)

    error = raised_by(lambda: open_dispute(sandbox, captured.payment_id, amount=401))

    assert error.message == "Invalid value provided: amount: more than the payment received (400)"


@pytest.mark.parametrize("status", NOT_DISPUTABLE)
def test_open_on_a_payment_that_captured_nothing_is_IR_14(sandbox: Sandbox, status: PaymentStatus) -> None:
    uncaptured = payment_in(sandbox, status)

    error = raised_by(lambda: open_dispute(sandbox, uncaptured.payment_id))

    assert error_of(error) == (
        "IR_14",
        ErrorKind.STATE,
        f"This Payment could not be disputed because it has a status of {status.value}. "
        f"The expected state is {DISPUTABLE}",
        None,
    )


def test_open_on_an_unknown_payment_is_IR_05(sandbox: Sandbox) -> None:
    error = raised_by(lambda: open_dispute(sandbox, "pay_missing"))

    assert error_of(error) == ("IR_05", ErrorKind.NOT_FOUND, "Payment not found", None)


def test_open_on_another_merchants_payment_is_IR_05(sandbox: Sandbox) -> None:
    paid = pay_as_another_merchant(sandbox)

    error = raised_by(lambda: open_dispute(sandbox, paid.payment_id))

    assert error.code == "IR_05"


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda sandbox, paid: open_dispute(sandbox, paid, amount=1001), id="IR_04"),
        pytest.param(lambda sandbox, paid: open_dispute(sandbox, "pay_missing"), id="IR_05"),
    ],
)
def test_a_refused_open_stores_no_dispute_emits_no_event_and_sets_no_timer(
    sandbox: Sandbox, call: Callable[[Sandbox, str], Dispute]
) -> None:
    paid = pay(sandbox)
    events_before = len(sandbox.store.events(MERCHANT_ID))

    raised_by(lambda: call(sandbox, paid.payment_id))

    assert sandbox.store.count(DISPUTES, MERCHANT_ID) == 0
    assert len(sandbox.store.events(MERCHANT_ID)) == events_before
    assert timers(sandbox) == []


def test_open_emits_dispute_opened_holding_the_dispute(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)

    (event,) = events_of(sandbox, opened.dispute_id)
    assert (event.event_type, event.content_type, event.created, event.resource) == (
        "dispute_opened",
        ContentType.DISPUTE_DETAILS,
        T0,
        opened,
    )


def test_open_schedules_the_deadline_seven_days_later(sandbox: Sandbox) -> None:
    advance(sandbox, 60)

    opened = open_dispute(sandbox)

    assert opened.challenge_required_by == at(60) + timedelta(days=7)
    assert timers(sandbox) == [(at(60 + WEEK), DEADLINE_TIMER, opened.dispute_id)]


# -- the challenge deadline ------------------------------------------------------------------------


def test_an_unanswered_dispute_is_still_open_a_second_before_the_deadline(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)

    advance(sandbox, WEEK - 1)

    assert stored(sandbox, opened.dispute_id).status is S.OPENED
    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened"]


def test_an_unanswered_dispute_expires_at_exactly_the_deadline(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)

    advance(sandbox, WEEK)

    expired = stored(sandbox, opened.dispute_id)
    assert (expired.status, expired.updated_at) == (S.EXPIRED, opened.challenge_required_by)


def test_an_expiry_emits_dispute_expired_holding_the_expired_dispute(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)

    advance(sandbox, WEEK)

    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened", "dispute_expired"]
    event = events_of(sandbox, opened.dispute_id)[1]
    assert (event.content_type, event.created, event.resource) == (
        ContentType.DISPUTE_DETAILS,
        at(WEEK),
        stored(sandbox, opened.dispute_id),
    )


def test_an_unanswered_dispute_expires_when_the_week_passes_in_steps(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)

    for _ in range(7):
        advance(sandbox, DAY)

    assert stored(sandbox, opened.dispute_id).status is S.EXPIRED


def test_advancing_past_the_deadline_emits_no_second_dispute_expired(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    advance(sandbox, WEEK)

    advance(sandbox, WEEK)

    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened", "dispute_expired"]


@pytest.mark.parametrize("status", [S.CHALLENGED, S.ACCEPTED, S.WON, S.LOST, S.CANCELLED])
def test_a_dispute_answered_before_the_deadline_does_not_expire(
    sandbox: Sandbox, status: DisputeStatus
) -> None:
    answered = dispute_in(sandbox, status)

    advance(sandbox, WEEK)

    assert stored(sandbox, answered.dispute_id) == answered


# -- evidence --------------------------------------------------------------------------------------


def test_evidence_challenges_the_dispute_and_keeps_the_evidence(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    advance(sandbox, 60)

    challenged = evidence(sandbox, opened.dispute_id, receipt="Receipt #1", customer_name="Ada")

    assert (
        challenged.status,
        challenged.evidence,
        challenged.evidence_submitted_at,
        challenged.updated_at,
    ) == (S.CHALLENGED, {"receipt": "Receipt #1", "customer_name": "Ada"}, at(60), at(60))
    assert stored(sandbox, opened.dispute_id) == challenged


def test_evidence_emits_dispute_challenged_holding_the_challenged_dispute(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)

    challenged = evidence(sandbox, opened.dispute_id)

    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened", "dispute_challenged"]
    event = events_of(sandbox, opened.dispute_id)[1]
    assert (event.content_type, event.resource) == (ContentType.DISPUTE_DETAILS, challenged)


def test_more_evidence_adds_to_what_was_submitted(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, receipt="Receipt #1", customer_name="Ada")
    advance(sandbox, 60)

    again = evidence(sandbox, opened.dispute_id, receipt="Receipt #2", shipping_carrier="Post")

    assert (again.status, again.evidence, again.evidence_submitted_at) == (
        S.CHALLENGED,
        {"receipt": "Receipt #2", "customer_name": "Ada", "shipping_carrier": "Post"},
        at(60),
    )


def test_more_evidence_emits_no_second_dispute_challenged(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id)

    evidence(sandbox, opened.dispute_id, customer_name="Ada")

    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened", "dispute_challenged"]


def test_every_evidence_field_of_the_real_service_is_kept(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    every = {field: f"{field} text" for field in EVIDENCE_FIELDS}

    assert evidence(sandbox, opened.dispute_id, **every).evidence == every


def test_evidence_without_a_decision_word_schedules_no_decision(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)

    evidence(sandbox, opened.dispute_id, uncategorized_text="We shipped it")

    assert timers(sandbox) == [(at(WEEK), DEADLINE_TIMER, opened.dispute_id)]


def test_evidence_without_a_decision_word_leaves_the_dispute_challenged_past_the_deadline(
    sandbox: Sandbox,
) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, uncategorized_text="We shipped it")

    advance(sandbox, 2 * WEEK)

    assert stored(sandbox, opened.dispute_id).status is S.CHALLENGED
    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened", "dispute_challenged"]


@pytest.mark.parametrize("text", ["winning_evidence", "losing_evidence"])
def test_decisive_evidence_schedules_the_decision_a_day_later(sandbox: Sandbox, text: str) -> None:
    opened = open_dispute(sandbox)
    advance(sandbox, 60)

    evidence(sandbox, opened.dispute_id, uncategorized_text=text)

    assert timers(sandbox) == [
        (at(60 + DAY), DECISION_TIMER, opened.dispute_id),
        (at(WEEK), DEADLINE_TIMER, opened.dispute_id),
    ]


@pytest.mark.parametrize("text", ["winning_evidence", "losing_evidence"])
def test_decisive_evidence_leaves_the_dispute_challenged_a_second_before_the_day(
    sandbox: Sandbox, text: str
) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, uncategorized_text=text)

    advance(sandbox, DAY - 1)

    assert stored(sandbox, opened.dispute_id).status is S.CHALLENGED


@pytest.mark.parametrize(
    ("text", "status", "event_type"),
    [
        ("winning_evidence", S.WON, "dispute_won"),
        ("losing_evidence", S.LOST, "dispute_lost"),
    ],
)
def test_decisive_evidence_decides_the_dispute_exactly_a_day_later(
    sandbox: Sandbox, text: str, status: DisputeStatus, event_type: str
) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, uncategorized_text=text)

    advance(sandbox, DAY)

    decided = stored(sandbox, opened.dispute_id)
    assert (decided.status, decided.updated_at) == (status, at(DAY))
    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened", "dispute_challenged", event_type]


@pytest.mark.parametrize(("text", "status"), [("winning_evidence", S.WON), ("losing_evidence", S.LOST)])
def test_the_decision_event_holds_the_decided_dispute_at_the_due_time(
    sandbox: Sandbox, text: str, status: DisputeStatus
) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, uncategorized_text=text)

    advance(sandbox, DAY)

    event = events_of(sandbox, opened.dispute_id)[-1]
    assert (event.content_type, event.created, event.resource) == (
        ContentType.DISPUTE_DETAILS,
        at(DAY),
        stored(sandbox, opened.dispute_id),
    )
    assert event.resource.status is status


def test_the_decision_word_may_stand_inside_any_evidence_text(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, customer_communication="Here is our winning_evidence, attached.")

    advance(sandbox, DAY)

    assert stored(sandbox, opened.dispute_id).status is S.WON


def test_a_decision_word_in_earlier_evidence_still_decides_after_more_evidence(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, uncategorized_text="losing_evidence")
    evidence(sandbox, opened.dispute_id, receipt="Receipt #1")

    advance(sandbox, DAY)

    assert stored(sandbox, opened.dispute_id).status is S.LOST


def test_decisive_evidence_on_the_last_day_decides_after_the_deadline(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    advance(sandbox, WEEK - 60)
    evidence(sandbox, opened.dispute_id, uncategorized_text="winning_evidence")

    advance(sandbox, DAY)

    assert stored(sandbox, opened.dispute_id).status is S.WON
    assert event_types_of(sandbox, opened.dispute_id) == [
        "dispute_opened",
        "dispute_challenged",
        "dispute_won",
    ]


@pytest.mark.parametrize("status", CLOSED)
def test_evidence_on_a_closed_dispute_is_HE_03(sandbox: Sandbox, status: DisputeStatus) -> None:
    closed = dispute_in(sandbox, status)

    error = raised_by(lambda: evidence(sandbox, closed.dispute_id))

    assert error_of(error) == (
        "HE_03",
        ErrorKind.INVALID,
        closed_message("given evidence", status.value),
        None,
    )


@pytest.mark.parametrize("status", CLOSED)
def test_refused_evidence_leaves_the_dispute_as_it_was(sandbox: Sandbox, status: DisputeStatus) -> None:
    closed = dispute_in(sandbox, status)

    raised_by(lambda: evidence(sandbox, closed.dispute_id, uncategorized_text="winning_evidence"))

    assert stored(sandbox, closed.dispute_id) == closed
    assert [t for t in timers(sandbox) if t[1] == DECISION_TIMER] == []


def test_evidence_on_an_unknown_dispute_is_HE_04(sandbox: Sandbox) -> None:
    error = raised_by(lambda: evidence(sandbox, "dp_missing"))

    assert error_of(error) == ("HE_04", ErrorKind.NOT_FOUND, NOT_FOUND, None)


def test_the_evidence_of_a_dispute_is_retrievable(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    challenged = evidence(sandbox, opened.dispute_id, receipt="Receipt #1")

    assert sandbox.disputes.evidence(MERCHANT_ID, opened.dispute_id) == challenged


def test_the_evidence_of_an_unknown_dispute_is_HE_04(sandbox: Sandbox) -> None:
    error = raised_by(lambda: sandbox.disputes.evidence(MERCHANT_ID, "dp_missing"))

    assert error_of(error) == ("HE_04", ErrorKind.NOT_FOUND, NOT_FOUND, None)


# -- delete evidence -------------------------------------------------------------------------------


def test_delete_evidence_removes_that_type_only(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, receipt="Receipt #1", customer_name="Ada")
    advance(sandbox, 60)

    remaining = sandbox.disputes.delete_evidence(MERCHANT_ID, opened.dispute_id, "receipt")

    assert (remaining.status, remaining.evidence, remaining.evidence_submitted_at, remaining.updated_at) == (
        S.CHALLENGED,
        {"customer_name": "Ada"},
        T0,
        at(60),
    )
    assert stored(sandbox, opened.dispute_id) == remaining


def test_delete_evidence_emits_no_event(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, receipt="Receipt #1")

    sandbox.disputes.delete_evidence(MERCHANT_ID, opened.dispute_id, "receipt")

    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened", "dispute_challenged"]


@pytest.mark.parametrize("status", OPEN)
def test_delete_evidence_of_a_type_not_submitted_is_IR_04(sandbox: Sandbox, status: DisputeStatus) -> None:
    dispute = dispute_in(sandbox, status)

    error = raised_by(
        lambda: sandbox.disputes.delete_evidence(MERCHANT_ID, dispute.dispute_id, "shipping_date")
    )

    assert error_of(error) == (
        "IR_04",
        ErrorKind.INVALID,
        "Invalid value provided: evidence_type: no evidence of this type was submitted",
        "evidence_type",
    )


@pytest.mark.parametrize("status", CLOSED)
def test_delete_evidence_of_a_closed_dispute_is_HE_03(sandbox: Sandbox, status: DisputeStatus) -> None:
    closed = dispute_in(sandbox, status)

    error = raised_by(lambda: sandbox.disputes.delete_evidence(MERCHANT_ID, closed.dispute_id, "receipt"))

    assert error_of(error) == (
        "HE_03",
        ErrorKind.INVALID,
        closed_message("given evidence", status.value),
        None,
    )


def test_delete_evidence_of_an_unknown_dispute_is_HE_04(sandbox: Sandbox) -> None:
    error = raised_by(lambda: sandbox.disputes.delete_evidence(MERCHANT_ID, "dp_missing", "receipt"))

    assert error_of(error) == ("HE_04", ErrorKind.NOT_FOUND, NOT_FOUND, None)


@pytest.mark.parametrize("text", ["winning_evidence", "losing_evidence"])
def test_deleting_the_decisive_evidence_cancels_the_decision(sandbox: Sandbox, text: str) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, uncategorized_text=text, receipt="Receipt #1")
    sandbox.disputes.delete_evidence(MERCHANT_ID, opened.dispute_id, "uncategorized_text")

    advance(sandbox, DAY)

    assert stored(sandbox, opened.dispute_id).status is S.CHALLENGED


# -- accept ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", OPEN)
def test_accept_of_an_open_dispute_accepts_it(sandbox: Sandbox, status: DisputeStatus) -> None:
    dispute = dispute_in(sandbox, status)
    advance(sandbox, 60)

    accepted = sandbox.disputes.accept(MERCHANT_ID, dispute.dispute_id)

    assert (accepted.status, accepted.updated_at) == (S.ACCEPTED, at(60))
    assert stored(sandbox, dispute.dispute_id) == accepted


def test_accept_emits_dispute_accepted_holding_the_accepted_dispute(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)

    accepted = sandbox.disputes.accept(MERCHANT_ID, opened.dispute_id)

    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened", "dispute_accepted"]
    event = events_of(sandbox, opened.dispute_id)[1]
    assert (event.content_type, event.resource) == (ContentType.DISPUTE_DETAILS, accepted)


def test_an_accepted_dispute_stays_accepted_when_its_decision_falls_due(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, uncategorized_text="winning_evidence")
    accepted = sandbox.disputes.accept(MERCHANT_ID, opened.dispute_id)

    advance(sandbox, DAY)

    assert stored(sandbox, opened.dispute_id) == accepted


@pytest.mark.parametrize("status", CLOSED)
def test_accept_of_a_closed_dispute_is_HE_03(sandbox: Sandbox, status: DisputeStatus) -> None:
    closed = dispute_in(sandbox, status)

    error = raised_by(lambda: sandbox.disputes.accept(MERCHANT_ID, closed.dispute_id))

    assert error_of(error) == ("HE_03", ErrorKind.INVALID, closed_message("accepted", status.value), None)


def test_accept_of_an_unknown_dispute_is_HE_04(sandbox: Sandbox) -> None:
    error = raised_by(lambda: sandbox.disputes.accept(MERCHANT_ID, "dp_missing"))

    assert error_of(error) == ("HE_04", ErrorKind.NOT_FOUND, NOT_FOUND, None)


# -- resolve by hand -------------------------------------------------------------------------------


@pytest.mark.parametrize("result", list(RESOLVED))
@pytest.mark.parametrize("status", OPEN)
def test_resolve_of_an_open_dispute_gives_the_result(
    sandbox: Sandbox, status: DisputeStatus, result: str
) -> None:
    dispute = dispute_in(sandbox, status)
    advance(sandbox, 60)

    resolved = sandbox.disputes.resolve(MERCHANT_ID, dispute.dispute_id, result)

    assert (resolved.status, resolved.updated_at) == (RESOLVED[result][0], at(60))
    assert stored(sandbox, dispute.dispute_id) == resolved


@pytest.mark.parametrize("result", list(RESOLVED))
def test_resolve_emits_the_results_event(sandbox: Sandbox, result: str) -> None:
    opened = open_dispute(sandbox)

    resolved = sandbox.disputes.resolve(MERCHANT_ID, opened.dispute_id, result)

    assert event_types_of(sandbox, opened.dispute_id) == ["dispute_opened", RESOLVED[result][1]]
    assert events_of(sandbox, opened.dispute_id)[1].resource == resolved


@pytest.mark.parametrize("result", list(RESOLVED))
@pytest.mark.parametrize("status", CLOSED)
def test_resolve_of_a_closed_dispute_is_HE_03(sandbox: Sandbox, status: DisputeStatus, result: str) -> None:
    closed = dispute_in(sandbox, status)

    error = raised_by(lambda: sandbox.disputes.resolve(MERCHANT_ID, closed.dispute_id, result))

    assert error_of(error) == (
        "HE_03",
        ErrorKind.INVALID,
        closed_message(RESOLVE_VERB[result], status.value),
        None,
    )


def test_resolve_of_an_unknown_dispute_is_HE_04(sandbox: Sandbox) -> None:
    error = raised_by(lambda: sandbox.disputes.resolve(MERCHANT_ID, "dp_missing", "won"))

    assert error_of(error) == ("HE_04", ErrorKind.NOT_FOUND, NOT_FOUND, None)


def test_a_dispute_resolved_by_hand_stays_resolved_when_its_decision_falls_due(sandbox: Sandbox) -> None:
    opened = open_dispute(sandbox)
    evidence(sandbox, opened.dispute_id, uncategorized_text="winning_evidence")
    lost = sandbox.disputes.resolve(MERCHANT_ID, opened.dispute_id, "lost")

    advance(sandbox, DAY)

    assert stored(sandbox, opened.dispute_id) == lost
    assert event_types_of(sandbox, opened.dispute_id) == [
        "dispute_opened",
        "dispute_challenged",
        "dispute_lost",
    ]


# -- retrieve --------------------------------------------------------------------------------------


def test_an_unknown_dispute_is_HE_04(sandbox: Sandbox) -> None:
    error = raised_by(lambda: sandbox.disputes.retrieve(MERCHANT_ID, "dp_missing"))

    assert error_of(error) == ("HE_04", ErrorKind.NOT_FOUND, NOT_FOUND, None)


def test_another_merchants_dispute_is_HE_04(sandbox: Sandbox) -> None:
    paid = pay_as_another_merchant(sandbox)
    dispute = sandbox.disputes.open(paid.merchant_id, paid.payment_id, None, None)

    error = raised_by(lambda: stored(sandbox, dispute.dispute_id))

    assert error.code == "HE_04"


# -- list ------------------------------------------------------------------------------------------


@pytest.fixture
def three_disputes(sandbox: Sandbox) -> list[str]:
    """Disputes a (on pay_1, at T0, challenged), b (on pay_2, at T0+60, reason duplicate) and c (on
    pay_1, at T0+120); returns their ids in that order."""
    pay(sandbox, payment_id="pay_1")
    pay(sandbox, payment_id="pay_2")
    a = open_dispute(sandbox, "pay_1", amount=100).dispute_id
    evidence(sandbox, a)
    advance(sandbox, 60)
    b = open_dispute(sandbox, "pay_2", reason="duplicate").dispute_id
    advance(sandbox, 60)
    c = open_dispute(sandbox, "pay_1", amount=200).dispute_id
    return [a, b, c]


def test_list_without_filters_gives_every_dispute_newest_first(
    sandbox: Sandbox, three_disputes: list[str]
) -> None:
    a, b, c = three_disputes

    assert listed(sandbox) == ([c, b, a], 3)


def test_list_returns_the_records(sandbox: Sandbox, three_disputes: list[str]) -> None:
    page = sandbox.disputes.list(MERCHANT_ID, Query.of())

    assert page.items == [stored(sandbox, dispute_id) for dispute_id in reversed(three_disputes)]


def test_list_of_a_merchant_without_disputes_is_empty(sandbox: Sandbox) -> None:
    assert listed(sandbox) == ([], 0)


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ({"status": "dispute_opened"}, "cb"),
        ({"status": "dispute_challenged"}, "a"),
        ({"status": "dispute_won"}, ""),
        ({"payment_id": "pay_1"}, "ca"),
        ({"payment_id": "pay_2"}, "b"),
        ({"payment_id": "pay_none"}, ""),
        ({"reason": "duplicate"}, "b"),
        ({"reason": "fraudulent"}, "ca"),
        ({"payment_id": "pay_1", "status": "dispute_opened"}, "c"),
    ],
    ids=lambda value: str(value),
)
def test_list_filters(
    sandbox: Sandbox, three_disputes: list[str], criteria: dict[str, str], expected: str
) -> None:
    ids = dict(zip("abc", three_disputes, strict=True))

    assert listed(sandbox, **criteria) == ([ids[name] for name in expected], len(expected))


def test_list_by_status_follows_a_dispute_that_expired_on_the_clock(
    sandbox: Sandbox, three_disputes: list[str]
) -> None:
    _, b, c = three_disputes

    advance(sandbox, WEEK)

    assert listed(sandbox, status="dispute_expired") == ([c, b], 2)


@pytest.mark.parametrize(
    ("limit", "offset", "expected"),
    [(1, 0, "c"), (2, 0, "cb"), (2, 1, "ba"), (2, 2, "a"), (10, 3, ""), (100, 0, "cba")],
)
def test_list_pages_with_limit_and_offset_keeping_the_total(
    sandbox: Sandbox, three_disputes: list[str], limit: int, offset: int, expected: str
) -> None:
    ids = dict(zip("abc", three_disputes, strict=True))

    assert listed(sandbox, limit=limit, offset=offset) == ([ids[name] for name in expected], 3)


def test_list_default_limit_is_ten(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    for _ in range(11):
        open_dispute(sandbox, paid.payment_id, amount=1)

    ids, total = listed(sandbox)

    assert (len(ids), total) == (10, 11)


@pytest.mark.usefixtures("three_disputes")
def test_list_of_another_merchant_does_not_show_these_disputes(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id

    assert listed(sandbox, other) == ([], 0)


def test_evidence_with_no_field_is_refused_and_leaves_the_dispute_open(sandbox: Sandbox) -> None:
    dispute = open_dispute(sandbox)

    error = raised_by(lambda: sandbox.disputes.submit_evidence(MERCHANT_ID, dispute.dispute_id, {}))

    assert error_of(error) == (
        "IR_04",
        ErrorKind.INVALID,
        "Missing required param: evidence: at least one evidence field",
        "evidence",
    )
    assert stored(sandbox, dispute.dispute_id).status is DisputeStatus.OPENED


def test_evidence_submitted_again_moves_the_decision_a_day_after_the_last(sandbox: Sandbox) -> None:
    dispute = open_dispute(sandbox)
    evidence(sandbox, dispute.dispute_id, uncategorized_text="winning_evidence")
    advance(sandbox, 12 * 3600)
    evidence(sandbox, dispute.dispute_id, receipt="Receipt #2")

    advance(sandbox, 12 * 3600)
    assert stored(sandbox, dispute.dispute_id).status is DisputeStatus.CHALLENGED

    advance(sandbox, 12 * 3600)
    assert stored(sandbox, dispute.dispute_id).status is DisputeStatus.WON
