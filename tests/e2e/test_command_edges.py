"""The `mocksrv` command at its edges: a reader that goes away, a signal while it starts or waits, a
server that is not a mocksrv."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from mocksrv import cli
from tests.e2e.harness import (
    CHECKOUT_COMMAND,
    DEADLINE,
    DEFAULT_FIXTURES,
    LOCALHOST,
    REQUEST_TIMEOUT,
    free_port,
    poll,
    subprocess_environment,
)
from tests.payloads import SECRET_KEY


@contextmanager
def started(*args: str) -> Iterator[subprocess.Popen[str]]:
    """`mocksrv ARGS...` running; killed at the end of the block if it is still running then."""
    with subprocess.Popen(
        [*CHECKOUT_COMMAND, *args],
        env=subprocess_environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()


def test_a_server_whose_reader_went_away_before_its_banner_goes_on_serving() -> None:
    port = free_port()
    with started("serve", "--port", str(port)) as server:
        assert server.stdout is not None
        server.stdout.close()  # `mocksrv serve | head -0`: the banner finds no reader

        health = poll(
            lambda: _health(port), lambda status: status == 200, timeout=DEADLINE * 2, max_attempts=100_000
        )
        server.send_signal(signal.SIGTERM)
        _, errors = server.communicate(timeout=DEADLINE)

    assert (health, server.returncode) == (200, 0)
    assert "Traceback" not in errors


def _health(port: int) -> int | None:
    try:
        answer = requests.get(
            f"http://{LOCALHOST}:{port}/health", headers={"api-key": SECRET_KEY}, timeout=REQUEST_TIMEOUT
        )
    except requests.ConnectionError:
        return None
    return answer.status_code


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_server_starts_stops_it_in_one_line(tmp_path: Path, number: int) -> None:
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    (fixtures / "merchants.yaml").write_text((DEFAULT_FIXTURES / "merchants.yaml").read_text())
    os.mkfifo(fixtures / "outcomes.yaml")  # read as the server starts: it waits there for a writer
    with started("serve", "--port", str(free_port()), "--fixtures", str(fixtures)) as server:
        reading = poll(
            lambda: _open_for_writing(fixtures / "outcomes.yaml"),
            lambda descriptor: descriptor is not None,
            timeout=DEADLINE * 2,
            max_attempts=1_000_000,
        )
        assert reading is not None
        server.send_signal(number)
        # The file ends now: the signal may have gone to another of its threads, and the read that
        # holds the main one must return for the main one to see it.
        os.close(reading)
        _, errors = server.communicate(timeout=DEADLINE)

    assert (server.returncode, errors) == (0, "mocksrv: stopped before it served\n")


def _open_for_writing(fifo: Path) -> int | None:
    """The FIFO opened for writing once a reader has it open; None until then."""
    try:
        return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return None


def test_ctrl_c_during_wait_is_one_line_and_exit_130() -> None:
    with socket.create_server((LOCALHOST, 0)) as silent:  # takes the health check and never answers
        silent.settimeout(DEADLINE)
        url = f"http://{LOCALHOST}:{silent.getsockname()[1]}"
        with started("wait", "--url", url, "--timeout", "60") as waiting:
            connection, _ = silent.accept()  # its first look: it is waiting
            waiting.send_signal(signal.SIGINT)
            _, errors = waiting.communicate(timeout=DEADLINE)
            connection.close()

    assert (waiting.returncode, errors) == (130, "mocksrv wait: interrupted\n")


@contextmanager
def other_server(body: bytes, status: int = 200) -> Iterator[str]:
    """A server that answers every POST `status` with `body`; yields its URL."""

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    with ThreadingHTTPServer((LOCALHOST, 0), Answer) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield f"http://{LOCALHOST}:{server.server_address[1]}"
        finally:
            server.shutdown()


@pytest.mark.parametrize(
    ("status", "body", "why"),
    [
        (200, json.dumps({"ok": 1}).encode(), "its answer names no event"),
        (200, json.dumps([1, 2]).encode(), "its answer names no event"),
        (200, json.dumps({"event_id": "e", "objects": [1]}).encode(), "its answer names no event"),
        (200, b"<html>hello</html>", "its answer is not JSON"),
        (404, b"<html>Not Found</html>", "it answered 404, not an error of mocksrv's"),
        (400, json.dumps({"error": "no"}).encode(), "it answered 400, not an error of mocksrv's"),
    ],
    ids=["no-event", "a-list", "objects-not-named", "not-json", "a-404-page", "another-error-shape"],
)
def test_trigger_against_a_server_that_is_not_a_mocksrv_is_one_line(
    status: int, body: bytes, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with other_server(body, status) as url:
        code = cli.main(["trigger", "payment_succeeded", "--url", url])

    assert (code, capsys.readouterr().err) == (1, f"mocksrv trigger: {url} is not a mocksrv: {why}\n")


def test_trigger_against_no_server_says_why_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://{LOCALHOST}:{free_port()}"

    code = cli.main(["trigger", "payment_succeeded", "--url", url])

    assert (code, capsys.readouterr().err) == (
        1,
        f"mocksrv trigger: cannot reach {url}: [Errno 111] Connection refused\n",
    )
