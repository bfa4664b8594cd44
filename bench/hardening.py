"""A new client's latency while others hold the server: idle connections, slow headers, long-polls.

Each figure is a new client's sequential one-step creates against `mocksrv serve`: p50 and p99 with
nothing held, then while the load named is held open. Targets: with 500 idle or slow-header
connections, every request served and p99 under 50 ms; with 64 long-polls open, p99 within 1.5x of
none. Bounded: every loop has a count and every wait a deadline.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager

from harness import ADMIN, CREATE, HEADERS, RATE_OFF, free_port, hanging_receiver, mocksrv_command, server

HOST = "127.0.0.1"
DEADLINE = 20.0  # seconds any held load may take to be in place


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def sequential_creates(port: int, count: int) -> tuple[list[float], int]:
    """Latencies in ms of `count` creates on one keep-alive connection, and how many failed."""
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    samples: list[float] = []
    failed = 0
    try:
        for _ in range(count):
            began = time.perf_counter()
            try:
                conn.request("POST", "/payments", CREATE, HEADERS)
                response = conn.getresponse()
                response.read()
                failed += response.status != 200
            except (OSError, http.client.HTTPException):
                failed += 1
                conn.close()
                conn = http.client.HTTPConnection(HOST, port, timeout=10)
            samples.append((time.perf_counter() - began) * 1000)
    finally:
        conn.close()
    return samples, failed


@contextmanager
def idle_connections(port: int, count: int) -> Iterator[None]:
    with ExitStack() as stack:
        for _ in range(count):
            stack.enter_context(socket.create_connection((HOST, port), timeout=DEADLINE))
        yield


@contextmanager
def slow_header_connections(port: int, count: int, interval: float = 1.0) -> Iterator[None]:
    """`count` connections that send a header line every `interval` seconds and never finish;
    one the server closes is opened again."""
    stopped = threading.Event()

    def open_one() -> socket.socket:
        sock = socket.create_connection((HOST, port), timeout=DEADLINE)
        sock.sendall(b"POST /payments HTTP/1.1\r\nHost: bench\r\n")
        return sock

    socks = [open_one() for _ in range(count)]

    def trickle() -> None:
        for _ in range(10_000):
            if stopped.wait(interval):
                return
            for index, sock in enumerate(socks):
                try:
                    sock.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    sock.close()
                    socks[index] = open_one()

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stopped.set()
        thread.join(DEADLINE)
        for sock in socks:
            sock.close()


def control(
    port: int, path: str, body: dict[str, object], timeout: float = 10
) -> tuple[int, dict[str, object]]:
    """POST to the control plane with the admin key: the status and the JSON answer."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(
            "POST", f"/__mock{path}", json.dumps(body), {"api-key": ADMIN, "Content-Type": "application/json"}
        )
        response = conn.getresponse()
        answer: dict[str, object] = json.loads(response.read())
        return response.status, answer
    finally:
        conn.close()


@contextmanager
def long_polls(port: int, merchants: int, per_merchant: int) -> Iterator[None]:
    """`merchants * per_merchant` waits held open on merchants whose deliveries never finish; each
    merchant's share is its whole allowance, so a further wait of its own is refused once all are open."""
    with hanging_receiver() as url, ThreadPoolExecutor(merchants * per_merchant) as pool:
        ids = []
        for _ in range(merchants):
            merchant_id = str(control(port, "/merchants", {"webhook_url": url})[1]["merchant_id"])
            control(port, "/seed", {"merchant_id": merchant_id, "payments": 1})
            ids.append(merchant_id)
        for merchant_id in ids:
            for _ in range(per_merchant):
                pool.submit(control, port, "/webhooks/wait", {"merchant_id": merchant_id, "timeout": 60}, 70)
        deadline = time.monotonic() + DEADLINE
        for merchant_id in ids:
            probe = {"merchant_id": merchant_id, "timeout": 0}
            while control(port, "/webhooks/wait", probe)[0] != 429:
                if time.monotonic() > deadline:
                    raise RuntimeError("the long-polls did not open in time")
                time.sleep(0.05)
        yield  # the server stops after this block, which answers the waits


def figure(label: str, port: int, count: int, baseline: list[float] | None) -> list[float]:
    samples, failed = sequential_creates(port, count)
    p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
    ratio = f"  p99 {p99 / percentile(baseline, 0.99):.2f}x of none" if baseline else ""
    print(f"  {label:<34} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  failed {failed}/{count}{ratio}")
    return samples


def report(count: int, connections: int, waits: int) -> None:
    print("\na new client's one-step creates while others hold `mocksrv serve` (ms)")
    per_merchant = 16
    for label, hold in [
        (f"{connections} idle connections", lambda port: idle_connections(port, connections)),
        (f"{connections} slow-header connections", lambda port: slow_header_connections(port, connections)),
        (
            f"{waits} long-polls open",
            lambda port: long_polls(port, max(1, waits // per_merchant), per_merchant),
        ),
    ]:
        port = free_port()
        with server(mocksrv_command(port), port, env={**RATE_OFF, "MOCKSRV_LOG_LEVEL": "warning"}):
            sequential_creates(port, 100)  # warm-up
            baseline = figure("nothing held", port, count, None)
            with hold(port):
                figure(label, port, count, baseline)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=1000, help="sequential creates per figure")
    parser.add_argument("--connections", type=int, default=500, help="idle or slow-header connections held")
    parser.add_argument("--waits", type=int, default=64, help="long-polls held open (16 per merchant)")
    args = parser.parse_args()
    report(args.count, args.connections, args.waits)


if __name__ == "__main__":
    main()
