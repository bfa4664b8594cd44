"""The `mocksrv` command as a real process: one line for each bad input, a busy port, `--version`,
`--help`, and `mocksrv wait`.

The short runs start together in one fixture, so that the file takes about as long as its slowest.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mocksrv import __version__
from tests.e2e.harness import LOCALHOST, free_port, run_command
from tests.e2e.harness import CommandRun as Run

RUN_TIMEOUT = 15.0  # seconds for one run of the command; none should take more than one or two
MAX_RUNS_AT_ONCE = 8  # runs started together, on a machine of two cores
PORT = "not a port (0 to 65535)"
URL = "not an http or https URL with a host and a port of 1 to 65535"
BAD_MERCHANTS = "merchants: [a: b\n"


@dataclass(frozen=True)
class Case:
    """A run of the command: its arguments, extra environment, and files made in its directory."""

    args: list[str]
    env: Mapping[str, str] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)


def run(args: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> Run:
    return run_command(args, cwd, RUN_TIMEOUT, env)


# One exact line on stderr and exit 2.
REFUSED = {
    "flag port -1": (Case(["serve", "--port", "-1"]), f"--port -1: {PORT}"),
    "flag port 99999": (Case(["serve", "--port", "99999"]), f"--port 99999: {PORT}"),
    "flag host": (Case(["serve", "--host", "999.1.1.1"]), "--host 999.1.1.1: not an IP address or host name"),
    "flag threads": (Case(["serve", "--threads", "0"]), "--threads 0: not a whole number from 1 to 256"),
    "flag log level": (
        Case(["serve", "--log-level", "verbose"]),
        "--log-level verbose: not one of debug, info, warning, error",
    ),
    "flag webhook url": (
        Case(["serve", "--webhook-url", "ftp://hooks.example"]),
        f"--webhook-url ftp://hooks.example: {URL}",
    ),
    "flag fixtures": (Case(["serve", "--fixtures", "missing"]), "--fixtures missing: not a directory"),
    "env port": (Case(["serve"], env={"MOCKSRV_PORT": "abc"}), f"MOCKSRV_PORT=abc: {PORT}"),
    "env webhook timeout": (
        Case(["serve"], env={"MOCKSRV_WEBHOOK_TIMEOUT": "0"}),
        "MOCKSRV_WEBHOOK_TIMEOUT=0: not a number of seconds greater than 0, at most 1000000",
    ),
    "config rate limit": (
        Case(["serve", "--config", "config.yaml"], files={"config.yaml": "rate_limit: -5\n"}),
        "config.yaml: rate_limit=-5: not a whole number from 0 to 9223372036854775807",
    ),
    "config boolean port": (
        Case(["serve", "--config", "config.yaml"], files={"config.yaml": "port: true\n"}),
        f"config.yaml: port=true: {PORT}",
    ),
    "config not yaml": (
        Case(["serve", "--config", "config.yaml"], files={"config.yaml": "port: [8080\n"}),
        "config.yaml: not valid YAML: did not find expected ',' or ']' (line 2, column 1)",
    ),
    "config missing": (
        Case(["serve", "--config", "absent.yaml"]),
        "absent.yaml: cannot read: no such file or directory",
    ),
    "wait url": (Case(["wait", "--url", "ftp://127.0.0.1"]), f"--url ftp://127.0.0.1: {URL}"),
    "wait env url": (
        Case(["wait"], env={"MOCKSRV_URL": "127.0.0.1:8080"}),
        f"MOCKSRV_URL=127.0.0.1:8080: {URL}",
    ),
    "wait timeout": (
        Case(["wait", "--timeout", "-1"]),
        "--timeout -1: not a number of seconds of 0 or more",
    ),
}
# A bad fixture file: one line naming the file, and exit 2.
BAD_FIXTURES = {
    "fixture directory empty": (
        Case(["serve", "--fixtures", "fixtures"], files={"fixtures/.keep": ""}),
        "outcomes.yaml",
    ),
    "fixture not yaml": (
        Case(["serve", "--fixtures", "fixtures"], files={"fixtures/merchants.yaml": BAD_MERCHANTS}),
        "merchants.yaml",
    ),
    "fixture wrong shape": (
        Case(["serve", "--fixtures", "fixtures"], files={"fixtures/merchants.yaml": "merchants: 5\n"}),
        "merchants.yaml",
    ),
}
# A seeded merchant's field of the wrong kind, or a merchant that cannot be created: the line says which.
BAD_MERCHANTS_FIELDS = {
    "merchants: [{merchant_id: a}, {merchant_id: a}]": (
        "merchant 1: The merchant with the specified merchant_id already exists in our records"
    ),
    "merchants: [{secret_key: [1, 2]}]": "merchant 0: secret_key=[1, 2]: not a non-empty string",
    "merchants: [{session_expiry: abc}]": (
        "merchant 0: session_expiry='abc': not a whole number from 0 to 31536000"
    ),
    "merchants: [{merchant_id: 5}]": "merchant 0: merchant_id=5: not a non-empty string",
    "merchants: [{connector: a/b}]": "merchant 0: connector='a/b': not 1-64 letters, digits, _, . or -",
    "merchants: [{webhook_url: notaurl}]": (
        "merchant 0: webhook_url='notaurl': not an http or https URL with a host and a port of 1 to 65535"
    ),
    "merchants: [{merchant_id: a, merchant_id: b}]": (
        "merchant_id is given twice (first on line 1) (line 1, column 30)"
    ),
    "merchants: [{rate_limit: 100000000000000000000}]": (  # past what a snapshot or state file holds
        "merchant 0: rate_limit=100000000000000000000: not a whole number from 0 to 9223372036854775807"
    ),
}
for _body, _expected in BAD_MERCHANTS_FIELDS.items():
    BAD_FIXTURES[_body] = (
        Case(["serve", "--fixtures", "fixtures"], files={"fixtures/merchants.yaml": _body + "\n"}),
        f"merchants.yaml: {_expected}",
    )
OTHERS = {
    "version": Case(["--version"]),
    "serve help": Case(["serve", "--help"]),
    "unknown flag": Case(["serve", "--colour", "blue"]),
    "flag without value": Case(["serve", "--port"]),
    "wait for nothing": Case(["wait", "--url", "http://127.0.0.1:{free_port}", "--timeout", "0.5"]),
}


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """Every short run, started together, each in a directory of its own; by name."""
    cases = {name: case for name, (case, _) in {**REFUSED, **BAD_FIXTURES}.items()} | OTHERS
    port = str(free_port())
    fixtures = (Path(__file__).resolve().parents[2] / "fixtures" / "outcomes.yaml").read_text()
    directories = {}
    for name, case in cases.items():
        directory = tmp_path_factory.mktemp(re.sub(r"\W", "-", name))
        for path, text in case.files.items():
            (directory / path).parent.mkdir(parents=True, exist_ok=True)
            (directory / path).write_text(text)
        if "fixtures/merchants.yaml" in case.files:
            (directory / "fixtures" / "outcomes.yaml").write_text(fixtures)
        directories[name] = directory
    with ThreadPoolExecutor(max_workers=MAX_RUNS_AT_ONCE) as pool:
        futures = {
            name: pool.submit(
                run, [arg.format(free_port=port) for arg in case.args], directories[name], case.env
            )
            for name, case in cases.items()
        }
        return {name: future.result() for name, future in futures.items()}


@pytest.mark.parametrize("name", list(REFUSED))
def test_bad_input_is_one_line_and_exit_2(finished: dict[str, Run], name: str) -> None:
    result = finished[name]

    assert (result.code, result.stderr, result.stdout) == (2, f"mocksrv: {REFUSED[name][1]}\n", "")


@pytest.mark.parametrize("name", list(BAD_FIXTURES))
def test_bad_fixture_file_is_one_line_and_exit_2(finished: dict[str, Run], name: str) -> None:
    result = finished[name]
    [line] = result.stderr.splitlines()

    assert (result.code, result.stdout) == (2, "")
    assert line.startswith("mocksrv: fixture "), line
    assert BAD_FIXTURES[name][1] in line
    assert "Traceback" not in result.stderr


def test_version(finished: dict[str, Run]) -> None:
    result = finished["version"]

    assert (result.code, result.stdout, result.stderr) == (0, f"mocksrv {__version__}\n", "")


def test_serve_help_names_each_flags_variable_and_default(finished: dict[str, Run]) -> None:
    result = finished["serve help"]
    text = " ".join(result.stdout.split())

    assert result.code == 0
    assert "--port PORT port to listen on; 0 picks a free one (env MOCKSRV_PORT, default 8080)" in text
    assert "--rate-limit RATE_LIMIT requests per minute per API key; 0 turns limiting off" in text
    assert "(env MOCKSRV_RATE_LIMIT, default 6000)" in text
    assert "(env MOCKSRV_WEBHOOK_URL, unset by default)" in text


def test_unknown_flag_is_argparses_error_and_exit_2(finished: dict[str, Run]) -> None:
    result = finished["unknown flag"]

    assert (result.code, result.stderr) == (
        2,
        "mocksrv: unrecognized arguments: --colour blue (see mocksrv --help)\n",
    )


def test_a_flag_without_its_value_is_one_line_and_exit_2(finished: dict[str, Run]) -> None:
    result = finished["flag without value"]

    assert (result.code, result.stderr) == (
        2,
        "mocksrv: argument --port: expected one argument (see mocksrv serve --help)\n",
    )


def test_wait_for_a_server_that_is_not_there_fails_at_its_deadline(finished: dict[str, Run]) -> None:
    result = finished["wait for nothing"]

    assert result.code == 1
    assert re.fullmatch(r"mocksrv wait: http://127\.0\.0\.1:[0-9]+ is not up after 0\.5 s\n", result.stderr)
    assert result.stdout == ""


def test_busy_port_names_the_address_and_exits_1(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind((LOCALHOST, 0))
        taken.listen()
        port = taken.getsockname()[1]

        result = run(["serve", "--port", str(port)], tmp_path)

    assert (result.code, result.stderr, result.stdout) == (
        1,
        f"mocksrv: cannot listen on {LOCALHOST}:{port}: address already in use\n",
        "",
    )


def test_wait_for_a_running_server_exits_0(base_url: str, tmp_path: Path) -> None:
    result = run(["wait", "--url", base_url, "--timeout", "10"], tmp_path)

    assert (result.code, result.stdout, result.stderr) == (0, f"mocksrv wait: {base_url} is up\n", "")


def test_wait_takes_the_url_from_mocksrv_url(base_url: str, tmp_path: Path) -> None:
    result = run(["wait", "--timeout", "10"], tmp_path, {"MOCKSRV_URL": base_url})

    assert (result.code, result.stdout, result.stderr) == (0, f"mocksrv wait: {base_url} is up\n", "")
