"""What the bench scripts share: request bodies and keys, server processes, and what /proc tells of them."""

from __future__ import annotations

import json
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mocksrv.domain.sandbox import SEED_PAYMENT

HERE = Path(__file__).resolve().parent
KEY = "snd_default_secret_key"
ADMIN = "mocksrv_admin_key"
HEADERS = {"api-key": KEY, "Content-Type": "application/json"}
# The body of every one-step create: the seeded payment, itself an ordinary one-step card payment.
CREATE = json.dumps({**SEED_PAYMENT, "amount": 1000, "profile_id": "pro_default"}).encode()
LIST = json.dumps({"limit": 10}).encode()
RATE_OFF = {"MOCKSRV_RATE_LIMIT": "1000000000"}  # limiting stays on the path, never trips
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# The CPUs the servers run on (bench.py's --server-cpus), the load generator on the others; None: any.
SERVER_CPUS: set[int] | None = None


def pinned(server: bool) -> dict[str, Any]:
    """Popen's arguments that keep the process to the servers' CPUs, or to the others."""
    if SERVER_CPUS is None:
        return {}
    cpus = SERVER_CPUS if server else os.sched_getaffinity(0) - SERVER_CPUS
    return {"preexec_fn": lambda: os.sched_setaffinity(0, cpus)}


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
            command,
            env={**os.environ, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=errors,
            **pinned(server=True),
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
                        detail = errors.read().decode(errors="replace")[-2000:]
                        raise RuntimeError(f"server did not start: {' '.join(command)}\n{detail}") from None
                    time.sleep(0.05)
            yield process.pid
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def serve_command(app: str, engine: str, port: int) -> list[str]:
    """The mocksrv app or the bare app on one engine (see serve_engine.py)."""
    return [sys.executable, str(HERE / "serve_engine.py"), app, engine, str(port)]


def mocksrv_command(port: int) -> list[str]:
    """`mocksrv serve` as installed in this checkout's virtualenv."""
    return [sys.executable, "-m", "mocksrv", "serve", "--host", "127.0.0.1", "--port", str(port)]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (which may hold spaces)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def process_tree(pid: int) -> list[int]:
    """The process and its descendants (gunicorn serves from a child of the process started)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents.setdefault(int(_stat(int(entry.name))[1]), []).append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo.extend(parents.get(current, []))
    return tree


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU time the processes have used so far."""
    total = 0
    for pid in pids:
        try:
            fields = _stat(pid)
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of the whole line)
    return total / CLOCK_TICKS


@contextmanager
def hanging_receiver() -> Iterator[str]:
    """A webhook receiver that accepts connections, reads what arrives and never answers; yields its URL.

    A connection stays open until the sender closes it; the thread that serves them all stops with
    the block.
    """
    listener = socket.create_server(("127.0.0.1", 0), backlog=512)
    listener.setblocking(False)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            for key, _ in selector.select(timeout=0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if sock is listener:
                    try:
                        conn = listener.accept()[0]
                    except OSError:
                        continue
                    conn.setblocking(False)
                    selector.register(conn, selectors.EVENT_READ)
                    continue
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    selector.unregister(sock)
                    sock.close()

    thread = threading.Thread(target=serve, name="hanging-receiver", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
    finally:
        stop.set()
        thread.join(timeout=2)
        for key in list(selector.get_map().values()):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            sock.close()
        selector.close()


def table(header: list[str], rows: list[list[str]], indent: str = "  ") -> str:
    """Rows of cells as aligned text: the first column to the left, the others to the right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(row: list[str]) -> str:
        cells = [row[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)
        ]
        return (indent + "   ".join(cells)).rstrip()

    return "\n".join([line(header), *(line(row) for row in rows)])
