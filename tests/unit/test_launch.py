"""When `mocksrv` starts itself again on the C allocator: `mocksrv serve` on glibc, unless one chose."""

from __future__ import annotations

import io
import logging
import os
import signal
import sys
from collections.abc import Iterator

import pytest

from mocksrv import cli, launch, output
from mocksrv.serving.logwriter import BatchedWriter


@pytest.fixture
def on_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "_glibc", lambda: True)


@pytest.mark.usefixtures("on_glibc")
def test_serve_gets_the_c_allocator_one_arena_and_small_caches_beside_the_rest_of_the_environment() -> None:
    environ = launch.allocator_environ(["serve", "--port", "0"], {"PATH": "/usr/bin", "MOCKSRV_PORT": "1"})

    assert environ == {
        "PATH": "/usr/bin",
        "MOCKSRV_PORT": "1",
        "PYTHONMALLOC": "malloc",
        "MALLOC_ARENA_MAX": "1",
        "GLIBC_TUNABLES": "glibc.malloc.tcache_count=1",
    }


@pytest.mark.usefixtures("on_glibc")
def test_an_arena_count_and_tunables_of_ones_own_are_kept() -> None:
    environ = launch.allocator_environ(
        ["serve"], {"MALLOC_ARENA_MAX": "4", "GLIBC_TUNABLES": "glibc.malloc.tcache_count=3"}
    )

    assert environ == {
        "PYTHONMALLOC": "malloc",
        "MALLOC_ARENA_MAX": "4",
        "GLIBC_TUNABLES": "glibc.malloc.tcache_count=3",
    }


@pytest.mark.usefixtures("on_glibc")
@pytest.mark.parametrize("chosen", ["pymalloc", "malloc", "debug", ""])
def test_an_allocator_already_chosen_is_left_as_it_is(chosen: str) -> None:
    assert launch.allocator_environ(["serve"], {"PYTHONMALLOC": chosen}) is None


@pytest.mark.usefixtures("on_glibc")
@pytest.mark.parametrize("argv", [[], ["wait"], ["scenario", "serve"], ["openapi"], ["--help"]])
def test_other_commands_go_on_in_this_process(argv: list[str]) -> None:
    assert launch.allocator_environ(argv, {}) is None


def test_without_glibc_serve_goes_on_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "_glibc", lambda: False)

    assert launch.allocator_environ(["serve"], {}) is None


def test_a_system_without_the_glibc_version_name_is_not_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    def unknown(name: str) -> str:
        raise ValueError(f"unrecognized configuration name: {name}")

    monkeypatch.setattr(os, "confstr", unknown)

    assert launch._glibc() is False


def test_a_system_without_confstr_is_not_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "confstr")

    assert launch._glibc() is False


@pytest.fixture
def signal_handlers() -> Iterator[None]:
    """The process's SIGINT and SIGTERM handlers, put back after the test."""
    kept = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    yield
    for number, handler in kept.items():
        signal.signal(number, handler)


@pytest.mark.usefixtures("signal_handlers")
@pytest.mark.parametrize(("command", "stopped"), [("serve", True), ("wait", False)])
def test_serve_stops_in_one_line_on_a_signal_from_its_first_line(
    monkeypatch: pytest.MonkeyPatch, command: str, stopped: bool
) -> None:
    seen: dict[int, object] = {}

    def command_main() -> int:  # stands for the command's imports and its start
        seen.update({number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)})
        return 0

    monkeypatch.setattr(sys, "argv", ["mocksrv", command])
    monkeypatch.setattr(launch, "allocator_environ", lambda argv, environ: None)
    monkeypatch.setattr(cli, "main", command_main)
    with pytest.raises(SystemExit):
        launch.main()

    assert (seen[signal.SIGTERM] is output.stop_before_serving) is stopped
    assert (seen[signal.SIGINT] is output.stop_before_serving) is stopped


class Exited(Exception):
    """os._exit, in a test: the process would have ended there."""


def test_a_stop_before_serving_says_so_and_ends_the_process_at_once(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    def exit_now(code: int) -> None:
        raise Exited(code)

    monkeypatch.setattr(os, "_exit", exit_now)

    written = io.StringIO()
    writer = BatchedWriter(written)  # its thread not started: what it holds is written by the stop
    root = logging.getLogger()
    root.addHandler(writer)
    try:
        logging.getLogger("mocksrv.test").warning("a line made as the server started")
        with pytest.raises(Exited) as exited:
            output.stop_before_serving(signal.SIGTERM, None)
    finally:
        root.removeHandler(writer)

    assert (exited.value.args, capfd.readouterr().err) == ((0,), "mocksrv: stopped before it served\n")
    assert written.getvalue() == "a line made as the server started\n"


@pytest.mark.usefixtures("signal_handlers")
def test_handlers_put_back_are_pythons_own_where_they_were_the_start_s_stop() -> None:
    def own(signum: int, frame: object) -> None:
        pass

    output.put_back_handlers({signal.SIGTERM: output.stop_before_serving, signal.SIGINT: own})

    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is own
