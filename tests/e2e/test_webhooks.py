"""Webhooks over real HTTP: MockServer in this process delivers to a receiver on 127.0.0.1.

Each test has a merchant of its own with a frozen clock and a receiver path of its own. No test
sleeps: POST /__mock/webhooks/wait blocks until the merchant's deliveries have been attempted, and
retries fall due when the test advances the mock clock.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import itertools
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import closing
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from mocksrv import MockServer, Settings
from mocksrv.domain.webhooks import RETRY_DELAYS
from mocksrv.webhooks import SIGNATURE_HEADER, verify_signature
from tests import payloads
from tests.api.expected import Matches, iso, later
from tests.e2e.harness import (
    DEADLINE,
    LOCALHOST,
    Merchant,
    Receiver,
    create_merchant,
    default_merchant,
    free_port,
)
from tests.payloads import ADMIN_KEY, MERCHANT_ID, SIGNING_KEY

WAIT_TIMEOUT = DEADLINE  # seconds a wait for deliveries may block; it returns once they are attempted
HELD_POLL = 4.0  # the timeout of a long-poll held open by a receiver that never answers
SHORT_WEBHOOK_TIMEOUT = 0.5  # seconds a receiver has to answer, on the server of the hanging tests
HANG_DEADLINE = 10.0  # the longest a hanging receiver holds a request, should teardown never come
WEEK = 7 * 24 * 3600

DECLINE_CARD = "4000000000000002"
CHALLENGE_CARD = "4000003800000446"
REVIEW_CARD = "4000000000009235"
PROCESSING_CARD = "4000000000000077"

GENERATED_ATTEMPT_ID = Matches(r"att_[A-Za-z0-9]{20}")


# -- the receiver ---------------------------------------------------------------------------------


@pytest.fixture
def hanging_receiver() -> Iterator[Receiver]:
    """A receiver that holds every request until the test ends (at most HANG_DEADLINE seconds)."""
    released = threading.Event()
    server = HTTPServer(host=LOCALHOST, port=0, threaded=True)
    server.start()

    def hang(request: Request) -> Response:
        released.wait(HANG_DEADLINE)
        return Response("", status=200)

    yield Receiver(server, hang)
    released.set()
    server.clear()
    server.stop()


class GatedReceiver(Receiver):
    """Answers 500, except that the request numbered `held` waits for `gate` and is answered 200."""

    def __init__(self, server: HTTPServer, held: int) -> None:
        super().__init__(server, self._answer_in_turn)
        self.gate = threading.Event()
        self._held = held
        self._count = itertools.count(1)

    def _answer_in_turn(self, request: Request) -> Response:
        if next(self._count) != self._held:
            return Response("", status=500)
        self.gate.wait(HANG_DEADLINE)
        return Response("", status=200)


@pytest.fixture
def second_request_gated() -> Iterator[GatedReceiver]:
    """A receiver that fails every request but the second, which it answers 200 once the gate opens."""
    server = HTTPServer(host=LOCALHOST, port=0, threaded=True)
    server.start()
    receiver = GatedReceiver(server, held=2)
    yield receiver
    receiver.gate.set()
    server.clear()
    server.stop()


# -- the sandbox ----------------------------------------------------------------------------------


@pytest.fixture
def impatient_server() -> Iterator[MockServer]:
    """A server whose dispatcher gives a receiver half a second to answer."""
    with MockServer(Settings(webhook_timeout=SHORT_WEBHOOK_TIMEOUT)) as server:
        yield server


MerchantFactory = Callable[..., Merchant]


@pytest.fixture
def new_merchant() -> Iterator[MerchantFactory]:
    """Create isolated merchants, with frozen clocks, on a server; keyword arguments are their settings."""
    created: list[Merchant] = []

    def create(server: MockServer, **settings: Any) -> Merchant:
        merchant = create_merchant(server.url, ADMIN_KEY, **settings)
        created.append(merchant)
        merchant.freeze()
        return merchant

    yield create
    for merchant in created:
        merchant.close()


@pytest.fixture
def merchant(mock_server: MockServer, new_merchant: MerchantFactory, receiver: Receiver) -> Merchant:
    """A merchant of this test alone whose webhooks go to the test's receiver."""
    return new_merchant(mock_server, webhook_url=receiver.url)


# -- steps ----------------------------------------------------------------------------------------


def ok(response: Any) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def create(merchant: Merchant, number: str | None = "4242424242424242", **fields: Any) -> dict[str, Any]:
    return ok(merchant.post("/payments", payloads.payment(number, profile_id=merchant.profile_id, **fields)))


def retrieve(merchant: Merchant, payment_id: str) -> dict[str, Any]:
    return ok(merchant.get(f"/payments/{payment_id}"))


def now(merchant: Merchant) -> str:
    """The merchant's time, in the server's format."""
    return iso(merchant.now())


def wait(merchant: Merchant) -> None:
    """Block until every queued delivery of the merchant has been attempted."""
    assert merchant.wait_webhooks(WAIT_TIMEOUT) is True


def deliveries(merchant: Merchant, event_id: str | None = None) -> list[dict[str, Any]]:
    """Every attempt, in the order it was made."""
    listed = merchant.deliveries(event_id)
    return sorted(listed, key=lambda attempt: (attempt["attempted_at"], attempt["number"]))


def only_event(merchant: Merchant) -> dict[str, Any]:
    (event,) = merchant.events()
    return event


def only_event_of(merchant: Merchant, event_type: str) -> dict[str, Any]:
    (event,) = [event for event in merchant.events() if event["event_type"] == event_type]
    return event


def attempt(
    url: str, event_id: str, number: int, at: str, status_code: int | None, **changes: Any
) -> dict[str, Any]:
    """An attempt as the merchant's list of deliveries shows it; the latency is checked apart."""
    body: dict[str, Any] = {
        "attempt_id": GENERATED_ATTEMPT_ID,
        "event_id": event_id,
        "number": number,
        "manual": False,
        "url": url,
        "attempted_at": at,
        "succeeded": status_code is not None and 200 <= status_code < 300,
        "status_code": status_code,
        "error": None,
        "duplicate": False,
        "chaos": None,
    }
    body.update(changes)
    return body


def without_latency(attempts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for listed in attempts:
        assert isinstance(listed["latency_ms"], int | float)
        assert listed["latency_ms"] >= 0
    return [{k: v for k, v in listed.items() if k != "latency_ms"} for listed in attempts]


def hmac_sha512(key: str, raw: bytes) -> str:
    return hmac.new(key.encode(), raw, hashlib.sha512).hexdigest()


# -- one event per outcome ------------------------------------------------------------------------

Snapshots = list[tuple[str, dict[str, Any]]]  # (event type, GET /payments/:id right after the step)


def _succeeded(merchant: Merchant) -> Snapshots:
    created = create(merchant)
    return [("payment_succeeded", retrieve(merchant, created["payment_id"]))]


def _failed(merchant: Merchant) -> Snapshots:
    created = create(merchant, DECLINE_CARD)
    return [("payment_failed", retrieve(merchant, created["payment_id"]))]


def _authorized(merchant: Merchant) -> Snapshots:
    created = create(merchant, capture_method="manual")
    return [("payment_authorized", retrieve(merchant, created["payment_id"]))]


def _captured(merchant: Merchant) -> Snapshots:
    payment_id = create(merchant, capture_method="manual_multiple")["payment_id"]
    authorized = retrieve(merchant, payment_id)
    ok(merchant.post(f"/payments/{payment_id}/capture", {"amount_to_capture": 400}))
    return [("payment_authorized", authorized), ("payment_captured", retrieve(merchant, payment_id))]


def _cancelled(merchant: Merchant) -> Snapshots:
    payment_id = create(merchant, None)["payment_id"]
    ok(merchant.post(f"/payments/{payment_id}/cancel", {"cancellation_reason": "requested_by_customer"}))
    return [("payment_cancelled", retrieve(merchant, payment_id))]


def _expired(merchant: Merchant) -> Snapshots:
    payment_id = create(merchant, capture_method="manual")["payment_id"]
    authorized = retrieve(merchant, payment_id)
    merchant.advance(WEEK)
    return [("payment_authorized", authorized), ("payment_expired", retrieve(merchant, payment_id))]


def _processing_then_succeeded(merchant: Merchant) -> Snapshots:
    payment_id = create(merchant, PROCESSING_CARD)["payment_id"]
    processing = retrieve(merchant, payment_id)
    merchant.advance(10)
    return [("payment_processing", processing), ("payment_succeeded", retrieve(merchant, payment_id))]


def _three_d_secure(merchant: Merchant) -> Snapshots:
    created = create(merchant, CHALLENGE_CARD)
    return [("action_required", retrieve(merchant, created["payment_id"]))]


def _manual_review(merchant: Merchant) -> Snapshots:
    created = create(merchant, REVIEW_CARD)
    return [("action_required", retrieve(merchant, created["payment_id"]))]


FLOWS: list[Callable[[Merchant], Snapshots]] = [
    _succeeded,
    _failed,
    _authorized,
    _captured,
    _cancelled,
    _expired,
    _processing_then_succeeded,
    _three_d_secure,
    _manual_review,
]


def _flow_id(flow: Callable[[Merchant], Snapshots]) -> str:
    return flow.__name__.strip("_")


@pytest.mark.parametrize("flow", FLOWS, ids=_flow_id)
def test_each_outcome_arrives_as_one_event_holding_the_payment_as_get_showed_it(
    merchant: Merchant, receiver: Receiver, flow: Callable[[Merchant], Snapshots]
) -> None:
    snapshots = flow(merchant)

    wait(merchant)
    event_ids = {event["event_type"]: event["event_id"] for event in merchant.events()}
    assert receiver.bodies() == [
        {
            "merchant_id": merchant.merchant_id,
            "event_id": event_ids[event_type],
            "event_type": event_type,
            "content": {"type": "payment_details", "object": snapshot},
            "timestamp": snapshot["modified_at"],
        }
        for event_type, snapshot in snapshots
    ]


@pytest.mark.parametrize("flow", FLOWS, ids=_flow_id)
def test_each_event_is_listed_delivered_after_one_attempt(
    merchant: Merchant, flow: Callable[[Merchant], Snapshots]
) -> None:
    snapshots = flow(merchant)

    wait(merchant)
    assert [(event["event_type"], event["delivery"]) for event in reversed(merchant.events())] == [
        (event_type, {"state": "delivered", "attempts": 1, "next_attempt_at": None})
        for event_type, _ in snapshots
    ]


def test_a_webhook_is_a_json_post(merchant: Merchant, receiver: Receiver) -> None:
    create(merchant)

    wait(merchant)
    (request,) = receiver.received()
    assert request.method == "POST"
    assert request.headers["Content-Type"] == "application/json"


def test_the_signature_header_is_hex_hmac_sha512_of_the_raw_body(
    merchant: Merchant, receiver: Receiver
) -> None:
    create(merchant)

    wait(merchant)
    (request,) = receiver.received()
    assert request.headers[SIGNATURE_HEADER] == hmac_sha512(merchant.signing_key, request.get_data())


def test_a_receiver_verifying_the_raw_bytes_accepts_the_signature(
    merchant: Merchant, receiver: Receiver
) -> None:
    create(merchant)

    wait(merchant)
    (request,) = receiver.received()
    assert verify_signature(request.get_data(), request.headers.get(SIGNATURE_HEADER), merchant.signing_key)


def test_a_receiver_that_reserializes_the_json_fails_verification(
    merchant: Merchant, receiver: Receiver
) -> None:
    create(merchant)

    wait(merchant)
    (request,) = receiver.received()
    reserialized = json.dumps(json.loads(request.get_data())).encode()
    assert reserialized != request.get_data()
    assert not verify_signature(reserialized, request.headers.get(SIGNATURE_HEADER), merchant.signing_key)


def test_a_signature_checked_with_another_merchants_key_fails(merchant: Merchant, receiver: Receiver) -> None:
    create(merchant)

    wait(merchant)
    (request,) = receiver.received()
    assert not verify_signature(request.get_data(), request.headers.get(SIGNATURE_HEADER), SIGNING_KEY)


def test_a_new_signing_key_set_on_the_profile_signs_the_next_webhook(
    merchant: Merchant, receiver: Receiver
) -> None:
    profile = ok(
        merchant.post(
            f"/account/{merchant.merchant_id}/business_profile/{merchant.profile_id}",
            {"payment_response_hash_key": "whsec_set_by_the_merchant"},
        )
    )
    new_key = profile["payment_response_hash_key"]
    assert new_key == "whsec_set_by_the_merchant" != merchant.signing_key

    create(merchant)

    wait(merchant)
    (request,) = receiver.received()
    assert verify_signature(request.get_data(), request.headers.get(SIGNATURE_HEADER), new_key)


# -- where webhooks go ----------------------------------------------------------------------------


def test_a_url_registered_on_the_profile_receives_webhooks(
    mock_server: MockServer, new_merchant: MerchantFactory, receiver: Receiver
) -> None:
    merchant = new_merchant(mock_server)
    ok(
        merchant.post(
            f"/account/{merchant.merchant_id}/business_profile/{merchant.profile_id}",
            {"webhook_details": {"webhook_url": receiver.url}},
        )
    )

    created = create(merchant)

    wait(merchant)
    assert [(body["event_type"], body["content"]["object"]["payment_id"]) for body in receiver.bodies()] == [
        ("payment_succeeded", created["payment_id"])
    ]


def test_a_url_registered_through_the_control_plane_receives_webhooks(
    mock_server: MockServer, new_merchant: MerchantFactory, receiver: Receiver
) -> None:
    merchant = new_merchant(mock_server)
    merchant.set_webhook_url(receiver.url)

    created = create(merchant)

    wait(merchant)
    assert [(body["event_type"], body["content"]["object"]["payment_id"]) for body in receiver.bodies()] == [
        ("payment_succeeded", created["payment_id"])
    ]


def test_the_webhook_url_setting_registers_the_default_merchants_url(receiver: Receiver) -> None:
    with (
        MockServer(Settings(webhook_url=receiver.url)) as server,
        closing(default_merchant(server.url)) as merchant,
    ):
        created = merchant.post("/payments", payloads.payment())
        assert created.status_code == 200, created.text

        drained = merchant.wait_webhooks(WAIT_TIMEOUT)

        assert drained is True
    (request,) = receiver.received()
    body = json.loads(request.get_data())
    assert (body["merchant_id"], body["event_type"]) == (MERCHANT_ID, "payment_succeeded")
    assert verify_signature(request.get_data(), request.headers.get(SIGNATURE_HEADER), SIGNING_KEY)


def test_events_of_a_merchant_without_a_url_have_no_endpoint_and_no_attempt(
    mock_server: MockServer, new_merchant: MerchantFactory
) -> None:
    merchant = new_merchant(mock_server)
    create(merchant)

    wait(merchant)
    assert only_event(merchant)["delivery"] == {
        "state": "no_endpoint",
        "attempts": 0,
        "next_attempt_at": None,
    }
    assert deliveries(merchant) == []


# -- retries --------------------------------------------------------------------------------------


def test_a_receiver_answering_500_fails_the_first_attempt(merchant: Merchant, receiver: Receiver) -> None:
    receiver.status = 500
    created_at = now(merchant)
    create(merchant)

    wait(merchant)
    event = only_event(merchant)
    assert without_latency(deliveries(merchant)) == [
        attempt(receiver.url, event["event_id"], 1, created_at, 500)
    ]


def test_after_a_failed_first_attempt_the_event_is_retrying_a_minute_later(
    merchant: Merchant, receiver: Receiver
) -> None:
    receiver.status = 500
    created_at = now(merchant)
    create(merchant)

    wait(merchant)
    assert only_event(merchant)["delivery"] == {
        "state": "retrying",
        "attempts": 1,
        "next_attempt_at": later(created_at, 60),
    }


def test_nothing_is_retried_before_the_minute_is_up(merchant: Merchant, receiver: Receiver) -> None:
    receiver.status = 500
    create(merchant)
    wait(merchant)

    merchant.advance(59)

    wait(merchant)
    assert len(receiver.received()) == 1


def test_advancing_a_minute_brings_the_second_attempt(merchant: Merchant, receiver: Receiver) -> None:
    receiver.status = 500
    created_at = now(merchant)
    create(merchant)
    wait(merchant)

    merchant.advance(60)

    wait(merchant)
    event = only_event(merchant)
    assert without_latency(deliveries(merchant)) == [
        attempt(receiver.url, event["event_id"], 1, created_at, 500),
        attempt(receiver.url, event["event_id"], 2, later(created_at, 60), 500),
    ]
    assert event["delivery"] == {
        "state": "retrying",
        "attempts": 2,
        "next_attempt_at": later(created_at, 60 + 300),
    }


def test_a_retry_sends_the_same_bytes_with_the_same_signature(merchant: Merchant, receiver: Receiver) -> None:
    receiver.status = 500
    create(merchant)
    wait(merchant)

    merchant.advance(60)

    wait(merchant)
    first, second = receiver.received()
    assert second.get_data() == first.get_data()
    assert second.headers[SIGNATURE_HEADER] == first.headers[SIGNATURE_HEADER]


def test_a_retry_that_is_answered_2xx_delivers(merchant: Merchant, receiver: Receiver) -> None:
    receiver.status = 500
    create(merchant)
    wait(merchant)
    receiver.status = 204

    merchant.advance(60)

    wait(merchant)
    assert only_event(merchant)["delivery"] == {"state": "delivered", "attempts": 2, "next_attempt_at": None}
    assert [(a["number"], a["status_code"], a["succeeded"]) for a in deliveries(merchant)] == [
        (1, 500, False),
        (2, 204, True),
    ]


def test_retries_are_attempted_at_the_delays_of_the_schedule(merchant: Merchant, receiver: Receiver) -> None:
    receiver.status = 500
    created_at = now(merchant)
    create(merchant)
    wait(merchant)

    for delay in RETRY_DELAYS:
        merchant.advance(delay)
        wait(merchant)

    offsets = [0, *itertools.accumulate(RETRY_DELAYS)]
    assert [a["attempted_at"] for a in deliveries(merchant)] == [later(created_at, s) for s in offsets]


def test_delivery_gives_up_after_the_seventeenth_attempt(merchant: Merchant, receiver: Receiver) -> None:
    receiver.status = 500
    create(merchant)
    wait(merchant)

    for delay in RETRY_DELAYS:
        merchant.advance(delay)
        wait(merchant)

    assert only_event(merchant)["delivery"] == {"state": "failed", "attempts": 17, "next_attempt_at": None}
    assert [a["number"] for a in deliveries(merchant)] == list(range(1, 18))
    assert len(receiver.received()) == 17


def test_one_advance_past_the_schedule_makes_every_attempt_at_its_time_before_the_wait_answers(
    merchant: Merchant, receiver: Receiver
) -> None:
    receiver.status = 500
    created_at = now(merchant)
    create(merchant)
    wait(merchant)

    merchant.advance(2 * 24 * 3600)

    wait(merchant)
    offsets = [0, *itertools.accumulate(RETRY_DELAYS)]
    assert [a["attempted_at"] for a in deliveries(merchant)] == [later(created_at, s) for s in offsets]
    assert only_event(merchant)["delivery"] == {"state": "failed", "attempts": 17, "next_attempt_at": None}
    assert len(receiver.received()) == 17


def test_after_giving_up_advancing_the_clock_sends_nothing_more(
    merchant: Merchant, receiver: Receiver
) -> None:
    receiver.status = 500
    create(merchant)
    wait(merchant)
    for delay in RETRY_DELAYS:
        merchant.advance(delay)
        wait(merchant)

    merchant.advance(WEEK)

    wait(merchant)
    assert len(receiver.received()) == 17
    assert only_event(merchant)["delivery"]["state"] == "failed"


def test_a_receiver_that_hangs_past_the_timeout_fails_the_attempt_with_a_timeout(
    impatient_server: MockServer, new_merchant: MerchantFactory, hanging_receiver: Receiver
) -> None:
    merchant = new_merchant(impatient_server, webhook_url=hanging_receiver.url)
    created_at = now(merchant)
    create(merchant)

    wait(merchant)
    (listed,) = deliveries(merchant)
    assert listed["error"].startswith("timeout")
    assert (listed["number"], listed["attempted_at"], listed["status_code"], listed["succeeded"]) == (
        1,
        created_at,
        None,
        False,
    )
    assert only_event(merchant)["delivery"] == {
        "state": "retrying",
        "attempts": 1,
        "next_attempt_at": later(created_at, 60),
    }


def test_a_receiver_that_is_down_fails_the_attempt_with_a_connection_error(
    mock_server: MockServer, new_merchant: MerchantFactory
) -> None:
    down = f"http://{LOCALHOST}:{free_port()}/hooks"
    merchant = new_merchant(mock_server, webhook_url=down)
    create(merchant)

    wait(merchant)
    (listed,) = deliveries(merchant)
    assert listed["error"].startswith("connection error")
    assert (listed["url"], listed["status_code"], listed["succeeded"]) == (down, None, False)
    assert only_event(merchant)["delivery"]["state"] == "retrying"


# -- redelivery -----------------------------------------------------------------------------------


def test_a_redelivery_by_hand_records_a_manual_attempt(merchant: Merchant, receiver: Receiver) -> None:
    created_at = now(merchant)
    create(merchant)
    wait(merchant)
    event_id = only_event(merchant)["event_id"]

    merchant.redeliver(event_id)

    wait(merchant)
    assert without_latency(deliveries(merchant)) == [
        attempt(receiver.url, event_id, 1, created_at, 200),
        attempt(receiver.url, event_id, 2, created_at, 200, manual=True),
    ]


def test_a_redelivered_event_arrives_again_with_the_same_bytes(
    merchant: Merchant, receiver: Receiver
) -> None:
    create(merchant)
    wait(merchant)

    merchant.redeliver(only_event(merchant)["event_id"])

    wait(merchant)
    first, again = receiver.received()
    assert again.get_data() == first.get_data()
    assert again.headers[SIGNATURE_HEADER] == first.headers[SIGNATURE_HEADER]


def test_an_event_holds_its_payment_as_it_was_when_it_happened_whenever_it_is_sent(
    merchant: Merchant, receiver: Receiver
) -> None:
    merchant.set_webhook_chaos(delay_seconds=30)  # its first attempt waits 30 s on the mock clock
    payment_id = create(merchant)["payment_id"]
    shown = retrieve(merchant, payment_id)
    ok(merchant.post("/refunds", {"payment_id": payment_id, "amount": 300}))
    merchant.clear_webhook_chaos()
    merchant.advance(31)
    wait(merchant)
    merchant.redeliver(only_event_of(merchant, "payment_succeeded")["event_id"])
    wait(merchant)

    sent = [json.loads(request.get_data()) for request in receiver.received()]
    paid = [body["content"]["object"] for body in sent if body["event_type"] == "payment_succeeded"]
    assert paid == [shown, shown]  # the held attempt, and the redelivery after the refund
    assert retrieve(merchant, payment_id)["amount_refunded"] == 300


def test_a_failed_redelivery_leaves_the_retry_schedule_alone(merchant: Merchant, receiver: Receiver) -> None:
    receiver.status = 500
    created_at = now(merchant)
    create(merchant)
    wait(merchant)
    merchant.advance(30)

    merchant.redeliver(only_event(merchant)["event_id"])

    wait(merchant)
    assert only_event(merchant)["delivery"] == {
        "state": "retrying",
        "attempts": 2,
        "next_attempt_at": later(created_at, 60),
    }


def test_a_redelivery_after_giving_up_can_deliver(merchant: Merchant, receiver: Receiver) -> None:
    receiver.status = 500
    create(merchant)
    wait(merchant)
    for delay in RETRY_DELAYS:
        merchant.advance(delay)
        wait(merchant)
    receiver.status = 200

    merchant.redeliver(only_event(merchant)["event_id"])

    wait(merchant)
    assert only_event(merchant)["delivery"] == {"state": "delivered", "attempts": 18, "next_attempt_at": None}


def test_a_retry_that_fell_due_behind_a_successful_redelivery_is_not_sent(
    mock_server: MockServer, new_merchant: MerchantFactory, second_request_gated: GatedReceiver
) -> None:
    receiver = second_request_gated
    merchant = new_merchant(mock_server, webhook_url=receiver.url)
    create(merchant)
    wait(merchant)  # the first attempt failed: retrying, a minute from now
    merchant.redeliver(only_event(merchant)["event_id"])  # held at the receiver, or still queued
    merchant.advance(60)  # the retry falls due while the redelivery is not yet answered

    receiver.gate.set()  # the redelivery is answered 200

    wait(merchant)
    assert only_event(merchant)["delivery"] == {"state": "delivered", "attempts": 2, "next_attempt_at": None}
    assert [(a["number"], a["manual"], a["status_code"]) for a in deliveries(merchant)] == [
        (1, False, 500),
        (2, True, 200),
    ]
    assert len(receiver.received()) == 2


def test_the_deliveries_of_one_event_are_listed_by_event_id(merchant: Merchant, receiver: Receiver) -> None:
    first = create(merchant)["payment_id"]
    create(merchant)
    wait(merchant)
    by_object = {event["object_id"]: event["event_id"] for event in merchant.events()}

    listed = deliveries(merchant, by_object[first])

    assert [a["event_id"] for a in listed] == [by_object[first]]


# -- guarantees -----------------------------------------------------------------------------------


def test_a_create_retried_with_the_same_payment_id_sends_no_second_event(
    merchant: Merchant, receiver: Receiver
) -> None:
    body = payloads.payment(profile_id=merchant.profile_id, payment_id="pay_retried_create")
    ok(merchant.post("/payments", body))

    again = merchant.post("/payments", body)

    assert again.status_code == 400
    assert again.json()["error"]["code"] == "HE_01"
    wait(merchant)
    assert [event["object_id"] for event in merchant.events()] == ["pay_retried_create"]
    assert len(receiver.received()) == 1


def test_events_of_one_object_arrive_in_the_order_they_happened(
    merchant: Merchant, receiver: Receiver
) -> None:
    payment_id = create(merchant, capture_method="manual_multiple")["payment_id"]
    ok(merchant.post(f"/payments/{payment_id}/capture", {"amount_to_capture": 300}))
    ok(merchant.post(f"/payments/{payment_id}/capture", {"amount_to_capture": 700}))

    wait(merchant)
    assert [(body["event_type"], body["content"]["object"]["status"]) for body in receiver.bodies()] == [
        ("payment_authorized", "requires_capture"),
        ("payment_captured", "partially_captured_and_capturable"),
        ("payment_succeeded", "succeeded"),
    ]


def test_a_long_poll_for_deliveries_does_not_hold_up_other_requests(
    mock_server: MockServer, new_merchant: MerchantFactory, hanging_receiver: Receiver
) -> None:
    merchant = new_merchant(mock_server, webhook_url=hanging_receiver.url)
    ok(merchant.post("/payments", payloads.payment(profile_id=merchant.profile_id)))
    poller = dataclasses.replace(merchant)  # a session of its own, held until the receiver gives up
    answers: list[bool] = []

    def long_poll() -> None:  # a refusal raises here, and leaves `answers` empty
        answers.append(poller.wait_webhooks(HELD_POLL))

    polling = threading.Thread(target=long_poll)
    polling.start()
    created = merchant.post("/payments", payloads.payment(profile_id=merchant.profile_id))
    answered_during_the_poll = polling.is_alive()
    polling.join(HELD_POLL + DEADLINE)
    poller.close()

    assert created.status_code == 200
    assert answered_during_the_poll
    assert len(answers) == 1


def test_a_hanging_receiver_does_not_hold_up_an_api_request(
    mock_server: MockServer, new_merchant: MerchantFactory, hanging_receiver: Receiver
) -> None:
    merchant = new_merchant(mock_server, webhook_url=hanging_receiver.url)

    first = merchant.post("/payments", payloads.payment(profile_id=merchant.profile_id))
    second = merchant.post("/payments", payloads.payment(profile_id=merchant.profile_id))

    assert (first.status_code, second.status_code) == (200, 200)
    assert sorted(event["object_id"] for event in merchant.events()) == sorted(
        [first.json()["payment_id"], second.json()["payment_id"]]
    )
