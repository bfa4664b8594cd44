"""A real webhook receiver on 127.0.0.1, for tests: records what arrives, answers as it is told.

with WebhookReceiver() as receiver:
    endpoint = receiver.endpoint(signing_key)     # one path of the receiver, e.g. for one test
    merchant.set_webhook_url(endpoint.url)
    ...
    event = endpoint.wait_for("payment_succeeded", object_id=payment_id)
    assert event.verified
"""

from __future__ import annotations

import json
import selectors
import socket
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

from requests.structures import CaseInsensitiveDict

from mocksrv.signatures import SIGNATURE_HEADER, verify_signature

T = TypeVar("T")

LOCALHOST = "127.0.0.1"
MAX_BODY_BYTES = 16 * 1024 * 1024

# The field of `content.object` that holds the id of the object an event reports.
OBJECT_ID_FIELDS = {
    "payment_details": "payment_id",
    "refund_details": "refund_id",
    "dispute_details": "dispute_id",
    "payout_details": "payout_id",
    "mandate_details": "mandate_id",
}

__all__ = ["ReceivedWebhook", "WebhookEndpoint", "WebhookReceiver"]


@dataclass(frozen=True)
class ReceivedWebhook:
    """One delivery as it arrived: the exact bytes, the headers, the parsed body, and what we answered."""

    raw: bytes
    headers: Mapping[str, str]
    body: Any
    verified: bool  # the signature header is the HMAC-SHA512 of `raw` with the merchant's signing key
    status: int  # the status the receiver answered
    delay: float = 0.0  # the seconds it held the delivery before answering

    @property
    def event_type(self) -> str | None:
        return self._field("event_type")

    @property
    def event_id(self) -> str | None:
        return self._field("event_id")

    @property
    def object_id(self) -> str | None:
        """The id of the payment, refund, dispute, payout or mandate the event reports."""
        content = self.body.get("content") if isinstance(self.body, dict) else None
        if not isinstance(content, dict) or not isinstance(content.get("object"), dict):
            return None
        value = content["object"].get(OBJECT_ID_FIELDS.get(str(content.get("type")), ""))
        return value if isinstance(value, str) else None

    def _field(self, name: str) -> str | None:
        value = self.body.get(name) if isinstance(self.body, dict) else None
        return value if isinstance(value, str) else None

    def __str__(self) -> str:
        return f"{self.event_type} {self.object_id} (answered {self.status})"


@dataclass
class _Answer:
    status: int
    delay: float
    times: int | None  # deliveries left to answer this way; None: all from now on


class WebhookEndpoint:
    """One path of a receiver: the deliveries it got, a wait with a deadline, and how it answers."""

    def __init__(self, receiver: WebhookReceiver, path: str, signing_key: str) -> None:
        self.path = path
        self.url = f"{receiver.url}{path}"
        self.signing_key = signing_key
        self._received: list[ReceivedWebhook] = []
        self._answer: _Answer | None = None
        self._changed = threading.Condition()
        self._closed = threading.Event()

    @property
    def events(self) -> list[ReceivedWebhook]:
        """Every delivery so far, in the order it arrived (a retried event arrives once per attempt)."""
        with self._changed:
            return list(self._received)

    def respond_with(self, status: int = 200, delay: float = 0.0, times: int | None = None) -> None:
        """Answer the next `times` deliveries (every one, if None) with `status` after `delay` seconds.

        A delay longer than the server's webhook timeout makes the delivery hang until it gives up.
        Once `times` deliveries have been answered so, the endpoint answers 200 at once again.
        """
        if not 100 <= status <= 599:
            raise ValueError(f"status {status} is not an HTTP status")
        if delay < 0 or (times is not None and times < 1):
            raise ValueError("delay must be at least 0 and times at least 1")
        with self._changed:
            self._answer = _Answer(status, delay, times)

    def wait_for(self, event_type: str, object_id: str | None = None, timeout: float = 10) -> ReceivedWebhook:
        """Return the first delivery of `event_type` (for `object_id`, if given) to arrive.

        Waits at most `timeout` seconds; then fails with the deliveries that did arrive.
        """
        __tracebackhide__ = True  # pytest shows the caller's line, not this one

        def first(events: list[ReceivedWebhook]) -> ReceivedWebhook | None:
            wanted = (e for e in events if e.event_type == event_type and object_id in (None, e.object_id))
            return next(wanted, None)

        found = self.wait_until(first, timeout)
        if found is None:
            wanted = event_type if object_id is None else f"{event_type} for {object_id}"
            arrived = ", ".join(str(event) for event in self.events) or "nothing"
            raise AssertionError(f"no {wanted} arrived at {self.url} within {timeout} s; arrived: {arrived}")
        return found

    def wait_until(self, found: Callable[[list[ReceivedWebhook]], T | None], timeout: float) -> T | None:
        """What `found` makes of the deliveries so far, as soon as it is not None (asked again as each
        delivery arrives), or None after `timeout` seconds."""
        answer: list[T | None] = [None]

        def answered() -> bool:  # not the answer itself: a falsy one (0, []) is an answer too
            answer[0] = found(self._received)
            return answer[0] is not None

        with self._changed:
            self._changed.wait_for(answered, timeout)
        return answer[0]

    def close(self) -> None:
        """Release any delivery held by a delay."""
        self._closed.set()

    def _receive(self, raw: bytes, headers: Mapping[str, str]) -> tuple[int, float]:
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        verified = verify_signature(raw, headers.get(SIGNATURE_HEADER), self.signing_key)
        with self._changed:
            status, delay = 200, 0.0
            answer = self._answer
            if answer is not None:
                status, delay = answer.status, answer.delay
                if answer.times is not None:
                    answer.times -= 1
                    if answer.times == 0:
                        self._answer = None
            self._received.append(ReceivedWebhook(raw, headers, body, verified, status, delay))
            self._changed.notify_all()
        return status, delay

    def _hold(self, delay: float) -> None:
        if delay > 0:
            self._closed.wait(delay)


class WebhookReceiver:
    """An HTTP server on 127.0.0.1 and a free port; each endpoint is a path of its own."""

    def __init__(self, host: str = LOCALHOST) -> None:
        self._endpoints: dict[str, WebhookEndpoint] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, 0), _handler(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None
        address, port = self._server.server_address[:2]
        self.url = f"http://{address!s}:{port}"

    def start(self) -> WebhookReceiver:
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="mocksrv-receiver",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            endpoints, self._endpoints = list(self._endpoints.values()), {}
        for endpoint in endpoints:
            endpoint.close()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def endpoint(self, signing_key: str) -> WebhookEndpoint:
        """A new path of this receiver, whose deliveries are checked with `signing_key`."""
        endpoint = WebhookEndpoint(self, f"/webhooks/{uuid.uuid4().hex}", signing_key)
        with self._lock:
            self._endpoints[endpoint.path] = endpoint
        return endpoint

    def remove(self, endpoint: WebhookEndpoint) -> None:
        endpoint.close()
        with self._lock:
            self._endpoints.pop(endpoint.path, None)

    def _find(self, path: str) -> WebhookEndpoint | None:
        with self._lock:
            return self._endpoints.get(path)

    def __enter__(self) -> WebhookReceiver:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _handler(receiver: WebhookReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the dispatcher's sessions expect

        def do_POST(self) -> None:  # the name http.server looks up
            length = self.headers.get("Content-Length") or "0"
            if not length.isdigit() or int(length) > MAX_BODY_BYTES:
                # The body is not read, so the connection cannot carry another request.
                self._answer(400 if not length.isdigit() else 413, close=True)
                return
            raw = self.rfile.read(int(length))
            endpoint = receiver._find(self.path)
            if endpoint is None:
                self._answer(404)
                return
            status, delay = endpoint._receive(raw, CaseInsensitiveDict(self.headers.items()))
            endpoint._hold(delay)
            self._answer(status)

        def _answer(self, status: int, *, close: bool = False) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Length", "0")
                if close:
                    self.send_header("Connection", "close")
                self.end_headers()
            except OSError:
                pass  # the sender gave up waiting (a held delivery): nothing to answer

        def log_message(self, format: str, *args: Any) -> None:
            """Stay quiet: the deliveries are recorded on their endpoints."""

    return Handler


class DeadReceiver:
    """A webhook receiver that is down without refusing: it accepts connections on 127.0.0.1 and
    reads what arrives, but never answers, so each delivery to `url` waits out its timeout.

    It holds at most `max_connections`; later ones wait in the listen backlog, unanswered all the same.
    Use it as a context manager, or call `close()`.
    """

    def __init__(self, max_connections: int = 256) -> None:
        self._max = max_connections
        self._listener = socket.create_server((LOCALHOST, 0), backlog=max_connections)
        self._listener.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._connections: list[socket.socket] = []
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dead-receiver", daemon=True)
        self._thread.start()
        self.url = f"http://{LOCALHOST}:{self._listener.getsockname()[1]}/webhooks"

    def wait_for_connections(self, count: int, timeout: float) -> int:
        """Wait until `count` connections are open, at most `timeout` s; return how many are."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._connections) >= count, timeout)
            return len(self._connections)

    def __enter__(self) -> DeadReceiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop, and close every connection: the senders waiting on one see it closed."""
        self._stopping.set()
        self._thread.join(timeout=5)
        self._selector.close()
        self._listener.close()
        with self._changed:
            for connection in self._connections:
                connection.close()
            self._connections.clear()

    def _run(self) -> None:
        while not self._stopping.is_set():
            for key, _ in self._selector.select(timeout=0.05):
                if key.fileobj is self._listener:
                    self._accept()
                elif isinstance(key.fileobj, socket.socket):
                    self._read(key.fileobj)

    def _accept(self) -> None:
        try:
            connection, _ = self._listener.accept()
        except BlockingIOError:
            return
        connection.setblocking(False)
        self._selector.register(connection, selectors.EVENT_READ)
        with self._changed:
            self._connections.append(connection)
            full = len(self._connections) >= self._max
            self._changed.notify_all()
        if full:
            self._selector.unregister(self._listener)

    def _read(self, connection: socket.socket) -> None:
        try:
            data = connection.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the sender gave up
            self._selector.unregister(connection)
            with self._changed:
                self._connections.remove(connection)
            connection.close()
