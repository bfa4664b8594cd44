"""Load from wrk, the C load generator: one run of a script of bench/wrk/ against a server, and its figures.

wrk runs with one thread (`-t1`): on a 2-core machine it takes one core and leaves the other to
the server. The scripts print their figures as one JSON line from their done() function.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field

from harness import HERE, cpu_seconds, pinned, process_tree

SCRIPTS = HERE / "wrk"
MARK = "WRKJSON "


def wrk_path() -> str:
    path = shutil.which("wrk")
    if path is None:
        raise SystemExit("wrk is not installed: `make bench` installs it (Debian package wrk)")
    return path


@dataclass
class Run:
    """What one wrk run measured; `cpu` is the server's CPU seconds over the run, if asked for."""

    requests: int
    seconds: float
    statuses: dict[int, int]
    counters: dict[str, int]
    figures: dict[str, int]
    cpu: float | None = None
    output: str = field(default="", repr=False)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def per_second(self, counter: str) -> float:
        return self.counters.get(counter, 0) / self.seconds if self.seconds else 0.0

    @property
    def errors(self) -> int:
        """Socket errors and timeouts, as wrk counts them."""
        names = ("connect_errors", "read_errors", "write_errors", "timeouts")
        return sum(self.figures.get(name, 0) for name in names)

    def count(self, low: int, high: int) -> int:
        return sum(n for status, n in self.statuses.items() if low <= status <= high)

    def latency_ms(self, percentile: int) -> float:
        return self.figures[f"latency_p{percentile}_us"] / 1000

    @property
    def cpu_per_request_us(self) -> float | None:
        if self.cpu is None or not self.requests:
            return None
        return 1e6 * self.cpu / self.requests


def run(
    url: str,
    script: str,
    seconds: float,
    *,
    connections: int = 8,
    args: list[str] | None = None,
    timeout: float = 5,
    server_pid: int | None = None,
) -> Run:
    """Run bench/wrk/<script>.lua against `url` for `seconds`, over `connections` keep-alive connections.

    With `server_pid`, also measures the CPU time that process and its children spend meanwhile.
    """
    command = [
        wrk_path(),
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        f"--timeout={max(1, round(timeout))}s",
        "-s",
        str(SCRIPTS / f"{script}.lua"),
        url,
    ]
    if args:
        command += ["--", *args]
    pids = process_tree(server_pid) if server_pid is not None else []
    cpu_before = cpu_seconds(pids)
    finished = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=seconds + timeout + 30,
        **pinned(server=False),
    )
    cpu = cpu_seconds(pids) - cpu_before if pids else None
    lines = [line for line in finished.stdout.splitlines() if line.startswith(MARK)]
    if finished.returncode != 0 or not lines:
        raise RuntimeError(
            f"wrk failed ({finished.returncode}): {finished.stderr.strip() or finished.stdout}"
        )
    data = json.loads(lines[-1][len(MARK) :])
    figures = {name: int(value) for name, value in data["figures"].items()}
    return Run(
        requests=figures["requests"],
        seconds=figures["duration_us"] / 1e6,
        statuses={int(status): n for status, n in data["statuses"].items()},
        counters=data["counters"],
        figures=figures,
        cpu=cpu,
        output=finished.stdout,
    )
