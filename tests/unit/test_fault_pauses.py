"""A hang or latency fault's pause: it ends when its time is up, when its client has gone, when the
merchant's pauses are released (its faults cleared, or a reset), or when the server stops."""

from __future__ import annotations

import threading

from mocksrv.domain.sandbox import Sandbox

DEADLINE = 10.0  # seconds a thread may take to end on a loaded machine
LONG = 600.0  # a pause no test waits out


def paused(sandbox: Sandbox, merchant_id: str, **kwargs: object) -> threading.Thread:
    thread = threading.Thread(
        target=sandbox.faults.pause, args=(merchant_id, LONG), kwargs=kwargs, daemon=True
    )
    thread.start()
    return thread


def test_releasing_a_merchants_pauses_ends_them_and_no_other_merchants(sandbox: Sandbox) -> None:
    mine, theirs = paused(sandbox, "m1"), paused(sandbox, "m2")

    sandbox.faults.release_pauses("m1")

    mine.join(DEADLINE)
    assert (mine.is_alive(), theirs.is_alive()) == (False, True)
    sandbox.faults.stop_pauses()
    theirs.join(DEADLINE)
    assert not theirs.is_alive()
    sandbox.faults.allow_pauses()


def test_a_pause_ends_once_its_client_has_gone(sandbox: Sandbox) -> None:
    gone = threading.Event()
    looked = threading.Semaphore(0)

    def client_gone() -> bool:
        looked.release()
        return gone.is_set()

    pause = paused(sandbox, "m1", client_gone=client_gone)
    looks = [looked.acquire(timeout=DEADLINE) for _ in range(2)]

    assert looks == [True, True]  # it looked twice...
    assert pause.is_alive()  # ...and still holds the request

    gone.set()

    pause.join(DEADLINE)
    assert not pause.is_alive()


def test_a_reset_releases_the_merchants_pauses(sandbox: Sandbox) -> None:
    pause = paused(sandbox, "merchant_default")

    sandbox.reset("merchant_default")

    pause.join(DEADLINE)
    assert not pause.is_alive()
