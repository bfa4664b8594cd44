"""Webhook fairness: how late a healthy merchant's webhooks arrive while other receivers hang.

    python bench/webhook_fairness.py [--dead 50] [--events 100]

An in-process MockServer (webhook timeout 5 s, the default) delivers to two receivers on
127.0.0.1: a healthy one (mocksrv.receiver.WebhookReceiver), and a dead one that accepts every
connection, reads what arrives and never answers. One merchant's webhooks go to the healthy
receiver. It makes `events` payments one after another, each waited for at the receiver: first
with no other merchant, then after `dead` merchants whose webhooks go to the dead receiver have
each made payments, so that all their deliveries hang while the healthy ones are measured.

The lag of one webhook is from the start of the API request that made the change to the
webhook's arrival. Prints p50 and p99 of both runs, in milliseconds, and how long the server
took to stop with the dead receivers' deliveries still hung. Each webhook is waited for at most
MISSED_AFTER seconds and each run starts no measurement after BUDGET seconds, so the bench ends
inside a minute however late webhooks are (given a server that stops promptly); a webhook that
never came counts as missed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from mocksrv import MockServer, Settings
from mocksrv.client import Merchant, Sandbox
from mocksrv.domain.sandbox import SEED_PAYMENT
from mocksrv.receiver import DeadReceiver, WebhookEndpoint, WebhookReceiver

LOCALHOST = "127.0.0.1"
MISSED_AFTER = 5.0  # seconds a healthy webhook is waited for before it counts as missed
BUDGET = 15.0  # seconds each run may spend starting new measurements
HUNG_PER_MERCHANT = 3  # payments of each dead merchant: at 5 s an attempt, they hang for 15 s
CONNECTED_WITHIN = 5.0  # seconds for the dead receiver to see every dead merchant's connection


@contextmanager
def dead_receiver() -> Iterator[DeadReceiver]:
    receiver = DeadReceiver()
    try:
        yield receiver
    finally:
        receiver.close()


def pay(merchant: Merchant) -> str:
    body = {**SEED_PAYMENT, "amount": 1000, "profile_id": merchant.profile_id}
    response = merchant.session.post(f"{merchant.url}/payments", json=body)
    response.raise_for_status()
    payment_id: str = response.json()["payment_id"]
    return payment_id


def lag_ms(merchant: Merchant, endpoint: WebhookEndpoint) -> float | None:
    """Make one payment; the time until its webhook arrived, in ms (None: it did not arrive in time)."""
    started = time.perf_counter()
    payment_id = pay(merchant)
    try:
        endpoint.wait_for("payment_succeeded", object_id=payment_id, timeout=MISSED_AFTER)
    except AssertionError:
        return None
    return (time.perf_counter() - started) * 1000


def lags(
    merchant: Merchant, endpoint: WebhookEndpoint, events: int, budget: float
) -> tuple[list[float], int]:
    """The lags of up to `events` webhooks made one after another within `budget` s; and how many missed."""
    samples: list[float] = []
    missed = 0
    deadline = time.monotonic() + budget
    for _ in range(events):
        if time.monotonic() >= deadline:
            break
        lag = lag_ms(merchant, endpoint)
        if lag is None:
            missed += 1
        else:
            samples.append(lag)
    return samples, missed


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(samples: list[float], missed: int) -> dict[str, Any]:
    return {
        "p50_ms": round(statistics.median(samples), 1) if samples else float("nan"),
        "p99_ms": round(percentile(samples, 0.99), 1),
        "count": len(samples),
        "missed": missed,
    }


def measure(dead: int = 50, events: int = 100) -> dict[str, Any]:
    """Lag of a healthy merchant's webhooks with no other merchant, then with `dead` receivers hanging."""
    with ExitStack() as stack:
        healthy_receiver = stack.enter_context(WebhookReceiver())
        sink = stack.enter_context(dead_receiver())
        server = stack.enter_context(MockServer(Settings()))
        sandbox = stack.enter_context(Sandbox(server.url, server.settings.admin_key))
        merchant = stack.enter_context(sandbox.create_merchant())
        endpoint = healthy_receiver.endpoint(merchant.signing_key)
        merchant.set_webhook_url(endpoint.url)
        lag_ms(merchant, endpoint)  # the first delivery opens the dispatcher's HTTP machinery

        alone = lags(merchant, endpoint, events, BUDGET)

        hung = [stack.enter_context(sandbox.create_merchant(webhook_url=sink.url)) for _ in range(dead)]
        for _ in range(HUNG_PER_MERCHANT):
            for other in hung:
                pay(other)
        connected = sink.wait_for_connections(dead, CONNECTED_WITHIN)
        loaded = lags(merchant, endpoint, events, BUDGET)

        stopping = time.perf_counter()
        stack.close()
        stop_ms = (time.perf_counter() - stopping) * 1000
    return {
        "dead": dead,
        "dead_connected": connected,
        "events": events,
        "alone": summary(*alone),
        "with_dead": summary(*loaded),
        "stop_ms": round(stop_ms, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dead", type=int, default=50, help="merchants whose receivers never answer")
    parser.add_argument("--events", type=int, default=100, help="healthy webhooks measured in each run")
    args = parser.parse_args()
    report(args.dead, args.events)


def report(dead: int, events: int) -> None:
    started = time.monotonic()
    result = measure(dead, events)
    alone, loaded = result["alone"], result["with_dead"]
    print(f"\nhealthy-merchant webhook lag, request start to arrival, {result['events']} events each (ms)")
    print(f"  no dead receivers     p50 {alone['p50_ms']:8.1f}   p99 {alone['p99_ms']:8.1f}")
    print(
        f"  {result['dead']:3d} dead receivers   p50 {loaded['p50_ms']:8.1f}   p99 {loaded['p99_ms']:8.1f}"
        f"   ({loaded['count']} arrived, {loaded['missed']} missed after {MISSED_AFTER:.0f} s;"
        f" {result['dead_connected']} dead connections open)"
    )
    print(f"  server stop with deliveries hung: {result['stop_ms']:.0f} ms")
    print(f"  run took {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
