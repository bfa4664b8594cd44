"""Serving: MockServer in this process, and `mocksrv serve` with its config file, variables and flags."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml
from pytest_httpserver import HTTPServer

from mocksrv import MockServer, Settings, SettingsError
from mocksrv.cli import wait_until_up
from mocksrv.launch import C_ALLOCATOR
from mocksrv.webhooks import SIGNATURE_HEADER, verify_signature
from tests.e2e.harness import (
    CHECKOUT_COMMAND,
    DEFAULT_FIXTURES,
    LOCALHOST,
    REQUEST_TIMEOUT,
    START_TIMEOUT,
    STOP_TIMEOUT,
    STOPPED_LINE,
    Merchant,
    ServerProcess,
    assert_stops_cleanly,
    create_merchant,
    default_merchant,
    free_port,
    running_process,
    subprocess_environment,
)
from tests.payloads import (
    ADMIN_KEY,
    MERCHANT_ID,
    PROFILE_ID,
    PUBLISHABLE_KEY,
    SECRET_KEY,
    SIGNING_KEY,
    payment,
)

StartServer = Callable[..., ServerProcess]
CHANGED_SECRET_KEY = "snd_changed_fixture_secret_key"
RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def health(base_url: str, key: str = SECRET_KEY) -> requests.Response:
    return requests.get(f"{base_url}/health", headers={"api-key": key}, timeout=REQUEST_TIMEOUT)


def error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"type": "invalid_request", "code": code, "message": message}}


def refused(url: str) -> bool:
    """Whether a connection to the server at `url` is refused."""
    try:
        health(url)
    except requests.ConnectionError:
        return True
    return False


# -- MockServer, in this process ----------------------------------------------------------------


@pytest.fixture
def mock_server() -> Iterator[MockServer]:
    server = MockServer().start()
    yield server
    server.stop()


def test_mock_server_listens_on_a_port_the_system_picked(mock_server: MockServer) -> None:
    assert mock_server.port > 0
    assert mock_server.url == f"http://{LOCALHOST}:{mock_server.port}"


def test_mock_server_answers_health(mock_server: MockServer) -> None:
    response = health(mock_server.url)

    assert response.status_code == 200
    assert response.json() == {"status": "healthy"}


def test_stopping_wakes_the_server_loop_with_waitress_trigger(monkeypatch: pytest.MonkeyPatch) -> None:
    """stop() wakes the loop's select() through the waitress server's trigger, so that it returns
    at once instead of at the loop's next 50 ms timeout (make bench: about 2 ms); this pins that
    waitress still offers the trigger."""
    server = MockServer().start()
    assert health(server.url).status_code == 200
    trigger = server._running.http._server.trigger  # type: ignore[union-attr]
    pulled_by: list[threading.Thread] = []  # waitress's workers pull it too, when an answer is ready
    pull = trigger.pull_trigger
    monkeypatch.setattr(
        trigger, "pull_trigger", lambda *a: (pulled_by.append(threading.current_thread()), pull(*a))
    )

    server.stop()

    assert threading.current_thread() in pulled_by


def test_stopped_mock_server_refuses_connections() -> None:
    server = MockServer().start()
    url = server.url
    assert health(url).status_code == 200

    server.stop()

    assert refused(url)


def test_mock_server_stops_without_an_error_in_its_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    # A race with the server thread shows on some stops only; twenty round trips take well under 2 s.
    errors: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(repr(args.exc_value)))

    for _ in range(20):
        server = MockServer().start()
        health(server.url)
        server.stop()

    assert errors == []


def test_mock_server_serves_inside_a_with_block_and_stops_after_it() -> None:
    with MockServer() as server:
        url = server.url
        assert health(url).status_code == 200

    assert refused(url)


def test_a_running_mock_server_refuses_to_start_again_and_still_stops() -> None:
    with MockServer() as server:
        url = server.url
        with pytest.raises(RuntimeError, match=f"the server is already running at {url}"):
            server.start()
        assert health(url).status_code == 200

    assert refused(url)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"threads": 0}, "Settings(threads=0): not a whole number from 1 to 256"),
        (
            {"webhook_timeout": 0},
            "Settings(webhook_timeout=0): not a number of seconds greater than 0, at most 1000000",
        ),
        (
            {"tick_interval": 0.0},
            "Settings(tick_interval=0.0): not a number of seconds greater than 0, at most 1000000",
        ),
    ],
)
def test_settings_made_in_code_are_checked_as_the_command_line_checks_them(
    settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(SettingsError) as refused_settings:
        MockServer(Settings(**settings))

    assert str(refused_settings.value) == message


def test_settings_made_in_code_with_values_written_as_on_the_command_line_are_taken_as_it_reads_them(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state.json"
    written = Settings(
        fixtures=str(DEFAULT_FIXTURES),
        state=str(state),
        threads="2",
        rate_limit="100",
        environment="SANDBOX",
    )

    with MockServer(written) as server:
        created = requests.post(
            f"{server.url}/payments", json=payment(), headers={"api-key": SECRET_KEY}, timeout=REQUEST_TIMEOUT
        )
        assert created.status_code == 200
        assert (server.settings.threads, server.settings.rate_limit) == (2, 100)
        assert (server.settings.fixtures, server.settings.state) == (DEFAULT_FIXTURES, state)
        assert server.settings.environment == "sandbox"
    assert state.exists()


def test_two_mock_servers_do_not_share_state() -> None:
    with MockServer() as first, MockServer() as second:
        assert first.port != second.port
        created = requests.post(
            f"{first.url}/payments",
            json=payment(),
            headers={"api-key": SECRET_KEY},
            timeout=REQUEST_TIMEOUT,
        )
        assert created.status_code == 200, created.text

        elsewhere = requests.get(
            f"{second.url}/payments/{created.json()['payment_id']}",
            headers={"api-key": SECRET_KEY},
            timeout=REQUEST_TIMEOUT,
        )

    assert elsewhere.status_code == 404
    assert elsewhere.json() == error("IR_05", "Payment not found")


# -- the command line ---------------------------------------------------------------------------


def test_unknown_setting_in_the_config_file_is_named_in_a_warning(
    start_server: StartServer, tmp_path: Path
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("port: 0\ncolour: blue\n")

    server = start_server("--config", str(config))

    assert health(server.base_url).status_code == 200
    assert server.stderr_path.read_text().splitlines()[0] == (
        f"mocksrv: warning: {config}: unknown setting colour (ignored)"
    )


def test_mocksrv_port_variable_sets_the_port(start_server: StartServer) -> None:
    port = free_port()

    server = start_server(env={"MOCKSRV_PORT": str(port)})

    assert server.base_url == f"http://{LOCALHOST}:{port}"
    assert health(server.base_url).status_code == 200


def test_serve_starts_itself_again_on_the_c_allocator_in_the_same_process(start_server: StartServer) -> None:
    server = start_server("--port", "0")

    environment = server.environment()
    assert {name: environment.get(name) for name in C_ALLOCATOR} == {
        "PYTHONMALLOC": "malloc",
        "MALLOC_ARENA_MAX": "1",
        "GLIBC_TUNABLES": "glibc.malloc.tcache_count=1",
    }
    assert health(server.base_url).status_code == 200
    assert_stops_cleanly(server)  # the process started is the one that serves, and SIGTERM stops it


def test_serve_keeps_an_allocator_chosen_in_the_environment(start_server: StartServer) -> None:
    server = start_server("--port", "0", env={"PYTHONMALLOC": "pymalloc"})

    environment = server.environment()
    assert {name: environment.get(name) for name in C_ALLOCATOR} == {
        "PYTHONMALLOC": "pymalloc",
        "MALLOC_ARENA_MAX": None,
        "GLIBC_TUNABLES": None,
    }
    assert health(server.base_url).status_code == 200


@pytest.fixture(scope="module")
def rate_limited_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    stderr = tmp_path_factory.mktemp("rate-limited") / "stderr.log"
    with running_process(["--port", "0"], stderr, {"MOCKSRV_RATE_LIMIT": "2"}) as server:
        yield server


@pytest.fixture
def limited_merchant(rate_limited_server: ServerProcess) -> Iterator[tuple[Merchant, int]]:
    """A merchant on the rate-limited server, its clock frozen; with the Unix time its window resets."""
    merchant = create_merchant(rate_limited_server.base_url, ADMIN_KEY)
    now = int(merchant.freeze().timestamp())
    yield merchant, (now // 60 + 1) * 60
    merchant.close()


def test_mocksrv_rate_limit_variable_sets_the_limit_in_the_headers(
    limited_merchant: tuple[Merchant, int],
) -> None:
    merchant, reset = limited_merchant

    answers = [merchant.get("/health") for _ in range(2)]

    assert [a.status_code for a in answers] == [200, 200]
    assert [{name: a.headers[name] for name in RATE_HEADERS} for a in answers] == [
        {"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "1", "X-RateLimit-Reset": str(reset)},
        {"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
    ]


def test_mocksrv_rate_limit_variable_refuses_the_third_request(
    limited_merchant: tuple[Merchant, int],
) -> None:
    merchant, reset = limited_merchant
    merchant.get("/health")
    merchant.get("/health")

    third = merchant.get("/health")

    assert third.status_code == 429
    assert third.json() == error("RL_01", f"Rate limit exceeded; the window resets at {reset} (Unix time)")
    assert {name: third.headers[name] for name in RATE_HEADERS} == {
        "X-RateLimit-Limit": "2",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": str(reset),
    }


@pytest.fixture(scope="module")
def changed_fixtures_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server started with --fixtures: a copy of fixtures/ whose default secret key is changed."""
    directory = tmp_path_factory.mktemp("fixtures-copy") / "fixtures"
    shutil.copytree(DEFAULT_FIXTURES, directory)
    merchants_file = directory / "merchants.yaml"
    merchants = yaml.safe_load(merchants_file.read_text())
    merchants["merchants"][0]["secret_key"] = CHANGED_SECRET_KEY
    merchants_file.write_text(yaml.safe_dump(merchants))
    stderr = directory.parent / "stderr.log"
    with running_process(["--port", "0", "--fixtures", str(directory)], stderr) as server:
        yield server


def test_fixtures_directory_sets_the_default_merchants_key(changed_fixtures_server: ServerProcess) -> None:
    response = health(changed_fixtures_server.base_url, CHANGED_SECRET_KEY)

    assert response.status_code == 200
    assert response.json() == {"status": "healthy"}


def test_fixtures_directory_replaces_the_built_in_key(changed_fixtures_server: ServerProcess) -> None:
    response = health(changed_fixtures_server.base_url, SECRET_KEY)

    assert response.status_code == 401
    assert response.json() == error("IR_01", "API key not provided or invalid API key used")


@pytest.fixture(scope="module")
def production_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    stderr = tmp_path_factory.mktemp("production") / "stderr.log"
    with running_process(["--port", "0", "--environment", "production"], stderr) as server:
        yield server


def test_production_banner_names_the_environment(production_server: ServerProcess) -> None:
    assert production_server.lines[0] == f"mocksrv production listening on {production_server.base_url}"


@pytest.mark.parametrize("key", [SECRET_KEY, PUBLISHABLE_KEY])
def test_production_rejects_sandbox_keys(production_server: ServerProcess, key: str) -> None:
    response = requests.post(
        f"{production_server.base_url}/payments",
        json=payment(profile_id=PROFILE_ID),
        headers={"api-key": key},
        timeout=REQUEST_TIMEOUT,
    )

    assert response.status_code == 401
    assert response.json() == error("IR_01", "Sandbox keys are not accepted in production")


def test_production_merchant_gets_production_keys(production_server: ServerProcess) -> None:
    merchant = create_merchant(production_server.base_url, ADMIN_KEY)
    merchant.close()

    assert merchant.secret_key.startswith("prd_")
    assert merchant.publishable_key.startswith("pk_prd_")


def test_production_accepts_a_production_key(production_server: ServerProcess) -> None:
    merchant = create_merchant(production_server.base_url, ADMIN_KEY)
    merchant.close()

    response = health(production_server.base_url, merchant.secret_key)

    assert response.status_code == 200
    assert response.json() == {"status": "healthy"}


def test_banner_prints_the_keys_of_each_seeded_merchant() -> None:
    from mocksrv.app import create_sandbox
    from mocksrv.server import banner
    from mocksrv.settings import Settings

    settings = Settings()
    text = banner(create_sandbox(settings), "http://127.0.0.1:8080", settings)

    assert text.splitlines() == [
        "mocksrv sandbox listening on http://127.0.0.1:8080",
        "",
        "  merchant_id       merchant_default",
        "  profile_id        pro_default",
        "  secret key        snd_default_secret_key",
        "  publishable key   pk_snd_default_publishable_key",
        "  signing key       whsec_default_signing_key",
        "  legacy client     legacy_client_id / legacy_client_secret (HTTP Basic)",
        "",
        "  control plane     http://127.0.0.1:8080/__mock  (admin key: mocksrv_admin_key)",
        "  health            http://127.0.0.1:8080/health",
    ]


def test_banner_says_which_fixture_keys_the_state_file_revoked() -> None:
    from mocksrv.app import create_sandbox
    from mocksrv.domain.models import KeyKind
    from mocksrv.server import banner
    from mocksrv.settings import Settings

    settings = Settings()
    sandbox = create_sandbox(settings)
    for key in sandbox.api_keys.list_keys(MERCHANT_ID, None, 0):
        if key.kind is KeyKind.SECRET:
            sandbox.api_keys.revoke(MERCHANT_ID, key.key_id)

    lines = banner(sandbox, "http://127.0.0.1:8080", settings).splitlines()

    assert lines[2:7] == [
        "  merchant_id       merchant_default",
        "  profile_id        pro_default",
        "  secret key        snd_default_secret_key (revoked in the state file: does not work)",
        "  publishable key   pk_snd_default_publishable_key",
        "  signing key       whsec_default_signing_key",
    ]


def test_webhook_url_flag_sends_the_default_merchants_events_there(start_server: StartServer) -> None:
    receiver = HTTPServer(host="127.0.0.1", port=0)
    receiver.expect_request("/flag-hook", method="POST").respond_with_data("ok")
    receiver.start()
    try:
        server = start_server("--port", "0", "--webhook-url", receiver.url_for("/flag-hook"))
        with closing(default_merchant(server.base_url)) as merchant:
            created = merchant.post("/payments", payment())
            drained = merchant.wait_webhooks(10)

        assert created.status_code == 200
        assert drained is True
        [(sent, _)] = receiver.log
        assert json.loads(sent.get_data())["event_type"] == "payment_succeeded"
        assert verify_signature(sent.get_data(), sent.headers.get(SIGNATURE_HEADER), SIGNING_KEY)
    finally:
        receiver.clear()
        receiver.stop()


# -- the access log of a real process -----------------------------------------------------------


def access_lines(server: ServerProcess) -> list[str]:
    """The access log lines of stderr, without their time stamps."""
    lines = server.stderr_path.read_text().splitlines()
    return [line.split(" ", 2)[2] for line in lines if " mocksrv.access: " in line]


def test_serve_logs_a_line_per_request_and_writes_them_all_before_it_exits(start_server: StartServer) -> None:
    server = start_server("--port", "0")
    for _ in range(3):
        assert health(server.base_url).status_code == 200
    assert health(server.base_url, key="wrong").status_code == 401

    assert_stops_cleanly(server)

    lines = [re.sub(r"\d+\.\d\dms", "<ms>", line) for line in access_lines(server)]
    assert lines == [
        *["INFO mocksrv.access: GET /health 200 <ms> merchant=merchant_default"] * 3,
        "INFO mocksrv.access: GET /health 401 <ms> merchant=-",
    ]


def test_log_level_warning_silences_the_access_log(start_server: StartServer) -> None:
    server = start_server("--port", "0", "--log-level", "warning")
    assert health(server.base_url).status_code == 200

    assert_stops_cleanly(server)

    assert access_lines(server) == []


def test_the_stopped_line_comes_after_every_log_line_when_both_streams_share_a_file(tmp_path: Path) -> None:
    # `mocksrv serve > log 2>&1`, as a CI job keeps it: the last line is the last thing that happened.
    port, log = free_port(), tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*CHECKOUT_COMMAND, "serve", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=subprocess_environment(),
        )
    try:
        assert wait_until_up(f"http://{LOCALHOST}:{port}", START_TIMEOUT), log.read_text()
        for _ in range(20):
            answer = requests.get(
                f"http://{LOCALHOST}:{port}/customers/list",
                headers={"api-key": SECRET_KEY},
                timeout=REQUEST_TIMEOUT,
            )
            assert answer.status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=STOP_TIMEOUT)

    lines = log.read_text().splitlines()
    assert code == 0
    assert lines[-1] == STOPPED_LINE
    assert sum("GET /customers/list 200" in line for line in lines) == 20
