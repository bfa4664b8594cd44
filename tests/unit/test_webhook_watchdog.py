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


def test_a_head_read_before_the_deadline_counts_though_the_socket_is_shut_after_it() -> None:
    watchdog = Watchdog()
    mine, theirs = socket.socketpair()
    with mine, theirs:
        watchdog.arm(mine, 0.05)
        watchdog.head_read()

        mine.settimeout(DEADLINE)
        assert mine.recv(1) == b""  # the deadline passed while the body was read

        assert watchdog.late() is False
        assert watchdog.disarm() is True  # the socket is shut: the connection carries nothing more


def test_a_head_read_once_the_socket_is_shut_is_a_timeout() -> None:
    watchdog = Watchdog()
    mine, theirs = socket.socketpair()
    with mine, theirs:
        watchdog.arm(mine, 0.05)
        mine.settimeout(DEADLINE)
        assert mine.recv(1) == b""

        watchdog.head_read()  # cut short by the shutdown, it reads as whole

        assert watchdog.late() is True
        assert watchdog.disarm() is True


def test_a_new_arm_forgets_the_head_read_of_the_attempt_before() -> None:
    watchdog = Watchdog()
    mine, theirs = socket.socketpair()
    with mine, theirs:
        watchdog.arm(mine, 60)
        watchdog.head_read()
        assert watchdog.disarm() is False

        watchdog.arm(mine, 0.05)
        mine.settimeout(DEADLINE)
        assert mine.recv(1) == b""

        assert watchdog.late() is True
        assert watchdog.disarm() is True


def test_a_head_read_at_its_deadline_is_late_before_the_watchdog_wakes() -> None:
    watchdog = Watchdog()
    mine, theirs = socket.socketpair()
    with mine, theirs:
        watchdog.arm(mine, 0)
        watchdog.head_read()

        assert watchdog.late() is True
        watchdog.disarm()


def test_a_head_read_on_a_socket_never_armed_is_in_time() -> None:
    watchdog = Watchdog()

    watchdog.head_read()

    assert watchdog.late() is False
