"""The long-poll slots: caps per merchant and in all, and waits that answer at once taking none."""

from __future__ import annotations

import threading
from contextlib import ExitStack

import pytest

from mocksrv.domain.waits import TooManyWaits, WaitSlots

DEADLINE = 10.0  # seconds the long-poll thread may take to open on a loaded machine


def test_a_merchant_at_its_cap_is_refused_and_others_are_not() -> None:
    slots = WaitSlots(total=3, per_merchant=2)
    with ExitStack() as stack:
        for _ in range(2):
            stack.enter_context(slots.hold("m1"))
        with pytest.raises(TooManyWaits) as refused:
            stack.enter_context(slots.hold("m1"))
        stack.enter_context(slots.hold("m2"))
        assert (slots.open("m1"), slots.open("m2")) == (2, 1)
        with pytest.raises(TooManyWaits):
            stack.enter_context(slots.hold("m3"))  # three open in all
    assert str(refused.value) == (
        "Too many long-polls open: at most 2 per merchant and 3 in all; try again once one is answered"
    )
    assert (slots.open("m1"), slots.open("m2")) == (0, 0)


def test_a_wait_that_does_not_park_takes_no_slot_yet_is_refused_at_the_cap() -> None:
    slots = WaitSlots(total=8, per_merchant=1)
    counts: list[int] = []
    slots.on_change = counts.append
    with slots.hold("m1", parks=False):
        assert slots.open("m1") == 0
        with slots.hold("m1"):  # the slot is still free for a long-poll
            assert slots.open("m1") == 1
            with pytest.raises(TooManyWaits), slots.hold("m1", parks=False):
                pass
    assert (slots.open("m1"), counts) == (0, [1, 0])


def test_waiting_for_open_long_polls_returns_once_they_open_or_at_the_timeout() -> None:
    slots = WaitSlots(total=8, per_merchant=4)
    opened = threading.Event()
    release = threading.Event()

    def long_poll() -> None:
        with slots.hold("m1"):
            opened.set()
            release.wait(DEADLINE)

    holder = threading.Thread(target=long_poll)
    holder.start()
    try:
        assert slots.wait_open("m1", 1, timeout=DEADLINE) == 1
        assert opened.wait(DEADLINE)
        assert slots.wait_open("m1", 2, timeout=0.01) == 1  # nothing more opens: the timeout answers
    finally:
        release.set()
        holder.join(DEADLINE)
    assert slots.wait_open("m1", 0, timeout=DEADLINE) == 0


def test_a_slot_is_given_back_when_the_server_cannot_add_its_thread() -> None:
    slots = WaitSlots(total=1, per_merchant=1)
    counts: list[int] = []

    def no_thread_to_spare(count: int) -> None:
        counts.append(count)
        if count:
            raise RuntimeError("can't start new thread")

    slots.on_change = no_thread_to_spare
    with pytest.raises(RuntimeError), slots.hold("m1"):
        pass
    assert (slots.open("m1"), counts) == (0, [1, 0])
    slots.on_change = counts.append
    with slots.hold("m2"):  # the server's one slot is free again
        assert slots.open("m2") == 1
