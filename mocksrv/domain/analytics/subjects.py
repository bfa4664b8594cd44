"""What can be measured of payments, refunds and disputes: dimensions, filters, metrics.

Names follow the real service's analytics: its metric and dimension names, its filter keys, and the
status names of its analytics tables (a payment's status is its attempt's, `charged` for a
succeeded one; a refund's is `success`, `failure`, `pending` or `manual_review`).

Every metric is computed from a few additive counters per group (`Counters`), so that groups
merge by adding them, and a total is the sum of its groups. A subject's counters follow from a few
facts of low cardinality (its `facts`, such as the status) and the amounts of the records: records
are grouped by those facts too, and each group keeps only its amounts, so that one read of each
record is all a report needs of it (a pass over 100,000 records costs some 40 ms, memory-bound).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mocksrv.domain.disputes import DISPUTE_STAGES, DISPUTES, MODELLED_STAGE, DisputeStatus
from mocksrv.domain.models import Payment
from mocksrv.domain.money import currencies
from mocksrv.domain.payments.service import PAYMENTS
from mocksrv.domain.payments.states import ATTEMPT_STATUS as PAYMENT_ATTEMPT_STATUS
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.domain.refunds import REFUNDS, RefundStatus

Counters = tuple[int, ...]
Value = int | float | None
Shown = str | None


def _text(raw: tuple[Any, ...]) -> Shown:
    """A value read from one attribute, as the answer shows it."""
    value = raw[0]
    return None if value is None else str(value)


def _nothing(raw: tuple[Any, ...]) -> Shown:
    return None


@dataclass(frozen=True, slots=True)
class Dimension:
    """A field records are grouped and filtered by.

    `reads` names the record attributes it is read from (read together in one step for all the
    dimensions of a request), or is a function of the record for a value that needs more work;
    `show` turns what was read, as a tuple, into the value shown. `values` lists what a filter may
    name when the real service takes a fixed set.
    """

    reads: tuple[str, ...] | Callable[[Any], Hashable]
    show: Callable[[tuple[Any, ...]], Shown] = _text
    values: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Subject:
    """One analytics route: its records, dimensions, filters, metrics and how they are computed."""

    name: str
    kind: str  # the store's kind of record
    dimensions: Mapping[str, Dimension]  # in the order a row shows them
    filters: Mapping[str, str]  # filter key -> the dimension it filters on
    metrics: Mapping[str, tuple[str, ...]]  # metric name -> the row fields it fills
    value_fields: tuple[str, ...]  # every value field of a row, in order
    facts: tuple[str, ...]  # the attributes the counters depend on, besides the amount
    count: Callable[[tuple[Any, ...], list[int]], Counters]  # (facts, amounts) -> a group's counters
    empty: Counters  # the counters of no record
    values: Callable[[Counters], dict[str, Value]]  # every value field, from a group's counters
    totals: Callable[[Counters], dict[str, Value]]  # the metaData figures of the whole range
    # The row and metaData fields that add amounts up: a figure of one currency only, never of two.
    amounts: frozenset[str] = frozenset()

    def adds_amounts(self, metrics: Iterable[str]) -> bool:
        """Whether any of the metrics fills a field that adds amounts up."""
        return any(not self.amounts.isdisjoint(self.metrics[metric]) for metric in metrics)


def _rate(part: int, whole: int) -> float | None:
    """A share in percent; None when there is nothing to share."""
    return None if whole == 0 else part * 100 / whole


def _card(name: str) -> Callable[[Any], Hashable]:
    def read(payment: Payment) -> Hashable:
        card = (payment.payment_method_data or {}).get("card")
        return card.get(name) if isinstance(card, dict) else None

    return read


# -- payments -------------------------------------------------------------------------------

# A payment's status as the status of its (latest) attempt, the analytics' `status`.
ATTEMPT_STATUS: Mapping[PaymentStatus, str] = {
    **PAYMENT_ATTEMPT_STATUS,
    PaymentStatus.REQUIRES_PAYMENT_METHOD: "payment_method_awaited",
    PaymentStatus.REQUIRES_CONFIRMATION: "confirmation_awaited",
}
# Every attempt status of the real service: what a `status` filter may name.
ATTEMPT_STATUSES = frozenset(
    {
        *ATTEMPT_STATUS.values(),
        "started",
        "authentication_failed",
        "router_declined",
        "authentication_successful",
        "authorizing",
        "cod_initiated",
        "void_initiated",
        "capture_initiated",
        "capture_failed",
        "void_failed",
        "auto_refunded",
        "failure",
        "device_data_collection_pending",
        "integrity_failure",
    }
)


def _attempt_status(raw: tuple[Any, ...]) -> Shown:
    status, error_code = raw
    if error_code == "authentication_failed":
        return "authentication_failed"
    return ATTEMPT_STATUS[PaymentStatus(status)]


def _payment_counters(facts: tuple[Any, ...], amounts: list[int]) -> Counters:
    status, attempts = facts
    count = len(amounts)
    if status != PaymentStatus.SUCCEEDED:
        return (count, 0, 0, count if attempts else 0, count if attempts > 1 else 0, 0)
    amount = sum(amounts)
    return (count, count, amount, count if attempts else 0, *((count, amount) if attempts > 1 else (0, 0)))


def _payment_values(counters: Counters) -> dict[str, Value]:
    count, charged, amount, attempted, retried, retried_amount = counters
    return {
        "payment_success_rate": _rate(charged, count),
        "payment_count": count,
        "payment_success_count": charged,
        "payment_processed_amount": amount,
        "payment_processed_count": charged,
        "avg_ticket_size": None if charged == 0 else amount / charged,
        "retries_count": retried,
        "retries_amount_processed": retried_amount,
        "connector_success_rate": _rate(charged, attempted),
    }


def _payment_totals(counters: Counters) -> dict[str, Value]:
    return {"total_payment_processed_amount": counters[2], "total_payment_processed_count": counters[1]}


_PAYMENT_METRICS: dict[str, tuple[str, ...]] = {
    "payment_success_rate": ("payment_success_rate",),
    "payment_count": ("payment_count",),
    "payment_success_count": ("payment_success_count",),
    "payment_processed_amount": ("payment_processed_amount", "payment_processed_count"),
    "avg_ticket_size": ("avg_ticket_size",),
    "retries_count": ("retries_count", "retries_amount_processed"),
    "connector_success_rate": ("connector_success_rate",),
}

PAYMENT_SUBJECT = Subject(
    name="payments",
    kind=PAYMENTS,
    dimensions={
        "currency": Dimension(("currency",), values=currencies()),
        "status": Dimension(("status", "error_code"), _attempt_status, ATTEMPT_STATUSES),
        "connector": Dimension(("connector",)),
        "authentication_type": Dimension(
            ("authentication_type",), values=frozenset({"three_ds", "no_three_ds"})
        ),
        "payment_method": Dimension(("payment_method",)),
        "payment_method_type": Dimension(("payment_method_type",)),
        "client_source": Dimension((), _nothing),  # the SDK's; the mock records none
        "client_version": Dimension((), _nothing),
        "profile_id": Dimension(("profile_id",)),
        "card_network": Dimension(_card("card_network"), _text),
        "merchant_id": Dimension(("merchant_id",)),
        "card_last_4": Dimension(_card("last4"), _text),
        "card_issuer": Dimension(_card("card_issuer"), _text),
        "error_reason": Dimension(("error_message",)),
        "routing_approach": Dimension((), _nothing),
    },
    filters={
        "currency": "currency",
        "status": "status",
        "connector": "connector",
        "auth_type": "authentication_type",
        "payment_method": "payment_method",
        "payment_method_type": "payment_method_type",
        "client_source": "client_source",
        "client_version": "client_version",
        "card_network": "card_network",
        "profile_id": "profile_id",
        "merchant_id": "merchant_id",
        "card_last_4": "card_last_4",
        "card_issuer": "card_issuer",
        "error_reason": "error_reason",
    },
    # Each payment has one attempt, so the per-payment ("sessionized") metrics equal the others.
    metrics={**_PAYMENT_METRICS, **{f"sessionized_{name}": f for name, f in _PAYMENT_METRICS.items()}},
    value_fields=tuple(_payment_values((0,) * 6)),
    facts=("status", "attempt_count"),
    count=_payment_counters,
    empty=(0,) * 6,
    values=_payment_values,
    totals=_payment_totals,
    amounts=frozenset(
        {
            "payment_processed_amount",
            "avg_ticket_size",
            "retries_amount_processed",
            "total_payment_processed_amount",
        }
    ),
)


# -- refunds --------------------------------------------------------------------------------

REFUND_STATUS: Mapping[RefundStatus, str] = {
    RefundStatus.SUCCEEDED: "success",
    RefundStatus.FAILED: "failure",
    RefundStatus.PENDING: "pending",
    RefundStatus.REVIEW: "manual_review",
}
REFUND_TYPES = frozenset({"instant_refund", "regular_refund", "retry_refund"})


def _refund_status(raw: tuple[Any, ...]) -> Shown:
    return REFUND_STATUS[RefundStatus(raw[0])]


def _refund_type(raw: tuple[Any, ...]) -> Shown:
    return "instant_refund" if raw[0] in ("Instant", "instant") else "regular_refund"


def _refund_counters(facts: tuple[Any, ...], amounts: list[int]) -> Counters:
    succeeded = facts[0] == RefundStatus.SUCCEEDED
    return (len(amounts), len(amounts) if succeeded else 0, sum(amounts) if succeeded else 0)


def _refund_values(counters: Counters) -> dict[str, Value]:
    count, succeeded, amount = counters
    return {
        "refund_success_rate": _rate(succeeded, count),
        "refund_count": count,
        "refund_success_count": succeeded,
        "refund_processed_amount": amount,
        "refund_processed_count": succeeded,
    }


def _refund_totals(counters: Counters) -> dict[str, Value]:
    count, succeeded, amount = counters
    return {
        "total_refund_success_rate": _rate(succeeded, count),
        "total_refund_processed_amount": amount,
        "total_refund_processed_count": succeeded,
    }


_REFUND_METRICS: dict[str, tuple[str, ...]] = {
    "refund_success_rate": ("refund_success_rate",),
    "refund_count": ("refund_count",),
    "refund_success_count": ("refund_success_count",),
    "refund_processed_amount": ("refund_processed_amount", "refund_processed_count"),
}

REFUND_SUBJECT = Subject(
    name="refunds",
    kind=REFUNDS,
    dimensions={
        "currency": Dimension(("currency",), values=currencies()),
        "refund_status": Dimension(
            ("status",), _refund_status, frozenset({*REFUND_STATUS.values(), "transaction_failure"})
        ),
        "connector": Dimension(("connector",)),
        "refund_type": Dimension(("refund_type",), _refund_type, REFUND_TYPES),
        "profile_id": Dimension(("profile_id",)),
        "refund_reason": Dimension(("reason",)),
        "refund_error_message": Dimension(("error_message",)),
    },
    filters={
        name: name
        for name in (
            "currency",
            "refund_status",
            "connector",
            "refund_type",
            "profile_id",
            "refund_reason",
            "refund_error_message",
        )
    },
    metrics={**_REFUND_METRICS, **{f"sessionized_{name}": f for name, f in _REFUND_METRICS.items()}},
    value_fields=tuple(_refund_values((0,) * 3)),
    facts=("status",),
    count=_refund_counters,
    empty=(0,) * 3,
    values=_refund_values,
    totals=_refund_totals,
    amounts=frozenset({"refund_processed_amount", "total_refund_processed_amount"}),
)


# -- disputes -------------------------------------------------------------------------------


def _dispute_counters(facts: tuple[Any, ...], amounts: list[int]) -> Counters:
    status, count, amount = facts[0], len(amounts), sum(amounts)
    return (
        count,
        count if status == DisputeStatus.CHALLENGED else 0,
        count if status == DisputeStatus.WON else 0,
        count if status == DisputeStatus.LOST else 0,
        amount,
        amount if status == DisputeStatus.LOST else 0,
    )


def _dispute_values(counters: Counters) -> dict[str, Value]:
    count, challenged, won, lost, amount, lost_amount = counters
    return {
        "disputes_challenged": challenged,
        "disputes_won": won,
        "disputes_lost": lost,
        "total_dispute": count,
        "total_amount_disputed": amount,
        "total_dispute_lost_amount": lost_amount,
    }


def _dispute_totals(counters: Counters) -> dict[str, Value]:
    return {"total_disputed_amount": counters[4], "total_dispute_lost_amount": counters[5]}


_STATUS_COUNTS = ("disputes_challenged", "disputes_won", "disputes_lost", "total_dispute")
_DISPUTE_METRICS: dict[str, tuple[str, ...]] = {
    "dispute_status_metric": _STATUS_COUNTS,
    "total_amount_disputed": ("total_amount_disputed",),
    "total_dispute_lost_amount": ("total_dispute_lost_amount",),
    # The names the status counts had before they were asked for as one metric.
    **{name: (name,) for name in _STATUS_COUNTS},
}

DISPUTE_SUBJECT = Subject(
    name="disputes",
    kind=DISPUTES,
    dimensions={
        "dispute_stage": Dimension((), lambda raw: MODELLED_STAGE, DISPUTE_STAGES),
        "connector": Dimension(("connector",)),
        "currency": Dimension(("currency",), values=currencies()),
        "dispute_status": Dimension(("status",), values=frozenset(s.value for s in DisputeStatus)),
    },
    filters={name: name for name in ("dispute_stage", "connector", "currency", "dispute_status")},
    metrics={
        **_DISPUTE_METRICS,
        **{f"sessionized_{name}": _DISPUTE_METRICS[name] for name in list(_DISPUTE_METRICS)[:3]},
    },
    value_fields=tuple(_dispute_values((0,) * 6)),
    facts=("status",),
    count=_dispute_counters,
    empty=(0,) * 6,
    values=_dispute_values,
    totals=_dispute_totals,
    amounts=frozenset({"total_amount_disputed", "total_dispute_lost_amount", "total_disputed_amount"}),
)

SUBJECTS: Mapping[str, Subject] = {s.name: s for s in (PAYMENT_SUBJECT, REFUND_SUBJECT, DISPUTE_SUBJECT)}
