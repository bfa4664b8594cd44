"""The real service's event routes: listing events, their delivery attempts, and retries by hand.

Deliveries are driven by hand, as the dispatcher drives them: take the next task, record what a
receiver answered, let the next one go. The test client runs no dispatcher.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.signing import sign
from mocksrv.domain.webhooks import AttemptResult
from tests.api.conftest import OtherMerchant
from tests.api.expected import error, invalid, invalid_for_any_reason, malformed
from tests.api.scenarios import DECLINE_CARD, create, ok
from tests.conftest import Api
from tests.payloads import MERCHANT_ID, PROFILE_ID, SIGNING_KEY

HOOK_URL = "http://127.0.0.1:9/webhooks"  # never contacted
EVENTS = f"/events/{MERCHANT_ID}"
EVENT_NOT_FOUND = error("HE_02", "Event does not exist in our records")
MERCHANT_NOT_FOUND = error("HE_02", "Merchant does not exist in our records")
NO_RESPONSE = {"body": None, "headers": None, "status_code": None, "error_message": None}


@pytest.fixture
def hooked(api: Api, frozen: str) -> str:
    ok(api.put("/__mock/webhook_url", {"webhook_url": HOOK_URL}))
    return frozen


def item(
    payment: dict[str, Any], event_id: str, event_type: str, delivered: bool | None = None
) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "merchant_id": MERCHANT_ID,
        "profile_id": PROFILE_ID,
        "object_id": payment["payment_id"],
        "event_type": event_type,
        "event_class": "payments",
        "is_delivery_successful": delivered,
        "initial_attempt_id": event_id,
        "created": payment["created"],
    }


def event_ids(api: Api) -> list[str]:
    return [event["event_id"] for event in ok(api.post(EVENTS, {}))["events"]]


def deliver(sandbox: Sandbox, status_code: int | None, error_text: str | None = None) -> None:
    """Make the next queued attempt, as if the receiver answered `status_code` (None: no answer)."""
    task = sandbox.webhooks.next_task(0)
    assert task is not None, "no delivery was queued"
    body = orjson.dumps({"event_id": task.event.event_id})
    sandbox.webhooks.record(task, body, AttemptResult(HOOK_URL, status_code, 5.0, error_text))
    sandbox.webhooks.finish(task)


def sent(sandbox: Sandbox, event_id: str) -> dict[str, Any]:
    """The request content of an event whose body the delivery kept."""
    body = sandbox.webhooks.delivery(MERCHANT_ID, event_id).body
    assert body is not None
    return {
        "body": body.decode(),
        "headers": [
            ["Content-Type", "application/json"],
            ["X-Webhook-Signature-512", sign(SIGNING_KEY, body)],
            ["User-Agent", "mocksrv-webhooks"],
        ],
    }


# -- listing ------------------------------------------------------------------------------------


def test_the_list_is_empty_without_events(api: Api) -> None:
    assert ok(api.post(EVENTS, {})) == {"events": [], "total_count": 0}


def test_the_list_shows_each_event_newest_first(api: Api, hooked: str) -> None:
    succeeded = create(api)
    failed = create(api, DECLINE_CARD)
    first, second = reversed(event_ids(api))

    assert ok(api.post(EVENTS, {})) == {
        "events": [item(failed, second, "payment_failed"), item(succeeded, first, "payment_succeeded")],
        "total_count": 2,
    }


def test_the_list_is_the_control_planes_event_log(api: Api, admin: Api, hooked: str) -> None:
    create(api)
    logged = ok(admin.get(f"/__mock/events?merchant_id={MERCHANT_ID}"))["data"]

    assert event_ids(api) == [event["event_id"] for event in logged]


def test_the_list_filters_by_type_class_object_and_page(api: Api, hooked: str) -> None:
    succeeded = create(api)
    failed = create(api, DECLINE_CARD)
    newest, oldest = event_ids(api)

    by_type = {"event_types": ["payment_failed"]}
    assert ok(api.post(EVENTS, by_type)) == {
        "events": [item(failed, newest, "payment_failed")],
        "total_count": 1,
    }
    by_object = {"object_id": succeeded["payment_id"]}
    assert ok(api.post(EVENTS, by_object))["events"] == [item(succeeded, oldest, "payment_succeeded")]
    assert ok(api.post(EVENTS, {"event_classes": ["refunds"]})) == {"events": [], "total_count": 0}
    assert ok(api.post(EVENTS, {"event_classes": ["payments"], "limit": 1, "offset": 1})) == {
        "events": [item(succeeded, oldest, "payment_succeeded")],
        "total_count": 2,
    }
    assert ok(api.post(EVENTS, {"event_id": newest}))["total_count"] == 1
    assert ok(api.post(EVENTS, {"profile_id": "pro_other"})) == {"events": [], "total_count": 0}


@pytest.mark.parametrize("sent", [{"event_types": []}, {"event_classes": []}], ids=["no types", "no classes"])
def test_an_empty_list_filter_keeps_every_event(api: Api, hooked: str, sent: dict[str, Any]) -> None:
    create(api)
    create(api, DECLINE_CARD)

    assert ok(api.post(EVENTS, sent))["total_count"] == 2
    assert ok(api.get(f"{EVENTS}?{next(iter(sent))}="))["total_count"] == 2


def test_the_list_filters_by_creation_time(api: Api, hooked: str) -> None:
    payment = create(api)

    assert ok(api.post(EVENTS, {"created_after": payment["created"]}))["total_count"] == 1
    assert ok(api.post(EVENTS, {"created_before": payment["created"]}))["total_count"] == 1
    assert ok(api.post(EVENTS, {"created_after": "2099-01-01T00:00:00"})) == {"events": [], "total_count": 0}
    assert ok(api.post(EVENTS, {"created_before": "2000-01-01T00:00:00Z"}))["total_count"] == 0


def test_the_list_filters_by_delivery(api: Api, sandbox: Sandbox, hooked: str) -> None:
    payment = create(api)
    (event_id,) = event_ids(api)
    assert ok(api.post(EVENTS, {"is_delivered": True})) == {"events": [], "total_count": 0}

    deliver(sandbox, 200)

    assert ok(api.post(EVENTS, {"is_delivered": True})) == {
        "events": [item(payment, event_id, "payment_succeeded", delivered=True)],
        "total_count": 1,
    }
    assert ok(api.post(EVENTS, {"is_delivered": False}))["total_count"] == 0


def test_a_failed_attempt_shows_as_not_delivered(api: Api, sandbox: Sandbox, hooked: str) -> None:
    create(api)
    deliver(sandbox, 500)

    (event,) = ok(api.post(EVENTS, {"is_delivered": False}))["events"]
    assert event["is_delivery_successful"] is False


def test_get_takes_the_constraints_as_query_parameters(api: Api, hooked: str) -> None:
    succeeded = create(api)
    create(api, DECLINE_CARD)
    _, oldest = event_ids(api)

    response = api.get(f"{EVENTS}?event_types=payment_succeeded,payment_captured&limit=5&is_delivered=false")

    assert ok(response) == {"events": [item(succeeded, oldest, "payment_succeeded")], "total_count": 1}


def test_nulls_are_as_if_not_sent(api: Api, hooked: str) -> None:
    create(api)
    body = {"limit": None, "event_types": None, "is_delivered": None, "created_after": None}

    assert ok(api.post(EVENTS, body))["total_count"] == 1


def test_the_profile_list_lists_the_keys_merchant(api: Api, hooked: str) -> None:
    create(api)

    assert ok(api.post("/events/profile/list", {})) == ok(api.post(EVENTS, {}))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"limit": "5"}, invalid("limit", "not a valid integer")),
        ({"limit": 0}, invalid("limit", "must be greater than or equal to 1 and less than or equal to 100")),
        ({"offset": -1}, invalid("offset", "must be greater than or equal to 0")),
        ({"is_delivered": "yes"}, invalid("is_delivered", "not a valid boolean")),
        ({"created_after": "yesterday"}, invalid("created_after", "not a valid ISO 8601 timestamp")),
        ({"event_classes": "payments"}, invalid("event_classes", "not a valid list")),
        ({"unknown": 1}, malformed("unknown field `unknown`")),
    ],
)
def test_a_bad_constraint_is_refused(api: Api, body: dict[str, Any], expected: dict[str, Any]) -> None:
    response = api.post(EVENTS, body)

    assert response.status_code == 400
    assert response.json == expected


def test_a_bad_query_of_the_get_list_is_refused(api: Api) -> None:
    response = api.get(f"{EVENTS}?limit=0")

    assert response.status_code == 400
    assert response.json == invalid(
        "limit", "must be greater than or equal to 1 and less than or equal to 100"
    )


def test_an_unknown_event_type_is_refused_naming_its_place(api: Api) -> None:
    response = api.post(EVENTS, {"event_types": ["payment_succeeded", "paid"]})

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason("event_types.1")


def test_the_admin_key_lists_any_merchant(admin: Api, api: Api, hooked: str) -> None:
    create(api)

    assert ok(admin.post(EVENTS, {})) == ok(api.post(EVENTS, {}))


def test_another_merchants_events_are_not_found(other_merchant: OtherMerchant) -> None:
    for response in (
        other_merchant.api.post(EVENTS, {}),
        other_merchant.api.get(f"{EVENTS}/evt_unknown/attempts"),
        other_merchant.api.post(f"{EVENTS}/evt_unknown/retry"),
    ):
        assert response.status_code == 404
        assert response.json == MERCHANT_NOT_FOUND


def test_the_list_needs_a_key(client: Any) -> None:
    response = client.post(EVENTS, json={})

    assert response.status_code == 401
    assert response.json["error"]["code"] == "IR_01"


# -- attempts -----------------------------------------------------------------------------------


def test_an_event_not_attempted_yet_has_no_attempts(api: Api, hooked: str) -> None:
    create(api)
    (event_id,) = event_ids(api)

    assert ok_list(api.get(f"{EVENTS}/{event_id}/attempts")) == []


def test_attempts_show_each_delivery_with_what_it_sent_and_got(
    api: Api, admin: Api, sandbox: Sandbox, hooked: str
) -> None:
    payment = create(api)
    (event_id,) = event_ids(api)
    deliver(sandbox, None, "timeout: the receiver did not answer in time")
    ok(admin.post("/__mock/clock/advance", {"merchant_id": MERCHANT_ID, "seconds": 60}))
    deliver(sandbox, 500)
    ok(api.post(f"{EVENTS}/{event_id}/retry"))
    deliver(sandbox, 200)
    logged = ok(admin.get(f"/__mock/webhooks/deliveries?merchant_id={MERCHANT_ID}&event_id={event_id}"))
    times = sorted(attempt["attempted_at"] for attempt in logged["data"])

    response = api.get(f"{EVENTS}/{event_id}/attempts")

    base = item(payment, event_id, "payment_succeeded")
    # Delivered: the body is not kept, and is served as the dispatcher would send it again.
    request = ok_list(response)[0]["request"]
    assert ok_list(response) == [
        {
            **base,
            "is_delivery_successful": False,
            "created": times[0],
            "request": request,
            "response": {**NO_RESPONSE, "error_message": "timeout: the receiver did not answer in time"},
            "delivery_attempt": "initial_attempt",
        },
        {
            **base,
            "is_delivery_successful": False,
            "created": times[1],
            "request": request,
            "response": {**NO_RESPONSE, "status_code": 500},
            "delivery_attempt": "automatic_retry",
        },
        {
            **base,
            "is_delivery_successful": True,
            "created": times[2],
            "request": request,
            "response": {**NO_RESPONSE, "status_code": 200},
            "delivery_attempt": "manual_retry",
        },
    ]
    sent_body = request["body"].encode()
    assert request["headers"][1] == ["X-Webhook-Signature-512", sign(SIGNING_KEY, sent_body)]
    assert orjson.loads(sent_body)["event_id"] == event_id


def test_attempts_of_a_deleted_profiles_event_show_no_signature(
    api: Api, sandbox: Sandbox, frozen: str
) -> None:
    profiles = f"/account/{MERCHANT_ID}/business_profile"
    profile = ok(api.post(profiles, {"webhook_details": {"webhook_url": HOOK_URL}}))
    create(api, profile_id=profile["profile_id"])
    (event_id,) = event_ids(api)
    deliver(sandbox, 200)
    signed = ok_list(api.get(f"{EVENTS}/{event_id}/attempts"))[0]["request"]
    assert [name for name, _ in signed["headers"]] == [
        "Content-Type",
        "X-Webhook-Signature-512",
        "User-Agent",
    ]
    assert api.delete(f"{profiles}/{profile['profile_id']}").status_code == 200

    unsigned = ok_list(api.get(f"{EVENTS}/{event_id}/attempts"))[0]["request"]

    assert unsigned == {
        **signed,
        "headers": [h for h in signed["headers"] if h[0] != "X-Webhook-Signature-512"],
    }


def test_an_event_first_sent_later_shows_only_the_refunds_and_disputes_made_by_its_time(
    api: Api, frozen: str
) -> None:
    payment = create(api)  # no webhook URL: the event waits, unsent
    (event_id,) = event_ids(api)
    ok(api.put("/__mock/webhook_url", {"webhook_url": HOOK_URL}))
    ok(api.post("/__mock/clock/advance", {"seconds": 1}))
    ok(api.post("/refunds", {"payment_id": payment["payment_id"], "amount": 250}))
    ok(api.post("/__mock/disputes", {"payment_id": payment["payment_id"]}))

    answer = ok(api.post(f"{EVENTS}/{event_id}/retry"))

    sent_payment = orjson.loads(answer["request"]["body"])["content"]["object"]
    assert (sent_payment["amount_refunded"], sent_payment["refunds"], sent_payment["disputes"]) == (0, [], [])
    now = ok(api.get(f"/payments/{payment['payment_id']}"))
    assert (len(now["refunds"]), len(now["disputes"])) == (1, 1)


def test_attempts_of_an_unknown_event_are_not_found(api: Api) -> None:
    response = api.get(f"{EVENTS}/evt_unknown/attempts")

    assert response.status_code == 404
    assert response.json == EVENT_NOT_FOUND


def ok_list(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.get_json()
    body: list[dict[str, Any]] = response.get_json()
    return body


# -- retry --------------------------------------------------------------------------------------


def test_retry_queues_a_delivery_by_hand_now(api: Api, admin: Api, sandbox: Sandbox, hooked: str) -> None:
    payment = create(api)
    (event_id,) = event_ids(api)
    deliver(sandbox, 500)
    ok(admin.post("/__mock/clock/advance", {"merchant_id": MERCHANT_ID, "seconds": 30}))
    now = ok(admin.get(f"/__mock/clock?merchant_id={MERCHANT_ID}"))["now"]

    response = api.post(f"{EVENTS}/{event_id}/retry")

    assert ok(response) == {
        **item(payment, event_id, "payment_succeeded"),
        "created": now,
        "request": sent(sandbox, event_id),
        "response": NO_RESPONSE,
        "delivery_attempt": "manual_retry",
    }
    task = sandbox.webhooks.next_task(0)
    assert task is not None
    assert (task.event.event_id, task.manual) == (event_id, True)


def test_retry_by_the_admin_key(admin: Api, api: Api, sandbox: Sandbox, hooked: str) -> None:
    create(api)
    (event_id,) = event_ids(api)
    deliver(sandbox, 200)

    ok(admin.post(f"{EVENTS}/{event_id}/retry"))
    deliver(sandbox, 200)

    kinds = [attempt["delivery_attempt"] for attempt in ok_list(api.get(f"{EVENTS}/{event_id}/attempts"))]
    assert kinds == ["initial_attempt", "manual_retry"]


@pytest.mark.parametrize("route", ["retry", "redeliver"])
def test_a_retry_with_nowhere_to_send_is_refused_and_queues_nothing(
    api: Api, sandbox: Sandbox, frozen: str, route: str
) -> None:
    create(api)  # no webhook URL
    (event_id,) = event_ids(api)
    path = f"{EVENTS}/{event_id}/retry" if route == "retry" else f"/__mock/events/{event_id}/redeliver"

    response = api.post(path)

    assert (response.status_code, response.json) == (
        400,
        error(
            "IR_16",
            "The event's business profile has no webhook URL, or is deleted: there is nowhere to send it",
        ),
    )
    assert sandbox.webhooks.next_task(0) is None


def test_the_delivery_log_hides_the_password_of_a_url(api: Api, sandbox: Sandbox, frozen: str) -> None:
    url = "http://shop:s3cret@127.0.0.1:9/webhooks"
    ok(api.put("/__mock/webhook_url", {"webhook_url": url}))
    create(api)
    task = sandbox.webhooks.next_task(0)
    assert task is not None
    sandbox.webhooks.record(task, b"{}", AttemptResult(url, 200, 5.0, None))
    sandbox.webhooks.finish(task)

    (attempt,) = ok(api.get("/__mock/webhooks/deliveries"))["data"]

    assert attempt["url"] == "http://shop:***@127.0.0.1:9/webhooks"


def test_retry_of_an_unknown_event_is_not_found(api: Api) -> None:
    response = api.post(f"{EVENTS}/evt_unknown/retry")

    assert response.status_code == 404
    assert response.json == EVENT_NOT_FOUND


def test_retry_takes_no_fields(api: Api, hooked: str) -> None:
    create(api)
    (event_id,) = event_ids(api)

    response = api.post(f"{EVENTS}/{event_id}/retry", {"force": True})

    assert response.status_code == 400
    assert response.json == malformed("unknown field `force`")
