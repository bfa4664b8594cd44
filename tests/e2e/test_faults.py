"""Faults over a real connection: what a client library sees of a dropped, cut or hung answer, and the
retry an `after` fault provokes."""

from __future__ import annotations

import http.client
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from mocksrv import MockServer
from mocksrv.control import wait_slots
from tests import payloads
from tests.e2e.harness import DEADLINE, LOCALHOST, Merchant, create_merchant, poll, run_command
from tests.payloads import ADMIN_KEY

STOP_BOUND = 5.0  # seconds a stop may take on a busy machine; a prompt one takes about 0.1 s

PAYMENT_EXISTS = {
    "error": {
        "type": "invalid_request",
        "code": "HE_01",
        "message": "The payment with the specified payment_id already exists in our records",
        "param": "payment_id",
    }
}


@pytest.fixture
def faulty(mock_server: MockServer) -> Iterator[Merchant]:
    merchant = create_merchant(mock_server.url, ADMIN_KEY)
    yield merchant
    merchant.close()


def raw_answer(port: int, path: str, key: str, timeout: float = 5) -> bytes:
    """Everything the server sends for a GET before it closes the connection."""
    with socket.create_connection((LOCALHOST, port), timeout=timeout) as connection:
        request = f"GET {path} HTTP/1.1\r\nHost: {LOCALHOST}\r\napi-key: {key}\r\nConnection: close\r\n\r\n"
        connection.sendall(request.encode())
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
        return received


def test_a_dropped_connection_sends_not_a_byte(mock_server: MockServer, faulty: Merchant) -> None:
    faulty.add_fault("drop", match={"path": "/customers/list"})

    assert raw_answer(mock_server.port, "/customers/list", faulty.secret_key) == b""
    with pytest.raises(requests.ConnectionError):
        faulty.get("/customers/list")
    assert faulty.request_count(path="/customers/list") == 2
    assert [entry["status"] for entry in faulty.requests(path="/customers/list")] == [None, None]


def test_the_connection_after_a_drop_serves_the_next_request(faulty: Merchant) -> None:
    faulty.add_fault("drop", schedule={"times": 1})

    with pytest.raises(requests.ConnectionError):
        faulty.get("/customers/list")

    assert faulty.get("/customers/list").status_code == 200


def test_a_truncated_answer_closes_short_of_its_length(mock_server: MockServer, faulty: Merchant) -> None:
    faulty.add_fault("truncate", match={"path": "/customers/list"})

    raw = raw_answer(mock_server.port, "/customers/list", faulty.secret_key)

    head, _, body = raw.partition(b"\r\n\r\n")
    length = int(
        next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")).split(b":")[
            1
        ]
    )
    assert head.startswith(b"HTTP/1.1 200 OK")
    assert len(body) == length // 2
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        faulty.get("/customers/list")


def test_a_hang_answers_nothing_until_the_client_gives_up(faulty: Merchant) -> None:
    faulty.add_fault({"type": "hang", "seconds": 30}, match={"path": "/customers"}, timing="after")

    with pytest.raises(requests.exceptions.ReadTimeout):
        faulty.post("/customers", {"name": "Ada", "customer_id": "cus_waiting"}, timeout=0.3)

    # On a busy machine the client may give up before the route has run: the hang begins after it.
    stored = poll(
        lambda: faulty.get("/customers/cus_waiting"),
        lambda answer: answer.status_code != 404,
        timeout=DEADLINE,
        max_attempts=100_000,
    )
    assert (stored.status_code, stored.json()["name"]) == (200, "Ada")


def test_a_hang_whose_client_gave_up_frees_its_thread_and_wait_slot(
    mock_server: MockServer, faulty: Merchant
) -> None:
    # A test of a backend's timeout must leave nothing held for the tests after it.
    faulty.add_fault({"type": "hang", "seconds": 600})
    slots = wait_slots(mock_server.app)

    with pytest.raises(requests.exceptions.ReadTimeout):
        faulty.get("/customers/list", timeout=0.3)

    assert slots.wait_open(faulty.merchant_id, 0, timeout=DEADLINE) == 0


@pytest.mark.parametrize("ending", ["clear_faults", "reset", "restore"])
def test_clearing_the_faults_a_reset_or_a_restore_ends_a_hang_at_once(
    mock_server: MockServer, faulty: Merchant, ending: str
) -> None:
    without_faults = faulty.snapshot()
    faulty.add_fault({"type": "hang", "seconds": 600})
    slots = wait_slots(mock_server.app)
    connection = http.client.HTTPConnection(LOCALHOST, mock_server.port, timeout=DEADLINE)
    try:
        connection.request("GET", "/customers/list", headers={"api-key": faulty.secret_key})
        assert slots.wait_open(faulty.merchant_id, 1, timeout=DEADLINE) == 1

        if ending == "restore":
            faulty.restore(without_faults)
        else:
            getattr(faulty, ending)()

        assert slots.wait_open(faulty.merchant_id, 0, timeout=DEADLINE) == 0
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            connection.getresponse()  # the hang still sends nothing: it ends, closing the connection
    finally:
        connection.close()


def test_an_after_fault_makes_the_retry_meet_he_01(faulty: Merchant) -> None:
    faulty.add_fault(
        {"type": "error", "status": 502}, match={"path": "/payments"}, timing="after", schedule={"times": 1}
    )
    body = payloads.payment(payment_id="pay_retry_1", profile_id=faulty.profile_id)

    first = faulty.post("/payments", body)
    retry = faulty.post("/payments", body)

    assert first.status_code == 502
    assert (retry.status_code, retry.json()) == (400, PAYMENT_EXISTS)
    assert faulty.get("/payments/pay_retry_1").json()["status"] == "succeeded"
    assert faulty.request_count(method="POST", path="/payments") == 2


def test_stopping_answers_at_once_with_a_hang_in_flight() -> None:
    server = MockServer().start()
    merchant = create_merchant(server.url, ADMIN_KEY)
    merchant.add_fault({"type": "hang", "seconds": 600})
    slots = wait_slots(server.app)
    connection = http.client.HTTPConnection(LOCALHOST, server.port, timeout=10)
    try:
        connection.request("GET", "/customers/list", headers={"api-key": merchant.secret_key})
        assert slots.wait_open(merchant.merchant_id, 1, timeout=DEADLINE) == 1

        started = time.monotonic()
        server.stop()
        stopped_in = time.monotonic() - started

        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            connection.getresponse()
        # The hang itself ended: left to run, it would hold its slot for 600 s.
        assert slots.wait_open(merchant.merchant_id, 0, timeout=DEADLINE) == 0
    finally:
        connection.close()
        merchant.close()
        server.stop()
    assert stopped_in < STOP_BOUND


MISCOUNTED = """\
name: Two customers are counted as one
description: Fails on purpose, two creates were sent.
steps:
  - fault: {match: {path: /customers}, effect: {type: error, status: 500}, schedule: {times: 1}}
  - request: {method: POST, path: /customers, body: {name: Ada}}
    expect: {status: 500}
  - request: {method: POST, path: /customers, body: {name: Ada}}
    expect: {status: 200}
  - expect_requests: {method: POST, path: /customers, count: 1}
"""


def test_a_scenario_that_miscounts_the_journal_fails_with_what_it_holds(tmp_path: Path) -> None:
    (tmp_path / "miscounted.yaml").write_text(MISCOUNTED)

    run = run_command(["scenario", "run", "miscounted.yaml"], tmp_path, timeout=60)

    assert run.code == 1, run.stderr
    assert run.stdout.splitlines()[1:4] == [
        "  step 4 (expect_requests): the journal holds 2 request(s) POST /customers; expected 1",
        "  POST /customers 500",
        "  POST /customers 200",
    ]


def test_a_faulted_answer_leaves_no_warning_in_the_servers_log(
    mock_server: MockServer, faulty: Merchant, caplog: pytest.LogCaptureFixture
) -> None:
    faulty.add_fault("drop", match={"path": "/customers/list"})
    faulty.add_fault("truncate", match={"path": "/payments/list"})

    # raw_answer returns once the server has closed the connection: after the task's last word.
    with caplog.at_level(logging.WARNING):
        dropped = raw_answer(mock_server.port, "/customers/list", faulty.secret_key)
        cut = raw_answer(mock_server.port, "/payments/list", faulty.secret_key)

    assert (dropped, cut[:15]) == (b"", b"HTTP/1.1 200 OK")

    assert [record.getMessage() for record in caplog.records] == []
