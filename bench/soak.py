"""`make soak`: a bounded soak of `mocksrv serve` under mixed load, alone and beside held-open work.

    python bench/soak.py [--seconds 120] [--baseline-seconds 120] [--connections 16] ...

One `mocksrv serve` process on 127.0.0.1 (rate limit off). After a warm-up and a reset, wrk sends
the mixed load of bench/wrk/mixed.lua (creates, retrieves, lists, and now and then a checkout:
create, confirm, refund) over `--connections` keep-alive connections: first alone for
`--baseline-seconds`, then for `--seconds` while this is held open throughout:

- `--idle` TCP connections to the server that send nothing, each opened again if the server
  closes it (counted);
- `--polls` long-polls, `POST /__mock/webhooks/wait` with the admin key, spread over the merchants
  below, each sent again when answered; a 429 counts as refused and is sent again after a pause;
- `--hanging` merchants, made through the control plane, whose webhook receiver accepts and reads
  and never answers; they make a payment every `--hang-interval` seconds each, so that deliveries
  hang and the long-polls, which wait until a merchant's deliveries are attempted, stay open. They
  are made before the warm-up: a reset keeps merchants, so every sample holds the same ones.

Then the held load stops and the receivers close, so that the deliveries they held fail and the
long-polls waiting on them are answered. Once the server is back to the threads it ran after the
load alone (the work it held has ended; retries to the closed receivers, due a minute after each
failed attempt, may keep it from getting there), `POST /__mock/reset` empties the store, which
ends the retries too. Once the delivery threads have ended after it, the server's RSS is compared
with its RSS after the load alone and a reset: a leak shows as growth between the two. (Against
the RSS after the short warm-up it is higher: an allocator keeps some of a process's largest size
after its data is deleted; that figure is printed too.) Prints requests served, 5xx
(target 0), other non-2xx, p50/p99 of the mixed load alone and under the held load (target: p99 at
most 1.5x), and the RSS growth (target under 10%). Every socket has a timeout and every loop ends
with the run.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import http.client
import json
import os
import selectors
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import load
from harness import ADMIN, CREATE, free_port, hanging_receiver, mocksrv_command, rss_kib, server, table

from mocksrv.client import Merchant, Sandbox

HOST = "127.0.0.1"
P99_TARGET = 1.5  # p99 under the held load, at most this many times the p99 alone
RSS_TARGET = 0.10  # RSS growth after the soak and a reset, at most this share
REOPEN_DELAY = 0.1  # seconds before an idle connection the server closed is opened again
CONNECT_TIMEOUT = 5.0
REQUEST_TIMEOUT = 10.0  # seconds for any request but a long-poll
REFUSED_PAUSE = 1.0  # seconds before a refused long-poll is sent again
EARLY = 1.0  # a long-poll answered sooner than this did not hold; it is sent again after a pause
SETTLE = 2.0  # seconds between starting the held load and starting the mixed load beside it
# After the held load: how long, beyond a long-poll's timeout, the server may take to end the work
# it held (idle delivery threads end 5 s after their last delivery), and how often to look.
SETTLE_EXTRA = 15.0
SETTLE_POLL = 0.2


@dataclass
class Tally:
    """Counters shared by threads."""

    counts: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, n: int = 1) -> None:
        with self.lock:
            self.counts[name] += n

    def __getitem__(self, name: str) -> int:
        with self.lock:
            return self.counts[name]

    def matching(self, prefix: str) -> dict[str, int]:
        with self.lock:
            return {k[len(prefix) :]: v for k, v in sorted(self.counts.items()) if k.startswith(prefix)}


class IdleConnections:
    """`count` TCP connections to the server that never send a byte; one the server closes is re-opened.

    One thread holds them all with non-blocking sockets: a connect that takes longer than
    CONNECT_TIMEOUT counts as failed and is tried again.
    """

    def __init__(self, port: int, count: int) -> None:
        self.port = port
        self.count = count
        self.tally = Tally()
        self.open_at_end = 0
        self.most_open = 0
        self.fewest_open: int | None = None  # after the first SETTLE seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="idle-connections", daemon=True)

    def __enter__(self) -> IdleConnections:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        due: list[float] = [time.monotonic()] * self.count  # when each closed slot is opened again
        pending: dict[socket.socket, float] = {}  # connecting: socket -> deadline
        settled = time.monotonic() + SETTLE
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                opened = 0
                while due and due[0] <= now and opened < 50:
                    due.pop(0)
                    opened += 1
                    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    sock.setblocking(False)
                    code = sock.connect_ex((HOST, self.port))
                    if code not in (0, errno.EINPROGRESS):
                        sock.close()
                        self.tally.add("connect failures")
                        due.append(now + REOPEN_DELAY)
                        continue
                    pending[sock] = now + CONNECT_TIMEOUT
                    selector.register(sock, selectors.EVENT_WRITE)
                for key, _ in selector.select(timeout=0.1):
                    sock = key.fileobj
                    assert isinstance(sock, socket.socket)
                    if sock in pending:
                        del pending[sock]
                        selector.unregister(sock)
                        if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                            sock.close()
                            self.tally.add("connect failures")
                            due.append(time.monotonic() + REOPEN_DELAY)
                            continue
                        self.tally.add("opened")
                        selector.register(sock, selectors.EVENT_READ)
                        continue
                    try:
                        data = sock.recv(4096)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if data:
                        self.tally.add("answered with bytes")  # the server wrote before closing
                        continue
                    selector.unregister(sock)
                    sock.close()
                    self.tally.add("closed by the server")
                    due.append(time.monotonic() + REOPEN_DELAY)
                now = time.monotonic()
                for sock, deadline in list(pending.items()):
                    if deadline <= now:
                        del pending[sock]
                        selector.unregister(sock)
                        sock.close()
                        self.tally.add("connect timeouts")
                        due.append(now + REOPEN_DELAY)
                connected = len(selector.get_map()) - len(pending)
                self.most_open = max(self.most_open, connected)
                if now >= settled:
                    self.fewest_open = (
                        connected if self.fewest_open is None else min(self.fewest_open, connected)
                    )
            self.open_at_end = len(selector.get_map()) - len(pending)
        finally:
            for key in list(selector.get_map().values()):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                sock.close()
            selector.close()

    def __getitem__(self, name: str) -> int:
        return self.tally[name]


class LongPolls:
    """`count` long-polls on the given merchants, each sent again when answered, until the block ends."""

    def __init__(self, port: int, merchant_ids: list[str], count: int, timeout: float) -> None:
        self.port = port
        self.merchant_ids = merchant_ids
        self.timeout = timeout
        self.tally = Tally()
        self.held: list[float] = []  # seconds each answered long-poll was held
        self.waiting = 0  # long-polls sent and not yet answered
        self.waiting_at_end = 0
        self._stop = threading.Event()
        self._conns: list[http.client.HTTPConnection | None] = [None] * count
        self._threads = [
            threading.Thread(target=self._run, args=(index,), name=f"long-poll-{index}", daemon=True)
            for index in range(count)
        ]

    def __enter__(self) -> LongPolls:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        with self.tally.lock:
            self.waiting_at_end = self.waiting
        for conn in list(self._conns):  # a long-poll under way ends now, not at its timeout
            if conn is not None and conn.sock is not None:
                with contextlib.suppress(OSError):
                    conn.sock.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(timeout=5)

    def _run(self, index: int) -> None:
        merchant_id = self.merchant_ids[index % len(self.merchant_ids)]
        body = json.dumps({"merchant_id": merchant_id, "timeout": self.timeout})
        headers = {"api-key": ADMIN, "Content-Type": "application/json"}
        conn: http.client.HTTPConnection | None = None
        while not self._stop.is_set():
            if conn is None:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout + 15)
                self._conns[index] = conn
            started = time.monotonic()
            with self.tally.lock:
                self.waiting += 1
            try:
                conn.request("POST", "/__mock/webhooks/wait", body=body, headers=headers)
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as error:
                conn.close()
                conn = None
                if self._stop.is_set():
                    break
                self.tally.add(f"error:{type(error).__name__}")
                self._stop.wait(REFUSED_PAUSE)
                continue
            finally:
                with self.tally.lock:
                    self.waiting -= 1
            held = time.monotonic() - started
            if response.status == 200:
                self.tally.add("answered")
                with self.tally.lock:
                    self.held.append(held)
                if held < EARLY:
                    self.tally.add("answered early")
                    self._stop.wait(EARLY - held)
            elif response.status == 429:
                self.tally.add("refused")
                retry_after = response.getheader("Retry-After") or ""
                pause = float(retry_after) if retry_after.isdigit() else REFUSED_PAUSE
                self._stop.wait(min(max(pause, 0.1), 5.0))
            else:
                self.tally.add(f"status:{response.status}")
                self._stop.wait(REFUSED_PAUSE)
        if conn is not None:
            conn.close()


class HangingCreates:
    """The hanging merchants make a payment each every `interval` seconds, in turns, until the block ends."""

    def __init__(self, port: int, merchants: list[Merchant], interval: float) -> None:
        self.port = port
        self.merchants = merchants
        self.interval = interval
        self.tally = Tally()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hanging-creates", daemon=True)

    def __enter__(self) -> HangingCreates:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=REQUEST_TIMEOUT + 5)

    def _run(self) -> None:
        bodies = [
            json.dumps({**json.loads(CREATE), "profile_id": merchant.profile_id})
            for merchant in self.merchants
        ]
        conn = http.client.HTTPConnection(HOST, self.port, timeout=REQUEST_TIMEOUT)
        step = self.interval / len(self.merchants)
        turn = 0
        try:
            while not self._stop.wait(step if turn else 0):
                merchant = self.merchants[turn % len(self.merchants)]
                headers = {"api-key": merchant.secret_key, "Content-Type": "application/json"}
                try:
                    conn.request(
                        "POST", "/payments", body=bodies[turn % len(self.merchants)], headers=headers
                    )
                    response = conn.getresponse()
                    response.read()
                    self.tally.add(f"status:{response.status}")
                except (OSError, http.client.HTTPException) as error:
                    conn.close()
                    self.tally.add(f"error:{type(error).__name__}")
                turn += 1
        finally:
            conn.close()


def count_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def count_threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return -1


@dataclass
class Sample:
    """The server's resources at one moment."""

    rss_kib: int
    threads: int
    fds: int

    @classmethod
    def of(cls, pid: int) -> Sample:
        return cls(rss_kib(pid), count_threads(pid), count_fds(pid))


class Peak:
    """Samples the server every second in a thread of its own; keeps the largest RSS, threads and fds."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = Sample.of(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="peak", daemon=True)

    def __enter__(self) -> Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            try:
                now = Sample.of(self.pid)
            except OSError:
                return
            self.peak = Sample(
                max(self.peak.rss_kib, now.rss_kib),
                max(self.peak.threads, now.threads),
                max(self.peak.fds, now.fds),
            )


def mixed(url: str, seconds: int, connections: int, timeout: float) -> load.Run:
    return load.run(
        url, "mixed", seconds, connections=connections, args=[f"create={CREATE.decode()}"], timeout=timeout
    )


def reset(url: str, timeout: float) -> str | None:
    """POST /__mock/reset; None if it answered 200, else what went wrong."""
    try:
        with Sandbox(url, ADMIN, timeout=timeout) as sandbox:
            sandbox.reset_all()
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


def settle(pid: int, threads: int, timeout: float) -> float | None:
    """Wait until the server runs at most `threads` threads, looking every SETTLE_POLL s for at most
    `timeout` s; the seconds it took, or None if it did not settle in time."""
    started = time.monotonic()
    while count_threads(pid) > threads:
        if time.monotonic() - started > timeout:
            return None
        time.sleep(SETTLE_POLL)
    return time.monotonic() - started


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def describe(counts: dict[str, int]) -> str:
    return ", ".join(f"{name}: {n}" for name, n in counts.items()) or "none"


@dataclass
class Samples:
    """The server at each point the soak looks at it."""

    warm: Sample
    after_alone: Sample
    before_stop: Sample
    peak: Sample
    after: Sample


@dataclass
class Outcome:
    """Everything a soak measured."""

    args: argparse.Namespace
    alone: load.Run
    loaded: load.Run
    idle: IdleConnections
    polls: LongPolls
    creates: HangingCreates
    samples: Samples
    reset_problem: str | None
    settled: float | None  # seconds the server took to end the held work, None if it did not
    # Seconds after the reset until the delivery threads had ended, None if they did not: retries of
    # the deliveries to the closed receivers (the first a minute after each attempt) go on until the
    # reset deletes them.
    settled_after_reset: float | None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add = parser.add_argument
    add("--seconds", type=int, default=120, help="seconds of mixed load beside the held load (default 120)")
    add("--baseline-seconds", type=int, help="seconds of mixed load alone (default: --seconds)")
    add("--warm-up", type=int, default=5, help="seconds of mixed load before measuring (default 5)")
    add("--connections", type=int, default=16, help="wrk connections of the mixed load (default 16)")
    add("--idle", type=int, default=200, help="idle connections held (default 200)")
    add("--polls", type=int, default=20, help="long-polls held (default 20)")
    add("--poll-timeout", type=float, default=30, help="the timeout each long-poll asks for (default 30)")
    add("--hanging", type=int, default=10, help="merchants whose receiver never answers (default 10)")
    add("--hang-interval", type=float, default=2.0, help="seconds between payments of each (default 2)")
    add("--wrk-timeout", type=int, default=30, help="seconds before wrk counts a request as timed out")
    args = parser.parse_args()
    args.baseline_seconds = args.baseline_seconds or args.seconds
    if min(args.hanging, args.seconds, args.baseline_seconds, args.connections) < 1 or args.idle < 0:
        parser.error("--hanging, --seconds, --baseline-seconds and --connections must be at least 1")
    load.wrk_path()

    port = free_port()
    url = f"http://{HOST}:{port}"
    started = time.monotonic()
    print(
        f"soak of `mocksrv serve` on {url} (rate limit off): mixed load from wrk -t1 at "
        f"{args.connections} connections, {args.baseline_seconds} s alone, then {args.seconds} s beside "
        f"{args.idle} idle connections, {args.polls} long-polls and {args.hanging} merchants whose "
        "webhook receiver never answers",
        flush=True,
    )
    with (
        server(mocksrv_command(port), port, {"MOCKSRV_RATE_LIMIT": "0"}) as pid,
        contextlib.ExitStack() as receiver,
    ):
        # The hanging merchants are made first: a reset keeps merchants, so made during the held load
        # they would be state that the sample after the load alone lacks, not growth.
        hook_url = receiver.enter_context(hanging_receiver())
        with Sandbox(url, ADMIN, timeout=REQUEST_TIMEOUT) as sandbox:
            merchants = [sandbox.create_merchant(webhook_url=hook_url) for _ in range(args.hanging)]
        merchant_ids = [merchant.merchant_id for merchant in merchants]
        if args.warm_up > 0:
            mixed(url, args.warm_up, args.connections, args.wrk_timeout)
        problem = reset(url, REQUEST_TIMEOUT)
        if problem:
            raise SystemExit(f"reset after the warm-up failed: {problem}")
        warm = Sample.of(pid)
        alone = mixed(url, args.baseline_seconds, args.connections, args.wrk_timeout)
        problem = reset(url, REQUEST_TIMEOUT)
        if problem:
            raise SystemExit(f"reset after the load alone failed: {problem}")
        after_alone = Sample.of(pid)

        with Peak(pid) as peak:
            with (
                HangingCreates(port, merchants, args.hang_interval) as creates,
                IdleConnections(port, args.idle) as idle,
                LongPolls(port, merchant_ids, args.polls, args.poll_timeout) as polls,
            ):
                time.sleep(SETTLE)
                loaded = mixed(url, args.seconds, args.connections, args.wrk_timeout)
                before_stop = Sample.of(pid)
            for merchant in merchants:
                merchant.close()
            receiver.close()
            # The receivers closed: the deliveries they held fail, and the long-polls waiting on them
            # are answered. Once the server is back to its threads before the held load, it is idle.
            settled = settle(pid, after_alone.threads, args.poll_timeout + SETTLE_EXTRA)
            problem = reset(url, args.poll_timeout + REQUEST_TIMEOUT)
            settled_after_reset = settle(pid, after_alone.threads, SETTLE_EXTRA)
            after = Sample.of(pid)

    samples = Samples(warm, after_alone, before_stop, peak.peak, after)
    report(Outcome(args, alone, loaded, idle, polls, creates, samples, problem, settled, settled_after_reset))
    print(f"\nsoak took {time.monotonic() - started:.0f} s")


def report(outcome: Outcome) -> None:
    args, alone, loaded = outcome.args, outcome.alone, outcome.loaded
    idle, polls, creates = outcome.idle, outcome.polls, outcome.creates
    rows = []
    for name, run in (("mixed load alone", alone), ("beside the held load", loaded)):
        answered = run.count(100, 599)
        sent = sum(n for kind, n in run.counters.items() if kind != "checkouts")
        rows.append(
            [
                name,
                f"{run.seconds:.0f}",
                f"{sent:,}",
                f"{run.requests:,}",
                f"{run.rate:.0f}",
                f"{run.count(200, 299):,}",
                f"{run.count(500, 599):,}",
                f"{run.count(100, 199) + run.count(300, 499):,}",
                f"{run.errors:,}",
                f"{run.latency_ms(50):.1f}" if answered else "-",
                f"{run.latency_ms(99):.1f}" if answered else "-",
                f"{run.figures['latency_max_us'] / 1000:.0f}" if answered else "-",
            ]
        )
    header = ["wrk mixed load", "s", "sent", "answered", "req/s", "2xx", "5xx", "other", "socket err"]
    print("\n" + table([*header, "p50 ms", "p99 ms", "max ms"], rows))
    print(
        "  (`socket err`: wrk's connect, read and write errors and timeouts; a request still unanswered"
        " when wrk stops counts in `sent` only)"
    )
    for name, run in (("alone", alone), ("beside", loaded)):
        sent = {k: v for k, v in run.counters.items() if k != "checkouts"}
        statuses = describe({str(status): n for status, n in sorted(run.statuses.items())})
        print(
            f"  {name}: sent {describe(sent)}; checkouts completed {run.counters.get('checkouts', 0)}; "
            f"answers {statuses}"
        )
    if loaded.count(100, 599) and alone.count(100, 599):
        ratio = loaded.latency_ms(99) / alone.latency_ms(99)
        print(
            f"p99 beside the held load / alone: x{ratio:.2f} "
            f"(target at most {P99_TARGET}: {verdict(ratio <= P99_TARGET)})"
        )
    else:
        print(
            f"p99 beside the held load / alone: no answers to compare (target at most {P99_TARGET}: MISSED)"
        )

    print("\nheld load")
    print(
        f"  idle connections: {args.idle} wanted; opened {idle['opened']:,}, closed by the server "
        f"{idle['closed by the server']:,}, connect failures {idle['connect failures']:,}, connect timeouts "
        f"{idle['connect timeouts']:,}; open at most {idle.most_open}, at least {idle.fewest_open} "
        f"(after the first {SETTLE:g} s), at the end {idle.open_at_end}; reads that returned bytes "
        f"{idle['answered with bytes']:,}"
    )
    held = sorted(polls.held)
    middle = f"{held[len(held) // 2]:.1f} s" if held else "-"
    other_polls = {f"status {k}": v for k, v in polls.tally.matching("status:").items()}
    other_polls |= polls.tally.matching("error:")
    print(
        f"  long-polls: {args.polls} on {args.hanging} merchants, timeout {args.poll_timeout:g} s; answered "
        f"{polls.tally['answered']:,} (early, under {EARLY:g} s: {polls.tally['answered early']:,}; "
        f"median hold {middle}), waiting at the end {polls.waiting_at_end}, refused (429) "
        f"{polls.tally['refused']:,}, other: {describe(other_polls)}"
    )
    print(
        f"  hanging merchants: {args.hanging}, a payment each every {args.hang_interval:g} s: "
        f"answers {describe(creates.tally.matching('status:'))}; "
        f"errors {describe(creates.tally.matching('error:'))}"
    )

    poll_statuses = polls.tally.matching("status:")
    create_statuses = creates.tally.matching("status:")
    served = alone.requests + loaded.requests + polls.tally["answered"] + polls.tally["refused"]
    served += sum(poll_statuses.values()) + sum(create_statuses.values())
    five_xx = alone.count(500, 599) + loaded.count(500, 599)
    five_xx += sum(n for status, n in (poll_statuses | create_statuses).items() if status.startswith("5"))
    unexpected = sum(run.count(100, 199) + run.count(300, 499) for run in (alone, loaded))
    unexpected += sum(n for status, n in poll_statuses.items() if not status.startswith("5"))
    unexpected += sum(n for status, n in create_statuses.items() if not status.startswith(("2", "5")))
    print(
        f"\nrequests answered in all: {served:,} "
        "(the mixed load, long-polls, the hanging merchants' payments)"
    )
    print(f"5xx: {five_xx} (target 0: {verdict(five_xx == 0)})")
    print(f"non-2xx other than 5xx and a long-poll's 429: {unexpected}")

    rows = [
        [name, f"{sample.rss_kib / 1024:.1f}", str(sample.threads), str(sample.fds)]
        for name, sample in (
            ("after the warm-up and a reset", outcome.samples.warm),
            ("after the load alone and a reset", outcome.samples.after_alone),
            ("at the end of the held load", outcome.samples.before_stop),
            ("largest while held", outcome.samples.peak),
            ("after the soak and a reset", outcome.samples.after),
        )
    ]
    print("\n" + table(["server", "RSS MiB", "threads", "open fds"], rows))
    if outcome.settled is None:
        print("  the server still ran more threads than after the load alone when the reset came")
    else:
        print(
            f"  the server ended the held work {outcome.settled:.1f} s after the receivers closed "
            "(back to its threads after the load alone); then the reset"
        )
    if outcome.settled_after_reset is None:
        print("  after the reset, the server still ran more threads than after the load alone")
    else:
        print(f"  after the reset, the server was back to its threads in {outcome.settled_after_reset:.1f} s")
    samples = outcome.samples
    growth = (samples.after.rss_kib - samples.after_alone.rss_kib) / samples.after_alone.rss_kib
    high_water = (samples.after.rss_kib - samples.warm.rss_kib) / samples.warm.rss_kib
    if outcome.reset_problem:
        print(
            f"RSS growth: {growth:+.1%}, not comparable: the reset after the soak failed: "
            f"{outcome.reset_problem}"
        )
    else:
        print(
            f"RSS growth after the soak and a reset, against after the load alone and a reset: {growth:+.1%} "
            f"(target under {RSS_TARGET:.0%}: {verdict(growth < RSS_TARGET)}); against after the "
            f"warm-up: {high_water:+.1%} (the allocator's high-water mark)"
        )


if __name__ == "__main__":
    main()
