"""The HTTP layer under hostile clients: refusals in the JSON error shape, held and slow connections,
long-polls that never starve other requests, and a prompt stop with work in flight.

Every wait here is on a condition with a deadline; no test sleeps.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import orjson
import pytest
import requests

from mocksrv import MockServer
from mocksrv.receiver import DeadReceiver
from mocksrv.settings import Settings
from tests.e2e.harness import (
    DEADLINE,
    LOCALHOST,
    REQUEST_TIMEOUT,
    Merchant,
    ServerProcess,
    create_merchant,
    poll,
)
from tests.payloads import ADMIN_KEY, SECRET_KEY, payment

JSON = "application/json"
NOT_KEPT = ("no-store", "nosniff")  # what every error says, the app's or the server's: not cached or sniffed


def error(status: int, code: str, message: str) -> dict[str, Any]:
    kind = "invalid_request" if status < 500 else "api"
    return {"error": {"type": kind, "code": code, "message": message}}


def exchange(port: int, data: bytes) -> bytes:
    """Send raw bytes, then read the answer until the server closes the connection."""
    with socket.create_connection((LOCALHOST, port), timeout=DEADLINE) as sock:
        sock.sendall(data)
        answer = b""
        for _ in range(1000):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def read_answer(sock: socket.socket) -> bytes:
    """Read one answer, with a Content-Length, from a connection that stays open."""
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(65536)
    head, _, body = answer.partition(b"\r\n\r\n")
    length = int(parse(head + b"\r\n\r\n")[1]["content-length"])
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def parse(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    return int(status_line.split()[1]), {k.lower(): v for k, v in headers.items()}, body


def get_as_sent(server: MockServer, target: str) -> tuple[int, Any]:
    """A GET of `target` written into the request line as it is, no client tidying it first: the
    status and the JSON answered."""
    sent = f"GET {target} HTTP/1.1\r\nHost: x\r\napi-key: {SECRET_KEY}\r\nConnection: close\r\n\r\n"
    status, _, body = parse(exchange(server.port, sent.encode()))
    return status, json.loads(body)


def answers(raw: bytes) -> list[tuple[int, bytes]]:
    """The status and body of each answer in `raw`, answers to requests other than HEAD, in order."""
    found = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        status, headers, _ = parse(head + b"\r\n\r\n")
        length = int(headers.get("content-length", "0"))
        found.append((status, rest[:length]))
        raw = rest[length:]
    return found


def closed_by_server(sock: socket.socket, *, nudge: bytes = b"", within: float = DEADLINE) -> bool:
    """Whether the server closes `sock` within `within` seconds; `nudge` is sent between looks."""
    sock.settimeout(0.2)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if nudge:
                sock.sendall(nudge)
            if sock.recv(1024) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


@pytest.fixture
def start() -> Iterator[Callable[..., MockServer]]:
    started: list[MockServer] = []

    def make(**settings: Any) -> MockServer:
        started.append(MockServer(Settings(**settings)).start())
        return started[-1]

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def dead_receiver() -> Iterator[str]:
    """A webhook URL whose server accepts connections and never answers."""
    receiver = DeadReceiver()
    yield receiver.url
    receiver.close()


# -- refusals before the app, in the spec's shape -----------------------------------------------


def test_a_body_one_byte_over_the_limit_gets_the_same_answer_from_the_app(
    start: Callable[..., MockServer],
) -> None:
    server = start(max_body_bytes=1000)

    response = requests.post(
        f"{server.url}/payments",
        data=b"x" * 1001,
        headers={"api-key": SECRET_KEY, "Content-Type": JSON},
        timeout=REQUEST_TIMEOUT,
    )

    assert response.status_code == 413
    assert response.json() == error(413, "IR_06", "Request body is larger than the limit of 1000 bytes")


def test_a_hosted_page_refuses_a_body_over_the_limit_with_a_page(start: Callable[..., MockServer]) -> None:
    server = start(max_body_bytes=1000)

    response = requests.post(
        f"{server.url}/web/3ds/merchant_default/pay_1?client_secret=x",
        data={"action": "x" * 5000},
        timeout=REQUEST_TIMEOUT,
    )

    assert (response.status_code, response.headers["Content-Type"]) == (413, "text/html; charset=utf-8")
    assert response.headers["Referrer-Policy"] == "no-referrer"  # as every page says
    assert (response.headers["Cache-Control"], response.headers["X-Content-Type-Options"]) == NOT_KEPT
    assert "<title>Request Entity Too Large</title>" in response.text
    assert "Request body is larger than the limit of 1000 bytes" in response.text


# The API's link routes begin as a link's page does, /payment_link/: their refusals are JSON too.
@pytest.mark.parametrize("path", ["/payments", "/payment_link/list", "/payment_link/plink_1/customer_info"])
def test_a_body_over_the_limit_is_refused_with_a_json_413(
    start: Callable[..., MockServer], path: str
) -> None:
    server = start(max_body_bytes=1000)

    response = requests.post(
        f"{server.url}{path}",
        data=b"x" * 200_000,
        headers={"api-key": SECRET_KEY, "Content-Type": JSON},
        timeout=REQUEST_TIMEOUT,
    )

    assert (response.status_code, response.headers["Content-Type"]) == (413, JSON)
    assert (response.headers["Cache-Control"], response.headers["X-Content-Type-Options"]) == NOT_KEPT
    assert response.json() == error(413, "IR_06", "Request body is larger than the limit of 1000 bytes")


def test_headers_over_the_limit_are_refused_with_a_json_431(start: Callable[..., MockServer]) -> None:
    server = start(max_header_bytes=4096)

    response = requests.get(
        f"{server.url}/health",
        headers={"api-key": SECRET_KEY, "X-Padding": "a" * 10_000},
        timeout=REQUEST_TIMEOUT,
    )

    assert response.status_code == 431
    assert response.headers["Content-Type"] == JSON
    assert (response.headers["Cache-Control"], response.headers["X-Content-Type-Options"]) == NOT_KEPT
    assert response.json() == error(431, "IR_04", "Request headers are larger than the limit of 4096 bytes")


@pytest.mark.parametrize("target", ["/health?next=//x", "/health#//x", "http://h/health"])
def test_slashes_outside_the_path_leave_its_route_found(
    start: Callable[..., MockServer], target: str
) -> None:
    assert get_as_sent(start(), target) == (200, {"status": "healthy"})


def test_a_request_line_that_does_not_parse_is_refused_with_a_json_400(
    start: Callable[..., MockServer],
) -> None:
    server = start()

    status, headers, body = parse(exchange(server.port, b"NOT HTTP AT ALL\r\n\r\n"))

    assert (status, headers["content-type"]) == (400, JSON)
    assert (
        body
        == b'{"error":{"type":"invalid_request","code":"IR_04","message":"Malformed HTTP request: '
        + (b'Start line is invalid"}}')
    )


@pytest.mark.parametrize(
    "target",
    ["//payments", "//health", "///__mock/clock", "/%2Fcustomers/list", "/%2fhealth", "http://h//health"],
)
def test_a_leading_empty_segment_sent_to_the_server_names_no_route(
    start: Callable[..., MockServer], target: str
) -> None:
    assert get_as_sent(start(), target) == (404, error(404, "IR_02", "Unrecognized request URL"))


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        # A TLS handshake's first bytes, an SSH banner, a request whose lines end in a bare LF: none
        # ends with the blank line waitress waits for, and each is refused as it comes.
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", "Start line is invalid"),
        (b"SSH-2.0-OpenSSH_9.6\r\n", "Start line is invalid"),
        (b"GET /health HTTP/1.1\nHost: x\n\n", "lines must end with CRLF"),
        (b"GET /health HTTP/1.1\r\nHost: x\n\n", "lines must end with CRLF"),
        (b"GET /health HTTP/1.1\r\nHost: x\r\nX-A: b\n\r\n", "lines must end with CRLF"),
        (b"GET /health HTTP/1.1\rHost: x\r\r", "lines must end with CRLF"),
        (b"GET /health HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n", "lines must end with CRLF"),
        # HTTP/0.9's request: no version, no headers, and so no blank line after it.
        (b"GET /health\r\n", "the request line must end with an HTTP version (HTTP/0.9 is not served)"),
    ],
    ids=[
        "tls",
        "ssh",
        "bare-lf",
        "bare-lf-header",
        "bare-lf-last-header",
        "bare-cr",
        "bare-cr-header",
        "http-0.9",
    ],
)
def test_a_client_not_speaking_http_is_refused_at_once_with_a_json_400(
    start: Callable[..., MockServer], sent: bytes, message: str
) -> None:
    server = start(connection_timeout=600)  # a wait for the head's end would get no answer at all

    status, headers, body = parse(exchange(server.port, sent))

    assert (status, headers["content-type"]) == (400, JSON)
    assert orjson.loads(body) == error(400, "IR_04", f"Malformed HTTP request: {message}")


def without_date(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name != "date"}


@pytest.mark.parametrize(
    "sent",
    [
        b"GET /payments HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n",
        b"GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 5000 + b"\r\n\r\n",
        b"GET /pay\xffments HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /payments HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"GET /health HTTP/1.1\nHost: x\n\n",
    ],
    ids=["413", "431", "400-bad-uri", "501", "400-bare-lf"],
)
def test_a_refusal_before_the_app_answers_head_with_the_headers_of_get_and_no_content(
    start: Callable[..., MockServer], sent: bytes
) -> None:
    server = start(max_body_bytes=1000, max_header_bytes=4096)
    got_status, got_headers, got_body = parse(exchange(server.port, sent))

    status, headers, body = parse(exchange(server.port, b"HEAD" + sent.removeprefix(b"GET")))

    assert (status, without_date(headers), body) == (got_status, without_date(got_headers), b"")
    assert int(headers["content-length"]) == len(got_body) > 0


def test_an_unsupported_transfer_encoding_is_refused_with_a_json_501(
    start: Callable[..., MockServer],
) -> None:
    server = start()
    request = b"POST /payments HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"

    status, headers, body = parse(exchange(server.port, request))

    assert (status, headers["content-type"]) == (501, JSON)
    assert body == (
        b'{"error":{"type":"api","code":"HE_00","message":"Not supported by this server: '
        b'Transfer-Encoding requested is not supported"}}'
    )


# -- framing ------------------------------------------------------------------------------------------


HEALTH = f"GET /health HTTP/1.1\r\nHost: x\r\napi-key: {SECRET_KEY}\r\n".encode()
CREATE = orjson.dumps(payment())


@pytest.mark.parametrize(
    ("sent", "status"),
    [
        (HEALTH + b"Expect: 100-continue\r\nConnection: close\r\n\r\n", 200),
        (HEALTH.replace(b"GET", b"POST") + b"Expect: 100-continue\r\nConnection: close\r\n\r\n", 405),
        (
            HEALTH.replace(b"GET", b"POST")
            + b"Content-Length: 0\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
            405,
        ),
    ],
    ids=["get", "post-no-length", "post-length-0"],
)
def test_a_request_without_a_body_expecting_100_continue_is_answered_at_once(
    start: Callable[..., MockServer], sent: bytes, status: int
) -> None:
    server = start(connection_timeout=600)  # a wait for a body would get no answer at all

    assert [answer[0] for answer in answers(exchange(server.port, sent))] == [status]


def test_a_request_expecting_100_continue_gets_it_before_sending_its_body(
    start: Callable[..., MockServer],
) -> None:
    server = start(connection_timeout=600)
    with socket.create_connection((LOCALHOST, server.port), timeout=DEADLINE) as sock:
        sock.sendall(
            HEALTH.replace(b"GET /health", b"POST /payments")
            + f"Content-Type: application/json\r\nContent-Length: {len(CREATE)}\r\n".encode()
            + b"Expect: 100-continue\r\nConnection: close\r\n\r\n"
        )
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(CREATE)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk

    assert parse(answer)[0] == 200


def test_the_headers_of_a_request_expecting_100_continue_do_not_reach_the_next_one(
    start: Callable[..., MockServer],
) -> None:
    server = start(connection_timeout=600)
    keyless = (
        b"POST /payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(CREATE)}\r\nConnection: close\r\n\r\n".encode()
        + CREATE
    )

    found = answers(exchange(server.port, HEALTH + b"Expect: 100-continue\r\n\r\n" + keyless))

    assert found == [
        (200, b'{"status":"healthy"}'),
        (401, orjson.dumps(error(401, "IR_01", "API key not provided or invalid API key used"))),
    ]


def test_a_body_over_the_limit_expecting_100_continue_is_refused_at_once(
    start: Callable[..., MockServer],
) -> None:
    server = start(connection_timeout=600)
    sent = (
        b"POST /payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 5000000\r\nExpect: 100-continue\r\n\r\n"
    )

    status, headers, body = parse(exchange(server.port, sent))

    assert (status, headers["content-type"]) == (413, JSON)
    assert orjson.loads(body) == error(413, "IR_06", "Request body is larger than the limit of 1048576 bytes")


def chunked(body: bytes, size: int, trailer: bytes = b"") -> bytes:
    """`body` in chunks of `size` bytes, then the last chunk and `trailer`."""
    chunks = (body[start : start + size] for start in range(0, len(body), size))
    return b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n" + trailer + b"\r\n"


CHUNKED_CREATE = HEALTH.replace(b"GET /health", b"POST /payments") + (
    b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
)


def test_a_chunked_body_at_the_limit_is_taken_however_much_its_framing_adds(
    start: Callable[..., MockServer],
) -> None:
    server = start(max_body_bytes=1000)
    body = CREATE.ljust(1000)  # JSON may end in spaces
    sent = chunked(body, 16)
    assert len(sent) > 1300  # the framing adds 37%

    status, _, answer = parse(exchange(server.port, CHUNKED_CREATE + sent))

    assert (status, orjson.loads(answer)["status"]) == (200, "succeeded")


def test_a_chunked_body_over_the_limit_is_refused_with_a_json_413(start: Callable[..., MockServer]) -> None:
    server = start(max_body_bytes=1000)

    status, headers, body = parse(exchange(server.port, CHUNKED_CREATE + chunked(CREATE.ljust(1001), 500)))

    assert (status, headers["content-type"]) == (413, JSON)
    assert orjson.loads(body) == error(413, "IR_06", "Request body is larger than the limit of 1000 bytes")


def test_a_chunked_body_whose_framing_takes_more_than_its_own_limit_is_refused_with_a_json_413(
    start: Callable[..., MockServer],
) -> None:
    server = start(max_body_bytes=1000)  # the framing may take 64 KiB, more than the body's limit
    trailer = b"X-Padding: " + b"a" * 70_000 + b"\r\n"

    status, headers, body = parse(exchange(server.port, CHUNKED_CREATE + chunked(CREATE, 100, trailer)))

    assert (status, headers["content-type"]) == (413, JSON)
    assert orjson.loads(body) == error(
        413, "IR_06", "Chunked framing of the request body is larger than the limit of 65536 bytes"
    )


def test_a_chunk_declared_past_the_limit_is_refused_with_a_json_413_before_its_bytes_come(
    start: Callable[..., MockServer],
) -> None:
    server = start(max_body_bytes=1000, connection_timeout=600)  # a wait for the bytes gets no answer

    status, headers, body = parse(exchange(server.port, CHUNKED_CREATE + b"3e9\r\n" + CREATE))

    assert (status, headers["content-type"]) == (413, JSON)
    assert orjson.loads(body) == error(413, "IR_06", "Request body is larger than the limit of 1000 bytes")


@pytest.mark.parametrize(
    ("version", "host", "status"),
    [(b"HTTP/1.1", b"", 400), (b"HTTP/1.1", b"Host: x\r\n", 200), (b"HTTP/1.0", b"", 200)],
    ids=["1.1-without", "1.1-with", "1.0-without"],
)
def test_an_http_1_1_request_without_host_is_refused_with_a_json_400(
    start: Callable[..., MockServer], version: bytes, host: bytes, status: int
) -> None:
    server = start()
    key = f"api-key: {SECRET_KEY}\r\n".encode()
    sent = b"GET /health " + version + b"\r\n" + host + key + b"Connection: close\r\n\r\n"

    found = answers(exchange(server.port, sent))

    refused = error(400, "IR_04", "Malformed HTTP request: an HTTP/1.1 request must have a Host header")
    assert found == [(status, orjson.dumps(refused) if status == 400 else b'{"status":"healthy"}')]


@pytest.mark.parametrize("options", [b"close, te", b"keep-alive, close", b"TE,Close"])
def test_a_request_saying_close_among_other_connection_options_is_answered_and_the_connection_closed(
    start: Callable[..., MockServer], options: bytes
) -> None:
    server = start(connection_timeout=600)  # a connection kept open would get no end at all
    sent = HEALTH + b"Connection: " + options + b"\r\n\r\n" + HEALTH + b"\r\n"

    found = answers(exchange(server.port, sent))

    assert found == [(200, b'{"status":"healthy"}')]


def test_a_request_with_both_transfer_encoding_and_content_length_is_answered_and_the_connection_closed(
    start: Callable[..., MockServer],
) -> None:
    server = start(connection_timeout=600)
    sent = CHUNKED_CREATE.replace(b"Connection: close\r\n", b"Content-Length: 5\r\n") + chunked(CREATE, 100)

    found = answers(exchange(server.port, sent + HEALTH + b"\r\n"))

    assert [status for status, _ in found] == [200]
    assert orjson.loads(found[0][1])["status"] == "succeeded"


@pytest.mark.parametrize(
    ("version", "reason"),
    [
        (b"HTTP/1.0", "Transfer-Encoding is only allowed in HTTP/1.1"),
        (b"HTTP/1.2", "HTTP/1.2 is not served: send HTTP/1.1 or HTTP/1.0"),  # refused for its version first
    ],
)
def test_transfer_encoding_in_a_request_other_than_http_1_1_is_refused_with_a_json_400(
    start: Callable[..., MockServer], version: bytes, reason: str
) -> None:
    server = start(connection_timeout=600)
    smuggled = HEALTH.replace(b"/health", b"/customers/list") + b"\r\n"  # a request if the body ran as one
    sent = (
        HEALTH.replace(b"GET /health HTTP/1.1", b"POST /payments " + version)
        + b"Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
        + chunked(smuggled, 1000)
    )

    found = answers(exchange(server.port, sent))

    assert found == [(400, orjson.dumps(error(400, "IR_04", f"Malformed HTTP request: {reason}")))]


# -- connections ---------------------------------------------------------------------------------


def test_three_hundred_idle_connections_leave_new_clients_served(start: Callable[..., MockServer]) -> None:
    server = start()
    with ExitStack() as stack:
        for _ in range(300):
            stack.enter_context(socket.create_connection((LOCALHOST, server.port), timeout=DEADLINE))

        answers = [
            requests.get(f"{server.url}/health", headers={"api-key": SECRET_KEY}, timeout=REQUEST_TIMEOUT)
            for _ in range(20)
        ]

    assert [answer.status_code for answer in answers] == [200] * 20


def test_an_idle_connection_is_closed_after_the_timeout(start: Callable[..., MockServer]) -> None:
    server = start(connection_timeout=1)

    with socket.create_connection((LOCALHOST, server.port), timeout=DEADLINE) as sock:
        assert closed_by_server(sock)


def test_a_connection_that_trickles_its_headers_is_closed_after_the_timeout(
    start: Callable[..., MockServer],
) -> None:
    server = start(connection_timeout=1)

    with socket.create_connection((LOCALHOST, server.port), timeout=DEADLINE) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        # A header line every 0.2 s keeps it active, but the request never completes.
        assert closed_by_server(sock, nudge=b"X-Slow: 1\r\n")


def test_a_keep_alive_connection_between_requests_is_not_cut_short(start: Callable[..., MockServer]) -> None:
    server = start(connection_timeout=5)

    with requests.Session() as session:
        statuses = [
            session.get(f"{server.url}/health", headers={"api-key": SECRET_KEY}, timeout=REQUEST_TIMEOUT)
            for _ in range(3)
        ]

    assert [status.status_code for status in statuses] == [200, 200, 200]


# -- long-polls -----------------------------------------------------------------------------------


# A delivery to the dead receiver hangs this long; until it ends, the merchant's waits for drained
# deliveries stay open, so every wait a test holds lasts until the test stops the server.
HUNG = 120
HELD = 60  # the timeout of the waits a test holds open; stopping the server answers them

# A stop that hung would wait out the long-polls or the hung delivery; a prompt one takes about
# 0.1 s. The bound leaves room for a busy machine; the 2 s promise is the README's figure.
STOP_BOUND = 5.0


def until_refused(merchant: Merchant) -> bool:
    """Whether the merchant's long-polls fill its allowance within the deadline: a further wait,
    asked for with no timeout, is then refused at once. Each look is a request, so none sleeps; the
    deadline, not the count of looks, bounds it, as the held waits open late on a busy machine."""
    return (
        poll(
            lambda: probe_wait(merchant), lambda status: status == 429, timeout=DEADLINE, max_attempts=100_000
        )
        == 429
    )


def busy_merchant(base_url: str, webhook_url: str) -> Merchant:
    """A merchant with a delivery that never finishes: its waits stay open until their timeout."""
    # No rate limit: the probes of `until_refused` must meet the long-polls' 429, not the limiter's.
    merchant = create_merchant(base_url, ADMIN_KEY, webhook_url=webhook_url, rate_limit=0)
    created = merchant.post("/payments", payment(profile_id=merchant.profile_id))
    assert (created.status_code, created.json()["status"]) == (200, "succeeded")
    return merchant


def test_a_merchant_past_its_open_long_polls_gets_a_429(
    start: Callable[..., MockServer], dead_receiver: str
) -> None:
    server = start(max_waits=8, max_waits_per_merchant=2, webhook_timeout=HUNG)
    merchant = busy_merchant(server.url, dead_receiver)
    other = busy_merchant(server.url, dead_receiver)
    with ThreadPoolExecutor(2) as pool:
        held = [pool.submit(merchant.wait_webhooks, HELD) for _ in range(2)]
        assert until_refused(merchant)

        refused = merchant.session.post(f"{server.url}/__mock/webhooks/wait", json={"timeout": 1})
        others = other.session.post(f"{server.url}/__mock/webhooks/wait", json={"timeout": 0})

        assert refused.status_code == 429
        assert refused.json() == error(
            429,
            "RL_01",
            "Too many long-polls open: at most 2 per merchant and 8 in all; try again once one is answered",
        )
        assert (others.status_code, others.json()) == (200, {"drained": False, "pending": 1})
        server.stop()
        assert [future.result(DEADLINE) for future in held] == [False, False]


def test_long_polls_past_the_servers_total_get_a_429(
    start: Callable[..., MockServer], dead_receiver: str
) -> None:
    server = start(max_waits=2, max_waits_per_merchant=2, webhook_timeout=HUNG)
    merchants = [busy_merchant(server.url, dead_receiver) for _ in range(3)]
    with ThreadPoolExecutor(2) as pool:
        held = [pool.submit(merchant.wait_webhooks, HELD) for merchant in merchants[:2]]
        assert until_refused(merchants[2])

        refused = merchants[2].session.post(f"{server.url}/__mock/webhooks/wait", json={"timeout": 1})

        assert refused.status_code == 429
        server.stop()
        assert [future.result(DEADLINE) for future in held] == [False, False]


def test_sixty_four_open_long_polls_leave_other_merchants_served(
    start: Callable[..., MockServer], dead_receiver: str
) -> None:
    server = start(webhook_timeout=HUNG)
    waiters = [busy_merchant(server.url, dead_receiver) for _ in range(4)]
    other = create_merchant(server.url, ADMIN_KEY)
    with ThreadPoolExecutor(64) as pool:
        held = [pool.submit(waiter.wait_webhooks, HELD) for waiter in waiters for _ in range(16)]
        assert all(until_refused(waiter) for waiter in waiters)

        answers = [other.get("/customers/list").status_code for _ in range(20)]

        assert answers == [200] * 20
        server.stop()  # answers the open waits
        assert [future.result(DEADLINE) for future in held] == [False] * 64


def request_threads() -> int:
    """The request threads of the servers in this process (waitress names them)."""
    return sum(thread.name.startswith("waitress-") for thread in threading.enumerate())


def test_the_threads_long_polls_add_leave_once_they_are_answered(start: Callable[..., MockServer]) -> None:
    server = start(max_waits_per_merchant=4, webhook_timeout=HUNG)
    receiver = DeadReceiver()
    try:
        merchant = busy_merchant(server.url, receiver.url)
        before = request_threads()
        with ThreadPoolExecutor(4) as pool:
            held = [pool.submit(merchant.wait_webhooks, HELD) for _ in range(4)]
            assert until_refused(merchant)
            assert request_threads() == before + 4  # a thread for each, beside those for other requests

            receiver.close()  # the hung delivery fails at once: every wait is answered
            assert [future.result(DEADLINE) for future in held] == [True] * 4
    finally:
        receiver.close()

    # The pool shrinks back, so a burst of long-polls leaves no threads (nor their memory) behind. A
    # look takes microseconds: the deadline, not the count of looks, bounds the poll.
    left = poll(request_threads, lambda count: count == before, timeout=DEADLINE, max_attempts=10**9)
    assert left == before
    assert merchant.get("/customers/list").status_code == 200


# -- stopping -------------------------------------------------------------------------------------


def test_stop_answers_open_long_polls_and_returns_promptly(
    start: Callable[..., MockServer], dead_receiver: str
) -> None:
    server = start(max_waits_per_merchant=4, webhook_timeout=HUNG)
    merchant = busy_merchant(server.url, dead_receiver)
    with ThreadPoolExecutor(4) as pool:
        held: list[Future[bool]] = [pool.submit(merchant.wait_webhooks, HELD) for _ in range(4)]
        assert until_refused(merchant)
        began = time.monotonic()

        server.stop()

        assert time.monotonic() - began < STOP_BOUND
        assert [future.result(DEADLINE) for future in held] == [False] * 4


def test_a_stopping_server_answers_a_request_on_an_open_connection_with_a_json_503(
    start: Callable[..., MockServer],
) -> None:
    server = start()
    with requests.Session() as session:
        headers = {"api-key": SECRET_KEY}
        assert (
            session.get(f"{server.url}/health", headers=headers, timeout=REQUEST_TIMEOUT).status_code == 200
        )
        server._running.http.refuse()  # type: ignore[union-attr]  # the first step of stop()

        answer = session.get(f"{server.url}/health", headers=headers, timeout=REQUEST_TIMEOUT)

    assert answer.status_code == 503
    assert answer.json() == error(503, "HE_00", "The server is shutting down")
    assert (answer.headers["Cache-Control"], answer.headers["X-Content-Type-Options"]) == NOT_KEPT
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{server.url}/health", headers=headers, timeout=REQUEST_TIMEOUT)


def test_a_stopping_server_answers_head_with_the_headers_of_its_503_and_no_content(
    start: Callable[..., MockServer],
) -> None:
    server = start(connection_timeout=600)
    with socket.create_connection((LOCALHOST, server.port), timeout=DEADLINE) as sock:
        sock.sendall(HEALTH + b"\r\n")
        assert parse(read_answer(sock))[0] == 200
        server._running.http.refuse()  # type: ignore[union-attr]  # the first step of stop()

        sock.sendall(HEALTH.replace(b"GET", b"HEAD") + b"Connection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk

    status, headers, body = parse(answer)
    assert (status, headers["content-type"], body) == (503, JSON, b"")
    refusal = orjson.dumps(error(503, "HE_00", "The server is shutting down"))
    assert int(headers["content-length"]) == len(refusal)


def test_sigterm_with_a_long_poll_open_answers_it_and_exits_promptly(
    tmp_path: Path, dead_receiver: str
) -> None:
    server = ServerProcess(
        ["--port", "0", "--max-waits-per-merchant", "1", "--webhook-timeout", str(HUNG)],
        tmp_path / "stderr.log",
    ).start()
    try:
        merchant = busy_merchant(server.base_url, dead_receiver)
        port = int(server.base_url.rsplit(":", 1)[1])
        body = b'{"timeout": %d}' % HELD
        request = (
            b"POST /__mock/webhooks/wait HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"api-key: {merchant.secret_key}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        with ThreadPoolExecutor(1) as pool:
            answer = pool.submit(exchange, port, request)
            # The merchant may hold one long-poll: a second one refused shows the first is open.
            assert until_refused(merchant)
            began = time.monotonic()

            code = server.stop()

            assert time.monotonic() - began < STOP_BOUND
            assert code == 0
            status, _, body = parse(answer.result(DEADLINE))
    finally:
        server.stop()
    assert (status, body) == (200, b'{"drained":false,"pending":1}')


def probe_wait(merchant: Merchant) -> int:
    return merchant.post("/__mock/webhooks/wait", {"timeout": 0}).status_code


def test_an_answer_without_content_keeps_the_connection_open_for_the_next_request(
    start: Callable[..., MockServer],
) -> None:
    """A browser's preflight (204) and a still valid SDK file (304) are followed on their connection."""
    server = start(connection_timeout=600)
    script = "/web/0.1/v1/HyperLoader.js"
    etag = requests.get(f"{server.url}{script}", timeout=DEADLINE).headers["ETag"]
    preflight = (
        b"OPTIONS /payments HTTP/1.1\r\nHost: x\r\nOrigin: https://shop.example\r\n"
        b"Access-Control-Request-Method: POST\r\n\r\n"
    )
    revalidation = f"GET {script} HTTP/1.1\r\nHost: x\r\nIf-None-Match: {etag}\r\n\r\n".encode()
    last = HEALTH + b"Connection: close\r\n\r\n"

    found = answers(exchange(server.port, preflight + revalidation + last))

    assert found == [(204, b""), (304, b""), (200, b'{"status":"healthy"}')]
