"""The README tells the truth: its CI example passes as written, and every file it names exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.harness import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()


def code_block_after(heading: str) -> str:
    """The first ```python block of the README section that starts with `heading`."""
    section = README.split(f"\n{heading}\n", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None, f"no python block after {heading!r}"
    return match.group(1)


def test_the_ci_example_passes_as_written(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOCKSRV_URL", raising=False)
    example = code_block_after("## Use it in CI")
    assert len(example.splitlines()) < 30
    pytester.makepyfile(test_checkout=example)
    pytester.runpytest_subprocess().assert_outcomes(passed=2)


def test_every_file_the_readme_names_exists() -> None:
    named = set(re.findall(r"`([A-Za-z0-9_./-]+\.(?:md|py|yaml|yml|json|html|js|cfg|toml))`", README))
    missing = sorted(
        name
        for name in named
        if "/" in name and not (REPO_ROOT / name).exists() and not (REPO_ROOT / "mocksrv" / name).exists()
    )
    assert missing == []


def test_every_setting_is_in_the_readme_table() -> None:
    from mocksrv.settings import SETTINGS

    missing = [s.flag for s in SETTINGS if f"| `{s.flag}` | `{s.variable}` |" not in README]
    assert missing == []


def test_the_scenario_example_passes_as_written(tmp_path: Path) -> None:
    from mocksrv.scenario import Outcome, load_scenario, run_scenario, target
    from mocksrv.scenario.targets import embedded_server

    section = README.split("\n## QA scenarios as files\n", 1)[1]
    match = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert match is not None, "no yaml block in the QA section"
    example = tmp_path / "example.yaml"
    example.write_text(match.group(1))
    scenario = load_scenario(str(example))

    with embedded_server("readme_admin_key") as url, target(url, "readme_admin_key") as where:
        result = run_scenario(scenario, where)

    assert (result.outcome, result.message, result.detail) == (Outcome.PASSED, "", "")
