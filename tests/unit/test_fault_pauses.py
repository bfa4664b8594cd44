"""A hang or latency fault's pause: it ends when its time is up, when its client has gone, when the
merchant's pauses are released (its faults cleared, a reset, a restore, a delete), or when the server
stops; after a reset, a restore or a delete its request goes no further."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from mocksrv.domain.sandbox import Sandbox

DEADLINE = 10.0  # seconds a thread may take to end on a loaded machine
LONG = 600.0  # a pause no test waits out


class Slot:
    """A wait slot that says when it is taken: by then the pause is known to the releases."""

    def __init__(self, on_taking: Callable[[], None] = lambda: None) -> None:
        self.on_taking = on_taking
        self.taken = threading.Event()

    def __enter__(self) -> None:
        self.on_taking()
        self.taken.set()

    def __exit__(self, *exc_info: object) -> None:
        return None


class Paused:
    """A pause on a thread of its own, and what it answered."""

    def __init__(self, sandbox: Sandbox, merchant_id: str, **kwargs: Any) -> None:
        self.slot = Slot()
        self.answers: list[bool] = []
        self.thread = threading.Thread(
            target=lambda: self.answers.append(
                sandbox.faults.pause(merchant_id, LONG, slot=self.slot, **kwargs)
            ),
            daemon=True,
        )
        self.thread.start()
        assert self.slot.taken.wait(DEADLINE), "the pause did not begin"

    def ended(self) -> bool:
        self.thread.join(DEADLINE)
        return not self.thread.is_alive()


def test_releasing_a_merchants_pauses_ends_them_and_no_other_merchants(sandbox: Sandbox) -> None:
    mine, theirs = Paused(sandbox, "m1"), Paused(sandbox, "m2")

    sandbox.faults.release_pauses("m1")

    assert mine.ended()
    assert (mine.answers, theirs.thread.is_alive()) == ([True], True)  # it goes on
    sandbox.faults.stop_pauses()
    assert theirs.ended()
    sandbox.faults.allow_pauses()


def test_a_pause_ends_once_its_client_has_gone(sandbox: Sandbox) -> None:
    gone = threading.Event()
    looked = threading.Semaphore(0)

    def client_gone() -> bool:
        looked.release()
        return gone.is_set()

    pause = Paused(sandbox, "m1", client_gone=client_gone)
    looks = [looked.acquire(timeout=DEADLINE) for _ in range(2)]

    assert looks == [True, True]  # it looked twice...
    assert pause.thread.is_alive()  # ...and still holds the request

    gone.set()

    assert pause.ended()


def test_a_reset_releases_the_merchants_pauses_and_their_requests_go_no_further(sandbox: Sandbox) -> None:
    pause = Paused(sandbox, "merchant_default")

    sandbox.reset("merchant_default")

    assert pause.ended()
    assert pause.answers == [False]


def test_a_release_as_the_pause_takes_its_slot_is_not_missed(sandbox: Sandbox) -> None:
    slot = Slot(on_taking=lambda: sandbox.faults.release_pauses("m1", abandon=True))

    assert sandbox.faults.pause("m1", LONG, slot=slot) is False
