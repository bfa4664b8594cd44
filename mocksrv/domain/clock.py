"""Mock clocks: the only place that reads the system time."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from mocksrv.domain.errors import InvalidField

SystemTime = Callable[[], datetime]

# The latest time a mock clock may show: far enough for any test, and leaves room for the
# timers and expiries that are computed from it without leaving the calendar.
LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def system_now() -> datetime:
    """Return the real time, in UTC."""
    return datetime.now(UTC)


def to_millis(moment: datetime) -> datetime:
    """Drop the microseconds below a millisecond, as every written timestamp does."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


@functools.lru_cache(maxsize=4096)
def format_timestamp(moment: datetime) -> str:
    """Format as ISO 8601 UTC with milliseconds, e.g. 2026-01-22T18:43:56.112Z.

    The recent answers are kept: a record's times are written in every answer and webhook about it,
    and equal moments (the same instant, whatever the offset) always read the same.
    """
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    return moment.isoformat("T", "milliseconds")[:-6] + "Z"


def parse_timestamp(text: str) -> datetime:
    """Parse ISO 8601; a time without an offset is taken as UTC. Raises ValueError."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{text} is outside the calendar in UTC") from None


@dataclass(frozen=True, slots=True)
class ClockState:
    """A merchant's clock as plain data: mock time `base` at real time `anchor`."""

    base: datetime
    anchor: datetime
    frozen: bool = False

    def now(self, real_now: datetime) -> datetime:
        if self.frozen:
            return self.base
        return self.base + (real_now - self.anchor)


def initial_state(system_time: SystemTime) -> ClockState:
    """A new merchant's clock: running, at the real time."""
    real = system_time()
    return ClockState(base=real, anchor=real)


class Clock:
    """Reads and moves merchants' mock clocks, kept as `ClockState` records in the store."""

    def __init__(self, states: ClockStates, system_time: SystemTime = system_now) -> None:
        self._states = states
        self._system_time = system_time

    def real_now(self) -> datetime:
        return self._system_time()

    def state(self, merchant_id: str) -> ClockState:
        return self._states.clock_state(merchant_id)

    def now(self, merchant_id: str) -> datetime:
        return to_millis(self._states.clock_state(merchant_id).now(self._system_time()))

    def freeze(self, merchant_id: str) -> ClockState:
        real = self._system_time()
        state = self.state(merchant_id)
        return self._save(merchant_id, ClockState(state.now(real), real, frozen=True))

    def resume(self, merchant_id: str) -> ClockState:
        real = self._system_time()
        state = self.state(merchant_id)
        return self._save(merchant_id, ClockState(state.now(real), real, frozen=False))

    def check_forward(self, merchant_id: str, moment: datetime) -> None:
        """Refuse a moment in the clock's past."""
        if moment < self.now(merchant_id):
            raise InvalidField("now", "the mock clock only moves forward")
        if moment > LATEST:
            raise InvalidField("now", f"the mock clock goes no later than {format_timestamp(LATEST)}")

    def move_to(self, merchant_id: str, moment: datetime) -> ClockState:
        """Set the clock to `moment`, or leave it where it is if it is already past `moment`."""
        real = self._system_time()
        state = self.state(merchant_id)
        moment = max(moment, to_millis(state.now(real)))
        return self._save(merchant_id, ClockState(moment, real, frozen=state.frozen))

    def target_after(self, merchant_id: str, seconds: float) -> datetime:
        target = self.now(merchant_id) + timedelta(seconds=seconds)
        if target > LATEST:
            raise InvalidField("seconds", f"the mock clock goes no later than {format_timestamp(LATEST)}")
        return target

    def _save(self, merchant_id: str, state: ClockState) -> ClockState:
        self._states.save_clock_state(merchant_id, state)
        return state


class ClockStates:
    """Where clock states live; the store implements it."""

    def clock_state(self, merchant_id: str) -> ClockState:
        raise NotImplementedError

    def save_clock_state(self, merchant_id: str, state: ClockState) -> None:
        raise NotImplementedError
