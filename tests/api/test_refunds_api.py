"""The /refunds routes and the control plane's refund settlement: exact statuses and bodies.

Spec section 4.3; decisions section 2 (error rows), 4 (refunds), 5 (card 4000000000005126),
7 (list limits) and 9 (control plane).
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests import payloads
from tests.api.conftest import OtherMerchant
from tests.api.expected import (
    PAYMENT_NOT_FOUND,
    UNAUTHORIZED,
    Matches,
    at_offsets,
    card_payment,
    case_id,
    error,
    invalid,
    later,
    malformed,
    missing,
    refused,
)
from tests.api.scenarios import STATUSES, advance, create, ok, payment_in, retrieve
from tests.conftest import Api
from tests.payloads import ADMIN_KEY, MERCHANT_ID, PROFILE_ID, PUBLISHABLE_KEY

pytestmark = pytest.mark.usefixtures("frozen")

HOUR = 3600
REFUND_FAILS_CARD = "4000000000005126"
REFUNDABLE = "succeeded, partially_captured, partially_captured_and_capturable, expired with a part captured"
NOT_REFUNDABLE = [status for status in STATUSES if status not in REFUNDABLE.split(", ")]
GENERATED_REFUND_ID = Matches(r"ref_[A-Za-z0-9]{26}")
REFUND_NOT_FOUND = error("HE_02", "Refund does not exist in our records")
DUPLICATE_REFUND = error(
    "HE_01", "The refund with the specified refund_id already exists in our records", "refund_id"
)
TOO_MANY_REFUNDS = error("IR_12", "Reached maximum refund attempts (10 per payment)")
REFUND_TYPES = "must be one of: Instant, Regular, instant, scheduled"
AMOUNT_RANGE = "must be greater than or equal to 1 and less than or equal to 99999999999"
LIMIT_RANGE = "must be greater than or equal to 1 and less than or equal to 100"
FAILED_CODE = "refund_failed"
FAILED_MESSAGE = "The refund was declined by the processor"


def too_large(refundable: int) -> dict[str, Any]:
    return error(
        "IR_13",
        f"The refund amount exceeds the amount captured: at most {refundable} can be refunded",
        "amount",
    )


def not_settleable(status: str) -> dict[str, Any]:
    return error(
        "IR_14",
        f"This Refund could not be settled because it has a status of {status}. "
        "The expected state is pending, review",
    )


def refund_body(now: str, refund_id: Any, payment_id: str = "pay_1", **changes: Any) -> dict[str, Any]:
    """A refund as the API shows it: a full, succeeded refund of a 1000 USD payment made at `now`."""
    body: dict[str, Any] = {
        "refund_id": refund_id,
        "payment_id": payment_id,
        "merchant_id": MERCHANT_ID,
        "profile_id": PROFILE_ID,
        "amount": 1000,
        "currency": "USD",
        "status": "succeeded",
        "reason": None,
        "refund_type": None,
        "metadata": None,
        "split_refunds": None,
        "connector": "mocksrv",
        "error_code": None,
        "error_message": None,
        "created_at": now,
        "updated_at": now,
    }
    body.update(changes)
    return body


def refund(api: Api, payment_id: str = "pay_1", **fields: Any) -> dict[str, Any]:
    return ok(api.post("/refunds", {"payment_id": payment_id, **fields}))


def refund_count(api: Api) -> int:
    count: int = ok(api.post("/refunds/list", {"limit": 100}))["total_count"]
    return count


def settle(api: Api, refund_id: str, result: str) -> Any:
    return api.post(f"/__mock/refunds/{refund_id}/settle", {"result": result})


# -- create ------------------------------------------------------------------------------------------


def test_create_refunds_a_succeeded_payment(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")

    response = api.post(
        "/refunds",
        {
            "payment_id": "pay_1",
            "refund_id": "ref_1",
            "amount": 300,
            "reason": "Customer returned the goods",
            "refund_type": "Instant",
            "metadata": {"order_id": "ord_1"},
        },
    )

    assert response.status_code == 200
    assert response.json == refund_body(
        frozen,
        "ref_1",
        amount=300,
        reason="Customer returned the goods",
        refund_type="Instant",
        metadata={"order_id": "ord_1"},
    )


def test_create_with_payment_id_only_refunds_the_whole_amount(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/refunds", {"payment_id": "pay_1"})

    assert response.status_code == 200
    assert response.json == refund_body(frozen, GENERATED_REFUND_ID)


def test_create_without_amount_after_a_partial_refund_refunds_the_remainder(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    refund(api, amount=300)

    assert refund(api)["amount"] == 700


@pytest.mark.parametrize("refund_type", ["Instant", "Regular", "instant", "scheduled"])
def test_create_accepts_each_refund_type(api: Api, frozen: str, refund_type: str) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_1", "refund_type": refund_type})

    assert response.status_code == 200
    assert response.json == refund_body(frozen, "ref_1", refund_type=refund_type)


@pytest.mark.parametrize(
    ("status", "received"),
    [("succeeded", 1000), ("partially_captured", 400), ("partially_captured_and_capturable", 400)],
)
def test_create_refunds_what_a_refundable_payment_received(
    api: Api, frozen: str, status: str, received: int
) -> None:
    payment_in(api, status)

    response = api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_1"})

    assert response.status_code == 200
    assert response.json == refund_body(frozen, "ref_1", amount=received)


def test_the_payment_shows_the_refunded_amount(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    first = refund(api, refund_id="ref_1", amount=300)
    second = refund(api, refund_id="ref_2", amount=200)

    # Newest first; made at one moment of the frozen clock, they are in the order of their ids.
    assert retrieve(api, "pay_1") == card_payment(
        frozen, "pay_1", amount_refunded=500, refunds=[first, second]
    )


def test_a_refund_is_listed_as_a_refund_succeeded_event(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    refund(api, refund_id="ref_1")

    (latest, *_) = ok(api.get("/__mock/events"))["data"]

    assert latest == {
        "event_id": Matches(r"evt_[A-Za-z0-9]{20}"),
        "event_type": "refund_succeeded",
        "content_type": "refund_details",
        "object_id": "ref_1",
        "created": frozen,
        "delivery": {"state": "no_endpoint", "attempts": 0, "next_attempt_at": None},
    }


# -- create: validation ------------------------------------------------------------------------------

INVALID_BODIES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({}, missing("payment_id")),
    ({"amount": 100}, missing("payment_id")),
    ({"payment_id": 5}, invalid("payment_id", "not a valid string")),
    ({"payment_id": None}, invalid("payment_id", "field may not be null")),
    ({"payment_id": "pay_1", "amount": "100"}, invalid("amount", "not a valid integer")),
    ({"payment_id": "pay_1", "amount": 10.5}, invalid("amount", "not a valid integer")),
    ({"payment_id": "pay_1", "amount": True}, invalid("amount", "not a valid integer")),
    ({"payment_id": "pay_1", "amount": [100]}, invalid("amount", "not a valid integer")),
    ({"payment_id": "pay_1", "amount": 0}, invalid("amount", AMOUNT_RANGE)),
    ({"payment_id": "pay_1", "amount": -1}, invalid("amount", AMOUNT_RANGE)),
    ({"payment_id": "pay_1", "amount": 100_000_000_000}, invalid("amount", AMOUNT_RANGE)),
    ({"payment_id": "pay_1", "refund_type": "Slow"}, invalid("refund_type", REFUND_TYPES)),
    ({"payment_id": "pay_1", "refund_type": "INSTANT"}, invalid("refund_type", REFUND_TYPES)),
    ({"payment_id": "pay_1", "refund_type": "regular"}, invalid("refund_type", REFUND_TYPES)),
    ({"payment_id": "pay_1", "refund_type": 1}, invalid("refund_type", "not a valid string")),
    ({"payment_id": "pay_1", "refund_id": "ref 1"}, invalid("refund_id", "1-64 letters, digits, _ or -")),
    ({"payment_id": "bad id!"}, invalid("payment_id", "1-64 letters, digits, _ or -")),
    ({"payment_id": ""}, invalid("payment_id", "1-64 letters, digits, _ or -")),
    ({"payment_id": "p" * 65}, invalid("payment_id", "1-64 letters, digits, _ or -")),
    ({"payment_id": "pay_1", "refund_id": "r" * 65}, invalid("refund_id", "1-64 letters, digits, _ or -")),
    (
        {"payment_id": "pay_1", "refund_id": "list"},
        invalid("refund_id", "'list' names a route of its own: choose another id"),
    ),
    ({"payment_id": "pay_1", "reason": "x" * 256}, invalid("reason", "longer than maximum length 255")),
    ({"payment_id": "pay_1", "metadata": "x"}, invalid("metadata", "not a valid mapping type")),
    ({"payment_id": "pay_1", "refund_amount": 100}, malformed("unknown field `refund_amount`")),
]


@pytest.mark.parametrize(("body", "expected"), INVALID_BODIES, ids=case_id)
def test_create_with_an_invalid_body_is_refused_naming_the_field(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/refunds", body)

    assert response.status_code == 400
    assert response.json == expected


@pytest.mark.parametrize(("body", "expected"), INVALID_BODIES, ids=case_id)
def test_create_with_an_invalid_body_stores_nothing(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    create(api, payment_id="pay_1")

    api.post("/refunds", body)

    assert (refund_count(api), retrieve(api, "pay_1")["amount_refunded"]) == (0, 0)


def test_create_with_a_body_that_is_not_json_is_IR_06(api: Api) -> None:
    response = api.post("/refunds", data="payment_id=pay_1", content_type="text/plain")

    assert response.status_code == 400
    assert response.json == malformed("the Content-Type must be application/json")


def test_create_with_a_json_array_is_IR_06(api: Api) -> None:
    response = api.post("/refunds", [{"payment_id": "pay_1"}])

    assert response.status_code == 400
    assert response.json == malformed("expected a JSON object")


# -- create: refusals --------------------------------------------------------------------------------


def test_create_for_an_unknown_payment_is_404_IR_05(api: Api) -> None:
    response = api.post("/refunds", {"payment_id": "pay_unknown"})

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


def test_create_over_the_amount_received_is_IR_13(api: Api) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/refunds", {"payment_id": "pay_1", "amount": 1001})

    assert response.status_code == 400
    assert response.json == too_large(1000)


def test_create_over_what_remains_is_IR_13_naming_the_remainder(api: Api) -> None:
    create(api, payment_id="pay_1")
    refund(api, amount=700)

    response = api.post("/refunds", {"payment_id": "pay_1", "amount": 301})

    assert response.status_code == 400
    assert response.json == too_large(300)


def test_create_of_a_fully_refunded_payment_is_IR_13(api: Api) -> None:
    create(api, payment_id="pay_1")
    refund(api)

    response = api.post("/refunds", {"payment_id": "pay_1"})

    assert response.status_code == 400
    assert response.json == too_large(0)


def test_the_eleventh_refund_of_a_payment_is_IR_12(api: Api) -> None:
    create(api, payment_id="pay_1", amount=10_000)
    for _ in range(10):
        refund(api, amount=100)

    response = api.post("/refunds", {"payment_id": "pay_1", "amount": 100})

    assert response.status_code == 400
    assert response.json == TOO_MANY_REFUNDS


def test_the_tenth_refund_of_a_payment_is_allowed(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", amount=10_000)
    for _ in range(9):
        refund(api, amount=100)

    response = api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_10", "amount": 100})

    assert response.status_code == 200
    assert response.json == refund_body(frozen, "ref_10", amount=100)


@pytest.mark.parametrize("status", NOT_REFUNDABLE)
def test_create_for_a_payment_that_is_not_refundable_is_IR_14(api: Api, status: str) -> None:
    payment_in(api, status)

    response = api.post("/refunds", {"payment_id": "pay_1"})

    assert response.status_code == 400
    assert response.json == refused("refunded", status, REFUNDABLE)


def test_create_with_a_refund_id_already_used_is_HE_01(api: Api) -> None:
    create(api, payment_id="pay_1")
    refund(api, refund_id="ref_1", amount=100)

    response = api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_1", "amount": 100})

    assert response.status_code == 400
    assert response.json == DUPLICATE_REFUND


def test_a_retry_with_the_same_refund_id_refunds_nothing_more(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    first = refund(api, refund_id="ref_1", amount=100)

    api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_1", "amount": 100})

    assert ok(api.get("/refunds/ref_1")) == first
    assert retrieve(api, "pay_1")["amount_refunded"] == 100


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"payment_id": "pay_1", "refund_id": "ref_1", "amount": 1001}, 400, "IR_13"),
        ({"payment_id": "pay_unknown", "refund_id": "ref_1"}, 404, "IR_05"),
    ],
    ids=["IR_13", "IR_05"],
)
def test_a_refused_create_stores_nothing(api: Api, body: dict[str, Any], status: int, code: str) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/refunds", body)

    assert (response.status_code, response.json["error"]["code"]) == (status, code)
    assert refund_count(api) == 0
    assert api.get("/refunds/ref_1").json == REFUND_NOT_FOUND


# -- the refund failure card -------------------------------------------------------------------------


def test_a_refund_of_the_refund_failure_card_is_pending(api: Api, frozen: str) -> None:
    create(api, REFUND_FAILS_CARD, payment_id="pay_1")

    response = api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_1"})

    assert response.status_code == 200
    assert response.json == refund_body(frozen, "ref_1", status="pending")


def test_a_refund_of_the_refund_failure_card_is_still_pending_after_3599_seconds(
    api: Api, frozen: str
) -> None:
    create(api, REFUND_FAILS_CARD, payment_id="pay_1")
    refund(api, refund_id="ref_1")

    advance(api, HOUR - 1)

    assert ok(api.get("/refunds/ref_1")) == refund_body(frozen, "ref_1", status="pending")


def test_a_refund_of_the_refund_failure_card_fails_after_3600_seconds(api: Api, frozen: str) -> None:
    create(api, REFUND_FAILS_CARD, payment_id="pay_1")
    refund(api, refund_id="ref_1")

    advance(api, HOUR)

    assert ok(api.get("/refunds/ref_1")) == refund_body(
        frozen,
        "ref_1",
        status="failed",
        error_code=FAILED_CODE,
        error_message=FAILED_MESSAGE,
        updated_at=later(frozen, HOUR),
    )


def test_the_clock_advance_reports_the_refund_timer_it_fired(api: Api, frozen: str) -> None:
    create(api, REFUND_FAILS_CARD, payment_id="pay_1")
    refund(api, refund_id="ref_1")

    fired = advance(api, HOUR)["timers_fired"]

    assert fired == [{"due_at": later(frozen, HOUR), "kind": "refund.settle", "target_id": "ref_1"}]


def test_a_failed_refund_leaves_the_payment_unrefunded(api: Api, frozen: str) -> None:
    create(api, REFUND_FAILS_CARD, payment_id="pay_1")
    refund(api, refund_id="ref_1")

    advance(api, HOUR)

    failed = ok(api.get("/refunds/ref_1"))
    assert failed["status"] == "failed"
    assert retrieve(api, "pay_1") == card_payment(frozen, "pay_1", REFUND_FAILS_CARD, refunds=[failed])


def test_after_a_failed_refund_the_whole_amount_can_be_refunded_again(api: Api, frozen: str) -> None:
    create(api, REFUND_FAILS_CARD, payment_id="pay_1")
    refund(api, refund_id="ref_1")
    advance(api, HOUR)

    response = api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_2", "amount": 1000})

    assert response.status_code == 200
    assert response.json == refund_body(later(frozen, HOUR), "ref_2", status="pending")


# -- retrieve ----------------------------------------------------------------------------------------


def test_retrieve_shows_the_refund_as_created(api: Api) -> None:
    create(api, payment_id="pay_1")
    created = refund(api, amount=250, reason="damaged", metadata={"k": "v"})

    response = api.get(f"/refunds/{created['refund_id']}")

    assert response.status_code == 200
    assert response.json == created


def test_retrieve_of_an_unknown_refund_is_404_HE_02(api: Api) -> None:
    response = api.get("/refunds/ref_unknown")

    assert response.status_code == 404
    assert response.json == REFUND_NOT_FOUND


def test_get_on_the_list_path_is_a_wrong_method(api: Api) -> None:
    response = api.get("/refunds/list")

    assert response.status_code == 405
    assert response.json == error("IR_03", "The HTTP method is not applicable for this API")


# -- update ------------------------------------------------------------------------------------------


def test_update_changes_reason_and_metadata(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    refund(api, refund_id="ref_1", reason="first", metadata={"a": "1"})
    advance(api, 30)

    response = api.post("/refunds/ref_1", {"reason": "second", "metadata": {"b": "2"}})

    assert response.status_code == 200
    assert response.json == refund_body(
        frozen, "ref_1", reason="second", metadata={"b": "2"}, updated_at=later(frozen, 30)
    )


def test_update_is_kept(api: Api) -> None:
    create(api, payment_id="pay_1")
    refund(api, refund_id="ref_1")
    updated = ok(api.post("/refunds/ref_1", {"reason": "second"}))

    assert ok(api.get("/refunds/ref_1")) == updated


def test_update_with_only_a_reason_keeps_the_metadata(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    refund(api, refund_id="ref_1", metadata={"a": "1"})

    response = api.post("/refunds/ref_1", {"reason": "late"})

    assert response.status_code == 200
    assert response.json == refund_body(frozen, "ref_1", reason="late", metadata={"a": "1"})


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"reason": 5}, invalid("reason", "not a valid string")),
        ({"reason": "x" * 256}, invalid("reason", "longer than maximum length 255")),
        ({"metadata": []}, invalid("metadata", "not a valid mapping type")),
        ({"amount": 5}, malformed("unknown field `amount`")),
        ({"status": "failed"}, malformed("unknown field `status`")),
    ],
    ids=case_id,
)
def test_update_with_an_invalid_body_is_refused_and_changes_nothing(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    create(api, payment_id="pay_1")
    created = refund(api, refund_id="ref_1")

    response = api.post("/refunds/ref_1", body)

    assert (response.status_code, response.json) == (400, expected)
    assert ok(api.get("/refunds/ref_1")) == created


def test_update_of_an_unknown_refund_is_404_HE_02(api: Api) -> None:
    response = api.post("/refunds/ref_unknown", {"reason": "x"})

    assert response.status_code == 404
    assert response.json == REFUND_NOT_FOUND


# -- list --------------------------------------------------------------------------------------------


@pytest.fixture
def three_refunds(api: Api, frozen: str) -> dict[str, dict[str, Any]]:
    """ref_a at +0 s (succeeded, pay_a), ref_b at +60 s (succeeded, pay_b), ref_c at +120 s (pending)."""
    create(api, payment_id="pay_a")
    create(api, payment_id="pay_b")
    create(api, REFUND_FAILS_CARD, payment_id="pay_c")
    first = refund(api, "pay_a", refund_id="ref_a", amount=100)
    advance(api, 60)
    second = refund(api, "pay_b", refund_id="ref_b", amount=100)
    advance(api, 60)
    third = refund(api, "pay_c", refund_id="ref_c", amount=100)
    return {"ref_a": first, "ref_b": second, "ref_c": third}


def test_list_answers_count_total_count_and_data(api: Api, three_refunds: dict[str, dict[str, Any]]) -> None:
    response = api.post("/refunds/list", {})

    assert response.status_code == 200
    assert response.json == {
        "count": 3,
        "total_count": 3,
        "data": [three_refunds["ref_c"], three_refunds["ref_b"], three_refunds["ref_a"]],
        "has_more": False,
    }


def test_a_page_of_the_list_says_whether_more_follow(
    api: Api, three_refunds: dict[str, dict[str, Any]]
) -> None:
    first = api.post("/refunds/list", {"limit": 2}).json
    last = api.post("/refunds/list", {"limit": 2, "offset": 2}).json

    assert (first["count"], first["total_count"], first["has_more"]) == (2, 3, True)
    assert (last["count"], last["has_more"], last["data"]) == (1, False, [three_refunds["ref_a"]])


@pytest.mark.usefixtures("three_refunds")
def test_list_without_a_body_lists_everything(api: Api) -> None:
    response = api.post("/refunds/list")

    assert response.status_code == 200
    assert [r["refund_id"] for r in response.json["data"]] == ["ref_c", "ref_b", "ref_a"]


def test_list_of_a_merchant_without_refunds_is_empty(api: Api) -> None:
    response = api.post("/refunds/list", {})

    assert response.status_code == 200
    assert response.json == {"count": 0, "total_count": 0, "data": [], "has_more": False}


LIST_FILTERS: list[tuple[dict[str, Any], list[str], int]] = [
    ({"payment_id": "pay_a"}, ["ref_a"], 1),
    ({"payment_id": "pay_unknown"}, [], 0),
    ({"status": "succeeded"}, ["ref_b", "ref_a"], 2),
    ({"status": "pending"}, ["ref_c"], 1),
    ({"status": "failed"}, [], 0),
    ({"status": "review"}, [], 0),
    ({"payment_id": "pay_c", "status": "pending"}, ["ref_c"], 1),
    ({"payment_id": "pay_c", "status": "succeeded"}, [], 0),
    ({"created_gte": 60}, ["ref_c", "ref_b"], 2),
    ({"created_gte": 61}, ["ref_c"], 1),
    ({"created_lte": 60}, ["ref_b", "ref_a"], 2),
    ({"created_lte": 59}, ["ref_a"], 1),
    ({"created_gte": 60, "created_lte": 60}, ["ref_b"], 1),
    ({"created_gte": 121}, [], 0),
    ({"limit": 1}, ["ref_c"], 3),
    ({"limit": 2, "offset": 1}, ["ref_b", "ref_a"], 3),
    ({"limit": 2, "offset": 2}, ["ref_a"], 3),
    ({"offset": 3}, [], 3),
    ({"limit": 100}, ["ref_c", "ref_b", "ref_a"], 3),
    ({"status": "succeeded", "limit": 1, "offset": 1}, ["ref_a"], 2),
    # The real service's filters.
    ({"refund_status": ["pending", "failed"]}, ["ref_c"], 1),
    ({"refund_status": []}, ["ref_c", "ref_b", "ref_a"], 3),
    ({"refund_status": ["succeeded"], "status": "pending"}, [], 0),
    ({"refund_id": "ref_b"}, ["ref_b"], 1),
    ({"profile_id": PROFILE_ID, "currency": ["USD", "EUR"]}, ["ref_c", "ref_b", "ref_a"], 3),
    ({"currency": ["EUR"]}, [], 0),
    ({"connector": ["mocksrv"], "merchant_connector_id": ["mca_1"]}, ["ref_c", "ref_b", "ref_a"], 3),
    ({"connector": ["adyen"]}, [], 0),
    ({"start_time": 60}, ["ref_c", "ref_b"], 2),
    ({"start_time": 0, "end_time": 60}, ["ref_b", "ref_a"], 2),
    ({"amount_filter": {"start_amount": 100, "end_amount": 100}}, ["ref_c", "ref_b", "ref_a"], 3),
    ({"amount_filter": {"start_amount": 101}}, [], 0),
    ({"amount_filter": {"end_amount": 99}}, [], 0),
]


@pytest.mark.parametrize(("filters", "ids", "total"), LIST_FILTERS, ids=[case_id(f[0]) for f in LIST_FILTERS])
@pytest.mark.usefixtures("three_refunds")
def test_list_filters_and_pages(
    api: Api, frozen: str, filters: dict[str, Any], ids: list[str], total: int
) -> None:
    response = api.post("/refunds/list", at_offsets(frozen, filters))

    assert response.status_code == 200
    body = response.json
    assert ([r["refund_id"] for r in body["data"]], body["count"], body["total_count"]) == (
        ids,
        len(ids),
        total,
    )


def test_list_accepts_times_with_an_offset(api: Api, frozen: str, three_refunds: dict[str, Any]) -> None:
    plus_two = later(frozen, 60)[:-1] + "+00:00"

    response = api.post("/refunds/list", {"created_gte": plus_two})

    assert [r["refund_id"] for r in response.json["data"]] == ["ref_c", "ref_b"]


def test_list_shows_a_refund_that_failed_on_the_clock_as_failed(
    api: Api, frozen: str, three_refunds: dict[str, Any]
) -> None:
    advance(api, HOUR)

    response = api.post("/refunds/list", {"status": "failed"})

    assert response.json == {
        "count": 1,
        "total_count": 1,
        "data": [
            refund_body(
                later(frozen, 120),
                "ref_c",
                "pay_c",
                amount=100,
                status="failed",
                error_code=FAILED_CODE,
                error_message=FAILED_MESSAGE,
                updated_at=later(frozen, 120 + HOUR),
            )
        ],
        "has_more": False,
    }


def test_list_default_limit_is_ten(api: Api) -> None:
    create(api, payment_id="pay_1", amount=10_000)
    for _ in range(10):
        refund(api, amount=100)
    create(api, payment_id="pay_2")
    refund(api, "pay_2", amount=100)

    body = ok(api.post("/refunds/list", {}))

    assert (body["count"], body["total_count"], len(body["data"])) == (10, 11, 10)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"limit": 0}, invalid("limit", LIMIT_RANGE)),
        ({"limit": 101}, invalid("limit", LIMIT_RANGE)),
        ({"limit": "10"}, invalid("limit", "not a valid integer")),
        ({"offset": -1}, invalid("offset", "must be greater than or equal to 0")),
        ({"offset": 1.5}, invalid("offset", "not a valid integer")),
        ({"status": "done"}, invalid("status", "must be one of: pending, succeeded, failed, review")),
        ({"created_gte": "yesterday"}, invalid("created_gte", "not a valid ISO 8601 timestamp")),
        ({"created_lte": 1700000000}, invalid("created_lte", "not a valid ISO 8601 timestamp")),
        ({"payment_id": 5}, invalid("payment_id", "not a valid string")),
        ({"refund_ids": "ref_1"}, malformed("unknown field `refund_ids`")),
        (
            {"refund_status": ["done"]},
            invalid("refund_status.0", "must be one of: pending, succeeded, failed, review"),
        ),
        ({"currency": "USD"}, invalid("currency", "not a valid list")),
    ],
    ids=case_id,
)
def test_list_with_an_invalid_filter_is_refused_naming_it(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = api.post("/refunds/list", body)

    assert response.status_code == 400
    assert response.json == expected


# -- the control plane: settle by hand ---------------------------------------------------------------


@pytest.fixture
def pending_refund(api: Api, frozen: str) -> dict[str, Any]:
    create(api, REFUND_FAILS_CARD, payment_id="pay_1")
    return refund(api, refund_id="ref_1")


@pytest.mark.usefixtures("pending_refund")
def test_settle_succeeded_turns_a_pending_refund_succeeded(api: Api, frozen: str) -> None:
    advance(api, 60)

    response = settle(api, "ref_1", "succeeded")

    assert response.status_code == 200
    assert response.json == refund_body(frozen, "ref_1", updated_at=later(frozen, 60))


@pytest.mark.usefixtures("pending_refund")
def test_settle_failed_turns_a_pending_refund_failed(api: Api, frozen: str) -> None:
    response = settle(api, "ref_1", "failed")

    assert response.status_code == 200
    assert response.json == refund_body(
        frozen, "ref_1", status="failed", error_code=FAILED_CODE, error_message=FAILED_MESSAGE
    )


@pytest.mark.usefixtures("pending_refund")
def test_settle_succeeded_shows_on_the_payment(api: Api, frozen: str) -> None:
    settle(api, "ref_1", "succeeded")

    assert retrieve(api, "pay_1")["amount_refunded"] == 1000


@pytest.mark.usefixtures("pending_refund")
def test_settled_by_hand_the_refund_stays_so_when_its_hour_passes(api: Api, frozen: str) -> None:
    settled = ok(settle(api, "ref_1", "succeeded"))

    advance(api, HOUR)

    assert ok(api.get("/refunds/ref_1")) == settled


@pytest.mark.parametrize(
    ("number", "wait", "status"),
    [("4242424242424242", 0, "succeeded"), (REFUND_FAILS_CARD, HOUR, "failed")],
    ids=["succeeded", "failed"],
)
@pytest.mark.parametrize("result", ["succeeded", "failed"])
def test_settle_of_a_refund_that_is_not_pending_is_IR_14(
    api: Api, number: str, wait: int, status: str, result: str
) -> None:
    create(api, number, payment_id="pay_1")
    refund(api, refund_id="ref_1")
    advance(api, wait)

    response = settle(api, "ref_1", result)

    assert response.status_code == 400
    assert response.json == not_settleable(status)


@pytest.mark.parametrize("result", ["succeeded", "failed"])
def test_settle_refused_for_a_settled_refund_changes_nothing(api: Api, result: str) -> None:
    create(api, payment_id="pay_1")
    created = refund(api, refund_id="ref_1")

    settle(api, "ref_1", result)

    assert ok(api.get("/refunds/ref_1")) == created
    assert retrieve(api, "pay_1")["amount_refunded"] == 1000


def test_settle_of_an_unknown_refund_is_404_HE_02(api: Api) -> None:
    response = settle(api, "ref_unknown", "succeeded")

    assert response.status_code == 404
    assert response.json == REFUND_NOT_FOUND


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("result")),
        ({"result": "success"}, invalid("result", "must be one of: succeeded, failed")),
        ({"result": True}, invalid("result", "not a valid string")),
    ],
    ids=case_id,
)
@pytest.mark.usefixtures("pending_refund")
def test_settle_with_an_invalid_result_is_IR_04(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = api.post("/__mock/refunds/ref_1/settle", body)

    assert response.status_code == 400
    assert response.json == expected


@pytest.mark.usefixtures("pending_refund")
def test_settle_without_a_key_is_401(client: FlaskClient) -> None:
    response = client.post("/__mock/refunds/ref_1/settle", json={"result": "succeeded"})

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


@pytest.mark.usefixtures("pending_refund")
def test_settle_with_the_publishable_key_is_401(api: Api) -> None:
    response = settle(api.as_key(PUBLISHABLE_KEY), "ref_1", "succeeded")

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


@pytest.mark.usefixtures("pending_refund")
def test_settle_refused_leaves_the_refund_pending(api: Api, frozen: str) -> None:
    settle(api.as_key(PUBLISHABLE_KEY), "ref_1", "succeeded")

    assert ok(api.get("/refunds/ref_1"))["status"] == "pending"


@pytest.mark.usefixtures("pending_refund")
def test_settle_with_the_admin_key_names_the_merchant(admin: Api, frozen: str) -> None:
    response = admin.post(f"/__mock/refunds/ref_1/settle?merchant_id={MERCHANT_ID}", {"result": "succeeded"})

    assert response.status_code == 200
    assert response.json == refund_body(frozen, "ref_1")


@pytest.mark.usefixtures("pending_refund")
def test_settle_with_another_merchants_key_is_404(other_merchant: OtherMerchant) -> None:
    response = settle(other_merchant.api, "ref_1", "succeeded")

    assert response.status_code == 404
    assert response.json == REFUND_NOT_FOUND


# -- merchants and keys ------------------------------------------------------------------------------


@pytest.fixture
def refunded(api: Api, frozen: str) -> dict[str, Any]:
    create(api, payment_id="pay_1")
    return refund(api, refund_id="ref_1", amount=100)


@pytest.mark.usefixtures("refunded")
def test_another_merchant_cannot_retrieve_the_refund(other_merchant: OtherMerchant) -> None:
    response = other_merchant.api.get("/refunds/ref_1")

    assert response.status_code == 404
    assert response.json == REFUND_NOT_FOUND


def test_another_merchant_cannot_update_the_refund(
    api: Api, other_merchant: OtherMerchant, refunded: dict[str, Any]
) -> None:
    response = other_merchant.api.post("/refunds/ref_1", {"reason": "mine"})

    assert response.status_code == 404
    assert response.json == REFUND_NOT_FOUND
    assert ok(api.get("/refunds/ref_1")) == refunded


@pytest.mark.usefixtures("refunded")
def test_another_merchant_does_not_list_the_refund(other_merchant: OtherMerchant) -> None:
    response = other_merchant.api.post("/refunds/list", {})

    assert response.status_code == 200
    assert response.json == {"count": 0, "total_count": 0, "data": [], "has_more": False}


@pytest.mark.usefixtures("refunded")
def test_another_merchant_cannot_refund_the_payment(api: Api, other_merchant: OtherMerchant) -> None:
    response = other_merchant.api.post("/refunds", {"payment_id": "pay_1"})

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND
    assert retrieve(api, "pay_1")["amount_refunded"] == 100


@pytest.mark.usefixtures("refunded")
def test_another_merchant_may_use_the_same_refund_id_for_its_own_payment(
    other_merchant: OtherMerchant,
) -> None:
    body = payloads.payment(payment_id="pay_1", profile_id=other_merchant.credentials["profile_id"])
    ok(other_merchant.api.post("/payments", body))

    response = other_merchant.api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_1"})

    assert response.status_code == 200
    assert (response.json["merchant_id"], response.json["amount"]) == ("merchant_other", 1000)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/refunds", {"payment_id": "pay_1"}),
        ("get", "/refunds/ref_1", None),
        ("post", "/refunds/ref_1", {"reason": "x"}),
        ("post", "/refunds/list", {}),
    ],
    ids=["create", "retrieve", "update", "list"],
)
@pytest.mark.usefixtures("refunded")
def test_the_publishable_key_is_401_on_every_refund_route(
    browser: Api, method: str, path: str, body: dict[str, Any] | None
) -> None:
    response = browser.get(path) if method == "get" else browser.post(path, body)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/refunds", {"payment_id": "pay_1"}),
        ("get", "/refunds/ref_1", None),
        ("post", "/refunds/ref_1", {"reason": "x"}),
        ("post", "/refunds/list", {}),
    ],
    ids=["create", "retrieve", "update", "list"],
)
@pytest.mark.usefixtures("refunded")
def test_no_key_is_401_on_every_refund_route(
    client: FlaskClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    response = client.get(path) if method == "get" else client.post(path, json=body)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


def test_the_publishable_key_refused_creates_no_refund(api: Api, browser: Api) -> None:
    create(api, payment_id="pay_1")

    browser.post("/refunds", {"payment_id": "pay_1"})

    assert refund_count(api) == 0


def test_the_admin_key_is_not_a_merchant_key_for_refunds(api: Api) -> None:
    response = api.as_key(ADMIN_KEY).post("/refunds/list", {})

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


# -- the control plane: table and reset --------------------------------------------------------------


def test_the_control_plane_lists_the_whole_refund_transition_table(api: Api) -> None:
    response = api.get("/__mock/transitions")

    assert response.status_code == 200
    assert response.json["refund"] == [
        {"from": "pending", "event": "settle.succeeded", "to": "succeeded", "emits": "refund_succeeded"},
        {"from": "review", "event": "settle.succeeded", "to": "succeeded", "emits": "refund_succeeded"},
        {"from": "pending", "event": "settle.failed", "to": "failed", "emits": "refund_failed"},
        {"from": "review", "event": "settle.failed", "to": "failed", "emits": "refund_failed"},
    ]


@pytest.mark.usefixtures("refunded")
def test_reset_deletes_the_merchants_refunds(api: Api) -> None:
    ok(api.post("/__mock/reset"))

    assert api.get("/refunds/ref_1").json == REFUND_NOT_FOUND
    assert refund_count(api) == 0


@pytest.mark.usefixtures("pending_refund")
def test_a_refund_settled_by_hand_lists_no_timer_when_its_settlement_falls_due(api: Api) -> None:
    ok(settle(api, "ref_1", "succeeded"))

    assert advance(api, HOUR)["timers_fired"] == []
    assert ok(api.get("/refunds/ref_1"))["status"] == "succeeded"


@pytest.mark.usefixtures("pending_refund")
def test_reset_drops_the_timer_of_a_pending_refund(api: Api) -> None:
    ok(api.post("/__mock/reset"))

    assert advance(api, HOUR)["timers_fired"] == []
