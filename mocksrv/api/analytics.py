"""Routes of /analytics/v1/merchant/metrics: metrics of payments, refunds and disputes.

The body is an object, or (as the real service takes it) an array holding exactly one. The answer
is `{"queryData": [...], "metaData": [...]}`, one row per time bucket and group.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from marshmallow import Schema, ValidationError, fields, validates_schema

from mocksrv.bodies import json_body, load, parsed_json, request_body
from mocksrv.contract import AnswerSchema, documented
from mocksrv.domain.analytics import (
    DISPUTE_SUBJECT,
    PAYMENT_SUBJECT,
    REFUND_SUBJECT,
    MetricsQuery,
    MetricsReport,
    Subject,
    TimeWindow,
)
from mocksrv.domain.clock import format_timestamp
from mocksrv.domain.errors import MalformedBody
from mocksrv.fieldtypes import Entries, StrictBoolean, Timestamp
from mocksrv.rest import authenticate, current_request, sandbox
from mocksrv.schema import RequestSchema

analytics = Blueprint("analytics", __name__)

Json = dict[str, Any]

# The value fields that are a share or an average: numbers; every other one counts, or sums minor units.
FRACTIONAL = frozenset(
    {"payment_success_rate", "avg_ticket_size", "connector_success_rate", "refund_success_rate"}
)


class TimeRangeSchema(RequestSchema):
    """ISO 8601 times; the real service reads them in camelCase or snake_case."""

    start = Timestamp(data_key="startTime")
    end = Timestamp(data_key="endTime", allow_none=True)
    start_time = Timestamp()
    end_time = Timestamp(allow_none=True)

    @validates_schema
    def has_start(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("start") is None and data.get("start_time") is None:
            raise ValidationError("Missing data for required field.", "startTime")


class TimeSeriesSchema(RequestSchema):
    granularity = fields.String(required=True)


class MetricsBodySchema(RequestSchema):
    time_range = fields.Nested(TimeRangeSchema, required=True, data_key="timeRange")
    metrics = fields.List(fields.String(), required=True)
    group_by_names = fields.List(fields.String(), data_key="groupByNames")
    filters = Entries(keys=fields.String(), values=fields.List(fields.String()))
    time_series = fields.Nested(TimeSeriesSchema, data_key="timeSeries", allow_none=True)
    delta = StrictBoolean()
    source = fields.String()  # where the real service reads from (BATCH); mocksrv reads its store


def _time_range_answer() -> type[Schema]:
    return AnswerSchema.from_dict(
        {"start_time": fields.String(), "end_time": fields.String()}, name="AnalyticsTimeRangeAnswerSchema"
    )


TimeRangeAnswerSchema = _time_range_answer()


def _value_field(name: str, **kwargs: Any) -> fields.Field[Any]:
    return fields.Float(**kwargs) if name in FRACTIONAL or "rate" in name else fields.Integer(**kwargs)


def _answer_schema(subject: Subject, totals: list[str]) -> type[Schema]:
    """What a subject's route answers: its rows, and its figures of the whole range."""
    title = subject.name.capitalize()
    row = AnswerSchema.from_dict(
        {
            **{name: _value_field(name, allow_none=True) for name in subject.value_fields},
            **{name: fields.String(allow_none=True) for name in subject.dimensions},
            "time_range": fields.Nested(TimeRangeAnswerSchema),
            "time_bucket": fields.String(),
        },
        name=f"{title}MetricsRowAnswerSchema",
    )
    delta = AnswerSchema.from_dict(
        {name: fields.Float(allow_none=True, metadata={"optional": True}) for name in subject.value_fields},
        name=f"{title}MetricsDeltaAnswerSchema",
    )
    meta = AnswerSchema.from_dict(
        {
            "current_time_range": fields.Nested(TimeRangeAnswerSchema),
            **{name: _value_field(name, allow_none=True) for name in totals},
            "previous_time_range": fields.Nested(TimeRangeAnswerSchema, metadata={"optional": True}),
            "delta": fields.Nested(delta, metadata={"optional": True}),
        },
        name=f"{title}MetricsMetaAnswerSchema",
    )
    return AnswerSchema.from_dict(
        {"queryData": fields.List(fields.Nested(row)), "metaData": fields.List(fields.Nested(meta))},
        name=f"{title}MetricsAnswerSchema",
    )


_PAYMENTS_ANSWER = _answer_schema(PAYMENT_SUBJECT, list(PAYMENT_SUBJECT.totals(PAYMENT_SUBJECT.empty)))
_REFUNDS_ANSWER = _answer_schema(REFUND_SUBJECT, list(REFUND_SUBJECT.totals(REFUND_SUBJECT.empty)))
_DISPUTES_ANSWER = _answer_schema(DISPUTE_SUBJECT, list(DISPUTE_SUBJECT.totals(DISPUTE_SUBJECT.empty)))
_body = MetricsBodySchema()


def query_body() -> Json:
    """The body: an object, or an array holding exactly one, as the real service takes it."""
    request_ = current_request()
    raw = request_body(request_)
    if not raw.lstrip().startswith(b"["):
        return json_body()
    data = parsed_json(request_, raw)
    if len(data) != 1 or not isinstance(data[0], dict):
        raise MalformedBody("expected a JSON object, or an array of exactly one")
    body: Json = data[0]
    return body


def metrics_query(body: Json) -> MetricsQuery:
    """The domain's query from a loaded body."""
    time_range = body["time_range"]
    start = time_range.get("start") or time_range["start_time"]
    end = time_range.get("end") or time_range.get("end_time")
    series = body.get("time_series")
    return MetricsQuery(
        start=start,
        end=end,
        metrics=tuple(body["metrics"]),
        group_by=tuple(body.get("group_by_names", ())),
        filters={key: tuple(values) for key, values in body.get("filters", {}).items()},
        granularity=None if series is None else series["granularity"],
        delta=body.get("delta", False),
    )


def _window_json(window: TimeWindow) -> Json:
    return {"start_time": format_timestamp(window.start), "end_time": format_timestamp(window.end)}


def report_json(subject: Subject, report: MetricsReport) -> Json:
    rows = []
    for row in report.rows:
        start = format_timestamp(row.start)
        rows.append(
            {
                **row.values,
                **row.dimensions,
                "time_range": {"start_time": start, "end_time": format_timestamp(row.end)},
                "time_bucket": start,
            }
        )
    meta: Json = {"current_time_range": _window_json(report.window), **report.totals}
    if report.previous is not None:
        meta["previous_time_range"] = _window_json(report.previous)
        meta["delta"] = report.delta
    return {"queryData": rows, "metaData": [meta]}


def _metrics(subject: Subject) -> Json:
    principal = authenticate()
    query = metrics_query(load(_body, query_body()))
    sandbox_ = sandbox()
    report = sandbox_.analytics.metrics(principal.merchant_id, subject, query)
    return report_json(subject, report)


@analytics.post("/analytics/v1/merchant/metrics/payments")
@documented(_PAYMENTS_ANSWER, body=_body)
def payment_metrics() -> Json:
    return _metrics(PAYMENT_SUBJECT)


@analytics.post("/analytics/v1/merchant/metrics/refunds")
@documented(_REFUNDS_ANSWER, body=_body)
def refund_metrics() -> Json:
    return _metrics(REFUND_SUBJECT)


@analytics.post("/analytics/v1/merchant/metrics/disputes")
@documented(_DISPUTES_ANSWER, body=_body)
def dispute_metrics() -> Json:
    return _metrics(DISPUTE_SUBJECT)
