"""The embedded server under freezegun: a merchant backend's tests freeze and move time in the process
that runs mocksrv, and the sandbox's clock, timers and webhooks move with it.

Most tests use the plugin's fixtures (the session's embedded server, whose ticker runs). This
module's own `time.monotonic` is frozen with the rest, so its waits are bounded on clocks freezegun
leaves alone: `real_seconds` (clock_gettime) and `real_deadline` (SIGALRM).
"""

from __future__ import annotations

import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from types import FrameType
from typing import Any, TypeVar

import pytest
from freezegun import freeze_time

from mocksrv import MockServer, Settings
from mocksrv.app import create_sandbox
from mocksrv.client import Merchant, Sandbox
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.receiver import WebhookEndpoint, WebhookReceiver
from mocksrv.webhooks.dispatcher import Dispatcher
from tests import payloads
from tests.payloads import ADMIN_KEY

T = TypeVar("T")

MARCH = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)  # before the real time these tests run at
MARCH_TEXT = "2026-03-01T12:00:00.000Z"
WEEK_AND_A_SECOND = timedelta(days=7, seconds=1)
REFUND_FAILS_CARD = "4000000000005126"  # refunds pending, then failed an hour later
DEADLINE = 5.0  # real seconds any one condition may take to hold
STOP_DEADLINE = 3.0  # real seconds a server may take to stop
POLL = 0.02
NO_TICKER = Settings(tick_interval=3600)  # a server whose timers fire only when the test syncs

_pause = threading.Event()


def real_seconds() -> float:
    """A monotonic clock that freezegun does not patch, for this module's own deadlines."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def eventually(fetch: Callable[[], T], done: Callable[[T], bool], timeout: float = DEADLINE) -> T:
    """Call `fetch` until `done` holds of what it returns or `timeout` real seconds pass; the last result."""
    deadline = real_seconds() + timeout
    result = fetch()
    while not done(result) and real_seconds() < deadline:
        _pause.wait(POLL)
        result = fetch()
    return result


@contextmanager
def real_deadline(seconds: float) -> Iterator[None]:
    """Fail the block if it runs `seconds` of real time: SIGALRM, which freezegun leaves alone, bounds
    a wait that a frozen clock would make endless. The main thread only."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"still running after {seconds} s of real time")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def pay(merchant: Merchant, number: str = "4242424242424242", **overrides: Any) -> dict[str, Any]:
    body = payloads.payment(number, profile_id=merchant.profile_id, **overrides)
    response = merchant.session.post(f"{merchant.url}/payments", json=body)
    assert response.status_code == 200, response.text
    payment: dict[str, Any] = response.json()
    return payment


def status_of(merchant: Merchant, kind: str, object_id: str) -> str:
    response = merchant.session.get(f"{merchant.url}/{kind}/{object_id}")
    assert response.status_code == 200, response.text
    status: str = response.json()["status"]
    return status


def statuses(merchant: Merchant, *payments: dict[str, Any]) -> list[str]:
    return [status_of(merchant, "payments", payment["payment_id"]) for payment in payments]


def stamp(moment: datetime) -> str:
    return moment.isoformat("T", "milliseconds").replace("+00:00", "Z")


# -- timers fired by freezegun's moves -------------------------------------------------------------


def test_an_authorization_expires_once_freezegun_moves_7_days_on(
    mocksrv_merchant: Merchant, mocksrv_webhooks: WebhookEndpoint
) -> None:
    with freeze_time("2026-03-01 12:00:00", tick=True) as frozen:
        payment = pay(mocksrv_merchant, capture_method="manual")
        frozen.tick(WEEK_AND_A_SECOND)
        mocksrv_merchant.sync()

        assert status_of(mocksrv_merchant, "payments", payment["payment_id"]) == "expired"
        assert payment["created"].startswith("2026-03-01T12:00:0")
        expired = mocksrv_webhooks.wait_for("payment_expired", object_id=payment["payment_id"])
    assert expired.verified


def test_the_ticker_fires_after_a_tick_with_the_wall_clock_frozen(mocksrv_merchant: Merchant) -> None:
    with freeze_time(MARCH) as frozen:  # tick=False: the wall clock stands still
        payment = pay(mocksrv_merchant, capture_method="manual")
        frozen.tick(WEEK_AND_A_SECOND)

        status = eventually(
            lambda: status_of(mocksrv_merchant, "payments", payment["payment_id"]), lambda s: s == "expired"
        )
        now = mocksrv_merchant.now()

    assert payment["created"] == MARCH_TEXT
    assert status == "expired"
    assert now == MARCH + WEEK_AND_A_SECOND  # the mock clock stood still with the wall clock


def test_a_refund_fails_an_hour_after_it_was_made(mocksrv_merchant: Merchant) -> None:
    with freeze_time(MARCH) as frozen:
        payment = pay(mocksrv_merchant, REFUND_FAILS_CARD)
        response = mocksrv_merchant.session.post(
            f"{mocksrv_merchant.url}/refunds", json={"payment_id": payment["payment_id"]}
        )
        assert response.status_code == 200, response.text
        created = response.json()
        refund_id = created["refund_id"]
        frozen.tick(3599)
        mocksrv_merchant.sync()
        at_59_59 = status_of(mocksrv_merchant, "refunds", refund_id)
        frozen.tick(1)
        mocksrv_merchant.sync()
        at_60_00 = status_of(mocksrv_merchant, "refunds", refund_id)

    assert (created["status"], at_59_59, at_60_00) == ("pending", "pending", "failed")


def test_a_webhook_retry_schedule_is_walked_with_tick(
    mocksrv_merchant: Merchant, mocksrv_webhooks: WebhookEndpoint
) -> None:
    mocksrv_webhooks.respond_with(500, times=2)  # fails twice, then recovers
    with freeze_time(MARCH) as frozen:
        payment = pay(mocksrv_merchant)
        assert mocksrv_merchant.wait_webhooks()
        for seconds in (59, 1, 299, 1):  # retries are due 1 min, then 5 min, after a failure
            frozen.tick(seconds)
            mocksrv_merchant.sync()
            assert mocksrv_merchant.wait_webhooks()
    (event,) = [e for e in mocksrv_merchant.events() if e["event_type"] == "payment_succeeded"]
    attempts = mocksrv_merchant.deliveries(event["event_id"])

    assert [(a["attempted_at"], a["status_code"]) for a in reversed(attempts)] == [
        (MARCH_TEXT, 500),
        (stamp(MARCH + timedelta(seconds=60)), 500),
        (stamp(MARCH + timedelta(seconds=360)), 200),
    ]
    assert [(e.object_id, e.status) for e in mocksrv_webhooks.events] == [
        (payment["payment_id"], 500),
        (payment["payment_id"], 500),
        (payment["payment_id"], 200),
    ]


# -- time going back ----------------------------------------------------------------------------------


def test_a_freeze_before_the_merchants_time_fires_nothing_and_raises_nothing(
    mocksrv_merchant: Merchant,
) -> None:
    before = pay(mocksrv_merchant, capture_method="manual")  # expires a week from the real time
    with freeze_time(MARCH) as frozen:
        now = mocksrv_merchant.now()
        fired_at_once = mocksrv_merchant.sync()
        during = pay(mocksrv_merchant, capture_method="manual")
        frozen.tick(WEEK_AND_A_SECOND)
        mocksrv_merchant.sync()
        frozen.move_to("2026-02-01 12:00:00")
        fired_going_back = mocksrv_merchant.sync()
        statuses_in_freeze = statuses(mocksrv_merchant, before, during)
    statuses_after = statuses(mocksrv_merchant, before, during)

    assert (now, fired_at_once, fired_going_back) == (MARCH, [], [])
    assert during["created"] == MARCH_TEXT
    assert statuses_in_freeze == statuses_after == ["requires_capture", "expired"]
    assert abs(mocksrv_merchant.now() - datetime.now(UTC)) < timedelta(seconds=DEADLINE)
    # The fixture fails the test if the server logged an error meanwhile.


# -- clocks set through the control plane keep their own time ------------------------------------


def test_a_merchant_clock_frozen_through_the_control_plane_ignores_freezegun(
    mocksrv_merchant: Merchant,
) -> None:
    stopped_at = mocksrv_merchant.freeze()
    with freeze_time(MARCH) as frozen:
        frozen.tick(timedelta(days=30))

        assert (mocksrv_merchant.now(), mocksrv_merchant.sync()) == (stopped_at, [])


def test_a_merchant_clock_advanced_through_the_control_plane_keeps_its_lead(
    mocksrv_merchant: Merchant,
) -> None:
    with freeze_time(MARCH) as frozen:
        mocksrv_merchant.advance(days=1)
        frozen.tick(3600)

        assert mocksrv_merchant.now() == MARCH + timedelta(days=1, hours=1)


# -- nothing hangs with the wall clock frozen ----------------------------------------------------------


def test_waiting_for_a_webhook_that_never_comes_fails_at_its_real_deadline(
    mocksrv_webhooks: WebhookEndpoint,
) -> None:
    with freeze_time(MARCH), real_deadline(DEADLINE), pytest.raises(AssertionError) as raised:
        mocksrv_webhooks.wait_for("payment_expired", timeout=0.2)

    url = mocksrv_webhooks.url
    assert str(raised.value) == f"no payment_expired arrived at {url} within 0.2 s; arrived: nothing"


def test_request_latencies_are_real_with_the_wall_clock_frozen(mocksrv_merchant: Merchant) -> None:
    with freeze_time(MARCH):
        pay(mocksrv_merchant)
        (entry,) = mocksrv_merchant.requests()

    assert entry["at"] == MARCH_TEXT
    assert 0 < entry["latency_ms"] < DEADLINE * 1000


def test_an_idle_connection_is_closed_on_real_time_with_the_wall_clock_frozen() -> None:
    with (
        MockServer(Settings(connection_timeout=1)) as server,
        freeze_time(MARCH),
        socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE) as connection,
    ):
        started = real_seconds()
        closed = connection.recv(1) == b""  # the server's end; a TimeoutError past the deadline
        waited = real_seconds() - started

    assert closed
    assert waited < DEADLINE


def test_idle_delivery_threads_end_with_the_wall_clock_frozen() -> None:
    with ExitStack() as stack, freeze_time(MARCH):
        receiver = stack.enter_context(WebhookReceiver())
        sandbox = create_sandbox(Settings())
        dispatcher = Dispatcher(sandbox, "http://127.0.0.1", idle=0.1)
        dispatcher.start()
        stack.callback(dispatcher.stop)
        endpoints = []
        for _ in range(3):
            credentials = sandbox.add_merchant(MerchantSeed())
            endpoint = receiver.endpoint(credentials.profile.payment_response_hash_key)
            endpoint.respond_with(200, delay=0.3, times=1)  # three deliveries in flight at once
            endpoints.append(endpoint)
            merchant_id = credentials.merchant.merchant_id
            sandbox.merchants.update_profile(
                merchant_id, credentials.profile.profile_id, {"webhook_url": endpoint.url}
            )
            sandbox.seed_payments(merchant_id, 1)
        for endpoint in endpoints:
            endpoint.wait_for("payment_succeeded", timeout=DEADLINE)
        grown = dispatcher.threads

        left = eventually(lambda: dispatcher.threads, lambda count: count == 1)

    assert grown >= 3
    assert left == 1


def test_a_server_started_and_stopped_inside_a_freeze_works_and_stops_promptly() -> None:
    with freeze_time(MARCH) as frozen:
        with MockServer(NO_TICKER) as server, Sandbox(server.url, ADMIN_KEY) as admin:
            with admin.create_merchant() as merchant:
                payment = pay(merchant, capture_method="manual")
                frozen.tick(WEEK_AND_A_SECOND)
                fired = server.sync()
                status = status_of(merchant, "payments", payment["payment_id"])
            stopping = real_seconds()
        stopped_in = real_seconds() - stopping

    assert (payment["created"], fired, status) == (MARCH_TEXT, 1, "expired")
    assert stopped_in < STOP_DEADLINE


def test_a_server_started_before_a_freeze_stops_inside_it_promptly() -> None:
    server = MockServer().start()
    try:
        with (
            Sandbox(server.url, ADMIN_KEY) as admin,
            admin.create_merchant() as merchant,
            freeze_time(MARCH) as frozen,
        ):
            pay(merchant)
            frozen.tick(timedelta(days=7))
            with real_deadline(STOP_DEADLINE):
                server.stop()
    finally:
        server.stop()


def test_a_server_started_inside_a_freeze_runs_on_real_time_after_it() -> None:
    with freeze_time(MARCH):
        server = MockServer().start()
    try:
        with Sandbox(server.url, ADMIN_KEY) as admin, admin.create_merchant() as merchant:
            payment = pay(merchant)
            now = merchant.now()
        assert payment["status"] == "succeeded"
        assert abs(now - datetime.now(UTC)) < timedelta(seconds=DEADLINE)
        with real_deadline(STOP_DEADLINE):
            server.stop()
    finally:
        server.stop()


# -- the pytest plugin, as a merchant backend's suite uses it -------------------------------------

CONSUMER = """
from datetime import timedelta

import pytest
from freezegun import freeze_time

BILLING = {
    "address": {"line1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105",
                "country": "US", "first_name": "Ada", "last_name": "Lovelace"},
    "phone": {"number": "4155550100", "country_code": "+1"},
}


def create_manual_capture_payment(merchant):
    card = {"card_number": "4242424242424242", "card_exp_month": "12", "card_exp_year": "2099",
            "card_cvc": "123"}
    body = {"amount": 1000, "currency": "USD", "profile_id": merchant.profile_id, "confirm": True,
            "capture_method": "manual", "payment_method": "card", "payment_method_type": "credit",
            "payment_method_data": {"card": card}, "billing": BILLING}
    response = merchant.session.post(merchant.url + "/payments", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def get_payment(merchant, payment):
    return merchant.session.get(f"{merchant.url}/payments/{payment['payment_id']}").json()


def test_authorization_expires(mocksrv_merchant):
    with freeze_time("2026-03-01 12:00:00", tick=True) as frozen:
        payment = create_manual_capture_payment(mocksrv_merchant)
        frozen.tick(timedelta(days=7, seconds=1))
        mocksrv_merchant.sync()
        assert get_payment(mocksrv_merchant, payment)["status"] == "expired"


@freeze_time("2026-03-01 12:00:00")
def test_a_decorated_test_gets_frozen_timestamps_and_real_deadlines(mocksrv_merchant, mocksrv_webhooks):
    payment = create_manual_capture_payment(mocksrv_merchant)
    assert payment["created"] == "2026-03-01T12:00:00.000Z"
    with pytest.raises(AssertionError, match="within 0.2 s"):
        mocksrv_webhooks.wait_for("payment_expired", timeout=0.2)
"""


def test_the_plugins_fixtures_follow_freezegun_in_a_consumers_suite(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MOCKSRV_URL", raising=False)
    monkeypatch.delenv("MOCKSRV_ADMIN_KEY", raising=False)
    pytester.makepyfile(test_consumer=CONSUMER)

    result = pytester.runpytest_subprocess("-p", "no:randomly", timeout=120)

    result.assert_outcomes(passed=2)
