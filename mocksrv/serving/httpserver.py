"""The HTTP server under the app: waitress, with limits on connections and answers in the spec's shape.

Waitress parses each request before the app sees it (with `httpparser.Parser`). What it refuses
there (a body or headers over the limit, a request it cannot parse) is answered in the same JSON
error shape as the app's own errors (`refusals.JsonErrorTask`). Connections are cheap to hold
(poll, not select), but one that sits idle, or takes longer than `connection_timeout` to send a
whole request, is closed. `stop()` refuses new work at once and gives the requests in progress a
short grace to finish.
"""

from __future__ import annotations

import logging
import resource
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher, WSGITask

from mocksrv.faults import CLIENT_GONE, CUT_SHORT, DROP_CONNECTION
from mocksrv.serving.httpparser import Parser
from mocksrv.serving.refusals import JsonErrorTask, error_body, refusal_headers
from mocksrv.settings import Settings

log = logging.getLogger(__name__)

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

LOOP_TIMEOUT = 0.05  # seconds the loop waits in poll() before it looks at its stop flag
DRAIN_BYTES = 256 * 1024  # read at a time from a client whose request was refused
DRAIN_SECONDS = 2  # the most time such a client gets to finish sending
GRACE = 1.0  # seconds the requests in progress get to finish once stop() is called


class ListenError(OSError):
    """The server cannot listen on its address: the port is taken, or the host is not this machine's."""


class Task(WSGITask):
    """A request's task, which sends nothing and closes the connection when the app asks it to, and
    lets the app ask whether its client is still there (a hang fault stops holding one that left)."""

    def get_environment(self) -> Any:
        environ = super().get_environment()
        environ[CLIENT_GONE] = self._client_gone
        return environ

    def _client_gone(self) -> bool:
        """Whether the client closed its end: a look at the socket that takes nothing from it (the
        server reads nothing more from a connection while its request runs)."""
        sock: socket.socket | None = getattr(self.channel, "socket", None)
        if sock is None:
            return True  # closed by the server
        try:
            return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False  # open, with nothing sent since
        except OSError:
            return True  # reset, or closed by the server

    def build_response_header(self) -> bytes:
        # Waitress decides here whether the connection closes after this answer, and says so in it;
        # the parser's `close_after` adds the requests it misses (see Parser.parse_header).
        request: Any = self.request
        if request.close_after:
            self.set_close_on_finish()
        # Waitress closes after an HTTP/1.1 answer without Content-Length, even one that has no
        # content to delimit (a 204 to a preflight, a 304): marked closing while it builds the
        # head, it leaves the connection open and says nothing of closing.
        bodiless = not self.has_body and not self.close_on_finish and self.version == "1.1"
        if bodiless:
            self.close_on_finish = True
        head: bytes = super().build_response_header()
        if bodiless:
            self.close_on_finish = False
        return head

    def write(self, data: bytes) -> None:
        environ: Any = self.environ
        if environ is not None and environ.get(DROP_CONNECTION):
            self.wrote_header = True  # nothing more to send, not even by finish()
            self.close_on_finish = True
            return
        super().write(data)

    @property
    def logger(self) -> logging.Logger:  # type: ignore[override]
        """waitress's, but quiet for an answer that a fault dropped or cut short: its warning that
        the app sent fewer bytes than it announced would read as a fault of the server."""
        environ: Any = self.environ
        if environ is not None and (environ.get(DROP_CONNECTION) or environ.get(CUT_SHORT)):
            return _FAULTED
        return WSGITask.logger


_FAULTED = logging.getLogger("mocksrv.faulted")
_FAULTED.disabled = True


class Channel(HTTPChannel):
    """A connection that remembers when the request it is receiving began, and that, after an
    error answer, reads what the client still sends before it closes, so that the answer is read
    rather than lost to a reset (a client sends all of an oversized body before it reads)."""

    parser_class = Parser
    task_class = Task
    error_task_class = JsonErrorTask
    receiving_since = 0.0
    linger = False  # set by an error answer: drain the input before closing
    draining_since: float | None = None

    def received(self, data: bytes) -> bool:
        if self.request is None:
            self.receiving_since = self.last_activity  # set by handle_read() as the bytes came
        return bool(super().received(data))

    def handle_close(self) -> None:
        if self.linger and self.draining_since is None and self.connected and self.socket is not None:
            try:
                self.socket.shutdown(socket.SHUT_WR)  # the answer is sent: the client sees its end
            except OSError:
                super().handle_close()
                return
            self.draining_since = self.last_activity  # when the answer was last sent on
            self.will_close = self.close_when_flushed = False
            return
        super().handle_close()

    def readable(self) -> bool:
        return True if self.draining_since is not None else bool(super().readable())

    def writable(self) -> bool:
        return self.will_close if self.draining_since is not None else bool(super().writable())

    def handle_read(self) -> None:
        if self.draining_since is None:
            super().handle_read()
            return
        try:
            self.recv(DRAIN_BYTES)  # discarded; at the client's end of input, recv() closes
        except OSError:
            super().handle_close()


class Server(TcpWSGIServer):
    """A listening socket whose connections are Channels, closed when idle or too slow."""

    channel_class = Channel

    def maintenance(self, now: float) -> None:
        """Close connections idle, or receiving one request, for longer than the timeout."""
        cutoff = now - self.adj.channel_timeout
        channels: dict[int, Any] = self.active_channels  # type: ignore[assignment]
        for channel in list(channels.values()):
            if channel.requests:
                continue  # a request is being served: its answer is due, not the client's
            if channel.draining_since is not None:
                if channel.draining_since < now - DRAIN_SECONDS:
                    channel.will_close = True
            elif channel.last_activity < cutoff or (
                channel.request is not None and channel.receiving_since < cutoff
            ):
                channel.will_close = True


class Stopping:
    """WSGI middleware: once the server is stopping, a request that reaches the app gets a JSON 503."""

    _BODY = error_body(503, "HE_00", "The server is shutting down")

    def __init__(self, app: WsgiApp) -> None:
        self.app = app
        self.stopping = False

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if self.stopping:
            start_response(
                "503 Service Unavailable",
                [("Content-Length", str(len(self._BODY))), *refusal_headers(page=False)],
            )
            return [] if environ.get("REQUEST_METHOD") == "HEAD" else [self._BODY]
        return self.app(environ, start_response)


def _raise_file_limit(wanted: int) -> None:
    """Let the process hold `wanted` sockets, as far as the hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    if target < wanted:
        log.warning("the open-file limit (%d) is below max_connections (%d)", hard, wanted)


class HttpServer:
    """The app on one listening socket, with its workers; `run()` serves until `stop()`."""

    def __init__(self, app: WsgiApp, settings: Settings, port: int) -> None:
        # Requests queued for a free thread are ordinary under load, not worth a warning each: not
        # for `mocksrv serve`, nor for an embedded server under a scenario run or a test suite.
        logging.getLogger("waitress.queue").setLevel(logging.ERROR)
        self._app = Stopping(app)
        self._loop_stopped = threading.Event()
        _raise_file_limit(settings.max_connections + 64)
        self._map: dict[int, Any] = {}
        self._base = settings.threads
        self._pool = ThreadedTaskDispatcher()
        self._pool.set_thread_count(self._base)
        try:
            adj = Adjustments(
                host=settings.host,
                port=port,
                ident="mocksrv",
                clear_untrusted_proxy_headers=True,
                # One byte over the app's limit, so that the app itself refuses a body of limit + 1.
                max_request_body_size=settings.max_body_bytes + 1,
                max_request_header_size=settings.max_header_bytes,
                connection_limit=settings.max_connections,
                channel_timeout=settings.connection_timeout,
                cleanup_interval=1,
                asyncore_use_poll=True,  # select() cannot watch more than 1,024 sockets
                backlog=1024,
            )
            listen: Any = adj.listen[0]
            self._server: Any = Server(self._app, self._map, dispatcher=self._pool, adj=adj, sockinfo=listen)
        except (OSError, ValueError) as error:
            self._pool.shutdown(timeout=1)
            # waitress turns a failed name lookup into a ValueError raised while handling the lookup's own.
            cause = error if isinstance(error, OSError) else error.__context__
            reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(error)
            where = address(settings.host, port)
            raise ListenError(f"cannot listen on {where}: {reason[:1].lower()}{reason[1:]}") from error

    def reserve(self, waiting: int) -> None:
        """Keep a thread for each of `waiting` long-polls beside the `threads` for everything else.

        The pool grows when a long-poll opens and shrinks when one ends (an idle thread leaves), so
        that a server starts no thread for a long-poll it may never hold, and keeps none, with its
        stack and the objects it made, after the long-polls are answered. The pool takes its own
        lock and does nothing when it already has that many.
        """
        self._pool.set_thread_count(self._base + waiting)

    @property
    def port(self) -> int:
        return int(self._server.effective_port)

    @property
    def connections(self) -> int:
        """Open client connections."""
        return len(self._server.active_channels)

    def run(self) -> None:
        """Serve until stop_loop(); waitress's own run() races its sockets closing from another thread."""
        while not self._loop_stopped.is_set():
            self._loop_once()

    def stop_loop(self) -> None:
        self._loop_stopped.set()
        self._server.trigger.pull_trigger()  # wakes poll() now, not at its next timeout

    def refuse(self) -> None:
        """Take no more work: the listening socket closes, a request on an open connection gets a 503."""
        self._app.stopping = True
        if self._server.socket is not None:
            wasyncore.dispatcher.close(self._server)
            self._server.trigger.pull_trigger()

    def finish_requests(self, loop_thread: threading.Thread | None, grace: float = GRACE) -> None:
        """Refuse new work, and give the requests in progress up to `grace` seconds to be answered.

        `loop_thread` is the thread in run(); with None, run() has returned and the loop is driven here.
        """
        self.refuse()
        deadline = time.monotonic() + grace
        while self._busy() and time.monotonic() < deadline:
            if loop_thread is None:
                self._loop_once()
            else:
                self._loop_stopped.wait(LOOP_TIMEOUT / 5)

    def stop(self, loop_thread: threading.Thread | None, grace: float = GRACE) -> None:
        """Refuse new work, give the requests in progress `grace` seconds, then close every connection."""
        self.finish_requests(loop_thread, grace)
        self.stop_loop()
        if loop_thread is not None:
            loop_thread.join(timeout=1)
        self._pool.shutdown(timeout=1)  # idle threads leave at once; a busy one had its grace
        for channel in list(self._map.values()):
            channel.close()

    def _loop_once(self) -> None:
        self._server.asyncore.loop(timeout=LOOP_TIMEOUT, map=self._map, use_poll=True, count=1)

    def _busy(self) -> bool:
        """Whether a request is still being served or its answer is still being sent."""
        channels = list(self._server.active_channels.values())
        return any(channel.requests or channel.total_outbufs_len for channel in channels)


def address(host: str, port: int) -> str:
    """`host:port`, an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
