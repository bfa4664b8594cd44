"""Every resource's transition table against the table written out by hand in its own tests."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import pytest

from mocksrv.domain.api_keys.records import API_KEY_TRANSITIONS, ApiKeyEvent
from mocksrv.domain.disputes import DISPUTE_TRANSITIONS
from mocksrv.domain.legacy.tokens import LEGACY_TOKEN_TRANSITIONS, LegacyTokenEvent, LegacyTokenStatus
from mocksrv.domain.links.records import PAYMENT_LINK_TRANSITIONS, PaymentLinkEvent, PaymentLinkStatus
from mocksrv.domain.models import ApiKeyStatus
from mocksrv.domain.payments.states import PAYMENT_TRANSITIONS
from mocksrv.domain.payouts import PAYOUT_TRANSITIONS
from mocksrv.domain.recurring.records import MANDATE_TRANSITIONS, MandateEvent, MandateStatus
from mocksrv.domain.refunds import REFUND_TRANSITIONS
from mocksrv.domain.sandbox import TRANSITION_TABLES
from mocksrv.domain.transitions import TransitionTable
from mocksrv.domain.webhooks import DELIVERY_TRANSITIONS
from tests.unit import (
    test_disputes,
    test_payment_transitions,
    test_payouts,
    test_recurring,
    test_refunds,
    test_webhooks,
)

L, T = PaymentLinkStatus, LegacyTokenStatus

# Per resource: the table, its state and event types, and the expected rows: (state, event) ->
# (target, the webhook event it emits).
Expected = dict[tuple[Any, Any], tuple[Any, str | None]]
TABLES: dict[str, tuple[TransitionTable[Any, Any], type[StrEnum], type[StrEnum], Expected]] = {
    "payment": (
        PAYMENT_TRANSITIONS,
        test_payment_transitions.PaymentStatus,
        test_payment_transitions.PaymentEvent,
        test_payment_transitions.ALLOWED,
    ),
    "refund": (
        REFUND_TRANSITIONS,
        test_refunds.RefundStatus,
        test_refunds.RefundEvent,
        dict(test_refunds.ALLOWED),
    ),
    "payout": (
        PAYOUT_TRANSITIONS,
        test_payouts.PayoutStatus,
        test_payouts.PayoutEvent,
        test_payouts.ALLOWED,
    ),
    "dispute": (
        DISPUTE_TRANSITIONS,
        test_disputes.DisputeStatus,
        test_disputes.DisputeEvent,
        dict(test_disputes.ALLOWED),
    ),
    "webhook_delivery": (
        DELIVERY_TRANSITIONS,
        test_webhooks.DeliveryState,
        test_webhooks.DeliveryEvent,
        {pair: (target, None) for pair, target in test_webhooks.ALLOWED.items()},
    ),
    "mandate": (MANDATE_TRANSITIONS, MandateStatus, MandateEvent, test_recurring.ALLOWED),
    "api_key": (
        API_KEY_TRANSITIONS,
        ApiKeyStatus,
        ApiKeyEvent,
        {(ApiKeyStatus.ACTIVE, ApiKeyEvent.REVOKE): (ApiKeyStatus.REVOKED, None)},
    ),
    # A link's events are not sent: the payment's tell its story.
    "payment_link": (
        PAYMENT_LINK_TRANSITIONS,
        PaymentLinkStatus,
        PaymentLinkEvent,
        {
            (L.ACTIVE, PaymentLinkEvent.EXPIRE): (L.EXPIRED, None),
            (L.ACTIVE, PaymentLinkEvent.COMPLETE): (L.COMPLETED, None),
            (L.EXPIRED, PaymentLinkEvent.COMPLETE): (L.COMPLETED, None),
        },
    ),
    "legacy_token": (
        LEGACY_TOKEN_TRANSITIONS,
        LegacyTokenStatus,
        LegacyTokenEvent,
        {(T.ACTIVE, LegacyTokenEvent.EXPIRE): (T.EXPIRED, None)},
    ),
}

ALLOWED_CASES = [
    pytest.param(name, pair, expected, id=f"{name}:{pair[0].value}+{pair[1].value}")
    for name, (_, _, _, allowed) in TABLES.items()
    for pair, expected in allowed.items()
]
REFUSED_CASES = [
    pytest.param(name, (state, event), id=f"{name}:{state.value}+{event.value}")
    for name, (_, states, events, allowed) in TABLES.items()
    for state in states
    for event in events
    if (state, event) not in allowed
]


def test_every_table_of_the_sandbox_is_written_out_here() -> None:
    assert {name: table for name, (table, *_) in TABLES.items()} == TRANSITION_TABLES


@pytest.mark.parametrize("name", list(TABLES))
def test_table_lists_exactly_the_allowed_pairs(name: str) -> None:
    table, _, _, allowed = TABLES[name]
    assert {(row.source, row.event): (row.target, row.emits) for row in table.rows} == allowed


@pytest.mark.parametrize(("name", "pair", "expected"), ALLOWED_CASES)
def test_allowed_pair_leads_to_its_target_and_emits_its_event(
    name: str, pair: tuple[StrEnum, StrEnum], expected: tuple[StrEnum, str | None]
) -> None:
    row = TABLES[name][0].require(*pair)
    assert (row.target, row.emits) == expected


@pytest.mark.parametrize(("name", "pair"), REFUSED_CASES)
def test_refused_pair_is_absent_from_the_table(name: str, pair: tuple[StrEnum, StrEnum]) -> None:
    assert TABLES[name][0].find(*pair) is None
