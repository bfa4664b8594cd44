"""The payment transition table, pair by pair, against decisions section 3 and section 6."""

from __future__ import annotations

import itertools
from enum import StrEnum

import pytest

from mocksrv.domain.errors import ErrorKind, InvalidState
from mocksrv.domain.payments.states import (
    CAPTURE_CONFLICT_STATES,
    PAYMENT_TRANSITIONS,
    PaymentEvent,
    PaymentStatus,
)
from mocksrv.domain.transitions import Transition, TransitionTable, action_of, rows

S = PaymentStatus
E = PaymentEvent

RPM = S.REQUIRES_PAYMENT_METHOD
RC = S.REQUIRES_CONFIRMATION
RCA = S.REQUIRES_CUSTOMER_ACTION
RMA = S.REQUIRES_MERCHANT_ACTION
PROC = S.PROCESSING
RCAP = S.REQUIRES_CAPTURE
PC = S.PARTIALLY_CAPTURED
PCC = S.PARTIALLY_CAPTURED_AND_CAPTURABLE

# Every allowed (state, event) pair, written out from the decisions: the target and the webhook event.
ALLOWED: dict[tuple[PaymentStatus, PaymentEvent], tuple[PaymentStatus, str | None]] = {
    # update: only before confirmation; attaching a method means it awaits confirmation
    (RPM, E.ATTACH_METHOD): (RC, None),
    (RC, E.ATTACH_METHOD): (RC, None),
    (RPM, E.UPDATE_DETAILS): (RPM, None),
    (RC, E.UPDATE_DETAILS): (RC, None),
    # confirm: from the two unconfirmed states, to whatever the magic value says
    (RPM, E.CONFIRM_CHARGE): (S.SUCCEEDED, "payment_succeeded"),
    (RC, E.CONFIRM_CHARGE): (S.SUCCEEDED, "payment_succeeded"),
    (RPM, E.CONFIRM_AUTHORIZE): (RCAP, "payment_authorized"),
    (RC, E.CONFIRM_AUTHORIZE): (RCAP, "payment_authorized"),
    (RPM, E.CONFIRM_DECLINE): (S.FAILED, "payment_failed"),
    (RC, E.CONFIRM_DECLINE): (S.FAILED, "payment_failed"),
    (RPM, E.CONFIRM_CHALLENGE): (RCA, "action_required"),
    (RC, E.CONFIRM_CHALLENGE): (RCA, "action_required"),
    (RPM, E.CONFIRM_REVIEW): (RMA, "action_required"),
    (RC, E.CONFIRM_REVIEW): (RMA, "action_required"),
    (RPM, E.CONFIRM_DEFER): (PROC, "payment_processing"),
    (RC, E.CONFIRM_DEFER): (PROC, "payment_processing"),
    # authenticate: only from the 3DS challenge
    (RCA, E.AUTHENTICATE_CHARGE): (S.SUCCEEDED, "payment_succeeded"),
    (RCA, E.AUTHENTICATE_AUTHORIZE): (RCAP, "payment_authorized"),
    (RCA, E.AUTHENTICATE_DECLINE): (S.FAILED, "payment_failed"),
    (RCA, E.AUTHENTICATE_REVIEW): (RMA, "action_required"),
    (RCA, E.AUTHENTICATE_DEFER): (PROC, "payment_processing"),
    # settle: only from processing
    (PROC, E.SETTLE_CHARGE): (S.SUCCEEDED, "payment_succeeded"),
    (PROC, E.SETTLE_AUTHORIZE): (RCAP, "payment_authorized"),
    (PROC, E.SETTLE_DECLINE): (S.FAILED, "payment_failed"),
    # manual review
    (RMA, E.APPROVE_CHARGE): (S.SUCCEEDED, "payment_succeeded"),
    (RMA, E.APPROVE_AUTHORIZE): (RCAP, "payment_authorized"),
    (RMA, E.REJECT): (S.FAILED, "payment_failed"),
    # capture
    (RCAP, E.CAPTURE_FULL): (S.SUCCEEDED, "payment_succeeded"),
    (PCC, E.CAPTURE_FULL): (S.SUCCEEDED, "payment_succeeded"),
    (RCAP, E.CAPTURE_PARTIAL): (PCC, "payment_captured"),
    (PCC, E.CAPTURE_PARTIAL): (PCC, "payment_captured"),
    (RCAP, E.CAPTURE_PARTIAL_FINAL): (PC, "payment_captured"),
    # cancel: the remainder of a partly captured authorization is released
    (RPM, E.CANCEL): (S.CANCELLED, "payment_cancelled"),
    (RC, E.CANCEL): (S.CANCELLED, "payment_cancelled"),
    (RCA, E.CANCEL): (S.CANCELLED, "payment_cancelled"),
    (RCAP, E.CANCEL): (S.CANCELLED, "payment_cancelled"),
    (PCC, E.CANCEL): (PC, "payment_cancelled"),
    # capture expiry
    (RCAP, E.EXPIRE): (S.EXPIRED, "payment_expired"),
    (PCC, E.EXPIRE): (S.EXPIRED, "payment_expired"),
}

ALL_PAIRS = list(itertools.product(PaymentStatus, PaymentEvent))
REFUSED = [pair for pair in ALL_PAIRS if pair not in ALLOWED]

# The states each operation is allowed from, in the order the IR_14 message names them.
EXPECTED_STATES: dict[str, list[str]] = {
    "update": ["requires_payment_method", "requires_confirmation"],
    "confirm": ["requires_payment_method", "requires_confirmation"],
    "authenticate": ["requires_customer_action"],
    "settle": ["processing"],
    "approve": ["requires_merchant_action"],
    "reject": ["requires_merchant_action"],
    "capture": ["requires_capture", "partially_captured_and_capturable"],
    "cancel": [
        "requires_payment_method",
        "requires_confirmation",
        "requires_customer_action",
        "requires_capture",
        "partially_captured_and_capturable",
    ],
    "expire": ["requires_capture", "partially_captured_and_capturable"],
}

PARTICIPLES = {
    "update": "updated",
    "confirm": "confirmed",
    "authenticate": "authenticated",
    "settle": "settled",
    "approve": "approved",
    "reject": "rejected",
    "capture": "captured",
    "cancel": "cancelled",
    "expire": "expired",
}


def _pair_id(pair: tuple[StrEnum, StrEnum]) -> str:
    return f"{pair[0].value}--{pair[1].value}"


def _refusal_message(status: str, action: str) -> str:
    return (
        f"This Payment could not be {PARTICIPLES[action]} because it has a status of {status}. "
        f"The expected state is {', '.join(EXPECTED_STATES[action])}"
    )


@pytest.mark.parametrize("pair", REFUSED, ids=_pair_id)
def test_refused_pair_raises_IR_14_naming_the_expected_states(
    pair: tuple[PaymentStatus, PaymentEvent],
) -> None:
    status, event = pair
    with pytest.raises(InvalidState) as raised:
        PAYMENT_TRANSITIONS.require(status, event)
    assert raised.value.code == "IR_14"
    assert raised.value.kind is ErrorKind.STATE
    assert raised.value.message == _refusal_message(status.value, action_of(event))


def test_require_with_conflict_raises_a_conflict() -> None:
    with pytest.raises(InvalidState) as raised:
        PAYMENT_TRANSITIONS.require(S.SUCCEEDED, E.CAPTURE_FULL, conflict=True)
    assert raised.value.code == "IR_14"
    assert raised.value.kind is ErrorKind.CONFLICT
    assert raised.value.message == _refusal_message("succeeded", "capture")


def test_refusal_message_matches_the_documented_example() -> None:
    with pytest.raises(InvalidState) as raised:
        PAYMENT_TRANSITIONS.require(S.SUCCEEDED, E.CANCEL)
    assert str(raised.value) == (
        "This Payment could not be cancelled because it has a status of succeeded. The expected state is "
        "requires_payment_method, requires_confirmation, requires_customer_action, requires_capture, "
        "partially_captured_and_capturable"
    )


@pytest.mark.parametrize("action", list(EXPECTED_STATES))
def test_expected_states_of_each_action(action: str) -> None:
    assert PAYMENT_TRANSITIONS.expected_states(action) == EXPECTED_STATES[action]


def test_every_event_belongs_to_a_known_action() -> None:
    assert {action_of(event) for event in PaymentEvent} == set(EXPECTED_STATES)


def test_expected_states_of_an_unknown_action_is_empty() -> None:
    assert PAYMENT_TRANSITIONS.expected_states("refund") == []


def test_refusal_of_an_action_allowed_nowhere_says_none() -> None:
    with pytest.raises(InvalidState) as raised:
        PAYMENT_TRANSITIONS.check_action(S.SUCCEEDED, "refund")
    assert raised.value.message == (
        "This Payment could not be refund because it has a status of succeeded. The expected state is none"
    )


@pytest.mark.parametrize(
    ("status", "action"),
    [
        (status, action)
        for status, action in itertools.product(PaymentStatus, EXPECTED_STATES)
        if status.value in EXPECTED_STATES[action]
    ],
    ids=lambda value: str(value),
)
def test_check_action_passes_from_an_expected_state(status: PaymentStatus, action: str) -> None:
    PAYMENT_TRANSITIONS.check_action(status, action)  # raises InvalidState when refused
    assert any(event.startswith(f"{action}.") for event in PAYMENT_TRANSITIONS.allowed_events(status))


@pytest.mark.parametrize(
    ("status", "action"),
    [
        (status, action)
        for status, action in itertools.product(PaymentStatus, EXPECTED_STATES)
        if status.value not in EXPECTED_STATES[action]
    ],
    ids=lambda value: str(value),
)
def test_check_action_refuses_from_any_other_state(status: PaymentStatus, action: str) -> None:
    with pytest.raises(InvalidState) as raised:
        PAYMENT_TRANSITIONS.check_action(status, action)
    assert raised.value.code == "IR_14"
    assert raised.value.kind is ErrorKind.STATE
    assert raised.value.message == _refusal_message(status.value, action)


def test_capture_conflict_states_are_succeeded_and_cancelled() -> None:
    assert frozenset({S.SUCCEEDED, S.CANCELLED}) == CAPTURE_CONFLICT_STATES


@pytest.mark.parametrize("status", sorted(CAPTURE_CONFLICT_STATES))
def test_capture_check_with_conflict_is_a_409_kind(status: PaymentStatus) -> None:
    with pytest.raises(InvalidState) as raised:
        PAYMENT_TRANSITIONS.check_action(status, "capture", conflict=True)
    assert raised.value.code == "IR_14"
    assert raised.value.kind is ErrorKind.CONFLICT
    assert raised.value.message == _refusal_message(status.value, "capture")


@pytest.mark.parametrize(
    "status",
    [S.SUCCEEDED, S.FAILED, S.CANCELLED, S.EXPIRED, S.PARTIALLY_CAPTURED],
)
def test_final_state_allows_no_event(status: PaymentStatus) -> None:
    assert PAYMENT_TRANSITIONS.allowed_events(status) == []


@pytest.mark.parametrize("status", list(PaymentStatus))
def test_allowed_events_of_a_state_are_its_table_rows(status: PaymentStatus) -> None:
    expected = [event.value for (source, event) in ALLOWED if source is status]
    assert sorted(PAYMENT_TRANSITIONS.allowed_events(status)) == sorted(expected)


def test_as_data_renders_each_row_as_plain_strings() -> None:
    data = PAYMENT_TRANSITIONS.as_data()
    assert len(data) == len(ALLOWED)
    assert {
        "from": "partially_captured_and_capturable",
        "event": "cancel.release",
        "to": "partially_captured",
        "emits": "payment_cancelled",
    } in data
    assert {
        "from": "requires_payment_method",
        "event": "update.attach_method",
        "to": "requires_confirmation",
        "emits": None,
    } in data


def test_action_of_is_the_part_before_the_dot() -> None:
    assert action_of(E.CAPTURE_PARTIAL_FINAL) == "capture"


def test_rows_gives_one_row_per_source() -> None:
    assert rows([RPM, RC], E.CANCEL, S.CANCELLED, "payment_cancelled") == [
        Transition(RPM, E.CANCEL, S.CANCELLED, "payment_cancelled"),
        Transition(RC, E.CANCEL, S.CANCELLED, "payment_cancelled"),
    ]


def test_table_listing_a_pair_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="lists a \\(state, event\\) pair twice"):
        TransitionTable(
            "Payment",
            [Transition(RPM, E.CANCEL, S.CANCELLED), Transition(RPM, E.CANCEL, S.FAILED)],
        )
