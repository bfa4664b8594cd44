"""The QA catalogue: every file in `scenarios/` passes through `mocksrv scenario run`, as CI runs it."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from tests.e2e.harness import REPO_ROOT, run_command

CATALOGUE = "scenarios"
JOBS = "2"
RUN_TIMEOUT = 100.0  # seconds for the whole catalogue, which takes about 15; a hang fails this test only


def scenario_files() -> list[str]:
    """Every scenario file of the catalogue, as the runner names it (relative to the repository)."""
    folder = REPO_ROOT / CATALOGUE
    paths = [*folder.rglob("*.yaml"), *folder.rglob("*.yml")]
    return sorted(path.relative_to(REPO_ROOT).as_posix() for path in paths)


def test_every_scenario_of_the_catalogue_passes(tmp_path: Path) -> None:
    report = tmp_path / "catalogue.xml"

    args = ["scenario", "run", CATALOGUE, "--junit", str(report), "--jobs", JOBS]
    finished = run_command(args, REPO_ROOT, RUN_TIMEOUT)

    assert finished.code == 0, finished.stdout + finished.stderr
    files = scenario_files()
    suites = ElementTree.parse(report).getroot()
    testcases = list(suites.iter("testcase"))
    assert sorted(str(case.get("file")) for case in testcases) == files
    failed = [case.get("file") for case in testcases if case.find("failure") is not None]
    errored = [case.get("file") for case in testcases if case.find("error") is not None]
    assert (failed, errored) == ([], [])
    totals = (suites.get("tests"), suites.get("failures"), suites.get("errors"))
    assert totals == (str(len(files)), "0", "0")
