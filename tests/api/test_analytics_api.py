"""POST /analytics/v1/merchant/metrics/{payments,refunds,disputes}: the answer's shape and every error row.

Decisions section 4 (analytics: an object or a one-element array; `queryData`, `metaData`) and
section 2 (the error rows: IR_01, IR_04 naming the field, IR_06).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api
from tests.payloads import PUBLISHABLE_KEY, payment

PAYMENTS = "/analytics/v1/merchant/metrics/payments"
REFUNDS = "/analytics/v1/merchant/metrics/refunds"
DISPUTES = "/analytics/v1/merchant/metrics/disputes"
START = "2026-01-01T00:00:00Z"
BODY: dict[str, Any] = {
    "timeRange": {"startTime": START, "endTime": "2099-01-01T00:00:00Z"},
    "metrics": ["payment_count", "payment_success_rate"],
    "groupByNames": ["currency"],
    "filters": {"currency": ["USD"], "status": []},
    "timeSeries": {"granularity": "G_ONE_DAY"},
    "delta": False,
    "source": "BATCH",
}
NOT_ASKED = [
    "payment_success_count",
    "payment_processed_amount",
    "payment_processed_count",
    "avg_ticket_size",
    "retries_count",
    "retries_amount_processed",
    "connector_success_rate",
]
NOT_GROUPED = [
    "status",
    "connector",
    "authentication_type",
    "payment_method",
    "payment_method_type",
    "client_source",
    "client_version",
    "profile_id",
    "card_network",
    "merchant_id",
    "card_last_4",
    "card_issuer",
    "error_reason",
    "routing_approach",
]


def invalid(param: str, message: str) -> dict[str, Any]:
    return {
        "error": {
            "type": "invalid_request",
            "code": "IR_04",
            "message": f"Invalid value provided: {param}: {message}",
            "param": param,
        }
    }


def malformed(detail: str) -> dict[str, Any]:
    return {
        "error": {"type": "invalid_request", "code": "IR_06", "message": f"Json deserialize error: {detail}"}
    }


@pytest.fixture
def day(api: Api, frozen: str) -> str:
    """Two USD payments of the frozen day, one declined; the bucket's start."""
    for number in ("4242424242424242", "4000000000000002"):
        assert api.post("/payments", payment(number)).status_code == 200
    return frozen[:10] + "T00:00:00.000Z"


def test_payment_metrics_answer_a_row_per_bucket_and_group(api: Api, day: str, frozen: str) -> None:
    response = api.post(PAYMENTS, BODY)
    assert response.status_code == 200, response.json
    assert response.json == {
        "queryData": [
            {
                "payment_count": 2,
                "payment_success_rate": 50.0,
                **dict.fromkeys(NOT_ASKED),
                "currency": "USD",
                **dict.fromkeys(NOT_GROUPED),
                "time_range": {"start_time": day, "end_time": day[:11] + "23:59:59.999Z"},
                "time_bucket": day,
            }
        ],
        "metaData": [
            {
                "current_time_range": {
                    "start_time": "2026-01-01T00:00:00.000Z",
                    "end_time": "2099-01-01T00:00:00.000Z",
                },
                "total_payment_processed_amount": 1000,
                "total_payment_processed_count": 1,
            }
        ],
    }


def test_amounts_of_two_currencies_are_never_added_together(api: Api, frozen: str) -> None:
    for amount, currency in ((1000, "USD"), (500, "JPY")):
        assert api.post("/payments", payment(amount=amount, currency=currency)).status_code == 200
    body = {"timeRange": {"startTime": START}, "metrics": ["payment_processed_amount", "avg_ticket_size"]}

    answer = api.post(PAYMENTS, body).json

    rows = [
        (row["currency"], row["payment_processed_amount"], row["avg_ticket_size"])
        for row in answer["queryData"]
    ]
    assert rows == [("JPY", 500, 500.0), ("USD", 1000, 1000.0)]
    assert answer["metaData"][0]["total_payment_processed_amount"] is None
    assert answer["metaData"][0]["total_payment_processed_count"] == 2


def test_a_one_element_array_is_taken_as_the_object(api: Api, day: str) -> None:
    assert api.post(PAYMENTS, [BODY]).json == api.post(PAYMENTS, BODY).json


def test_delta_adds_the_previous_window_and_the_changes(api: Api, day: str, frozen: str) -> None:
    body = {"timeRange": {"start_time": START}, "metrics": ["payment_count"], "delta": True}
    meta = api.post(PAYMENTS, body).json["metaData"][0]
    assert meta["current_time_range"] == {"start_time": "2026-01-01T00:00:00.000Z", "end_time": frozen}
    assert meta["previous_time_range"]["end_time"] == "2025-12-31T23:59:59.999Z"
    assert meta["delta"] == {"payment_count": 2}


@pytest.mark.parametrize(
    ("route", "metric"),
    [(PAYMENTS, "payment_count"), (REFUNDS, "refund_count"), (DISPUTES, "total_amount_disputed")],
)
def test_delta_from_the_calendars_first_day_cuts_the_previous_window_there(
    api: Api, day: str, frozen: str, route: str, metric: str
) -> None:
    body = {
        "timeRange": {"startTime": "0001-01-01T00:00:00Z", "endTime": "9999-12-31T23:59:59Z"},
        "metrics": [metric],
        "delta": True,
    }
    response = api.post(route, body)

    assert response.status_code == 200
    assert response.json["metaData"][0]["previous_time_range"] == {
        "start_time": "0001-01-01T00:00:00.000Z",
        "end_time": "0001-01-01T00:00:00.000Z",
    }


def test_refund_metrics_answer_refund_figures(api: Api, frozen: str) -> None:
    payment_id = api.post("/payments", payment()).json["payment_id"]
    assert api.post("/refunds", {"payment_id": payment_id, "amount": 300}).status_code == 200
    body = {
        "timeRange": {"startTime": START},
        "metrics": ["refund_processed_amount"],
        "groupByNames": ["refund_status"],
    }
    rows = api.post(REFUNDS, body).json["queryData"]
    assert [(row["refund_status"], row["refund_processed_amount"], row["refund_count"]) for row in rows] == [
        ("success", 300, None)
    ]


def test_dispute_metrics_answer_dispute_figures(api: Api, frozen: str) -> None:
    assert api.post("/payments", payment("4000000000000259", amount=1500)).status_code == 200
    body = {"timeRange": {"startTime": START}, "metrics": ["dispute_status_metric", "total_amount_disputed"]}
    answer = api.post(DISPUTES, body).json
    assert [(row["total_dispute"], row["total_amount_disputed"]) for row in answer["queryData"]] == [
        (1, 1500)
    ]
    assert answer["metaData"][0]["total_disputed_amount"] == 1500


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"metrics": ["payment_count", "refund_count"]}, "metrics: unknown metric refund_count; one of "),
        ({"metrics": []}, "metrics: name at least one metric"),
        ({"groupByNames": ["colour"]}, "groupByNames: unknown dimension colour; one of "),
        ({"filters": {"colour": ["red"]}}, "filters: unknown filter colour; one of "),
        ({"filters": {"status": ["paid"]}}, "filters.status: unknown value paid"),
        (
            {"timeSeries": {"granularity": "G_ONEWEEK"}},
            "timeSeries.granularity: unknown granularity G_ONEWEEK; one of ",
        ),
    ],
)
def test_unknown_names_get_ir_04_naming_them(api: Api, change: dict[str, Any], expected: str) -> None:
    response = api.post(PAYMENTS, {**BODY, **change})
    assert response.status_code == 400
    error = response.json["error"]
    param = expected.split(":")[0]
    assert (error["type"], error["code"], error["param"]) == ("invalid_request", "IR_04", param)
    assert error["message"].startswith(f"Invalid value provided: {expected}")


@pytest.mark.parametrize(
    ("filters", "param"),
    [
        ({"currency": ["USD", None]}, "filters.currency.1"),
        ({"currency": "USD"}, "filters.currency"),
        ({"currency": None}, "filters.currency"),
    ],
)
def test_a_filter_of_the_wrong_type_is_named_by_its_path_in_the_body(
    api: Api, filters: dict[str, Any], param: str
) -> None:
    response = api.post(PAYMENTS, {**BODY, "filters": filters})

    assert (response.status_code, response.json["error"]["code"], response.json["error"]["param"]) == (
        400,
        "IR_04",
        param,
    )


def test_an_unknown_metric_answer_lists_the_known_ones(api: Api) -> None:
    response = api.post(DISPUTES, {**BODY, "metrics": ["payment_count"]})
    assert response.json == invalid(
        "metrics",
        "unknown metric payment_count; one of dispute_status_metric, disputes_challenged, disputes_lost, "
        "disputes_won, sessionized_dispute_status_metric, sessionized_total_amount_disputed, "
        "sessionized_total_dispute_lost_amount, total_amount_disputed, total_dispute, "
        "total_dispute_lost_amount",
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"metrics": ["payment_count"]},
            {"message": "Missing required param: timeRange", "param": "timeRange"},
        ),
        (
            {"timeRange": {"endTime": START}, "metrics": ["payment_count"]},
            {"message": "Missing required param: timeRange.startTime", "param": "timeRange.startTime"},
        ),
        (
            {"timeRange": {"startTime": START}},
            {"message": "Missing required param: metrics", "param": "metrics"},
        ),
        (
            {"timeRange": {"startTime": "yesterday"}, "metrics": ["payment_count"]},
            {
                "message": "Invalid value provided: timeRange.startTime: not a valid ISO 8601 timestamp",
                "param": "timeRange.startTime",
            },
        ),
        (
            {
                "timeRange": {"startTime": START, "endTime": "2025-01-01T00:00:00Z"},
                "metrics": ["payment_count"],
            },
            {
                "message": "Invalid value provided: timeRange.endTime: the end is before the start",
                "param": "timeRange.endTime",
            },
        ),
        (
            {"timeRange": {"startTime": START}, "metrics": ["payment_count"], "timeSeries": {}},
            {"message": "Missing required param: timeSeries.granularity", "param": "timeSeries.granularity"},
        ),
        (
            {"timeRange": {"startTime": START}, "metrics": "payment_count"},
            {"message": "Invalid value provided: metrics: not a valid list", "param": "metrics"},
        ),
        (
            {"timeRange": {"startTime": START}, "metrics": ["payment_count"], "delta": "yes"},
            {"message": "Invalid value provided: delta: not a valid boolean", "param": "delta"},
        ),
    ],
)
def test_a_missing_or_malformed_field_gets_ir_04_naming_it(
    api: Api, body: dict[str, Any], expected: dict[str, str]
) -> None:
    response = api.post(PAYMENTS, body)
    assert response.status_code == 400
    assert response.json == {"error": {"type": "invalid_request", "code": "IR_04", **expected}}


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        (b"[]", "expected a JSON object, or an array of exactly one"),
        (b"[{}, {}]", "expected a JSON object, or an array of exactly one"),
        (b"[1]", "expected a JSON object, or an array of exactly one"),
        (b"[{", "unexpected end of data: line 1 column 3 (char 2)"),
    ],
)
def test_an_array_other_than_one_object_gets_ir_06(api: Api, data: bytes, detail: str) -> None:
    response = api.post(PAYMENTS, data=data, content_type="application/json")
    assert (response.status_code, response.json) == (400, malformed(detail))


def test_an_unknown_field_gets_ir_06(api: Api) -> None:
    response = api.post(PAYMENTS, {**BODY, "colour": "red"})
    assert (response.status_code, response.json) == (400, malformed("unknown field `colour`"))


def test_a_publishable_key_is_refused(api: Api) -> None:
    response = api.as_key(PUBLISHABLE_KEY).post(PAYMENTS, BODY)
    assert response.status_code == 401
    assert response.json == {
        "error": {
            "type": "invalid_request",
            "code": "IR_01",
            "message": "API key not provided or invalid API key used",
        }
    }


def test_another_merchants_payments_are_not_counted(api: Api, day: str, other_merchant: Any) -> None:
    body = {"timeRange": {"startTime": START}, "metrics": ["payment_count"]}
    assert other_merchant.api.post(PAYMENTS, body).json["queryData"] == []
