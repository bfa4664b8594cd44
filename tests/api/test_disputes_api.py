"""The /disputes routes and the control plane's dispute routes: exact statuses and bodies.

Spec section 4.5 (the routes); decisions section 2 (error rows HE_03, HE_04, IR_04, IR_05, IR_06,
IR_14), 4 (disputes), 5 (card 4000000000000259), 6 (dispute events), 7 (list limits) and 9 (control
plane: open and resolve).
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from mocksrv.domain.disputes import EVIDENCE_FIELDS
from tests.api.conftest import OtherMerchant
from tests.api.expected import UNAUTHORIZED, Matches, case_id, error, invalid, later, malformed, missing
from tests.api.scenarios import advance, create, ok, payment_in
from tests.conftest import Api
from tests.payloads import ADMIN_KEY, MERCHANT_ID, PROFILE_ID, PUBLISHABLE_KEY

pytestmark = pytest.mark.usefixtures("frozen")

DAY = 24 * 3600
WEEK = 7 * DAY
DISPUTE_CARD = "4000000000000259"
GENERATED_DISPUTE_ID = Matches(r"dp_[A-Za-z0-9]{20}")
DISPUTE_NOT_FOUND = error("HE_04", "Dispute does not exist in our records")
PAYMENT_NOT_FOUND = error("IR_05", "Payment not found")
OPEN_STATES = "dispute_opened, dispute_challenged"
STATUSES = (
    "dispute_opened, dispute_challenged, dispute_accepted, dispute_won, dispute_lost, dispute_expired, "
    "dispute_cancelled"
)
LIMIT_RANGE = "must be greater than or equal to 1 and less than or equal to 100"
WRONG_METHOD = error("IR_03", "The HTTP method is not applicable for this API")


def closed(verb: str, status: str) -> dict[str, Any]:
    """The HE_03 body of an operation a closed dispute does not allow."""
    return error(
        "HE_03",
        f"This dispute cannot be {verb} because it has a status of {status}. "
        f"The expected state is {OPEN_STATES}",
    )


def dispute_body(now: str, dispute_id: Any, payment_id: str = "pay_1", **changes: Any) -> dict[str, Any]:
    """A dispute as the API shows it: all of a 1000 USD payment, opened at `now`, unanswered."""
    body: dict[str, Any] = {
        "dispute_id": dispute_id,
        "payment_id": payment_id,
        "merchant_id": MERCHANT_ID,
        "profile_id": PROFILE_ID,
        "amount": "1000",
        "currency": "USD",
        "dispute_stage": "dispute",
        "dispute_status": "dispute_opened",
        "attempt_id": f"{payment_id}_1",
        "connector": "mocksrv",
        "connector_status": "needs_response",
        "connector_dispute_id": Matches(r"mocksrv_dp_[A-Za-z0-9]{20}")
        if not isinstance(dispute_id, str)
        else f"mocksrv_{dispute_id}",
        "connector_created_at": now,
        "connector_reason": "fraudulent",
        "challenge_required_by": later(now, WEEK),
        "evidence_submitted_at": None,
        "created_at": now,
        "modified_at": now,
    }
    body.update(changes)
    # The processor's status and time follow the dispute's.
    body["connector_status"] = CONNECTOR_STATUS[body["dispute_status"]]
    body["connector_updated_at"] = body["modified_at"]
    return body


CONNECTOR_STATUS = {
    "dispute_opened": "needs_response",
    "dispute_challenged": "under_review",
    "dispute_accepted": "lost",
    "dispute_won": "won",
    "dispute_lost": "lost",
    "dispute_expired": "lost",
    "dispute_cancelled": "warning_closed",
}


def open_dispute(api: Api, payment_id: str = "pay_1", **fields: Any) -> dict[str, Any]:
    return ok(api.post("/__mock/disputes", {"payment_id": payment_id, **fields}))


def get_dispute(api: Api, dispute_id: str) -> dict[str, Any]:
    return ok(api.get(f"/disputes/{dispute_id}"))


def submit(api: Api, dispute_id: str, **evidence: str) -> TestResponse:
    return api.post(
        "/disputes/evidence", {"dispute_id": dispute_id, **(evidence or {"receipt": "Receipt #1"})}
    )


def delete_evidence(api: Api, body: dict[str, Any]) -> TestResponse:
    return api.client.delete("/disputes/evidence", json=body, headers={"api-key": api.key})


def resolve(api: Api, dispute_id: str, result: str) -> TestResponse:
    return api.post(f"/__mock/disputes/{dispute_id}/resolve", {"result": result})


def dispute_events(api: Api) -> list[tuple[str, str, str, str]]:
    """(event type, content type, object id, created) of the merchant's events, oldest first."""
    listed = ok(api.get("/__mock/events"))["data"]
    return [(e["event_type"], e["content_type"], e["object_id"], e["created"]) for e in reversed(listed)]


@pytest.fixture
def disputed(api: Api, frozen: str) -> dict[str, Any]:
    """A succeeded payment pay_1 and a dispute opened on it through the control plane."""
    create(api, payment_id="pay_1")
    return open_dispute(api)


def dispute_in(api: Api, status: str) -> dict[str, Any]:
    """Open a dispute on a new payment pay_1 and move it to `status`; return its body as last shown."""
    shown = _drive(api, status)
    assert shown["dispute_status"] == status, shown
    return shown


def _drive(api: Api, status: str) -> dict[str, Any]:
    create(api, payment_id="pay_1")
    dispute_id = open_dispute(api)["dispute_id"]
    if status == "dispute_challenged":
        ok(submit(api, dispute_id))
    elif status == "dispute_accepted":
        ok(api.post(f"/disputes/accept/{dispute_id}"))
    elif status in ("dispute_won", "dispute_lost", "dispute_cancelled"):
        ok(resolve(api, dispute_id, status.removeprefix("dispute_")))
    elif status == "dispute_expired":
        advance(api, WEEK)
    return get_dispute(api, dispute_id)


# -- the dispute card --------------------------------------------------------------------------------


def test_a_payment_with_the_dispute_card_is_listed_with_its_dispute_at_once(api: Api, frozen: str) -> None:
    create(api, DISPUTE_CARD, payment_id="pay_1")

    response = api.get("/disputes/list")

    assert response.status_code == 200
    assert response.json == {
        "data": [dispute_body(frozen, GENERATED_DISPUTE_ID)],
        "total_count": 1,
        "has_more": False,
    }


def test_the_dispute_opened_event_follows_the_payment_succeeded_event(api: Api, frozen: str) -> None:
    create(api, DISPUTE_CARD, payment_id="pay_1")
    dispute_id = ok(api.get("/disputes/list"))["data"][0]["dispute_id"]

    assert dispute_events(api) == [
        ("payment_succeeded", "payment_details", "pay_1", frozen),
        ("dispute_opened", "dispute_details", dispute_id, frozen),
    ]


# -- POST /__mock/disputes ---------------------------------------------------------------------------


def test_open_disputes_everything_the_payment_received(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    advance(api, 60)

    response = api.post("/__mock/disputes", {"payment_id": "pay_1"})

    assert response.status_code == 200
    assert response.json == dispute_body(later(frozen, 60), GENERATED_DISPUTE_ID)


def test_open_with_an_amount_and_a_reason_keeps_them(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")

    response = api.post(
        "/__mock/disputes", {"payment_id": "pay_1", "amount": 250, "reason": "product_not_received"}
    )

    assert response.status_code == 200
    assert response.json == dispute_body(
        frozen, GENERATED_DISPUTE_ID, amount="250", connector_reason="product_not_received"
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("payment_id")),
        ({"payment_id": "pay_1", "amount": 1001}, invalid("amount", "more than the payment received (1000)")),
        ({"payment_id": "pay_1", "amount": 0}, invalid("amount", "must be greater than or equal to 1")),
        ({"payment_id": "pay_1", "amount": "5"}, invalid("amount", "not a valid integer")),
        ({"payment_id": "pay_1", "reason": ""}, invalid("reason", "length must be between 1 and 255")),
        ({"payment_id": "pay_1", "status": "dispute_won"}, malformed("unknown field `status`")),
    ],
    ids=case_id,
)
def test_open_with_an_invalid_body_is_refused_naming_the_field(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/__mock/disputes", body)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get("/disputes/list"))["total_count"] == 0


def test_open_on_an_unknown_payment_is_404_IR_05(api: Api) -> None:
    response = api.post("/__mock/disputes", {"payment_id": "pay_missing"})

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


@pytest.mark.parametrize("status", ["requires_capture", "failed"])
def test_open_on_a_payment_that_captured_nothing_is_IR_14(api: Api, status: str) -> None:
    payment_in(api, status)

    response = api.post("/__mock/disputes", {"payment_id": "pay_1"})

    assert response.status_code == 400
    assert response.json == error(
        "IR_14",
        f"This Payment could not be disputed because it has a status of {status}. "
        "The expected state is succeeded, partially_captured, partially_captured_and_capturable, "
        "expired with a part captured",
    )


def test_open_with_the_admin_key_names_the_merchant(api: Api, admin: Api) -> None:
    create(api, payment_id="pay_1")

    response = admin.post("/__mock/disputes", {"payment_id": "pay_1", "merchant_id": MERCHANT_ID})

    assert response.status_code == 200
    assert response.json["merchant_id"] == MERCHANT_ID


def test_open_with_another_merchants_key_does_not_find_the_payment(
    api: Api, other_merchant: OtherMerchant
) -> None:
    create(api, payment_id="pay_1")

    response = other_merchant.api.post("/__mock/disputes", {"payment_id": "pay_1"})

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


# -- GET /disputes/list ------------------------------------------------------------------------------


@pytest.fixture
def three_disputes(api: Api, frozen: str) -> dict[str, dict[str, Any]]:
    """Disputes a (pay_1, challenged) at the frozen time, b (pay_2, reason duplicate) 60 s later and c
    (pay_1) 120 s later; returns them as GET shows them."""
    create(api, payment_id="pay_1")
    create(api, payment_id="pay_2")
    ids = {"a": open_dispute(api, "pay_1", amount=100)["dispute_id"]}
    ok(submit(api, ids["a"]))
    advance(api, 60)
    ids["b"] = open_dispute(api, "pay_2", reason="duplicate")["dispute_id"]
    advance(api, 60)
    ids["c"] = open_dispute(api, "pay_1", amount=200)["dispute_id"]
    return {name: get_dispute(api, dispute_id) for name, dispute_id in ids.items()}


def test_list_answers_data_total_count_and_has_more(
    api: Api, three_disputes: dict[str, dict[str, Any]]
) -> None:
    response = api.get("/disputes/list")

    assert response.status_code == 200
    assert response.json == {
        "data": [three_disputes["c"], three_disputes["b"], three_disputes["a"]],
        "total_count": 3,
        "has_more": False,
    }


def test_list_of_a_merchant_without_disputes_is_empty(api: Api) -> None:
    response = api.get("/disputes/list")

    assert response.status_code == 200
    assert response.json == {"data": [], "total_count": 0, "has_more": False}


LIST_QUERIES: list[tuple[str, str, int, bool]] = [
    ("dispute_status=dispute_opened", "cb", 2, False),
    ("dispute_status=dispute_challenged", "a", 1, False),
    ("payment_id=pay_1", "ca", 2, False),
    ("payment_id=pay_1&dispute_status=dispute_opened", "c", 1, False),
    ("limit=1", "c", 3, True),
    ("limit=1&offset=1", "b", 3, True),
    ("payment_id=pay_1&limit=1", "c", 2, True),
    ("sort=asc&merchant_id=merchant_other", "cba", 3, False),
]


@pytest.mark.parametrize(
    ("query", "names", "total", "has_more"), LIST_QUERIES, ids=[q[0] for q in LIST_QUERIES]
)
def test_list_filters_and_pages(
    api: Api, three_disputes: dict[str, dict[str, Any]], query: str, names: str, total: int, has_more: bool
) -> None:
    response = api.get(f"/disputes/list?{query}")

    assert response.status_code == 200
    assert response.json == {
        "data": [three_disputes[name] for name in names],
        "total_count": total,
        "has_more": has_more,
    }


# The real service's filters: `{t0}` is the frozen time, `{t60}` 60 s later, `{t61}` 60.001 s later.
REAL_LIST_QUERIES: list[tuple[str, str]] = [
    ("dispute_stage=dispute", "cba"),
    ("dispute_stage=pre_arbitration", ""),
    ("dispute_stage=arbitration", ""),
    ("dispute_stage=dispute_reversal", ""),
    ("connector=mocksrv&payment_id=pay_2", "b"),
    ("connector=adyen", ""),
    ("received_time={t60}", "b"),
    ("received_time.gte={t60}", "cb"),
    ("received_time.gt={t60}", "c"),
    ("received_time.lte={t60}", "ba"),
    ("received_time.lt={t60}", "a"),
    ("received_time.gte={t0}&received_time.lt={t61}", "ba"),
    ("received_time.gte=2099-01-01T00:00:00Z", ""),
    # The spec's bounds (section 8), alone and together with the real service's.
    ("created_gte={t60}", "cb"),
    ("created_lte={t60}", "ba"),
    ("created_gte={t60}&received_time.lt={t61}", "b"),
    ("created_lte={t60}&received_time.gte={t60}", "b"),
]


@pytest.mark.parametrize(("query", "names"), REAL_LIST_QUERIES, ids=[q[0] for q in REAL_LIST_QUERIES])
def test_list_takes_the_real_services_filters(
    api: Api, frozen: str, three_disputes: dict[str, dict[str, Any]], query: str, names: str
) -> None:
    times = {"t0": frozen, "t60": later(frozen, 60), "t61": later(frozen, 60.001)}

    response = api.get(f"/disputes/list?{query.format_map(times)}".replace("+", "%2B"))

    assert response.status_code == 200
    assert response.json == {
        "data": [three_disputes[name] for name in names],
        "total_count": len(names),
        "has_more": False,
    }


def test_list_default_limit_is_ten(api: Api) -> None:
    create(api, payment_id="pay_1")
    for _ in range(11):
        open_dispute(api, amount=1)

    response = api.get("/disputes/list")

    assert (len(response.json["data"]), response.json["total_count"], response.json["has_more"]) == (
        10,
        11,
        True,
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("dispute_status=won", invalid("dispute_status", f"must be one of: {STATUSES}")),
        ("limit=0", invalid("limit", LIMIT_RANGE)),
        ("limit=101", invalid("limit", LIMIT_RANGE)),
        ("limit=ten", invalid("limit", "not a valid integer")),
        ("limit=%EF%BC%95", invalid("limit", "not a valid integer")),
        ("offset=%D9%A5", invalid("offset", "not a valid integer")),
        ("offset=-1", invalid("offset", "must be greater than or equal to 0")),
        (
            "dispute_stage=appeal",
            invalid(
                "dispute_stage",
                "must be one of: arbitration, dispute, dispute_reversal, pre_arbitration, pre_dispute",
            ),
        ),
        ("received_time=garbage", invalid("received_time", "not a valid ISO 8601 timestamp")),
        ("received_time.lt=garbage", invalid("received_time.lt", "not a valid ISO 8601 timestamp")),
        ("created_gte=garbage", invalid("created_gte", "not a valid ISO 8601 timestamp")),
    ],
    ids=case_id,
)
def test_list_with_an_invalid_query_is_refused_naming_it(
    api: Api, query: str, expected: dict[str, Any]
) -> None:
    response = api.get(f"/disputes/list?{query}")

    assert response.status_code == 400
    assert response.json == expected


def test_post_on_the_list_path_is_a_wrong_method(api: Api) -> None:
    response = api.post("/disputes/list", {})

    assert response.status_code == 405
    assert response.json == WRONG_METHOD


# -- GET /disputes/:id -------------------------------------------------------------------------------


def test_retrieve_shows_the_dispute(api: Api, frozen: str, disputed: dict[str, Any]) -> None:
    response = api.get(f"/disputes/{disputed['dispute_id']}")

    assert response.status_code == 200
    assert response.json == dispute_body(frozen, disputed["dispute_id"])


def test_retrieve_of_an_unknown_dispute_is_404_HE_04(api: Api) -> None:
    response = api.get("/disputes/dp_missing")

    assert response.status_code == 404
    assert response.json == DISPUTE_NOT_FOUND


# -- POST /disputes/accept/:id -----------------------------------------------------------------------


@pytest.mark.parametrize("status", ["dispute_opened", "dispute_challenged"])
def test_accept_of_an_open_dispute_accepts_it(api: Api, frozen: str, status: str) -> None:
    shown = dispute_in(api, status)
    advance(api, 60)

    response = api.post(f"/disputes/accept/{shown['dispute_id']}")

    assert response.status_code == 200
    assert response.json == {
        **shown,
        "dispute_status": "dispute_accepted",
        "connector_status": "lost",
        "modified_at": later(frozen, 60),
        "connector_updated_at": later(frozen, 60),
    }


@pytest.mark.parametrize("status", ["dispute_accepted", "dispute_expired"])
def test_accept_of_a_closed_dispute_is_HE_03(api: Api, status: str) -> None:
    shown = dispute_in(api, status)

    response = api.post(f"/disputes/accept/{shown['dispute_id']}")

    assert response.status_code == 400
    assert response.json == closed("accepted", status)
    assert get_dispute(api, shown["dispute_id"]) == shown


def test_accept_of_an_unknown_dispute_is_404_HE_04(api: Api) -> None:
    response = api.post("/disputes/accept/dp_missing")

    assert response.status_code == 404
    assert response.json == DISPUTE_NOT_FOUND


def test_get_on_the_accept_path_is_a_wrong_method(api: Api, disputed: dict[str, Any]) -> None:
    response = api.get(f"/disputes/accept/{disputed['dispute_id']}")

    assert response.status_code == 405
    assert response.json == WRONG_METHOD


# -- POST /disputes/evidence and GET /disputes/evidence/:id ------------------------------------------


def test_evidence_answers_the_challenged_dispute(api: Api, frozen: str, disputed: dict[str, Any]) -> None:
    advance(api, 60)

    response = submit(api, disputed["dispute_id"], receipt="Receipt #1", customer_name="Ada Lovelace")

    assert response.status_code == 200
    assert response.json == dispute_body(
        frozen,
        disputed["dispute_id"],
        dispute_status="dispute_challenged",
        evidence_submitted_at=later(frozen, 60),
        modified_at=later(frozen, 60),
    )


def test_the_evidence_submitted_is_retrievable(api: Api, frozen: str, disputed: dict[str, Any]) -> None:
    ok(submit(api, disputed["dispute_id"], receipt="Receipt #1", customer_name="Ada Lovelace"))

    response = api.get(f"/disputes/evidence/{disputed['dispute_id']}")

    assert response.status_code == 200
    assert response.json == {
        "dispute_id": disputed["dispute_id"],
        "dispute_status": "dispute_challenged",
        "evidence": {"receipt": "Receipt #1", "customer_name": "Ada Lovelace"},
        "evidence_submitted_at": frozen,
    }


def test_the_evidence_of_an_unanswered_dispute_is_empty(api: Api, disputed: dict[str, Any]) -> None:
    response = api.get(f"/disputes/evidence/{disputed['dispute_id']}")

    assert response.status_code == 200
    assert response.json == {
        "dispute_id": disputed["dispute_id"],
        "dispute_status": "dispute_opened",
        "evidence": {},
        "evidence_submitted_at": None,
    }


def test_every_evidence_field_of_the_real_service_is_accepted(api: Api, disputed: dict[str, Any]) -> None:
    every = {field: f"{field} text" for field in EVIDENCE_FIELDS}
    ok(submit(api, disputed["dispute_id"], **every))

    response = api.get(f"/disputes/evidence/{disputed['dispute_id']}")

    assert response.json["evidence"] == every


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"receipt": "Receipt #1"}, missing("dispute_id")),
        ({"dispute_id": "{id}", "receipt": 1}, invalid("receipt", "not a valid string")),
        (
            {"dispute_id": "{id}", "receipt": "r" * 5001},
            invalid("receipt", "longer than maximum length 5000"),
        ),
        ({"dispute_id": "{id}", "invoice": "Invoice #1"}, malformed("unknown field `invoice`")),
    ],
    ids=["no dispute_id", "not a string", "too long", "unknown field"],
)
def test_evidence_with_an_invalid_body_is_refused_naming_the_field(
    api: Api, disputed: dict[str, Any], body: dict[str, Any], expected: dict[str, Any]
) -> None:
    sent = {k: disputed["dispute_id"] if v == "{id}" else v for k, v in body.items()}

    response = api.post("/disputes/evidence", sent)

    assert response.status_code == 400
    assert response.json == expected
    assert get_dispute(api, disputed["dispute_id"]) == disputed


@pytest.mark.parametrize("status", ["dispute_lost", "dispute_expired"])
def test_evidence_on_a_closed_dispute_is_HE_03(api: Api, status: str) -> None:
    shown = dispute_in(api, status)

    response = submit(api, shown["dispute_id"])

    assert response.status_code == 400
    assert response.json == closed("given evidence", status)
    assert get_dispute(api, shown["dispute_id"]) == shown


def test_evidence_on_an_unknown_dispute_is_404_HE_04(api: Api) -> None:
    response = submit(api, "dp_missing")

    assert response.status_code == 404
    assert response.json == DISPUTE_NOT_FOUND


def test_the_evidence_of_an_unknown_dispute_is_404_HE_04(api: Api) -> None:
    response = api.get("/disputes/evidence/dp_missing")

    assert response.status_code == 404
    assert response.json == DISPUTE_NOT_FOUND


@pytest.mark.parametrize(
    ("text", "status"), [("winning_evidence", "dispute_won"), ("losing_evidence", "dispute_lost")]
)
def test_decisive_evidence_decides_the_dispute_a_day_later(
    api: Api, frozen: str, disputed: dict[str, Any], text: str, status: str
) -> None:
    ok(submit(api, disputed["dispute_id"], uncategorized_text=text))

    advance(api, DAY)

    assert get_dispute(api, disputed["dispute_id"]) == dispute_body(
        frozen,
        disputed["dispute_id"],
        dispute_status=status,
        evidence_submitted_at=frozen,
        modified_at=later(frozen, DAY),
    )


def test_the_clock_advance_reports_the_decision_timer_it_fired(
    api: Api, frozen: str, disputed: dict[str, Any]
) -> None:
    ok(submit(api, disputed["dispute_id"], uncategorized_text="losing_evidence"))

    assert advance(api, DAY)["timers_fired"] == [
        {"due_at": later(frozen, DAY), "kind": "dispute.decision", "target_id": disputed["dispute_id"]}
    ]


# -- DELETE /disputes/evidence -----------------------------------------------------------------------


def test_delete_evidence_answers_the_evidence_left(api: Api, frozen: str, disputed: dict[str, Any]) -> None:
    ok(submit(api, disputed["dispute_id"], receipt="Receipt #1", customer_name="Ada"))

    response = delete_evidence(api, {"dispute_id": disputed["dispute_id"], "evidence_type": "receipt"})

    assert response.status_code == 200
    assert response.json == {
        "dispute_id": disputed["dispute_id"],
        "dispute_status": "dispute_challenged",
        "evidence": {"customer_name": "Ada"},
        "evidence_submitted_at": frozen,
    }


def test_deleting_the_last_evidence_leaves_the_dispute_unanswered(
    api: Api, frozen: str, disputed: dict[str, Any]
) -> None:
    ok(submit(api, disputed["dispute_id"], uncategorized_text="winning_evidence"))
    advance(api, 60)

    response = delete_evidence(
        api, {"dispute_id": disputed["dispute_id"], "evidence_type": "uncategorized_text"}
    )

    assert response.status_code == 200
    assert response.json == {
        "dispute_id": disputed["dispute_id"],
        "dispute_status": "dispute_opened",
        "evidence": {},
        "evidence_submitted_at": None,
    }
    assert get_dispute(api, disputed["dispute_id"]) == dispute_body(
        frozen, disputed["dispute_id"], modified_at=later(frozen, 60)
    )


def test_a_dispute_whose_evidence_is_all_deleted_expires_at_its_deadline(
    api: Api, frozen: str, disputed: dict[str, Any]
) -> None:
    ok(submit(api, disputed["dispute_id"], uncategorized_text="winning_evidence"))
    ok(delete_evidence(api, {"dispute_id": disputed["dispute_id"], "evidence_type": "uncategorized_text"}))

    advance(api, WEEK)

    assert get_dispute(api, disputed["dispute_id"]) == dispute_body(
        frozen, disputed["dispute_id"], dispute_status="dispute_expired", modified_at=later(frozen, WEEK)
    )
    assert [e[0] for e in dispute_events(api)[1:]] == [
        "dispute_opened",
        "dispute_challenged",
        "dispute_expired",
    ]


def test_deleting_the_last_evidence_after_the_deadline_expires_the_dispute(
    api: Api, frozen: str, disputed: dict[str, Any]
) -> None:
    ok(submit(api, disputed["dispute_id"], uncategorized_text="plain"))
    advance(api, WEEK + 60)
    assert get_dispute(api, disputed["dispute_id"])["dispute_status"] == "dispute_challenged"

    response = delete_evidence(
        api, {"dispute_id": disputed["dispute_id"], "evidence_type": "uncategorized_text"}
    )

    assert response.status_code == 200
    assert response.json == {
        "dispute_id": disputed["dispute_id"],
        "dispute_status": "dispute_expired",
        "evidence": {},
        "evidence_submitted_at": None,
    }
    assert dispute_events(api)[-1] == (
        "dispute_expired",
        "dispute_details",
        disputed["dispute_id"],
        later(frozen, WEEK + 60),
    )


def test_delete_evidence_of_a_type_not_submitted_is_IR_04(api: Api, disputed: dict[str, Any]) -> None:
    ok(submit(api, disputed["dispute_id"], receipt="Receipt #1"))

    response = delete_evidence(api, {"dispute_id": disputed["dispute_id"], "evidence_type": "shipping_date"})

    assert response.status_code == 400
    assert response.json == invalid("evidence_type", "no evidence of this type was submitted")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"evidence_type": "receipt"}, missing("dispute_id")),
        ({"dispute_id": "{id}"}, missing("evidence_type")),
        (
            {"dispute_id": "{id}", "evidence_type": "invoice"},
            invalid("evidence_type", f"must be one of: {', '.join(EVIDENCE_FIELDS)}"),
        ),
        ({"dispute_id": "{id}", "evidence_type": "receipt", "all": True}, malformed("unknown field `all`")),
    ],
    ids=["no dispute_id", "no evidence_type", "unknown evidence_type", "unknown field"],
)
def test_delete_evidence_with_an_invalid_body_is_refused_naming_the_field(
    api: Api, disputed: dict[str, Any], body: dict[str, Any], expected: dict[str, Any]
) -> None:
    ok(submit(api, disputed["dispute_id"], receipt="Receipt #1"))
    sent = {k: disputed["dispute_id"] if v == "{id}" else v for k, v in body.items()}

    response = delete_evidence(api, sent)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get(f"/disputes/evidence/{disputed['dispute_id']}"))["evidence"] == {
        "receipt": "Receipt #1"
    }


@pytest.mark.parametrize("status", ["dispute_accepted", "dispute_won"])
def test_delete_evidence_of_a_closed_dispute_is_HE_03(api: Api, status: str) -> None:
    shown = dispute_in(api, status)

    response = delete_evidence(api, {"dispute_id": shown["dispute_id"], "evidence_type": "receipt"})

    assert response.status_code == 400
    assert response.json == closed("given evidence", status)


def test_delete_evidence_of_an_unknown_dispute_is_404_HE_04(api: Api) -> None:
    response = delete_evidence(api, {"dispute_id": "dp_missing", "evidence_type": "receipt"})

    assert response.status_code == 404
    assert response.json == DISPUTE_NOT_FOUND


# -- the challenge deadline --------------------------------------------------------------------------


def test_an_unanswered_dispute_expires_at_its_deadline(
    api: Api, frozen: str, disputed: dict[str, Any]
) -> None:
    advance(api, WEEK)

    assert get_dispute(api, disputed["dispute_id"]) == dispute_body(
        frozen, disputed["dispute_id"], dispute_status="dispute_expired", modified_at=later(frozen, WEEK)
    )


def test_the_clock_advance_reports_the_deadline_timer_it_fired(
    api: Api, frozen: str, disputed: dict[str, Any]
) -> None:
    assert advance(api, WEEK)["timers_fired"] == [
        {"due_at": later(frozen, WEEK), "kind": "dispute.deadline", "target_id": disputed["dispute_id"]}
    ]


# -- POST /__mock/disputes/:id/resolve ---------------------------------------------------------------


@pytest.mark.parametrize("result", ["won", "lost", "cancelled"])
def test_resolve_decides_an_open_dispute(
    api: Api, frozen: str, disputed: dict[str, Any], result: str
) -> None:
    advance(api, 60)

    response = resolve(api, disputed["dispute_id"], result)

    assert response.status_code == 200
    assert response.json == dispute_body(
        frozen, disputed["dispute_id"], dispute_status=f"dispute_{result}", modified_at=later(frozen, 60)
    )


@pytest.mark.parametrize(
    ("status", "result", "verb"),
    [
        ("dispute_accepted", "won", "decided"),
        ("dispute_expired", "lost", "decided"),
        ("dispute_won", "cancelled", "cancelled"),
    ],
)
def test_resolve_of_a_closed_dispute_is_HE_03(api: Api, status: str, result: str, verb: str) -> None:
    shown = dispute_in(api, status)

    response = resolve(api, shown["dispute_id"], result)

    assert response.status_code == 400
    assert response.json == closed(verb, status)
    assert get_dispute(api, shown["dispute_id"]) == shown


def test_resolve_of_an_unknown_dispute_is_404_HE_04(api: Api) -> None:
    response = resolve(api, "dp_missing", "won")

    assert response.status_code == 404
    assert response.json == DISPUTE_NOT_FOUND


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("result")),
        ({"result": "accepted"}, invalid("result", "must be one of: won, lost, cancelled")),
        ({"result": "won", "amount": 5}, malformed("unknown field `amount`")),
    ],
    ids=case_id,
)
def test_resolve_with_an_invalid_body_is_refused(
    api: Api, disputed: dict[str, Any], body: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = api.post(f"/__mock/disputes/{disputed['dispute_id']}/resolve", body)

    assert response.status_code == 400
    assert response.json == expected
    assert get_dispute(api, disputed["dispute_id"]) == disputed


def test_resolve_with_the_admin_key_names_the_merchant(admin: Api, disputed: dict[str, Any]) -> None:
    response = admin.post(
        f"/__mock/disputes/{disputed['dispute_id']}/resolve?merchant_id={MERCHANT_ID}", {"result": "won"}
    )

    assert response.status_code == 200
    assert response.json["dispute_status"] == "dispute_won"


def test_resolve_with_another_merchants_key_is_404(
    api: Api, other_merchant: OtherMerchant, disputed: dict[str, Any]
) -> None:
    response = resolve(other_merchant.api, disputed["dispute_id"], "won")

    assert response.status_code == 404
    assert response.json == DISPUTE_NOT_FOUND
    assert get_dispute(api, disputed["dispute_id"]) == disputed


@pytest.mark.parametrize(
    ("path", "body"),
    [("/__mock/disputes", {"payment_id": "pay_1"}), ("/__mock/disputes/{id}/resolve", {"result": "won"})],
    ids=["open", "resolve"],
)
@pytest.mark.parametrize("key", [None], ids=["no key"])
def test_the_control_plane_dispute_routes_refuse_a_request_without_a_key(
    client: FlaskClient, disputed: dict[str, Any], path: str, body: dict[str, Any], key: str | None
) -> None:
    headers = {} if key is None else {"api-key": key}

    response = client.post(path.replace("{id}", disputed["dispute_id"]), json=body, headers=headers)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


# -- events ------------------------------------------------------------------------------------------


def test_each_dispute_step_is_listed_as_a_dispute_details_event(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    won = open_dispute(api)["dispute_id"]
    accepted = open_dispute(api)["dispute_id"]
    expired = open_dispute(api)["dispute_id"]
    ok(submit(api, won, uncategorized_text="winning_evidence"))
    ok(api.post(f"/disputes/accept/{accepted}"))
    advance(api, WEEK)

    assert dispute_events(api)[1:] == [
        ("dispute_opened", "dispute_details", won, frozen),
        ("dispute_opened", "dispute_details", accepted, frozen),
        ("dispute_opened", "dispute_details", expired, frozen),
        ("dispute_challenged", "dispute_details", won, frozen),
        ("dispute_accepted", "dispute_details", accepted, frozen),
        ("dispute_won", "dispute_details", won, later(frozen, DAY)),
        ("dispute_expired", "dispute_details", expired, later(frozen, WEEK)),
    ]


# -- merchants and keys ------------------------------------------------------------------------------


def _routes(dispute_id: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    return [
        ("get", "/disputes/list", None),
        ("get", f"/disputes/{dispute_id}", None),
        ("post", f"/disputes/accept/{dispute_id}", None),
        ("post", "/disputes/evidence", {"dispute_id": dispute_id, "receipt": "Receipt #1"}),
        ("get", f"/disputes/evidence/{dispute_id}", None),
        ("delete", "/disputes/evidence", {"dispute_id": dispute_id, "evidence_type": "receipt"}),
    ]


ROUTE_IDS = ["list", "retrieve", "accept", "evidence", "retrieve evidence", "delete evidence"]


@pytest.mark.parametrize("index", range(1, 6), ids=ROUTE_IDS[1:])
def test_another_merchant_gets_404_HE_04_for_the_dispute(
    api: Api, other_merchant: OtherMerchant, disputed: dict[str, Any], index: int
) -> None:
    method, path, body = _routes(disputed["dispute_id"])[index]

    response = getattr(other_merchant.api.client, method)(
        path, json=body, headers={"api-key": other_merchant.api.key}
    )

    assert response.status_code == 404
    assert response.json == DISPUTE_NOT_FOUND
    assert get_dispute(api, disputed["dispute_id"]) == disputed


@pytest.mark.usefixtures("disputed")
def test_another_merchant_does_not_list_the_dispute(other_merchant: OtherMerchant) -> None:
    response = other_merchant.api.get("/disputes/list")

    assert response.status_code == 200
    assert response.json == {"data": [], "total_count": 0, "has_more": False}


@pytest.mark.parametrize("index", range(6), ids=ROUTE_IDS)
def test_no_key_is_401_on_every_dispute_route(
    api: Api, client: FlaskClient, disputed: dict[str, Any], index: int
) -> None:
    method, path, body = _routes(disputed["dispute_id"])[index]

    response = getattr(client, method)(path, json=body)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)
    assert get_dispute(api, disputed["dispute_id"]) == disputed


@pytest.mark.parametrize(
    ("index", "key"),
    [(2, PUBLISHABLE_KEY), (3, ADMIN_KEY)],
    ids=["publishable key, accept", "admin key, evidence"],
)
def test_a_key_that_is_not_the_merchants_secret_key_is_401_for_disputes(
    api: Api, client: FlaskClient, disputed: dict[str, Any], index: int, key: str
) -> None:
    method, path, body = _routes(disputed["dispute_id"])[index]

    response = getattr(client, method)(path, json=body, headers={"api-key": key})

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)
    assert get_dispute(api, disputed["dispute_id"]) == disputed


# -- the control plane: table and reset --------------------------------------------------------------


def test_the_control_plane_lists_the_whole_dispute_transition_table(api: Api) -> None:
    response = api.get("/__mock/transitions")

    opened, challenged = "dispute_opened", "dispute_challenged"
    assert response.status_code == 200
    assert response.json["dispute"] == [
        {"from": opened, "event": "accept.concede", "to": "dispute_accepted", "emits": "dispute_accepted"},
        {
            "from": challenged,
            "event": "accept.concede",
            "to": "dispute_accepted",
            "emits": "dispute_accepted",
        },
        {"from": opened, "event": "evidence.submit", "to": challenged, "emits": "dispute_challenged"},
        {"from": challenged, "event": "evidence.submit", "to": challenged, "emits": "dispute_challenged"},
        {"from": challenged, "event": "evidence.withdraw_all", "to": opened, "emits": None},
        {"from": opened, "event": "decide.won", "to": "dispute_won", "emits": "dispute_won"},
        {"from": challenged, "event": "decide.won", "to": "dispute_won", "emits": "dispute_won"},
        {"from": opened, "event": "decide.lost", "to": "dispute_lost", "emits": "dispute_lost"},
        {"from": challenged, "event": "decide.lost", "to": "dispute_lost", "emits": "dispute_lost"},
        {"from": opened, "event": "expire.deadline", "to": "dispute_expired", "emits": "dispute_expired"},
        {
            "from": opened,
            "event": "cancel.withdrawn",
            "to": "dispute_cancelled",
            "emits": "dispute_cancelled",
        },
        {
            "from": challenged,
            "event": "cancel.withdrawn",
            "to": "dispute_cancelled",
            "emits": "dispute_cancelled",
        },
    ]


def test_reset_deletes_the_merchants_disputes(api: Api, disputed: dict[str, Any]) -> None:
    ok(api.post("/__mock/reset"))

    assert api.get(f"/disputes/{disputed['dispute_id']}").json == DISPUTE_NOT_FOUND
    assert ok(api.get("/disputes/list"))["total_count"] == 0


@pytest.mark.usefixtures("disputed")
def test_reset_drops_the_deadline_of_an_open_dispute(api: Api) -> None:
    ok(api.post("/__mock/reset"))

    assert advance(api, WEEK)["timers_fired"] == []


# -- disputes on the payment -------------------------------------------------------------------------


def test_a_payment_shows_its_disputes(api: Api, frozen: str, disputed: dict[str, Any]) -> None:
    shown = ok(api.get("/payments/pay_1"))

    assert shown["disputes"] == [dispute_body(frozen, disputed["dispute_id"])]


def test_a_payment_shows_its_disputes_as_they_stand(api: Api, frozen: str, disputed: dict[str, Any]) -> None:
    ok(api.post(f"/disputes/accept/{disputed['dispute_id']}"))

    shown = ok(api.get("/payments/pay_1"))

    assert [d["dispute_status"] for d in shown["disputes"]] == ["dispute_accepted"]


def test_a_payment_with_the_dispute_card_shows_the_dispute_it_opened(api: Api, frozen: str) -> None:
    created = create(api, DISPUTE_CARD, payment_id="pay_1")

    [dispute] = ok(api.get("/disputes/list"))["data"]
    assert created["disputes"] == [dispute_body(frozen, dispute["dispute_id"])]
