"""The request journal: /__mock/requests lists, counts and forgets each merchant's API requests."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from mocksrv.app import create_app
from mocksrv.masking import mask_card_like
from mocksrv.settings import Settings
from tests import payloads
from tests.api.conftest import OtherMerchant
from tests.api.expected import UNAUTHORIZED, error, invalid_for_any_reason, malformed
from tests.api.scenarios import advance, create, ok
from tests.conftest import Api, CheckedClient
from tests.payloads import ADMIN_KEY, MERCHANT_ID, SECRET_KEY

pytestmark = pytest.mark.usefixtures("frozen")

MASKED_CARD = {
    "card_number": "************4242",
    "card_exp_month": "12",
    "card_exp_year": "2099",
    "card_cvc": "***",
}
BODY_LIMIT = 64 * 1024
MERCHANT_NOT_FOUND = error("HE_02", "Merchant does not exist in our records")


def recorded(api: Api, query: str = "") -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = ok(api.get(f"/__mock/requests{query}"))["data"]
    return data


def count(api: Api, query: str = "") -> int:
    counted: int = ok(api.get(f"/__mock/requests/count{query}"))["count"]
    return counted


def paths(api: Api, query: str = "") -> list[str]:
    return [f"{entry['method']} {entry['path']}" for entry in recorded(api, query)]


def api_with(settings: Settings) -> Api:
    """A client of a sandbox of its own, made with `settings`."""
    app = create_app(settings)
    app.test_client_class = CheckedClient
    client: FlaskClient = app.test_client()
    ok(Api(client, ADMIN_KEY).post(f"/__mock/clock/freeze?merchant_id={MERCHANT_ID}"))
    return Api(client, SECRET_KEY)


# -- what an entry holds ----------------------------------------------------------------------


def test_a_create_is_recorded_with_its_bodies_masked(api: Api, frozen: str) -> None:
    sent = payloads.payment()
    response = api.post("/payments", sent)
    assert response.status_code == 200

    [entry] = recorded(api)

    masked = copy.deepcopy(sent)
    masked["payment_method_data"]["card"] = MASKED_CARD
    latency = entry.pop("latency_ms")
    assert isinstance(latency, float)
    assert latency > 0
    assert entry == {
        "request_id": "req_1",
        "at": frozen,
        "method": "POST",
        "path": "/payments",
        "query": "",
        "status": 200,
        "key_kind": "secret",
        "request_body": masked,
        "response_body": response.json,
        "fault": None,
    }


def test_a_payouts_processor_token_is_kept_as_its_last_four(api: Api) -> None:
    token = {"psp_token": "tok_passthrough_8f3a9c1d2e", "token_type": "debit"}
    body = {
        "amount": 1000,
        "currency": "USD",
        "payout_id": "po_1",
        "payout_method_data": {"passthrough": token},
    }
    response = api.post("/payouts/create", body)
    assert response.status_code == 200
    assert response.json["payout_method_data"] == {"passthrough": token}

    [entry] = recorded(api)

    masked = {"passthrough": {"psp_token": "**********************1d2e", "token_type": "debit"}}
    assert entry["request_body"]["payout_method_data"] == masked
    assert entry["response_body"]["payout_method_data"] == masked
    assert "tok_passthrough" not in orjson.dumps(entry).decode()


def test_an_error_is_recorded_with_its_answer(api: Api) -> None:
    response = api.post("/payments", payloads.payment(amount=-1))
    assert response.status_code == 400

    [entry] = recorded(api)

    assert (entry["status"], entry["response_body"]) == (400, response.json)
    assert entry["request_body"]["amount"] == -1


def test_a_refused_key_kind_is_recorded_once_the_key_is_known(browser: Api) -> None:
    response = browser.post("/payments", payloads.payment())
    assert response.status_code == 401

    [entry] = recorded(browser.as_key(SECRET_KEY))

    assert (entry["status"], entry["key_kind"]) == (401, "publishable")
    assert entry["response_body"] == error("IR_01", UNAUTHORIZED)


def test_a_merchants_request_to_no_route_is_recorded_with_its_refusal(api: Api, client: FlaskClient) -> None:
    assert api.get("/disputes?limit=5").status_code == 404
    assert client.open("/customers", method="PUT", headers={"api-key": SECRET_KEY}).status_code == 405
    assert client.get("/nowhere", headers={"api-key": "snd_not_a_key"}).status_code == 404

    entries = recorded(api)

    assert [(e["method"], e["path"], e["query"], e["status"], e["key_kind"]) for e in entries] == [
        ("PUT", "/customers", "", 405, "secret"),
        ("GET", "/disputes", "limit=5", 404, "secret"),
    ]
    assert entries[1]["response_body"] == error("IR_02", "Unrecognized request URL")


def test_a_request_with_no_valid_key_is_not_recorded(api: Api) -> None:
    assert api.as_key("snd_not_a_key").post("/payments", payloads.payment()).status_code == 401
    assert api.as_key("").get("/payments/pay_1").status_code == 401

    assert recorded(api) == []


def test_the_publishable_keys_requests_are_recorded_with_their_query(api: Api, browser: Api) -> None:
    payment = create(api)
    query = f"client_secret={payment['client_secret']}"
    ok(browser.get(f"/payments/{payment['payment_id']}?{query}"))

    newest = recorded(api)[0]

    assert (newest["method"], newest["path"]) == ("GET", f"/payments/{payment['payment_id']}")
    # As sent, but for any run of 12 or more digits: the secret's 20 hex digits hold one about one time in 70.
    kept = mask_card_like(query)
    assert (newest["query"], newest["key_kind"], newest["request_body"]) == (kept, "publishable", None)


def test_a_card_number_in_the_query_is_masked(api: Api) -> None:
    api.get("/payments/pay_missing?card=4242424242424242")

    [entry] = recorded(api)

    assert entry["query"] == "card=************4242"


def test_an_ephemeral_keys_requests_are_recorded_as_ephemeral(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    card = {"card_number": "4242424242424242", "card_exp_month": "12", "card_exp_year": "2040"}
    body = {"payment_method": "card", "customer_id": "cus_1", "card": {**card, "card_holder_name": "Ada"}}
    method = ok(api.post("/payment_methods", body))
    key = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))
    path = f"/cus_1/payment_methods/{method['payment_method_id']}/default"
    ok(api.as_key(key["secret"]).post(path))

    newest = recorded(api)[0]

    assert (newest["path"], newest["status"], newest["key_kind"]) == (path, 200, "ephemeral")


def test_the_admin_key_is_recorded_as_admin(admin: Api, api: Api) -> None:
    ok(admin.get(f"/account/{MERCHANT_ID}/business_profile"))

    [entry] = recorded(api)

    assert (entry["path"], entry["key_kind"]) == (f"/account/{MERCHANT_ID}/business_profile", "admin")


def test_a_body_that_is_not_json_is_kept_as_masked_text(api: Api) -> None:
    body = "card_number=4242424242424242&card_cvc=987"
    response = api.client.post(
        "/payments", data=body, headers={"api-key": SECRET_KEY, "Content-Type": "text/plain"}
    )
    assert response.status_code == 400

    [entry] = recorded(api)

    assert entry["request_body"] == "card_number=************4242&card_cvc=***"


def test_json_nested_too_deeply_to_write_is_kept_as_masked_text(api: Api) -> None:
    nested = '{"card_cvc": "987", "metadata": ' + '{"a": ' * 300 + "1" + "}" * 301
    headers = {"api-key": SECRET_KEY, "Content-Type": "application/json"}
    assert api.client.post("/payments", data=nested, headers=headers).status_code == 400

    [entry] = recorded(api)

    assert entry["request_body"] == nested.replace('"987"', '"***"')


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        # Broken JSON whose key is written with an escape: read as the key it spells.
        ('{"card": {"card\\u005fcvc": "987", ', '{"card": {"card_cvc": "***", '),
        # Nested too deeply to parse: the value in a list is masked as a value alone is.
        (
            '{"card_cvc": ["987"], "card_number": [ "4242424242424242" ], "m": '
            + "[" * 300
            + "]" * 300
            + "}",
            '{"card_cvc": ["***"], "card_number": [ "************4242" ], "m": '
            + "[" * 300
            + "]" * 300
            + "}",
        ),
    ],
)
def test_text_that_is_not_json_is_masked_however_a_key_is_written(api: Api, body: str, kept: str) -> None:
    headers = {"api-key": SECRET_KEY, "Content-Type": "application/json"}
    assert api.client.post("/payments", data=body, headers=headers).status_code == 400

    [entry] = recorded(api)

    assert entry["request_body"] == kept


def test_a_negative_card_like_number_and_a_cvc_in_the_query_are_masked(api: Api) -> None:
    body = {"name": "Ada", "metadata": {"note": -4000000000000002}}
    headers = {"api-key": SECRET_KEY}
    answer = api.client.post("/customers?card_cvc=987&card%5Fcvc=555", json=body, headers=headers)
    assert answer.status_code == 200

    [entry] = recorded(api)

    assert (entry["query"], entry["request_body"], entry["response_body"]["metadata"]) == (
        "card_cvc=***&card_cvc=***",
        {"name": "Ada", "metadata": {"note": "-************0002"}},
        {"note": "-************0002"},
    )


def test_a_long_body_is_cut_and_marked(api: Api) -> None:
    raw = orjson.dumps(payloads.payment(description="x" * (BODY_LIMIT + 100)))
    api.client.post(
        "/payments", data=raw, headers={"api-key": SECRET_KEY, "Content-Type": "application/json"}
    )

    [entry] = recorded(api)

    kept = entry["request_body"]
    assert isinstance(kept, str)
    assert kept.endswith(f"...({len(raw)} bytes)")
    assert len(kept) == BODY_LIMIT + len(f"...({len(raw)} bytes)")


def test_the_control_plane_and_the_health_check_are_not_recorded(api: Api) -> None:
    ok(api.get("/__mock/clock"))
    ok(api.post("/__mock/clock/advance", {"seconds": 1}))
    ok(api.get("/health"))

    assert recorded(api) == []


# -- filters ----------------------------------------------------------------------------------


def test_entries_come_newest_first_with_ids_counting_up(api: Api) -> None:
    payment = create(api)
    ok(api.get(f"/payments/{payment['payment_id']}"))
    api.get("/payments/pay_missing")

    entries = recorded(api)

    assert [(e["request_id"], e["status"]) for e in entries] == [
        ("req_3", 404),
        ("req_2", 200),
        ("req_1", 200),
    ]


def test_filters_by_method_path_pattern_and_status(api: Api) -> None:
    payment = create(api, capture_method="manual")
    payment_id = payment["payment_id"]
    ok(api.post(f"/payments/{payment_id}/capture", {}))
    ok(api.get(f"/payments/{payment_id}"))
    assert api.post(f"/payments/{payment_id}/capture", {}).status_code == 409

    assert paths(api, "?method=GET") == [f"GET /payments/{payment_id}"]
    assert paths(api, "?method=post&path=/payments") == ["POST /payments"]
    assert paths(api, "?path=/payments/*/capture") == [f"POST /payments/{payment_id}/capture"] * 2
    assert paths(api, "?path=/payments/*/capture&status=200") == [f"POST /payments/{payment_id}/capture"]
    assert paths(api, "?status=409") == [f"POST /payments/{payment_id}/capture"]
    assert paths(api, "?path=/refunds*") == []


def test_filters_by_time_on_the_merchants_clock(api: Api) -> None:
    create(api)
    since = advance(api, 60)["now"]
    create(api)
    create(api)

    entries = recorded(api, f"?since={since}")

    assert [e["request_id"] for e in entries] == ["req_3", "req_2"]
    assert {e["at"] for e in entries} == {since}
    assert count(api, f"?since={since}") == 2


def test_pages_with_limit_and_offset(api: Api) -> None:
    for _ in range(5):
        api.get("/payments/pay_missing")

    page = ok(api.get("/__mock/requests?limit=2&offset=2"))

    assert [e["request_id"] for e in page["data"]] == ["req_3", "req_2"]
    assert (page["total_count"], page["has_more"]) == (5, True)
    assert ok(api.get("/__mock/requests?limit=2&offset=4"))["has_more"] is False


def test_exactly_one_capture_was_sent(api: Api) -> None:
    payment = create(api, capture_method="manual")
    ok(api.post(f"/payments/{payment['payment_id']}/capture", {}))
    ok(api.get(f"/payments/{payment['payment_id']}"))

    assert count(api, "?method=POST&path=/payments/*/capture") == 1
    assert count(api, "?method=POST") == 2
    assert count(api) == 3


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?status=abc", invalid_for_any_reason("status")),
        ("?status=99", invalid_for_any_reason("status")),
        ("?since=yesterday", invalid_for_any_reason("since")),
        ("?limit=0", invalid_for_any_reason("limit")),
        ("?offset=-1", invalid_for_any_reason("offset")),
        ("?colour=red", malformed("unknown field `colour`")),
    ],
)
def test_a_wrong_filter_is_refused(api: Api, query: str, expected: dict[str, Any]) -> None:
    response = api.get(f"/__mock/requests{query}")

    assert response.status_code == 400
    assert response.json == expected


def test_a_wrong_count_filter_is_refused(api: Api) -> None:
    response = api.get("/__mock/requests/count?status=abc")

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason("status")


# -- bounds, reset, merchants -----------------------------------------------------------------


def test_the_ring_keeps_the_newest_entries() -> None:
    small = api_with(Settings(journal_size=3))
    for _ in range(5):
        small.get("/payments/pay_missing")

    page = ok(small.get("/__mock/requests"))

    assert [e["request_id"] for e in page["data"]] == ["req_5", "req_4", "req_3"]
    assert page["total_count"] == 3
    assert count(small) == 3


def test_a_journal_of_size_zero_records_nothing() -> None:
    silent = api_with(Settings(journal_size=0))
    create(silent)

    assert recorded(silent) == []
    assert count(silent) == 0


def test_reset_forgets_the_merchants_requests(api: Api) -> None:
    create(api)
    ok(api.post("/__mock/reset"))

    assert recorded(api) == []
    api.get("/payments/pay_missing")
    assert [e["request_id"] for e in recorded(api)] == ["req_2"]


def test_delete_forgets_the_requests_and_says_how_many(api: Api) -> None:
    create(api)
    api.get("/payments/pay_missing")

    assert ok(api.delete("/__mock/requests")) == {"deleted": 2}
    assert recorded(api) == []
    assert ok(api.delete("/__mock/requests")) == {"deleted": 0}


def test_merchants_never_see_each_others_requests(
    api: Api, admin: Api, other_merchant: OtherMerchant
) -> None:
    create(api)
    other_merchant.api.get("/payments/pay_missing")
    other = other_merchant.merchant_id

    assert paths(api) == ["POST /payments"]
    assert paths(other_merchant.api) == ["GET /payments/pay_missing"]
    assert paths(admin, f"?merchant_id={other}") == ["GET /payments/pay_missing"]
    assert count(admin, f"?merchant_id={MERCHANT_ID}") == 1
    assert ok(other_merchant.api.delete("/__mock/requests")) == {"deleted": 1}
    assert paths(api) == ["POST /payments"]


@pytest.mark.parametrize("path", ["/__mock/requests", "/__mock/requests/count"])
def test_another_merchants_journal_is_not_found(api: Api, other_merchant: OtherMerchant, path: str) -> None:
    response = api.get(f"{path}?merchant_id={other_merchant.merchant_id}")

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


def test_deleting_another_merchants_journal_is_not_found(api: Api, other_merchant: OtherMerchant) -> None:
    response = api.delete(f"/__mock/requests?merchant_id={other_merchant.merchant_id}")

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


def test_the_publishable_key_cannot_read_the_journal(browser: Api) -> None:
    response = browser.get("/__mock/requests")

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


def test_the_admin_names_an_existing_merchant(admin: Api) -> None:
    response = admin.get("/__mock/requests/count?merchant_id=merchant_nobody")

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND
