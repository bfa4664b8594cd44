"""`make bench`: latency, throughput and memory of a real mocksrv server, bounded in time.

Prints: sequential p50/p99 of one-step create, retrieve and list; throughput of one-step create at
8 concurrent keep-alive connections next to a bare Flask app on the same engine, measured in turns
over several rounds, and the median of their ratios;
create and list latency and server RSS after 100,000 stored payments; what a test suite pays
for `MockServer` start and stop, a fresh merchant, and `mocksrv serve` from exec to first answer.
`--engines` also compares waitress with gunicorn (gthread, one process) for both apps. Last,
create throughput with the access log on and off, in turns.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

from mocksrv import MockServer
from mocksrv.client import Sandbox
from mocksrv.domain.sandbox import SEED_PAYMENT

HERE = Path(__file__).resolve().parent
KEY = "snd_default_secret_key"
ADMIN = "mocksrv_admin_key"
HEADERS = {"api-key": KEY, "Content-Type": "application/json"}
# The body of every create: the seeded payment, itself an ordinary one-step card payment.
CREATE = json.dumps({**SEED_PAYMENT, "amount": 1000, "profile_id": "pro_default"}).encode()
LIST = json.dumps({"limit": 10}).encode()
SEEDED = 100_000
RATE_OFF = {"MOCKSRV_RATE_LIMIT": "1000000000"}  # limiting stays on the path, never trips


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[int]:
    """Run a server process until the block ends; yields its pid once it accepts connections."""
    # stderr goes to a file: a pipe that nobody reads would block the server once it is full.
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            command, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=errors
        )
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        errors.seek(0)
                        detail = errors.read().decode()
                        raise RuntimeError(f"server did not start: {detail}") from None
                    time.sleep(0.05)
            yield process.pid
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


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


def throughput(port: int, seconds: float, connections: int = 8) -> float:
    """Completed one-step creates per second over `connections` keep-alive connections."""
    done = [0] * connections
    stop = time.monotonic() + seconds

    def worker(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.monotonic() < stop:
            request(conn, "POST", "/payments", CREATE)
            done[index] += 1
        conn.close()

    start = time.monotonic()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / (time.monotonic() - start)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


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
            merchant.reset()
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


@contextmanager
def hanging_receiver() -> Iterator[str]:
    """A webhook receiver that accepts connections and never answers; yields its URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in held:
            conn.close()
        listener.close()


def hanging_receiver_latency(count: int) -> tuple[float, float]:
    """Create p50 with no webhook receiver, and with one that never answers, measured in turns."""
    quiet_port, hanging_port = free_port(), free_port()
    with (
        hanging_receiver() as url,
        server(mocksrv_command("waitress", quiet_port), quiet_port, RATE_OFF),
        server(
            mocksrv_command("waitress", hanging_port), hanging_port, {**RATE_OFF, "MOCKSRV_WEBHOOK_URL": url}
        ),
    ):
        quiet, hanging = latencies([quiet_port, hanging_port], count)
    return quiet["create"][0], hanging["create"][0]


def mocksrv_command(engine: str, port: int) -> list[str]:
    if engine == "waitress":
        return [sys.executable, "-m", "mocksrv.cli", "serve", "--port", str(port)]
    return [sys.executable, str(HERE / "serve_engine.py"), "mocksrv", engine, str(port)]


def bare_command(engine: str, port: int) -> list[str]:
    return [sys.executable, str(HERE / "serve_engine.py"), "bare", engine, str(port)]


def compare(engine: str, seconds: float, rounds: int) -> list[tuple[float, float]]:
    """Throughput of mocksrv and of the bare app, measured in turns, round after round.

    Both servers run throughout and take turns, so that whatever else the machine does in a
    moment weighs on both figures of a round alike.
    """
    full_port, bare_port = free_port(), free_port()
    results = []
    with (
        server(mocksrv_command(engine, full_port), full_port, RATE_OFF),
        server(bare_command(engine, bare_port), bare_port),
    ):
        throughput(full_port, 1.0)  # warm up
        throughput(bare_port, 1.0)
        for _ in range(rounds):
            results.append((throughput(full_port, seconds), throughput(bare_port, seconds)))
    return results


def access_log_cost(seconds: float, rounds: int) -> list[tuple[float, float]]:
    """Create throughput with the access log on (info, the default) and off (warning), in turns."""
    on_port, off_port = free_port(), free_port()
    results = []
    with (
        server(mocksrv_command("waitress", on_port), on_port, RATE_OFF),
        server(mocksrv_command("waitress", off_port), off_port, {**RATE_OFF, "MOCKSRV_LOG_LEVEL": "warning"}),
    ):
        throughput(on_port, 1.0)  # warm up
        throughput(off_port, 1.0)
        for _ in range(rounds):
            results.append((throughput(on_port, seconds), throughput(off_port, seconds)))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=1000, help="requests per latency sample")
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of each throughput run")
    parser.add_argument("--rounds", type=int, default=5, help="throughput runs of each app, in turns")
    parser.add_argument("--seeded", type=int, default=SEEDED, help="payments stored for the scale run")
    parser.add_argument("--engines", action="store_true", help="also compare gunicorn gthread")
    parser.add_argument("--fixture-runs", type=int, default=20, help="MockServer starts timed")
    args = parser.parse_args()

    fixture_costs(args.fixture_runs)

    # One server stays empty, the other gets the payments; their latencies are sampled in turns.
    empty_port, full_port = free_port(), free_port()
    with (
        server(mocksrv_command("waitress", empty_port), empty_port, RATE_OFF),
        server(mocksrv_command("waitress", full_port), full_port, RATE_OFF) as pid,
    ):
        rss_before = rss_kib(pid)
        started = time.perf_counter()
        seed(full_port, args.seeded)
        seeding = time.perf_counter() - started
        rss_after = rss_kib(pid)
        empty, full = latencies([empty_port, full_port], args.count)
    print("sequential latency, empty store (ms)      p50      p99")
    for name, (p50, p99) in empty.items():
        print(f"  {name:<39} {p50:8.2f} {p99:8.2f}")
    print(f"sequential latency, {args.seeded:,} stored (ms)  p50      p99   x empty p50")
    for name, (p50, p99) in full.items():
        print(f"  {name:<39} {p50:8.2f} {p99:8.2f}   {p50 / empty[name][0]:5.2f}")
    per_payment = (rss_after - rss_before) * 1024 / args.seeded
    print(f"seeding {args.seeded:,} payments took {seeding:.1f} s")
    print(
        f"server RSS: {rss_before / 1024:.1f} MiB empty, {rss_after / 1024:.1f} MiB with "
        f"{args.seeded:,} payments = {per_payment:,.0f} bytes per payment"
    )

    quiet, hanging = hanging_receiver_latency(args.count)
    print(
        f"create p50 with no webhook receiver {quiet:.2f} ms, with one that never answers "
        f"{hanging:.2f} ms: x{hanging / quiet:.2f}"
    )

    engines = ["waitress", "gunicorn"] if args.engines else ["waitress"]
    print("throughput, one-step create, 8 keep-alive connections (requests/s)")
    for engine in engines:
        results = compare(engine, args.seconds, args.rounds)
        for full, bare in results:
            print(f"  {engine:<10} mocksrv {full:8.0f}   bare Flask {bare:8.0f}   ratio {full / bare:5.2f}")
        ratios = [full / bare for full, bare in results]
        print(
            f"  {engine:<10} median ratio {statistics.median(ratios):.2f} "
            f"(from {min(ratios):.2f} to {max(ratios):.2f} over {len(ratios)} rounds)"
        )
    results = access_log_cost(args.seconds, args.rounds)
    for on, off in results:
        print(f"  access log  on {on:8.0f}   off {off:8.0f}   ratio {on / off:5.2f}")
    ratios = [on / off for on, off in results]
    print(f"  access log  median ratio on / off {statistics.median(ratios):.2f} over {len(ratios)} rounds")


if __name__ == "__main__":
    main()
