"""Throughput under wrk: the serving engines compared, and the cost of the access log.

Every subject is a server process of its own; all of a comparison's servers run throughout and
take turns, a run of `seconds` each, round after round, so that whatever else the machine does in
a moment weighs on every subject of a round alike. Medians over the rounds are reported, and for
ratios the median of the per-round ratios.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial

import load
from harness import CREATE, RATE_OFF, free_port, mocksrv_command, serve_command, server, table

CONNECTIONS = 8
TARGET_RATIO = 0.7  # mocksrv create throughput at least this share of the bare app's, on the same engine
WARM_UP = 1  # seconds of load before the measured rounds


@dataclass
class Subject:
    """One server under test and the runs measured on it."""

    name: str
    command: Callable[[int], list[str]]
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    pid: int = 0
    creates: list[load.Run] = field(default_factory=list)
    flows: list[load.Run] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def create(self, seconds: float) -> load.Run:
        run = load.run(
            self.url,
            "create",
            seconds,
            connections=CONNECTIONS,
            args=[f"create={CREATE.decode()}"],
            server_pid=self.pid,
        )
        if run.count(200, 299) != run.requests or run.errors:
            raise RuntimeError(f"{self.name}: not every create answered 200: {run.statuses}, {run.figures}")
        return run

    def checkout(self, seconds: float) -> load.Run:
        run = load.run(self.url, "checkout", seconds, connections=CONNECTIONS, server_pid=self.pid)
        if run.count(200, 299) != run.requests or run.errors:
            raise RuntimeError(f"{self.name}: not every checkout step answered 200: {run.statuses}")
        return run


@contextmanager
def running(subjects: list[Subject]) -> Iterator[None]:
    """Every subject's server, up until the block ends (all stopped, also on error)."""
    with ExitStack() as stack:
        for subject in subjects:
            subject.port = free_port()
            subject.pid = stack.enter_context(
                server(subject.command(subject.port), subject.port, subject.env)
            )
        yield


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def median_rate(runs: list[load.Run], counter: str | None = None) -> float:
    return median([run.per_second(counter) if counter else run.rate for run in runs])


def median_cpu(runs: list[load.Run], counter: str | None = None) -> float:
    """Median server CPU µs per request (or per `counter` event)."""
    values = []
    for run in runs:
        if run.cpu is not None:
            count = run.counters.get(counter, 0) if counter else run.requests
            if count:
                values.append(1e6 * run.cpu / count)
    return median(values)


def engines(names: list[str], seconds: float, rounds: int) -> None:
    """mocksrv and the bare app on each engine: create req/s, their ratio, checkout flows/s, CPU."""
    pairs = [
        (
            Subject(f"mocksrv on {engine}", partial(serve_command, "mocksrv", engine), RATE_OFF),
            Subject(f"bare Flask on {engine}", partial(serve_command, "bare", engine)),
        )
        for engine in names
    ]
    with running([subject for pair in pairs for subject in pair]):
        for full, bare in pairs:
            full.create(WARM_UP)
            bare.create(WARM_UP)
            full.checkout(WARM_UP)
        for number in range(rounds):
            for full, bare in pairs:
                # The order within a pair alternates from round to round.
                first, second = (full, bare) if number % 2 == 0 else (bare, full)
                first.creates.append(first.create(seconds))
                second.creates.append(second.create(seconds))
                full.flows.append(full.checkout(seconds))

    print(
        f"\nthroughput under wrk -t1, {CONNECTIONS} keep-alive connections, {rounds} rounds of {seconds:g} s"
        " with the subjects in turns; medians over the rounds"
    )
    rows = []
    for (full, bare), engine in zip(pairs, names, strict=True):
        ratios = [a.rate / b.rate for a, b in zip(full.creates, bare.creates, strict=True)]
        ratio = median(ratios)
        rows.append(
            [
                engine,
                f"{median_rate(full.creates):.0f}",
                f"{median_rate(bare.creates):.0f}",
                f"{ratio:.2f}",
                f"{min(ratios):.2f}-{max(ratios):.2f}",
                "met" if ratio >= TARGET_RATIO else "MISSED",
                f"{median_rate(full.flows, 'flows'):.0f}",
                f"{median_cpu(full.creates):.0f}",
                f"{median_cpu(bare.creates):.0f}",
                f"{median_cpu(full.flows, 'flows'):.0f}",
            ]
        )
    header = [
        "engine",
        "mocksrv create/s",
        "bare Flask req/s",
        "ratio",
        "range",
        f">= {TARGET_RATIO}",
        "checkout flows/s",
        "CPU µs/create",
        "bare CPU µs/req",
        "CPU µs/flow",
    ]
    print(table(header, rows))
    print("  per round, req/s of mocksrv create / bare Flask (ratio):")
    rows = []
    for (full, bare), engine in zip(pairs, names, strict=True):
        pairs_of_runs = zip(full.creates, bare.creates, strict=True)
        rows.append(
            [engine, *(f"{a.rate:.0f} / {b.rate:.0f} ({a.rate / b.rate:.2f})" for a, b in pairs_of_runs)]
        )
    print(table(["engine", *(f"round {n + 1}" for n in range(rounds))], rows, indent="    "))
    print(
        "  a checkout flow: create (confirm false), confirm with a card, retrieve, refund: 4 requests."
        "\n  CPU: the server process's user + system time over a run, per request or per flow."
    )


def access_log(seconds: float, rounds: int) -> None:
    """`mocksrv serve` create throughput with the access log on (info, the default) and off (warning)."""
    on_off(
        "access log",
        {"MOCKSRV_LOG_LEVEL": "warning"},
        ("on (info, the default)", "off (warning)"),
        seconds,
        rounds,
    )


def journal(seconds: float, rounds: int) -> None:
    """`mocksrv serve` create throughput with the request journal on (the default) and off (size 0)."""
    on_off(
        "request journal",
        {"MOCKSRV_JOURNAL_SIZE": "0"},
        ("on (1,000, the default)", "off (0)"),
        seconds,
        rounds,
    )


def on_off(what: str, off_env: dict[str, str], labels: tuple[str, str], seconds: float, rounds: int) -> None:
    """Create throughput of `mocksrv serve` as it is and with `off_env`, in turns within one run."""
    on = Subject(f"{what} on", mocksrv_command, RATE_OFF)
    off = Subject(f"{what} off", on.command, {**RATE_OFF, **off_env})
    with running([on, off]):
        on.create(WARM_UP)
        off.create(WARM_UP)
        for number in range(rounds):
            first, second = (on, off) if number % 2 == 0 else (off, on)
            first.creates.append(first.create(seconds))
            second.creates.append(second.create(seconds))

    ratios = [a.rate / b.rate for a, b in zip(on.creates, off.creates, strict=True)]
    print(f"\n{what} of `mocksrv serve`: create under wrk, {rounds} rounds of {seconds:g} s in turns")
    rows = [
        [
            labels[0],
            f"{median_rate(on.creates):.0f}",
            f"{median(ratios):.2f}",
            f"{min(ratios):.2f}-{max(ratios):.2f}",
            f"{median_cpu(on.creates):.0f}",
        ],
        [labels[1], f"{median_rate(off.creates):.0f}", "", "", f"{median_cpu(off.creates):.0f}"],
    ]
    print(table([what, "create/s", "on / off", "range", "CPU µs/create"], rows))


def allocator(seconds: float, rounds: int) -> None:
    """`mocksrv serve` create throughput on the C allocator (the default) and on CPython's own."""
    on_off(
        "C allocator",
        {"PYTHONMALLOC": "pymalloc"},
        ("on (malloc, the default)", "off (pymalloc)"),
        seconds,
        rounds,
    )


def threads(seconds: float, rounds: int) -> None:
    """`mocksrv serve` create throughput with its 4 request threads (the default) and with one."""
    on_off(
        "4 request threads",
        {"MOCKSRV_THREADS": "1"},
        ("4 threads (the default)", "1 thread (--threads 1)"),
        seconds,
        rounds,
    )
