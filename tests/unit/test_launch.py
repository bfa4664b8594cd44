"""When `mocksrv` starts itself again on the C allocator: `mocksrv serve` on glibc, unless one chose."""

from __future__ import annotations

import os

import pytest

from mocksrv import launch


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
