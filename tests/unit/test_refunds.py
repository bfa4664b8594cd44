"""Refunds: the refund transition table pair by pair, and RefundService through the sandbox on the mock clock.

Decisions section 2 (error rows IR_12, IR_13, IR_14, HE_01, IR_05, HE_02), section 4 (refunds),
section 5 (card 4000000000005126: refunds go pending, then fail an hour later) and section 6 (events).
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import datetime
from enum import StrEnum
from typing import Any

import pytest

from mocksrv.domain.errors import (
    DomainError,
    DuplicateResource,
    ErrorKind,
    InvalidState,
    PaymentNotFound,
    ResourceNotFound,
)
from mocksrv.domain.events import ContentType
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.models import Payment
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.domain.refunds import (
    REFUND_TRANSITIONS,
    REFUNDS,
    Refund,
    RefundEvent,
    RefundStatus,
    RefundTooLarge,
    TooManyRefunds,
)
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.store import Query
from mocksrv.domain.transitions import action_of
from tests.payloads import MERCHANT_ID, PROFILE_ID, payment
from tests.unit.fakes import T0, at
from tests.unit.helpers import advance, event_types_of, events_of
from tests.unit.test_payments_service import SEVEN_DAYS, payment_in

R = RefundStatus
E = RefundEvent
HOUR = 3600
REFUND_FAILS_CARD = "4000000000005126"
REFUNDABLE_STATES = (
    "succeeded, partially_captured, partially_captured_and_capturable, expired with a part captured"
)
SETTLEABLE_STATES = "pending, review"
FAILED_CODE = "refund_failed"
FAILED_MESSAGE = "The refund was declined by the processor"

# Every allowed (state, event) pair, written out from decisions sections 4 and 6.
ALLOWED: dict[tuple[RefundStatus, RefundEvent], tuple[RefundStatus, str]] = {
    (R.PENDING, E.SUCCEED): (R.SUCCEEDED, "refund_succeeded"),
    (R.PENDING, E.FAIL): (R.FAILED, "refund_failed"),
    (R.REVIEW, E.SUCCEED): (R.SUCCEEDED, "refund_succeeded"),
    (R.REVIEW, E.FAIL): (R.FAILED, "refund_failed"),
}
ALL_PAIRS = list(itertools.product(RefundStatus, RefundEvent))
REFUSED = [pair for pair in ALL_PAIRS if pair not in ALLOWED]

# The payment states a refund may be made from, with what a 1000 payment has received there.
REFUNDABLE_RECEIVED = {
    PaymentStatus.SUCCEEDED: 1000,
    PaymentStatus.PARTIALLY_CAPTURED: 400,
    PaymentStatus.PARTIALLY_CAPTURED_AND_CAPTURABLE: 400,
}
NOT_REFUNDABLE = [
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


def _pair_id(pair: tuple[StrEnum, StrEnum]) -> str:
    return f"{pair[0].value}--{pair[1].value}"


# -- helpers ---------------------------------------------------------------------------------------


def pay(sandbox: Sandbox, number: str = "4242424242424242", **overrides: Any) -> Payment:
    return sandbox.payments.create(MERCHANT_ID, payment(number, **overrides))


def refund(sandbox: Sandbox, payment_id: str, **fields: Any) -> Refund:
    return sandbox.refunds.create(MERCHANT_ID, {"payment_id": payment_id, **fields})


def refused(sandbox: Sandbox, payment_id: str, **fields: Any) -> DomainError:
    """The error a create raises; the test fails if it does not raise one."""
    with pytest.raises(DomainError) as raised:
        refund(sandbox, payment_id, **fields)
    return raised.value


def stored(sandbox: Sandbox, refund_id: str) -> Refund:
    return sandbox.refunds.retrieve(MERCHANT_ID, refund_id)


def received(sandbox: Sandbox, payment_id: str) -> Payment:
    return sandbox.payments.retrieve(MERCHANT_ID, payment_id)


def refund_count(sandbox: Sandbox) -> int:
    return sandbox.store.count(REFUNDS, MERCHANT_ID)


def listed(sandbox: Sandbox, **criteria: Any) -> tuple[list[str], int]:
    """The ids a list returns, in order, and its total count."""
    page = sandbox.refunds.list(MERCHANT_ID, Query.of(**criteria))
    return [r.refund_id for r in page.items], page.total_count


def not_refundable_message(status: str) -> str:
    return (
        f"This Payment could not be refunded because it has a status of {status}. "
        f"The expected state is {REFUNDABLE_STATES}"
    )


def not_settleable_message(status: str) -> str:
    return (
        f"This Refund could not be settled because it has a status of {status}. "
        f"The expected state is {SETTLEABLE_STATES}"
    )


def too_large_message(refundable: int) -> str:
    return f"The refund amount exceeds the amount captured: at most {refundable} can be refunded"


# -- the transition table ----------------------------------------------------------------------------


def test_the_statuses_are_those_of_the_decisions() -> None:
    assert [s.value for s in RefundStatus] == ["pending", "succeeded", "failed", "review"]


@pytest.mark.parametrize("pair", REFUSED, ids=_pair_id)
def test_refused_pair_raises_IR_14_naming_the_settleable_states(
    pair: tuple[RefundStatus, RefundEvent],
) -> None:
    status, event = pair
    with pytest.raises(InvalidState) as raised:
        REFUND_TRANSITIONS.require(status, event)
    assert (raised.value.code, raised.value.kind) == ("IR_14", ErrorKind.STATE)
    assert raised.value.message == not_settleable_message(status.value)


@pytest.mark.parametrize("status", [R.SUCCEEDED, R.FAILED])
def test_final_refund_state_allows_no_event(status: RefundStatus) -> None:
    assert REFUND_TRANSITIONS.allowed_events(status) == []


def test_every_refund_event_belongs_to_the_settle_action() -> None:
    assert {action_of(event) for event in RefundEvent} == {"settle"}


# -- create: amounts ---------------------------------------------------------------------------------


def test_a_refund_without_amount_refunds_everything_received(sandbox: Sandbox) -> None:
    paid = pay(sandbox, amount=1234)

    assert refund(sandbox, paid.payment_id).amount == 1234


def test_a_refund_without_amount_after_a_partial_one_refunds_the_remainder(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    refund(sandbox, paid.payment_id, amount=300)

    assert refund(sandbox, paid.payment_id).amount == 700


@pytest.mark.parametrize("status", list(REFUNDABLE_RECEIVED), ids=str)
def test_a_refund_is_allowed_from_a_refundable_status_up_to_what_was_received(
    sandbox: Sandbox, status: PaymentStatus
) -> None:
    paid = payment_in(sandbox, status)

    created = refund(sandbox, paid.payment_id)

    assert (created.status, created.amount) == (R.SUCCEEDED, REFUNDABLE_RECEIVED[status])


def test_a_payment_that_expired_after_a_partial_capture_refunds_what_was_captured(sandbox: Sandbox) -> None:
    captured = payment_in(sandbox, PaymentStatus.PARTIALLY_CAPTURED_AND_CAPTURABLE)
    advance(sandbox, SEVEN_DAYS)
    assert received(sandbox, captured.payment_id).status is PaymentStatus.EXPIRED

    too_much = refused(sandbox, captured.payment_id, amount=401)
    created = refund(sandbox, captured.payment_id)

    assert (too_much.code, too_much.message) == (
        "IR_13",
        "The refund amount exceeds the amount captured: at most 400 can be refunded",
    )
    assert (created.status, created.amount) == (R.SUCCEEDED, 400)
    after = received(sandbox, captured.payment_id)
    assert (after.status, after.amount_received, after.amount_refunded) == (PaymentStatus.EXPIRED, 400, 400)


def test_partial_refunds_add_up_to_exactly_what_was_received(sandbox: Sandbox) -> None:
    paid = pay(sandbox)

    amounts = [refund(sandbox, paid.payment_id, amount=a).amount for a in (100, 250, 650)]

    assert amounts == [100, 250, 650]
    assert received(sandbox, paid.payment_id).amount_refunded == 1000


def test_a_refund_over_what_was_received_is_IR_13(sandbox: Sandbox) -> None:
    paid = pay(sandbox)

    error = refused(sandbox, paid.payment_id, amount=1001)

    assert isinstance(error, RefundTooLarge)
    assert (error.code, error.kind, error.param) == ("IR_13", ErrorKind.INVALID, "amount")
    assert error.message == too_large_message(1000)


def test_a_refund_over_what_remains_after_partial_refunds_is_IR_13_naming_the_remainder(
    sandbox: Sandbox,
) -> None:
    paid = pay(sandbox)
    refund(sandbox, paid.payment_id, amount=600)

    error = refused(sandbox, paid.payment_id, amount=401)

    assert (error.code, error.param, error.message) == ("IR_13", "amount", too_large_message(400))


def test_a_refund_of_a_partial_capture_over_the_captured_amount_is_IR_13(sandbox: Sandbox) -> None:
    paid = payment_in(sandbox, PaymentStatus.PARTIALLY_CAPTURED)

    error = refused(sandbox, paid.payment_id, amount=401)

    assert (error.code, error.param, error.message) == ("IR_13", "amount", too_large_message(400))


def test_a_refund_without_amount_of_a_fully_refunded_payment_is_IR_13(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    refund(sandbox, paid.payment_id)

    error = refused(sandbox, paid.payment_id)

    assert (error.code, error.param, error.message) == ("IR_13", "amount", too_large_message(0))


def test_a_pending_refund_holds_its_amount(sandbox: Sandbox) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD)
    refund(sandbox, paid.payment_id, amount=600)

    error = refused(sandbox, paid.payment_id, amount=401)

    assert (error.code, error.message) == ("IR_13", too_large_message(400))


def test_a_failed_refund_does_not_count_against_what_is_refundable(sandbox: Sandbox) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD)
    refund(sandbox, paid.payment_id)
    advance(sandbox, HOUR)

    again = refund(sandbox, paid.payment_id)

    assert again.amount == 1000


def test_a_refund_failed_by_hand_does_not_count_against_what_is_refundable(sandbox: Sandbox) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD)
    pending = refund(sandbox, paid.payment_id, amount=1000)
    sandbox.refunds.settle(MERCHANT_ID, pending.refund_id, succeeded=False)

    assert refund(sandbox, paid.payment_id, amount=1000).amount == 1000


# -- create: counts, ids, payments -------------------------------------------------------------------


def test_ten_refunds_of_one_payment_are_allowed(sandbox: Sandbox) -> None:
    paid = pay(sandbox, amount=10_000)

    created = [refund(sandbox, paid.payment_id, amount=100) for _ in range(10)]

    assert [r.status for r in created] == [R.SUCCEEDED] * 10


def test_the_eleventh_refund_of_one_payment_is_IR_12(sandbox: Sandbox) -> None:
    paid = pay(sandbox, amount=10_000)
    for _ in range(10):
        refund(sandbox, paid.payment_id, amount=100)

    error = refused(sandbox, paid.payment_id, amount=100)

    assert isinstance(error, TooManyRefunds)
    assert (error.code, error.kind, error.param) == ("IR_12", ErrorKind.INVALID, None)
    assert error.message == "Reached maximum refund attempts (10 per payment)"


def test_failed_refunds_count_as_attempts_towards_IR_12(sandbox: Sandbox) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD, amount=10_000)
    for _ in range(10):
        sandbox.refunds.settle(MERCHANT_ID, refund(sandbox, paid.payment_id).refund_id, succeeded=False)

    assert refused(sandbox, paid.payment_id).code == "IR_12"


def test_the_refund_limit_is_per_payment(sandbox: Sandbox) -> None:
    first = pay(sandbox, amount=10_000)
    for _ in range(10):
        refund(sandbox, first.payment_id, amount=100)
    second = pay(sandbox)

    assert refund(sandbox, second.payment_id).status is R.SUCCEEDED


def test_a_refund_id_given_is_kept(sandbox: Sandbox) -> None:
    paid = pay(sandbox)

    assert refund(sandbox, paid.payment_id, refund_id="ref_mine").refund_id == "ref_mine"


def test_a_refund_without_refund_id_gets_a_generated_one(sandbox: Sandbox) -> None:
    paid = pay(sandbox)

    refund_id = refund(sandbox, paid.payment_id, amount=100).refund_id

    assert refund_id.startswith("ref_")
    assert len(refund_id) == 30  # as the real service writes a refund id
    assert refund_id[4:].isalnum()


def test_a_repeated_refund_id_is_HE_01(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    refund(sandbox, paid.payment_id, refund_id="ref_1", amount=100)

    error = refused(sandbox, paid.payment_id, refund_id="ref_1", amount=100)

    assert isinstance(error, DuplicateResource)
    assert (error.code, error.kind, error.param) == ("HE_01", ErrorKind.INVALID, "refund_id")
    assert error.message == "The refund with the specified refund_id already exists in our records"


def test_a_repeated_refund_id_leaves_the_first_refund_as_it_was(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    first = refund(sandbox, paid.payment_id, refund_id="ref_1", amount=100)

    refused(sandbox, paid.payment_id, refund_id="ref_1", amount=200, reason="again")

    assert stored(sandbox, "ref_1") == first
    assert received(sandbox, paid.payment_id).amount_refunded == 100


def test_a_refund_id_used_on_another_payment_is_HE_01(sandbox: Sandbox) -> None:
    refund(sandbox, pay(sandbox).payment_id, refund_id="ref_1")

    assert refused(sandbox, pay(sandbox).payment_id, refund_id="ref_1").code == "HE_01"


def test_a_refund_of_an_unknown_payment_is_IR_05(sandbox: Sandbox) -> None:
    error = refused(sandbox, "pay_unknown")

    assert isinstance(error, PaymentNotFound)
    assert (error.code, error.kind, error.message) == ("IR_05", ErrorKind.NOT_FOUND, "Payment not found")


def test_a_refund_of_another_merchants_payment_is_IR_05(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id

    with pytest.raises(PaymentNotFound):
        sandbox.refunds.create(other, {"payment_id": paid.payment_id})


@pytest.mark.parametrize("status", NOT_REFUNDABLE, ids=str)
def test_a_refund_of_a_payment_in_a_non_refundable_status_is_IR_14(
    sandbox: Sandbox, status: PaymentStatus
) -> None:
    paid = payment_in(sandbox, status)

    error = refused(sandbox, paid.payment_id)

    assert isinstance(error, InvalidState)
    assert (error.code, error.kind, error.param) == ("IR_14", ErrorKind.STATE, None)
    assert error.message == not_refundable_message(status.value)


# -- nothing stored after a refusal ------------------------------------------------------------------

REFUSALS: dict[str, dict[str, Any]] = {
    "IR_13": {"amount": 1001},
    "IR_05": {"payment_id": "pay_unknown"},
}


@pytest.mark.parametrize("code", list(REFUSALS))
def test_a_refused_create_stores_no_refund(sandbox: Sandbox, code: str) -> None:
    paid = pay(sandbox)

    error = refused(sandbox, **{"payment_id": paid.payment_id, "refund_id": "ref_refused", **REFUSALS[code]})

    assert error.code == code
    assert refund_count(sandbox) == 0


@pytest.mark.parametrize("code", list(REFUSALS))
def test_a_refused_create_emits_no_event_and_sets_no_timer(sandbox: Sandbox, code: str) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD)
    before = list(sandbox.store.events(MERCHANT_ID))

    refused(sandbox, **{"payment_id": paid.payment_id, **REFUSALS[code]})

    assert sandbox.store.events(MERCHANT_ID) == before
    assert sandbox.store.pending_timers(MERCHANT_ID) == []


def test_a_refused_create_leaves_the_payments_refunded_amount_alone(sandbox: Sandbox) -> None:
    paid = pay(sandbox)

    refused(sandbox, paid.payment_id, amount=1001)

    assert received(sandbox, paid.payment_id) == paid


def test_a_refund_id_of_a_refused_create_can_be_used_again(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    refused(sandbox, paid.payment_id, refund_id="ref_1", amount=1001)

    assert refund(sandbox, paid.payment_id, refund_id="ref_1").amount == 1000


def test_a_non_refundable_payment_stores_no_refund(sandbox: Sandbox) -> None:
    paid = payment_in(sandbox, PaymentStatus.REQUIRES_CAPTURE)

    refused(sandbox, paid.payment_id)

    assert refund_count(sandbox) == 0


def test_the_eleventh_refund_is_not_stored(sandbox: Sandbox) -> None:
    paid = pay(sandbox, amount=10_000)
    for _ in range(10):
        refund(sandbox, paid.payment_id, amount=100)

    refused(sandbox, paid.payment_id, amount=100)

    assert refund_count(sandbox) == 10
    assert received(sandbox, paid.payment_id).amount_refunded == 1000


# -- the record --------------------------------------------------------------------------------------


def test_a_refund_records_every_field_given_and_the_payments(sandbox: Sandbox) -> None:
    paid = pay(sandbox, currency="EUR")
    advance(sandbox, 5)

    created = refund(
        sandbox,
        paid.payment_id,
        refund_id="ref_1",
        amount=250,
        reason="Customer returned the goods",
        refund_type="Instant",
        metadata={"order_id": "ord_1"},
    )

    assert created == Refund(
        refund_id="ref_1",
        payment_id=paid.payment_id,
        merchant_id=MERCHANT_ID,
        profile_id=PROFILE_ID,
        amount=250,
        currency="EUR",
        status=R.SUCCEEDED,
        created=at(5),
        updated_at=at(5),
        planned_result=E.SUCCEED,
        reason="Customer returned the goods",
        refund_type="Instant",
        metadata={"order_id": "ord_1"},
        error_code=None,
        error_message=None,
    )


def test_a_refund_is_retrievable_as_created(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox).payment_id, amount=100)

    assert stored(sandbox, created.refund_id) == created


def test_an_unknown_refund_is_HE_02(sandbox: Sandbox) -> None:
    with pytest.raises(ResourceNotFound) as raised:
        sandbox.refunds.retrieve(MERCHANT_ID, "ref_unknown")
    assert (raised.value.code, raised.value.kind) == ("HE_02", ErrorKind.NOT_FOUND)
    assert raised.value.message == "Refund does not exist in our records"


def test_another_merchants_refund_is_HE_02(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox).payment_id)

    with pytest.raises(ResourceNotFound):
        sandbox.refunds.retrieve("merchant_nobody", created.refund_id)


# -- the refunded amount on the payment --------------------------------------------------------------


def test_a_succeeded_refund_adds_to_the_payments_refunded_amount(sandbox: Sandbox) -> None:
    paid = pay(sandbox)

    refund(sandbox, paid.payment_id, amount=300)

    assert received(sandbox, paid.payment_id).amount_refunded == 300


def test_each_succeeded_refund_adds_to_the_refunded_amount(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    refund(sandbox, paid.payment_id, amount=300)

    refund(sandbox, paid.payment_id, amount=200)

    assert received(sandbox, paid.payment_id).amount_refunded == 500


def test_a_pending_refund_adds_nothing_to_the_refunded_amount(sandbox: Sandbox) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD)

    refund(sandbox, paid.payment_id, amount=300)

    assert received(sandbox, paid.payment_id).amount_refunded == 0


def test_a_failed_refund_adds_nothing_to_the_refunded_amount(sandbox: Sandbox) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD)
    refund(sandbox, paid.payment_id, amount=300)

    advance(sandbox, HOUR)

    assert received(sandbox, paid.payment_id).amount_refunded == 0


def test_a_pending_refund_settled_succeeded_by_hand_adds_to_the_refunded_amount(sandbox: Sandbox) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD)
    pending = refund(sandbox, paid.payment_id, amount=300)

    sandbox.refunds.settle(MERCHANT_ID, pending.refund_id, succeeded=True)

    assert received(sandbox, paid.payment_id).amount_refunded == 300


def test_a_full_refund_leaves_the_payment_succeeded(sandbox: Sandbox) -> None:
    paid = pay(sandbox)

    refund(sandbox, paid.payment_id)

    assert received(sandbox, paid.payment_id).status is PaymentStatus.SUCCEEDED


# -- card 4000000000005126: pending, then failed on the clock ----------------------------------------


def test_a_refund_of_the_refund_failure_card_is_pending(sandbox: Sandbox) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD)

    created = refund(sandbox, paid.payment_id)

    assert (created.status, created.error_code, created.error_message) == (R.PENDING, None, None)


def test_a_refund_of_the_refund_failure_card_is_still_pending_at_3599_seconds(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)

    advance(sandbox, HOUR - 1)

    assert stored(sandbox, created.refund_id).status is R.PENDING


def test_a_refund_of_the_refund_failure_card_fails_at_exactly_3600_seconds(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)

    advance(sandbox, HOUR)

    assert stored(sandbox, created.refund_id) == replace(
        created,
        status=R.FAILED,
        updated_at=at(HOUR),
        error_code=FAILED_CODE,
        error_message=FAILED_MESSAGE,
    )


def test_a_refund_of_the_refund_failure_card_fails_when_the_hour_passes_in_two_steps(
    sandbox: Sandbox,
) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)
    advance(sandbox, HOUR - 1)

    advance(sandbox, 1)

    assert stored(sandbox, created.refund_id).status is R.FAILED


def test_the_failure_is_an_hour_after_the_refund_not_after_the_payment(sandbox: Sandbox) -> None:
    paid = pay(sandbox, REFUND_FAILS_CARD)
    advance(sandbox, 600)
    created = refund(sandbox, paid.payment_id)

    advance(sandbox, HOUR - 1)

    assert stored(sandbox, created.refund_id).status is R.PENDING


def test_a_refund_of_the_refund_failure_card_schedules_one_timer_an_hour_later(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)

    timers = sandbox.store.pending_timers(MERCHANT_ID)

    assert [(t.due_at, t.kind, t.target_id) for t in timers] == [
        (at(HOUR), "refund.settle", created.refund_id)
    ]


def test_a_refund_of_an_ordinary_payment_sets_no_timer(sandbox: Sandbox) -> None:
    refund(sandbox, pay(sandbox).payment_id)

    assert sandbox.store.pending_timers(MERCHANT_ID) == []


def test_a_refund_settled_by_hand_stays_settled_when_its_timer_falls_due(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)
    settled = sandbox.refunds.settle(MERCHANT_ID, created.refund_id, succeeded=True)

    advance(sandbox, HOUR)

    assert stored(sandbox, created.refund_id) == settled
    assert event_types_of(sandbox, created.refund_id) == ["refund_succeeded"]


# -- events ------------------------------------------------------------------------------------------


def test_a_succeeded_refund_appends_one_refund_succeeded_event(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox).payment_id)

    assert [(e.event_type, e.content_type) for e in events_of(sandbox, created.refund_id)] == [
        ("refund_succeeded", ContentType.REFUND_DETAILS)
    ]


def test_the_refund_succeeded_event_holds_the_refund_as_created(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox).payment_id)

    (event,) = events_of(sandbox, created.refund_id)

    assert (event.merchant_id, event.created, event.resource) == (MERCHANT_ID, T0, created)


def test_a_pending_refund_appends_no_event(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)

    assert events_of(sandbox, created.refund_id) == []


def test_a_failed_refund_appends_one_refund_failed_event_when_the_hour_passes(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)

    advance(sandbox, HOUR)

    assert [(e.event_type, e.content_type) for e in events_of(sandbox, created.refund_id)] == [
        ("refund_failed", ContentType.REFUND_DETAILS)
    ]


def test_the_refund_failed_event_holds_the_failed_refund_at_the_due_time(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)

    advance(sandbox, HOUR)

    (event,) = events_of(sandbox, created.refund_id)
    assert (event.created, event.resource) == (at(HOUR), stored(sandbox, created.refund_id))


def test_advancing_further_appends_no_second_refund_failed_event(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)
    advance(sandbox, HOUR)

    advance(sandbox, 7 * 24 * HOUR)

    assert event_types_of(sandbox, created.refund_id) == ["refund_failed"]


def test_a_refund_emits_no_payment_event(sandbox: Sandbox) -> None:
    paid = pay(sandbox)

    refund(sandbox, paid.payment_id)

    assert event_types_of(sandbox, paid.payment_id) == ["payment_succeeded"]


def test_refund_events_are_appended_in_the_order_the_refunds_settled(sandbox: Sandbox) -> None:
    paid = pay(sandbox)
    first = refund(sandbox, paid.payment_id, amount=100)
    second = refund(sandbox, paid.payment_id, amount=100)

    refund_events = [
        e.object_id for e in sandbox.store.events(MERCHANT_ID) if e.event_type.startswith("refund")
    ]

    assert refund_events == [first.refund_id, second.refund_id]


# -- update ------------------------------------------------------------------------------------------


def test_update_changes_the_reason(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox).payment_id, reason="first")
    advance(sandbox, 30)

    updated = sandbox.refunds.update(MERCHANT_ID, created.refund_id, {"reason": "second"})

    assert updated == replace(created, reason="second", updated_at=at(30))
    assert stored(sandbox, created.refund_id) == updated


def test_update_replaces_the_metadata(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox).payment_id, metadata={"a": "1", "b": "2"})
    advance(sandbox, 30)

    updated = sandbox.refunds.update(MERCHANT_ID, created.refund_id, {"metadata": {"c": "3"}})

    assert updated == replace(created, metadata={"c": "3"}, updated_at=at(30))


def test_update_leaves_a_field_not_sent_alone(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox).payment_id, reason="kept", metadata={"a": "1"})

    updated = sandbox.refunds.update(MERCHANT_ID, created.refund_id, {"metadata": {"b": "2"}})

    assert (updated.reason, updated.metadata) == ("kept", {"b": "2"})


def test_update_of_a_pending_refund_keeps_it_pending_and_its_timer(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)
    sandbox.refunds.update(MERCHANT_ID, created.refund_id, {"reason": "late"})

    advance(sandbox, HOUR)

    assert (stored(sandbox, created.refund_id).status, stored(sandbox, created.refund_id).reason) == (
        R.FAILED,
        "late",
    )


def test_update_emits_no_event(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox).payment_id)

    sandbox.refunds.update(MERCHANT_ID, created.refund_id, {"reason": "changed"})

    assert event_types_of(sandbox, created.refund_id) == ["refund_succeeded"]


def test_update_of_an_unknown_refund_is_HE_02(sandbox: Sandbox) -> None:
    with pytest.raises(ResourceNotFound) as raised:
        sandbox.refunds.update(MERCHANT_ID, "ref_unknown", {"reason": "x"})
    assert raised.value.message == "Refund does not exist in our records"


# -- settle by hand ----------------------------------------------------------------------------------


def test_a_pending_refund_settled_succeeded_by_hand_succeeds(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)
    advance(sandbox, 60)

    settled = sandbox.refunds.settle(MERCHANT_ID, created.refund_id, succeeded=True)

    assert settled == replace(created, status=R.SUCCEEDED, updated_at=at(60))
    assert event_types_of(sandbox, created.refund_id) == ["refund_succeeded"]


def test_a_pending_refund_settled_failed_by_hand_fails(sandbox: Sandbox) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)
    advance(sandbox, 60)

    settled = sandbox.refunds.settle(MERCHANT_ID, created.refund_id, succeeded=False)

    assert settled == replace(
        created, status=R.FAILED, updated_at=at(60), error_code=FAILED_CODE, error_message=FAILED_MESSAGE
    )
    assert event_types_of(sandbox, created.refund_id) == ["refund_failed"]


@pytest.mark.parametrize("succeeded", [True, False], ids=["succeeded", "failed"])
def test_a_refund_in_review_can_be_settled_by_hand(sandbox: Sandbox, succeeded: bool) -> None:
    created = refund(sandbox, pay(sandbox, REFUND_FAILS_CARD).payment_id)
    sandbox.store.put(REFUNDS, MERCHANT_ID, replace(created, status=R.REVIEW))

    settled = sandbox.refunds.settle(MERCHANT_ID, created.refund_id, succeeded=succeeded)

    assert settled.status is (R.SUCCEEDED if succeeded else R.FAILED)


@pytest.mark.parametrize(
    ("number", "then_hour", "status"),
    [
        ("4242424242424242", False, "succeeded"),
        (REFUND_FAILS_CARD, True, "failed"),
    ],
    ids=["succeeded", "failed"],
)
@pytest.mark.parametrize("succeeded", [True, False], ids=["to-succeeded", "to-failed"])
def test_a_settled_refund_cannot_be_settled_again_by_hand(
    sandbox: Sandbox, number: str, then_hour: bool, status: str, succeeded: bool
) -> None:
    created = refund(sandbox, pay(sandbox, number).payment_id)
    if then_hour:
        advance(sandbox, HOUR)
    before = stored(sandbox, created.refund_id)

    with pytest.raises(InvalidState) as raised:
        sandbox.refunds.settle(MERCHANT_ID, created.refund_id, succeeded=succeeded)

    assert (raised.value.code, raised.value.kind) == ("IR_14", ErrorKind.STATE)
    assert raised.value.message == not_settleable_message(status)
    assert stored(sandbox, created.refund_id) == before
    assert len(events_of(sandbox, created.refund_id)) == 1


def test_settling_an_unknown_refund_is_HE_02(sandbox: Sandbox) -> None:
    with pytest.raises(ResourceNotFound):
        sandbox.refunds.settle(MERCHANT_ID, "ref_unknown", succeeded=True)


# -- list --------------------------------------------------------------------------------------------


@pytest.fixture
def three_refunds(sandbox: Sandbox) -> dict[str, Refund]:
    """Refunds at T0 (succeeded, pay_a), T0+60 (succeeded, pay_b) and T0+120 (pending, pay_c)."""
    pay(sandbox, payment_id="pay_a")
    pay(sandbox, payment_id="pay_b")
    pay(sandbox, REFUND_FAILS_CARD, payment_id="pay_c")
    first = refund(sandbox, "pay_a", refund_id="ref_a", amount=100)
    advance(sandbox, 60)
    second = refund(sandbox, "pay_b", refund_id="ref_b", amount=100)
    advance(sandbox, 60)
    third = refund(sandbox, "pay_c", refund_id="ref_c", amount=100)
    return {"ref_a": first, "ref_b": second, "ref_c": third}


@pytest.mark.usefixtures("three_refunds")
def test_list_without_filters_gives_every_refund_newest_first(sandbox: Sandbox) -> None:
    assert listed(sandbox) == (["ref_c", "ref_b", "ref_a"], 3)


def test_list_returns_the_records(sandbox: Sandbox, three_refunds: dict[str, Refund]) -> None:
    page = sandbox.refunds.list(MERCHANT_ID, Query.of())

    assert page.items == [three_refunds["ref_c"], three_refunds["ref_b"], three_refunds["ref_a"]]


def test_list_of_a_merchant_without_refunds_is_empty(sandbox: Sandbox) -> None:
    assert listed(sandbox) == ([], 0)


@pytest.mark.usefixtures("three_refunds")
def test_list_filters_by_payment_id(sandbox: Sandbox) -> None:
    refund(sandbox, "pay_a", refund_id="ref_a2", amount=100)

    assert listed(sandbox, payment_id="pay_a") == (["ref_a2", "ref_a"], 2)


@pytest.mark.usefixtures("three_refunds")
def test_list_by_a_payment_without_refunds_is_empty(sandbox: Sandbox) -> None:
    assert listed(sandbox, payment_id="pay_unknown") == ([], 0)


@pytest.mark.parametrize(
    ("status", "expected"),
    [("succeeded", ["ref_b", "ref_a"]), ("pending", ["ref_c"]), ("failed", []), ("review", [])],
)
@pytest.mark.usefixtures("three_refunds")
def test_list_filters_by_status(sandbox: Sandbox, status: str, expected: list[str]) -> None:
    assert listed(sandbox, status=status) == (expected, len(expected))


@pytest.mark.parametrize(("status", "expected"), [("pending", []), ("failed", ["ref_c"])])
@pytest.mark.usefixtures("three_refunds")
def test_list_by_status_follows_a_refund_that_failed_on_the_clock(
    sandbox: Sandbox, status: str, expected: list[str]
) -> None:
    advance(sandbox, HOUR)

    assert listed(sandbox, status=status) == (expected, len(expected))


@pytest.mark.parametrize(
    ("payment_id", "status", "expected"),
    [("pay_a", "succeeded", ["ref_a"]), ("pay_a", "pending", []), ("pay_c", "pending", ["ref_c"])],
)
@pytest.mark.usefixtures("three_refunds")
def test_list_filters_by_payment_id_and_status_together(
    sandbox: Sandbox, payment_id: str, status: str, expected: list[str]
) -> None:
    assert listed(sandbox, payment_id=payment_id, status=status) == (expected, len(expected))


@pytest.mark.parametrize(
    ("bounds", "expected"),
    [
        ({"created_gte": at(60)}, ["ref_c", "ref_b"]),
        ({"created_gte": at(61)}, ["ref_c"]),
        ({"created_lte": at(60)}, ["ref_b", "ref_a"]),
        ({"created_lte": at(59)}, ["ref_a"]),
        ({"created_gte": at(60), "created_lte": at(60)}, ["ref_b"]),
        ({"created_gte": at(0), "created_lte": at(120)}, ["ref_c", "ref_b", "ref_a"]),
        ({"created_gte": at(121)}, []),
        ({"created_gte": at(100), "created_lte": at(20)}, []),
    ],
    ids=[
        "gte-inclusive",
        "gte-after",
        "lte-inclusive",
        "lte-before",
        "gte-equals-lte",
        "whole-range",
        "gte-after-all",
        "empty-range",
    ],
)
@pytest.mark.usefixtures("three_refunds")
def test_list_filters_by_created_bounds(
    sandbox: Sandbox, bounds: dict[str, datetime], expected: list[str]
) -> None:
    assert listed(sandbox, **bounds) == (expected, len(expected))


@pytest.mark.parametrize(
    ("limit", "offset", "expected"),
    [
        (1, 0, ["ref_c"]),
        (2, 0, ["ref_c", "ref_b"]),
        (2, 1, ["ref_b", "ref_a"]),
        (2, 2, ["ref_a"]),
        (10, 3, []),
        (100, 0, ["ref_c", "ref_b", "ref_a"]),
    ],
)
@pytest.mark.usefixtures("three_refunds")
def test_list_pages_with_limit_and_offset_keeping_the_total(
    sandbox: Sandbox, limit: int, offset: int, expected: list[str]
) -> None:
    assert listed(sandbox, limit=limit, offset=offset) == (expected, 3)


@pytest.mark.usefixtures("three_refunds")
def test_list_pages_within_a_filter(sandbox: Sandbox) -> None:
    assert listed(sandbox, status="succeeded", limit=1, offset=1) == (["ref_a"], 2)


def test_list_default_limit_is_ten(sandbox: Sandbox) -> None:
    paid = pay(sandbox, amount=10_000)
    for _ in range(10):
        refund(sandbox, paid.payment_id, amount=100)
    refund(sandbox, pay(sandbox).payment_id, amount=100)

    ids, total = listed(sandbox)

    assert (len(ids), total) == (10, 11)


@pytest.mark.usefixtures("three_refunds")
def test_list_of_another_merchant_does_not_show_these_refunds(sandbox: Sandbox) -> None:
    page = sandbox.refunds.list("merchant_nobody", Query.of())

    assert (page.items, page.total_count) == ([], 0)
