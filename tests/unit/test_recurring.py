"""Saved payment methods and mandates: the mandate transition table, what a mandate allows, the
magic-value criteria and checks added for them, and cards saved and charged again without their
number or CVC."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

import pytest

from mocksrv.domain.errors import ErrorKind, InvalidField, InvalidState
from mocksrv.domain.events import EventType
from mocksrv.domain.models import Payment
from mocksrv.domain.payments.cards import card_key
from mocksrv.domain.payments.outcomes import (
    ON_SESSION,
    SUCCESS,
    Context,
    Outcome,
    OutcomeResult,
    OutcomeRule,
    OutcomeTable,
)
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
    SavedPaymentMethod,
    mandate_refusal,
)
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.transitions import action_of
from mocksrv.representations import event_json
from tests.payloads import MERCHANT_ID, PROFILE_ID, payment
from tests.unit.fakes import T0, at
from tests.unit.helpers import advance, error_of, event_types_of, raised_by

S = PaymentStatus
M = MandateStatus
E = MandateEvent

ACCEPTANCE = {
    "acceptance_type": "online",
    "accepted_at": "2026-01-22T18:43:56Z",
    "online": {"ip_address": "203.0.113.7", "user_agent": "Mozilla/5.0"},
}

CARD_OFF_SESSION_AUTH = "4000002760003184"  # authentication always: declined off session
CARD_OFF_SESSION_FUNDS = "4000000000000341"  # insufficient funds off session only
CARD_3DS_REQUIRED = "4000000000003063"
CARD_3DS_SUPPORTED = "4000002500003155"
CARD_CVC_FAIL = "4000000000000101"
CARD_ZIP_FAIL = "4000000000000036"
CARD_DECLINE = "4000000000000002"
CARD_3DS = "4000003800000446"
CARD_ASYNC = "4000000000000077"

# -- 1. the mandate transition table ---------------------------------------------------------------

# Every allowed (state, event) pair: the target and the webhook event.
ALLOWED: dict[tuple[MandateStatus, MandateEvent], tuple[MandateStatus, str | None]] = {
    (M.PENDING, E.ACTIVATE): (M.ACTIVE, "mandate_active"),
    (M.PENDING, E.LAPSE): (M.INACTIVE, None),
    (M.ACTIVE, E.LAPSE): (M.INACTIVE, None),
    (M.ACTIVE, E.USE_UP): (M.INACTIVE, None),
    (M.PENDING, E.REVOKE): (M.REVOKED, "mandate_revoked"),
    (M.ACTIVE, E.REVOKE): (M.REVOKED, "mandate_revoked"),
    (M.INACTIVE, E.REVOKE): (M.REVOKED, "mandate_revoked"),
}
REFUSED = [pair for pair in itertools.product(MandateStatus, MandateEvent) if pair not in ALLOWED]

# The states each operation is allowed from, in the order the IR_14 message names them.
EXPECTED_STATES = {
    "activate": ["pending"],
    "lapse": ["pending", "active"],
    "use": ["active"],
    "revoke": ["pending", "active", "inactive"],
}
PARTICIPLES = {"activate": "activated", "lapse": "lapsed", "use": "used", "revoke": "revoked"}


def _pair_id(pair: tuple[StrEnum, StrEnum]) -> str:
    return f"{pair[0].value}--{pair[1].value}"


def test_as_data_renders_every_row() -> None:
    assert MANDATE_TRANSITIONS.as_data() == [
        {"from": "pending", "event": "activate.setup_paid", "to": "active", "emits": "mandate_active"},
        {"from": "pending", "event": "lapse.setup_failed", "to": "inactive", "emits": None},
        {"from": "active", "event": "lapse.setup_failed", "to": "inactive", "emits": None},
        {"from": "active", "event": "use.single_use_charged", "to": "inactive", "emits": None},
        {"from": "pending", "event": "revoke.merchant", "to": "revoked", "emits": "mandate_revoked"},
        {"from": "active", "event": "revoke.merchant", "to": "revoked", "emits": "mandate_revoked"},
        {"from": "inactive", "event": "revoke.merchant", "to": "revoked", "emits": "mandate_revoked"},
    ]


@pytest.mark.parametrize("pair", REFUSED, ids=_pair_id)
def test_refused_pair_raises_IR_14_naming_the_expected_states(
    pair: tuple[MandateStatus, MandateEvent],
) -> None:
    status, event = pair
    with pytest.raises(InvalidState) as raised:
        MANDATE_TRANSITIONS.require(status, event)
    action = action_of(event)
    assert (raised.value.code, raised.value.kind, raised.value.message) == (
        "IR_14",
        ErrorKind.STATE,
        f"This Mandate could not be {PARTICIPLES[action]} because it has a status of {status.value}. "
        f"The expected state is {', '.join(EXPECTED_STATES[action])}",
    )


def test_refused_pairs_cover_the_rest_of_the_product() -> None:
    assert len(REFUSED) == len(MandateStatus) * len(MandateEvent) - len(ALLOWED) == 9


@pytest.mark.parametrize("action", list(EXPECTED_STATES))
def test_expected_states_of_each_action(action: str) -> None:
    assert MANDATE_TRANSITIONS.expected_states(action) == EXPECTED_STATES[action]


def test_revoked_is_final() -> None:
    assert MANDATE_TRANSITIONS.allowed_events(M.REVOKED) == []


# -- the mandate's life through the services -------------------------------------------------------


def new_customer(sandbox: Sandbox) -> str:
    return sandbox.customers.create(MERCHANT_ID, {"name": "Ada Lovelace"}).customer_id


def mandate_data(kind: str = "multi_use", **limits: Any) -> dict[str, Any]:
    return {
        "customer_acceptance": copy.deepcopy(ACCEPTANCE),
        "mandate_type": {kind: {"amount": 5000, "currency": "USD", **limits}},
    }


def setup(
    sandbox: Sandbox, number: str = "4242424242424242", customer_id: str | None = None, **overrides: Any
) -> Payment:
    """A payment with a mandate for the customer (a new one unless given)."""
    overrides.setdefault("mandate_data", mandate_data())
    customer = customer_id or new_customer(sandbox)
    return sandbox.payments.create(MERCHANT_ID, payment(number, customer_id=customer, **overrides))


def charge(sandbox: Sandbox, mandate_id: str, amount: int = 1000, **overrides: Any) -> Payment:
    """A merchant-initiated charge of a mandate."""
    body = {
        "amount": amount,
        "currency": "USD",
        "profile_id": PROFILE_ID,
        "confirm": True,
        "off_session": True,
        "recurring_details": {"type": "mandate_id", "data": mandate_id},
        **overrides,
    }
    return sandbox.payments.create(MERCHANT_ID, body)


def mandate_of(sandbox: Sandbox, paid: Payment) -> Mandate:
    assert paid.mandate_id is not None
    return sandbox.mandates.retrieve(MERCHANT_ID, paid.mandate_id)


def payment_count(sandbox: Sandbox) -> int:
    return sandbox.store.count("payment", MERCHANT_ID)


def test_paid_setup_payment_activates_its_mandate(sandbox: Sandbox) -> None:
    paid = setup(sandbox)
    mandate = mandate_of(sandbox, paid)
    assert (paid.status, mandate.status, mandate.payment_id, mandate.payment_method_id) == (
        S.SUCCEEDED,
        M.ACTIVE,
        paid.payment_id,
        paid.payment_method_id,
    )
    assert event_types_of(sandbox, mandate.mandate_id) == ["mandate_active"]


def test_mandate_waits_pending_for_a_challenged_setup_payment(sandbox: Sandbox) -> None:
    challenged = setup(sandbox, CARD_3DS)
    assert (challenged.status, mandate_of(sandbox, challenged).status) == (
        S.REQUIRES_CUSTOMER_ACTION,
        M.PENDING,
    )
    finished = sandbox.payments.authenticate(MERCHANT_ID, challenged.payment_id, completed=True)
    assert (finished.status, mandate_of(sandbox, finished).status) == (S.SUCCEEDED, M.ACTIVE)


def test_declined_setup_payment_lapses_its_mandate_without_an_event(sandbox: Sandbox) -> None:
    declined = setup(sandbox, CARD_DECLINE)
    mandate = mandate_of(sandbox, declined)
    assert (declined.status, mandate.status) == (S.FAILED, M.INACTIVE)
    assert event_types_of(sandbox, mandate.mandate_id) == []
    assert sandbox.store.get(PAYMENT_METHODS, MERCHANT_ID, mandate.payment_method_id) is None


def test_cancelled_setup_payment_lapses_its_mandate(sandbox: Sandbox) -> None:
    challenged = setup(sandbox, CARD_3DS)
    sandbox.payments.cancel(MERCHANT_ID, challenged.payment_id)
    assert mandate_of(sandbox, challenged).status is M.INACTIVE


def test_single_use_mandate_is_used_up_by_one_charge(sandbox: Sandbox) -> None:
    mandate = mandate_of(sandbox, setup(sandbox, mandate_data=mandate_data("single_use")))
    charged = charge(sandbox, mandate.mandate_id, 5000)
    after = sandbox.mandates.retrieve(MERCHANT_ID, mandate.mandate_id)
    assert charged.status is S.SUCCEEDED
    assert (after.status, after.amount_captured, after.charged) == (M.INACTIVE, 5000, (charged.payment_id,))
    refused = raised_by(lambda: charge(sandbox, mandate.mandate_id, 1))
    assert error_of(refused) == (
        "HE_03",
        ErrorKind.INVALID,
        "Mandate Validation Failed: the mandate is inactive, not active",
        "mandate_id",
    )


@pytest.mark.parametrize("state", [M.PENDING, M.ACTIVE, M.INACTIVE])
def test_revoke_from_each_revocable_state(sandbox: Sandbox, state: MandateStatus) -> None:
    number = {M.PENDING: CARD_3DS, M.ACTIVE: "4242424242424242", M.INACTIVE: CARD_DECLINE}[state]
    mandate = mandate_of(sandbox, setup(sandbox, number))
    assert mandate.status is state
    advance(sandbox, 60)
    revoked = sandbox.mandates.revoke(MERCHANT_ID, mandate.mandate_id)
    assert (revoked.status, revoked.updated_at) == (M.REVOKED, at(60))
    assert sandbox.mandates.retrieve(MERCHANT_ID, mandate.mandate_id) == revoked
    assert event_types_of(sandbox, mandate.mandate_id)[-1] == "mandate_revoked"


def test_revoking_a_revoked_mandate_is_HE_03_and_changes_nothing(sandbox: Sandbox) -> None:
    mandate = mandate_of(sandbox, setup(sandbox))
    revoked = sandbox.mandates.revoke(MERCHANT_ID, mandate.mandate_id)
    events_before = event_types_of(sandbox, mandate.mandate_id)
    advance(sandbox, 60)
    error = raised_by(lambda: sandbox.mandates.revoke(MERCHANT_ID, mandate.mandate_id))
    assert isinstance(error, MandateInvalid)
    assert error_of(error) == (
        "HE_03",
        ErrorKind.INVALID,
        "Mandate Validation Failed: the mandate has already been revoked",
        None,
    )
    assert sandbox.mandates.retrieve(MERCHANT_ID, mandate.mandate_id) == revoked
    assert (
        events_before == event_types_of(sandbox, mandate.mandate_id) == ["mandate_active", "mandate_revoked"]
    )


def test_charging_a_revoked_mandate_is_refused_and_stores_nothing(sandbox: Sandbox) -> None:
    mandate = mandate_of(sandbox, setup(sandbox))
    sandbox.mandates.revoke(MERCHANT_ID, mandate.mandate_id)
    count = payment_count(sandbox)
    error = raised_by(lambda: charge(sandbox, mandate.mandate_id))
    assert error_of(error) == (
        "HE_03",
        ErrorKind.INVALID,
        "Mandate Validation Failed: the mandate has been revoked",
        "mandate_id",
    )
    assert payment_count(sandbox) == count


def test_multi_use_charges_count_against_the_limit(sandbox: Sandbox) -> None:
    mandate = mandate_of(sandbox, setup(sandbox))  # 5000 USD in all
    first = charge(sandbox, mandate.mandate_id, 3000)
    second = charge(sandbox, mandate.mandate_id, 2000)
    after = sandbox.mandates.retrieve(MERCHANT_ID, mandate.mandate_id)
    assert (after.status, after.amount_captured, after.charged) == (
        M.ACTIVE,
        5000,
        (first.payment_id, second.payment_id),
    )
    count = payment_count(sandbox)
    error = raised_by(lambda: charge(sandbox, mandate.mandate_id, 1))
    assert error.message == (
        "Mandate Validation Failed: request amount and the amounts already charged are greater than "
        "mandate amount"
    )
    assert payment_count(sandbox) == count


# -- 2. what a mandate allows ----------------------------------------------------------------------


def a_mandate(**changes: Any) -> Mandate:
    base = Mandate(
        mandate_id="man_test",
        merchant_id=MERCHANT_ID,
        status=M.ACTIVE,
        created=T0,
        updated_at=T0,
        payment_id="pay_setup",
        payment_method_id="pm_saved",
        payment_method="card",
        mandate_type=MandateType.SINGLE_USE,
        amount=5000,
        currency="USD",
        start_date=T0 - timedelta(days=1),
        end_date=T0 + timedelta(days=30),
    )
    return replace(base, **changes)


# (case, mandate changes, amount, currency, now, the reason it is refused)
REFUSALS: list[tuple[str, dict[str, Any], int, str, datetime, str]] = [
    ("revoked", {"status": M.REVOKED}, 1000, "USD", T0, "the mandate has been revoked"),
    ("pending", {"status": M.PENDING}, 1000, "USD", T0, "the mandate is pending, not active"),
    ("inactive", {"status": M.INACTIVE}, 1000, "USD", T0, "the mandate is inactive, not active"),
    (
        "before start",
        {"start_date": T0 + timedelta(microseconds=1)},
        1000,
        "USD",
        T0,
        "the mandate has not started yet",
    ),
    (
        "after end",
        {"end_date": T0 - timedelta(microseconds=1)},
        1000,
        "USD",
        T0,
        "the mandate has expired",
    ),
    ("other currency", {}, 1000, "EUR", T0, "the mandate is in USD, not EUR"),
    (
        "single use over the limit",
        {},
        5001,
        "USD",
        T0,
        "request amount is greater than mandate amount",
    ),
    (
        "multi use over the limit in all",
        {"mandate_type": MandateType.MULTI_USE, "amount_captured": 4000},
        1001,
        "USD",
        T0,
        "request amount and the amounts already charged are greater than mandate amount",
    ),
    (
        "revoked wins over expired",
        {"status": M.REVOKED, "end_date": T0 - timedelta(days=1)},
        1000,
        "USD",
        T0,
        "the mandate has been revoked",
    ),
    (
        "expired wins over another currency",
        {"end_date": T0 - timedelta(days=1)},
        1000,
        "EUR",
        T0,
        "the mandate has expired",
    ),
]

# (case, mandate changes, amount, currency, now): allowed, at the limits exactly.
ALLOWANCES: list[tuple[str, dict[str, Any], int, str, datetime]] = [
    ("well inside", {}, 1000, "USD", T0),
    ("single use at the limit", {}, 5000, "USD", T0),
    (
        "multi use at the limit in all",
        {"mandate_type": MandateType.MULTI_USE, "amount_captured": 4000},
        1000,
        "USD",
        T0,
    ),
    ("multi use one charge at the limit", {"mandate_type": MandateType.MULTI_USE}, 5000, "USD", T0),
    ("at the start date", {"start_date": T0}, 1000, "USD", T0),
    ("at the end date", {"end_date": T0}, 1000, "USD", T0),
    (
        "no limits at all",
        {"amount": None, "currency": None, "start_date": None, "end_date": None},
        10**9,
        "JPY",
        T0,
    ),
]


@pytest.mark.parametrize(
    ("changes", "amount", "currency", "now", "reason"),
    [case[1:] for case in REFUSALS],
    ids=[case[0] for case in REFUSALS],
)
def test_mandate_refusal_names_the_reason(
    changes: dict[str, Any], amount: int, currency: str, now: datetime, reason: str
) -> None:
    assert mandate_refusal(a_mandate(**changes), amount, currency, now) == reason


@pytest.mark.parametrize(
    ("changes", "amount", "currency", "now"),
    [case[1:] for case in ALLOWANCES],
    ids=[case[0] for case in ALLOWANCES],
)
def test_mandate_allows_a_charge_at_its_limits(
    changes: dict[str, Any], amount: int, currency: str, now: datetime
) -> None:
    assert mandate_refusal(a_mandate(**changes), amount, currency, now) is None


def test_mandate_invalid_is_HE_03_with_the_reason() -> None:
    error = MandateInvalid("the mandate has expired", param="mandate_id")
    assert error_of(error) == (
        "HE_03",
        ErrorKind.INVALID,
        "Mandate Validation Failed: the mandate has expired",
        "mandate_id",
    )


def test_charge_at_the_single_use_limit_is_allowed_one_more_refused(sandbox: Sandbox) -> None:
    first = mandate_of(sandbox, setup(sandbox, mandate_data=mandate_data("single_use")))
    second = mandate_of(sandbox, setup(sandbox, mandate_data=mandate_data("single_use")))
    count = payment_count(sandbox)
    error = raised_by(lambda: charge(sandbox, first.mandate_id, 5001))
    assert error.message == "Mandate Validation Failed: request amount is greater than mandate amount"
    assert payment_count(sandbox) == count
    assert charge(sandbox, second.mandate_id, 5000).status is S.SUCCEEDED


def test_charge_at_the_end_date_is_allowed_and_a_moment_later_refused(sandbox: Sandbox) -> None:
    end = (T0 + timedelta(seconds=3600)).isoformat()
    mandate = mandate_of(sandbox, setup(sandbox, mandate_data=mandate_data(end_date=end)))
    advance(sandbox, 3600)
    assert charge(sandbox, mandate.mandate_id, 1000).status is S.SUCCEEDED
    advance(sandbox, 0.001)
    error = raised_by(lambda: charge(sandbox, mandate.mandate_id, 1000))
    assert error.message == "Mandate Validation Failed: the mandate has expired"


def test_charge_before_the_start_date_is_refused(sandbox: Sandbox) -> None:
    start = (T0 + timedelta(days=1)).isoformat()
    mandate = mandate_of(sandbox, setup(sandbox, mandate_data=mandate_data(start_date=start)))
    error = raised_by(lambda: charge(sandbox, mandate.mandate_id, 1000))
    assert error.message == "Mandate Validation Failed: the mandate has not started yet"
    advance(sandbox, 24 * 3600)
    assert charge(sandbox, mandate.mandate_id, 1000).status is S.SUCCEEDED


@pytest.mark.parametrize(
    ("limits", "dates"),
    [
        ({"end_date": "2026-01-22T19:43:56"}, (None, datetime(2026, 1, 22, 19, 43, 56, tzinfo=UTC))),
        (
            {"start_date": "2026-01-22", "end_date": "2099-01-01"},
            (datetime(2026, 1, 22, tzinfo=UTC), datetime(2099, 1, 1, tzinfo=UTC)),
        ),
    ],
    ids=["time without offset", "dates only"],
)
def test_mandate_dates_without_an_offset_are_utc(
    sandbox: Sandbox, limits: dict[str, str], dates: tuple[datetime | None, datetime | None]
) -> None:
    # A time without an offset is UTC everywhere else (clock.parse_timestamp, the API's schema).
    mandate = mandate_of(sandbox, setup(sandbox, mandate_data=mandate_data(**limits)))
    assert charge(sandbox, mandate.mandate_id, 1000).status is S.SUCCEEDED
    assert (mandate.start_date, mandate.end_date) == dates


# -- 3. the rules' new criteria and the checks -----------------------------------------------------


def rule(**criteria: Any) -> OutcomeRule:
    return OutcomeRule(Outcome(OutcomeResult.REVIEW), **criteria)


CARD = {"card": {"card_number": "4242424242424242"}}


@pytest.mark.parametrize(
    ("wanted", "context", "matches"),
    [
        (True, Context(off_session=True), True),
        (True, ON_SESSION, False),
        (False, ON_SESSION, True),
        (False, Context(off_session=True), False),
        (None, ON_SESSION, True),
        (None, Context(off_session=True), True),
    ],
)
def test_rule_matches_off_session_as_asked(wanted: bool | None, context: Context, matches: bool) -> None:
    assert rule(off_session=wanted).matches("card", "credit", CARD, context) is matches


@pytest.mark.parametrize(
    ("wanted", "asked", "matches"),
    [
        ("three_ds", "three_ds", True),
        ("three_ds", "no_three_ds", False),
        ("three_ds", None, False),
        ("no_three_ds", "no_three_ds", True),
        ("no_three_ds", None, False),
        (None, "three_ds", True),
        (None, None, True),
    ],
)
def test_rule_matches_authentication_type_as_asked(
    wanted: str | None, asked: str | None, matches: bool
) -> None:
    context = Context(authentication_type=asked)
    assert rule(authentication_type=wanted).matches("card", "credit", CARD, context) is matches


def test_context_defaults_to_on_session_without_authentication() -> None:
    assert Context() == ON_SESSION == Context(off_session=False, authentication_type=None)


def test_rule_keeps_the_key_of_each_card_number() -> None:
    numbers = frozenset({CARD_DECLINE, "4242424242424242"})
    assert rule(card_numbers=numbers).card_keys == {card_key(CARD_DECLINE), card_key("4242424242424242")}


def test_card_key_is_a_keyed_digest_that_hides_the_number() -> None:
    key = card_key(CARD_DECLINE)
    assert key == card_key(CARD_DECLINE) != card_key("4242424242424242")
    assert len(key) == 64
    assert CARD_DECLINE not in key
    assert key != hashlib.sha256(CARD_DECLINE.encode()).hexdigest()


@pytest.mark.parametrize(
    ("card", "matches"),
    [
        ({"card_key": card_key(CARD_DECLINE)}, True),
        ({"card_key": card_key("4242424242424242")}, False),
        ({}, False),
        # a number sent decides; a key sent beside it is not looked at
        ({"card_number": "4242424242424242", "card_key": card_key(CARD_DECLINE)}, False),
        ({"card_number": CARD_DECLINE, "card_key": card_key("4242424242424242")}, True),
    ],
    ids=["its key", "another key", "neither", "number wins over key", "number matches"],
)
def test_saved_card_matches_by_the_key_of_its_number(card: dict[str, str], matches: bool) -> None:
    assert rule(card_numbers=frozenset({CARD_DECLINE})).matches("card", "credit", {"card": card}) is matches


def test_rule_without_card_numbers_matches_a_saved_card() -> None:
    # A rule that names no card matches a saved card as any other.
    assert rule(payment_method="card").matches("card", "credit", {"card": {"card_key": "whatever"}})


def test_table_match_passes_the_context_to_each_rule() -> None:
    table = OutcomeTable.from_data(
        {
            "rules": [
                {
                    "match": {"card_number": [CARD_OFF_SESSION_FUNDS], "off_session": True},
                    "outcome": {"result": "decline", "error_code": "insufficient_funds"},
                },
                {
                    "match": {"card_number": [CARD_3DS_REQUIRED], "authentication_type": "three_ds"},
                    "outcome": {"result": "challenge", "then": {"result": "success"}},
                },
            ]
        }
    )
    funds = {"card": {"card_number": CARD_OFF_SESSION_FUNDS}}
    three_ds = {"card": {"card_key": card_key(CARD_3DS_REQUIRED)}}
    assert table.match("card", "credit", funds, Context(off_session=True)).error_code == "insufficient_funds"
    assert table.match("card", "credit", funds) is SUCCESS
    assert table.match("card", None, three_ds, Context(authentication_type="three_ds")).result is (
        OutcomeResult.CHALLENGE
    )
    assert table.match("card", None, three_ds, Context(authentication_type="no_three_ds")) is SUCCESS


def test_checks_are_read_into_the_outcome() -> None:
    table = OutcomeTable.from_data(
        {
            "rules": [
                {
                    "outcome": {
                        "result": "success",
                        "checks": {"cvc_check": "fail", "address_line1_check": "unavailable"},
                    }
                }
            ]
        }
    )
    assert table.rules[0].outcome == Outcome(
        OutcomeResult.SUCCESS, checks=(("cvc_check", "fail"), ("address_line1_check", "unavailable"))
    )


def test_outcome_without_checks_has_none() -> None:
    assert (
        OutcomeTable.from_data({"rules": [{"outcome": {"result": "success"}}]}).rules[0].outcome.checks == ()
    )


def test_to_data_writes_the_new_criteria_and_checks() -> None:
    data = {
        "rules": [
            {
                "name": "new fields",
                "match": {
                    "payment_method": "card",
                    "card_number": [CARD_CVC_FAIL],
                    "off_session": False,
                    "authentication_type": "no_three_ds",
                },
                "outcome": {"result": "success", "checks": {"address_postal_code_check": "fail"}},
            },
            {"match": {"off_session": True}, "outcome": {"result": "decline"}},
        ]
    }
    table = OutcomeTable.from_data(data)
    assert table.to_data() == {
        "rules": [
            data["rules"][0],
            {
                "match": {"off_session": True},
                "outcome": {
                    "result": "decline",
                    "error_code": "card_declined",
                    "error_message": "Your card was declined.",
                },
            },
        ]
    }
    assert OutcomeTable.from_data(table.to_data()).rules == table.rules


def test_to_data_leaves_out_criteria_not_given() -> None:
    assert rule().to_data() == {"match": {}, "outcome": {"result": "review"}}


def _rule_with(section: str, key: str, value: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"match": {"card_number": ["4242424242424242"]}, "outcome": {"result": "success"}}
    item[section][key] = value
    return {"rules": [{"outcome": {"result": "success"}}, item]}


CHECKS = "cvc_check, address_line1_check, address_postal_code_check"
BAD_TABLES: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "off_session a string",
        _rule_with("match", "off_session", "true"),
        "rules.1.match.off_session",
        "Invalid value provided: rules.1.match.off_session: true or false",
    ),
    (
        "off_session a number",
        _rule_with("match", "off_session", 1),
        "rules.1.match.off_session",
        "Invalid value provided: rules.1.match.off_session: true or false",
    ),
    (
        "authentication_type unknown",
        _rule_with("match", "authentication_type", "sca"),
        "rules.1.match.authentication_type",
        "Invalid value provided: rules.1.match.authentication_type: three_ds or no_three_ds",
    ),
    (
        "authentication_type in capitals",
        _rule_with("match", "authentication_type", "THREE_DS"),
        "rules.1.match.authentication_type",
        "Invalid value provided: rules.1.match.authentication_type: three_ds or no_three_ds",
    ),
    (
        "authentication_type not a string",
        _rule_with("match", "authentication_type", True),
        "rules.1.match.authentication_type",
        "Invalid value provided: rules.1.match.authentication_type",
    ),
    (
        "checks not an object",
        _rule_with("outcome", "checks", ["cvc_check"]),
        "rules.1.outcome.checks",
        "Invalid value provided: rules.1.outcome.checks: an object of card check to result",
    ),
    (
        "unknown check",
        _rule_with("outcome", "checks", {"cvc_check": "fail", "zip_check": "fail"}),
        "rules.1.outcome.checks.zip_check",
        f"Invalid value provided: rules.1.outcome.checks.zip_check: one of {CHECKS}",
    ),
    (
        "unknown check result",
        _rule_with("outcome", "checks", {"cvc_check": "failed"}),
        "rules.1.outcome.checks.cvc_check",
        "Invalid value provided: rules.1.outcome.checks.cvc_check: one of pass, fail, unavailable",
    ),
    (
        "check result not a string",
        _rule_with("outcome", "checks", {"address_line1_check": False}),
        "rules.1.outcome.checks.address_line1_check",
        "Invalid value provided: rules.1.outcome.checks.address_line1_check: one of pass, fail, unavailable",
    ),
    (
        "checks inside then",
        {
            "rules": [
                {
                    "outcome": {
                        "result": "challenge",
                        "then": {"result": "success", "checks": {"cvc_check": "maybe"}},
                    }
                }
            ]
        },
        "rules.0.outcome.then.checks.cvc_check",
        "Invalid value provided: rules.0.outcome.then.checks.cvc_check: one of pass, fail, unavailable",
    ),
    (
        "unknown match field",
        _rule_with("match", "three_ds", True),
        "rules.1.match.three_ds",
        "Invalid value provided: rules.1.match.three_ds: unknown field",
    ),
]


@pytest.mark.parametrize(
    ("data", "param", "message"), [case[1:] for case in BAD_TABLES], ids=[case[0] for case in BAD_TABLES]
)
def test_bad_new_fields_are_refused_naming_the_path(data: dict[str, Any], param: str, message: str) -> None:
    with pytest.raises(InvalidField) as raised:
        OutcomeTable.from_data(copy.deepcopy(data))
    assert (raised.value.code, raised.value.param, raised.value.message) == ("IR_04", param, message)


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("match", "off_session", True),
        ("match", "off_session", False),
        ("match", "authentication_type", "three_ds"),
        ("match", "authentication_type", "no_three_ds"),
        ("outcome", "checks", {"cvc_check": "pass", "address_line1_check": "fail"}),
        ("outcome", "checks", {}),
    ],
)
def test_good_values_of_the_new_fields_are_accepted(section: str, key: str, value: Any) -> None:
    assert len(OutcomeTable.from_data(_rule_with(section, key, value)).rules) == 2


# -- 4. the default fixture's new rules, through the services --------------------------------------


def pay(sandbox: Sandbox, number: str | None, **overrides: Any) -> Payment:
    return sandbox.payments.create(MERCHANT_ID, payment(number, **overrides))


CHALLENGE_WITH_3DS = [CARD_3DS_REQUIRED, CARD_3DS_SUPPORTED, CARD_OFF_SESSION_AUTH]


@pytest.mark.parametrize("number", CHALLENGE_WITH_3DS)
def test_card_challenges_when_the_payment_asks_for_three_ds(sandbox: Sandbox, number: str) -> None:
    challenged = pay(sandbox, number, authentication_type="three_ds")
    assert (challenged.status, challenged.next_outcome) == (S.REQUIRES_CUSTOMER_ACTION, SUCCESS)
    finished = sandbox.payments.authenticate(MERCHANT_ID, challenged.payment_id, completed=True)
    assert (finished.status, finished.error_code) == (S.SUCCEEDED, None)


@pytest.mark.parametrize("number", CHALLENGE_WITH_3DS)
@pytest.mark.parametrize(
    "overrides", [{}, {"authentication_type": "no_three_ds"}], ids=["none", "no_three_ds"]
)
def test_card_succeeds_without_three_ds(sandbox: Sandbox, number: str, overrides: dict[str, str]) -> None:
    paid = pay(sandbox, number, **overrides)
    assert (paid.status, paid.error_code, paid.amount_received) == (S.SUCCEEDED, None, 1000)


@pytest.mark.parametrize("number", CHALLENGE_WITH_3DS)
def test_card_challenges_when_the_confirmation_asks_for_three_ds(sandbox: Sandbox, number: str) -> None:
    created = pay(sandbox, None)
    body = {
        "payment_method": "card",
        "payment_method_type": "credit",
        "payment_method_data": payment(number)["payment_method_data"],
        "authentication_type": "three_ds",
    }
    confirmed = sandbox.payments.confirm(MERCHANT_ID, created.payment_id, body)
    assert (confirmed.authentication_type, confirmed.status) == ("three_ds", S.REQUIRES_CUSTOMER_ACTION)


@pytest.mark.parametrize(
    ("number", "overrides"),
    [(CARD_OFF_SESSION_AUTH, {}), (CARD_3DS_REQUIRED, {"authentication_type": "three_ds"}), (CARD_3DS, {})],
)
def test_a_challenge_without_the_customer_is_declined_authentication_required(
    sandbox: Sandbox, number: str, overrides: dict[str, str]
) -> None:
    paid = pay(sandbox, number, off_session=True, **overrides)
    assert (paid.status, paid.error_code, paid.error_message) == (
        S.FAILED,
        "authentication_required",
        "The card requires authentication, and the customer is not present.",
    )


def test_insufficient_funds_card_fails_only_off_session(sandbox: Sandbox) -> None:
    assert pay(sandbox, CARD_OFF_SESSION_FUNDS).status is S.SUCCEEDED
    off = pay(sandbox, CARD_OFF_SESSION_FUNDS, off_session=True)
    assert (off.status, off.error_code, off.error_message) == (
        S.FAILED,
        "insufficient_funds",
        "Your card has insufficient funds.",
    )


@pytest.mark.parametrize(
    ("number", "checks"),
    [
        (
            CARD_CVC_FAIL,
            {"cvc_check": "fail", "address_line1_check": "pass", "address_postal_code_check": "pass"},
        ),
        (
            CARD_ZIP_FAIL,
            {"cvc_check": "pass", "address_line1_check": "pass", "address_postal_code_check": "fail"},
        ),
        (
            "4242424242424242",
            {"cvc_check": "pass", "address_line1_check": "pass", "address_postal_code_check": "pass"},
        ),
    ],
)
def test_card_succeeds_with_its_payment_checks(sandbox: Sandbox, number: str, checks: dict[str, str]) -> None:
    paid = pay(sandbox, number)
    assert paid.status is S.SUCCEEDED
    assert paid.payment_method_data is not None
    assert paid.payment_method_data["card"]["payment_checks"] == checks


def test_failing_check_wins_over_a_missing_address(sandbox: Sandbox) -> None:
    paid = pay(sandbox, CARD_ZIP_FAIL, billing=None)
    assert paid.payment_method_data is not None
    assert paid.payment_method_data["card"]["payment_checks"] == {
        "cvc_check": "pass",
        "address_line1_check": "unavailable",
        "address_postal_code_check": "fail",
    }


# -- 5. saved cards: never the number or CVC, matched by their key ---------------------------------

CVC = "7391"


def _strings(value: Any) -> list[str]:
    """Every key and string value inside plain data or a record's repr."""
    if isinstance(value, dict):
        return [*value.keys(), *itertools.chain.from_iterable(_strings(v) for v in value.values())]
    if isinstance(value, list | tuple):
        return list(itertools.chain.from_iterable(_strings(v) for v in value))
    return [value] if isinstance(value, str) else []


def assert_hides_card(text: str, plain: Any, number: str) -> None:
    assert number not in text
    assert f"'{CVC}'" not in text
    for found in _strings(plain):
        assert number not in found
        assert found != CVC
        assert found not in ("card_number", "card_cvc")


def save_by_setup(sandbox: Sandbox, number: str, **overrides: Any) -> Payment:
    body = payment(number, customer_id=new_customer(sandbox), mandate_data=mandate_data(), **overrides)
    body["payment_method_data"]["card"]["card_cvc"] = CVC
    return sandbox.payments.create(MERCHANT_ID, body)


def test_setup_payment_saves_no_number_or_cvc_anywhere(sandbox: Sandbox) -> None:
    paid = save_by_setup(sandbox, CARD_OFF_SESSION_FUNDS)
    assert paid.status is S.SUCCEEDED
    assert paid.payment_method_id is not None
    assert paid.mandate_id is not None
    saved = sandbox.store.get(PAYMENT_METHODS, MERCHANT_ID, paid.payment_method_id)
    mandate = sandbox.store.get(MANDATES, MERCHANT_ID, paid.mandate_id)
    assert isinstance(saved, SavedPaymentMethod)
    assert isinstance(mandate, Mandate)
    assert saved.card is not None
    assert mandate.card is not None
    for record, card in ((saved, saved.card), (mandate, mandate.card)):
        assert_hides_card(repr(record), card, CARD_OFF_SESSION_FUNDS)
    assert (saved.card["last4"], saved.card["card_isin"], saved.card_key) == (
        "0341",
        "400000",
        card_key(CARD_OFF_SESSION_FUNDS),
    )
    events = sandbox.store.events(MERCHANT_ID)
    assert [e.event_type for e in events] == [EventType.PAYMENT_SUCCEEDED, EventType.MANDATE_ACTIVE]
    for event in events:
        webhook = event_json(event, "http://127.0.0.1/", sandbox)
        assert_hides_card(repr(event.resource) + json.dumps(webhook), webhook, CARD_OFF_SESSION_FUNDS)
    stored_payment = sandbox.payments.retrieve(MERCHANT_ID, paid.payment_id)
    assert_hides_card(repr(stored_payment), stored_payment.payment_method_data, CARD_OFF_SESSION_FUNDS)


def test_card_saved_alone_keeps_no_number_or_cvc(sandbox: Sandbox) -> None:
    fields = {
        "payment_method": "card",
        "payment_method_type": "credit",
        "customer_id": new_customer(sandbox),
        "card": {
            "card_number": CARD_DECLINE,
            "card_exp_month": "12",
            "card_exp_year": "2099",
            "card_holder_name": "Ada Lovelace",
            "card_cvc": CVC,
        },
    }
    saved = sandbox.payment_methods.create(MERCHANT_ID, fields)
    assert saved.card is not None
    assert_hides_card(repr(saved), saved.card, CARD_DECLINE)
    assert saved.card_key == card_key(CARD_DECLINE)


def save_alone(sandbox: Sandbox, number: str) -> SavedPaymentMethod:
    fields = {
        "payment_method": "card",
        "payment_method_type": "credit",
        "customer_id": new_customer(sandbox),
        "card": {
            "card_number": number,
            "card_exp_month": "12",
            "card_exp_year": "2099",
            "card_holder_name": "Ada Lovelace",
        },
    }
    return sandbox.payment_methods.create(MERCHANT_ID, fields)


def pay_with_token(sandbox: Sandbox, token: str, **overrides: Any) -> Payment:
    body = {
        "amount": 1000,
        "currency": "USD",
        "profile_id": PROFILE_ID,
        "confirm": True,
        "return_url": "https://shop.example/return",
        "payment_token": token,
        **overrides,
    }
    return sandbox.payments.create(MERCHANT_ID, body)


def test_saved_decline_card_is_declined_by_its_key(sandbox: Sandbox) -> None:
    saved = save_alone(sandbox, CARD_DECLINE)
    paid = pay_with_token(sandbox, saved.payment_token)
    assert (paid.status, paid.error_code, paid.payment_method_id, paid.customer_id, paid.card_key) == (
        S.FAILED,
        "card_declined",
        saved.payment_method_id,
        saved.customer_id,
        card_key(CARD_DECLINE),
    )


def test_saved_cvc_fail_card_keeps_its_failing_check(sandbox: Sandbox) -> None:
    saved = save_alone(sandbox, CARD_CVC_FAIL)
    paid = pay_with_token(sandbox, saved.payment_token, card_cvc="123")
    assert paid.status is S.SUCCEEDED
    assert paid.payment_method_data is not None
    assert paid.payment_method_data["card"]["payment_checks"]["cvc_check"] == "fail"


def test_saved_card_without_a_rule_succeeds(sandbox: Sandbox) -> None:
    saved = save_alone(sandbox, "4012888888881881")
    assert pay_with_token(sandbox, saved.payment_token).status is S.SUCCEEDED


@pytest.mark.parametrize("number", CHALLENGE_WITH_3DS)
def test_saved_card_challenges_with_three_ds_by_its_key(sandbox: Sandbox, number: str) -> None:
    saved = save_alone(sandbox, number)
    paid = pay_with_token(sandbox, saved.payment_token, authentication_type="three_ds")
    assert paid.status is S.REQUIRES_CUSTOMER_ACTION


def test_mandate_charge_of_the_insufficient_funds_card_is_declined(sandbox: Sandbox) -> None:
    paid = save_by_setup(sandbox, CARD_OFF_SESSION_FUNDS)
    assert paid.mandate_id is not None
    charged = charge(sandbox, paid.mandate_id, 1000)
    assert (charged.status, charged.error_code, charged.mandate_id, charged.payment_method_id) == (
        S.FAILED,
        "insufficient_funds",
        paid.mandate_id,
        paid.payment_method_id,
    )
    mandate = sandbox.mandates.retrieve(MERCHANT_ID, paid.mandate_id)
    assert (mandate.status, mandate.amount_captured, mandate.charged) == (M.ACTIVE, 0, (charged.payment_id,))


def test_mandate_charge_of_the_authentication_card_is_declined(sandbox: Sandbox) -> None:
    paid = save_by_setup(sandbox, CARD_OFF_SESSION_AUTH)
    assert paid.status is S.SUCCEEDED
    assert paid.mandate_id is not None
    charged = charge(sandbox, paid.mandate_id, 1000)
    assert (charged.status, charged.error_code) == (S.FAILED, "authentication_required")


def test_saved_card_charged_on_session_by_token_succeeds(sandbox: Sandbox) -> None:
    paid = save_by_setup(sandbox, CARD_OFF_SESSION_FUNDS)
    saved = sandbox.payment_methods.retrieve(MERCHANT_ID, str(paid.payment_method_id))
    again = pay_with_token(sandbox, saved.payment_token)
    assert (again.status, again.payment_method_id) == (S.SUCCEEDED, saved.payment_method_id)


def test_card_saved_on_session_is_refused_off_session(sandbox: Sandbox) -> None:
    paid = pay(
        sandbox, "4242424242424242", customer_id=new_customer(sandbox), setup_future_usage="on_session"
    )
    assert paid.payment_method_id is not None
    count = payment_count(sandbox)
    body = off_session_charge(paid.payment_method_id)
    error = raised_by(lambda: sandbox.payments.create(MERCHANT_ID, body))
    assert error_of(error) == (
        "HE_03",
        ErrorKind.INVALID,
        "Mandate Validation Failed: the payment method was not saved for payments without the customer "
        "(save it with setup_future_usage: off_session)",
        "recurring_details.data",
    )
    assert payment_count(sandbox) == count


def off_session_charge(payment_method_id: str) -> dict[str, Any]:
    """A merchant-initiated payment of 1000 USD with a saved method."""
    return {
        "amount": 1000,
        "currency": "USD",
        "profile_id": PROFILE_ID,
        "confirm": True,
        "off_session": True,
        "recurring_details": {"type": "payment_method_id", "data": payment_method_id},
    }


def test_card_saved_off_session_is_charged_off_session_by_its_key(sandbox: Sandbox) -> None:
    customer = new_customer(sandbox)
    paid = pay(sandbox, CARD_OFF_SESSION_FUNDS, customer_id=customer, setup_future_usage="off_session")
    assert paid.payment_method_id is not None
    body = off_session_charge(paid.payment_method_id)
    charged = sandbox.payments.create(MERCHANT_ID, body)
    assert (charged.status, charged.error_code, charged.customer_id) == (
        S.FAILED,
        "insufficient_funds",
        customer,
    )


def test_declined_setup_payment_saves_no_card(sandbox: Sandbox) -> None:
    customer = new_customer(sandbox)
    declined = pay(sandbox, CARD_DECLINE, customer_id=customer, setup_future_usage="off_session")
    assert (declined.status, declined.payment_method_id is not None) == (S.FAILED, True)
    assert sandbox.payment_methods.of_customer(MERCHANT_ID, customer) == []
