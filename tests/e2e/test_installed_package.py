"""The package as another project gets it: a wheel built from the repo, installed into a fresh
virtualenv outside the repo, and run from an empty directory."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.e2e.harness import REPO_ROOT, ServerProcess, assert_stops_cleanly
from tests.payloads import SECRET_KEY, payment

BUILD_TIMEOUT = 300  # seconds for building the wheel and installing it with its dependencies
RUN_TIMEOUT = 30  # seconds for one command of the installed package
# A warning in the build's output, in any case: SetuptoolsDeprecationWarning, "warning: no files found".
BUILD_WARNING = re.compile(r"^.*\bwarning\b.*$", re.IGNORECASE | re.MULTILINE)
# setuptools' notes when PYTHONDONTWRITEBYTECODE is set, as on some machines: no fault of the build.
BYTECODE_NOTE = re.compile(r"warning: \w+: byte-compiling is disabled, skipping\.")


@dataclass
class Installed:
    sdist: Path
    wheel: Path
    build_log: str
    python: Path
    mocksrv: Path
    empty_dir: Path

    def env(self) -> dict[str, str]:
        """An environment that knows nothing of the repo: no PYTHONPATH, no MOCKSRV_* setting."""
        return {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("MOCKSRV_", "PYTHONPATH", "VIRTUAL_ENV"))
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*args],
            cwd=self.empty_dir,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )

    @contextmanager
    def serving(self, tmp_path: Path, *args: str, **env: str) -> Iterator[ServerProcess]:
        """`mocksrv serve` of the installed package, from the empty directory, on a free port."""
        server = ServerProcess(
            ["--port", "0", *args],
            tmp_path / "stderr.log",
            env,
            command=(str(self.mocksrv),),
            cwd=self.empty_dir,
        )
        try:
            yield server.start()
        finally:
            assert_stops_cleanly(server)


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
    # As `python -m build` does for an index: the sdist first, then the wheel built from the sdist.
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(root / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    build_log = built.stdout + built.stderr
    assert built.returncode == 0, build_log
    [sdist] = (root / "dist").glob("mocksrv-*.tar.gz")
    [wheel] = (root / "dist").glob("mocksrv-*.whl")
    venv = root / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=RUN_TIMEOUT
    )
    _pip("--python", str(venv / "bin" / "python"), "install", "--quiet", str(wheel))
    empty_dir = root / "elsewhere"
    empty_dir.mkdir()
    return Installed(sdist, wheel, build_log, venv / "bin" / "python", venv / "bin" / "mocksrv", empty_dir)


def test_the_build_prints_no_warning(installed: Installed) -> None:
    warnings = [line for line in BUILD_WARNING.findall(installed.build_log) if not BYTECODE_NOTE.search(line)]
    assert warnings == []


def test_the_sdist_carries_the_default_fixtures(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as sdist:
        names = {Path(name).relative_to(Path(name).parts[0]).as_posix() for name in sdist.getnames()}
    assert {"fixtures/merchants.yaml", "fixtures/outcomes.yaml", "setup.py", "MANIFEST.in"} <= names


def test_the_wheel_carries_the_default_fixtures_and_the_pages(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert {
        "mocksrv/defaults/merchants.yaml",
        "mocksrv/defaults/outcomes.yaml",
        "mocksrv/web/templates/threeds.html",
        "mocksrv/web/templates/payment_element.html",
        "mocksrv/web/templates/payment_link.html",
        "mocksrv/web/static/sdk/HyperLoader.js",
        "mocksrv/web/static/sdk/element.js",
        "mocksrv/web/static/sdk/element.css",
    } <= names
    assert (REPO_ROOT / "fixtures" / "outcomes.yaml").read_bytes() == zipfile.ZipFile(installed.wheel).read(
        "mocksrv/defaults/outcomes.yaml"
    )
    assert not any(name.startswith(("fixtures/", "tests/", "bench/")) for name in names)


def test_a_build_in_the_source_tree_leaves_out_what_an_earlier_build_left(tmp_path: Path) -> None:
    # pip builds a checkout in place, into build/lib: a module or fixture removed since must not ship.
    tree = tmp_path / "checkout"
    tree.mkdir()
    for name in ("setup.py", "setup.cfg", "pyproject.toml", "MANIFEST.in", "README.md"):
        shutil.copy(REPO_ROOT / name, tree / name)
    shutil.copytree(REPO_ROOT / "fixtures", tree / "fixtures")
    shutil.copytree(REPO_ROOT / "mocksrv", tree / "mocksrv", ignore=shutil.ignore_patterns("__pycache__"))
    built = tree / "build" / "lib" / "mocksrv"
    (built / "defaults").mkdir(parents=True)
    (built / "removed_since.py").write_text("X = 1\n")
    (built / "defaults" / "removed_since.yaml").write_text("a: 1\n")

    subprocess.run(
        [sys.executable, "setup.py", "--quiet", "build_py"],
        cwd=tree,
        capture_output=True,
        timeout=BUILD_TIMEOUT,
        check=True,
    )

    assert not (built / "removed_since.py").exists()
    assert sorted(path.name for path in (built / "defaults").iterdir()) == ["merchants.yaml", "outcomes.yaml"]
    assert (built / "app.py").is_file()


def test_the_installed_package_reads_its_own_defaults(installed: Installed) -> None:
    done = installed.run(
        str(installed.python), "-c", "import mocksrv.settings as s; print(s.Settings().fixtures)"
    )
    assert done.returncode == 0, done.stderr
    fixtures = Path(done.stdout.strip())
    assert fixtures.parts[-2:] == ("mocksrv", "defaults")
    assert not fixtures.is_relative_to(REPO_ROOT)


def test_mocksrv_serve_from_an_empty_directory_takes_a_payment(installed: Installed, tmp_path: Path) -> None:
    with installed.serving(tmp_path) as served:
        assert served.environment()["PYTHONMALLOC"] == "malloc"  # the command starts through mocksrv.launch
        response = requests.post(
            f"{served.base_url}/payments", json=payment(), headers={"api-key": SECRET_KEY}, timeout=10
        )
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "succeeded"
        script = requests.get(f"{served.base_url}/web/0.1/v1/HyperLoader.js", timeout=10)
        assert (script.status_code, script.headers["Content-Type"]) == (200, "text/javascript; charset=utf-8")
        assert "window.Hyper" in script.text


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_other_fixtures_are_read_from_the_directory_named(
    installed: Installed, tmp_path: Path, how: str
) -> None:
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    shutil.copy(REPO_ROOT / "fixtures" / "outcomes.yaml", fixtures / "outcomes.yaml")
    merchants = (REPO_ROOT / "fixtures" / "merchants.yaml").read_text()
    (fixtures / "merchants.yaml").write_text(merchants.replace(SECRET_KEY, "snd_other_key"))
    if how == "flag":
        serving = installed.serving(tmp_path, "--fixtures", str(fixtures))
    else:
        serving = installed.serving(tmp_path, MOCKSRV_FIXTURES=str(fixtures))
    with serving as served:
        health = requests.get(f"{served.base_url}/health", headers={"api-key": "snd_other_key"}, timeout=10)
        assert health.status_code == 200
    assert "  secret key        snd_other_key" in served.lines  # the banner, read to the end at the stop


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
