"""`mocksrv scenario` and `mocksrv trigger` as real processes, and scenario files collected by pytest.

The command's runs start together in one fixture, so that they take about as long as the slowest.
The scenario files are tests/scenario_files/: passing/ all pass, failing/ each fails, invalid/ each
is refused.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TextIO
from xml.etree import ElementTree

import pytest

from mocksrv import MockServer
from mocksrv.client import Sandbox
from mocksrv.receiver import WebhookEndpoint, WebhookReceiver
from mocksrv.scenario import commands
from mocksrv.settings import Settings
from tests.e2e.harness import (
    CHECKOUT_COMMAND,
    REPO_ROOT,
    CommandRun,
    Merchant,
    ServerProcess,
    create_merchant,
    free_port,
    poll,
    run_command,
    subprocess_environment,
)
from tests.payloads import ADMIN_KEY

FILES = "tests/scenario_files"
RUN_TIMEOUT = 60.0  # seconds for one run of the command; the slowest takes two or three
MAX_RUNS_AT_ONCE = 6
SECONDS = re.compile(r" [0-9]+\.[0-9]{2}s$", re.MULTILINE)

PASSING = [
    ("card_payment_succeeds", "A card payment succeeds and its signed webhook arrives"),
    ("outcomes_decide_the_payment", "The merchant's outcome table decides a payment"),
    ("webhook_retried_on_the_mock_clock", "A webhook the receiver refuses is retried on the mock clock"),
]
FAILING = [
    ("declined_card_expected_to_succeed", "A declined card is expected to succeed"),
    ("deliveries_miscounted", "A delivery is counted twice"),
    ("outcome_rule_refused", "An outcome rule the server refuses"),
    ("webhook_expected_unsigned", "A signed webhook is expected unsigned"),
]
DECLINED_FILE = f"{FILES}/failing/declined_card_expected_to_succeed.yaml"
DECLINED_MESSAGE = "step 1 (pay with the decline card): status: expected 200, got 400"
DECLINED_DETAIL = """\
request: POST /payments?expand=false
  {
    "amount": 1000,
    "currency": "XYZ",
    "confirm": true,
    "payment_method": "card",
    "payment_method_type": "credit",
    "payment_method_data": {
      "card": {
        "card_number": "************0002",
        "card_exp_month": "12",
        "card_exp_year": "2030",
        "card_cvc": "***"
      }
    }
  }
answer: 400
  {
    "error": {
      "type": "invalid_request",
      "code": "IR_04",
      "message": "Invalid value provided: currency: not an ISO 4217 currency code of money the service takes",
      "param": "currency"
    }
  }"""
DEEP_K = "not " * 1000 + "cards"
REFUSED_MESSAGE = (
    "merchant.outcomes: the control plane refused them: PUT /__mock/outcomes: 400 IR_04 "
    "Invalid value provided: rules.0.outcome.result"
)


@dataclass(frozen=True)
class Run(CommandRun):
    @property
    def timeless(self) -> str:
        """stdout with every duration written as 0.00s."""
        return SECONDS.sub(" 0.00s", self.stdout)


def run(args: list[str], cwd: Path = REPO_ROOT, env: Mapping[str, str] | None = None) -> Run:
    done = run_command(args, cwd, RUN_TIMEOUT, env)
    return Run(done.code, done.stdout, done.stderr)


def file_of(directory: str, stem: str) -> str:
    return f"{FILES}/{directory}/{stem}.yaml"


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver


@pytest.fixture(scope="module")
def trigger_merchant(base_url: str) -> Iterator[Merchant]:
    merchant = create_merchant(base_url)
    yield merchant
    merchant.close()


@pytest.fixture(scope="module")
def trigger_endpoint(receiver: WebhookReceiver, trigger_merchant: Merchant) -> WebhookEndpoint:
    return receiver.endpoint(trigger_merchant.signing_key)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the runs write their JUnit reports."""
    return tmp_path_factory.mktemp("junit")


@pytest.fixture(scope="module")
def finished(
    tmp_path_factory: pytest.TempPathFactory,
    reports: Path,
    base_url: str,
    trigger_merchant: Merchant,
    trigger_endpoint: WebhookEndpoint,
) -> dict[str, Run]:
    """Every run of the command, started together; by name."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "scenarios" / "cards").mkdir(parents=True)
    shutil.copy(REPO_ROOT / file_of("passing", "card_payment_succeeds"), elsewhere / "scenarios" / "cards")
    passing, failing, run_ = f"{FILES}/passing", f"{FILES}/failing", ["scenario", "run"]
    card = file_of("passing", "card_payment_succeeds")
    merchant = ["--url", base_url, "--merchant", trigger_merchant.merchant_id]
    here: dict[str, list[str]] = {
        "passing": [*run_, passing, "--junit", f"{reports}/passing.xml"],
        "failing": [*run_, DECLINED_FILE, "--junit", f"{reports}/failing.xml"],
        "all at once": [*run_, passing, failing, "--jobs", "2", "--junit", f"{reports}/all.xml"],
        "chosen": [*run_, passing, failing, "-k", "cards or not (webhooks or broken)"],
        "external server": [*run_, card, "--url", base_url],
        "junit unwritable": [*run_, card, "--junit", f"{reports}/missing/report.xml"],
        "junit a directory": [*run_, card, "--junit", str(reports)],
        "invalid": [*run_, passing, f"{FILES}/invalid/bad_method.yaml"],
        "validate invalid": ["scenario", "validate", f"{FILES}/invalid"],
        "validate": ["scenario", "validate", passing, failing],
        "list": ["scenario", "list", passing],
        "missing": [*run_, "nowhere"],
        "bad k": [*run_, passing, "-k", "cards and"],
        "deep k": [*run_, passing, "-k", DEEP_K],
        "chooses none": [*run_, passing, "-k", "nothing-like-it"],
        "bad jobs": [*run_, "--jobs", "0"],
        "unsendable admin key": [*run_, passing, "--admin-key", "k\u00e9y \U0001f511"],
        "unreachable": [*run_, passing, "--url", f"http://127.0.0.1:{free_port()}"],
        "trigger payment": ["trigger", "payment_succeeded", *merchant, "--webhook-url", trigger_endpoint.url],
        "trigger refund": ["trigger", "refund_succeeded", *merchant],
        "trigger dispute": ["trigger", "dispute_lost", *merchant],
        "trigger unknown": ["trigger", "payment_exploded", *merchant],
        "trigger no merchant": ["trigger", "payment_succeeded", "--url", base_url, "--merchant", "nobody"],
    }
    runs = {name: (args, REPO_ROOT) for name, args in here.items()}
    runs["default folder elsewhere"] = (run_, elsewhere)
    with ThreadPoolExecutor(max_workers=MAX_RUNS_AT_ONCE) as pool:
        futures = {name: pool.submit(run, args, cwd) for name, (args, cwd) in runs.items()}
        done = {name: future.result() for name, future in futures.items()}
    for name, result in done.items():
        assert "Traceback" not in result.stderr, (name, result.stderr)
    return done


def junit(path: Path) -> ElementTree.Element:
    suites = ElementTree.parse(path).getroot()
    [suite] = suites
    return suite


# -- mocksrv scenario run -------------------------------------------------------------------------------


def test_passing_scenarios_print_a_line_each_and_exit_0(finished: dict[str, Run]) -> None:
    result = finished["passing"]

    assert (result.code, result.stderr) == (0, "")
    assert result.timeless.splitlines() == [
        *(f"PASS {name} ({file_of('passing', stem)}) 0.00s" for stem, name in PASSING),
        "3 passed, 0 failed in 0.00s",
    ]


def test_a_failing_scenario_shows_the_step_the_request_and_the_answer_masked(
    finished: dict[str, Run],
) -> None:
    result = finished["failing"]
    indented = "\n".join("  " + line for line in [DECLINED_MESSAGE, *DECLINED_DETAIL.splitlines()])

    assert (result.code, result.stderr) == (1, "")
    assert result.timeless.splitlines() == [
        f"FAIL A declined card is expected to succeed ({DECLINED_FILE}) 0.00s",
        *indented.splitlines(),
        "0 passed, 1 failed in 0.00s",
    ]


def test_the_junit_report_of_a_failure_carries_its_message_and_text(
    finished: dict[str, Run], reports: Path
) -> None:
    suite = junit(reports / "failing.xml")
    [case] = suite
    [failure] = case

    assert {key: suite.attrib[key] for key in ("name", "tests", "failures", "errors", "skipped")} == {
        "name": "mocksrv scenarios",
        "tests": "1",
        "failures": "1",
        "errors": "0",
        "skipped": "0",
    }
    assert float(suite.attrib["time"]) > float(case.attrib["time"]) > 0
    assert (case.attrib["classname"], case.attrib["name"], case.attrib["file"]) == (
        "tests.scenario_files.failing.declined_card_expected_to_succeed",
        "A declined card is expected to succeed",
        DECLINED_FILE,
    )
    assert (failure.tag, failure.attrib, failure.text) == (
        "failure",
        {"message": DECLINED_MESSAGE, "type": "scenario failure"},
        f"{DECLINED_MESSAGE}\n{DECLINED_DETAIL}",
    )


def test_jobs_run_every_scenario_and_the_report_keeps_the_files_order(
    finished: dict[str, Run], reports: Path
) -> None:
    result = finished["all at once"]
    lines = result.timeless.splitlines()
    suite = junit(reports / "all.xml")

    assert result.code == 1
    assert lines[-1] == "3 passed, 4 failed in 0.00s"
    assert sorted(line for line in lines if line.startswith(("PASS", "FAIL"))) == sorted(
        [f"PASS {name} ({file_of('passing', stem)}) 0.00s" for stem, name in PASSING]
        + [f"FAIL {name} ({file_of('failing', stem)}) 0.00s" for stem, name in FAILING]
    )
    assert [suite.attrib[key] for key in ("tests", "failures", "errors")] == ["7", "4", "0"]
    assert [(case.attrib["name"], [child.tag for child in case]) for case in suite] == [
        *((name, []) for _, name in PASSING),
        *((name, ["failure"]) for _, name in FAILING),
    ]
    messages = [case[0].attrib["message"] for case in suite if len(case)]
    assert messages[0] == DECLINED_MESSAGE
    assert re.fullmatch(
        r"step 2 \(expect_deliveries\): expected 2 delivery attempts of payment_succeeded for pay_\w+, "
        r'got 1; expected delivery state "failed", got "delivered"',
        messages[1],
    )
    assert messages[2] == REFUSED_MESSAGE
    assert re.fullmatch(
        r"step 2 \(expect_webhook\): payment_succeeded evt_\w+: its signature verifies with the merchant's "
        r"signing key",
        messages[3],
    )


def test_k_chooses_by_name_file_or_tag(finished: dict[str, Run]) -> None:
    result = finished["chosen"]

    assert (result.code, result.stderr) == (0, "")
    assert result.timeless.splitlines() == [
        f"PASS {PASSING[0][1]} ({file_of('passing', PASSING[0][0])}) 0.00s",
        f"PASS {PASSING[1][1]} ({file_of('passing', PASSING[1][0])}) 0.00s",
        "2 passed, 0 failed, 5 deselected in 0.00s",
    ]


def test_the_default_folder_is_scenarios_of_the_current_directory(finished: dict[str, Run]) -> None:
    result = finished["default folder elsewhere"]

    assert (result.code, result.stderr) == (0, "")
    assert result.timeless.splitlines() == [
        f"PASS {PASSING[0][1]} (scenarios/cards/card_payment_succeeds.yaml) 0.00s",
        "1 passed, 0 failed in 0.00s",
    ]


def test_a_scenario_runs_against_the_server_named_by_url(finished: dict[str, Run]) -> None:
    result = finished["external server"]

    assert (result.code, result.stderr) == (0, "")
    assert result.timeless.splitlines()[-1] == "1 passed, 0 failed in 0.00s"


def test_an_invalid_file_stops_the_run_before_anything_runs(finished: dict[str, Run]) -> None:
    result = finished["invalid"]

    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        f"{FILES}/invalid/bad_method.yaml:10: step 2 (fetch them): request.method: "
        "'FETCH' is not one of ['GET', 'POST', 'PUT', 'DELETE']",
        "mocksrv scenario: 1 problem in 1 of 4 files",
        "mocksrv scenario: nothing ran",
    ]


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("missing", "mocksrv scenario: nowhere: no such file or directory"),
        ("bad k", "mocksrv scenario: -k 'cards and': the expression ends too soon"),
        ("deep k", f"mocksrv scenario: -k {DEEP_K!r}: nested more than 64 deep"),
        ("chooses none", "mocksrv scenario: -k 'nothing-like-it' chooses none of the 3 scenarios"),
        (
            "unsendable admin key",
            "mocksrv scenario: the admin key: a header's value is Latin-1 text: '\U0001f511' cannot be sent",
        ),
        (
            "bad jobs",
            "mocksrv: argument --jobs: '0' is not a whole number of 1 or more "
            "(see mocksrv scenario run --help)",
        ),
    ],
)
def test_wrong_use_is_one_line_and_exit_2(finished: dict[str, Run], name: str, line: str) -> None:
    result = finished[name]

    assert (result.code, result.stdout, result.stderr) == (2, "", line + "\n")


def test_a_scenario_path_that_is_neither_a_file_nor_a_folder_is_one_line_and_exit_2(tmp_path: Path) -> None:
    fifo = tmp_path / "scenarios.yaml"
    os.mkfifo(fifo)
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(fifo, None, out, err)

    assert (code, out.getvalue(), err.getvalue()) == (
        2,
        "",
        f"mocksrv scenario: {fifo}: a named pipe, not a file or folder\n",
    )


def test_a_report_that_cannot_be_written_is_one_line_and_exit_2(
    finished: dict[str, Run], reports: Path
) -> None:
    result = finished["junit unwritable"]

    assert (result.code, result.stderr) == (
        2,
        f"mocksrv scenario: --junit {reports}/missing/report.xml: cannot write: no such file or directory\n",
    )
    assert result.stdout == ""  # told before any scenario ran


def test_a_report_path_that_is_a_directory_is_refused_before_the_run(
    finished: dict[str, Run], reports: Path
) -> None:
    result = finished["junit a directory"]

    assert (result.code, result.stdout, result.stderr) == (
        2,
        "",
        f"mocksrv scenario: --junit {reports}: cannot write: is a directory\n",
    )


def test_a_server_that_cannot_be_reached_is_one_line_and_exit_2(finished: dict[str, Run]) -> None:
    result = finished["unreachable"]

    assert (result.code, result.stdout) == (2, "")
    assert re.fullmatch(
        r"mocksrv scenario: mocksrv at http://127\.0\.0\.1:[0-9]+ cannot be reached: "
        r"\[Errno 111\] Connection refused\n",
        result.stderr,
    )


# -- mocksrv scenario validate and list -----------------------------------------------------------------


def test_validate_lists_every_problem_of_every_file_and_exits_2(finished: dict[str, Run]) -> None:
    result = finished["validate invalid"]
    lines = result.stderr.splitlines()

    assert (result.code, result.stdout) == (2, "")
    assert lines[-1] == "mocksrv scenario: 20 problems in 11 of 11 files"
    assert lines[0] == (
        f"{FILES}/invalid/bad_method.yaml:10: step 2 (fetch them): request.method: "
        "'FETCH' is not one of ['GET', 'POST', 'PUT', 'DELETE']"
    )
    assert (
        f"{FILES}/invalid/unknown_variable.yaml:16: step 2 (capture it): request.body.amount_to_capture: "
        "unknown variable ${nope}"
    ) in lines


def test_validate_of_valid_files_exits_0(finished: dict[str, Run]) -> None:
    assert finished["validate"] == Run(0, "7 scenario files are valid\n", "")


def test_list_shows_name_tags_file_and_the_first_line_of_the_description(finished: dict[str, Run]) -> None:
    result = finished["list"]
    widths = (len(PASSING[2][1]), len("outcomes,declines"), len(file_of("passing", PASSING[2][0])))
    rows = [
        ("NAME", "TAGS", "FILE", "DESCRIPTION"),
        (
            PASSING[0][1],
            "cards,webhooks",
            file_of("passing", PASSING[0][0]),
            "A confirmed card payment with the success card succeeds at once, and the merchant's receiver "
            "gets one signed payment_succeeded for it.",
        ),
        (
            PASSING[1][1],
            "outcomes,declines",
            file_of("passing", PASSING[1][0]),
            "A merchant whose outcome table declines every card sees a decline; once the table is replaced,",
        ),
        (
            PASSING[2][1],
            "webhooks,retries",
            file_of("passing", PASSING[2][0]),
            "The receiver answers the first delivery 500 and leaves the second unanswered; each failed "
            "attempt is retried a minute later on the merchant's mock clock, and the third attempt is "
            "delivered.",
        ),
    ]

    assert (result.code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[3]])
        for row in rows
    ]


# -- mocksrv trigger ------------------------------------------------------------------------------------


def test_trigger_sets_the_webhook_url_first_and_prints_the_event_and_its_objects(
    finished: dict[str, Run], trigger_endpoint: WebhookEndpoint
) -> None:
    result = finished["trigger payment"]

    assert (result.code, result.stderr) == (0, "")
    event_line, payment_line = result.stdout.splitlines()
    assert re.fullmatch(r"event_id evt_\w+", event_line)
    assert re.fullmatch(r"payment_id pay_\w+", payment_line)
    event = trigger_endpoint.wait_for("payment_succeeded", object_id=payment_line.split()[1])
    assert (event.event_id, event.verified) == (event_line.split()[1], True)


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("trigger refund", r"event_id evt_\w+\npayment_id pay_\w+\nrefund_id ref_\w+\n"),
        ("trigger dispute", r"event_id evt_\w+\npayment_id pay_\w+\ndispute_id dp_\w+\n"),
    ],
)
def test_trigger_prints_every_object_made_on_the_way(
    finished: dict[str, Run], name: str, pattern: str
) -> None:
    result = finished[name]

    assert (result.code, result.stderr) == (0, "")
    assert re.fullmatch(pattern, result.stdout)


def test_trigger_exits_1_with_the_servers_refusal(finished: dict[str, Run]) -> None:
    unknown, nobody = finished["trigger unknown"], finished["trigger no merchant"]

    assert (unknown.code, unknown.stdout) == (1, "")
    assert unknown.stderr.startswith(
        "mocksrv trigger: POST /__mock/trigger: 400 IR_04 Invalid value provided: event_type: "
        "must be one of: action_required, "
    )
    assert (nobody.code, nobody.stdout, nobody.stderr) == (
        1,
        "",
        "mocksrv trigger: POST /__mock/trigger: 404 HE_02 Merchant does not exist in our records\n",
    )


# -- pytest --mocksrv-scenarios -------------------------------------------------------------------------

SHORT_WEBHOOK_TIMEOUT = """
import pytest
from mocksrv.settings import Settings

@pytest.fixture(scope="session")
def mocksrv_settings():
    return Settings(webhook_timeout=1)
"""


@pytest.fixture
def consumer(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project with scenarios/ (the passing files and one failing), a test module, and a short
    webhook timeout; it sees no MOCKSRV_* setting of this run."""
    monkeypatch.delenv("MOCKSRV_URL", raising=False)
    monkeypatch.delenv("MOCKSRV_ADMIN_KEY", raising=False)
    shutil.copytree(REPO_ROOT / FILES / "passing", pytester.path / "scenarios")
    shutil.copy(REPO_ROOT / DECLINED_FILE, pytester.path / "scenarios")
    pytester.makeconftest(SHORT_WEBHOOK_TIMEOUT)
    pytester.makepyfile(
        test_consumer="def test_own(mocksrv_merchant):\n    assert mocksrv_merchant.merchant_id\n"
    )
    return pytester


def test_each_scenario_file_is_a_test_beside_the_named_tests(consumer: pytest.Pytester) -> None:
    result = consumer.runpytest_subprocess("test_consumer.py", "--mocksrv-scenarios", "scenarios", "-v")

    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        [
            "test_consumer.py::test_own PASSED*",
            f"scenarios/{PASSING[0][0]}.yaml::{PASSING[0][1]} PASSED*",
            f"scenarios/{FAILING[0][0]}.yaml::{FAILING[0][1]} FAILED*",
            f"scenarios/{PASSING[1][0]}.yaml::{PASSING[1][1]} PASSED*",
            f"scenarios/{PASSING[2][0]}.yaml::{PASSING[2][1]} PASSED*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["*_ A declined card is expected to succeed _*", DECLINED_MESSAGE, *DECLINED_DETAIL.splitlines()],
        consecutive=True,
    )
    result.stdout.no_fnmatch_line("*pytest_plugin.py*")


def test_scenarios_alone_run_without_the_other_tests_and_k_chooses_by_tag(consumer: pytest.Pytester) -> None:
    result = consumer.runpytest_subprocess("--mocksrv-scenarios", "scenarios", "-k", "retries")

    result.assert_outcomes(passed=1, deselected=3)


def test_an_invalid_scenario_file_is_a_collection_error_with_its_problems(consumer: pytest.Pytester) -> None:
    shutil.copy(REPO_ROOT / FILES / "invalid" / "bad_method.yaml", consumer.path / "scenarios")

    result = consumer.runpytest_subprocess("--mocksrv-scenarios", "scenarios/bad_method.yaml")

    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting scenarios/bad_method.yaml*",
            "scenarios/bad_method.yaml:10: step 2 (fetch them): request.method: "
            "'FETCH' is not one of ['GET', 'POST', 'PUT', 'DELETE']",
        ]
    )


def test_scenarios_are_collected_through_a_linked_folder_and_a_file_reached_twice_runs_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MOCKSRV_URL", raising=False)
    (pytester.path / "shared").mkdir()
    for name in ("first", "second"):
        (pytester.path / "shared" / f"{name}.yaml").write_text(
            f"name: {name}\ndescription: d\nsteps:\n  - advance: 1s\n"
        )
    (pytester.path / "linked").symlink_to(pytester.path / "shared")

    folder = pytester.runpytest_subprocess("--mocksrv-scenarios", "linked", "shared/second.yaml", "-v")
    file = pytester.runpytest_subprocess("--mocksrv-scenarios=linked/first.yaml", "-v")

    folder.assert_outcomes(passed=2, deselected=1)
    folder.stdout.fnmatch_lines(["linked/first.yaml::first PASSED*", "linked/second.yaml::second PASSED*"])
    file.assert_outcomes(passed=1)
    file.stdout.fnmatch_lines(["linked/first.yaml::first PASSED*"])


def test_a_card_number_in_a_scenarios_name_is_masked_in_its_test_id_and_junit(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MOCKSRV_URL", raising=False)
    (pytester.path / "named.yaml").write_text(
        "name: pays with 4242 4242 4242 4242 and card_cvc=987\ndescription: d\nsteps:\n  - advance: 1s\n"
    )

    result = pytester.runpytest_subprocess("--mocksrv-scenarios", "named.yaml", "-v", "--junitxml=report.xml")

    result.assert_outcomes(passed=1)
    result.stdout.re_match_lines(
        [re.escape("named.yaml::pays with ************4242 and card_cvc=*** PASSED")]
    )
    assert "4242 4242" not in result.stdout.str()
    [case] = junit(pytester.path / "report.xml")
    assert case.attrib["name"] == "pays with ************4242 and card_cvc=***"


def run_folder(folder: Path, url: str | None, out: TextIO, err: TextIO, junit: Path | None = None) -> int:
    """`mocksrv scenario run FOLDER` in this process, one scenario at a time: its exit code."""
    return commands.run(
        [str(folder)], url=url, admin_key=ADMIN_KEY, junit=junit, keyword=None, jobs=1, out=out, err=err
    )


class _ClosedAfterOneLine(io.StringIO):
    """Standard output read by `| head -1`: the second write finds the pipe closed."""

    def write(self, text: str) -> int:
        if self.getvalue().count("\n") >= 1:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_a_run_whose_output_stops_being_read_still_writes_its_report_and_exit_code(tmp_path: Path) -> None:
    for name in ("first", "second"):
        (tmp_path / f"{name}.yaml").write_text(
            f"name: {name}\ndescription: d\nsteps:\n  - request: {{method: GET, path: /health}}\n"
        )
    out, err = _ClosedAfterOneLine(), io.StringIO()

    code = run_folder(tmp_path, None, out, err, junit=tmp_path / "report.xml")

    assert (code, err.getvalue()) == (0, "")
    assert out.getvalue().startswith("PASS first")
    suite = ElementTree.parse(tmp_path / "report.xml").getroot()[0]
    assert [case.attrib["name"] for case in suite] == ["first", "second"]


def test_a_request_count_against_a_server_without_a_journal_says_so(tmp_path: Path) -> None:
    (tmp_path / "counted.yaml").write_text(
        "name: counted\ndescription: d\nsteps:\n"
        "  - request: {method: GET, path: /payments/list}\n"
        "  - expect_requests: {path: /payments/list, count: 1}\n"
    )
    out, err = io.StringIO(), io.StringIO()

    with MockServer(Settings(journal_size=0, admin_key=ADMIN_KEY)) as server:
        code = run_folder(tmp_path, server.url, out, err)

    assert (code, err.getvalue()) == (1, "")
    assert out.getvalue().splitlines()[1] == (
        "  step 2 (expect_requests): the journal holds 0 request(s) /payments/list; expected 1 "
        "(the server keeps no journal: it was started with --journal-size 0)"
    )


def test_a_scenario_list_whose_output_stops_being_read_ends_without_a_traceback(tmp_path: Path) -> None:
    for name in ("first", "second"):
        (tmp_path / f"{name}.yaml").write_text(f"name: {name}\ndescription: d\nsteps:\n  - advance: 1s\n")
    out = _ClosedAfterOneLine()

    code = commands.list_scenarios([str(tmp_path)], out=out, err=io.StringIO())

    assert code == 0
    assert out.getvalue().startswith("NAME")


def test_a_url_that_is_not_a_mocksrv_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "one.yaml").write_text("name: one\ndescription: d\nsteps:\n  - advance: 1s\n")

    class NotFound(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_error(404)

        def log_message(self, format: str, *args: object) -> None:
            pass

    out, err = io.StringIO(), io.StringIO()
    with ThreadingHTTPServer(("127.0.0.1", 0), NotFound) as other:
        threading.Thread(target=other.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{other.server_address[1]}"
        try:
            code = run_folder(tmp_path, url, out, err)
        finally:
            other.shutdown()

    assert (code, out.getvalue(), err.getvalue()) == (
        2,
        "",
        f"mocksrv scenario: mocksrv at {url} is not a mocksrv: GET /__mock/merchants gave no list of "
        "merchants (404)\n",
    )


def test_ctrl_c_ends_a_run_at_once_while_a_step_waits_on_its_server(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    server = start_server("--port", "0")
    hung = "  - fault: {effect: {type: hang}}\n  - request: {method: GET, path: /payments/list}\n"
    (tmp_path / "hung.yaml").write_text(
        "name: hung\ndescription: its request is never answered\nsteps:\n" + hung
    )
    report = tmp_path / "report.xml"
    with Sandbox(server.base_url, ADMIN_KEY) as sandbox:
        merchants = len(sandbox.merchant_ids())
        process = subprocess.Popen(
            [
                *CHECKOUT_COMMAND,
                "scenario",
                "run",
                str(tmp_path),
                "--url",
                server.base_url,
                "--junit",
                str(report),
            ],
            env=subprocess_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        with process:
            # The scenario's merchant exists: its steps are under way, the second one never answered.
            seen = poll(
                sandbox.merchant_ids, lambda ids: len(ids) > merchants, timeout=30, max_attempts=30_000
            )
            assert len(seen) == merchants + 1
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=10)  # the hang holds the request 30 s

    assert (process.returncode, out, err) == (
        130,
        "",
        "mocksrv scenario: interrupted; no JUnit file written\n",
    )
    assert not report.exists()


def test_a_scenario_list_shows_each_name_on_one_line_and_masked(tmp_path: Path) -> None:
    (tmp_path / "named.yaml").write_text(
        'name: "pays 4111111111111111\\nat once\\a"\ndescription: "first\\tline 4242424242424242\\nsecond"\n'
        "steps:\n  - advance: 1s\n"
    )
    out, err = io.StringIO(), io.StringIO()

    code = commands.list_scenarios([str(tmp_path)], out=out, err=err)

    assert (code, err.getvalue()) == (0, "")
    assert out.getvalue().splitlines()[1].split("  ")[0] == "pays ************1111\\nat once\\x07"
    assert out.getvalue().splitlines()[1].endswith(f"{tmp_path}/named.yaml  first\\tline ************4242")


def test_a_long_number_in_a_query_is_sent_as_written(tmp_path: Path) -> None:
    (tmp_path / "numbers.yaml").write_text(
        "name: numbers\ndescription: d\nsteps:\n"
        "  - request: {method: GET, path: /payments/list, query: {limit: 100000000000}}\n"
        "    expect:\n"
        "      status: 400\n"
        "      body: {error.message: 'Invalid value provided: limit: must be greater than or equal to 1"
        " and less than or equal to 100'}\n"
    )
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(tmp_path, None, out, err)

    assert (code, err.getvalue(), out.getvalue()[:13]) == (0, "", "PASS numbers ")


def test_a_number_in_a_query_is_sent_and_shown_as_it_is_written(tmp_path: Path) -> None:
    (tmp_path / "numbers.yaml").write_text(
        "name: numbers\ndescription: d\nsteps:\n"
        "  - request: {method: GET, path: /customers/list, query: {limit: 12.50, offset: 1.0e+3}}\n"
    )
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(tmp_path, None, out, err)

    assert (code, err.getvalue()) == (1, "")
    assert out.getvalue().splitlines()[1:3] == [
        "  step 1 (request): status: expected a 2xx status, got 400",
        "  request: GET /customers/list?limit=12.50&offset=1.0e+3",
    ]


NO_WHOLE_ANSWERS = """name: answers
description: a drop, a hang and a truncate, each expected as the client sees it
steps:
  - fault: {match: {path: /customers/list}, effect: {type: drop}, schedule: {times: 1}}
  - request: {method: GET, path: /customers/list}
    expect: {answer: none}
  - fault: {match: {path: /customers/list}, effect: {type: hang, seconds: 30}, schedule: {times: 1}}
  - request: {method: GET, path: /customers/list, timeout: 500ms}
    expect: {answer: none}
  - fault: {match: {path: /customers/list}, effect: {type: truncate}, timing: after, schedule: {times: 1}}
  - request: {method: GET, path: /customers/list}
    expect: {answer: cut_short, status: 200}
  - request: {method: GET, path: /customers/list}
    expect: {status: 200, body: {total_count: 0}}
  - expect_requests: {path: /customers/list, count: 4}
"""


def test_an_answer_a_fault_kept_from_coming_whole_is_expected_as_the_client_sees_it(tmp_path: Path) -> None:
    (tmp_path / "answers.yaml").write_text(NO_WHOLE_ANSWERS)
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(tmp_path, None, out, err)

    assert (code, err.getvalue(), out.getvalue()[:13]) == (0, "", "PASS answers ")


@pytest.mark.parametrize(
    ("replaced", "replacement", "failure"),
    [
        (
            "{answer: none}",
            "{status: 200}",
            "step 2 (request): answer: expected a whole answer, got none (the connection closed)",
        ),
        (
            "timeout: 500ms}\n    expect: {answer: none}",
            "timeout: 500ms}\n    expect: {status: 200}",
            "step 4 (request): answer: expected a whole answer, got none (the timeout passed)",
        ),
        (
            "{answer: cut_short, status: 200}",
            "{status: 200}",
            "step 6 (request): answer: expected a whole answer, got an answer cut short",
        ),
        (
            "type: drop",
            "type: latency, milliseconds: 1",
            "step 2 (request): answer: expected no answer, got a whole answer",
        ),
    ],
    ids=["drop", "hang", "truncate", "whole"],
)
def test_an_answer_that_does_not_come_as_expected_fails_the_step(
    tmp_path: Path, replaced: str, replacement: str, failure: str
) -> None:
    assert replaced in NO_WHOLE_ANSWERS
    (tmp_path / "answers.yaml").write_text(NO_WHOLE_ANSWERS.replace(replaced, replacement, 1))
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(tmp_path, None, out, err)

    assert (code, err.getvalue()) == (1, "")
    assert out.getvalue().splitlines()[1] == f"  {failure}"


@pytest.mark.parametrize(("count", "code"), [(2, 0), (1, 1)])
def test_a_request_a_hang_kept_unanswered_is_in_the_journal_for_the_step_after_it(
    tmp_path: Path, count: int, code: int
) -> None:
    (tmp_path / "hung.yaml").write_text(
        "name: hung\ndescription: d\nsteps:\n"
        "  - request: {method: POST, path: /payments/list, body: {}}\n"
        "  - fault: {effect: {type: hang, seconds: 20}, schedule: {times: 1}}\n"
        "  - request: {method: POST, path: /payments/list, body: {}, timeout: 300ms}\n"
        "    expect: {answer: none}\n"
        f"  - expect_requests: {{path: /payments/list, count: {count}}}\n"
    )
    out, err = io.StringIO(), io.StringIO()

    assert (run_folder(tmp_path, None, out, err), err.getvalue()) == (code, "")
    if code:
        assert out.getvalue().splitlines()[1:4] == [
            "  step 4 (expect_requests): the journal holds 2 request(s) /payments/list; expected 1",
            "  POST /payments/list 200",
            "  POST /payments/list no answer",
        ]


TYPED_VARIABLES = """name: typed
description: whole variables where a number, a duration and a method go
variables: {code: 200, floor: -1, count: 1, times: 1, wait: 10s, method: GET}
steps:
  - request: {method: GET, path: /customers/list}
    expect: {status: "${code}", body: {total_count: {greater_than: "${floor}"}}}
  - expect_requests: {method: GET, path: /customers/list, count: "${count}"}
  - fault: {match: {path: /customers/list}, effect: {type: error, status: 503}, schedule: {times: "${times}"}}
  - advance: "${wait}"
  - request: {method: "${method}", path: /customers/list}
    expect: {status: 503}
"""


def test_whole_variables_stand_where_numbers_durations_and_methods_go(tmp_path: Path) -> None:
    (tmp_path / "typed.yaml").write_text(TYPED_VARIABLES)
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(tmp_path, None, out, err)

    assert (code, err.getvalue(), out.getvalue()[:11]) == (0, "", "PASS typed ")


def test_a_whole_variable_whose_value_the_step_cannot_take_fails_the_step_once_put_in(tmp_path: Path) -> None:
    (tmp_path / "typed.yaml").write_text(TYPED_VARIABLES.replace("wait: 10s", "wait: ten seconds"))
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(tmp_path, None, out, err)

    assert (code, err.getvalue()) == (1, "")
    assert out.getvalue().splitlines()[1] == (
        "  step 4 (advance): advance: 'ten seconds' is not a duration such as 500ms, 10s, 5m, 2h or 7d,"
        " once its variables are put in"
    )


@pytest.mark.parametrize(
    ("step", "failure"),
    [
        (
            '  - request: {method: GET, path: /health}\n    expect: {answer: "${none}", status: 200}\n',
            "step 1 (request): expect.status: an answer none has no status to expect,"
            " once its variables are put in",
        ),
        (
            '  - advance: "${far}"\n',
            "step 1 (advance): advance: 4000d is longer than 3650d, the most a clock moves at once,"
            " once its variables are put in",
        ),
    ],
    ids=["answer", "advance"],
)
def test_what_the_file_check_left_to_a_variable_is_checked_once_it_is_put_in(
    tmp_path: Path, step: str, failure: str
) -> None:
    head = "name: late\ndescription: d\nvariables: {none: none, far: 4000d}\nsteps:\n"
    (tmp_path / "late.yaml").write_text(head + step)
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(tmp_path, None, out, err)

    assert (code, err.getvalue()) == (1, "")
    assert out.getvalue().splitlines()[1] == f"  {failure}"


def test_a_variable_whose_type_the_step_cannot_take_fails_the_step_with_where_and_why(tmp_path: Path) -> None:
    (tmp_path / "typed.yaml").write_text(
        "name: typed\ndescription: d\nvariables: {pattern: 4111111111111111}\nsteps:\n"
        "  - request: {method: GET, path: /health}\n"
        '    expect: {body: {status: {matches: "${pattern}"}}}\n'
    )
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(tmp_path, None, out, err)

    assert (code, err.getvalue()) == (1, "")
    assert out.getvalue().splitlines()[1] == (
        "  step 1 (request): expect.body.status.matches: ************1111 is not of type string,"
        " once its variables are put in"
    )


def test_a_header_value_a_variable_makes_unsendable_fails_the_step_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "noted.yaml").write_text(
        'name: noted\ndescription: d\nvariables: {note: "\\U0001f4a5"}\nsteps:\n'
        '  - request: {method: GET, path: /health, headers: {X-Note: "${note}"}}\n'
    )
    out, err = io.StringIO(), io.StringIO()

    code = run_folder(tmp_path, None, out, err, junit=tmp_path / "report.xml")

    failure = (
        "step 1 (request): request.headers.X-Note: a header's value is Latin-1 text: '\U0001f4a5' cannot be"
        " sent, once its variables are put in"
    )
    assert (code, err.getvalue()) == (1, "")
    assert out.getvalue().splitlines()[1] == f"  {failure}"
    [case] = ElementTree.parse(tmp_path / "report.xml").getroot()[0]
    assert [(child.tag, child.text) for child in case] == [("failure", failure)]
