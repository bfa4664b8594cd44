"""The statuses whose events mocksrv sends, per resource, in the order of their enums: what a profile's
webhook status lists show until the merchant sets them. Which events are sent is decisions section
6's alone; the lists a merchant sets are shown, and change nothing."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from mocksrv.domain.payments.states import PAYMENT_TRANSITIONS, PaymentStatus
from mocksrv.domain.payouts import PAYOUT_TRANSITIONS, PayoutStatus
from mocksrv.domain.refunds import REFUND_TRANSITIONS, RefundStatus
from mocksrv.domain.transitions import TransitionTable


def _reported(table: TransitionTable[Any, Any], statuses: Iterable[StrEnum]) -> tuple[str, ...]:
    """The statuses that a transition which sends an event leads to."""
    reached = {row.target for row in table.rows if row.emits is not None}
    return tuple(status.value for status in statuses if status in reached)


PAYMENT_STATUSES_REPORTED = _reported(PAYMENT_TRANSITIONS, PaymentStatus)
REFUND_STATUSES_REPORTED = _reported(REFUND_TRANSITIONS, RefundStatus)
PAYOUT_STATUSES_REPORTED = _reported(PAYOUT_TRANSITIONS, PayoutStatus)
