"""Payouts: the payout transition table pair by pair, and PayoutService through the sandbox on the mock clock.

Decisions section 2 (error rows IR_04, IR_14, HE_01, HE_02), section 4 (payouts: create, update and
cancel before fulfilment, fulfil gives `pending`, then `success`/`failed` an hour later), section 5
(the closed bank account 000111111116, rule "payout to a closed bank account" of
fixtures/outcomes.yaml) and section 6 (payout events).
"""

from __future__ import annotations

import itertools
from datetime import datetime
from enum import StrEnum
from typing import Any

import pytest

from mocksrv.domain.errors import ErrorKind, InvalidState
from mocksrv.domain.events import ContentType
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.payments.outcomes import OutcomeTable
from mocksrv.domain.payouts import (
    PAYOUT_TRANSITIONS,
    PAYOUTS,
    SETTLE_TIMER,
    Payout,
    PayoutEvent,
    PayoutStatus,
)
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.store import Query
from mocksrv.domain.transitions import action_of
from tests.api.expected import Matches
from tests.payloads import MERCHANT_ID, PROFILE_ID
from tests.unit.fakes import T0, at
from tests.unit.helpers import advance, error_of, event_types_of, events_of, raised_by, timers

P = PayoutStatus
E = PayoutEvent
HOUR = 3600
CLOSED_ACCOUNT = "000111111116"
GENERATED_PAYOUT_ID = Matches(r"payout_[A-Za-z0-9]{23}")
CLOSED_CODE = "account_closed"
CLOSED_MESSAGE = "The bank account is closed."
DECLINED_CODE = "payout_failed"
DECLINED_MESSAGE = "The payout was declined by the bank"
NO_SUCH_CUSTOMER = (
    "Invalid value provided: customer_id: no such customer; create it with POST /customers first"
)

BANK: dict[str, str] = {
    "bank_account_number": "123456789012",
    "bank_routing_number": "110000000",
    "bank_name": "Bank of Tests",
    "bank_country_code": "US",
    "bank_city": "San Francisco",
}
MASKED_BANK = {**BANK, "bank_account_number": "****9012"}

# Every allowed (state, event) pair, written out from decisions sections 4 and 6.
ALLOWED: dict[tuple[PayoutStatus, PayoutEvent], tuple[PayoutStatus, str | None]] = {
    (P.REQUIRES_FULFILLMENT, E.UPDATE): (P.REQUIRES_FULFILLMENT, None),
    (P.REQUIRES_FULFILLMENT, E.CONFIRM): (P.REQUIRES_FULFILLMENT, None),
    (P.REQUIRES_FULFILLMENT, E.FULFILL): (P.PENDING, "payout_initiated"),
    (P.INITIATED, E.SUCCEED): (P.SUCCESS, "payout_success"),
    (P.PENDING, E.SUCCEED): (P.SUCCESS, "payout_success"),
    (P.INITIATED, E.FAIL): (P.FAILED, "payout_failed"),
    (P.PENDING, E.FAIL): (P.FAILED, "payout_failed"),
    (P.REQUIRES_FULFILLMENT, E.CANCEL): (P.CANCELLED, "payout_cancelled"),
    (P.SUCCESS, E.REVERSE): (P.REVERSED, "payout_reversed"),
}
ALL_PAIRS = list(itertools.product(PayoutStatus, PayoutEvent))
REFUSED = [pair for pair in ALL_PAIRS if pair not in ALLOWED]

# What the IR_14 message says of each action: its past participle and the states it expects.
PARTICIPLE = {
    "update": "updated",
    "confirm": "confirmed",
    "fulfill": "fulfilled",
    "settle": "settled",
    "cancel": "cancelled",
    "reverse": "reversed",
}
EXPECTED_STATES = {
    "update": "requires_fulfillment",
    "confirm": "requires_fulfillment",
    "fulfill": "requires_fulfillment",
    "settle": "initiated, pending",
    "cancel": "requires_fulfillment",
    "reverse": "success",
}

# The statuses a payout reaches through the service ("initiated" is in the table, but no operation
# leads there), and those after fulfilment.
REACHABLE = [P.REQUIRES_FULFILLMENT, P.PENDING, P.SUCCESS, P.FAILED, P.CANCELLED, P.REVERSED]
AFTER_FULFILMENT = [s for s in REACHABLE if s is not P.REQUIRES_FULFILLMENT]


def _pair_id(pair: tuple[StrEnum, StrEnum]) -> str:
    return f"{pair[0].value}--{pair[1].value}"


def refusal_message(action: str, status: str) -> str:
    return (
        f"This Payout could not be {PARTICIPLE[action]} because it has a status of {status}. "
        f"The expected state is {EXPECTED_STATES[action]}"
    )


# -- helpers ---------------------------------------------------------------------------------------


def bank(number: str = BANK["bank_account_number"]) -> dict[str, Any]:
    return {"bank": {**BANK, "bank_account_number": number}}


def create(sandbox: Sandbox, merchant_id: str = MERCHANT_ID, **fields: Any) -> Payout:
    body: dict[str, Any] = {
        "amount": 1000,
        "currency": "USD",
        "payout_type": "bank",
        "payout_method_data": bank(),
        **fields,
    }
    return sandbox.payouts.create(merchant_id, body)


def closed(sandbox: Sandbox, **fields: Any) -> Payout:
    """A payout to the closed bank account."""
    return create(sandbox, payout_method_data=bank(CLOSED_ACCOUNT), **fields)


def stored(sandbox: Sandbox, payout_id: str) -> Payout:
    return sandbox.payouts.retrieve(MERCHANT_ID, payout_id)


def payout_in(sandbox: Sandbox, status: PayoutStatus, payout_id: str = "po_1") -> Payout:
    """Drive a new payout, through the public operations, into `status`."""
    payouts = sandbox.payouts
    if status is P.REQUIRES_FULFILLMENT:
        return create(sandbox, payout_id=payout_id)
    if status is P.PENDING:
        return payouts.fulfill(MERCHANT_ID, create(sandbox, payout_id=payout_id).payout_id)
    if status is P.SUCCESS:
        return payouts.settle(MERCHANT_ID, payout_in(sandbox, P.PENDING, payout_id).payout_id, "success")
    if status is P.FAILED:
        return payouts.settle(MERCHANT_ID, payout_in(sandbox, P.PENDING, payout_id).payout_id, "failed")
    if status is P.CANCELLED:
        return payouts.cancel(MERCHANT_ID, create(sandbox, payout_id=payout_id).payout_id)
    if status is P.REVERSED:
        return payouts.settle(MERCHANT_ID, payout_in(sandbox, P.SUCCESS, payout_id).payout_id, "reversed")
    raise AssertionError(status)


def listed(sandbox: Sandbox, merchant_id: str = MERCHANT_ID, **criteria: Any) -> tuple[list[str], int]:
    """The ids a list returns, in order, and its total count."""
    page = sandbox.payouts.list(merchant_id, Query.of(**criteria))
    return [p.payout_id for p in page.items], page.total_count


@pytest.mark.parametrize("status", REACHABLE)
def test_payout_in_reaches_the_status(sandbox: Sandbox, status: PayoutStatus) -> None:
    assert payout_in(sandbox, status).status is status


# -- the transition table ----------------------------------------------------------------------------


def test_the_statuses_are_those_of_the_decisions() -> None:
    assert [s.value for s in PayoutStatus] == [
        "requires_fulfillment",
        "initiated",
        "pending",
        "success",
        "failed",
        "cancelled",
        "reversed",
    ]


@pytest.mark.parametrize("pair", REFUSED, ids=_pair_id)
def test_refused_pair_raises_IR_14_naming_the_status_and_the_expected_states(
    pair: tuple[PayoutStatus, PayoutEvent],
) -> None:
    status, event = pair
    with pytest.raises(InvalidState) as raised:
        PAYOUT_TRANSITIONS.require(status, event)
    assert (raised.value.code, raised.value.kind) == ("IR_14", ErrorKind.STATE)
    assert raised.value.message == refusal_message(action_of(event), status.value)


@pytest.mark.parametrize("status", [P.FAILED, P.CANCELLED, P.REVERSED])
def test_final_payout_state_allows_no_event(status: PayoutStatus) -> None:
    assert PAYOUT_TRANSITIONS.allowed_events(status) == []


def test_each_payout_event_belongs_to_its_own_action() -> None:
    assert [action_of(event) for event in PayoutEvent] == [
        "update",
        "confirm",
        "fulfill",
        "settle",
        "settle",
        "cancel",
        "reverse",
    ]


# -- create ----------------------------------------------------------------------------------------


def test_create_gives_a_payout_requiring_fulfilment_with_every_field_given(sandbox: Sandbox) -> None:
    customer_id = sandbox.customers.create(MERCHANT_ID, {"name": "Ada"}).customer_id

    created = create(
        sandbox,
        payout_id="po_1",
        customer_id=customer_id,
        description="Weekly payout",
        metadata={"batch": "b1"},
    )

    assert created == Payout(
        payout_id="po_1",
        merchant_id=MERCHANT_ID,
        profile_id=PROFILE_ID,
        amount=1000,
        currency="USD",
        payout_type="bank",
        status=P.REQUIRES_FULFILLMENT,
        created=T0,
        updated_at=T0,
        planned_result=E.SUCCEED,
        payout_method_data={"bank": MASKED_BANK},
        customer_id=customer_id,
        description="Weekly payout",
        metadata={"batch": "b1"},
        auto_fulfill=False,
        client_secret=created.client_secret,
    )
    assert created.client_secret == Matches(r"po_1_secret_[A-Za-z0-9]{20}")


def test_create_keeps_only_the_last_four_digits_of_the_account_number(sandbox: Sandbox) -> None:
    created = create(sandbox, payout_method_data=bank("9876543210"))

    assert created.payout_method_data == {"bank": {**BANK, "bank_account_number": "****3210"}}


def test_create_stores_the_payout(sandbox: Sandbox) -> None:
    created = create(sandbox)

    assert stored(sandbox, created.payout_id) == created


def test_create_without_payout_id_generates_one(sandbox: Sandbox) -> None:
    assert create(sandbox).payout_id == GENERATED_PAYOUT_ID


def test_create_emits_no_event_and_sets_no_timer(sandbox: Sandbox) -> None:
    created = create(sandbox)

    assert event_types_of(sandbox, created.payout_id) == []
    assert timers(sandbox) == []


def test_a_repeated_payout_id_is_HE_01(sandbox: Sandbox) -> None:
    create(sandbox, payout_id="po_1")

    error = raised_by(lambda: create(sandbox, payout_id="po_1", amount=2000))

    assert error_of(error) == (
        "HE_01",
        ErrorKind.INVALID,
        "The payout with the specified payout_id already exists in our records",
        "payout_id",
    )


def test_a_repeated_payout_id_leaves_the_first_payout_as_it_was(sandbox: Sandbox) -> None:
    first = create(sandbox, payout_id="po_1")

    raised_by(lambda: create(sandbox, payout_id="po_1", amount=2000, auto_fulfill=True))

    assert stored(sandbox, "po_1") == first
    assert event_types_of(sandbox, "po_1") == []


def test_the_same_payout_id_is_free_for_another_merchant(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    create(sandbox, payout_id="po_1")

    assert create(sandbox, other, payout_id="po_1").merchant_id == other


def test_a_customer_id_of_no_customer_is_IR_04(sandbox: Sandbox) -> None:
    error = raised_by(lambda: create(sandbox, customer_id="cus_missing"))

    assert error_of(error) == ("IR_04", ErrorKind.INVALID, NO_SUCH_CUSTOMER, "customer_id")


def test_a_customer_of_another_merchant_is_IR_04(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    customer_id = sandbox.customers.create(other, {"name": "Ada"}).customer_id

    error = raised_by(lambda: create(sandbox, customer_id=customer_id))

    assert error_of(error) == ("IR_04", ErrorKind.INVALID, NO_SUCH_CUSTOMER, "customer_id")


def test_a_create_refused_for_its_customer_stores_no_payout(sandbox: Sandbox) -> None:
    raised_by(lambda: create(sandbox, customer_id="cus_missing"))

    assert sandbox.store.count(PAYOUTS, MERCHANT_ID) == 0


def test_method_data_without_the_payout_types_entry_is_IR_04_naming_it(sandbox: Sandbox) -> None:
    error = raised_by(lambda: create(sandbox, payout_method_data={}))

    assert error_of(error) == (
        "IR_04",
        ErrorKind.INVALID,
        "Missing required param: payout_method_data.bank",
        "payout_method_data.bank",
    )


# -- auto_fulfill ----------------------------------------------------------------------------------


def test_create_with_auto_fulfill_gives_a_pending_payout(sandbox: Sandbox) -> None:
    created = create(sandbox, auto_fulfill=True)

    assert (created.status, created.auto_fulfill) == (P.PENDING, True)
    assert stored(sandbox, created.payout_id) == created


def test_create_with_auto_fulfill_emits_payout_initiated(sandbox: Sandbox) -> None:
    created = create(sandbox, auto_fulfill=True)

    assert event_types_of(sandbox, created.payout_id) == ["payout_initiated"]


def test_create_with_auto_fulfill_succeeds_an_hour_later(sandbox: Sandbox) -> None:
    created = create(sandbox, auto_fulfill=True)

    advance(sandbox, HOUR)

    assert stored(sandbox, created.payout_id).status is P.SUCCESS
    assert event_types_of(sandbox, created.payout_id) == ["payout_initiated", "payout_success"]


def test_create_with_auto_fulfill_to_the_closed_account_fails_an_hour_later(sandbox: Sandbox) -> None:
    created = closed(sandbox, auto_fulfill=True)

    advance(sandbox, HOUR)

    payout = stored(sandbox, created.payout_id)
    assert (payout.status, payout.error_code, payout.error_message) == (P.FAILED, CLOSED_CODE, CLOSED_MESSAGE)


def test_create_with_auto_fulfill_false_waits_for_fulfilment(sandbox: Sandbox) -> None:
    created = create(sandbox, auto_fulfill=False)

    advance(sandbox, HOUR)

    assert stored(sandbox, created.payout_id).status is P.REQUIRES_FULFILLMENT


# -- update ----------------------------------------------------------------------------------------


def test_update_changes_the_fields_sent(sandbox: Sandbox) -> None:
    customer_id = sandbox.customers.create(MERCHANT_ID, {"name": "Ada"}).customer_id
    created = create(sandbox, description="old", metadata={"a": "1"})
    advance(sandbox, 60)

    updated = sandbox.payouts.update(
        MERCHANT_ID,
        created.payout_id,
        {
            "amount": 2500,
            "currency": "EUR",
            "customer_id": customer_id,
            "description": "new",
            "metadata": {"b": "2"},
        },
    )

    assert (
        updated.amount,
        updated.currency,
        updated.customer_id,
        updated.description,
        updated.metadata,
        updated.status,
        updated.created,
        updated.updated_at,
    ) == (2500, "EUR", customer_id, "new", {"b": "2"}, P.REQUIRES_FULFILLMENT, T0, at(60))
    assert stored(sandbox, created.payout_id) == updated


def test_update_leaves_a_field_not_sent_alone(sandbox: Sandbox) -> None:
    created = create(sandbox, description="kept", metadata={"a": "1"})

    updated = sandbox.payouts.update(MERCHANT_ID, created.payout_id, {"amount": 2500})

    assert (updated.description, updated.metadata, updated.currency, updated.payout_method_data) == (
        "kept",
        {"a": "1"},
        "USD",
        {"bank": MASKED_BANK},
    )


def test_update_of_the_method_data_keeps_the_last_four_digits_of_the_new_account(sandbox: Sandbox) -> None:
    created = create(sandbox)

    updated = sandbox.payouts.update(
        MERCHANT_ID, created.payout_id, {"payout_method_data": bank("5555666677")}
    )

    assert updated.payout_method_data == {"bank": {**BANK, "bank_account_number": "****6677"}}


def test_update_emits_no_event(sandbox: Sandbox) -> None:
    created = create(sandbox)

    sandbox.payouts.update(MERCHANT_ID, created.payout_id, {"amount": 2500})

    assert event_types_of(sandbox, created.payout_id) == []


@pytest.mark.parametrize("status", AFTER_FULFILMENT)
def test_update_after_fulfilment_is_IR_14_and_changes_nothing(sandbox: Sandbox, status: PayoutStatus) -> None:
    payout = payout_in(sandbox, status)

    error = raised_by(lambda: sandbox.payouts.update(MERCHANT_ID, payout.payout_id, {"amount": 2500}))

    assert error_of(error) == ("IR_14", ErrorKind.STATE, refusal_message("update", status.value), None)
    assert stored(sandbox, payout.payout_id) == payout


def test_update_to_a_customer_of_no_customer_is_IR_04(sandbox: Sandbox) -> None:
    created = create(sandbox)

    error = raised_by(
        lambda: sandbox.payouts.update(MERCHANT_ID, created.payout_id, {"customer_id": "cus_missing"})
    )

    assert error_of(error) == ("IR_04", ErrorKind.INVALID, NO_SUCH_CUSTOMER, "customer_id")


def test_update_of_an_unknown_payout_is_HE_02(sandbox: Sandbox) -> None:
    error = raised_by(lambda: sandbox.payouts.update(MERCHANT_ID, "po_missing", {"amount": 2500}))

    assert error_of(error) == ("HE_02", ErrorKind.NOT_FOUND, "Payout does not exist in our records", None)


def test_update_to_the_closed_account_makes_the_payout_fail_on_the_clock(sandbox: Sandbox) -> None:
    created = create(sandbox)
    sandbox.payouts.update(MERCHANT_ID, created.payout_id, {"payout_method_data": bank(CLOSED_ACCOUNT)})
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR)

    payout = stored(sandbox, created.payout_id)
    assert (payout.status, payout.error_code, payout.error_message) == (P.FAILED, CLOSED_CODE, CLOSED_MESSAGE)


def test_update_away_from_the_closed_account_makes_the_payout_succeed_on_the_clock(
    sandbox: Sandbox,
) -> None:
    created = closed(sandbox)
    sandbox.payouts.update(MERCHANT_ID, created.payout_id, {"payout_method_data": bank()})
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR)

    payout = stored(sandbox, created.payout_id)
    assert (payout.status, payout.error_code, payout.error_message) == (P.SUCCESS, None, None)


def test_update_away_from_the_closed_account_then_failed_by_hand_gives_the_generic_failure(
    sandbox: Sandbox,
) -> None:
    created = closed(sandbox)
    sandbox.payouts.update(MERCHANT_ID, created.payout_id, {"payout_method_data": bank()})
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    failed = sandbox.payouts.settle(MERCHANT_ID, created.payout_id, "failed")

    assert (failed.error_code, failed.error_message) == (DECLINED_CODE, DECLINED_MESSAGE)


# -- cancel ----------------------------------------------------------------------------------------


def test_cancel_before_fulfilment_cancels(sandbox: Sandbox) -> None:
    created = create(sandbox)
    advance(sandbox, 60)

    cancelled = sandbox.payouts.cancel(MERCHANT_ID, created.payout_id)

    assert (cancelled.status, cancelled.updated_at) == (P.CANCELLED, at(60))
    assert stored(sandbox, created.payout_id) == cancelled


def test_cancel_emits_payout_cancelled_holding_the_cancelled_payout(sandbox: Sandbox) -> None:
    created = create(sandbox)

    cancelled = sandbox.payouts.cancel(MERCHANT_ID, created.payout_id)

    (event,) = events_of(sandbox, created.payout_id)
    assert (event.event_type, event.content_type, event.created, event.resource) == (
        "payout_cancelled",
        ContentType.PAYOUT_DETAILS,
        T0,
        cancelled,
    )


@pytest.mark.parametrize("status", AFTER_FULFILMENT)
def test_cancel_after_fulfilment_is_IR_14(sandbox: Sandbox, status: PayoutStatus) -> None:
    payout = payout_in(sandbox, status)

    error = raised_by(lambda: sandbox.payouts.cancel(MERCHANT_ID, payout.payout_id))

    assert error_of(error) == ("IR_14", ErrorKind.STATE, refusal_message("cancel", status.value), None)


def test_cancel_of_an_unknown_payout_is_HE_02(sandbox: Sandbox) -> None:
    error = raised_by(lambda: sandbox.payouts.cancel(MERCHANT_ID, "po_missing"))

    assert error_of(error) == ("HE_02", ErrorKind.NOT_FOUND, "Payout does not exist in our records", None)


def test_a_cancelled_payout_is_not_paid_when_an_hour_passes(sandbox: Sandbox) -> None:
    created = create(sandbox)
    sandbox.payouts.cancel(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR)

    assert stored(sandbox, created.payout_id).status is P.CANCELLED
    assert event_types_of(sandbox, created.payout_id) == ["payout_cancelled"]


# -- fulfil and settlement on the clock ------------------------------------------------------------


def test_fulfil_gives_a_pending_payout(sandbox: Sandbox) -> None:
    created = create(sandbox)
    advance(sandbox, 60)

    fulfilled = sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    assert (fulfilled.status, fulfilled.updated_at) == (P.PENDING, at(60))
    assert stored(sandbox, created.payout_id) == fulfilled


def test_fulfil_emits_payout_initiated_holding_the_pending_payout(sandbox: Sandbox) -> None:
    created = create(sandbox)

    fulfilled = sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    (event,) = events_of(sandbox, created.payout_id)
    assert (event.event_type, event.content_type, event.created, event.resource) == (
        "payout_initiated",
        ContentType.PAYOUT_DETAILS,
        T0,
        fulfilled,
    )


def test_fulfil_schedules_one_settlement_an_hour_later(sandbox: Sandbox) -> None:
    created = create(sandbox)

    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    assert timers(sandbox) == [(at(HOUR), SETTLE_TIMER, created.payout_id)]


def test_a_fulfilled_payout_is_still_pending_at_3599_seconds(sandbox: Sandbox) -> None:
    created = create(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR - 1)

    assert stored(sandbox, created.payout_id).status is P.PENDING
    assert event_types_of(sandbox, created.payout_id) == ["payout_initiated"]


def test_a_fulfilled_payout_succeeds_at_exactly_3600_seconds(sandbox: Sandbox) -> None:
    created = create(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR)

    payout = stored(sandbox, created.payout_id)
    assert (payout.status, payout.updated_at, payout.error_code, payout.error_message) == (
        P.SUCCESS,
        at(HOUR),
        None,
        None,
    )


def test_a_fulfilled_payout_succeeds_when_the_hour_passes_in_two_steps(sandbox: Sandbox) -> None:
    created = create(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR - 1)
    advance(sandbox, 1)

    assert stored(sandbox, created.payout_id).status is P.SUCCESS


def test_the_settlement_is_an_hour_after_fulfilment_not_after_create(sandbox: Sandbox) -> None:
    created = create(sandbox)
    advance(sandbox, 600)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR - 1)

    assert stored(sandbox, created.payout_id).status is P.PENDING


def test_success_emits_payout_success_holding_the_payout_at_the_due_time(sandbox: Sandbox) -> None:
    created = create(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR)

    assert event_types_of(sandbox, created.payout_id) == ["payout_initiated", "payout_success"]
    event = events_of(sandbox, created.payout_id)[1]
    assert (event.content_type, event.created, event.resource) == (
        ContentType.PAYOUT_DETAILS,
        at(HOUR),
        stored(sandbox, created.payout_id),
    )


def test_advancing_further_emits_no_second_payout_success(sandbox: Sandbox) -> None:
    created = create(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)
    advance(sandbox, HOUR)

    advance(sandbox, 7 * 24 * HOUR)

    assert event_types_of(sandbox, created.payout_id) == ["payout_initiated", "payout_success"]


@pytest.mark.parametrize("status", [P.PENDING, P.SUCCESS, P.CANCELLED])
def test_fulfil_after_fulfilment_is_IR_14(sandbox: Sandbox, status: PayoutStatus) -> None:
    payout = payout_in(sandbox, status)

    error = raised_by(lambda: sandbox.payouts.fulfill(MERCHANT_ID, payout.payout_id))

    assert error_of(error) == ("IR_14", ErrorKind.STATE, refusal_message("fulfill", status.value), None)


def test_a_refused_fulfil_schedules_no_second_settlement(sandbox: Sandbox) -> None:
    payout = payout_in(sandbox, P.PENDING)

    raised_by(lambda: sandbox.payouts.fulfill(MERCHANT_ID, payout.payout_id))

    assert timers(sandbox) == [(at(HOUR), SETTLE_TIMER, payout.payout_id)]


def test_fulfil_of_an_unknown_payout_is_HE_02(sandbox: Sandbox) -> None:
    error = raised_by(lambda: sandbox.payouts.fulfill(MERCHANT_ID, "po_missing"))

    assert error_of(error) == ("HE_02", ErrorKind.NOT_FOUND, "Payout does not exist in our records", None)


# -- the closed bank account -----------------------------------------------------------------------


def test_a_payout_to_the_closed_account_is_pending_without_an_error_once_fulfilled(sandbox: Sandbox) -> None:
    created = closed(sandbox)

    fulfilled = sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    assert (fulfilled.status, fulfilled.error_code, fulfilled.error_message) == (P.PENDING, None, None)


def test_a_payout_to_the_closed_account_is_still_pending_at_3599_seconds(sandbox: Sandbox) -> None:
    created = closed(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR - 1)

    assert stored(sandbox, created.payout_id).status is P.PENDING


def test_a_payout_to_the_closed_account_fails_at_exactly_3600_seconds_as_account_closed(
    sandbox: Sandbox,
) -> None:
    created = closed(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR)

    payout = stored(sandbox, created.payout_id)
    assert (payout.status, payout.updated_at, payout.error_code, payout.error_message) == (
        P.FAILED,
        at(HOUR),
        CLOSED_CODE,
        CLOSED_MESSAGE,
    )


def test_a_payout_to_the_closed_account_emits_payout_failed_holding_the_failed_payout(
    sandbox: Sandbox,
) -> None:
    created = closed(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR)

    assert event_types_of(sandbox, created.payout_id) == ["payout_initiated", "payout_failed"]
    event = events_of(sandbox, created.payout_id)[1]
    assert (event.content_type, event.created, event.resource) == (
        ContentType.PAYOUT_DETAILS,
        at(HOUR),
        stored(sandbox, created.payout_id),
    )


def test_the_closed_account_rule_can_be_switched_off_in_the_outcome_table(sandbox: Sandbox) -> None:
    rules = sandbox.merchants.outcomes(MERCHANT_ID).to_data()["rules"]
    kept = [rule for rule in rules if rule.get("name") != "payout to a closed bank account"]
    assert len(kept) == len(rules) - 1
    sandbox.merchants.replace_outcomes(MERCHANT_ID, OutcomeTable.from_data({"rules": kept}))
    created = closed(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    advance(sandbox, HOUR)

    assert stored(sandbox, created.payout_id).status is P.SUCCESS


# -- settle and reverse by hand --------------------------------------------------------------------


def test_a_pending_payout_settled_success_by_hand_succeeds(sandbox: Sandbox) -> None:
    payout = payout_in(sandbox, P.PENDING)
    advance(sandbox, 60)

    settled = sandbox.payouts.settle(MERCHANT_ID, payout.payout_id, "success")

    assert (settled.status, settled.updated_at, settled.error_code) == (P.SUCCESS, at(60), None)
    assert event_types_of(sandbox, payout.payout_id) == ["payout_initiated", "payout_success"]


def test_a_pending_payout_settled_failed_by_hand_fails_with_the_generic_error(sandbox: Sandbox) -> None:
    payout = payout_in(sandbox, P.PENDING)

    settled = sandbox.payouts.settle(MERCHANT_ID, payout.payout_id, "failed")

    assert (settled.status, settled.error_code, settled.error_message) == (
        P.FAILED,
        DECLINED_CODE,
        DECLINED_MESSAGE,
    )
    assert event_types_of(sandbox, payout.payout_id) == ["payout_initiated", "payout_failed"]


def test_a_closed_account_payout_failed_by_hand_reports_the_closed_account(sandbox: Sandbox) -> None:
    created = closed(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    settled = sandbox.payouts.settle(MERCHANT_ID, created.payout_id, "failed")

    assert (settled.error_code, settled.error_message) == (CLOSED_CODE, CLOSED_MESSAGE)


def test_a_closed_account_payout_settled_success_by_hand_succeeds(sandbox: Sandbox) -> None:
    created = closed(sandbox)
    sandbox.payouts.fulfill(MERCHANT_ID, created.payout_id)

    settled = sandbox.payouts.settle(MERCHANT_ID, created.payout_id, "success")

    assert (settled.status, settled.error_code, settled.error_message) == (P.SUCCESS, None, None)


def test_a_successful_payout_reversed_by_hand_is_reversed(sandbox: Sandbox) -> None:
    payout = payout_in(sandbox, P.SUCCESS)
    advance(sandbox, 60)

    reversed_ = sandbox.payouts.settle(MERCHANT_ID, payout.payout_id, "reversed")

    assert (reversed_.status, reversed_.updated_at) == (P.REVERSED, at(60))
    assert event_types_of(sandbox, payout.payout_id) == [
        "payout_initiated",
        "payout_success",
        "payout_reversed",
    ]


def test_a_payout_that_succeeded_on_the_clock_can_be_reversed(sandbox: Sandbox) -> None:
    payout = payout_in(sandbox, P.PENDING)
    advance(sandbox, HOUR)

    assert sandbox.payouts.settle(MERCHANT_ID, payout.payout_id, "reversed").status is P.REVERSED


@pytest.mark.parametrize(
    ("status", "result"),
    [
        (P.REQUIRES_FULFILLMENT, "success"),
        (P.SUCCESS, "failed"),
        (P.FAILED, "success"),
        (P.CANCELLED, "failed"),
        (P.REVERSED, "success"),
    ],
)
def test_settling_by_hand_a_payout_that_is_not_pending_is_IR_14(
    sandbox: Sandbox, status: PayoutStatus, result: str
) -> None:
    payout = payout_in(sandbox, status)

    error = raised_by(lambda: sandbox.payouts.settle(MERCHANT_ID, payout.payout_id, result))

    assert error_of(error) == ("IR_14", ErrorKind.STATE, refusal_message("settle", status.value), None)


@pytest.mark.parametrize("status", [P.REQUIRES_FULFILLMENT, P.PENDING, P.FAILED])
def test_reversing_a_payout_that_has_not_succeeded_is_IR_14(sandbox: Sandbox, status: PayoutStatus) -> None:
    payout = payout_in(sandbox, status)

    error = raised_by(lambda: sandbox.payouts.settle(MERCHANT_ID, payout.payout_id, "reversed"))

    assert error_of(error) == ("IR_14", ErrorKind.STATE, refusal_message("reverse", status.value), None)


@pytest.mark.parametrize("result", ["success", "failed", "reversed"])
def test_settling_an_unknown_payout_is_HE_02(sandbox: Sandbox, result: str) -> None:
    error = raised_by(lambda: sandbox.payouts.settle(MERCHANT_ID, "po_missing", result))

    assert error_of(error) == ("HE_02", ErrorKind.NOT_FOUND, "Payout does not exist in our records", None)


@pytest.mark.parametrize(("result", "status"), [("success", P.SUCCESS), ("failed", P.FAILED)])
def test_a_payout_settled_by_hand_stays_settled_when_its_timer_falls_due(
    sandbox: Sandbox, result: str, status: PayoutStatus
) -> None:
    payout = payout_in(sandbox, P.PENDING)
    settled = sandbox.payouts.settle(MERCHANT_ID, payout.payout_id, result)

    advance(sandbox, HOUR)

    assert stored(sandbox, payout.payout_id) == settled
    assert event_types_of(sandbox, payout.payout_id) == ["payout_initiated", f"payout_{status.value}"]


def test_a_payout_reversed_before_its_timer_stays_reversed(sandbox: Sandbox) -> None:
    payout = payout_in(sandbox, P.REVERSED)

    advance(sandbox, HOUR)

    assert stored(sandbox, payout.payout_id).status is P.REVERSED


# -- retrieve --------------------------------------------------------------------------------------


def test_an_unknown_payout_is_HE_02(sandbox: Sandbox) -> None:
    error = raised_by(lambda: sandbox.payouts.retrieve(MERCHANT_ID, "po_missing"))

    assert error_of(error) == ("HE_02", ErrorKind.NOT_FOUND, "Payout does not exist in our records", None)


def test_another_merchants_payout_is_HE_02(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    payout = create(sandbox, other)

    error = raised_by(lambda: sandbox.payouts.retrieve(MERCHANT_ID, payout.payout_id))

    assert error.code == "HE_02"


# -- list ------------------------------------------------------------------------------------------


@pytest.fixture
def three_payouts(sandbox: Sandbox) -> None:
    """po_a (USD, cus_1, created at T0, success), po_b (EUR, at T0+60, pending), po_c (USD, cus_1, at
    T0+120, requires_fulfillment)."""
    sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_1"})
    create(sandbox, payout_id="po_a", customer_id="cus_1")
    sandbox.payouts.fulfill(MERCHANT_ID, "po_a")
    sandbox.payouts.settle(MERCHANT_ID, "po_a", "success")
    advance(sandbox, 60)
    create(sandbox, payout_id="po_b", currency="EUR", auto_fulfill=True)
    advance(sandbox, 60)
    create(sandbox, payout_id="po_c", customer_id="cus_1")


@pytest.mark.usefixtures("three_payouts")
def test_list_without_filters_gives_every_payout_newest_first(sandbox: Sandbox) -> None:
    assert listed(sandbox) == (["po_c", "po_b", "po_a"], 3)


@pytest.mark.usefixtures("three_payouts")
def test_list_returns_the_records(sandbox: Sandbox) -> None:
    page = sandbox.payouts.list(MERCHANT_ID, Query.of())

    assert page.items == [stored(sandbox, payout_id) for payout_id in ("po_c", "po_b", "po_a")]


def test_list_of_a_merchant_without_payouts_is_empty(sandbox: Sandbox) -> None:
    assert listed(sandbox) == ([], 0)


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ({"status": "success"}, ["po_a"]),
        ({"status": "pending"}, ["po_b"]),
        ({"status": "requires_fulfillment"}, ["po_c"]),
        ({"status": "failed"}, []),
        ({"customer_id": "cus_1"}, ["po_c", "po_a"]),
        ({"customer_id": "cus_other"}, []),
        ({"currency": "USD"}, ["po_c", "po_a"]),
        ({"currency": "EUR"}, ["po_b"]),
        ({"currency": "USD", "status": "success"}, ["po_a"]),
        ({"customer_id": "cus_1", "status": "pending"}, []),
    ],
    ids=lambda value: str(value),
)
@pytest.mark.usefixtures("three_payouts")
def test_list_filters(sandbox: Sandbox, criteria: dict[str, str], expected: list[str]) -> None:
    assert listed(sandbox, **criteria) == (expected, len(expected))


@pytest.mark.parametrize(
    ("bounds", "expected"),
    [
        ({"created_gte": at(60)}, ["po_c", "po_b"]),
        ({"created_gte": at(61)}, ["po_c"]),
        ({"created_lte": at(60)}, ["po_b", "po_a"]),
        ({"created_lte": at(59)}, ["po_a"]),
        ({"created_gte": at(60), "created_lte": at(60)}, ["po_b"]),
        ({"created_gte": at(121)}, []),
    ],
    ids=lambda value: str(value),
)
@pytest.mark.usefixtures("three_payouts")
def test_list_filters_by_created_bounds(
    sandbox: Sandbox, bounds: dict[str, datetime], expected: list[str]
) -> None:
    assert listed(sandbox, **bounds) == (expected, len(expected))


@pytest.mark.usefixtures("three_payouts")
def test_list_by_status_follows_a_payout_that_succeeded_on_the_clock(sandbox: Sandbox) -> None:
    advance(sandbox, HOUR)

    assert listed(sandbox, status="success") == (["po_b", "po_a"], 2)


@pytest.mark.parametrize(
    ("limit", "offset", "expected"),
    [
        (1, 0, ["po_c"]),
        (2, 0, ["po_c", "po_b"]),
        (2, 1, ["po_b", "po_a"]),
        (2, 2, ["po_a"]),
        (10, 3, []),
        (100, 0, ["po_c", "po_b", "po_a"]),
    ],
)
@pytest.mark.usefixtures("three_payouts")
def test_list_pages_with_limit_and_offset_keeping_the_total(
    sandbox: Sandbox, limit: int, offset: int, expected: list[str]
) -> None:
    assert listed(sandbox, limit=limit, offset=offset) == (expected, 3)


@pytest.mark.usefixtures("three_payouts")
def test_list_pages_within_a_filter(sandbox: Sandbox) -> None:
    assert listed(sandbox, currency="USD", limit=1, offset=1) == (["po_a"], 2)


def test_list_default_limit_is_ten(sandbox: Sandbox) -> None:
    for index in range(11):
        create(sandbox, payout_id=f"po_{index:02d}")

    ids, total = listed(sandbox)

    assert (len(ids), total) == (10, 11)


@pytest.mark.usefixtures("three_payouts")
def test_list_of_another_merchant_does_not_show_these_payouts(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id

    assert listed(sandbox, other) == ([], 0)


# -- confirm and a payout without a payout method -------------------------------------------------


def test_confirm_moves_through_the_confirm_row_and_emits_nothing(sandbox: Sandbox) -> None:
    created = create(sandbox, payout_id="po_1")

    confirmed = sandbox.payouts.confirm(MERCHANT_ID, "po_1", {"client_secret": created.client_secret})

    assert (confirmed.status, confirmed.auto_fulfill) == (P.REQUIRES_FULFILLMENT, False)
    assert event_types_of(sandbox, "po_1") == []


def test_confirm_of_an_auto_fulfill_payout_held_back_fulfils_it(sandbox: Sandbox) -> None:
    created = create(sandbox, payout_id="po_1", confirm=False, auto_fulfill=True)
    assert created.status is P.REQUIRES_FULFILLMENT

    confirmed = sandbox.payouts.confirm(MERCHANT_ID, "po_1", {"client_secret": created.client_secret})

    assert confirmed.status is P.PENDING
    assert event_types_of(sandbox, "po_1") == ["payout_initiated"]


def test_confirm_with_a_wrong_client_secret_is_IR_09(sandbox: Sandbox) -> None:
    create(sandbox, payout_id="po_1")

    error = raised_by(lambda: sandbox.payouts.confirm(MERCHANT_ID, "po_1", {"client_secret": "x"}))

    assert error_of(error)[0] == "IR_09"


def test_a_payout_without_a_method_is_created_but_not_fulfilled(sandbox: Sandbox) -> None:
    created = sandbox.payouts.create(MERCHANT_ID, {"amount": 1000, "currency": "USD", "payout_id": "po_1"})
    assert (created.payout_type, created.payout_method_data) == (None, None)

    error = raised_by(lambda: sandbox.payouts.fulfill(MERCHANT_ID, "po_1"))

    assert error_of(error) == (
        "IR_04",
        ErrorKind.INVALID,
        "Missing required param: payout_method_data",
        "payout_method_data",
    )
    assert stored(sandbox, "po_1") == created
