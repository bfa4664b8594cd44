"""What an analytics request asks: a time range, metrics, groups, filters, a bucket size."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from mocksrv.domain.errors import InvalidField
from mocksrv.domain.store.records import millis

MINUTE_MS = 60_000

# The real service's time buckets, one minute to one day, by name; each is a whole number of
# milliseconds, and buckets start at multiples of it since the epoch (so a day starts at 00:00 UTC).
GRANULARITIES: Mapping[str, int] = {
    "G_ONEMIN": MINUTE_MS,
    "G_FIVEMIN": 5 * MINUTE_MS,
    "G_FIFTEENMIN": 15 * MINUTE_MS,
    "G_THIRTYMIN": 30 * MINUTE_MS,
    "G_ONEHOUR": 60 * MINUTE_MS,
    "G_ONEDAY": 24 * 60 * MINUTE_MS,
    "G_ONE_DAY": 24 * 60 * MINUTE_MS,  # the spelling the spec shows
}

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_FIRST_MS = (datetime.min.replace(tzinfo=UTC) - _EPOCH) // timedelta(milliseconds=1)


def moment_of(ms: int) -> datetime:
    """The moment `ms` milliseconds after the epoch."""
    return _EPOCH + timedelta(milliseconds=ms)


@dataclass(frozen=True, slots=True)
class MetricsQuery:
    """One analytics request, as checked by the HTTP layer (types) and the service (names)."""

    start: datetime
    metrics: tuple[str, ...]
    end: datetime | None = None  # None: now on the merchant's mock clock
    group_by: tuple[str, ...] = ()
    filters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    granularity: str | None = None  # None: one bucket, the whole range
    delta: bool = False


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """A closed range of whole milliseconds, [start_ms, end_ms]."""

    start_ms: int
    end_ms: int

    @classmethod
    def of(cls, start: datetime, end: datetime) -> TimeWindow:
        if end < start:
            raise InvalidField("timeRange.endTime", "the end is before the start")
        return cls(millis(start), millis(end))

    @property
    def start(self) -> datetime:
        return moment_of(self.start_ms)

    @property
    def end(self) -> datetime:
        return moment_of(self.end_ms)

    def previous(self) -> TimeWindow:
        """The window of the same length that ends just before this one starts, cut at the first
        moment of the calendar (0001-01-01), before which nothing was created."""
        length = self.end_ms - self.start_ms
        return TimeWindow(max(self.start_ms - 1 - length, _FIRST_MS), max(self.start_ms - 1, _FIRST_MS))


def step_of(granularity: str | None) -> int | None:
    """The bucket size in milliseconds; IR_04 naming an unknown granularity."""
    if granularity is None:
        return None
    step = GRANULARITIES.get(granularity)
    if step is None:
        raise InvalidField(
            "timeSeries.granularity",
            f"unknown granularity {granularity}; one of {', '.join(GRANULARITIES)}",
        )
    return step


def check_names(path: str, kind: str, asked: tuple[str, ...], known: Mapping[str, object]) -> None:
    """Refuse names the subject does not know, naming every one of them (IR_04)."""
    unknown = [name for name in asked if name not in known]
    if unknown:
        raise InvalidField(path, f"unknown {kind} {', '.join(unknown)}; one of {', '.join(sorted(known))}")
