"""How one webhook attempt meets a receiver that answers badly: late, slowly, endlessly, hugely."""

from __future__ import annotations

import gzip
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager

import pytest
import requests

from mocksrv.webhooks import transport

TIMEOUT = 1.0  # the attempt's timeout in these tests
DEADLINE = 10.0  # seconds a scripted receiver may run; none of its loops outlives it
BODY = b'{"event_id": "evt_1"}'
HEADERS = {"Content-Type": "application/json"}
OK_HEAD = b"HTTP/1.1 200 OK\r\n"

# Writes the answer to one request; the event is set once the test is done with the receiver.
Answer = Callable[[socket.socket, threading.Event], None]


def read_request(conn: socket.socket) -> bool:
    """Read one request (headers, then a Content-Length body); False once the client has gone."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        rest += chunk
    return True


class ScriptedReceiver:
    """A receiver on 127.0.0.1 that answers every request on a connection with `answer`."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.closed = threading.Event()
        self.connections = 0
        self.requests = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(DEADLINE)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._talk, args=(conn, deadline), daemon=True).start()

    def _talk(self, conn: socket.socket, deadline: float) -> None:
        conn.settimeout(DEADLINE)
        with closing(conn):
            while time.monotonic() < deadline:
                try:
                    if not read_request(conn):
                        return
                    self.requests += 1
                    self.answer(conn, self.closed)
                except OSError:  # the client shut the connection: what these tests look for
                    return

    def close(self) -> None:
        self.closed.set()
        self.listener.close()


@contextmanager
def receiver(answer: Answer) -> Iterator[ScriptedReceiver]:
    scripted = ScriptedReceiver(answer)
    try:
        yield scripted
    finally:
        scripted.close()


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with transport.new_session() as session:
        yield session


def send(session: requests.Session, url: str) -> tuple[transport.AttemptResult, float]:
    started = time.monotonic()
    result = transport.post(session, url, BODY, HEADERS, TIMEOUT)
    return result, time.monotonic() - started


def answer_with(head: bytes, body: bytes = b"") -> Answer:
    return lambda conn, closed: conn.sendall(head + b"\r\n" + body)


def endless_chunks(conn: socket.socket, closed: threading.Event) -> None:
    """A chunk every 50 ms, never the last one, until the test is done."""
    conn.sendall(OK_HEAD + b"Transfer-Encoding: chunked\r\n\r\n")
    for _ in range(int(DEADLINE / 0.05)):
        conn.sendall(b"4\r\nbody\r\n")
        if closed.wait(0.05):
            return


def huge_body(conn: socket.socket, closed: threading.Event) -> None:
    conn.sendall(OK_HEAD + b"Content-Length: 2000000000\r\n\r\n")
    block = b"x" * 65536
    for _ in range(2_000_000_000 // len(block)):
        conn.sendall(block)


def trickled_head(conn: socket.socket, closed: threading.Event) -> None:
    """The head a byte every 200 ms, each well within the read timeout, until the test is done."""
    for byte in OK_HEAD + b"Content-Length: 0\r\n\r\n":
        conn.sendall(bytes([byte]))
        if closed.wait(0.2):
            return


def test_a_body_that_never_ends_still_delivers_and_frees_the_thread_by_the_timeout(
    session: requests.Session,
) -> None:
    with receiver(endless_chunks) as endless:
        result, took = send(session, endless.url)

    assert (result.status_code, result.error, result.succeeded) == (200, None, True)
    assert took < TIMEOUT + 2


class StallingWatchdog(transport.Watchdog):
    """Stalls once it has been told of a head, until the attempt's deadline has passed and its socket
    is shut: the worst a busy interpreter could do between the head and the check of it."""

    sock: socket.socket | None = None

    def arm(self, sock: socket.socket, seconds: float) -> None:
        self.sock = sock
        super().arm(sock, seconds)

    def head_read(self) -> None:
        super().head_read()
        assert self.sock is not None
        self.sock.settimeout(DEADLINE)  # the answer's body is empty: the next read waits for the shutdown
        assert self.sock.recv(1) == b"", "the watchdog never shut the socket"


def test_a_head_read_in_time_delivers_though_the_deadline_passes_before_it_is_looked_at(
    session: requests.Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transport, "WATCHDOG", StallingWatchdog())
    with receiver(answer_with(OK_HEAD + b"Content-Length: 0\r\n")) as prompt:
        result, _ = send(session, prompt.url)

    assert (result.status_code, result.error, result.succeeded) == (200, None, True)


def test_a_huge_body_is_not_read_into_memory(session: requests.Session) -> None:
    with receiver(huge_body) as huge:
        result, took = send(session, huge.url)

    assert (result.status_code, result.succeeded) == (200, True)
    assert took < TIMEOUT + 2  # 2 GB would not have been read in this time


def test_a_status_line_trickled_past_the_timeout_is_a_timeout(session: requests.Session) -> None:
    with receiver(trickled_head) as slow:
        result, took = send(session, slow.url)

    assert (result.status_code, result.error) == (None, "timeout: the receiver did not answer in time")
    assert took < TIMEOUT + 2  # the whole head would have taken 8 s


def stalled_after(sent: bytes) -> Answer:
    """Part of a head, then nothing more until the test is done."""

    def answer(conn: socket.socket, closed: threading.Event) -> None:
        conn.sendall(sent)
        closed.wait(DEADLINE)

    return answer


@pytest.mark.parametrize(
    "sent",
    [b"HTTP/1.1 200", OK_HEAD, OK_HEAD + b"Content-Length: 0\r\n"],
    ids=["status-without-its-end", "status-line-alone", "headers-without-their-end"],
)
def test_a_head_that_stops_short_of_its_end_is_a_timeout(session: requests.Session, sent: bytes) -> None:
    with receiver(stalled_after(sent)) as stalled:
        result, _ = send(session, stalled.url)

    assert (result.status_code, result.error, result.succeeded) == (
        None,
        "timeout: the receiver did not answer in time",
        False,
    )


@pytest.mark.parametrize(
    "answer",
    [
        # A gzip body that is not gzip, a body shorter than its Content-Length, and a body that
        # never comes: the receiver answered 200, so the event was delivered.
        answer_with(OK_HEAD + b"Content-Encoding: gzip\r\nContent-Length: 9\r\n", b"not gzip!"),
        lambda conn, closed: (
            answer_with(OK_HEAD + b"Content-Length: 100\r\n", b"short")(conn, closed),
            conn.close(),
        ),
        answer_with(OK_HEAD + b"Content-Length: 100\r\n"),
        # A gzip bomb: 1 GB of zeros, never decoded.
        answer_with(
            OK_HEAD
            + b"Content-Encoding: gzip\r\nContent-Length: %d\r\n" % len(bomb := gzip.compress(bytes(10**8))),
            bomb,
        ),
    ],
    ids=["bad-gzip", "short", "no-body", "gzip-bomb"],
)
def test_a_2xx_with_a_faulty_body_delivers(session: requests.Session, answer: Answer) -> None:
    with receiver(answer) as faulty:
        result, _ = send(session, faulty.url)

    assert (result.status_code, result.error, result.succeeded) == (200, None, True)


def test_a_whole_short_answer_leaves_its_connection_for_the_next_attempt(session: requests.Session) -> None:
    with receiver(answer_with(OK_HEAD + b"Content-Length: 2\r\n", b"ok")) as good:
        first, _ = send(session, good.url)
        second, _ = send(session, good.url)

    assert (first.status_code, second.status_code) == (200, 200)
    assert (good.connections, good.requests) == (1, 2)


def test_a_long_answer_closes_its_connection(session: requests.Session) -> None:
    long_body = b"x" * (4 * transport.BODY_LIMIT)  # read up to the limit, the rest left unread
    with receiver(answer_with(OK_HEAD + b"Content-Length: %d\r\n" % len(long_body), long_body)) as long:
        first, _ = send(session, long.url)
        second, _ = send(session, long.url)

    assert (first.status_code, second.status_code) == (200, 200)
    assert (long.connections, long.requests) == (2, 2)


@pytest.mark.parametrize("url", [f"http://{'a' * 64}.example/hook", "http://a..b/hook"])
def test_an_address_urllib3_cannot_parse_is_a_failed_attempt(session: requests.Session, url: str) -> None:
    result, _ = send(session, url)

    assert (result.url, result.status_code) == (url, None)
    assert str(result.error).startswith("request error: ")


def informational_first(status: bytes, final: bytes) -> Answer:
    return answer_with(
        b"HTTP/1.1 "
        + status
        + b"\r\nLink: </style.css>; rel=preload\r\n\r\n"
        + final
        + b"Content-Length: 2\r\n",
        b"ok",
    )


@pytest.mark.parametrize("informational", [b"103 Early Hints", b"102 Processing"])
def test_an_informational_answer_is_read_past_and_the_next_attempt_gets_its_own(
    session: requests.Session, informational: bytes
) -> None:
    answers = iter([OK_HEAD, b"HTTP/1.1 500 Internal Server Error\r\n"])
    with receiver(
        lambda conn, closed: informational_first(informational, next(answers))(conn, closed)
    ) as hints:
        first, _ = send(session, hints.url)
        second, _ = send(session, hints.url)

    # Before, the first took the 1xx for its answer and the second the first's 200.
    assert (first.status_code, first.succeeded, second.status_code, second.succeeded) == (
        200,
        True,
        500,
        False,
    )
    assert (hints.connections, hints.requests) == (1, 2)


@pytest.mark.parametrize(
    "head",
    [
        OK_HEAD + b"".join(b"X-H%d: v\r\n" % i for i in range(120)),
        OK_HEAD + b"X-Long: " + b"v" * 70_000 + b"\r\n",
    ],
    ids=["120-headers", "a-70-KB-header"],
)
def test_a_2xx_whose_headers_http_client_will_not_read_still_delivers(
    session: requests.Session, head: bytes
) -> None:
    with receiver(answer_with(head + b"Content-Length: 0\r\n")) as odd:
        result, _ = send(session, odd.url)

    assert (result.status_code, result.error, result.succeeded) == (200, None, True)


@pytest.mark.parametrize(
    "answer",
    [
        lambda conn, closed: conn.close(),  # the request read, no status line
        answer_with(b"hello there\r\n"),
        answer_with(b"200 OK\r\n"),  # no version
    ],
    ids=["closed", "not-http", "no-version"],
)
def test_a_receiver_reached_that_answered_no_http_is_said_so(
    session: requests.Session, answer: Answer
) -> None:
    with receiver(answer) as mute:
        result, _ = send(session, mute.url)

    assert (result.status_code, result.error) == (
        None,
        "connection error: the receiver closed the connection without an HTTP answer",
    )
    assert mute.requests == 1


def test_https_to_a_plain_receiver_is_a_tls_error(session: requests.Session) -> None:
    def plain_http() -> None:  # answers a TLS handshake as an HTTP server answers bytes it cannot read
        conn, _ = listener.accept()
        with closing(conn):
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")

    with closing(socket.create_server(("127.0.0.1", 0))) as listener:
        listener.settimeout(DEADLINE)
        threading.Thread(target=plain_http, daemon=True).start()
        result, _ = send(session, f"https://127.0.0.1:{listener.getsockname()[1]}/hook")

    assert (result.status_code, result.error) == (
        None,
        "TLS error: no TLS session with the receiver (is it served over https?)",
    )


def test_a_port_nobody_listens_on_could_not_be_reached(session: requests.Session) -> None:
    with closing(socket.create_server(("127.0.0.1", 0))) as taken:
        url = f"http://127.0.0.1:{taken.getsockname()[1]}/hook"
    result, _ = send(session, url)

    assert (result.status_code, result.error) == (None, "connection error: the receiver could not be reached")


def test_a_100_continue_before_no_http_answer_is_no_answer(session: requests.Session) -> None:
    with receiver(answer_with(b"HTTP/1.1 100 Continue\r\n\r\nhello there\r\n")) as odd:
        result, _ = send(session, odd.url)

    assert (result.status_code, result.error) == (
        None,
        "connection error: the receiver closed the connection without an HTTP answer",
    )
