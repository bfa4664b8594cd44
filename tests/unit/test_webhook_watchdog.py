"""The watchdog that bounds a webhook attempt's whole answer, and the one thread it keeps."""

from __future__ import annotations

import socket

import pytest

from mocksrv.webhooks import transport
from mocksrv.webhooks.transport import Watchdog

DEADLINE = 10.0  # seconds a thread may take to end once it is told to


@pytest.fixture
def never_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """A watchdog with nothing armed would keep its thread an hour: only `end_when_idle` ends it."""
    monkeypatch.setattr(transport, "WATCHDOG_IDLE", 3600.0)


@pytest.mark.usefixtures("never_idle")
def test_told_to_end_when_idle_the_thread_ends_once_nothing_is_armed() -> None:
    watchdog = Watchdog()
    mine, theirs = socket.socketpair()
    with mine, theirs:
        watchdog.arm(mine, 60)
        assert watchdog.disarm() is False

        watchdog.end_when_idle()

        assert watchdog.thread is not None
        watchdog.thread.join(DEADLINE)
        assert not watchdog.thread.is_alive()


@pytest.mark.usefixtures("never_idle")
def test_told_to_end_when_idle_the_thread_still_shuts_what_is_armed_first() -> None:
    watchdog = Watchdog()
    mine, theirs = socket.socketpair()
    with mine, theirs:
        watchdog.arm(mine, 0.05)
        watchdog.end_when_idle()

        mine.settimeout(DEADLINE)
        assert mine.recv(1) == b""  # shut by the watchdog at its deadline
        assert watchdog.disarm() is True
        assert watchdog.thread is not None
        watchdog.thread.join(DEADLINE)
        assert not watchdog.thread.is_alive()


def test_a_thread_ended_is_started_again_by_the_next_arm() -> None:
    watchdog = Watchdog()
    mine, theirs = socket.socketpair()
    with mine, theirs:
        watchdog.arm(mine, 60)
        watchdog.disarm()
        watchdog.end_when_idle()
        first = watchdog.thread
        assert first is not None
        first.join(DEADLINE)

        watchdog.arm(mine, 0.05)
        mine.settimeout(DEADLINE)

        assert mine.recv(1) == b""
        assert watchdog.thread is not first
        assert watchdog.disarm() is True
