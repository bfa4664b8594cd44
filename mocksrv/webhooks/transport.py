"""How an attempt reaches its receiver: one POST, whose answer must come whole within the timeout.

requests' read timeout bounds each read of the socket, not the answer: a receiver that sends its
status line a byte at a time, or a body that never ends, would hold its merchant's deliveries for as
long as it likes. So the connections of a delivery session arm a watchdog as they wait for the
answer, and the watchdog shuts the socket of an attempt whose time is up. Only the status line
decides an attempt (any 2xx delivers it); the body is read, undecoded and up to BODY_LIMIT, only so
that the connection can carry the next attempt, and else the connection is closed. A receiver can
neither fill the server's memory with its answer nor fail a delivery it answered 2xx.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3 import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import ProtocolError
from urllib3.response import BaseHTTPResponse

from mocksrv.domain.webhooks import AttemptResult

CONNECT_TIMEOUT = 2.0
BODY_LIMIT = 64 * 1024  # bytes of an answer's body read so that its connection is kept
READ_SIZE = 8192
WATCHDOG_IDLE = 5.0  # seconds the watchdog thread waits with nothing armed before it ends
TIMED_OUT = "timeout: the receiver did not answer in time"


class Watchdog:
    """Shuts the socket a thread waits on once its deadline passes; one thread, while any is armed."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._armed: dict[int, tuple[float, socket.socket]] = {}  # by the waiting thread
        self._fired: set[int] = set()
        self._deadlines: dict[int, float] = {}  # by the waiting thread, kept once its socket is shut
        self._in_time: set[int] = set()  # threads whose answer's head was read before their deadline
        self._running = False
        self._ending = False  # end the thread as soon as nothing is armed
        self.thread: threading.Thread | None = None  # the one running, or the last one

    def arm(self, sock: socket.socket, seconds: float) -> None:
        """Shut `sock` in `seconds` unless this thread disarms first."""
        me = threading.get_ident()
        with self._changed:
            self._deadlines[me] = deadline = time.monotonic() + seconds
            self._armed[me] = (deadline, sock)
            self._fired.discard(me)
            self._in_time.discard(me)
            if not self._running:
                self._running = True
                self.thread = threading.Thread(
                    target=self._run, name="mocksrv-webhook-deadlines", daemon=True
                )
                self.thread.start()
            self._changed.notify()

    def head_read(self) -> None:
        """This thread has read its answer's head; in time if before its deadline. Read after it,
        the head may have been cut short by the socket's shutdown (it reads as whole all the same)."""
        now = time.monotonic()
        me = threading.get_ident()
        with self._changed:
            deadline = self._deadlines.get(me)
            if deadline is None or now < deadline:  # None: not watched, as nothing bounds it
                self._in_time.add(me)

    def late(self) -> bool:
        """Whether this thread's answer head was not read before its deadline, the watch kept on: a
        timeout, whether or not the socket has been shut yet."""
        me = threading.get_ident()
        with self._changed:
            return me not in self._in_time

    def disarm(self) -> bool:
        """Stop watching this thread's socket; whether its deadline had passed (the socket is shut)."""
        me = threading.get_ident()
        with self._changed:
            self._armed.pop(me, None)
            fired = me in self._fired
            self._fired.discard(me)
            self._in_time.discard(me)
            self._deadlines.pop(me, None)
            return fired

    def end_when_idle(self) -> None:
        """End the thread as soon as nothing is armed, not WATCHDOG_IDLE seconds later: a server
        stopped leaves no thread of its own behind for long. The next `arm` starts one again."""
        with self._changed:
            if self._running:
                self._ending = True
                self._changed.notify()

    def _run(self) -> None:
        with self._changed:
            idle_since = time.monotonic()
            while True:
                now = time.monotonic()
                for thread, (deadline, sock) in list(self._armed.items()):
                    if deadline <= now:
                        del self._armed[thread]
                        self._fired.add(thread)
                        with contextlib.suppress(OSError):  # closed meanwhile
                            sock.shutdown(socket.SHUT_RDWR)
                if self._armed:
                    idle_since = now
                elif self._ending or now - idle_since >= WATCHDOG_IDLE:
                    self._running = self._ending = False
                    return
                next_due = min((deadline for deadline, _ in self._armed.values()), default=None)
                self._changed.wait((idle_since + WATCHDOG_IDLE if next_due is None else next_due) - now)


WATCHDOG = Watchdog()


def _arm(connection: HTTPConnection) -> None:
    """Watch the answer to the request just sent: the read timeout urllib3 gave the connection for
    it is the time the whole answer has."""
    if connection.sock is not None and isinstance(connection.timeout, int | float):
        WATCHDOG.arm(connection.sock, connection.timeout)


# The status of the final answer to this thread's attempt, once its status line is read: the receiver
# answered, whatever its headers turn out to be.
_ANSWERED = threading.local()
SWITCHING_PROTOCOLS = 101


class _FinalAnswer(http.client.HTTPResponse):
    """http.client's answer, read past every informational (1xx) one. It skips only 100 Continue
    itself, and would take a 103 Early Hints or a 102 Processing for the answer, leaving the real
    one unread on the connection, for the next attempt to take as its own. Pinned by
    tests/e2e/test_webhook_transport.py, as `_read_status` is http.client's own."""

    def _read_status(self) -> tuple[str, int, str]:
        while True:
            version, status, reason = super()._read_status()  # type: ignore[misc]  # typeshed omits it
            if not 100 <= status < 200 or status == SWITCHING_PROTOCOLS:
                _ANSWERED.status = status
                return version, status, reason
            http.client.parse_headers(self.fp)  # an informational answer's headers: nothing to keep


class _TimedConnection(HTTPConnection):
    response_class = _FinalAnswer

    def getresponse(self) -> Any:
        _arm(self)
        response = super().getresponse()
        WATCHDOG.head_read()
        return response


class _TimedHTTPSConnection(_TimedConnection, HTTPSConnection):
    pass


class _TimedPool(HTTPConnectionPool):
    ConnectionCls = _TimedConnection


class _TimedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _TimedHTTPSConnection


class _TimedAdapter(HTTPAdapter):
    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _TimedPool, "https": _TimedHTTPSPool}


def new_session() -> requests.Session:
    """A delivery thread's session, whose connections arm the watchdog."""
    session = requests.Session()
    adapter = _TimedAdapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def post(
    session: requests.Session, url: str, body: bytes, headers: dict[str, str], timeout: float
) -> AttemptResult:
    """Send one attempt; its status, or what went wrong instead. Never raises."""
    started = time.perf_counter()
    _ANSWERED.status = None
    try:
        response = session.post(
            url,
            data=body,
            headers=headers,
            timeout=(CONNECT_TIMEOUT, timeout),
            allow_redirects=False,
            stream=True,
        )
    except Exception as error:  # an address urllib3 cannot parse raises its own ValueError
        fired = WATCHDOG.disarm()
        answered: int | None = _ANSWERED.status
        if answered is not None and not fired and _unreadable_head(error):
            # A status came, with headers http.client will not read (over 100, or a line over 64 KiB):
            # the receiver answered, and only its status counts.
            return AttemptResult(url, answered, _ms_since(started), None)
        return AttemptResult(url, None, _ms_since(started), TIMED_OUT if fired else _describe(error))
    # Shut before the headers ended, the answer reads as complete: a status line sent a byte at a
    # time, or one with headers that never end, is a timeout all the same.
    status = None if WATCHDOG.late() else response.status_code
    result = AttemptResult(url, status, _ms_since(started), TIMED_OUT if status is None else None)
    _let_go(response.raw)
    return result


def _let_go(answer: BaseHTTPResponse) -> None:
    """Read the rest of the answer, within its deadline, so that its connection carries the next
    attempt; close the connection instead if the body is long, broken or late."""
    read = 0
    finished = False
    try:
        while read <= BODY_LIMIT:
            chunk = answer.read(READ_SIZE, decode_content=False)
            if not chunk:
                finished = True
                break
            read += len(chunk)
    except Exception:  # cut short, or shut by the watchdog: the status was all that counted
        finished = False
    if WATCHDOG.disarm() or not finished:
        answer.close()
    answer.release_conn()


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _unreadable_head(error: Exception) -> bool:
    """Whether the attempt failed on the answer's headers, which http.client refuses to read."""
    cause = error.args[0] if isinstance(error, requests.ConnectionError) and error.args else None
    return isinstance(cause, ProtocolError) and any(
        isinstance(part, http.client.HTTPException) and not isinstance(part, http.client.RemoteDisconnected)
        for part in cause.args
    )


def _describe(error: Exception) -> str:
    if isinstance(error, requests.Timeout):
        return TIMED_OUT
    if isinstance(error, requests.exceptions.SSLError):
        return "TLS error: no TLS session with the receiver (is it served over https?)"
    if isinstance(error, requests.ConnectionError):
        if error.args and isinstance(error.args[0], ProtocolError):
            # Connected, and the request sent or on its way: the receiver may have read it.
            return "connection error: the receiver closed the connection without an HTTP answer"
        return "connection error: the receiver could not be reached"
    return f"request error: {type(error).__name__}"
