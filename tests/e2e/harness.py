"""The end-to-end harness: `mocksrv serve` as a real process, merchants, and waiting with deadlines."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields
from html.parser import HTMLParser
from pathlib import Path
from typing import IO, Any, TypeVar

import requests
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from mocksrv import client
from mocksrv.launch import C_ALLOCATOR
from tests.payloads import ADMIN_KEY

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_FIXTURES = REPO_ROOT / "fixtures"
LOCALHOST = "127.0.0.1"
READY_LINE = "listening on"
STOPPED_LINE = "mocksrv stopped"
START_TIMEOUT = 15.0  # seconds for the process to print its banner
STOP_TIMEOUT = 5.0  # seconds for the process to exit after SIGTERM
REQUEST_TIMEOUT = 5.0  # seconds for any one request; a hang fails the test instead of the suite
DEADLINE = 10.0  # seconds any awaited condition may take on a loaded machine
MAX_BANNER_LINES = 1000  # lines read while waiting for one; the banner has a dozen

T = TypeVar("T")


def free_port() -> int:
    """Return a port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOCALHOST, 0))
        port: int = probe.getsockname()[1]
        return port


def poll(fetch: Callable[[], T], done: Callable[[T], bool], *, timeout: float, max_attempts: int) -> T:
    """Call `fetch` until `done` holds of its result, for at most `timeout` s and `max_attempts` calls.

    Returns the last result, so that the caller's exact assertion shows what was seen.
    """
    deadline = time.monotonic() + timeout
    result = fetch()
    for _ in range(max_attempts - 1):
        if done(result) or time.monotonic() >= deadline:
            break
        result = fetch()
    return result


class TimeoutSession(requests.Session):
    """A session whose requests all time out, so that a hung server fails a test quickly."""

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", REQUEST_TIMEOUT)
        return super().request(method, url, *args, **kwargs)


def subprocess_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test's environment without any MOCKSRV_* setting or allocator choice, plus `extra`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("MOCKSRV_") and key not in C_ALLOCATOR
    }
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


# The `mocksrv` command of this checkout; an installed one is the `mocksrv` script of its virtualenv.
CHECKOUT_COMMAND = (sys.executable, "-m", "mocksrv")


class ServerProcess:
    """`mocksrv serve ...` in a subprocess, ready once its banner is printed."""

    def __init__(
        self,
        args: list[str],
        stderr_path: Path,
        env: Mapping[str, str] | None = None,
        *,
        command: tuple[str, ...] = CHECKOUT_COMMAND,
        cwd: Path = REPO_ROOT,
    ) -> None:
        self.args = args
        self.command = command
        self.cwd = cwd
        self.stderr_path = stderr_path
        self.env = subprocess_environment(env)
        self.base_url = ""
        self.lines: list[str] = []  # stdout so far, line by line
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> ServerProcess:
        with self.stderr_path.open("w") as stderr:
            self._process = subprocess.Popen(
                [*self.command, "serve", *self.args],
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )
        assert self._process.stdout is not None
        self._reader = threading.Thread(
            target=self._read_stdout, args=(self._process.stdout,), name="mocksrv-stdout", daemon=True
        )
        self._reader.start()
        try:
            banner = self._wait_for_line(READY_LINE, START_TIMEOUT)
        except BaseException:  # no process left running to fail a later test with a ResourceWarning
            self._process.kill()
            with contextlib.suppress(AssertionError):
                self.stop()
            raise
        self.base_url = banner.rsplit(" ", 1)[1]
        return self

    @property
    def pid(self) -> int:
        assert self._process is not None, "the process was not started"
        return self._process.pid

    def environment(self) -> dict[str, str]:
        """The environment the process runs with now: after an exec, the one it was given."""
        raw = Path(f"/proc/{self.pid}/environ").read_bytes()
        return dict(entry.decode().split("=", 1) for entry in raw.split(b"\0") if entry)

    def _read_stdout(self, stdout: IO[str]) -> None:
        for line in stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def _wait_for_line(self, text: str, timeout: float) -> str:
        """Collect stdout until a line containing `text` arrives; fail at the deadline or at EOF."""
        deadline = time.monotonic() + timeout
        for _ in range(MAX_BANNER_LINES):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                raise AssertionError(f"mocksrv ended before printing {text!r}: {self.diagnostics()}")
            self.lines.append(line)
            if text in line:
                return line
        raise AssertionError(f"mocksrv did not print {text!r} within {timeout} s: {self.diagnostics()}")

    def stop(self) -> int:
        """Send SIGTERM; return the exit code once the process has exited and its output is read."""
        assert self._process is not None, "the process was not started"
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
        try:
            code = self._process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=STOP_TIMEOUT)
            raise AssertionError(f"mocksrv did not exit within {STOP_TIMEOUT} s of SIGTERM") from None
        if self._reader is not None:
            self._reader.join(timeout=STOP_TIMEOUT)
        if self._process.stdout is not None:
            self._process.stdout.close()
        while not self._queue.empty():
            line = self._queue.get_nowait()
            if line is not None:
                self.lines.append(line)
        return code

    def diagnostics(self) -> str:
        stderr = self.stderr_path.read_text() if self.stderr_path.exists() else ""
        return f"stdout={self.lines!r} stderr={stderr!r}"


def assert_stops_cleanly(server: ServerProcess) -> None:
    code = server.stop()
    assert code == 0, f"exit code {code}: {server.diagnostics()}"
    assert server.lines[-1] == STOPPED_LINE, server.diagnostics()


@contextmanager
def running_process(
    args: list[str], stderr_path: Path, env: Mapping[str, str] | None = None
) -> Iterator[ServerProcess]:
    """Start `mocksrv serve` with `args`; on leaving, stop it with SIGTERM and check it stopped cleanly."""
    server = ServerProcess(args, stderr_path, env)
    try:
        yield server.start()
    finally:
        assert_stops_cleanly(server)


class Merchant(client.Merchant):
    """A merchant on a running server: the client's controls, and the payments API through its session."""

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.session.get(self.url + path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> requests.Response:
        return self.session.post(self.url + path, json=body, **kwargs)

    def put(self, path: str, body: Any = None, **kwargs: Any) -> requests.Response:
        return self.session.put(self.url + path, json=body, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> requests.Response:
        return self.session.delete(self.url + path, **kwargs)


def create_merchant(base_url: str, admin_key: str = ADMIN_KEY, **settings: Any) -> Merchant:
    """Create a merchant through the control plane, with fresh keys; keyword arguments are its settings."""
    with client.Sandbox(base_url, admin_key, timeout=REQUEST_TIMEOUT) as sandbox:
        return _with_api_calls(sandbox.create_merchant(**settings))


def default_merchant(base_url: str) -> Merchant:
    """The merchant every server seeds from the built-in fixtures."""
    with client.Sandbox(base_url, timeout=REQUEST_TIMEOUT) as sandbox:
        return _with_api_calls(sandbox.default_merchant())


def _with_api_calls(merchant: client.Merchant) -> Merchant:
    merchant.close()
    return Merchant(**{f.name: getattr(merchant, f.name) for f in fields(merchant) if f.init})


@dataclass
class Button:
    name: str
    value: str
    label: str = ""


@dataclass
class Form:
    method: str
    action: str
    fields: dict[str, str]
    buttons: list[Button]


class FormParser(HTMLParser):
    """Collect the forms of a page: their method, action, hidden fields and submit buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self._button: Button | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if tag == "form":
            method = attributes.get("method", "get").lower()
            self.forms.append(Form(method, attributes.get("action", ""), {}, []))
        elif self.forms and tag == "input" and attributes.get("type") == "hidden":
            self.forms[-1].fields[attributes.get("name", "")] = attributes.get("value", "")
        elif self.forms and tag == "button" and attributes.get("type", "submit") == "submit":
            self._button = Button(attributes.get("name", ""), attributes.get("value", ""))
            self.forms[-1].buttons.append(self._button)

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button.label += data.strip()

    def handle_endtag(self, tag: str) -> None:
        if tag == "button":
            self._button = None


def forms_of(html: str) -> list[Form]:
    parser = FormParser()
    parser.feed(html)
    parser.close()
    return parser.forms


class Receiver:
    """One path of an HTTP server on 127.0.0.1: answers webhooks with `status`, or as `handler` says."""

    def __init__(self, server: HTTPServer, handler: Callable[[Request], Response] | None = None) -> None:
        self.server = server
        self.path = f"/hooks/{uuid.uuid4().hex}"
        self.status = 200
        server.expect_request(self.path, method="POST").respond_with_handler(handler or self._answer)

    def _answer(self, request: Request) -> Response:
        return Response("", status=self.status)

    @property
    def url(self) -> str:
        return self.server.url_for(self.path)

    def received(self) -> list[Request]:
        """The requests of this path, in the order they arrived."""
        return [request for request, _ in self.server.log if request.path == self.path]

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(request.get_data()) for request in self.received()]


@dataclass(frozen=True)
class CommandRun:
    """What one run of the `mocksrv` command did: its exit code and output."""

    code: int
    stdout: str
    stderr: str


def run_command(
    args: list[str], cwd: Path, timeout: float, env: Mapping[str, str] | None = None
) -> CommandRun:
    """Run `mocksrv ARGS...` in `cwd` and wait for it, `timeout` seconds at most."""
    finished = subprocess.run(
        [*CHECKOUT_COMMAND, *args],
        cwd=cwd,
        env=subprocess_environment(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return CommandRun(finished.returncode, finished.stdout, finished.stderr)
