"""The pytest plugin, as another project uses it: test files run by pytest in a subprocess (pytester)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mocksrv import MockServer
from tests.e2e.harness import ServerProcess, free_port

pytestmark = pytest.mark.usefixtures("clean_mocksrv_environment")

# What a consumer's test module starts with: a valid one-step card payment of its own merchant.
PREAMBLE = """
import json, os
BILLING = {
    "address": {"line1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105",
                "country": "US", "first_name": "Ada", "last_name": "Lovelace"},
    "phone": {"number": "4155550100", "country_code": "+1"},
}

def pay(merchant, number="4242424242424242", **overrides):
    card = {"card_number": number, "card_exp_month": "12", "card_exp_year": "2099", "card_cvc": "123"}
    body = {"amount": 1000, "currency": "USD", "profile_id": merchant.profile_id, "confirm": True,
            "payment_method": "card", "payment_method_type": "credit",
            "payment_method_data": {"card": card}, "billing": BILLING,
            "return_url": "https://shop.example/return", **overrides}
    response = merchant.session.post(merchant.url + "/payments", json=body)
    assert response.status_code == 200, response.text
    return response.json()
"""


@pytest.fixture
def clean_mocksrv_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inner runs see no MOCKSRV_* setting of the outer one."""
    monkeypatch.delenv("MOCKSRV_URL", raising=False)
    monkeypatch.delenv("MOCKSRV_ADMIN_KEY", raising=False)


@pytest.fixture(scope="module")
def external_server() -> Iterator[MockServer]:
    """A server started apart from the inner runs, as a CI job's `mocksrv serve` would be."""
    with MockServer() as server:
        yield server


def consumer_tests(pytester: pytest.Pytester, source: str) -> None:
    pytester.makepyfile(test_consumer=PREAMBLE + source)


def test_a_consumer_test_needs_no_fixture_of_its_own(pytester: pytest.Pytester) -> None:
    consumer_tests(
        pytester,
        """
def test_checkout(mocksrv, mocksrv_merchant, mocksrv_webhooks):
    payment = pay(mocksrv_merchant)
    assert payment["status"] == "succeeded"
    event = mocksrv_webhooks.wait_for("payment_succeeded", object_id=payment["payment_id"])
    assert event.verified
    assert event.status == 200
    assert event.body["content"]["object"]["payment_id"] == payment["payment_id"]
    assert event.headers["content-type"] == "application/json"
    assert json.loads(event.raw) == event.body
    assert mocksrv.sandbox is not None
    assert mocksrv.url.startswith("http://127.0.0.1:")
""",
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)


def test_merchants_are_isolated_under_xdist_in_random_order(pytester: pytest.Pytester) -> None:
    record = pytester.path / "record.jsonl"
    consumer_tests(
        pytester,
        f"""
import pytest
from datetime import timedelta

@pytest.mark.parametrize("n", range(1, 13))
def test_own_data_and_clock(mocksrv_merchant, n):
    frozen = mocksrv_merchant.freeze()
    mocksrv_merchant.advance(hours=n)
    assert mocksrv_merchant.now() == frozen + timedelta(hours=n)
    if n % 2:
        mocksrv_merchant.set_outcomes([{{"match": {{}}, "outcome": {{"result": "decline",
            "error_code": "card_declined", "error_message": "declined"}}}}])
    for _ in range(n):
        assert pay(mocksrv_merchant)["status"] == ("failed" if n % 2 else "succeeded")
    listed = mocksrv_merchant.session.post(mocksrv_merchant.url + "/payments/list", json={{}}).json()
    assert listed["total_count"] == n
    assert len(mocksrv_merchant.events()) == n
    with open({str(record)!r}, "a") as out:
        out.write(json.dumps({{"worker": os.environ["PYTEST_XDIST_WORKER"],
                              "merchant": mocksrv_merchant.merchant_id}}) + "\\n")
""",
    )
    result = pytester.runpytest_subprocess("-n", "2", "--random-order")
    result.assert_outcomes(passed=12)
    rows = [json.loads(line) for line in record.read_text().splitlines()]
    assert {row["worker"] for row in rows} == {"gw0", "gw1"}
    assert len({row["merchant"] for row in rows}) == 12


def test_a_failed_delivery_is_retried_on_the_merchants_clock(pytester: pytest.Pytester) -> None:
    consumer_tests(
        pytester,
        """
def test_retry(mocksrv_merchant, mocksrv_webhooks):
    mocksrv_merchant.freeze()
    mocksrv_webhooks.respond_with(status=503, times=1)
    payment = pay(mocksrv_merchant)
    first = mocksrv_webhooks.wait_for("payment_succeeded", object_id=payment["payment_id"])
    assert first.status == 503
    assert mocksrv_merchant.wait_webhooks()
    assert [e["delivery"]["state"] for e in mocksrv_merchant.events()] == ["retrying"]
    fired = mocksrv_merchant.advance(minutes=1)
    assert [timer["kind"] for timer in fired] == ["webhook.retry"]
    assert mocksrv_merchant.wait_webhooks()
    assert [(e.event_id, e.status) for e in mocksrv_webhooks.events] == [
        (first.event_id, 503), (first.event_id, 200)]
    assert [d["status_code"] for d in mocksrv_merchant.deliveries()] == [200, 503]
""",
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=1)


def test_a_bad_setting_stops_the_session_at_once_in_one_line(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
import pytest
from mocksrv.settings import Settings

@pytest.fixture(scope="session")
def mocksrv_settings():
    return Settings(threads=0)
"""
    )
    consumer_tests(pytester, "".join(f"def test_{n}(mocksrv_merchant):\n    pass\n" for n in range(5)))

    result = pytester.runpytest_subprocess()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*Exit: mocksrv: Settings(threads=0): not a whole number from 1 to 256*"])
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*test_1*")


def test_a_test_may_delete_its_own_merchant_or_restore_a_document_without_it(
    pytester: pytest.Pytester,
) -> None:
    consumer_tests(
        pytester,
        """
def test_deletes_its_merchant(mocksrv, mocksrv_merchant):
    mocksrv.delete_merchant(mocksrv_merchant.merchant_id)

def test_restores_a_document_without_its_merchant(mocksrv, mocksrv_merchant):
    mocksrv.restore(mocksrv.snapshot("merchant_default"))
    assert mocksrv.merchant_ids() == ["merchant_default"]
""",
    )

    result = pytester.runpytest_subprocess("-p", "no:randomly")

    result.assert_outcomes(passed=2)


def test_a_bad_setting_stops_an_xdist_session_with_its_reason_and_exit_code_4(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
import pathlib

import pytest
from mocksrv.settings import Settings

@pytest.fixture(scope="session")
def mocksrv_settings():
    return Settings(threads=0)

def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):  # the code the run ends with, as a conftest sees it
        pathlib.Path("exit-status-seen").write_text(str(int(session.exitstatus)))
"""
    )
    consumer_tests(pytester, "".join(f"def test_{n}(mocksrv_merchant):\n    pass\n" for n in range(20)))

    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:randomly")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(
        ["*Interrupted: mocksrv: Settings(threads=0): not a whole number from 1 to 256*"]
    )
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    result.stdout.no_fnmatch_line("*Traceback*")
    assert result.parseoutcomes()["errors"] in (1, 2)  # the first test of each worker, then nothing more
    assert (pytester.path / "exit-status-seen").read_text() == "4"
    result.stdout.no_fnmatch_line("*During handling*")


def test_a_hanging_receiver_times_out_and_is_released(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
import pytest
from mocksrv.settings import Settings

@pytest.fixture(scope="session")
def mocksrv_settings():
    return Settings(webhook_timeout=0.5)
"""
    )
    consumer_tests(
        pytester,
        """
def test_hang(mocksrv_merchant, mocksrv_webhooks):
    mocksrv_merchant.freeze()
    mocksrv_webhooks.respond_with(delay=60, times=1)
    pay(mocksrv_merchant)
    assert mocksrv_merchant.wait_webhooks()
    [attempt] = mocksrv_merchant.deliveries()
    assert attempt["status_code"] is None
    assert attempt["error"] == "timeout: the receiver did not answer in time"
""",
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=1)


def test_wait_for_fails_with_what_did_arrive(pytester: pytest.Pytester) -> None:
    consumer_tests(
        pytester,
        """
def test_expects_a_failure(mocksrv_merchant, mocksrv_webhooks):
    payment = pay(mocksrv_merchant)
    mocksrv_webhooks.wait_for("payment_succeeded")
    mocksrv_webhooks.wait_for("payment_failed", object_id=payment["payment_id"], timeout=0.2)
""",
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*no payment_failed for pay_* arrived at http://127.0.0.1:*/webhooks/* within 0.2 s; "
            "arrived: payment_succeeded pay_* (answered 200)*"
        ]
    )
    result.stdout.no_fnmatch_line("*receiver.py*")


@pytest.mark.parametrize(
    ("fixtures", "merchant"),
    [("mocksrv, mocksrv_merchant", "mocksrv_merchant"), ("mocksrv", "mocksrv.create_merchant()")],
    ids=["with its merchant", "with the server alone"],
)
def test_an_error_inside_the_embedded_server_fails_the_test_that_caused_it(
    pytester: pytest.Pytester, fixtures: str, merchant: str
) -> None:
    consumer_tests(
        pytester,
        f"""
def test_breaks_the_server({fixtures}, monkeypatch):
    merchant = {merchant}
    def broken(*args, **kwargs):
        raise RuntimeError("store on fire")
    monkeypatch.setattr(mocksrv.sandbox.payments, "list", broken)
    assert merchant.session.post(merchant.url + "/payments/list", json={{}}).status_code == 500

def test_the_next_one_is_clean(mocksrv_merchant):
    answer = mocksrv_merchant.session.post(mocksrv_merchant.url + "/payments/list", json={{}})
    assert answer.status_code == 200
""",
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_breaks_the_server*",
            "*mocksrv logged an error during this test:*",
            "*RuntimeError: store on fire*",
        ]
    )


def test_a_test_that_revokes_its_merchants_key_is_cleaned_up_all_the_same(pytester: pytest.Pytester) -> None:
    consumer_tests(
        pytester,
        """
def test_a_revoked_key_is_refused(mocksrv_merchant):
    m = mocksrv_merchant
    m.session.post(m.url + "/customers", json={"name": "Ada"})
    keys = m.session.get(f"{m.url}/api_keys/{m.merchant_id}/list").json()
    key_id = next(key["key_id"] for key in keys if key["name"] == "default")
    assert m.session.delete(f"{m.url}/api_keys/{m.merchant_id}/{key_id}").status_code == 200
    assert m.session.get(m.url + "/customers/list").status_code == 401

def test_the_merchant_was_deleted_with_its_data(mocksrv):
    assert mocksrv.merchant_ids() == ["merchant_default"]
    assert mocksrv.sandbox.store.merchant_ids() == ["merchant_default"]
""",
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_an_external_server_is_used_when_named(
    pytester: pytest.Pytester, external_server: MockServer, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    record = pytester.path / "merchant.txt"
    consumer_tests(
        pytester,
        f"""
def test_on_the_named_server(mocksrv, mocksrv_merchant):
    assert mocksrv.sandbox is None
    assert mocksrv.url == {external_server.url!r}
    assert pay(mocksrv_merchant)["status"] == "succeeded"
    open({str(record)!r}, "w").write(mocksrv_merchant.merchant_id)
""",
    )
    if how == "flag":
        result = pytester.runpytest_subprocess("--mocksrv-url", external_server.url)
    else:
        monkeypatch.setenv("MOCKSRV_URL", external_server.url)
        result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    # The test's own merchant was made on the named server, and deleted there after the test.
    assert record.read_text().startswith("merchant_")
    assert record.read_text() not in external_server.sandbox.merchants.merchant_ids()
    assert record.read_text() not in external_server.sandbox.store.merchant_ids()  # nor its data


def test_a_test_marked_as_needing_the_embedded_server_is_skipped_against_an_external_one(
    pytester: pytest.Pytester, external_server: MockServer
) -> None:
    consumer_tests(
        pytester,
        """
import pytest

@pytest.mark.mocksrv_embedded
def test_moves_time_with_freezegun(mocksrv, mocksrv_merchant):
    assert mocksrv.sandbox is not None
""",
    )

    embedded = pytester.runpytest_subprocess("--strict-markers")
    external = pytester.runpytest_subprocess("--strict-markers", "-rs", "--mocksrv-url", external_server.url)

    embedded.assert_outcomes(passed=1)
    external.assert_outcomes(skipped=1)
    external.stdout.fnmatch_lines(
        [
            "*SKIPPED*test_consumer.py:*: needs mocksrv in the test process (it follows freezegun); "
            "--mocksrv-url names another*"
        ]
    )


def test_a_wrong_admin_key_stops_the_session_at_once(
    pytester: pytest.Pytester, external_server: MockServer
) -> None:
    consumer_tests(pytester, "def test_never_runs(mocksrv_merchant):\n    pass\n")
    result = pytester.runpytest_subprocess(
        "--mocksrv-url", external_server.url, "--mocksrv-admin-key", "wrong"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: mocksrv at {external_server.url} refused the admin key: GET /__mock/merchants: 401 IR_01 *"]
    )
    result.stdout.no_fnmatch_line("*test_never_runs*")


def test_an_unreachable_server_stops_the_session_at_once(pytester: pytest.Pytester) -> None:
    consumer_tests(pytester, "def test_never_runs(mocksrv_merchant):\n    pass\n")
    url = f"http://127.0.0.1:{free_port()}"
    result = pytester.runpytest_subprocess("--mocksrv-url", url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: mocksrv at {url} cannot be reached: [[]Errno 111[]] Connection refused"]
    )


@pytest.mark.parametrize(
    ("status", "answer", "content_type", "said"),
    [
        (200, b'{"merchants": []}', "application/json", ""),
        (200, b"<html></html>", "text/html", ""),
        (404, b"<html><body>Not Found</body></html>", "text/html", " (404)"),
        (401, b'{"detail": "no"}', "application/json", " (401)"),
    ],
)
def test_a_server_that_is_not_a_mocksrv_stops_the_session_at_once(
    pytester: pytest.Pytester, status: int, answer: bytes, content_type: str, said: str
) -> None:
    consumer_tests(pytester, "def test_never_runs(mocksrv_merchant):\n    pass\n")

    class Answer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Answer) as other:
        threading.Thread(target=other.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{other.server_address[1]}"
        try:
            result = pytester.runpytest_subprocess("--mocksrv-url", url)
        finally:
            other.shutdown()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: mocksrv at {url} is not a mocksrv: GET /__mock/merchants gave no list of merchants{said}"]
    )
    result.stdout.no_fnmatch_line("*test_never_runs*")


def test_a_server_gone_mid_session_fails_each_later_test_in_one_line(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    server = ServerProcess(["--port", str(free_port())], tmp_path / "stderr.txt").start()
    try:
        consumer_tests(
            pytester,
            f"""
import select, signal

def test_stops_the_server(mocksrv_merchant):
    process = os.pidfd_open({server.pid})  # readable once the process has ended
    os.kill({server.pid}, signal.SIGTERM)
    ended, _, _ = select.select([process], [], [], 10)
    os.close(process)
    assert ended, "the server did not end within 10 s"

def test_after_it(mocksrv_merchant):
    pass
""",
        )
        result = pytester.runpytest_subprocess("--mocksrv-url", server.base_url, "-p", "no:randomly")
    finally:
        assert server.stop() == 0, server.diagnostics()
    result.assert_outcomes(passed=1, errors=2)  # the teardown of the first test, the setup of the next
    gone = f"mocksrv at {server.base_url} cannot be reached"
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_stops_the_server*",
            f"{gone} (DELETE /__mock/merchants/merchant_*): [[]Errno 111[]] Connection refused",
            "*ERROR at setup of test_after_it*",
            f"{gone} (POST /__mock/merchants): [[]Errno 111[]] Connection refused",
        ]
    )
    result.stdout.no_fnmatch_line("*exception*")


def test_the_options_are_in_pytest_help(pytester: pytest.Pytester) -> None:
    help_text = " ".join(pytester.runpytest_subprocess("--help").stdout.str().split())
    assert (
        "--mocksrv-url=URL use the mocksrv running at URL instead of one embedded in the test process "
        "(env MOCKSRV_URL)" in help_text
    )
    assert (
        "--mocksrv-admin-key=KEY that server's admin key (env MOCKSRV_ADMIN_KEY, default mocksrv_admin_key)"
        in (help_text)
    )


def test_the_plugin_is_registered_for_pytest(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--fixtures")
    result.stdout.fnmatch_lines(["mocksrv [[]session scope[]]*", "mocksrv_merchant*", "mocksrv_webhooks*"])


def test_a_consumer_test_checks_what_it_sent_and_injects_faults(pytester: pytest.Pytester) -> None:
    consumer_tests(
        pytester,
        """
import requests

def test_one_capture_was_sent_and_a_lost_answer_is_retried(mocksrv_merchant):
    mocksrv_merchant.add_fault(
        {"type": "error", "status": 503}, match={"method": "POST", "path": "/payments"},
        timing="after", schedule={"times": 1},
    )
    body = {"payment_id": "pay_order_1"}
    first = mocksrv_merchant.session.post(mocksrv_merchant.url + "/payments", json={
        "amount": 1000, "currency": "USD", "profile_id": mocksrv_merchant.profile_id, "confirm": False,
        **body})
    assert first.status_code == 503
    retry = mocksrv_merchant.session.post(mocksrv_merchant.url + "/payments", json={
        "amount": 1000, "currency": "USD", "profile_id": mocksrv_merchant.profile_id, "confirm": False,
        **body})
    assert retry.json()["error"]["code"] == "HE_01"
    assert mocksrv_merchant.request_count(method="POST", path="/payments") == 2
    [latest, faulted] = mocksrv_merchant.requests(path="/payments")
    assert (faulted["status"], faulted["fault"]["effect"], latest["status"]) == (503, "error", 400)
    assert [rule["applied"] for rule in mocksrv_merchant.faults()] == [1]

def test_the_next_test_starts_with_no_fault_and_an_empty_journal(mocksrv_merchant):
    assert mocksrv_merchant.faults() == []
    assert mocksrv_merchant.request_count() == 0
""",
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2)
