"""Webhook chaos over real HTTP: MockServer in this process delivers to receivers on 127.0.0.1.

Each test has a merchant of its own with a frozen clock, its webhooks sent to an endpoint of its
own. Nothing sleeps: POST /__mock/webhooks/wait blocks until everything due has been attempted
(duplicates included), and held deliveries go when the test moves the mock clock.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from mocksrv import MockServer, Settings, verify_signature
from mocksrv.client import Merchant, Sandbox
from mocksrv.domain.webhooks import ChaosMode, DeliveryHold
from mocksrv.receiver import DeadReceiver, WebhookEndpoint, WebhookReceiver
from mocksrv.representations import timestamp
from tests import payloads
from tests.e2e.harness import DEADLINE, Receiver
from tests.payloads import ADMIN_KEY

WAIT_TIMEOUT = DEADLINE  # seconds a wait for deliveries may block; it returns once they are attempted
ARRIVAL_DEADLINE = 3.0  # seconds a healthy merchant's webhook may take beside a dead receiver (< its timeout)
ANY_TIME = datetime(2026, 1, 1, tzinfo=UTC)  # a hold's times play no part in its order


@pytest.fixture(scope="module")
def server() -> Iterator[MockServer]:
    with MockServer(Settings()) as server:
        yield server


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver


@pytest.fixture
def sandbox(server: MockServer) -> Iterator[Sandbox]:
    with Sandbox(server.url, ADMIN_KEY) as sandbox:
        yield sandbox


MerchantFactory = Callable[..., Merchant]


@pytest.fixture
def new_merchant(sandbox: Sandbox) -> Iterator[MerchantFactory]:
    """Create merchants with frozen clocks; keyword arguments are their settings."""
    created: list[Merchant] = []

    def create(**settings: Any) -> Merchant:
        merchant = sandbox.create_merchant(**settings)
        created.append(merchant)
        merchant.freeze()
        return merchant

    yield create
    for merchant in created:
        merchant.reset()
        merchant.close()


@pytest.fixture
def hooked(
    new_merchant: MerchantFactory, receiver: WebhookReceiver
) -> Iterator[tuple[Merchant, WebhookEndpoint]]:
    """A merchant whose webhooks go to an endpoint of its own."""
    merchant = new_merchant()
    endpoint = receiver.endpoint(merchant.signing_key)
    merchant.set_webhook_url(endpoint.url)
    yield merchant, endpoint
    receiver.remove(endpoint)


def pay(merchant: Merchant, amount: int = 1000) -> str:
    body = payloads.payment("4242424242424242", profile_id=merchant.profile_id, amount=amount)
    response = merchant.session.post(merchant.url + "/payments", json=body)
    assert response.status_code == 200, response.text
    payment_id: str = response.json()["payment_id"]
    return payment_id


def drained(merchant: Merchant) -> None:
    assert merchant.wait_webhooks(WAIT_TIMEOUT) is True


def arrived(endpoint: WebhookEndpoint) -> list[tuple[str | None, str | None]]:
    """What arrived, in order: (event type, object id)."""
    return [(event.event_type, event.object_id) for event in endpoint.events]


def log_of(merchant: Merchant) -> list[dict[str, Any]]:
    """Every attempt, in the order it was made."""
    return sorted(merchant.deliveries(), key=lambda attempt: attempt["number"])


def succeeded(payment_id: str) -> tuple[str, str]:
    return ("payment_succeeded", payment_id)


# -- duplicates -----------------------------------------------------------------------------------


def test_a_duplicate_arrives_at_once_with_the_same_event_id_and_bytes(
    hooked: tuple[Merchant, WebhookEndpoint],
) -> None:
    merchant, endpoint = hooked
    merchant.set_webhook_chaos(duplicate=True)

    payment_id = pay(merchant)
    drained(merchant)  # the wait covers the duplicate too: no polling after it

    first, second = endpoint.events
    assert arrived(endpoint) == [succeeded(payment_id)] * 2
    assert first.event_id == second.event_id
    assert first.raw == second.raw
    assert first.headers["X-Webhook-Signature-512"] == second.headers["X-Webhook-Signature-512"]
    assert first.verified
    assert second.verified


def test_the_delivery_log_marks_the_second_delivery_as_the_duplicate(
    hooked: tuple[Merchant, WebhookEndpoint],
) -> None:
    merchant, _ = hooked
    merchant.set_webhook_chaos(duplicate=True)

    pay(merchant)
    drained(merchant)

    (event,) = merchant.events()
    shown = [
        (a["event_id"], a["number"], a["manual"], a["succeeded"], a["duplicate"], a["chaos"])
        for a in log_of(merchant)
    ]
    assert shown == [
        (event["event_id"], 1, False, True, False, None),
        (event["event_id"], 2, False, True, True, "duplicate"),
    ]
    assert event["delivery"] == {"state": "delivered", "attempts": 2, "next_attempt_at": None}


def test_a_retried_event_is_duplicated_once_the_retry_delivers_it(
    hooked: tuple[Merchant, WebhookEndpoint],
) -> None:
    merchant, endpoint = hooked
    merchant.set_webhook_chaos(duplicate=True)
    endpoint.respond_with(500, times=1)

    payment_id = pay(merchant)
    drained(merchant)
    after_failure = arrived(endpoint)
    merchant.advance(minutes=1)
    drained(merchant)

    assert after_failure == [succeeded(payment_id)]
    assert arrived(endpoint) == [succeeded(payment_id)] * 3
    assert [(a["status_code"], a["duplicate"]) for a in log_of(merchant)] == [
        (500, False),
        (200, False),
        (200, True),
    ]


class DedupingShop:
    """A merchant's receiver as its own code would write it: verify, then act once per event id."""

    def __init__(self, server: HTTPServer, signing_key: str) -> None:
        self.signing_key = signing_key
        self.seen: set[str] = set()
        self.fulfilled: list[str] = []  # the side effect that must happen once per payment
        self.deliveries = 0
        self._lock = threading.Lock()
        self.receiver = Receiver(server, self._receive)

    def _receive(self, request: Request) -> Response:
        raw = request.get_data()
        if not verify_signature(raw, request.headers.get("X-Webhook-Signature-512"), self.signing_key):
            return Response("", status=401)
        event = json.loads(raw)
        with self._lock:
            self.deliveries += 1
            if event["event_id"] not in self.seen:
                self.seen.add(event["event_id"])
                self.fulfilled.append(event["content"]["object"]["payment_id"])
        return Response("", status=204)


def test_a_receiver_that_dedupes_by_event_id_acts_once_per_event(
    new_merchant: MerchantFactory, receiver_server: HTTPServer
) -> None:
    merchant = new_merchant()
    shop = DedupingShop(receiver_server, merchant.signing_key)
    merchant.set_webhook_url(shop.receiver.url)
    merchant.set_webhook_chaos(duplicate=True)

    payments = [pay(merchant, amount) for amount in (1000, 2000)]
    drained(merchant)

    assert shop.deliveries == 4
    assert shop.fulfilled == payments


# -- out of order ---------------------------------------------------------------------------------


def test_out_of_order_holds_the_batch_until_the_clock_passes_its_window(
    hooked: tuple[Merchant, WebhookEndpoint],
) -> None:
    merchant, endpoint = hooked
    merchant.set_webhook_chaos(out_of_order=True)

    payments = [pay(merchant, amount) for amount in (1000, 2000, 3000)]
    drained(merchant)
    before = arrived(endpoint)
    held = merchant.webhook_chaos()["held"]
    merchant.advance(seconds=1)
    drained(merchant)

    assert (before, held) == ([], 3)
    assert arrived(endpoint) == [succeeded(payment_id) for payment_id in reversed(payments)]
    assert {a["chaos"] for a in log_of(merchant)} == {"out_of_order"}


def test_a_seeded_batch_arrives_in_the_order_that_seed_draws(
    hooked: tuple[Merchant, WebhookEndpoint],
) -> None:
    merchant, endpoint = hooked
    merchant.set_webhook_chaos(out_of_order=True, seed=11)
    payments = [pay(merchant, 1000 + n) for n in range(4)]
    drawn = DeliveryHold(
        payments[0], merchant.merchant_id, ANY_TIME, ANY_TIME, tuple(payments), ChaosMode.OUT_OF_ORDER, 11
    ).release_order()

    merchant.advance(seconds=1)
    drained(merchant)

    assert arrived(endpoint) == [succeeded(payment_id) for payment_id in drawn]
    assert drawn != payments


def test_duplicates_and_out_of_order_combine(hooked: tuple[Merchant, WebhookEndpoint]) -> None:
    merchant, endpoint = hooked
    merchant.set_webhook_chaos(duplicate=True, out_of_order=True)

    first, second = pay(merchant, 1000), pay(merchant, 2000)
    merchant.advance(seconds=1)
    drained(merchant)

    assert arrived(endpoint) == [succeeded(second), succeeded(second), succeeded(first), succeeded(first)]


# -- delay ----------------------------------------------------------------------------------------


def test_a_delay_holds_deliveries_until_the_mock_clock_passes_it(
    hooked: tuple[Merchant, WebhookEndpoint],
) -> None:
    merchant, endpoint = hooked
    merchant.set_webhook_chaos(delay_seconds=30)
    start = merchant.now()

    payment_id = pay(merchant)
    drained(merchant)
    at_once = arrived(endpoint)
    merchant.advance(seconds=29)
    drained(merchant)
    before_the_delay = arrived(endpoint)
    merchant.advance(seconds=1)
    drained(merchant)

    assert (at_once, before_the_delay) == ([], [])
    assert arrived(endpoint) == [succeeded(payment_id)]
    (attempt,) = log_of(merchant)
    assert (attempt["chaos"], attempt["attempted_at"]) == ("delay", timestamp(start + timedelta(seconds=30)))


def test_clearing_the_chaos_delivers_new_events_at_once(hooked: tuple[Merchant, WebhookEndpoint]) -> None:
    merchant, endpoint = hooked
    merchant.set_webhook_chaos(delay_seconds=30, duplicate=True)

    cleared = merchant.clear_webhook_chaos()
    payment_id = pay(merchant)
    drained(merchant)

    assert cleared == {
        "merchant_id": merchant.merchant_id,
        "duplicate": False,
        "out_of_order": False,
        "delay_seconds": 0,
        "seed": None,
        "held": 0,
    }
    assert arrived(endpoint) == [succeeded(payment_id)]


def test_a_merchants_chaos_and_dead_receiver_slow_no_other_merchant(
    new_merchant: MerchantFactory, receiver: WebhookReceiver
) -> None:
    with DeadReceiver() as dead:
        troubled = new_merchant(webhook_url=dead.url)
        troubled.set_webhook_chaos(duplicate=True)
        pay(troubled)
        assert dead.wait_for_connections(1, WAIT_TIMEOUT) == 1
        healthy = new_merchant()
        endpoint = receiver.endpoint(healthy.signing_key)
        healthy.set_webhook_url(endpoint.url)

        payment_id = pay(healthy)

        assert endpoint.wait_for("payment_succeeded", payment_id, timeout=ARRIVAL_DEADLINE).verified
        receiver.remove(endpoint)
