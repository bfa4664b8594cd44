"""Mock clocks: the only place that reads the system time.

Two kinds of time are read in mocksrv. The mock time of a merchant comes from `system_now()` here,
through the clock of that merchant. Everything else that reads a clock (waitress's connection
timeouts and poll loop, the ticker's and the state writer's intervals, the delivery threads' idle
time, stop deadlines, latencies, the test receiver's `wait_for`) means a real interval.

Under freezegun, in the process that runs the server, the mock time follows freezegun: `system_now()`
reads `datetime.datetime.now`, which freezegun replaces while a freeze is active, so a merchant
whose clock runs with real time shows the frozen time, and moves when the freeze ticks or moves.
A move back shows the earlier time; timers fire only once the clock passes their due time again,
and nothing fired is undone. A clock frozen or moved through the control plane keeps its own
offset from whatever the system time reads. The real intervals stay real because of freezegun's
ignore list: `exempt_real_intervals()` adds `REAL_TIME_MODULES` to it, when `mocksrv.server` or the
pytest plugin is imported, so that a frozen wall clock neither hangs a deadline nor closes every
connection at once when it jumps.
"""

from __future__ import annotations

import datetime as datetime_module
import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import cast

from mocksrv.domain.errors import InvalidField

SystemTime = Callable[[], datetime]

# The latest time a mock clock may show: far enough for any test, and leaves room for the
# timers and expiries that are computed from it without leaving the calendar.
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
# The furthest ahead of the clock a timer is set (a capture window, an outcome's wait): 100 years.
LONGEST_SPAN_SECONDS = 100 * 366 * 24 * 3600
# The most one advance of a clock moves it: 10 years.
LONGEST_ADVANCE_SECONDS = 10 * 365 * 24 * 3600
# The earliest time a snapshot may hold: far before any clock, and far from the calendar's start.
EARLIEST = datetime(1000, 1, 1, tzinfo=UTC)
# The latest time a record may hold: a time set ahead of a clock at its end (a client secret's or
# a key's expiry, a timer), and still within the calendar.
LATEST_HELD = LATEST + timedelta(seconds=LONGEST_SPAN_SECONDS)

# Modules (prefixes) that freezegun leaves on real time: every time they read is a real interval.
REAL_TIME_MODULES = ("mocksrv.", "waitress.")


def _standard_datetime(kind: type[datetime]) -> type[datetime]:
    """The standard library's datetime class: `kind`, or the one that freezegun's subclass extends."""
    for base in kind.__mro__:
        if base.__module__ == "datetime" and base.__name__ == "datetime":
            return cast(type[datetime], base)
    return kind


# In a tuple, because freezegun replaces every module global that is the class itself (and this
# module may be imported during a freeze, when `datetime` is freezegun's subclass).
_PLAIN_DATETIME = (_standard_datetime(datetime),)


def exempt_real_intervals() -> None:
    """Put REAL_TIME_MODULES on freezegun's ignore list, when freezegun is installed.

    A freeze made before this call does not see it: its ignore list was fixed when it was made.
    """
    try:
        import freezegun
    except ImportError:
        return
    freezegun.configure(extend_ignore_list=list(REAL_TIME_MODULES))


def system_now() -> datetime:
    """Return the real time in UTC, or the time freezegun shows while a freeze is active."""
    # Looked up on the module at each call: freezegun swaps `datetime.datetime` there, also for the
    # modules on its ignore list, which this one is.
    moment = datetime_module.datetime.now(UTC)
    plain = _PLAIN_DATETIME[0]
    if type(moment) is plain:
        return moment
    # Kept as a plain datetime: orjson and the snapshot codec refuse freezegun's subclass.
    return plain.combine(moment.date(), moment.timetz())


def ahead_of_clock(path: str, moment: datetime, now: datetime) -> datetime:
    """`moment`, a time a record waits for (an expiry): after `now` on the merchant's clock and no
    later than where the clock ends; else InvalidField on `path`."""
    if moment <= now:
        raise InvalidField(path, "a time after now, on the merchant's clock")
    if moment > LATEST:
        raise InvalidField(path, f"no later than {format_timestamp(LATEST)}, where the mock clock ends")
    return moment


def held_time(moment: datetime) -> datetime:
    """`moment`, if a record may hold it: from EARLIEST to LATEST_HELD, as a snapshot restores;
    else ValueError saying so."""
    try:
        within = EARLIEST <= moment.astimezone(UTC) <= LATEST_HELD
    except OverflowError:  # an offset takes it past the calendar's first or last day
        within = False
    if not within:
        raise ValueError(f"from {EARLIEST.date()} to {LATEST_HELD.date()}")
    return moment


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
    moment = _PLAIN_DATETIME[0].fromisoformat(text)
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
        # A running clock stops at LATEST, so that every time it shows can be restored again.
        return min(self.base + (real_now - self.anchor), LATEST)


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
        return self._run(merchant_id, frozen=True)

    def resume(self, merchant_id: str) -> ClockState:
        return self._run(merchant_id, frozen=False)

    def _run(self, merchant_id: str, *, frozen: bool) -> ClockState:
        """Stop the clock where it stands, or let it follow real time from there."""
        real = self._system_time()
        return self._states.change_clock_state(
            merchant_id, lambda state: ClockState(state.now(real), real, frozen=frozen)
        )

    def check_forward(self, merchant_id: str, moment: datetime) -> None:
        """Refuse a moment in the clock's past."""
        if moment < self.now(merchant_id):
            raise InvalidField("now", "the mock clock only moves forward")
        if moment > LATEST:
            raise InvalidField("now", f"the mock clock goes no later than {format_timestamp(LATEST)}")

    def move_to(self, merchant_id: str, moment: datetime) -> ClockState:
        """Set the clock to `moment`, or leave it where it is if it is already at or past `moment`."""
        real = self._system_time()

        def moved(state: ClockState) -> ClockState:
            if moment <= to_millis(state.now(real)):
                return state  # unchanged, so a running clock keeps its exact offset from the system time
            return ClockState(moment, real, frozen=state.frozen)

        return self._states.change_clock_state(merchant_id, moved)

    def target_after(self, merchant_id: str, seconds: float) -> datetime:
        # From the clock's exact time, not the millisecond it shows: a thousand advances of 0.4 ms
        # move it 0.4 s, and one of an hour from 12:00:00.0004 shows 13:00:00.000.
        exact = self._states.clock_state(merchant_id).now(self._system_time())
        target = exact + timedelta(seconds=seconds)
        if target > LATEST:
            raise InvalidField("seconds", f"the mock clock goes no later than {format_timestamp(LATEST)}")
        return target


class ClockStates:
    """Where clock states live; the store implements it."""

    def clock_state(self, merchant_id: str) -> ClockState:
        raise NotImplementedError

    def change_clock_state(self, merchant_id: str, change: Callable[[ClockState], ClockState]) -> ClockState:
        """Replace the state with `change(state)` in one step, no other change of it in between (a
        freeze while an advance moves the clock must never take it back); returns the new state."""
        raise NotImplementedError
