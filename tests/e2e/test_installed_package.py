"""The package as another project gets it: a wheel built from the repo, installed into a fresh
virtualenv outside the repo, and run from an empty directory."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.e2e.harness import REPO_ROOT
from tests.payloads import payment

BUILD_TIMEOUT = 300  # seconds for building the wheel and installing it with its dependencies
RUN_TIMEOUT = 30  # seconds for one command of the installed package
# A warning class in the build's output, e.g. SetuptoolsDeprecationWarning or BuildBackendWarning.
BUILD_WARNING = re.compile(r"\b[A-Za-z]*Warning\b")


@dataclass
class Installed:
    wheel: Path
    build_log: str
    python: Path
    mocksrv: Path
    empty_dir: Path

    def env(self, **extra: str) -> dict[str, str]:
        """An environment that knows nothing of the repo: no PYTHONPATH, no MOCKSRV_* setting."""
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("MOCKSRV_", "PYTHON", "VIRTUAL_ENV"))
        }
        return {**env, "PYTHONUNBUFFERED": "1", **extra}

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*args],
            cwd=self.empty_dir,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )


def _pip(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("installed")
    source = root / "source"
    # A copy of the tracked files, as a clone would have them, so that nothing built lands in the repo.
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in tracked:
        if (REPO_ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / name, source / name)
    wheels = root / "wheels"
    build_log = _pip("wheel", "--verbose", "--no-deps", "--wheel-dir", str(wheels), str(source))
    [wheel] = wheels.glob("mocksrv-*.whl")
    venv = root / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=RUN_TIMEOUT
    )
    _pip("--python", str(venv / "bin" / "python"), "install", "--quiet", str(wheel))
    empty_dir = root / "elsewhere"
    empty_dir.mkdir()
    return Installed(wheel, build_log, venv / "bin" / "python", venv / "bin" / "mocksrv", empty_dir)


def test_the_build_prints_no_warning(installed: Installed) -> None:
    assert BUILD_WARNING.findall(installed.build_log) == []


def test_the_wheel_carries_the_default_fixtures_and_the_pages(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert {
        "mocksrv/defaults/merchants.yaml",
        "mocksrv/defaults/outcomes.yaml",
        "mocksrv/web/templates/threeds.html",
    } <= names
    assert (REPO_ROOT / "fixtures" / "outcomes.yaml").read_bytes() == zipfile.ZipFile(installed.wheel).read(
        "mocksrv/defaults/outcomes.yaml"
    )
    assert not any(name.startswith(("fixtures/", "tests/", "bench/")) for name in names)


def test_the_installed_package_reads_its_own_defaults(installed: Installed) -> None:
    done = installed.run(
        str(installed.python), "-c", "import mocksrv.settings as s; print(s.Settings().fixtures)"
    )
    assert done.returncode == 0, done.stderr
    fixtures = Path(done.stdout.strip())
    assert fixtures.parts[-2:] == ("mocksrv", "defaults")
    assert not fixtures.is_relative_to(REPO_ROOT)


class Served:
    """`mocksrv serve` of the installed package, in the empty directory, until stopped."""

    def __init__(self, installed: Installed, *args: str, **env: str) -> None:
        self.process = subprocess.Popen(
            [str(installed.mocksrv), "serve", "--port", "0", *args],
            cwd=installed.empty_dir,
            env=installed.env(**env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.banner: list[str] = []
        for line in self.process.stdout:  # ends at the banner's last line, or when the process ends
            self.banner.append(line.rstrip("\n"))
            if "/health" in line:
                break
        listening = [line for line in self.banner if "listening on" in line]
        if not listening:
            self.process.kill()
            raise AssertionError([*self.banner, self.process.communicate(timeout=RUN_TIMEOUT)[1]])
        self.url = listening[0].rsplit(" ", 1)[1]

    def stop(self) -> int:
        self.process.terminate()
        code = self.process.wait(timeout=RUN_TIMEOUT)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return code


def test_mocksrv_serve_from_an_empty_directory_takes_a_payment(installed: Installed) -> None:
    served = Served(installed)
    try:
        response = requests.post(
            f"{served.url}/payments",
            json=payment(),
            headers={"api-key": "snd_default_secret_key"},
            timeout=10,
        )
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "succeeded"
    finally:
        assert served.stop() == 0


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_other_fixtures_are_read_from_the_directory_named(
    installed: Installed, tmp_path: Path, how: str
) -> None:
    shutil.copy(REPO_ROOT / "fixtures" / "outcomes.yaml", tmp_path / "outcomes.yaml")
    merchants = (REPO_ROOT / "fixtures" / "merchants.yaml").read_text()
    (tmp_path / "merchants.yaml").write_text(merchants.replace("snd_default_secret_key", "snd_other_key"))
    if how == "flag":
        served = Served(installed, "--fixtures", str(tmp_path))
    else:
        served = Served(installed, MOCKSRV_FIXTURES=str(tmp_path))
    try:
        assert "  secret key        snd_other_key" in served.banner
        health = requests.get(f"{served.url}/health", headers={"api-key": "snd_other_key"}, timeout=10)
        assert health.status_code == 200
    finally:
        assert served.stop() == 0


def test_mock_server_runs_from_the_installed_package(installed: Installed) -> None:
    script = (
        "import requests\n"
        "from mocksrv import MockServer\n"
        "with MockServer() as server:\n"
        "    key = {'api-key': 'snd_default_secret_key'}\n"
        "    r = requests.get(server.url + '/health', headers=key, timeout=10)\n"
        "    print(r.status_code, server.sandbox is not None)\n"
    )
    done = installed.run(str(installed.python), "-c", script)
    assert (done.returncode, done.stdout) == (0, "200 True\n"), done.stderr
