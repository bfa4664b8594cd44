"""Serving: `serve()` for `mocksrv serve`, and MockServer, the same app in a thread for tests."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from types import FrameType, TracebackType

from flask import Flask

from mocksrv.app import create_app, create_sandbox
from mocksrv.control import wait_slots
from mocksrv.domain.clock import exempt_real_intervals
from mocksrv.domain.errors import DomainError
from mocksrv.domain.merchants import MerchantCredentials
from mocksrv.domain.sandbox import Sandbox
from mocksrv.output import Lines, flush_logs, put_back_handlers
from mocksrv.serving.httpserver import HttpServer, address
from mocksrv.serving.memory import Collector
from mocksrv.serving.statefile import StateWriter, load_state
from mocksrv.settings import Settings, check_settings
from mocksrv.webhooks.dispatcher import Dispatcher

log = logging.getLogger(__name__)

# The server's timeouts and waits are real intervals, also in a test that freezes time with freezegun.
exempt_real_intervals()


class Ticker:
    """Fires due timers in real time: a thread that asks the scheduler every `interval` seconds."""

    def __init__(self, sandbox: Sandbox, interval: float) -> None:
        self._sandbox = sandbox
        self._interval = interval
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stopped.clear()
        self._thread = threading.Thread(target=self._run, name="mocksrv-ticker", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        while not self._stopped.wait(self._interval):
            try:
                self._sandbox.scheduler.tick()
            except Exception:
                log.exception("timer tick failed")


def _dispatcher(sandbox: Sandbox, settings: Settings, base: str) -> Dispatcher:
    return Dispatcher(
        sandbox,
        settings.public_url or base,
        timeout=settings.webhook_timeout,
        workers=settings.webhook_workers,
    )


class _Running:
    """The HTTP server, the timer ticker and the webhook dispatcher of one sandbox, started together."""

    def __init__(
        self, settings: Settings, sandbox: Sandbox, app: Flask, port: int, state: StateWriter | None
    ) -> None:
        self._state = state
        if state is not None:
            state.claim()  # before the port (again, after a stop): one state file, one server
        http: HttpServer | None = None
        try:
            self.http = http = HttpServer(app, settings, port)
            # Each long-poll holds a thread of its own, beside the `threads` that serve everything else.
            wait_slots(app).on_change = self.http.reserve
            self.base = f"http://{address(settings.host, self.http.port)}"
            self._sandbox = sandbox
            sandbox.faults.allow_pauses()
            self._ticker = Ticker(sandbox, settings.tick_interval)
            self._dispatcher = _dispatcher(sandbox, settings, self.base)
            self._ticker.start()
            self._dispatcher.start()
            if state is not None:
                state.start()
        except BaseException:  # the port and the state file are let go: a MockServer may start again
            if http is not None:
                http.stop(None, grace=0)
            if state is not None:
                state.release()
            raise

    def stop(self, loop_thread: threading.Thread | None) -> None:
        """Refuse new work, answer the open long-polls, stop delivering, let the requests in progress
        be answered; then write the state file and close the server."""
        self.http.refuse()
        self._sandbox.faults.stop_pauses()  # hang and latency faults end now, sending nothing
        self._ticker.stop()
        self._dispatcher.stop()  # also answers every open wait for deliveries
        try:
            # Before the last write: what a request was answered, the state file holds.
            self.http.finish_requests(loop_thread)
            if self._state is not None:
                self._state.stop()  # after the dispatcher: an attempt it gave up is written as queued
        finally:
            if self._state is not None:
                self._state.release()  # done by its stop, unless something failed before it
            self.http.stop(loop_thread, grace=0)


class MockServer:
    """The sandbox served in a background thread, on a free port unless one is given."""

    def __init__(self, settings: Settings | None = None, *, port: int = 0) -> None:
        """A bad setting raises SettingsError, as `mocksrv serve` refuses it."""
        self.settings = check_settings(settings or Settings())
        self.sandbox = create_sandbox(self.settings)
        self._state = StateWriter.of(self.settings, self.sandbox)
        load_state(self.settings, self.sandbox, self._state)  # the file is this server's from now on
        try:
            self.app = create_app(self.settings, self.sandbox)
        except BaseException:
            if self._state is not None:
                self._state.release()
            raise
        self._port = port
        self._running: _Running | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self._running is None:
            raise RuntimeError("the server is not started")
        return self._running.http.port

    @property
    def url(self) -> str:
        return f"http://{address(self.settings.host, self.port)}"

    def start(self) -> MockServer:
        if self._running is not None:
            raise RuntimeError(f"the server is already running at {self.url}")
        self._running = _Running(self.settings, self.sandbox, self.app, self._port, self._state)
        self._thread = threading.Thread(target=self._running.http.run, name="mocksrv-server", daemon=True)
        self._thread.start()
        return self

    def sync(self) -> int:
        """Fire every timer due on every merchant's clock now, without waiting for the ticker.

        Returns how many fired. For a test that moved the system time (freezegun's `tick`, `move_to`).
        """
        return self.sandbox.scheduler.tick()

    def stop(self) -> None:
        """Stop within about two seconds: open long-polls are answered, new requests refused."""
        if self._running is None:
            return
        running, self._running = self._running, None
        running.stop(self._thread)
        self._thread = None

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def serve(settings: Settings) -> None:
    """Serve until SIGINT or SIGTERM, then stop within about two seconds.

    A bad fixture file raises SettingsError; an address the server cannot bind, ListenError.
    """
    sandbox = create_sandbox(settings)
    state = StateWriter.of(settings, sandbox)
    if load_state(settings, sandbox, state):  # the file's state, if there is one, wins over the fixtures'
        _send_webhooks_as_told(sandbox, settings)
    app = create_app(settings, sandbox)
    running = _Running(settings, sandbox, app, settings.port, state)

    def stop(signum: int, frame: FrameType | None) -> None:
        running.http.stop_loop()

    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    collector = Collector().install()  # the process is the server's alone (MockServer's is not)
    lines = Lines(sys.stdout)  # `mocksrv serve | head -1` reads the banner and goes: serving goes on
    lines.say(banner(sandbox, running.base, settings))
    try:
        running.http.run()
    finally:
        collector.uninstall()
        try:
            running.stop(None)  # StateNotWritten when the state file's last write failed: not stopped well
        finally:
            put_back_handlers(previous)
    flush_logs()  # the last requests' lines, and the state file's, come before the last line
    lines.say("mocksrv stopped")


def _send_webhooks_as_told(sandbox: Sandbox, settings: Settings) -> None:
    """`--webhook-url` wins over the state file: the flag given at this start is the newer word."""
    url = settings.webhook_url
    if url is None or not sandbox.seeded:
        return
    merchant_id = sandbox.seeded[0].merchant.merchant_id
    if not sandbox.merchants.exists(merchant_id):
        log.warning("--webhook-url not applied: the state file holds no merchant %s", merchant_id)
        return
    profile = sandbox.merchants.default_profile(merchant_id)
    if profile.webhook_url != url:
        sandbox.merchants.update_profile(merchant_id, profile.profile_id, {"webhook_url": url})
        log.info("webhooks of %s go to %s (--webhook-url), not %s", merchant_id, url, profile.webhook_url)


def banner(sandbox: Sandbox, base: str, settings: Settings) -> str:
    lines = [f"mocksrv {settings.environment} listening on {base}", ""]
    for credentials in sandbox.seeded:
        lines += _merchant_lines(sandbox, credentials)
    lines += [
        f"  control plane     {base}/__mock  (admin key: {settings.admin_key})",
        f"  health            {base}/health",
    ]
    return "\n".join(lines)


def _merchant_lines(sandbox: Sandbox, credentials: MerchantCredentials) -> list[str]:
    """A fixture merchant's ids and keys as they stand once the state file is loaded, which may have
    removed the merchant, revoked its keys or changed its default profile."""
    merchant_id = credentials.merchant.merchant_id
    merchants = sandbox.merchants
    if not merchants.exists(merchant_id):
        return [f"  merchant_id       {merchant_id} (not in the state file: removed)", ""]
    profile = merchants.default_profile(merchant_id)

    def working(key: str) -> str:
        try:
            merchants.authenticate(key)
        except DomainError:
            return f"{key} (revoked in the state file: does not work)"
        return key

    return [
        f"  merchant_id       {merchant_id}",
        f"  profile_id        {profile.profile_id}",
        f"  secret key        {working(credentials.secret_key)}",
        f"  publishable key   {working(credentials.publishable_key)}",
        f"  signing key       {profile.payment_response_hash_key}",
        *_legacy_lines(credentials),
        "",
    ]


def _legacy_lines(credentials: MerchantCredentials) -> list[str]:
    """The legacy card API's client id and secret, as the fixture gave them."""
    merchant = credentials.merchant
    if merchant.legacy_client_id is None or credentials.legacy_client_secret is None:
        return []
    pair = f"{merchant.legacy_client_id} / {credentials.legacy_client_secret}"
    return [f"  legacy client     {pair} (HTTP Basic)"]
