"""`mocksrv scenario run | validate | list`: what each prints, and the exit code it returns.

Exit codes: 0 every scenario passed (or every file is valid); 1 a scenario failed or could not run;
2 a file is invalid, or the command was used wrongly (no such path, a bad -k, an unreachable --url, a
--junit file that cannot be written); 130 the run was interrupted (Ctrl-C).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TextIO

import requests

from mocksrv.client import ControlPlaneError, NotMocksrv, Sandbox, unreachable
from mocksrv.masking import one_line
from mocksrv.output import INTERRUPTED, Lines
from mocksrv.scenario.checks import header_value_problem
from mocksrv.scenario.format import Problem, Scenario, shown_text
from mocksrv.scenario.loading import NotFileOrFolder, load_scenarios, scenario_files
from mocksrv.scenario.report import failure_text, junit_xml, result_line, summary_line
from mocksrv.scenario.results import ScenarioResult
from mocksrv.scenario.runner import run_scenarios
from mocksrv.scenario.selection import KeywordError, keyword_matcher
from mocksrv.scenario.targets import embedded_server, target

PASSED, FAILED, USAGE = 0, 1, 2
DEFAULT_PATHS = ("scenarios",)
PREFIX = "mocksrv scenario"
CHECK_TIMEOUT = 10.0  # seconds for the one look at a server named by --url


class UsageError(Exception):
    """The command cannot do what it was asked: one line, and exit 2."""


def run(
    paths: Sequence[str],
    *,
    url: str | None,
    admin_key: str,
    junit: Path | None,
    keyword: str | None,
    jobs: int,
    out: TextIO,
    err: TextIO,
) -> int:
    """Check every file, then run the chosen scenarios; print a line for each and a summary."""
    unsendable = header_value_problem(admin_key)  # sent to make each merchant, and by `key: admin`
    if unsendable is not None:
        return _usage(err, f"the admin key: {unsendable}")
    try:
        chooses = keyword_matcher(keyword) if keyword is not None else None
    except KeywordError as error:
        return _usage(err, f"-k {keyword!r}: {error}")
    try:
        scenarios, problems, count = _read(paths)
    except UsageError as error:
        return _usage(err, str(error))
    if problems:
        _print_problems(problems, count, err)
        print(f"{PREFIX}: nothing ran", file=err)
        return USAGE
    chosen = [scenario for scenario in scenarios if chooses is None or chooses(scenario)]
    if not chosen:
        return _usage(err, f"-k {keyword!r} chooses none of the {len(scenarios)} scenarios")
    if junit is not None and (unwritable := _unwritable(junit)) is not None:
        return _usage(err, f"--junit {junit}: cannot write: {unwritable}")
    if url is not None:
        try:
            _check_server(url, admin_key)
        except UsageError as error:
            return _usage(err, str(error))

    lines = Lines(out)

    def report(result: ScenarioResult) -> None:
        lines.say(result_line(result))
        if not result.passed:
            lines.say("\n".join("  " + line for line in failure_text(result).splitlines()))

    started = time.monotonic()
    try:
        with ExitStack() as stack:
            server_url = url if url is not None else stack.enter_context(embedded_server(admin_key, jobs))
            where = stack.enter_context(target(server_url, admin_key))
            results = run_scenarios(chosen, where, jobs=jobs, on_result=report)
    except KeyboardInterrupt:
        print(
            f"{PREFIX}: interrupted; no JUnit file written" if junit else f"{PREFIX}: interrupted", file=err
        )
        return INTERRUPTED
    seconds = time.monotonic() - started
    lines.say(summary_line(results, seconds, len(scenarios) - len(chosen)))
    if junit is not None:
        try:
            junit.write_bytes(junit_xml(results, seconds))
        except OSError as error:
            reason = error.strerror or str(error)
            return _usage(err, f"--junit {junit}: cannot write: {reason[:1].lower()}{reason[1:]}")
    return PASSED if all(result.passed for result in results) else FAILED


def validate(paths: Sequence[str], *, out: TextIO, err: TextIO) -> int:
    """Check every file; print every problem."""
    try:
        _, problems, count = _read(paths)
    except UsageError as error:
        return _usage(err, str(error))
    if problems:
        _print_problems(problems, count, err)
        return USAGE
    print(f"{count} scenario files are valid", file=out)
    return PASSED


def list_scenarios(paths: Sequence[str], *, out: TextIO, err: TextIO) -> int:
    """Print the valid scenarios as a table: name, tags, file, the first line of the description."""
    try:
        scenarios, problems, count = _read(paths)
    except UsageError as error:
        return _usage(err, str(error))
    rows = [("NAME", "TAGS", "FILE", "DESCRIPTION")] + [
        (shown_text(scenario.name), ",".join(scenario.tags), one_line(scenario.file), _first_line(scenario))
        for scenario in scenarios
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = Lines(out)
    for row in rows:
        lines.say(
            "  ".join(
                [*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[3]]
            ).rstrip()
        )
    if problems:
        _print_problems(problems, count, err)
        return USAGE
    return PASSED


def _read(paths: Sequence[str]) -> tuple[list[Scenario], list[Problem], int]:
    """The valid scenarios of `paths`, the problems of the others, and how many files there were."""
    try:
        files = scenario_files(paths)
    except FileNotFoundError as error:
        raise UsageError(f"{error.args[0]}: no such file or directory") from None
    except NotFileOrFolder as error:
        raise UsageError(str(error)) from None
    if not files:
        raise UsageError(f"no scenario files (*.yaml, *.yml) in {' '.join(paths)}")
    scenarios, problems = load_scenarios(files)
    return scenarios, problems, len(files)


def _unwritable(path: Path) -> str | None:
    """Why the JUnit file could not be written, told before the run, so that a mistyped path costs
    no run; None if it looks writable (the write after the run still says so if it fails)."""
    if path.is_dir():
        return "is a directory"
    if not path.parent.is_dir():
        return "no such file or directory"
    if not os.access(path if path.exists() else path.parent, os.W_OK):
        return "permission denied"
    return None


def _check_server(url: str, admin_key: str) -> None:
    """Look once at the server named by --url, so that a wrong address or key is one line, not N errors."""
    with Sandbox(url, admin_key, timeout=CHECK_TIMEOUT) as server:
        try:
            server.merchant_ids()
        except ControlPlaneError as error:
            reason = "refused the admin key" if error.status == 401 else "answered"
            raise UsageError(f"mocksrv at {url} {reason}: {error}") from None
        except NotMocksrv as error:
            raise UsageError(f"mocksrv at {url} is not a mocksrv: {error}") from None
        except requests.RequestException as error:
            raise UsageError(f"mocksrv at {url} cannot be reached: {unreachable(error)}") from None


def _print_problems(problems: Sequence[Problem], files: int, err: TextIO) -> None:
    for problem in problems:
        print(problem, file=err)
    broken = len({problem.file for problem in problems})
    noun = "problem" if len(problems) == 1 else "problems"
    print(f"{PREFIX}: {len(problems)} {noun} in {broken} of {files} files", file=err)


def _first_line(scenario: Scenario) -> str:
    lines = scenario.description.strip().splitlines()
    return shown_text(lines[0].strip()) if lines else ""


def _usage(err: TextIO, message: str) -> int:
    print(f"{PREFIX}: {message}", file=err)
    return USAGE
