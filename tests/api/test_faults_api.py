"""Fault rules: /__mock/faults makes a merchant's API requests misbehave, on a schedule, and the journal
notes each fault applied."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime, timedelta
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from mocksrv.app import create_app
from mocksrv.control import wait_slots
from mocksrv.domain.sandbox import Sandbox
from tests import payloads
from tests.api.conftest import OtherMerchant
from tests.api.expected import Matches, error, invalid
from tests.api.scenarios import advance, create, ok
from tests.conftest import Api, CheckedClient
from tests.payloads import ADMIN_KEY, MERCHANT_ID, PUBLISHABLE_KEY, SECRET_KEY

pytestmark = pytest.mark.usefixtures("frozen")

DEADLINE = 10.0  # seconds a held request may take to be held, or to end once let go
FAULT_ID = Matches(r"flt_[0-9A-Za-z]{20}")
UNAVAILABLE = {
    "error": {
        "type": "api",
        "code": "HE_00",
        "message": "The service is temporarily unavailable; try again later",
    }
}
PAYMENT_EXISTS = error(
    "HE_01", "The payment with the specified payment_id already exists in our records", "payment_id"
)


def add(api: Api, **rule: Any) -> dict[str, Any]:
    return ok(api.post("/__mock/faults", rule))


def payment_count(api: Api) -> int:
    return len(ok(api.get("/payments/list"))["data"])


def faults_of(api: Api) -> list[Any]:
    """The fault noted by the journal for each request, oldest first."""
    entries = ok(api.get("/__mock/requests"))["data"]
    return [entry["fault"] for entry in reversed(entries)]


def statuses(api: Api, count: int, path: str = "/customers") -> list[int]:
    return [api.post(path, {"name": f"customer {index}"}).status_code for index in range(count)]


# -- the rules themselves ---------------------------------------------------------------------


def test_a_rule_is_answered_as_stored_with_its_counts(api: Api, frozen: str) -> None:
    rule = add(
        api,
        match={"method": "POST", "path": "/payments/*/capture", "body": {"amount_to_capture": 500}},
        effect={"type": "error", "status": 502},
        timing="after",
        schedule={"times": 2, "probability": 0.5, "seed": 7, "from": frozen},
    )

    assert rule == {
        "fault_id": FAULT_ID,
        "match": {"method": "POST", "path": "/payments/*/capture", "body": {"amount_to_capture": 500}},
        "effect": {"type": "error", "status": 502},
        "timing": "after",
        "schedule": {"times": 2, "probability": 0.5, "seed": 7, "from": frozen},
        "matched": 0,
        "applied": 0,
        "created": frozen,
    }
    assert ok(api.get(f"/__mock/faults/{rule['fault_id']}")) == rule
    assert ok(api.get("/__mock/faults")) == {"data": [rule], "total_count": 1}


def test_defaults_are_every_request_before_it_is_processed(api: Api) -> None:
    rule = add(api, effect={"type": "error"})

    assert (rule["match"], rule["effect"], rule["timing"], rule["schedule"]) == (
        {"method": None, "path": "*", "body": {}},
        {"type": "error", "status": 503},
        "before",
        {},
    )
    assert statuses(api, 3) == [503, 503, 503]


def test_a_deleted_rule_faults_nothing_more(api: Api) -> None:
    rule = add(api, effect={"type": "error"})
    assert statuses(api, 1) == [503]

    deleted = ok(api.delete(f"/__mock/faults/{rule['fault_id']}"))

    assert (deleted["matched"], deleted["applied"]) == (1, 1)
    assert statuses(api, 1) == [200]
    assert api.get(f"/__mock/faults/{rule['fault_id']}").json == error(
        "HE_02", "Fault does not exist in our records"
    )


def test_deleting_all_rules_answers_how_many(api: Api) -> None:
    add(api, effect={"type": "error"})
    add(api, effect={"type": "drop"})

    assert ok(api.delete("/__mock/faults")) == {"deleted": 2}
    assert ok(api.get("/__mock/faults")) == {"data": [], "total_count": 0}


def test_a_reset_deletes_the_rules(api: Api) -> None:
    add(api, effect={"type": "error"})

    ok(api.post("/__mock/reset", {}))

    assert ok(api.get("/__mock/faults"))["total_count"] == 0
    assert statuses(api, 1) == [200]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ({}, error("IR_04", "Missing required param: effect", "effect")),
        (
            {"effect": {"type": "explode"}},
            invalid(
                "effect.type", "must be one of: error, rate_limit, latency, drop, truncate, malformed, hang"
            ),
        ),
        (
            {"effect": {"type": "error", "status": 429}},
            invalid("effect.status", "error faults answer with: 500, 502, 503, 504"),
        ),
        (
            {"effect": {"type": "rate_limit", "status": 503}},
            invalid("effect.status", "rate_limit faults answer with: 429"),
        ),
        (
            {"effect": {"type": "drop", "status": 500}},
            invalid("effect.status", "drop faults answer with: none"),
        ),
        (
            {"effect": {"type": "latency"}},
            invalid("effect.milliseconds", "a latency fault names its milliseconds"),
        ),
        (
            {"effect": {"type": "truncate"}, "timing": "before"},
            invalid("timing", "a truncate fault changes an answer, so it comes after"),
        ),
        (
            {
                "effect": {"type": "error"},
                "schedule": {"from": "2030-01-02T00:00:00Z", "until": "2030-01-01T00:00:00Z"},
            },
            invalid("schedule.until", "the window ends after it starts"),
        ),
        (
            {"effect": {"type": "error"}, "schedule": {"until": "9999-12-31T23:59:59Z"}},
            invalid("schedule.until", "a time from 1000-01-01 to 9100-03-18, as a record may hold"),
        ),
        (
            {"effect": {"type": "error"}, "schedule": {"every": 0}},
            invalid("schedule.every", "must be greater than or equal to 1"),
        ),
        (
            {"effect": {"type": "error"}, "match": {"body": {"card": {"nested": 1}}}},
            invalid("match.body", "card: compare a text, number, boolean or null"),
        ),
    ],
)
def test_a_bad_rule_is_refused_and_nothing_is_stored(api: Api, rule: dict[str, Any], expected: Any) -> None:
    response = api.post("/__mock/faults", rule)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get("/__mock/faults"))["total_count"] == 0


def test_another_merchants_key_cannot_see_or_delete_a_rule(api: Api, other_merchant: OtherMerchant) -> None:
    rule = add(api, effect={"type": "error"})

    assert other_merchant.api.get(f"/__mock/faults/{rule['fault_id']}").status_code == 404
    assert other_merchant.api.delete(f"/__mock/faults/{rule['fault_id']}").status_code == 404
    assert ok(other_merchant.api.get("/__mock/faults"))["total_count"] == 0
    assert other_merchant.api.post("/customers", {"name": "unfaulted"}).status_code == 200


def test_the_admin_key_names_the_merchant(admin: Api, api: Api) -> None:
    ok(admin.post("/__mock/faults", {"merchant_id": MERCHANT_ID, "effect": {"type": "error"}}))

    assert statuses(api, 1) == [503]
    assert admin.get("/__mock/faults").status_code == 400


# -- effects ----------------------------------------------------------------------------------


def test_an_error_before_stores_nothing_and_is_journalled(api: Api) -> None:
    rule = add(api, match={"path": "/payments"}, effect={"type": "error", "status": 503})

    response = api.post("/payments", payloads.payment())

    assert (response.status_code, response.json) == (503, UNAVAILABLE)
    assert response.headers["X-Mocksrv-Fault"] == rule["fault_id"]
    assert payment_count(api) == 0
    assert faults_of(api) == [
        {"fault_id": rule["fault_id"], "effect": "error", "timing": "before", "status": 503},
        None,
    ]


@pytest.mark.parametrize("status", [500, 502, 504])
def test_each_error_status_answers_the_spec_error_shape(api: Api, status: int) -> None:
    add(api, effect={"type": "error", "status": status})

    response = api.post("/customers", {"name": "Ada"})

    assert response.status_code == status
    assert set(response.json) == {"error"}
    assert (response.json["error"]["type"], response.json["error"]["code"]) == ("api", "HE_00")


def test_an_error_after_creates_the_payment_and_a_retry_meets_he_01(api: Api) -> None:
    add(
        api,
        match={"method": "POST", "path": "/payments"},
        effect={"type": "error"},
        timing="after",
        schedule={"times": 1},
    )
    body = payloads.payment(payment_id="pay_order_42")

    first = api.post("/payments", body)
    retry = api.post("/payments", body)

    assert (first.status_code, first.json) == (503, UNAVAILABLE)
    assert (retry.status_code, retry.json) == (400, PAYMENT_EXISTS)
    assert ok(api.get("/payments/pay_order_42"))["status"] == "succeeded"


def test_a_rate_limit_answers_429_with_retry_after_and_the_rate_headers(api: Api) -> None:
    add(api, match={"method": "POST"}, effect={"type": "rate_limit", "retry_after": 30})

    response = api.post("/customers", {"name": "Ada"})

    reset = response.headers["X-RateLimit-Reset"]
    assert response.status_code == 429
    assert response.json == error("RL_01", f"Rate limit exceeded; the window resets at {reset} (Unix time)")
    assert response.headers["Retry-After"] == "30"
    assert response.headers["X-RateLimit-Remaining"] == "0"
    assert response.headers["X-RateLimit-Limit"] == "6000"
    assert ok(api.get("/customers/list"))["data"] == []


def test_malformed_keeps_the_status_and_sends_a_body_that_is_not_json(api: Api) -> None:
    add(api, match={"path": "/customers"}, effect={"type": "malformed"})

    response = api.post("/customers", {"name": "Ada", "customer_id": "cus_malformed"})

    assert response.status_code == 200
    assert response.headers["Content-Length"] == str(len(response.data))
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(response.data)
    assert ok(api.get("/customers/cus_malformed"))["name"] == "Ada"


def test_truncate_announces_the_whole_body_and_sends_half(api: Api) -> None:
    add(api, match={"path": "/customers"}, effect={"type": "truncate"})

    response = api.post("/customers", {"name": "Ada", "customer_id": "cus_cut"})
    whole = api.get("/customers/cus_cut").data

    assert response.status_code == 200
    assert response.headers["Content-Length"] == str(len(whole))
    assert response.data == whole[: len(whole) // 2]


@pytest.mark.parametrize("timing", ["before", "after"])
def test_latency_answers_late_names_its_rule_and_the_journal_shows_it(api: Api, timing: str) -> None:
    rule = add(api, effect={"type": "latency", "milliseconds": 120}, timing=timing)

    response = api.post("/customers", {"name": "Ada"})

    assert (response.status_code, response.headers["X-Mocksrv-Fault"]) == (200, rule["fault_id"])
    [entry] = ok(api.get("/__mock/requests?path=/customers"))["data"]
    assert entry["latency_ms"] >= 120
    assert entry["fault"] == {
        "fault_id": rule["fault_id"],
        "effect": "latency",
        "timing": timing,
        "status": None,
    }


def test_a_drop_before_does_nothing_and_notes_no_answer(api: Api) -> None:
    rule = add(api, match={"path": "/customers"}, effect={"type": "drop"})

    response = api.post("/customers", {"name": "Ada"})

    # The test client has no connection to close: it gets the stand-in a plain WSGI server sends.
    assert response.status_code == 500
    assert ok(api.get("/customers/list"))["data"] == []
    [entry] = ok(api.get("/__mock/requests?path=/customers"))["data"]
    assert (entry["status"], entry["response_body"]) == (None, None)
    assert entry["fault"] == {
        "fault_id": rule["fault_id"],
        "effect": "drop",
        "timing": "before",
        "status": None,
    }


def test_a_hang_holds_for_its_seconds_then_gives_no_answer(api: Api) -> None:
    add(api, match={"path": "/customers"}, effect={"type": "hang", "seconds": 0.1}, timing="after")

    api.post("/customers", {"name": "Ada", "customer_id": "cus_hung"})

    [entry] = ok(api.get("/__mock/requests?path=/customers"))["data"]
    assert entry["status"] is None
    assert entry["latency_ms"] >= 100
    assert ok(api.get("/customers/cus_hung"))["name"] == "Ada"


# -- what a rule matches ------------------------------------------------------------------------


def test_method_and_path_pattern_choose_the_requests(api: Api) -> None:
    payment = create(api)
    add(api, match={"method": "GET", "path": "/payments/*"}, effect={"type": "error"})

    assert api.get(f"/payments/{payment['payment_id']}").status_code == 503
    assert api.post(f"/payments/{payment['payment_id']}/capture", {}).status_code == 409  # already captured
    assert api.post("/customers", {"name": "Ada"}).status_code == 200


def test_a_body_value_chooses_the_requests(api: Api) -> None:
    add(api, match={"body": {"amount": 6540, "billing.address.country": "US"}}, effect={"type": "error"})

    assert api.post("/payments", payloads.payment(amount=6540)).status_code == 503
    assert api.post("/payments", payloads.payment(amount=6541)).status_code == 200
    assert payment_count(api) == 1


def test_a_body_value_is_compared_as_json_a_boolean_only_with_a_boolean(api: Api) -> None:
    add(api, match={"body": {"confirm": True}}, effect={"type": "error"})
    add(api, match={"body": {"amount": 1}}, effect={"type": "error", "status": 502})

    # true is not 1: that body reaches the route, whose schema refuses it; 1.0 is 1.
    assert api.post("/payments", payloads.payment(confirm=True)).status_code == 503
    assert api.post("/payments", {"amount": True, "currency": "USD"}).status_code == 400
    assert api.post("/payments", {"amount": 1.0, "currency": "USD"}).status_code == 502


def test_the_publishable_key_is_faulted_but_the_control_plane_never_is(api: Api, client: FlaskClient) -> None:
    payment = create(api, confirm=False)
    add(api, effect={"type": "error"})
    browser = Api(client, PUBLISHABLE_KEY)

    answer = browser.get(f"/payments/{payment['payment_id']}?client_secret={payment['client_secret']}")

    assert answer.status_code == 503
    assert api.get("/__mock/faults").status_code == 200


@pytest.mark.parametrize(("effect", "status"), [({"type": "error"}, 503), ({"type": "rate_limit"}, 429)])
def test_the_health_check_is_never_faulted_and_matches_no_rule(
    api: Api, effect: dict[str, Any], status: int
) -> None:
    rule = add(api, effect=effect, match={"path": "*"})

    assert (api.get("/health").status_code, api.get("/health").json) == (200, {"status": "healthy"})
    assert api.post("/customers", {}).status_code == status
    assert ok(api.get(f"/__mock/faults/{rule['fault_id']}"))["matched"] == 1


# -- schedules ----------------------------------------------------------------------------------


def test_times_faults_the_next_n_matching_requests(api: Api) -> None:
    rule = add(api, effect={"type": "error"}, schedule={"times": 2})

    assert statuses(api, 4) == [503, 503, 200, 200]
    counted = ok(api.get(f"/__mock/faults/{rule['fault_id']}"))
    assert (counted["matched"], counted["applied"]) == (4, 2)


def test_every_kth_matching_request_is_faulted(api: Api) -> None:
    add(api, effect={"type": "error"}, schedule={"every": 3})

    assert statuses(api, 7) == [200, 200, 503, 200, 200, 503, 200]


def test_a_seeded_probability_repeats_exactly(settings: Any) -> None:
    def run() -> list[int]:
        app = create_app(settings)
        app.test_client_class = CheckedClient
        api = Api(app.test_client(), SECRET_KEY)
        add(api, effect={"type": "error"}, schedule={"probability": 0.5, "seed": 42})
        return statuses(api, 40)

    first, second = run(), run()

    assert first == second
    assert 5 < first.count(503) < 35


def test_a_window_on_the_mock_clock_bounds_the_rule(api: Api, frozen: str) -> None:
    add(api, effect={"type": "error"}, schedule={"from": _later(frozen, 60), "until": _later(frozen, 120)})

    assert statuses(api, 1) == [200]
    advance(api, 60)
    assert statuses(api, 1) == [503]
    advance(api, 60)
    assert statuses(api, 1) == [200]


def _later(moment: str, seconds: int) -> str:
    return (datetime.fromisoformat(moment.replace("Z", "+00:00")) + timedelta(seconds=seconds)).isoformat()


def test_the_first_rule_that_fires_wins_and_every_match_counts(api: Api) -> None:
    first = add(api, effect={"type": "error", "status": 500}, schedule={"every": 2})
    second = add(api, effect={"type": "error", "status": 504})

    assert statuses(api, 4) == [504, 500, 504, 500]
    counts = [(rule["matched"], rule["applied"]) for rule in ok(api.get("/__mock/faults"))["data"]]
    assert counts == [(4, 2), (4, 2)]
    assert [rule["fault_id"] for rule in ok(api.get("/__mock/faults"))["data"]] == [
        first["fault_id"],
        second["fault_id"],
    ]


def test_admin_only_keys_are_used_for_the_rules(client: FlaskClient) -> None:
    admin = Api(client, ADMIN_KEY)
    assert admin.post(
        "/__mock/faults", {"merchant_id": "merchant_nobody", "effect": {"type": "error"}}
    ).json == (error("HE_02", "Merchant does not exist in our records"))


@pytest.mark.parametrize(
    ("effect", "timing"),
    [
        ({"type": "hang", "seconds": 60}, "before"),
        ({"type": "hang", "seconds": 60}, "after"),
        ({"type": "latency", "milliseconds": 60_000}, "before"),
        ({"type": "latency", "milliseconds": 60_000}, "after"),
    ],
)
def test_a_pause_with_every_wait_slot_of_the_merchant_taken_is_the_long_polls_429(
    api: Api, app: Flask, effect: dict[str, Any], timing: str
) -> None:
    add(api, effect=effect, timing=timing, match={"path": "/customers/list"})
    slots = wait_slots(app)
    with ExitStack() as held:
        for _ in range(slots.per_merchant):
            held.enter_context(slots.hold(MERCHANT_ID))

        answer = api.get("/customers/list")

    assert (answer.status_code, answer.json) == (
        429,
        error(
            "RL_01",
            f"Too many long-polls open: at most {slots.per_merchant} per merchant and {slots.total} in all; "
            "try again once one is answered",
        ),
    )
    assert slots.open(MERCHANT_ID) == 0


# -- a held request whose merchant is reset, restored or deleted ----------------------------------


def _held_create(api: Api, app: Flask, merchant_id: str, timing: str) -> Callable[[], Any]:
    """A customer create held by a latency fault of the merchant's; the function returned waits for
    its answer. Answers once the request is held."""
    add(api, effect={"type": "latency", "milliseconds": 60_000}, timing=timing, match={"path": "/customers"})
    answers: list[Any] = []
    other_client = Api(app.test_client(), api.key)
    thread = threading.Thread(
        target=lambda: answers.append(other_client.post("/customers", {"customer_id": "cus_held"})),
        daemon=True,
    )
    thread.start()
    assert wait_slots(app).wait_open(merchant_id, 1, timeout=DEADLINE) == 1

    def answer() -> Any:
        thread.join(DEADLINE)
        assert answers, "the held request did not end"
        return answers[0]

    return answer


@pytest.mark.parametrize("timing", ["before", "after"])
@pytest.mark.parametrize("ending", ["reset", "restore", "delete"])
def test_a_held_request_whose_merchant_is_replaced_ends_without_an_answer_and_leaves_nothing(
    admin: Api, app: Flask, sandbox: Sandbox, ending: str, timing: str
) -> None:
    credentials = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_held"}))
    merchant = admin.as_key(credentials["secret_key"])
    document = ok(merchant.get("/__mock/snapshot"))
    ok(merchant.get("/customers/list"))
    answer = _held_create(merchant, app, "merchant_held", timing)

    if ending == "reset":
        ok(merchant.post("/__mock/reset"))
    elif ending == "restore":
        ok(merchant.post("/__mock/restore", document))
    else:
        ok(admin.delete("/__mock/merchants/merchant_held"))

    dropped = answer()
    assert dropped.status_code == 500  # a test client's view of a connection closed without an answer
    if ending == "delete":
        assert "merchant_held" not in sandbox.store.merchant_ids()  # nothing was made again for it
        credentials = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_held"}))
        merchant = admin.as_key(credentials["secret_key"])
    assert ok(merchant.get("/customers/list"))["data"] == []
    journal = [(entry["path"], entry["status"]) for entry in ok(merchant.get("/__mock/requests"))["data"]]
    if ending == "restore":  # which keeps the journal: the request shows as answered by none
        assert journal == [("/customers/list", 200), ("/customers", None), ("/customers/list", 200)]
    else:  # which forget the journal, and the request let in before with it
        assert journal == [("/customers/list", 200)]
