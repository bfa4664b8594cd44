"""What the store is told and answers: collections, queries, list order, timers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sortedcontainers import SortedList

GLOBAL = "*"  # the space for records that belong to no single merchant
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)

SortKey = tuple[int, str]


def sort_key(created: datetime, record_id: str) -> SortKey:
    """Newest first, ties by id: the order of every list."""
    return (-millis(created), record_id)


def millis(moment: datetime) -> int:
    """Whole milliseconds since the epoch, rounded down."""
    return (moment - _EPOCH) // _MILLISECOND


def millis_up(moment: datetime) -> int:
    return -((_EPOCH - moment) // _MILLISECOND)


def listed(lists: dict[Any, SortedList], name: Any) -> SortedList:
    """The sorted list kept under `name`, empty at first (made only then: making one costs)."""
    listed = lists.get(name)
    if listed is None:
        listed = lists[name] = SortedList()
    return listed


@dataclass(frozen=True, slots=True)
class Collection:
    """How the store keeps one kind of record: its id and creation fields, and indexed fields."""

    kind: str
    id_field: str
    created_field: str = "created"
    indexed: tuple[str, ...] = ()
    ordered: bool = True  # kept in list order, for query(); off for records only looked up by id


@dataclass(frozen=True, slots=True)
class Between:
    """A value of a query's `where` that matches from `low` to `high`, both included (None: no bound)."""

    low: int | None = None
    high: int | None = None

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


@dataclass(frozen=True, slots=True)
class Query:
    where: Mapping[str, object] = field(default_factory=dict)
    created_gte: datetime | None = None
    created_lte: datetime | None = None
    limit: int = 10
    offset: int = 0
    # Cursors: the id of a record the page starts after, or ends before, in the list's order.
    starting_after: str | None = None
    ending_before: str | None = None

    @classmethod
    def of(
        cls,
        *,
        limit: int = 10,
        offset: int = 0,
        created_gte: datetime | None = None,
        created_lte: datetime | None = None,
        starting_after: str | None = None,
        ending_before: str | None = None,
        **where: object,
    ) -> Query:
        """A query from the criteria of a list request; a criterion left None filters nothing."""
        criteria = {name: value for name, value in where.items() if value is not None}
        return cls(criteria, created_gte, created_lte, limit, offset, starting_after, ending_before)


@dataclass(frozen=True, slots=True, order=True)
class Timer:
    due_at: datetime
    seq: int
    kind: str = field(compare=False)
    target_id: str = field(compare=False)
