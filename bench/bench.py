"""`make bench`: latency, throughput and memory of real mocksrv servers, bounded in time.

Prints, in this order: what a test suite pays for `MockServer` start and stop, a fresh merchant,
and `mocksrv serve` from exec to first answer; sequential p50/p99 of one-step create, retrieve
and list on an empty server and on one holding 100,000 payments, with the server's RSS; create
latency with a webhook receiver that never answers; throughput under wrk (8 keep-alive
connections) of the mocksrv app next to a bare Flask app on two serving engines (waitress as
`mocksrv serve` runs it, gunicorn gthread with one process): create req/s, their ratio, checkout
flows/s and server CPU per request; `mocksrv serve` create throughput with the access log, the
request journal and the C allocator each on and off, and with 4 request threads against one; a
new client's latency while 500 idle or slow-header connections or 64 long-polls are held
(hardening.py); last, a healthy merchant's webhook lag beside 50 receivers that never answer
(webhook_fairness.py); writing and loading the state file (`--state`) of a sandbox of 100,000
payments; and the time to answer a daily series of payment metrics over those 100,000
(`analytics`). Compared figures are measured in turns.
`--quick` runs a short version of everything; `--sections` picks parts; `--server-cpus` keeps the
servers to the CPUs named and wrk to the others.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import hardening
import harness
import load
import requests
import throughput
import webhook_fairness
from harness import (
    CREATE,
    HEADERS,
    HERE,
    KEY,
    LIST,
    RATE_OFF,
    free_port,
    hanging_receiver,
    mocksrv_command,
    rss_kib,
    server,
)
from serve_engine import ENGINES

from mocksrv import MockServer
from mocksrv.client import Sandbox

SEEDED = 100_000
SECTIONS = (
    "fixtures",
    "latency",
    "engines",
    "access-log",
    "journal",
    "allocator",
    "threads",
    "held",
    "webhooks",
    "state-file",
    "analytics",
)
FULL = {"count": 1000, "seeded": SEEDED, "seconds": 3, "rounds": 5, "fixture_runs": 20}
QUICK = {"count": 200, "seeded": 10_000, "seconds": 2, "rounds": 2, "fixture_runs": 5}


def request(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None = None) -> dict:
    conn.request(method, path, body=body, headers=HEADERS)
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data)


def timed(call: Callable[[], object], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


Latencies = dict[str, tuple[float, float]]


def latencies(ports: list[int], count: int, blocks: int = 5) -> list[Latencies]:
    """Sequential p50 and p99 of create, retrieve and list on each server, one connection each.

    The servers take turns, a block of requests at a time, so that a slower moment of the machine
    weighs on every server's figures alike.
    """
    conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=10) for port in ports]
    payment_ids = [request(conn, "POST", "/payments", CREATE)["payment_id"] for conn in conns]
    calls: list[dict[str, Callable[[], object]]] = [
        {
            "create": lambda conn=conn: request(conn, "POST", "/payments", CREATE),
            "retrieve": lambda conn=conn, payment_id=payment_id: request(
                conn, "GET", f"/payments/{payment_id}"
            ),
            "list": lambda conn=conn: request(conn, "POST", "/payments/list", LIST),
        }
        for conn, payment_id in zip(conns, payment_ids, strict=True)
    ]
    results: list[Latencies] = [{} for _ in ports]
    for name in calls[0]:
        samples: list[list[float]] = [[] for _ in ports]
        for each in calls:
            timed(each[name], count // 2)  # warm up
        for _ in range(blocks):
            for each, taken in zip(calls, samples, strict=True):
                taken.extend(timed(each[name], count // blocks))
        for result, taken in zip(results, samples, strict=True):
            result[name] = (statistics.median(taken), percentile(taken, 0.99))
    for conn in conns:
        conn.close()
    return results


def seed(port: int, count: int) -> None:
    with Sandbox(f"http://127.0.0.1:{port}", timeout=600) as sandbox, sandbox.default_merchant() as default:
        default.seed(count)


def fixture_costs(runs: int) -> None:
    """What a test suite pays: MockServer start and stop, a fresh merchant, `mocksrv serve` to first 200."""
    starts, stops = [], []
    for _ in range(runs):
        started = time.perf_counter()
        embedded = MockServer().start()
        running = time.perf_counter()
        embedded.stop()
        starts.append(1000 * (running - started))
        stops.append(1000 * (time.perf_counter() - running))
    merchants = []
    with MockServer() as embedded, Sandbox(embedded.url) as sandbox:
        for _ in range(runs * 10):
            started = time.perf_counter()
            merchant = sandbox.create_merchant()  # what the mocksrv_merchant fixture does around a test
            sandbox.delete_merchant(merchant.merchant_id)
            merchant.close()
            merchants.append(1000 * (time.perf_counter() - started))
    with installed_mocksrv() as command:
        firsts = [first_answer(command) for _ in range(max(5, runs // 2))]

    print("what a test suite pays (ms)                                p50      p90   target for p50")
    for name, samples, target in (
        (f"MockServer start, {runs} runs", starts, None),
        ("MockServer stop", stops, None),
        ("MockServer start + stop", [a + b for a, b in zip(starts, stops, strict=True)], 100),
        (f"a fresh merchant, {len(merchants)} of them", merchants, 20),
        (f"installed `mocksrv serve` to first 200, {len(firsts)} starts", firsts, 500),
    ):
        p50 = percentile(samples, 0.5)
        verdict = "" if target is None else f"at most {target}: {'met' if p50 <= target else 'MISSED'}"
        print(f"  {name:<56} {p50:8.1f} {percentile(samples, 0.9):8.1f}   {verdict}".rstrip())


@contextmanager
def installed_mocksrv() -> Iterator[Path]:
    """The `mocksrv` command of a wheel built from this checkout, installed in a throwaway virtualenv
    (as pip installs it: compiled to bytecode)."""
    pip = [sys.executable, "-m", "pip", "-qq", "--disable-pip-version-check"]
    with tempfile.TemporaryDirectory() as root:
        # The sdist, then the wheel built from it in a directory of its own: nothing lands in build/.
        build = [sys.executable, "-m", "build", "--outdir", root, str(HERE.parent)]
        subprocess.run(build, check=True, capture_output=True)
        [wheel] = Path(root).glob("mocksrv-*.whl")
        venv = Path(root) / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        subprocess.run([*pip, "--python", str(venv / "bin" / "python"), "install", str(wheel)], check=True)
        yield venv / "bin" / "mocksrv"


def first_answer(mocksrv: Path) -> float:
    """Milliseconds from starting `mocksrv serve` to its first 200 on /health."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/health"
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(mocksrv), "serve", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        with requests.Session() as session:
            for _ in range(2000):  # at most 20 s, at 10 ms a try
                try:
                    if session.get(url, headers={"api-key": KEY}, timeout=1).status_code == 200:
                        return 1000 * (time.perf_counter() - started)
                except requests.ConnectionError:
                    pass
                if process.poll() is not None:
                    break
                time.sleep(0.01)
        raise RuntimeError("mocksrv serve did not answer")
    finally:
        process.terminate()
        process.wait(timeout=10)


def hanging_receiver_latency(count: int) -> tuple[float, float]:
    """Create p50 with no webhook receiver, and with one that never answers, measured in turns."""
    quiet_port, hanging_port = free_port(), free_port()
    with (
        hanging_receiver() as url,
        server(mocksrv_command(quiet_port), quiet_port, RATE_OFF),
        server(mocksrv_command(hanging_port), hanging_port, {**RATE_OFF, "MOCKSRV_WEBHOOK_URL": url}),
    ):
        quiet, hanging = latencies([quiet_port, hanging_port], count)
    return quiet["create"][0], hanging["create"][0]


def scale(count: int, seeded: int) -> None:
    """Sequential latencies of an empty server and of one holding `seeded` payments, sampled in turns."""
    empty_port, full_port = free_port(), free_port()
    with (
        server(mocksrv_command(empty_port), empty_port, RATE_OFF),
        server(mocksrv_command(full_port), full_port, RATE_OFF) as pid,
    ):
        rss_before = rss_kib(pid)
        started = time.perf_counter()
        seed(full_port, seeded)
        seeding = time.perf_counter() - started
        rss_after = rss_kib(pid)
        empty, full = latencies([empty_port, full_port], count)
    print("\nsequential latency, empty store (ms)      p50      p99")
    for name, (p50, p99) in empty.items():
        print(f"  {name:<39} {p50:8.2f} {p99:8.2f}")
    print(f"sequential latency, {seeded:,} stored (ms)  p50      p99   x empty p50")
    for name, (p50, p99) in full.items():
        print(f"  {name:<39} {p50:8.2f} {p99:8.2f}   {p50 / empty[name][0]:5.2f}")
    per_payment = (rss_after - rss_before) * 1024 / seeded
    print(f"seeding {seeded:,} payments took {seeding:.1f} s")
    print(
        f"server RSS: {rss_before / 1024:.1f} MiB empty, {rss_after / 1024:.1f} MiB with "
        f"{seeded:,} payments = {per_payment:,.0f} bytes per payment"
    )
    quiet, hanging = hanging_receiver_latency(count)
    print(
        f"create p50 with no webhook receiver {quiet:.2f} ms, with one that never answers "
        f"{hanging:.2f} ms: x{hanging / quiet:.2f}"
    )


def state_file(seeded: int) -> None:
    """Seconds to write the state file of a sandbox holding `seeded` payments, its size, and
    seconds to load it into a fresh sandbox (in this process: one write and one load)."""
    from mocksrv.app import create_sandbox
    from mocksrv.serving.statefile import load_state, write_state
    from mocksrv.settings import Settings

    sandbox = create_sandbox(Settings())
    sandbox.seed_payments("merchant_default", seeded)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "state.json"
        started = time.perf_counter()
        size = write_state(path, sandbox)
        writing = time.perf_counter() - started
        started = time.perf_counter()
        load_state(Settings(state=path), create_sandbox(Settings()))
        loading = time.perf_counter() - started
    print(f"\nstate file of {seeded:,} payments: {size / 2**20:,.1f} MiB")
    print(f"  written in {writing:.2f} s (snapshot, JSON, fsync, rename), loaded in {loading:.2f} s")


def analytics(seeded: int, runs: int = 20) -> None:
    """Milliseconds to answer a daily series of payment metrics grouped by currency and status over
    `seeded` payments made over ten days: the domain's computation, and the whole route (Flask's
    test client: schema, JSON), in this process. Median and worst of `runs`."""
    from mocksrv.app import create_app, create_sandbox
    from mocksrv.domain.analytics import PAYMENT_SUBJECT, AnalyticsService, MetricsQuery
    from mocksrv.settings import Settings

    merchant = "merchant_default"
    sandbox = create_sandbox(Settings())
    start = sandbox.clock.now(merchant)
    for _ in range(10):
        sandbox.seed_payments(merchant, seeded // 10)
        sandbox.scheduler.advance(merchant, 24 * 3600)
    metrics = ("payment_count", "payment_success_count", "payment_success_rate", "payment_processed_amount")
    query = MetricsQuery(
        start=start,
        metrics=(*metrics, "avg_ticket_size"),
        group_by=("currency", "status"),
        granularity="G_ONEDAY",
    )
    service = AnalyticsService(sandbox.store, sandbox.clock)
    computed = timed(lambda: service.metrics(merchant, PAYMENT_SUBJECT, query), runs)
    body = {
        "timeRange": {"startTime": start.isoformat()},
        "metrics": [*metrics, "avg_ticket_size"],
        "groupByNames": ["currency", "status"],
        "timeSeries": {"granularity": "G_ONEDAY"},
    }
    client = create_app(Settings(rate_limit=0), sandbox).test_client()

    def route() -> None:
        answer = client.post("/analytics/v1/merchant/metrics/payments", json=body, headers={"api-key": KEY})
        assert answer.status_code == 200, answer.json
        assert len(answer.json["queryData"]) == 10, answer.json

    answered = timed(route, runs)
    print(f"\nanalytics: daily series by currency and status over {seeded:,} payments (target 100 ms)")
    for label, samples in (("computed", computed), ("answered", answered)):
        print(f"  {label} in {statistics.median(samples):.1f} ms median, {max(samples):.1f} ms worst")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add = parser.add_argument
    add(
        "--count",
        type=int,
        help=f"requests per latency sample (default {FULL['count']}, quick {QUICK['count']})",
    )
    add("--seeded", type=int, help=f"payments stored for the scale run (default {SEEDED:,}, quick 10,000)")
    add(
        "--seconds",
        type=int,
        help=f"seconds of each wrk run (default {FULL['seconds']}, quick {QUICK['seconds']})",
    )
    add("--rounds", type=int, help=f"wrk runs of each subject, in turns (default {FULL['rounds']}, quick 2)")
    add("--fixture-runs", type=int, help="MockServer starts timed (default 20, quick 5)")
    add("--engines", default=",".join(ENGINES), help=f"engines compared (default {','.join(ENGINES)})")
    add("--sections", default=",".join(SECTIONS), help=f"parts run (default {','.join(SECTIONS)})")
    add(
        "--server-cpus",
        help="CPUs the servers are kept to, as 1 or 0,1 (wrk runs on the others); default: any",
    )
    add("--quick", action="store_true", help="a short run: the quick values of the options above")
    args = parser.parse_args()
    for name, value in (QUICK if args.quick else FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    sections = [name.strip() for name in args.sections.split(",") if name.strip()]
    engines = [name.strip() for name in args.engines.split(",") if name.strip()]
    for name in sections:
        if name not in SECTIONS:
            parser.error(f"unknown section {name!r}: choose from {', '.join(SECTIONS)}")
    for name in engines:
        if name not in ENGINES:
            parser.error(f"unknown engine {name!r}: choose from {', '.join(ENGINES)}")
    if args.server_cpus:
        cpus = {int(cpu) for cpu in args.server_cpus.split(",")}
        if not cpus < os.sched_getaffinity(0):
            parser.error(f"--server-cpus must leave wrk a CPU of {sorted(os.sched_getaffinity(0))}")
        harness.SERVER_CPUS = cpus
    if {"engines", "access-log", "journal", "allocator", "threads"} & set(sections):
        load.wrk_path()  # fails early when wrk is missing

    started = time.monotonic()
    if "fixtures" in sections:
        fixture_costs(args.fixture_runs)
    if "latency" in sections:
        scale(args.count, args.seeded)
    if "engines" in sections and engines:
        throughput.engines(engines, args.seconds, args.rounds)
    if "access-log" in sections:
        throughput.access_log(args.seconds, args.rounds)
    if "journal" in sections:
        throughput.journal(args.seconds, args.rounds)
    if "allocator" in sections:
        throughput.allocator(args.seconds, args.rounds)
    if "threads" in sections:
        throughput.threads(args.seconds, args.rounds)
    if "held" in sections:
        hardening.report(args.count, connections=500, waits=64)
    if "webhooks" in sections:
        webhook_fairness.report(dead=50, events=args.count // 10)
    if "state-file" in sections:
        state_file(args.seeded)
    if "analytics" in sections:
        analytics(args.seeded)
    print(f"\nbench took {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
