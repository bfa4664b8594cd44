"""The /__mock control plane: clocks, reset, merchants, outcomes, 3DS results, transitions, seed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from flask.testing import FlaskClient

from mocksrv.domain.clock import format_timestamp
from mocksrv.domain.sandbox import Sandbox
from mocksrv.settings import DEFAULT_FIXTURES
from tests import payloads
from tests.api.conftest import OtherMerchant
from tests.api.expected import (
    AUTHENTICABLE,
    UNAUTHORIZED,
    Matches,
    card_payment,
    case_id,
    declined_payment,
    error,
    invalid,
    invalid_for_any_reason,
    later,
    malformed,
    missing,
    refused,
)
from tests.api.scenarios import CHALLENGE_CARD, WEEK, create, ok, payment_count, payment_in, retrieve
from tests.conftest import Api
from tests.payloads import ADMIN_KEY, MERCHANT_ID, PUBLISHABLE_KEY

pytestmark = pytest.mark.usefixtures("frozen")

MERCHANT_NOT_FOUND = error("HE_02", "Merchant does not exist in our records")
NO_MERCHANT_NAMED = missing("merchant_id")
DECLINE_4242 = {
    "rules": [
        {
            "name": "4242 declines",
            "match": {"card_number": ["4242424242424242"]},
            "outcome": {"result": "decline", "error_code": "do_not_honor", "error_message": "Do not honor."},
        }
    ]
}


# -- clock ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/__mock/clock"),
        ("GET", "/__mock/transitions"),
        ("GET", "/__mock/merchants"),
        ("POST", "/__mock/sync"),
        ("DELETE", f"/__mock/merchants/{MERCHANT_ID}"),
    ],
)
def test_a_query_parameter_a_control_route_does_not_take_is_ir_06(admin: Api, method: str, path: str) -> None:
    response = admin.client.open(
        f"{path}?merchant_id={MERCHANT_ID}&bogus=1", method=method, headers={"api-key": ADMIN_KEY}
    )

    assert (response.status_code, response.json) == (400, malformed("unknown field `bogus`"))
    assert MERCHANT_ID in ok(admin.get("/__mock/merchants"))["data"]


def test_a_reset_whose_merchant_id_is_mistyped_resets_no_merchant(api: Api, admin: Api) -> None:
    created = create(api)

    response = admin.post(f"/__mock/reset?merchnt_id={MERCHANT_ID}", {})

    assert (response.status_code, response.json) == (400, malformed("unknown field `merchnt_id`"))
    assert retrieve(api, created["payment_id"])["status"] == created["status"]


@pytest.mark.parametrize("key", ["admin", "merchant"])
@pytest.mark.parametrize(("query", "body"), [("?merchant_id=", {}), ("", {"merchant_id": ""})])
def test_a_reset_that_names_an_empty_merchant_resets_no_merchant(
    api: Api, admin: Api, query: str, body: dict[str, Any], key: str
) -> None:
    created = create(api)

    response = (admin if key == "admin" else api).post(f"/__mock/reset{query}", body)

    assert (response.status_code, response.json) == (400, invalid("merchant_id"))
    assert retrieve(api, created["payment_id"])["status"] == created["status"]


def test_a_snapshot_or_restore_naming_an_empty_merchant_is_ir_04(admin: Api) -> None:
    document = ok(admin.get("/__mock/snapshot"))

    snapshot = admin.get("/__mock/snapshot?merchant_id=")
    restore = admin.post("/__mock/restore?merchant_id=", document)

    assert (snapshot.status_code, snapshot.json) == (400, invalid("merchant_id"))
    assert (restore.status_code, restore.json) == (400, invalid("merchant_id"))


def test_clock_shows_the_merchants_time(api: Api, frozen: str) -> None:
    response = api.get("/__mock/clock")

    assert response.status_code == 200
    assert response.json == {"merchant_id": MERCHANT_ID, "now": frozen, "frozen": True}


def test_clock_of_a_new_merchant_runs(other_merchant: OtherMerchant) -> None:
    response = other_merchant.api.get("/__mock/clock")

    assert response.status_code == 200
    assert response.json == {
        "merchant_id": "merchant_other",
        "now": Matches(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"),
        "frozen": False,
    }


def test_freeze_stops_the_clock(api: Api) -> None:
    frozen = ok(api.post("/__mock/clock/freeze"))

    assert frozen == {"merchant_id": MERCHANT_ID, "now": frozen["now"], "frozen": True}
    assert ok(api.get("/__mock/clock")) == frozen


def test_resume_restarts_the_clock_from_where_it_stood(api: Api, frozen: str) -> None:
    response = api.post("/__mock/clock/resume")

    assert response.status_code == 200
    assert response.json == {"merchant_id": MERCHANT_ID, "now": frozen, "frozen": False}
    assert ok(api.get("/__mock/clock"))["now"] >= frozen


@pytest.mark.parametrize("seconds", [0, 1, 1.5, 60, WEEK])
def test_advance_moves_the_clock_forward_exactly(api: Api, frozen: str, seconds: float) -> None:
    response = api.post("/__mock/clock/advance", {"seconds": seconds})

    assert response.status_code == 200
    now = later(frozen, seconds)
    assert response.json == {"merchant_id": MERCHANT_ID, "now": now, "frozen": True, "timers_fired": []}
    assert ok(api.get("/__mock/clock"))["now"] == now


def test_advance_lists_the_timers_fired_in_time_order(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_late", capture_method="manual")
    create(api, "4000000000000077", payment_id="pay_async")

    response = api.post("/__mock/clock/advance", {"seconds": WEEK})

    assert response.json["timers_fired"] == [
        {"due_at": later(frozen, 10), "kind": "payment.settle", "target_id": "pay_async"},
        {"due_at": later(frozen, WEEK), "kind": "payment.expire", "target_id": "pay_late"},
    ]


def test_a_timer_fires_only_once(api: Api) -> None:
    create(api, "4000000000000077", payment_id="pay_async")
    ok(api.post("/__mock/clock/advance", {"seconds": 10}))

    response = api.post("/__mock/clock/advance", {"seconds": 10})

    assert response.json["timers_fired"] == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("seconds")),
        (
            {"seconds": -1},
            invalid("seconds", "must be greater than or equal to 0 and less than or equal to 315360000"),
        ),
        (
            {"seconds": 315_360_001},
            invalid("seconds", "must be greater than or equal to 0 and less than or equal to 315360000"),
        ),
        ({"seconds": "soon"}, invalid("seconds", "not a valid number")),
        ({"seconds": 1, "minutes": 1}, malformed("unknown field `minutes`")),
    ],
    ids=case_id,
)
def test_advance_with_an_invalid_body_leaves_the_clock(
    api: Api, frozen: str, body: dict, expected: dict
) -> None:
    response = api.post("/__mock/clock/advance", body)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get("/__mock/clock"))["now"] == frozen


def test_set_moves_the_clock_to_the_time_given(api: Api) -> None:
    response = api.post("/__mock/clock/set", {"now": "2090-01-01T00:00:00Z"})

    assert response.status_code == 200
    assert response.json == {
        "merchant_id": MERCHANT_ID,
        "now": "2090-01-01T00:00:00.000Z",
        "frozen": True,
        "timers_fired": [],
    }


@pytest.mark.parametrize(
    ("now", "shown"),
    [
        ("2090-01-01T02:00:00+02:00", "2090-01-01T00:00:00.000Z"),
        ("2090-01-01T00:00:00", "2090-01-01T00:00:00.000Z"),
        ("2090-01-01T00:00:00.250Z", "2090-01-01T00:00:00.250Z"),
    ],
)
def test_set_reads_offsets_and_takes_a_time_without_one_as_utc(api: Api, now: str, shown: str) -> None:
    response = api.post("/__mock/clock/set", {"now": now})

    assert response.json["now"] == shown


def test_set_to_the_current_time_is_allowed(api: Api, frozen: str) -> None:
    response = api.post("/__mock/clock/set", {"now": frozen})

    assert response.status_code == 200
    assert response.json["now"] == frozen


def test_set_fires_the_timers_that_fall_due(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual")

    response = api.post("/__mock/clock/set", {"now": "2999-01-01T00:00:00Z"})

    assert response.json["timers_fired"] == [
        {"due_at": later(frozen, WEEK), "kind": "payment.expire", "target_id": "pay_1"}
    ]
    assert retrieve(api, "pay_1")["status"] == "expired"


def test_set_backwards_is_ir_04(api: Api, frozen: str) -> None:
    response = api.post("/__mock/clock/set", {"now": later(frozen, -0.001)})

    assert response.status_code == 400
    assert response.json == invalid("now", "the mock clock only moves forward")
    assert ok(api.get("/__mock/clock"))["now"] == frozen


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("now")),
        ({"now": "tomorrow"}, invalid("now", "not a valid ISO 8601 timestamp")),
        ({"now": 4102444800}, invalid("now", "not a valid ISO 8601 timestamp")),
    ],
    ids=case_id,
)
def test_set_with_an_invalid_time_is_ir_04(api: Api, body: dict, expected: dict) -> None:
    response = api.post("/__mock/clock/set", body)

    assert response.status_code == 400
    assert response.json == expected


def test_set_to_a_time_beyond_the_calendar_in_utc_is_ir_04(api: Api, frozen: str) -> None:
    response = api.post("/__mock/clock/set", {"now": "9999-12-31T23:59:59-01:00"})

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason("now")
    assert ok(api.get("/__mock/clock"))["now"] == frozen


def test_advance_beyond_the_latest_time_is_ir_04(api: Api) -> None:
    ok(api.post("/__mock/clock/set", {"now": "8999-12-31T00:00:00Z"}))

    response = api.post("/__mock/clock/advance", {"seconds": 2 * 24 * 3600})

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason("seconds")
    assert ok(api.get("/__mock/clock"))["now"] == "8999-12-31T00:00:00.000Z"


def test_set_beyond_the_latest_time_is_ir_04(api: Api) -> None:
    response = api.post("/__mock/clock/set", {"now": "9999-12-31T23:50:00Z"})

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason("now")


def test_clocks_are_per_merchant(api: Api, frozen: str, other_merchant: OtherMerchant) -> None:
    other_before = ok(other_merchant.api.post("/__mock/clock/freeze"))["now"]

    ok(api.post("/__mock/clock/advance", {"seconds": 3600}))

    assert ok(other_merchant.api.get("/__mock/clock"))["now"] == other_before
    assert ok(api.get("/__mock/clock"))["now"] == later(frozen, 3600)


# -- which merchant a request acts on ---------------------------------------------------------

MERCHANT_ROUTES = [
    ("GET", "/__mock/clock", None),
    ("POST", "/__mock/clock/advance", {"seconds": 1}),
    ("POST", "/__mock/clock/set", {"now": "2999-01-01T00:00:00Z"}),
    ("POST", "/__mock/clock/freeze", None),
    ("POST", "/__mock/clock/resume", None),
    ("GET", "/__mock/outcomes", None),
    ("PUT", "/__mock/outcomes", {"rules": []}),
    ("POST", "/__mock/payments/pay_1/authentication", {"result": "success"}),
    ("POST", "/__mock/seed", {"payments": 1}),
    ("POST", "/__mock/trigger", {"event_type": "payment_succeeded"}),
]
ROUTE_IDS = [f"{method} {path}" for method, path, _ in MERCHANT_ROUTES]


def send(client: FlaskClient, method: str, path: str, body: Any, key: str | None) -> Any:
    headers = {"api-key": key} if key else {}
    if body is None:
        return client.open(path, method=method, headers=headers)
    return client.open(path, method=method, headers=headers, json=body)


@pytest.mark.parametrize(("method", "path", "body"), MERCHANT_ROUTES, ids=ROUTE_IDS)
def test_the_admin_key_without_merchant_id_is_ir_04(
    client: FlaskClient, method: str, path: str, body: Any
) -> None:
    response = send(client, method, path, body, ADMIN_KEY)

    assert response.status_code == 400
    assert response.json == NO_MERCHANT_NAMED


@pytest.mark.parametrize(("method", "path", "body"), MERCHANT_ROUTES, ids=ROUTE_IDS)
def test_the_admin_key_naming_no_such_merchant_is_404(
    client: FlaskClient, method: str, path: str, body: Any
) -> None:
    response = send(client, method, f"{path}?merchant_id=merchant_missing", body, ADMIN_KEY)

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


@pytest.mark.parametrize(("method", "path", "body"), MERCHANT_ROUTES, ids=ROUTE_IDS)
def test_a_merchant_key_naming_another_merchant_is_404(
    client: FlaskClient, other_merchant: OtherMerchant, method: str, path: str, body: Any
) -> None:
    response = send(
        client, method, f"{path}?merchant_id={MERCHANT_ID}", body, other_merchant.credentials["secret_key"]
    )

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


@pytest.mark.parametrize(("method", "path", "body"), MERCHANT_ROUTES, ids=ROUTE_IDS)
@pytest.mark.parametrize(
    "key", [None, "snd_not_a_key", PUBLISHABLE_KEY], ids=["no key", "unknown key", "publishable key"]
)
def test_the_control_plane_without_a_secret_or_admin_key_is_401(
    client: FlaskClient, method: str, path: str, body: Any, key: str | None
) -> None:
    response = send(client, method, path, body, key)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/__mock/clock/advance", {}),
        ("POST", "/__mock/clock/set", {"now": "never"}),
        ("POST", "/__mock/clock/freeze", {"until": "later"}),
        ("POST", "/__mock/reset", {"everything": True}),
        ("PUT", "/__mock/outcomes", {"rules": "none"}),
        ("POST", "/__mock/payments/pay_1/authentication", {}),
        ("POST", "/__mock/seed", {"payments": 0}),
        ("POST", "/__mock/merchants", {"rate_limit": -1}),
    ],
    ids=lambda value: value if isinstance(value, str) else "bad body",
)
def test_the_control_plane_checks_the_key_before_the_body(
    client: FlaskClient, method: str, path: str, body: Any
) -> None:
    response = send(client, method, path, body, None)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


def test_the_admin_key_acts_on_the_merchant_named_in_the_query(admin: Api, frozen: str) -> None:
    response = admin.post(f"/__mock/clock/advance?merchant_id={MERCHANT_ID}", {"seconds": 5})

    assert response.status_code == 200
    assert response.json["now"] == later(frozen, 5)


def test_the_admin_key_acts_on_the_merchant_named_in_the_body(admin: Api, frozen: str) -> None:
    response = admin.post("/__mock/clock/advance", {"seconds": 5, "merchant_id": MERCHANT_ID})

    assert response.status_code == 200
    assert response.json["now"] == later(frozen, 5)


def test_a_merchant_key_may_name_its_own_merchant(api: Api, frozen: str) -> None:
    response = api.get(f"/__mock/clock?merchant_id={MERCHANT_ID}")

    assert response.status_code == 200
    assert response.json == {"merchant_id": MERCHANT_ID, "now": frozen, "frozen": True}


# -- reset ------------------------------------------------------------------------------------


@pytest.fixture
def both_merchants_have_data(api: Api, other_merchant: OtherMerchant) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    create(api, payment_id="pay_1", capture_method="manual")
    ok(other_merchant.api.post("/customers", {"customer_id": "cus_1"}))
    ok(other_merchant.api.post("/__mock/seed", {"payments": 2}))


def _customers(client: Api) -> int:
    count: int = ok(client.get("/customers/list"))["total_count"]
    return count


@pytest.mark.usefixtures("both_merchants_have_data")
def test_reset_with_a_merchant_key_deletes_only_that_merchants_data(
    api: Api, other_merchant: OtherMerchant
) -> None:
    response = api.post("/__mock/reset")

    assert response.status_code == 200
    assert response.json == {"reset": [MERCHANT_ID]}
    assert (payment_count(api), _customers(api)) == (0, 0)
    assert (payment_count(other_merchant.api), _customers(other_merchant.api)) == (2, 1)
    # The process-wide caches stay: another merchant's timestamps are still in use.
    assert format_timestamp.cache_info().currsize > 0


@pytest.mark.usefixtures("both_merchants_have_data")
def test_reset_with_the_admin_key_and_no_merchant_id_resets_every_merchant(
    admin: Api, api: Api, other_merchant: OtherMerchant
) -> None:
    response = admin.post("/__mock/reset")

    assert response.status_code == 200
    assert response.json == {"reset": sorted([MERCHANT_ID, "merchant_other"])}
    assert (payment_count(api), _customers(api)) == (0, 0)
    assert (payment_count(other_merchant.api), _customers(other_merchant.api)) == (0, 0)
    # With every record gone, the caches that would keep the load's memory are emptied too.
    assert format_timestamp.cache_info().currsize == 0


@pytest.mark.usefixtures("both_merchants_have_data")
def test_reset_with_the_admin_key_naming_a_merchant_resets_only_it(
    admin: Api, api: Api, other_merchant: OtherMerchant
) -> None:
    response = admin.post("/__mock/reset", {"merchant_id": "merchant_other"})

    assert response.status_code == 200
    assert response.json == {"reset": ["merchant_other"]}
    assert payment_count(other_merchant.api) == 0
    assert payment_count(api) == 1


@pytest.mark.usefixtures("both_merchants_have_data")
def test_reset_of_another_merchant_with_a_merchant_key_is_404(
    api: Api, other_merchant: OtherMerchant
) -> None:
    response = api.post("/__mock/reset", {"merchant_id": "merchant_other"})

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND
    assert payment_count(other_merchant.api) == 2


def test_reset_keeps_keys_profile_clock_and_outcomes(api: Api, browser: Api, frozen: str) -> None:
    ok(api.put("/__mock/outcomes", DECLINE_4242))
    ok(api.post("/__mock/reset"))

    assert ok(api.get("/__mock/clock")) == {"merchant_id": MERCHANT_ID, "now": frozen, "frozen": True}
    assert ok(api.get("/__mock/outcomes")) == DECLINE_4242
    secret = create(api, None, payment_id="pay_1")["client_secret"]
    assert browser.get(f"/payments/pay_1?client_secret={secret}").status_code == 200


def test_reset_drops_the_pending_timers(api: Api) -> None:
    create(api, payment_id="pay_1", capture_method="manual")
    ok(api.post("/__mock/reset"))

    response = api.post("/__mock/clock/advance", {"seconds": WEEK})

    assert response.json["timers_fired"] == []


def test_a_payment_id_may_be_used_again_after_reset(api: Api) -> None:
    create(api, payment_id="pay_1")
    ok(api.post("/__mock/reset"))

    response = api.post("/payments", payloads.payment(payment_id="pay_1"))

    assert response.status_code == 200


# -- merchants --------------------------------------------------------------------------------


def test_the_admin_creates_a_merchant_with_fresh_keys(admin: Api) -> None:
    response = admin.post("/__mock/merchants", {"merchant_id": "merchant_new"})

    assert response.status_code == 200
    assert response.json == {
        "merchant_id": "merchant_new",
        "profile_id": Matches(r"pro_[A-Za-z0-9]{20}"),
        "secret_key": Matches(r"snd_[0-9a-f]{32}"),
        "publishable_key": Matches(r"pk_snd_[0-9a-f]{32}"),
        "payment_response_hash_key": Matches(r"whsec_[0-9a-f]{32}"),
        "legacy_client_id": Matches(r"legacy_[A-Za-z0-9]{20}"),
        "legacy_client_secret": Matches(r"lcs_[0-9a-f]{32}"),
    }


def test_the_admin_creates_a_merchant_with_a_generated_id(admin: Api) -> None:
    response = admin.post("/__mock/merchants")

    assert response.status_code == 200
    assert response.json["merchant_id"] == Matches(r"merchant_[A-Za-z0-9]{16}")


def test_a_new_merchants_keys_and_profile_work(admin: Api) -> None:
    credentials = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_new"}))
    merchant = admin.as_key(credentials["secret_key"])

    response = merchant.post("/payments", payloads.payment(profile_id=credentials["profile_id"]))

    assert response.status_code == 200
    assert (response.json["merchant_id"], response.json["status"]) == ("merchant_new", "succeeded")


def test_a_deleted_merchant_is_forgotten_with_its_keys_and_data(admin: Api, sandbox: Sandbox) -> None:
    credentials = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_gone"}))
    merchant = admin.as_key(credentials["secret_key"])
    ok(merchant.post("/payments", payloads.payment(profile_id=credentials["profile_id"])))
    ok(merchant.post("/customers", {"customer_id": "cus_1", "name": "Ada"}))

    response = admin.delete("/__mock/merchants/merchant_gone")

    assert (response.status_code, response.json) == (200, {"merchant_id": "merchant_gone", "deleted": True})
    assert "merchant_gone" not in ok(admin.get("/__mock/merchants"))["data"]
    assert merchant.get("/customers/cus_1").status_code == 401  # its key is known no more
    assert "merchant_gone" not in sandbox.store.merchant_ids()  # its space, and the memory it held
    assert sandbox.journal.count("merchant_gone") == 0
    again = admin.delete("/__mock/merchants/merchant_gone")
    assert (again.status_code, again.json) == (404, error("HE_02", "Merchant does not exist in our records"))


def test_a_deleted_merchant_may_be_made_again_anew(admin: Api) -> None:
    ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_again"}))
    ok(admin.delete("/__mock/merchants/merchant_again"))

    credentials = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_again"}))
    merchant = admin.as_key(credentials["secret_key"])

    assert ok(merchant.get("/customers/list"))["data"] == []


def test_an_admin_request_whose_merchant_is_deleted_meanwhile_stays_out_of_a_new_merchants_journal(
    admin: Api, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_again"}))
    listed_keys = sandbox.api_keys.list_keys

    def deleted_meanwhile(merchant_id: str, *args: Any, **kwargs: Any) -> Any:
        found = listed_keys(merchant_id, *args, **kwargs)
        sandbox.remove_merchant(merchant_id)  # as a DELETE /__mock/merchants/:id sent while it runs
        return found

    monkeypatch.setattr(sandbox.api_keys, "list_keys", deleted_meanwhile)
    assert admin.get("/api_keys/merchant_again/list").status_code == 200
    monkeypatch.undo()

    assert "merchant_again" not in sandbox.store.merchant_ids()
    ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_again"}))
    assert ok(admin.get("/__mock/requests?merchant_id=merchant_again"))["data"] == []


def test_only_the_admin_key_deletes_a_merchant(api: Api, admin: Api) -> None:
    ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_kept"}))

    response = api.delete("/__mock/merchants/merchant_kept")

    assert (response.status_code, response.json) == (401, error("IR_01", UNAUTHORIZED))
    assert "merchant_kept" in ok(admin.get("/__mock/merchants"))["data"]


@pytest.mark.parametrize(("sent", "shown"), [({}, "mocksrv"), ({"connector": "stripe_test"}, "stripe_test")])
def test_a_new_merchants_connector_is_named_by_its_payments(
    admin: Api, sent: dict[str, str], shown: str
) -> None:
    credentials = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_new", **sent}))
    merchant = admin.as_key(credentials["secret_key"])

    body = ok(merchant.post("/payments", payloads.payment(profile_id=credentials["profile_id"])))

    assert (body["connector"], body["connector_transaction_id"]) == (shown, f"{body['payment_id']}_1")


def test_a_new_merchants_session_expiry_sets_its_client_secret_lifetime(admin: Api) -> None:
    credentials = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_new", "session_expiry": 60}))
    merchant = admin.as_key(credentials["secret_key"])
    ok(merchant.post("/__mock/clock/freeze"))

    body = ok(merchant.post("/payments", payloads.payment(None, profile_id=credentials["profile_id"])))

    assert body["expires_on"] == later(body["created"], 60)


def test_a_new_merchants_return_url_is_the_default_for_its_payments(admin: Api) -> None:
    credentials = ok(
        admin.post(
            "/__mock/merchants", {"merchant_id": "merchant_new", "return_url": "https://new.example/done"}
        )
    )
    merchant = admin.as_key(credentials["secret_key"])
    body = payloads.payment(CHALLENGE_CARD, profile_id=credentials["profile_id"])
    del body["return_url"]

    response = merchant.post("/payments", body)

    assert response.status_code == 200
    assert (response.json["status"], response.json["return_url"]) == (
        "requires_customer_action",
        "https://new.example/done",
    )


def test_a_new_merchant_starts_with_the_default_outcomes(admin: Api, api: Api) -> None:
    credentials = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_new"}))

    response = admin.as_key(credentials["secret_key"]).get("/__mock/outcomes")

    assert response.json == ok(api.get("/__mock/outcomes"))


@pytest.mark.parametrize(
    "key", ["snd_default_secret_key", PUBLISHABLE_KEY, None], ids=["secret", "publishable", "none"]
)
def test_only_the_admin_creates_merchants(client: FlaskClient, key: str | None) -> None:
    response = send(client, "POST", "/__mock/merchants", {"merchant_id": "merchant_new"}, key)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


def test_a_session_expiry_too_long_to_compute_is_refused(admin: Api) -> None:
    response = admin.post("/__mock/merchants", {"merchant_id": "merchant_new", "session_expiry": 10**12})

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason("session_expiry")


def test_a_merchant_id_in_use_is_he_01(admin: Api) -> None:
    response = admin.post("/__mock/merchants", {"merchant_id": MERCHANT_ID})

    assert response.status_code == 400
    assert response.json == error(
        "HE_01", "The merchant with the specified merchant_id already exists in our records", "merchant_id"
    )


_RATE_LIMIT_RANGE = "must be greater than or equal to 0 and less than or equal to 9223372036854775807"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"merchant_id": "merchant new"}, invalid("merchant_id", "1-64 letters, digits, _ or -")),
        ({"rate_limit": -1}, invalid("rate_limit", _RATE_LIMIT_RANGE)),
        ({"rate_limit": 2**63}, invalid("rate_limit", _RATE_LIMIT_RANGE)),
        ({"rate_limit": "10"}, invalid("rate_limit", "not a valid integer")),
        # As a profile takes them: a session expiry from 0, a name of at most 64 characters.
        (
            {"session_expiry": -1},
            invalid(
                "session_expiry", "must be greater than or equal to 0 and less than or equal to 31536000"
            ),
        ),
        ({"profile_name": "x" * 65}, invalid("profile_name", "longer than maximum length 64")),
        (
            {"webhook_url": "not a url"},
            invalid("webhook_url", "not an http or https URL with a host and a port of 1 to 65535"),
        ),
        (
            {"return_url": "shop"},
            invalid("return_url", "not an http or https URL with a host and a port of 1 to 65535"),
        ),
        # A profile's return URL is at most 255 characters, as the real service's profiles take it.
        (
            {"return_url": "https://new.example/" + "a" * 236},
            invalid("return_url", "longer than maximum length 255"),
        ),
        ({"secret_key": "snd_mine"}, malformed("unknown field `secret_key`")),
        # A part of the legacy API's paths: /api/v1/<connector>/card/initiate.
        ({"connector": "a/b"}, invalid("connector", "1-64 letters, digits, _, . or -")),
    ],
    ids=case_id,
)
def test_a_merchant_with_an_invalid_field_is_not_created(admin: Api, body: dict, expected: dict) -> None:
    response = admin.post("/__mock/merchants", body)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(admin.post("/__mock/reset")) == {"reset": [MERCHANT_ID]}


# -- outcomes ---------------------------------------------------------------------------------


def test_outcomes_show_the_fixture_table(api: Api) -> None:
    fixture = yaml.safe_load(Path(DEFAULT_FIXTURES, "outcomes.yaml").read_text())

    response = api.get("/__mock/outcomes")

    assert response.status_code == 200
    rules = response.json["rules"]
    assert [rule["name"] for rule in rules] == [rule["name"] for rule in fixture["rules"]]
    assert rules[0] == {
        "name": "success",
        "match": {
            "card_number": [
                "378282246310005",
                "4111111111111111",
                "4242424242424242",
                "5555555555554444",
                "6011111111111117",
            ]
        },
        "outcome": {"result": "success"},
    }
    assert rules[17] == {
        "name": "asynchronous success",
        "match": {"card_number": ["4000000000000077"]},
        "outcome": {"result": "processing", "after_seconds": 10, "then": {"result": "success"}},
    }


def test_replacing_the_outcomes_answers_the_new_table(api: Api) -> None:
    response = api.put("/__mock/outcomes", DECLINE_4242)

    assert response.status_code == 200
    assert response.json == DECLINE_4242
    assert ok(api.get("/__mock/outcomes")) == DECLINE_4242


def test_replaced_outcomes_decide_new_payments(api: Api, frozen: str) -> None:
    ok(api.put("/__mock/outcomes", DECLINE_4242))

    response = api.post("/payments", payloads.payment(payment_id="pay_1"))

    assert response.json == declined_payment(
        frozen, "pay_1", "4242424242424242", "do_not_honor", "Do not honor."
    )


def test_a_decline_rule_without_code_or_message_gets_the_defaults(api: Api) -> None:
    table = {"rules": [{"match": {"card_number": "4242424242424242"}, "outcome": {"result": "decline"}}]}

    response = api.put("/__mock/outcomes", table)

    assert response.json == {
        "rules": [
            {
                "match": {"card_number": ["4242424242424242"]},
                "outcome": {
                    "result": "decline",
                    "error_code": "card_declined",
                    "error_message": "Your card was declined.",
                },
            }
        ]
    }


def test_an_empty_table_makes_every_payment_succeed(api: Api, frozen: str) -> None:
    ok(api.put("/__mock/outcomes", {"rules": []}))

    response = api.post("/payments", payloads.payment("4000000000000002", payment_id="pay_1"))

    assert response.json == card_payment(frozen, "pay_1", "4000000000000002")


def test_replaced_outcomes_apply_only_to_that_merchant(
    admin: Api, api: Api, other_merchant: OtherMerchant
) -> None:
    ok(admin.put("/__mock/outcomes?merchant_id=merchant_other", DECLINE_4242))

    mine = create(api)
    theirs = create(other_merchant.api, profile_id=other_merchant.credentials["profile_id"])

    assert (mine["status"], theirs["status"]) == ("succeeded", "failed")


def test_the_outcome_is_fixed_when_the_method_is_attached(api: Api) -> None:
    create(api, payment_id="pay_1", confirm=False)
    ok(api.put("/__mock/outcomes", DECLINE_4242))

    response = api.post("/payments/pay_1/confirm")

    assert response.json["status"] == "succeeded"


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ({}, missing("rules")),
        ({"rules": "all"}, invalid("rules")),
        ({"rules": ["success"]}, invalid("rules.0")),
        ({"rules": [{"match": {}}]}, missing("rules.0.outcome")),
        ({"rules": [{"outcome": {}}]}, missing("rules.0.outcome.result")),
        ({"rules": [{"outcome": {"result": "maybe"}}]}, invalid("rules.0.outcome.result")),
        (
            {"rules": [{"outcome": {"result": "success"}, "priority": 1}]},
            malformed("unknown field `rules.0.priority`"),
        ),
        (
            {"rules": [{"match": {"card_brand": "Visa"}, "outcome": {"result": "success"}}]},
            malformed("unknown field `rules.0.match.card_brand`"),
        ),
        (
            {"rules": [{"match": {"card_number": [4242424242424242]}, "outcome": {"result": "success"}}]},
            invalid("rules.0.match.card_number", "a list of card numbers as strings of digits"),
        ),
        (
            {
                "rules": [
                    {
                        "match": {"fields_contain": {"crypto.wallet_address": 1}},
                        "outcome": {"result": "success"},
                    }
                ]
            },
            invalid("rules.0.match.fields_contain", "an object of field path to substring"),
        ),
        ({"rules": [{"outcome": {"result": "challenge"}}]}, missing("rules.0.outcome.then")),
        (
            {"rules": [{"outcome": {"result": "success", "then": {"result": "success"}}}]},
            invalid("rules.0.outcome.then", "a success outcome has no follow-up"),
        ),
        (
            {"rules": [{"outcome": {"result": "processing", "then": {"result": "challenge"}}}]},
            missing("rules.0.outcome.then.then"),
        ),
        (
            {"rules": [{"outcome": {"result": "processing", "then": {"result": "review"}}}]},
            invalid("rules.0.outcome.then.result", "cannot follow processing"),
        ),
        (
            {
                "rules": [
                    {"outcome": {"result": "processing", "after_seconds": -1, "then": {"result": "success"}}}
                ]
            },
            invalid(
                "rules.0.outcome.after_seconds", "a whole number of seconds from 0 to 3162240000 (100 years)"
            ),
        ),
        (
            {"rules": [{"outcome": {"result": "success", "after_seconds": 5}}]},
            invalid("rules.0.outcome.after_seconds", "only a processing or transfer outcome waits"),
        ),
        (
            {"rules": [{"outcome": {"result": "decline", "error_code": 51}}]},
            invalid("rules.0.outcome.error_code"),
        ),
        (
            {"rules": [{"outcome": {"result": "success", "refund_result": "pending"}}]},
            invalid("rules.0.outcome.refund_result", "succeeded or failed"),
        ),
        (
            {
                "rules": [
                    {"outcome": {"result": "success"}},
                    {"outcome": {"result": "success", "opens_dispute": "yes"}},
                ]
            },
            invalid("rules.1.outcome.opens_dispute"),
        ),
        ({"rules": [], "extra": 1}, malformed("unknown field `extra`")),
    ],
    ids=case_id,
)
def test_an_invalid_outcome_table_names_the_path_and_keeps_the_old_table(
    api: Api, table: dict, expected: dict
) -> None:
    before = ok(api.get("/__mock/outcomes"))

    response = api.put("/__mock/outcomes", table)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get("/__mock/outcomes")) == before


# -- 3DS without a browser --------------------------------------------------------------------


def test_authentication_success_finishes_the_challenge(api: Api, frozen: str) -> None:
    create(api, CHALLENGE_CARD, payment_id="pay_1")

    response = api.post("/__mock/payments/pay_1/authentication", {"result": "success"})

    assert response.status_code == 200
    assert response.json == card_payment(frozen, "pay_1", CHALLENGE_CARD)


def test_authentication_failure_fails_the_payment(api: Api, frozen: str) -> None:
    create(api, CHALLENGE_CARD, payment_id="pay_1")

    response = api.post("/__mock/payments/pay_1/authentication", {"result": "failure"})

    assert response.status_code == 200
    assert response.json == declined_payment(
        frozen,
        "pay_1",
        CHALLENGE_CARD,
        "authentication_failed",
        "The customer did not complete 3D Secure authentication",
    )


def test_authentication_by_the_admin_names_the_merchant(admin: Api, api: Api) -> None:
    create(api, CHALLENGE_CARD, payment_id="pay_1")

    response = admin.post(
        "/__mock/payments/pay_1/authentication", {"result": "success", "merchant_id": MERCHANT_ID}
    )

    assert response.status_code == 200
    assert response.json["status"] == "succeeded"


@pytest.mark.parametrize("status", ["requires_payment_method", "succeeded"])
def test_authentication_of_a_payment_not_challenged_is_refused(api: Api, status: str) -> None:
    before = payment_in(api, status)

    response = api.post("/__mock/payments/pay_1/authentication", {"result": "success"})

    assert response.status_code == 400
    assert response.json == refused("authenticated", status, AUTHENTICABLE)
    assert retrieve(api, "pay_1") == before


def test_authentication_of_an_unknown_payment_is_404(api: Api) -> None:
    response = api.post("/__mock/payments/pay_missing/authentication", {"result": "success"})

    assert response.status_code == 404
    assert response.json == error("IR_05", "Payment not found")


def test_authentication_of_another_merchants_payment_is_404(api: Api, other_merchant: OtherMerchant) -> None:
    create(api, CHALLENGE_CARD, payment_id="pay_1")

    response = other_merchant.api.post("/__mock/payments/pay_1/authentication", {"result": "success"})

    assert response.status_code == 404
    assert response.json == error("IR_05", "Payment not found")
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("result")),
        ({"result": "maybe"}, invalid("result", "must be one of: success, failure")),
        ({"result": True}, invalid("result", "not a valid string")),
    ],
    ids=case_id,
)
def test_authentication_with_an_invalid_result_is_ir_04(api: Api, body: dict, expected: dict) -> None:
    create(api, CHALLENGE_CARD, payment_id="pay_1")

    response = api.post("/__mock/payments/pay_1/authentication", body)

    assert response.status_code == 400
    assert response.json == expected
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"


# -- transitions ------------------------------------------------------------------------------

_UNCONFIRMED = ("requires_payment_method", "requires_confirmation")
_CAPTURABLE = ("requires_capture", "partially_captured_and_capturable")
TRANSITIONS = [
    *[(s, "update.attach_method", "requires_confirmation", None) for s in _UNCONFIRMED],
    *[(s, "update.details", s, None) for s in _UNCONFIRMED],
    *[(s, "confirm.charge", "succeeded", "payment_succeeded") for s in _UNCONFIRMED],
    *[(s, "confirm.authorize", "requires_capture", "payment_authorized") for s in _UNCONFIRMED],
    *[(s, "confirm.decline", "failed", "payment_failed") for s in _UNCONFIRMED],
    *[(s, "confirm.challenge", "requires_customer_action", "action_required") for s in _UNCONFIRMED],
    *[(s, "confirm.review", "requires_merchant_action", "action_required") for s in _UNCONFIRMED],
    *[(s, "confirm.defer", "processing", "payment_processing") for s in _UNCONFIRMED],
    ("requires_customer_action", "authenticate.charge", "succeeded", "payment_succeeded"),
    ("requires_customer_action", "authenticate.authorize", "requires_capture", "payment_authorized"),
    ("requires_customer_action", "authenticate.decline", "failed", "payment_failed"),
    ("requires_customer_action", "authenticate.review", "requires_merchant_action", "action_required"),
    ("requires_customer_action", "authenticate.defer", "processing", "payment_processing"),
    ("processing", "settle.charge", "succeeded", "payment_succeeded"),
    ("processing", "settle.authorize", "requires_capture", "payment_authorized"),
    ("processing", "settle.decline", "failed", "payment_failed"),
    ("requires_merchant_action", "approve.charge", "succeeded", "payment_succeeded"),
    ("requires_merchant_action", "approve.authorize", "requires_capture", "payment_authorized"),
    ("requires_merchant_action", "reject.decline", "failed", "payment_failed"),
    *[(s, "capture.full", "succeeded", "payment_succeeded") for s in _CAPTURABLE],
    *[(s, "capture.partial", "partially_captured_and_capturable", "payment_captured") for s in _CAPTURABLE],
    ("requires_capture", "capture.partial_final", "partially_captured", "payment_captured"),
    *[
        (s, "cancel.release", "cancelled", "payment_cancelled")
        for s in (*_UNCONFIRMED, "requires_customer_action", "requires_capture")
    ],
    ("partially_captured_and_capturable", "cancel.release", "partially_captured", "payment_cancelled"),
    *[(s, "expire.release", "expired", "payment_expired") for s in _CAPTURABLE],
]


def test_transitions_list_the_payment_state_table(api: Api) -> None:
    response = api.get("/__mock/transitions")

    assert response.status_code == 200
    rows = [(row["from"], row["event"], row["to"], row["emits"]) for row in response.json["payment"]]
    assert sorted(rows, key=str) == sorted(TRANSITIONS, key=str)


def test_transitions_list_every_resources_table(api: Api) -> None:
    response = api.get("/__mock/transitions")

    assert response.status_code == 200
    assert sorted(response.json) == [
        "api_key",
        "dispute",
        "legacy_token",
        "mandate",
        "payment",
        "payment_link",
        "payout",
        "refund",
        "webhook_delivery",
    ]
    assert response.json["refund"][0] == {
        "from": "pending",
        "event": "settle.succeeded",
        "to": "succeeded",
        "emits": "refund_succeeded",
    }


def test_transitions_need_a_key(client: FlaskClient) -> None:
    response = client.get("/__mock/transitions")

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


# -- seed -------------------------------------------------------------------------------------


def test_seed_creates_succeeded_payments(api: Api, frozen: str) -> None:
    response = api.post("/__mock/seed", {"payments": 3})

    assert response.status_code == 200
    assert response.json == {"merchant_id": MERCHANT_ID, "payments_created": 3}
    listed = ok(api.post("/payments/list", {}))
    assert listed["total_count"] == 3
    assert sorted(p["amount"] for p in listed["data"]) == [100, 101, 102]
    assert {(p["status"], p["currency"], p["created"]) for p in listed["data"]} == {
        ("succeeded", "USD", frozen)
    }


@pytest.mark.parametrize("result", ["decline", "review"])
def test_seed_is_refused_when_the_outcome_table_would_not_let_its_payments_succeed(
    api: Api, result: str
) -> None:
    ok(api.put("/__mock/outcomes", {"rules": [{"match": {}, "outcome": {"result": result}}]}))

    response = api.post("/__mock/seed", {"payments": 3})

    assert response.status_code == 400
    assert response.json["error"]["message"] == (
        "Invalid value provided: payments: the merchant's outcome table does not take the seed card "
        "4242424242424242 to a plain success"
    )
    assert ok(api.post("/payments/list", {}))["total_count"] == 0


def test_seed_and_trigger_work_on_a_clock_near_its_end(api: Api) -> None:
    assert api.post("/__mock/clock/set", {"now": "8999-06-01T00:00:00Z"}).status_code == 200

    assert ok(api.post("/__mock/seed", {"payments": 2}))["payments_created"] == 2
    assert ok(api.post("/__mock/trigger", {"event_type": "dispute_lost"}))["event_type"] == "dispute_lost"
    assert ok(api.post("/payments/list", {}))["total_count"] == 3


def test_seed_by_the_admin_names_the_merchant(admin: Api, other_merchant: OtherMerchant) -> None:
    response = admin.post("/__mock/seed", {"payments": 2, "merchant_id": "merchant_other"})

    assert response.json == {"merchant_id": "merchant_other", "payments_created": 2}
    assert payment_count(other_merchant.api) == 2


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("payments")),
        (
            {"payments": 0},
            invalid("payments", "must be greater than or equal to 1 and less than or equal to 10000"),
        ),
        (
            {"payments": 10_001},
            invalid("payments", "must be greater than or equal to 1 and less than or equal to 10000"),
        ),
        ({"payments": "3"}, invalid("payments", "not a valid integer")),
    ],
    ids=case_id,
)
def test_seed_with_an_invalid_count_creates_nothing(api: Api, body: dict, expected: dict) -> None:
    response = api.post("/__mock/seed", body)

    assert response.status_code == 400
    assert response.json == expected
    assert payment_count(api) == 0


# -- the list of merchants ------------------------------------------------------------------------


def test_the_admin_lists_every_merchant_sorted(admin: Api, other_merchant: OtherMerchant) -> None:
    response = admin.get("/__mock/merchants")
    assert response.status_code == 200
    assert response.json == {"data": [MERCHANT_ID, "merchant_other"], "total_count": 2}


@pytest.mark.parametrize("key", [payloads.SECRET_KEY, PUBLISHABLE_KEY, "not_a_key"])
def test_only_the_admin_lists_the_merchants(api: Api, key: str) -> None:
    response = api.as_key(key).get("/__mock/merchants")
    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)
