"""Analytics: figures of payments, refunds and disputes made on known days of the mock clock.

Decisions section 4 (analytics: computed from the store over the mock clock, one row per time bucket
and group, `payment_success_rate` in percent) and section 2 (IR_04 naming the field).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mocksrv.domain.analytics import (
    DISPUTE_SUBJECT,
    PAYMENT_SUBJECT,
    REFUND_SUBJECT,
    AnalyticsService,
    MetricsQuery,
    MetricsReport,
    Subject,
)
from mocksrv.domain.errors import ErrorKind
from mocksrv.domain.sandbox import Sandbox
from tests.payloads import MERCHANT_ID, payment
from tests.unit.fakes import T0
from tests.unit.helpers import advance, error_of, raised_by

DAY = 24 * 3600
DAY1 = datetime(2026, 1, 22, tzinfo=UTC)  # the day of T0 (18:43:56.112 UTC)
DAY2 = DAY1 + timedelta(days=1)
DAY3 = DAY2 + timedelta(days=1)
LAST_MS = timedelta(milliseconds=1)
DECLINED = "4000000000000002"
REFUNDS_FAIL = "4000000000005126"
DISPUTED = "4000000000000259"
BASICS = ("payment_count", "payment_success_count", "payment_success_rate", "payment_processed_amount")


@pytest.fixture
def two_days(sandbox: Sandbox) -> Sandbox:
    """Day 1: two USD payments succeed (1000, 3000), one is declined; day 2: 500 USD and 700 EUR succeed."""
    pay(sandbox, amount=1000)
    pay(sandbox, amount=3000)
    pay(sandbox, DECLINED, amount=2000)
    advance(sandbox, DAY)
    pay(sandbox, amount=500)
    pay(sandbox, amount=700, currency="EUR")
    return sandbox


def pay(sandbox: Sandbox, number: str = "4242424242424242", **fields: Any) -> str:
    payment_id: str = sandbox.payments.create(MERCHANT_ID, payment(number, **fields)).payment_id
    return payment_id


def report(sandbox: Sandbox, subject: Subject = PAYMENT_SUBJECT, **asked: Any) -> MetricsReport:
    asked.setdefault("start", DAY1)
    asked.setdefault("metrics", BASICS)
    return AnalyticsService(sandbox.store, sandbox.clock).metrics(MERCHANT_ID, subject, MetricsQuery(**asked))


def table(result: MetricsReport, *names: str) -> list[tuple[Any, ...]]:
    """Each row as (bucket start, the grouped values, then the named figures)."""
    return [
        (
            row.start,
            *(value for value in row.dimensions.values() if value is not None),
            *(row.values[name] for name in names),
        )
        for row in result.rows
    ]


def test_daily_series_grouped_by_status_counts_each_day_apart(two_days: Sandbox) -> None:
    result = report(two_days, group_by=("status",), granularity="G_ONEDAY")
    # An amount asked for groups by currency too: no row adds two currencies.
    assert table(result, *BASICS) == [
        (DAY1, "USD", "authorization_failed", 1, 0, 0.0, 0),
        (DAY1, "USD", "charged", 2, 2, 100.0, 4000),
        (DAY2, "EUR", "charged", 1, 1, 100.0, 700),
        (DAY2, "USD", "charged", 1, 1, 100.0, 500),
    ]
    assert [(row.start, row.end) for row in result.rows] == [
        (DAY1, DAY2 - LAST_MS),
        (DAY1, DAY2 - LAST_MS),
        (DAY2, DAY3 - LAST_MS),
        (DAY2, DAY3 - LAST_MS),
    ]


def test_daily_series_without_groups_gives_the_success_rate_in_percent(two_days: Sandbox) -> None:
    result = report(two_days, granularity="G_ONEDAY", metrics=(*BASICS, "avg_ticket_size"))
    assert table(result, *BASICS, "avg_ticket_size") == [
        (DAY1, "USD", 3, 2, 200 / 3, 4000, 2000.0),
        (DAY2, "EUR", 1, 1, 100.0, 700, 700.0),
        (DAY2, "USD", 1, 1, 100.0, 500, 500.0),
    ]


def test_counts_alone_are_not_grouped_by_currency(two_days: Sandbox) -> None:
    result = report(two_days, granularity="G_ONEDAY", metrics=("payment_count", "payment_success_rate"))
    assert table(result, "payment_count", "payment_success_rate") == [(DAY1, 3, 200 / 3), (DAY2, 2, 100.0)]


def test_grouped_by_currency_and_status_gives_one_row_per_bucket_and_group(two_days: Sandbox) -> None:
    result = report(two_days, group_by=("currency", "status"), granularity="G_ONEDAY")
    assert table(result, "payment_count", "payment_processed_amount") == [
        (DAY1, "USD", "authorization_failed", 1, 0),
        (DAY1, "USD", "charged", 2, 4000),
        (DAY2, "EUR", "charged", 1, 700),
        (DAY2, "USD", "charged", 1, 500),
    ]


def test_without_a_time_series_one_bucket_spans_the_range(two_days: Sandbox) -> None:
    result = report(two_days, group_by=("currency",))
    now = T0 + timedelta(days=1)
    assert table(result, "payment_count", "payment_processed_amount") == [
        (DAY1, "EUR", 1, 700),
        (DAY1, "USD", 4, 4500),
    ]
    assert {(row.start, row.end) for row in result.rows} == {(DAY1, now)}
    assert (result.window.start, result.window.end) == (DAY1, now)  # the end defaults to the mock clock


def test_hourly_buckets_start_on_the_hour(sandbox: Sandbox) -> None:
    pay(sandbox, amount=100)  # 18:43:56.112
    advance(sandbox, 20 * 60)  # 19:03:56.112
    pay(sandbox, amount=200)
    pay(sandbox, amount=300)
    result = report(sandbox, granularity="G_ONEHOUR", metrics=("payment_count",))
    hour = DAY1 + timedelta(hours=18)
    assert table(result, "payment_count") == [(hour, 1), (hour + timedelta(hours=1), 2)]
    assert result.rows[0].end == hour + timedelta(hours=1) - LAST_MS


def test_the_range_leaves_out_payments_before_its_start_and_after_its_end(two_days: Sandbox) -> None:
    result = report(two_days, start=DAY2, end=DAY3, metrics=("payment_count",))
    assert table(result, "payment_count") == [(DAY2, 2)]
    result = report(two_days, start=DAY1, end=DAY2 - LAST_MS, metrics=("payment_count",))
    assert table(result, "payment_count") == [(DAY1, 3)]


def test_filters_keep_only_the_named_values(two_days: Sandbox) -> None:
    result = report(two_days, filters={"currency": ("EUR",)}, granularity="G_ONEDAY")
    assert table(result, "payment_count", "payment_processed_amount") == [(DAY2, "EUR", 1, 700)]
    result = report(two_days, filters={"status": ("authorization_failed", "voided")})
    assert table(result, "payment_count", "payment_success_count") == [(DAY1, "USD", 1, 0)]
    result = report(two_days, filters={"currency": ()}, metrics=("payment_count",))  # all: empty
    assert table(result, "payment_count") == [(DAY1, 5)]


def test_figures_not_asked_for_are_none(two_days: Sandbox) -> None:
    row = report(two_days, metrics=("payment_count",)).rows[0]
    assert row.values == {
        name: 5 if name == "payment_count" else None for name in PAYMENT_SUBJECT.value_fields
    }
    assert set(row.dimensions.values()) == {None}


def test_totals_cover_every_group_of_the_range(two_days: Sandbox) -> None:
    result = report(two_days, group_by=("status",), filters={"currency": ("USD",)}, granularity="G_ONEDAY")
    assert result.totals == {"total_payment_processed_amount": 4500, "total_payment_processed_count": 3}


@pytest.mark.parametrize("metrics", [BASICS, ("payment_count",)], ids=["amounts", "counts"])
def test_totals_of_two_currencies_add_no_amounts(two_days: Sandbox, metrics: tuple[str, ...]) -> None:
    result = report(two_days, metrics=metrics)
    assert result.totals == {"total_payment_processed_amount": None, "total_payment_processed_count": 4}


def test_delta_compares_with_the_window_just_before_of_the_same_length(two_days: Sandbox) -> None:
    result = report(two_days, start=DAY2, end=DAY3 - LAST_MS, delta=True, granularity="G_ONEDAY")
    assert result.previous is not None
    assert (result.previous.start, result.previous.end) == (DAY1, DAY2 - LAST_MS)
    assert result.delta == {
        "payment_success_rate": 100.0 - 200 / 3,
        "payment_count": 2 - 3,
        "payment_success_count": 0,
        "payment_processed_amount": None,  # day 2 holds EUR beside USD: no amount adds them
        "payment_processed_count": 0,
    }
    in_usd = report(
        two_days, start=DAY2, end=DAY3 - LAST_MS, delta=True, filters={"currency": ("USD",)}, metrics=BASICS
    )
    assert in_usd.delta is not None
    assert in_usd.delta["payment_processed_amount"] == 500 - 4000


def test_delta_of_a_rate_with_nothing_before_is_none(two_days: Sandbox) -> None:
    result = report(two_days, start=DAY1, end=DAY2 - LAST_MS, delta=True, metrics=("payment_success_rate",))
    assert result.delta == {"payment_success_rate": None}


def test_connector_success_rate_counts_only_attempted_payments(sandbox: Sandbox) -> None:
    pay(sandbox, amount=100)
    pay(sandbox, None)  # never confirmed: no attempt
    result = report(sandbox, metrics=("connector_success_rate", "payment_success_rate", "retries_count"))
    assert table(result, "connector_success_rate", "payment_success_rate", "retries_count") == [
        (DAY1, "USD", 100.0, 50.0, 0)
    ]


def test_sessionized_metrics_fill_the_same_fields(two_days: Sandbox) -> None:
    result = report(two_days, metrics=("sessionized_payment_count",))
    assert table(result, "payment_count") == [(DAY1, 5)]


def test_refund_metrics_count_successes_and_amounts(sandbox: Sandbox) -> None:
    sandbox.refunds.create(MERCHANT_ID, {"payment_id": pay(sandbox, amount=1000), "amount": 400})
    sandbox.refunds.create(MERCHANT_ID, {"payment_id": pay(sandbox, REFUNDS_FAIL, amount=900)})
    metrics = ("refund_count", "refund_success_count", "refund_success_rate", "refund_processed_amount")
    result = report(sandbox, REFUND_SUBJECT, metrics=metrics, group_by=("refund_status",))
    assert table(result, *metrics) == [
        (DAY1, "USD", "pending", 1, 0, 0.0, 0),
        (DAY1, "USD", "success", 1, 1, 100.0, 400),
    ]
    assert result.totals == {
        "total_refund_success_rate": 50.0,
        "total_refund_processed_amount": 400,
        "total_refund_processed_count": 1,
    }


def test_dispute_metrics_count_by_status(sandbox: Sandbox) -> None:
    pay(sandbox, DISPUTED, amount=1500)
    pay(sandbox, DISPUTED, amount=2500)
    metrics = ("dispute_status_metric", "total_amount_disputed")
    result = report(sandbox, DISPUTE_SUBJECT, metrics=metrics, group_by=("dispute_stage", "currency"))
    fields = ("total_dispute", "disputes_challenged", "disputes_lost", "total_amount_disputed")
    assert table(result, *fields) == [(DAY1, "dispute", "USD", 2, 0, 0, 4000)]


@pytest.mark.parametrize(("stage", "count"), [("dispute", 1), ("arbitration", 0), ("dispute_reversal", 0)])
def test_disputes_filter_on_any_of_the_real_stages(sandbox: Sandbox, stage: str, count: int) -> None:
    pay(sandbox, DISPUTED, amount=1500)
    metrics = ("dispute_status_metric",)
    result = report(sandbox, DISPUTE_SUBJECT, metrics=metrics, filters={"dispute_stage": (stage,)})
    assert [row.values["total_dispute"] for row in result.rows] == ([count] if count else [])


@pytest.mark.parametrize(
    ("asked", "param", "message"),
    [
        (
            {"metrics": ("payment_count", "refund_count", "nope")},
            "metrics",
            "unknown metric refund_count, nope; one of ",
        ),
        ({"metrics": ()}, "metrics", "name at least one metric"),
        ({"group_by": ("currency", "colour")}, "groupByNames", "unknown dimension colour; one of "),
        ({"filters": {"colour": ("red",)}}, "filters", "unknown filter colour; one of "),
        ({"filters": {"status": ("charged", "paid")}}, "filters.status", "unknown value paid"),
        ({"filters": {"currency": ("XYZ",)}}, "filters.currency", "unknown value XYZ"),
        ({"granularity": "G_ONEWEEK"}, "timeSeries.granularity", "unknown granularity G_ONEWEEK; one of "),
        ({"end": DAY1 - LAST_MS}, "timeRange.endTime", "the end is before the start"),
    ],
)
def test_unknown_names_are_refused_naming_them(
    sandbox: Sandbox, asked: dict[str, Any], param: str, message: str
) -> None:
    error = raised_by(lambda: report(sandbox, **asked))
    code, kind, text, where = error_of(error)
    assert (code, kind, where) == ("IR_04", ErrorKind.INVALID, param)
    assert text.startswith(f"Invalid value provided: {param}: {message}")


def test_a_dimension_of_another_subject_is_unknown(sandbox: Sandbox) -> None:
    error = raised_by(
        lambda: report(sandbox, REFUND_SUBJECT, metrics=("refund_count",), group_by=("status",))
    )
    assert error.message.startswith("Invalid value provided: groupByNames: unknown dimension status; one of ")
