"""The HTTP server under the app: waitress, with limits on connections and answers in the spec's shape.

Waitress parses each request before the app sees it. What it refuses there (a body or headers over
the limit, a request it cannot parse) is answered here in the same JSON error shape as the app's
own errors. Connections are cheap to hold (poll, not select), but one that sits idle, or takes
longer than `connection_timeout` to send a whole request, is closed. `stop()` refuses new work at
once and gives the requests in progress a short grace to finish.
"""

from __future__ import annotations

import html
import logging
import re
import resource
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson
from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser, ParsingError
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask
from waitress.utilities import BadRequest, RequestEntityTooLarge

from mocksrv.faults import CLIENT_GONE, CUT_SHORT, DROP_CONNECTION
from mocksrv.settings import Settings

log = logging.getLogger(__name__)

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

LOOP_TIMEOUT = 0.05  # seconds the loop waits in poll() before it looks at its stop flag
DRAIN_BYTES = 256 * 1024  # read at a time from a client whose request was refused
DRAIN_SECONDS = 2  # the most time such a client gets to finish sending
GRACE = 1.0  # seconds the requests in progress get to finish once stop() is called
FRAMING_BYTES = 64 * 1024  # the least a chunked body's framing may take, whatever the body limit


class ListenError(OSError):
    """The server cannot listen on its address: the port is taken, or the host is not this machine's."""


def error_body(status: int, code: str, message: str) -> bytes:
    """The spec's error object, as bytes."""
    kind = "invalid_request" if status < 500 else "api"
    return orjson.dumps({"error": {"type": kind, "code": code, "message": message}})


def error_page(title: str, message: str) -> bytes:
    """A hosted page's refusal, for a browser: a page route never answers the API's JSON error."""
    return (
        f'<!doctype html>\n<html lang="en">\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
        f"<h1>{html.escape(title)}</h1>\n<p>{html.escape(message)}</p>\n</html>\n"
    ).encode()


def is_page(method: str, path: str) -> bool:
    """Whether a request is a browser's, to a hosted page: anything under /web/, and a link's page,
    `GET /payment_link/<merchant_id>/<link_id>` (the API's link routes beside it answer JSON)."""
    if path.startswith("/web/"):
        return True
    segments = path.split("/")
    return (
        method in ("GET", "HEAD")
        and len(segments) == 4
        and segments[1] == "payment_link"
        and all(segments[2:])
    )


# What waitress refuses before the app, by status: the spec's code and message for each.
_REFUSALS: dict[int, tuple[str, str]] = {
    400: ("IR_04", "Malformed HTTP request: {detail}"),
    413: ("IR_06", "Request body is larger than the limit of {body_limit} bytes"),
    431: ("IR_04", "Request headers are larger than the limit of {header_limit} bytes"),
    501: ("HE_00", "Not supported by this server: {detail}"),
}


# An error answered outside the app has the headers the app gives its own (`rest._not_cached`).
ERROR_HEADERS = (
    ("Content-Type", "application/json"),
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
)


class FramingTooLarge(RequestEntityTooLarge):
    """A chunked body whose framing (chunk sizes and extensions, line ends, trailers) takes more bytes
    than it may: the body is measured decoded, and the framing has a limit of its own."""


def framing_limit(body_limit: int) -> int:
    """The most bytes a chunked body's framing may take: as many as the body, and 64 KiB at least."""
    return max(body_limit, FRAMING_BYTES)


class JsonErrorTask(ErrorTask):
    """Waitress's answer to a request it could not take, in the spec's error shape."""

    def execute(self) -> None:
        # waitress's type stubs name less than its classes have: these are its parser's error and
        # the server's adjustments.
        request: Any = self.request
        error: Any = request.error
        adj: Any = self.channel.server.adj
        code, template = _REFUSALS.get(error.code, ("HE_00", "{detail}"))
        if isinstance(error, FramingTooLarge):
            template = "Chunked framing of the request body is larger than the limit of {framing_limit} bytes"
        message = template.format(
            detail=str(error.body).strip().rstrip("."),
            body_limit=adj.max_request_body_size - 1,
            header_limit=adj.max_request_header_size,
            framing_limit=framing_limit(adj.max_request_body_size - 1),
        )
        page = is_page(str(getattr(request, "command", "") or ""), str(getattr(request, "path", "") or ""))
        body = error_page(error.reason, message) if page else error_body(error.code, code, message)
        self.status = f"{error.code} {error.reason}"
        headers: list[tuple[str, str]] = self.response_headers  # type: ignore[assignment]
        headers.append(("Content-Type", "text/html; charset=utf-8" if page else "application/json"))
        headers.extend(ERROR_HEADERS[1:])
        self.set_close_on_finish()
        channel: Any = self.channel
        channel.linger = True
        self.content_length = len(body)
        # The answer to HEAD has the headers of the answer to GET, Content-Length too, and no content.
        self.write(b"" if getattr(request, "method_sent", "") == "HEAD" else body)


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


_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]"  # a method's characters (RFC 9110's token)
_METHOD = re.compile(_TOKEN + rb"*")  # what a request line begins with, before its space
# As waitress reads it, which also takes a line without a version. HTTP/0.9's, sent without headers,
# would wait unanswered for a blank line that never comes: it is refused once the line has ended.
_REQUEST_LINE = re.compile(_TOKEN + rb"+ [^ ]+(?P<version> HTTP/[0-9]\.[0-9])?")
LOOK_BYTES = 8192  # of a chunk, looked at for the request line: not a large body sent with it
# A line end that is not CRLF: an LF without its CR, or a CR that something other than an LF follows
# (one at the end of what has come may yet get its LF).
_BARE_LINE_END = re.compile(rb"(?<!\r)\n|\r(?=[^\n])")
_BARE_CR = re.compile(rb"\r(?=[^\n])")
HEAD_END = b"\r\n\r\n"
INVALID_START = "Start line is invalid"
BARE_LF = "lines must end with CRLF"
NO_VERSION = "the request line must end with an HTTP version (HTTP/0.9 is not served)"
NO_HOST = "an HTTP/1.1 request must have a Host header"


def not_a_request(head: bytes) -> str | None:
    """Why the bytes received so far of a request's head (without the blank lines that may come
    before it) cannot begin an HTTP request, as soon as that shows; None while they still can.
    Waitress only looks once the head has ended, and a client that is not speaking HTTP (a TLS
    handshake, an SSH banner) or ends its lines with a bare LF never sends that end: it would wait,
    unanswered, until the connection timed out."""
    method = _METHOD.match(head)
    assert method is not None  # the pattern matches the empty start of anything
    if method.end() < len(head) and head[method.end()] != ord(" "):
        return INVALID_START
    line_end = head.find(b"\n")
    if line_end < 0:
        return BARE_LF if _BARE_CR.search(head) else None
    if head[line_end - 1 : line_end] != b"\r" or has_bare_line_end(head, line_end + 1):
        return BARE_LF
    line = _REQUEST_LINE.fullmatch(head[:line_end].rstrip())
    if line is None:
        return INVALID_START
    return None if line["version"] else NO_VERSION


def has_bare_line_end(head: bytes, start: int) -> bool:
    """Whether a line of a head ends in a bare LF (or a bare CR) at or after `start`, up to the blank
    line that ends the head (a body after it may hold any bytes). What comes before `start` has been
    looked at, and is there for a CRLF, or the head's end, that began in it: a CR just before `start`
    is judged now, by what follows it."""
    end = head.find(HEAD_END, max(start - len(HEAD_END) + 1, 0))
    stop = len(head) if end < 0 else end + len(HEAD_END)
    return _BARE_LINE_END.search(head, max(start - 1, 0), stop) is not None


class Parser(HTTPRequestParser):
    """Waitress's parser, refusing a head at once when it cannot be an HTTP request's, and holding a
    chunked body to the body limit by its decoded bytes."""

    request_line_read = False  # once it is, only the ends of the header lines are looked at
    # The method as the client sent it, once seen: waitress parses a head it refuses unread (one too
    # large, or one refused here) as `GET /`, and the answer to HEAD must still have no content.
    method_sent = ""
    close_after = False  # whether the connection closes once the request is answered
    wire_bytes = 0  # of a chunked body: its bytes as sent, framing included
    raw_body_bytes = 0  # of another body: what waitress counts

    # Waitress adds each read of a body to `body_bytes_received` and refuses the body once that
    # reaches the limit. Counted as sent, a chunked body's framing would count against the limit
    # too (16-byte chunks add 37%): the limit is the decoded body's, and the framing has its own.
    @property
    def body_bytes_received(self) -> int:
        """The body's bytes received so far, a chunked body's decoded."""
        if self.chunked and self.body_rcv is not None:
            return len(self.body_rcv)
        return self.raw_body_bytes

    @body_bytes_received.setter
    def body_bytes_received(self, count: int) -> None:
        self.raw_body_bytes = count

    def received(self, data: bytes) -> int:
        if self.body_rcv is None and not self.completed:
            problem = self.head_problem(data)
            if problem is not None:
                self.parse_header(b"GET / HTTP/1.0\r\n")  # as waitress does for a head too large
                self.error = BadRequest(problem)
                self.completed = True
                return len(data)
        chunked_body = self.chunked and self.body_rcv is not None and not self.completed
        consumed: int = super().received(data)
        if chunked_body:
            self.wire_bytes += consumed
            limit = framing_limit(self.adj.max_request_body_size - 1)
            if self.error is None and self.wire_bytes - self.body_bytes_received > limit:
                self.error = FramingTooLarge(f"exceeds the framing limit of {limit}")
                self.completed = True
            elif self.error is None and not self.completed and self.declared_too_large():
                # A chunk whose declared size takes the body past the limit: refused now, not once
                # its bytes have come.
                self.error = RequestEntityTooLarge(f"exceeds max_body of {self.adj.max_request_body_size}")
                self.completed = True
        if self.completed:
            # Received whole (a request without a body, or one refused): there is nothing left to
            # send, so no 100 Continue. Waitress sends one for any request still expecting it, and
            # then marks the request not completed, so that it waits for a body that never comes and
            # parses the connection's next request into this one, headers and all.
            self.expect_continue = False
        return consumed

    def declared_too_large(self) -> bool:
        """Whether the chunk being received, by its declared size, takes the body to the limit."""
        remainder: int = getattr(self.body_rcv, "chunk_remainder", 0)
        return self.body_bytes_received + remainder >= self.adj.max_request_body_size

    def parse_header(self, header_plus: bytes) -> None:
        """Parse the head as waitress does, and also: close after answering a request that says
        `close` among other Connection options (waitress looks for `close` alone), or that has
        both Transfer-Encoding and Content-Length, as RFC 9112 asks; and refuse Transfer-Encoding
        in a request that is not HTTP/1.1, as waitress reads only Content-Length there, and would
        take a chunked body for the connection's next request; and refuse an HTTP/1.1 request
        without Host, as RFC 9112 asks."""
        super().parse_header(header_plus)
        headers: Mapping[str, str] = self.headers
        if self.version != "1.1" and "TRANSFER_ENCODING" in headers:
            raise ParsingError("Transfer-Encoding is only allowed in HTTP/1.1")
        if self.version == "1.1" and "HOST" not in headers:
            raise ParsingError(NO_HOST)
        options = {option.strip(" \t").lower() for option in headers.get("CONNECTION", "").split(",")}
        self.close_after = "close" in options or (self.chunked and "CONTENT_LENGTH" in headers)

    def head_problem(self, data: bytes) -> str | None:
        """Why the head cannot be a request's, now that `data` has come, or None: the request line
        is looked at as it comes, then only the new bytes, for a line ending in a bare LF or CR."""
        if self.request_line_read:
            seen = self.header_plus[-len(HEAD_END) :]  # the head so far: no end in it yet
            return BARE_LF if has_bare_line_end(seen + data, len(seen)) else None
        look = data[:LOOK_BYTES]
        head = (self.header_plus + look).lstrip()  # blank lines before it are allowed
        if not self.method_sent:
            method, space, _ = head.partition(b" ")
            self.method_sent = method.decode("latin-1") if space else ""
        problem = not_a_request(head)
        self.request_line_read = problem is None and b"\n" in head
        if self.request_line_read and len(data) > len(look) and HEAD_END not in head:
            return BARE_LF if has_bare_line_end(data, len(look)) else None  # the rest of a long read
        return problem


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
                [("Content-Length", str(len(self._BODY))), *ERROR_HEADERS],
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
