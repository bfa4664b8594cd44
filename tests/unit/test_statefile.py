"""The state file's start: what writes killed in the middle of them left beside it is cleaned up."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mocksrv.app import create_sandbox
from mocksrv.serving.statefile import StateWriter, load_state, write_state
from mocksrv.settings import Settings, SettingsError, check_settings


def a_finished_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


def test_the_temporary_files_of_killed_writes_are_deleted_at_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mocksrv.serving.statefile")
    state = tmp_path / "state.json"
    settings = Settings(state=state)
    write_state(state, create_sandbox(settings))
    dead = tmp_path / f".state.json.{a_finished_pid()}.140000.tmp"
    live = tmp_path / f".state.json.{os.getppid()}.140001.tmp"  # a write of a process still running
    mine = tmp_path / f".state.json.{os.getpid()}.{threading.get_ident()}.tmp"  # a thread still writing
    # This process's, by a thread that has ended: as a container's process 1 finds its last run's.
    ended = tmp_path / f".state.json.{os.getpid()}.1.tmp"
    other = tmp_path / f".other.json.{a_finished_pid()}.140002.tmp"  # another file's
    for leftover in (dead, live, mine, ended, other):
        leftover.write_bytes(b'{"half": ')

    assert load_state(settings, create_sandbox(settings)) is True

    kept = [state.name, live.name, mine.name, other.name]
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(kept)
    assert f"deleted {dead.name}, left by a write that did not finish" in caplog.text
    assert f"deleted {ended.name}, left by a write that did not finish" in caplog.text


def test_a_state_file_named_by_a_link_is_written_where_it_points(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "real" / "state.json")

    write_state(link, create_sandbox(Settings()))

    assert link.is_symlink()
    assert (tmp_path / "real" / "state.json").is_file()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link.json", "real"]


def test_a_state_file_whose_directory_may_not_be_searched_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    is_dir = Path.is_dir

    def refused(self: Path) -> bool:  # as for a user without search permission on the directory
        if "closed" in self.parts:
            raise PermissionError(13, "Permission denied")
        return is_dir(self)

    state = tmp_path / "closed" / "state.json"
    monkeypatch.setattr(Path, "is_dir", refused)

    with pytest.raises(SettingsError) as raised:
        check_settings(Settings(state=state))

    assert str(raised.value) == f"Settings(state={state!r}): cannot look for it: Permission denied"


def test_a_state_file_is_held_by_one_writer_until_its_last_write(tmp_path: Path) -> None:
    sandbox = create_sandbox(check_settings(Settings()))
    state = tmp_path / "state.json"
    first, second = StateWriter(state, sandbox, 0), StateWriter(state, sandbox, 0)
    first.claim()

    with pytest.raises(SettingsError) as refused:
        second.claim()

    assert str(refused.value) == (
        f"state file {state}: in use by another mocksrv (process {os.getpid()}); "
        "each server needs a state file of its own"
    )
    first.stop()  # the last write, then the file is let go
    second.claim()
    second.release()
    assert sorted(path.name for path in tmp_path.iterdir()) == [".state.json.lock", "state.json"]
