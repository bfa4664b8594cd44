"""Serving: `serve()` for `mocksrv serve`, and MockServer, the same app in a thread for tests."""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType, TracebackType
from typing import Any

from flask import Flask
from waitress.server import create_server

from mocksrv.app import create_app, create_sandbox
from mocksrv.domain.sandbox import Sandbox
from mocksrv.settings import Settings
from mocksrv.webhooks.dispatcher import Dispatcher
from mocksrv.workerpool import WorkerPool

log = logging.getLogger(__name__)


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


class ListenError(OSError):
    """The server cannot listen on its address: the port is taken, or the host is not this machine's."""


def _wsgi_server(app: Flask, settings: Settings, port: int) -> Any:
    pool = WorkerPool(settings.threads)
    try:
        return create_server(
            app,
            host=settings.host,
            port=port,
            ident="mocksrv",
            clear_untrusted_proxy_headers=True,
            max_request_body_size=settings.max_body_bytes + 1,
            # waitress's hook for its task dispatcher, which its own tests use; it calls only
            # add_task and shutdown, which the pool has (the stubs name waitress's class).
            _dispatcher=pool,  # type: ignore[arg-type]
        )
    except (OSError, ValueError) as error:
        pool.shutdown(timeout=1)
        # waitress turns a failed name lookup into a ValueError raised while handling the lookup's own.
        cause = error if isinstance(error, OSError) else error.__context__
        reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(error)
        address = _address(settings.host, port)
        raise ListenError(f"cannot listen on {address}: {reason[:1].lower()}{reason[1:]}") from error


def _address(host: str, port: int) -> str:
    """`host:port`, an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _dispatcher(sandbox: Sandbox, settings: Settings, base: str) -> Dispatcher:
    return Dispatcher(
        sandbox,
        settings.public_url or base,
        timeout=settings.webhook_timeout,
        workers=settings.webhook_workers,
    )


class MockServer:
    """The sandbox served in a background thread, on a free port unless one is given."""

    def __init__(self, settings: Settings | None = None, *, port: int = 0) -> None:
        self.settings = settings or Settings()
        self.sandbox = create_sandbox(self.settings)
        self.app = create_app(self.settings, self.sandbox)
        self._port = port
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._ticker = Ticker(self.sandbox, self.settings.tick_interval)
        self._dispatcher: Dispatcher | None = None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the server is not started")
        return int(self._server.effective_port)

    @property
    def url(self) -> str:
        return f"http://{_address(self.settings.host, self.port)}"

    def start(self) -> MockServer:
        self._server = _wsgi_server(self.app, self.settings, self._port)
        self._stopping.clear()
        self._thread = threading.Thread(target=self._loop, args=(self._server,), name="mocksrv-server")
        self._thread.daemon = True
        self._thread.start()
        self._ticker.start()
        self._dispatcher = _dispatcher(self.sandbox, self.settings, self.url)
        self._dispatcher.start()
        return self

    def _loop(self, server: Any) -> None:
        # waitress's own run() loops until its sockets close, and closing them from another
        # thread races with its select(); this loop checks a flag between short polls instead.
        while not self._stopping.is_set():
            server.asyncore.loop(timeout=0.05, map=server._map, count=1)

    def stop(self) -> None:
        """Stop the loop, let the workers finish, then close every socket (none is in use by then)."""
        self._ticker.stop()
        if self._dispatcher is not None:
            self._dispatcher.stop()
            self._dispatcher = None
        if self._server is None or self._thread is None:
            return
        server, self._server = self._server, None
        self._stopping.set()
        server.trigger.pull_trigger()  # wakes the loop's select() now, not at its next timeout
        self._thread.join(timeout=2)
        self._thread = None
        server.task_dispatcher.shutdown(timeout=1)
        for channel in list(server._map.values()):
            channel.close()

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def serve(settings: Settings) -> None:
    """Serve until SIGINT or SIGTERM, then stop cleanly.

    A bad fixture file raises SettingsError; an address the server cannot bind, ListenError.
    """
    sandbox = create_sandbox(settings)
    app = create_app(settings, sandbox)
    server = _wsgi_server(app, settings, settings.port)
    ticker = Ticker(sandbox, settings.tick_interval)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    ticker.start()
    base = f"http://{_address(settings.host, server.effective_port)}"
    dispatcher = _dispatcher(sandbox, settings, base)
    dispatcher.start()
    print(banner(sandbox, base, settings), flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        ticker.stop()
        dispatcher.stop()
        server.close()
        server.task_dispatcher.shutdown(timeout=5)
        print("mocksrv stopped", flush=True)


def banner(sandbox: Sandbox, base: str, settings: Settings) -> str:
    lines = [f"mocksrv {settings.environment} listening on {base}", ""]
    for credentials in sandbox.seeded:
        lines += [
            f"  merchant_id       {credentials.merchant.merchant_id}",
            f"  profile_id        {credentials.profile.profile_id}",
            f"  secret key        {credentials.secret_key}",
            f"  publishable key   {credentials.publishable_key}",
            f"  signing key       {credentials.profile.payment_response_hash_key}",
            "",
        ]
    lines += [
        f"  control plane     {base}/__mock  (admin key: {settings.admin_key})",
        f"  health            {base}/health",
    ]
    return "\n".join(lines)
