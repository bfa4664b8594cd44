"""The worker pool that runs requests for waitress: one worker at a time while requests are quick,
another as soon as the running ones are slow, every task once, and a clean shutdown.

Tasks here are plain objects with waitress's two methods, run on the pool's real threads; the
tests wait on events with deadlines, never on sleeps.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator

import pytest

from mocksrv.workerpool import WorkerPool

DEADLINE = 10.0  # seconds any awaited event may take on a loaded machine
PATIENT = 60.0  # a patience no quick task in these tests comes near


class Task:
    """A request stand-in: runs `work`, records the thread, and says when it is done."""

    def __init__(self, work: Callable[[], None] = lambda: None) -> None:
        self.work = work
        self.done = threading.Event()
        self.cancelled = False
        self.thread: str | None = None

    def service(self) -> None:
        self.thread = threading.current_thread().name
        try:
            self.work()
        finally:
            self.done.set()

    def cancel(self) -> None:
        self.cancelled = True


def finish(*tasks: Task) -> None:
    for task in tasks:
        assert task.done.wait(DEADLINE), "a task did not run in time"


@pytest.fixture
def pools() -> Iterator[Callable[..., WorkerPool]]:
    made: list[WorkerPool] = []

    def make(threads: int = 4, patience: float = PATIENT) -> WorkerPool:
        made.append(WorkerPool(threads, patience))
        return made[-1]

    yield make
    for pool in made:
        pool.shutdown(timeout=DEADLINE)


def test_quick_tasks_run_one_after_another_on_one_worker(pools: Callable[..., WorkerPool]) -> None:
    pool = pools(threads=4)
    tasks = [Task() for _ in range(200)]
    for task in tasks:
        pool.add_task(task)
    finish(*tasks)

    assert len({task.thread for task in tasks}) == 1


def test_the_worker_that_went_idle_last_takes_the_next_task(pools: Callable[..., WorkerPool]) -> None:
    pool = pools(threads=4)
    first = Task()
    pool.add_task(first)
    finish(first)
    later = Task()
    pool.add_task(later)
    finish(later)

    assert later.thread == first.thread


def held_then_next(pool: WorkerPool) -> tuple[threading.Event, Task, Task]:
    """Add a task that runs until released, then a quick one; return the release and both."""
    release = threading.Event()
    held, after = Task(lambda: release.wait(DEADLINE)), Task()
    pool.add_task(held)
    pool.add_task(after)
    return release, held, after


def test_a_slow_task_holds_up_the_next_for_no_longer_than_the_patience(
    pools: Callable[..., WorkerPool],
) -> None:
    release, slow, quick = held_then_next(pools(threads=2, patience=0.05))

    finish(quick)
    still_running = not slow.done.is_set()
    release.set()
    finish(slow)

    assert still_running
    assert quick.thread != slow.thread


def test_tasks_wait_while_every_worker_is_busy(pools: Callable[..., WorkerPool]) -> None:
    release, slow, queued = held_then_next(pools(threads=1, patience=0.01))

    # A bounded look for something that must not happen: the supervisor checks every 10 ms, and
    # with its one worker held, it has nobody to wake.
    waited = not queued.done.wait(0.2)
    release.set()
    finish(slow, queued)

    assert waited
    assert queued.thread == slow.thread


def test_every_task_runs_exactly_once_when_many_threads_add_them(pools: Callable[..., WorkerPool]) -> None:
    pool = pools(threads=4, patience=0.001)  # workers join often: many hand-overs
    runs: list[int] = []
    lock = threading.Lock()

    def record(number: int) -> Callable[[], None]:
        def work() -> None:
            with lock:
                runs.append(number)

        return work

    batches = [[Task(record(100 * batch + index)) for index in range(100)] for batch in range(8)]
    adders = [
        threading.Thread(target=lambda tasks=tasks: [pool.add_task(t) for t in tasks]) for tasks in batches
    ]
    for adder in adders:
        adder.start()
    for adder in adders:
        adder.join(DEADLINE)
    finish(*(task for tasks in batches for task in tasks))

    assert sorted(runs) == list(range(800))


def test_a_failing_task_is_logged_and_its_worker_goes_on(
    pools: Callable[..., WorkerPool], caplog: pytest.LogCaptureFixture
) -> None:
    def fail() -> None:
        raise RuntimeError("broken handler")

    pool = pools(threads=1)
    failing, after = Task(fail), Task()
    with caplog.at_level(logging.ERROR, logger="mocksrv.workerpool"):
        pool.add_task(failing)
        pool.add_task(after)
        finish(failing, after)

    assert after.thread == failing.thread
    [record] = caplog.records
    assert record.getMessage().startswith("request task failed")
    assert record.exc_info is not None
    assert str(record.exc_info[1]) == "broken handler"


def test_shutdown_cancels_queued_tasks_and_lets_the_running_one_finish(
    pools: Callable[..., WorkerPool],
) -> None:
    pool = pools(threads=1)
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        release.wait(DEADLINE)

    running, queued = Task(hold), [Task(), Task()]
    pool.add_task(running)
    for task in queued:
        pool.add_task(task)
    assert started.wait(DEADLINE)

    pool.shutdown(timeout=0)
    release.set()
    finish(running)

    assert [(task.cancelled, task.done.is_set()) for task in queued] == [(True, False), (True, False)]
