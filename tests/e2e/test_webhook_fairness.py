"""Fair delivery over real HTTP: receivers that accept a connection and never answer hold up only
their own merchants, and stopping the server does not wait for them.

Each test runs a MockServer of its own (webhook timeout 5 s, the default) and a dead receiver: a
socket server on 127.0.0.1 that accepts connections and reads them, but never answers. Nothing
sleeps: the tests wait for connections, arrivals and threads, each with a deadline.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from mocksrv import MockServer, Settings
from mocksrv.app import create_sandbox
from mocksrv.client import Merchant, Sandbox
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.receiver import DeadReceiver, WebhookReceiver
from mocksrv.webhooks.dispatcher import Dispatcher
from tests import payloads
from tests.payloads import ADMIN_KEY

HUNG_MERCHANTS = 50
ARRIVAL_DEADLINE = 3.0  # seconds a healthy merchant's webhook may take to arrive, on a loaded machine
CONNECT_DEADLINE = 5.0  # seconds for every hung merchant's delivery to reach the dead receiver
STOP_DEADLINE = 2.0  # seconds the server may take to stop with deliveries hung
WAIT_TIMEOUT = 8.0  # the timeout of the long-poll that the stop must answer first
THREAD_DEADLINE = 5.0  # seconds a delivery thread may take to end once its receiver is gone


# -- fixtures -------------------------------------------------------------------------------------


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as stack:
        yield stack


@pytest.fixture
def dead_receiver(stack: ExitStack) -> DeadReceiver:
    receiver = DeadReceiver()
    stack.callback(receiver.close)
    return receiver


@pytest.fixture
def server(stack: ExitStack, dead_receiver: DeadReceiver) -> MockServer:
    """A server of the test's own, stopped before the dead receiver closes."""
    return stack.enter_context(MockServer(Settings()))


@pytest.fixture
def sandbox(stack: ExitStack, server: MockServer) -> Sandbox:
    return stack.enter_context(Sandbox(server.url, ADMIN_KEY))


@pytest.fixture
def new_merchant(stack: ExitStack, sandbox: Sandbox) -> Callable[..., Merchant]:
    def create(**settings: Any) -> Merchant:
        return stack.enter_context(sandbox.create_merchant(**settings))

    return create


@pytest.fixture
def healthy_receiver(stack: ExitStack) -> WebhookReceiver:
    return stack.enter_context(WebhookReceiver())


# -- steps ----------------------------------------------------------------------------------------


def pay(merchant: Merchant) -> str:
    """Create a payment, which emits payment_succeeded; return its id."""
    response = merchant.session.post(
        f"{merchant.url}/payments", json=payloads.payment(profile_id=merchant.profile_id)
    )
    assert response.status_code == 200, response.text
    payment_id: str = response.json()["payment_id"]
    return payment_id


def hang_deliveries(
    new_merchant: Callable[..., Merchant], receiver: DeadReceiver, count: int
) -> list[Merchant]:
    """Merchants whose webhooks go to the dead receiver, each with a delivery hung there."""
    merchants = [new_merchant(webhook_url=receiver.url) for _ in range(count)]
    for merchant in merchants:
        pay(merchant)
    assert receiver.wait_for_connections(count, CONNECT_DEADLINE) >= count
    return merchants


def open_wait(
    server: MockServer, merchant: Merchant, monkeypatch: pytest.MonkeyPatch
) -> tuple[threading.Thread, list[bool]]:
    """Open a long-poll for the merchant's deliveries, on a thread; return the thread, and the list
    its answer will be put in. Returns once the long-poll has reached the server's wait."""
    webhooks = server.sandbox.webhooks
    waiting = threading.Event()
    drained = webhooks.drained

    def signalled_drained(merchant_id: str, timeout: float) -> bool:
        waiting.set()
        return drained(merchant_id, timeout)

    monkeypatch.setattr(webhooks, "drained", signalled_drained)
    answers: list[bool] = []
    poll = threading.Thread(target=lambda: answers.append(merchant.wait_webhooks(WAIT_TIMEOUT)), daemon=True)
    poll.start()
    assert waiting.wait(ARRIVAL_DEADLINE), "the long-poll did not reach the server"
    return poll, answers


def attempts_recorded(server: MockServer, merchant: Merchant) -> int:
    return server.sandbox.webhooks.attempts(merchant.merchant_id, None, 100, 0).total_count


def delivery_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name.startswith("mocksrv-webhooks-")}


# -- fairness -------------------------------------------------------------------------------------


def test_a_healthy_merchants_webhook_arrives_while_fifty_receivers_hang(
    new_merchant: Callable[..., Merchant], dead_receiver: DeadReceiver, healthy_receiver: WebhookReceiver
) -> None:
    hang_deliveries(new_merchant, dead_receiver, HUNG_MERCHANTS)
    healthy = new_merchant()
    endpoint = healthy_receiver.endpoint(healthy.signing_key)
    healthy.set_webhook_url(endpoint.url)

    payment_id = pay(healthy)

    webhook = endpoint.wait_for("payment_succeeded", object_id=payment_id, timeout=ARRIVAL_DEADLINE)
    assert webhook.verified


def test_every_hung_merchant_has_its_delivery_in_flight_at_once(
    new_merchant: Callable[..., Merchant], dead_receiver: DeadReceiver
) -> None:
    merchants = [new_merchant(webhook_url=dead_receiver.url) for _ in range(HUNG_MERCHANTS)]

    for merchant in merchants:
        pay(merchant)

    assert dead_receiver.wait_for_connections(HUNG_MERCHANTS, CONNECT_DEADLINE) == HUNG_MERCHANTS


def test_a_merchants_own_events_still_wait_for_its_hung_delivery(
    server: MockServer, new_merchant: Callable[..., Merchant], dead_receiver: DeadReceiver
) -> None:
    (merchant,) = hang_deliveries(new_merchant, dead_receiver, 1)

    pay(merchant)

    assert server.sandbox.webhooks.pending(merchant.merchant_id) == 2
    assert dead_receiver.wait_for_connections(2, 0) == 1


def test_a_long_poll_on_a_hung_merchant_does_not_delay_another_merchants_webhooks(
    server: MockServer,
    new_merchant: Callable[..., Merchant],
    dead_receiver: DeadReceiver,
    healthy_receiver: WebhookReceiver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (hung,) = hang_deliveries(new_merchant, dead_receiver, 1)
    healthy = new_merchant()
    endpoint = healthy_receiver.endpoint(healthy.signing_key)
    healthy.set_webhook_url(endpoint.url)
    poll, answers = open_wait(server, hung, monkeypatch)

    for _ in range(5):
        payment_id = pay(healthy)
        endpoint.wait_for("payment_succeeded", object_id=payment_id, timeout=ARRIVAL_DEADLINE)

    still_open = answers == []
    server.stop()
    poll.join(STOP_DEADLINE)
    assert still_open


def test_no_more_deliveries_are_in_flight_than_the_webhook_workers_setting(
    stack: ExitStack, dead_receiver: DeadReceiver
) -> None:
    before = delivery_threads()
    server = stack.enter_context(MockServer(Settings(webhook_workers=3)))
    merchants = [server.sandbox.add_merchant(MerchantSeed(webhook_url=dead_receiver.url)) for _ in range(5)]

    for credentials in merchants:
        server.sandbox.seed_payments(credentials.merchant.merchant_id, 1)

    assert dead_receiver.wait_for_connections(3, CONNECT_DEADLINE) == 3
    assert len(delivery_threads() - before) == 3
    assert dead_receiver.wait_for_connections(4, 0) == 3


def test_delivery_threads_left_idle_end_but_one(stack: ExitStack, dead_receiver: DeadReceiver) -> None:
    sandbox = create_sandbox(Settings())
    dispatcher = Dispatcher(sandbox, "http://127.0.0.1", idle=0.1)
    dispatcher.start()
    stack.callback(dispatcher.stop)
    for _ in range(5):
        credentials = sandbox.add_merchant(MerchantSeed(webhook_url=dead_receiver.url))
        sandbox.seed_payments(credentials.merchant.merchant_id, 1)
    assert dead_receiver.wait_for_connections(5, CONNECT_DEADLINE) == 5
    assert dispatcher.threads == 6  # five waiting on the receiver, one ready for the next delivery

    dead_receiver.close()  # every attempt fails at once, and its thread is left idle

    deadline = time.monotonic() + THREAD_DEADLINE
    while dispatcher.threads > 1 and time.monotonic() < deadline:
        for thread in delivery_threads():
            thread.join(0.05)
    assert dispatcher.threads == 1


# -- stopping -------------------------------------------------------------------------------------


def test_stop_returns_promptly_with_deliveries_hung_and_records_no_attempt_for_them(
    server: MockServer, new_merchant: Callable[..., Merchant], dead_receiver: DeadReceiver
) -> None:
    before = delivery_threads()
    merchants = hang_deliveries(new_merchant, dead_receiver, 8)
    hung_threads = delivery_threads() - before

    started = time.monotonic()
    server.stop()
    stopped_in = time.monotonic() - started

    dead_receiver.close()  # each hung attempt now fails at once; the stopped dispatcher records none
    for thread in hung_threads:
        thread.join(THREAD_DEADLINE)
    assert stopped_in < STOP_DEADLINE
    assert not [thread.name for thread in hung_threads if thread.is_alive()]
    assert [attempts_recorded(server, merchant) for merchant in merchants] == [0] * len(merchants)
    assert [server.sandbox.webhooks.pending(m.merchant_id) for m in merchants] == [1] * len(merchants)


def test_stop_answers_an_open_wait_on_a_hung_merchant_with_not_drained(
    server: MockServer,
    new_merchant: Callable[..., Merchant],
    dead_receiver: DeadReceiver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (merchant,) = hang_deliveries(new_merchant, dead_receiver, 1)
    poll, answers = open_wait(server, merchant, monkeypatch)

    started = time.monotonic()
    server.stop()
    poll.join(STOP_DEADLINE)

    assert answers == [False]
    assert time.monotonic() - started < STOP_DEADLINE


def test_a_delivery_cut_short_by_stop_is_made_at_the_next_start(
    server: MockServer,
    new_merchant: Callable[..., Merchant],
    dead_receiver: DeadReceiver,
    healthy_receiver: WebhookReceiver,
) -> None:
    (merchant,) = hang_deliveries(new_merchant, dead_receiver, 1)
    endpoint = healthy_receiver.endpoint(merchant.signing_key)
    server.stop()
    profile = server.sandbox.merchants.default_profile(merchant.merchant_id)
    server.sandbox.merchants.update_profile(
        merchant.merchant_id, profile.profile_id, {"webhook_url": endpoint.url}
    )

    server.start()

    webhook = endpoint.wait_for("payment_succeeded", timeout=ARRIVAL_DEADLINE)
    assert server.sandbox.webhooks.drained(merchant.merchant_id, ARRIVAL_DEADLINE) is True
    assert webhook.verified
    (attempt,) = server.sandbox.webhooks.attempts(merchant.merchant_id, None, 100, 0).items
    assert (attempt.number, attempt.url, attempt.succeeded) == (1, endpoint.url, True)
