"""Timers on the mock clock: stored as due times, fired in time order when the clock passes them."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from datetime import datetime

from mocksrv.domain.clock import Clock, ClockState
from mocksrv.domain.store import MemoryStore, Timer

log = logging.getLogger(__name__)

TimerHandler = Callable[[str, str], None]  # (merchant_id, target_id)


class Scheduler:
    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self._handlers: dict[str, TimerHandler] = {}

    def register(self, kind: str, handler: TimerHandler) -> None:
        self._handlers[kind] = handler

    @property
    def kinds(self) -> Collection[str]:
        """The kinds of timer that can be scheduled: those with a handler."""
        return self._handlers.keys()

    def schedule(self, merchant_id: str, due_at: datetime, kind: str, target_id: str) -> Timer:
        if kind not in self._handlers:
            raise KeyError(f"no handler for timer kind {kind}")
        return self._store.schedule(merchant_id, due_at, kind, target_id)

    def fire_due(self, merchant_id: str, until: datetime) -> list[Timer]:
        """Fire, in time order, every timer due by `until`, including ones that firing schedules.

        Answers those that changed something, or failed: a refund settled by hand before its timer, or
        a payment captured before its authorization's expiry, leaves a timer that finds nothing to do.
        """
        fired: list[Timer] = []
        while True:
            with self._store.transaction(merchant_id):
                timer = self._store.pop_due_timer(merchant_id, until)
                if timer is None:
                    return fired
                # When the clock jumps, what a timer writes carries its due time; a clock that
                # runs in real time is already past it, and clocks never go back.
                self._clock.move_to(merchant_id, timer.due_at)
                before = self._store.own_changes(merchant_id)
                failed = False
                try:
                    self._handlers[timer.kind](merchant_id, timer.target_id)
                except Exception:
                    log.exception("timer %s for %s failed", timer.kind, timer.target_id)
                    failed = True
                if failed or self._store.own_changes(merchant_id) != before:
                    fired.append(timer)

    def advance(self, merchant_id: str, seconds: float) -> tuple[ClockState, list[Timer]]:
        with self._store.transaction(merchant_id):
            target = self._clock.target_after(merchant_id, seconds)
            return self._run_until(merchant_id, target)

    def set_time(self, merchant_id: str, moment: datetime) -> tuple[ClockState, list[Timer]]:
        with self._store.transaction(merchant_id):
            self._clock.check_forward(merchant_id, moment)
            return self._run_until(merchant_id, moment)

    def _run_until(self, merchant_id: str, target: datetime) -> tuple[ClockState, list[Timer]]:
        fired = self.fire_due(merchant_id, target)
        return self._clock.move_to(merchant_id, target), fired

    def fire_now(self, merchant_id: str) -> list[Timer]:
        """Fire, in time order, every timer due by the time the merchant's clock reads now."""
        timer = self._store.next_timer(merchant_id)
        if timer is None:
            return []  # the clock is read only for a merchant with a timer: the ticker asks them all
        now = self._clock.now(merchant_id)
        return self.fire_due(merchant_id, now) if timer.due_at <= now else []

    def tick(self) -> int:
        """Fire what is due on every merchant's clock now; the real-time ticker calls this.

        A clock that moved back (a time-freezing library set the system time earlier) fires nothing
        until it passes the next due time again.
        """
        return sum(len(self.fire_now(merchant_id)) for merchant_id in self._store.merchant_ids())
