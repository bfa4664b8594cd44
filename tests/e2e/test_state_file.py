"""`mocksrv serve --state FILE`: a real process killed with SIGKILL, or stopped, and started again."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest

from mocksrv import MockServer
from mocksrv.client import Sandbox
from mocksrv.settings import Settings, SettingsError
from tests import payloads
from tests.e2e.harness import (
    ServerProcess,
    TimeoutSession,
    assert_stops_cleanly,
    free_port,
    poll,
    run_command,
)
from tests.payloads import ADMIN_KEY, SECRET_KEY

INTERVAL = 1  # seconds between writes of the state file


def start(state: Path, stderr: Path, *extra: str) -> ServerProcess:
    args = ["--port", str(free_port()), "--state", str(state), "--state-interval", str(INTERVAL), *extra]
    return ServerProcess(args, stderr).start()


def create_payments(session: TimeoutSession, base_url: str, count: int) -> list[dict[str, Any]]:
    created = []
    for _ in range(count):
        response = session.post(f"{base_url}/payments", json=payloads.payment())
        assert response.status_code == 200, response.text
        created.append(response.json())
    return created


def payment_ids_in(state: Path) -> set[str]:
    if not state.exists():
        return set()
    document = json.loads(state.read_bytes())
    records = document["merchants"]["merchant_default"]["records"]
    return {record["$Payment"]["payment_id"] for record in records.get("payment", [])}


def written_ids(state: Path, wanted: set[str], timeout: float) -> set[str]:
    """The payment ids of the state file once it holds `wanted`, or at the deadline, as it stands."""
    return poll(lambda: payment_ids_in(state), wanted.issubset, timeout=timeout, max_attempts=10**8)


def test_a_killed_server_comes_back_with_the_payments_of_the_last_interval(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    server = start(state, tmp_path / "first.log")
    try:
        with TimeoutSession() as session:
            session.headers["api-key"] = SECRET_KEY
            created = create_payments(session, server.base_url, 5)
            wanted = {payment["payment_id"] for payment in created}
            # A write that began after the last create holds every payment: wait for one.
            assert wanted <= written_ids(state, wanted, timeout=10)
    finally:
        assert server._process is not None
        server._process.send_signal(signal.SIGKILL)
        server._process.wait(timeout=5)
        server.stop()

    again = start(state, tmp_path / "second.log")
    try:
        with TimeoutSession() as session:
            session.headers["api-key"] = SECRET_KEY
            for payment in created:
                answer = session.get(f"{again.base_url}/payments/{payment['payment_id']}")
                assert answer.status_code == 200
                assert answer.json() == payment
    finally:
        assert_stops_cleanly(again)


def written_on_stop(state: Path, log: Path, payments: int) -> tuple[ServerProcess, list[dict[str, Any]]]:
    """A server that writes its state file only on stop, and the payments made on it."""
    server = ServerProcess(
        ["--port", str(free_port()), "--state", str(state), "--state-interval", "0"], log
    ).start()
    with TimeoutSession() as session:
        session.headers["api-key"] = SECRET_KEY
        return server, create_payments(session, server.base_url, payments)


def test_sigterm_writes_the_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    server, created = written_on_stop(state, tmp_path / "first.log", 2)
    assert not state.exists()  # nothing is there until SIGTERM
    assert_stops_cleanly(server)

    assert payment_ids_in(state) == {payment["payment_id"] for payment in created}
    assert [path.name for path in tmp_path.iterdir() if path.name.endswith(".tmp")] == []


def test_a_second_server_on_a_state_file_in_use_stops_at_start_and_the_first_goes_on(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    server = start(state, tmp_path / "first.log")
    try:
        run = run_command(["serve", "--port", str(free_port()), "--state", str(state)], tmp_path, timeout=30)

        assert (run.code, run.stderr) == (
            2,
            f"mocksrv: state file {state}: in use by another mocksrv (process {server.pid}); "
            "each server needs a state file of its own\n",
        )
        with TimeoutSession() as session:
            session.headers["api-key"] = SECRET_KEY
            assert create_payments(session, server.base_url, 1)[0]["status"] == "succeeded"
    finally:
        assert_stops_cleanly(server)

    again = start(state, tmp_path / "second.log")  # the first let go of it as it stopped
    assert_stops_cleanly(again)


def test_a_mock_server_is_refused_a_state_file_another_holds_before_it_reads_it(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    in_use = (
        f"state file {state}: in use by another mocksrv (process {os.getpid()}); "
        "each server needs a state file of its own"
    )
    first = MockServer(Settings(state=state, state_interval=0))  # made: the file is its own
    with pytest.raises(SettingsError) as refused:
        MockServer(Settings(state=state))
    assert str(refused.value) == in_use
    with first, TimeoutSession() as session:
        session.headers["api-key"] = SECRET_KEY
        created = create_payments(session, first.url, 1)
    with first:  # started again: its own still
        pass

    second = MockServer(Settings(state=state, state_interval=0))  # reads what the first wrote
    with second, TimeoutSession() as session:
        session.headers["api-key"] = SECRET_KEY
        answer = session.get(f"{second.url}/payments/{created[0]['payment_id']}")
        assert (answer.status_code, answer.json()) == (200, created[0])


def test_a_state_file_of_another_version_stops_the_server_with_exit_code_2(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(
        json.dumps({"format": "mocksrv-snapshot", "version": 99, "mocksrv": "9.0.0", "merchants": {}})
    )

    run = run_command(["serve", "--port", str(free_port()), "--state", str(state)], tmp_path, timeout=30)

    assert run.code == 2
    assert run.stderr == (
        f"mocksrv: state file {state}: Invalid snapshot: version: "
        "this server reads snapshots of version 1, not 99, written by mocksrv 9.0.0\n"
    )
    assert json.loads(state.read_text())["version"] == 99  # left as it was


def test_a_state_file_that_is_not_json_stops_the_server_with_exit_code_2(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text("{not json")

    run = run_command(["serve", "--port", str(free_port()), "--state", str(state)], tmp_path, timeout=30)

    assert run.code == 2
    assert run.stderr.startswith(f"mocksrv: state file {state}: not JSON: ")


def test_a_state_file_that_cannot_be_written_stops_the_server_at_start(tmp_path: Path) -> None:
    state = Path("/proc/mocksrv-state.json")  # an existing directory where no file can be made

    run = run_command(["serve", "--port", str(free_port()), "--state", str(state)], tmp_path, timeout=30)

    assert (run.code, run.stderr) == (
        2,
        f"mocksrv: state file {state}: cannot write beside it: No such file or directory\n",
    )


def test_a_state_file_that_is_not_a_regular_file_stops_the_server_at_start(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    os.mkfifo(state)  # reading it would wait for a writer for ever

    run = run_command(["serve", "--port", str(free_port()), "--state", str(state)], tmp_path, timeout=30)

    assert (run.code, run.stderr) == (2, f"mocksrv: state file {state}: not a regular file\n")


def test_a_last_write_that_fails_on_stop_is_exit_code_1_and_one_line(tmp_path: Path) -> None:
    directory = tmp_path / "gone"
    directory.mkdir()
    state = directory / "state.json"
    server, _ = written_on_stop(state, tmp_path / "server.log", 1)
    shutil.rmtree(directory)  # the write on stop has nowhere to go

    assert server.stop() == 1, server.diagnostics()
    lines = (tmp_path / "server.log").read_text().splitlines()
    assert lines[-1] == (
        f"mocksrv: cannot write the state file {state}: the state since its last write is lost"
    ), server.diagnostics()
    assert "Traceback" not in "\n".join(lines)
    assert "mocksrv stopped" not in server.lines  # it did not stop well: the state since is lost


def test_the_client_takes_and_restores_a_merchant(mock_server: MockServer) -> None:
    with Sandbox(mock_server.url, ADMIN_KEY) as sandbox, sandbox.create_merchant() as merchant:
        merchant.seed_ids(5)
        merchant.seed(2)
        document = merchant.snapshot()
        merchant.seed(1)
        restored = merchant.restore(document)
        assert restored["restored"][merchant.merchant_id]["payment"] == 2
        assert list(sandbox.snapshot(merchant.merchant_id)["merchants"]) == [merchant.merchant_id]
        assert sandbox.restore(document, merchant.merchant_id)["removed"] == []


def test_a_webhook_url_flag_wins_over_the_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    server, _ = written_on_stop(state, tmp_path / "first.log", 1)
    assert_stops_cleanly(server)
    url = "http://127.0.0.1:9/hooks"

    again = start(state, tmp_path / "second.log", "--webhook-url", url)
    try:
        with TimeoutSession() as session:
            session.headers["api-key"] = SECRET_KEY
            answer = session.get(f"{again.base_url}/account/merchant_default/business_profile/pro_default")
        assert answer.status_code == 200, answer.text
        assert answer.json()["webhook_details"]["webhook_url"] == url
    finally:
        assert_stops_cleanly(again)


def test_a_stop_lets_the_requests_in_progress_be_answered_before_the_last_write(tmp_path: Path) -> None:
    # What a client was answered before the stop is in the state file: the write waits for them.
    server = MockServer(Settings(state=tmp_path / "state.json", state_interval=0)).start()
    running = server._running
    assert running is not None
    assert running._state is not None
    steps: list[str] = []
    finish_requests, write = running.http.finish_requests, running._state.stop

    def finishing(*args: Any, **kwargs: Any) -> None:
        steps.append("requests answered")
        finish_requests(*args, **kwargs)

    def writing() -> None:
        steps.append("state written")
        write()

    running.http.finish_requests = finishing  # type: ignore[method-assign]
    running._state.stop = writing  # type: ignore[method-assign]
    server.stop()

    assert steps[:2] == ["requests answered", "state written"]
