"""A system time the tests move by hand, so that no test depends on the real clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

# The instant every fake system time starts at: 2026-01-22T18:43:56.112Z.
T0 = datetime(2026, 1, 22, 18, 43, 56, 112000, tzinfo=UTC)


class FakeSystemTime:
    """A callable that returns a time which only moves when the test moves it."""

    def __init__(self, start: datetime = T0) -> None:
        self.current = start

    def __call__(self) -> datetime:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += timedelta(seconds=seconds)


def at(seconds: float) -> datetime:
    """Return the moment `seconds` after T0."""
    return T0 + timedelta(seconds=seconds)
