"""Analytics of a merchant's payments, refunds and disputes, computed from the store on its mock clock."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter, itemgetter
from typing import Any

from mocksrv.domain.analytics.query import MetricsQuery, TimeWindow, check_names, moment_of, step_of
from mocksrv.domain.analytics.subjects import Counters, Dimension, Shown, Subject, Value
from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import InvalidField
from mocksrv.domain.store import MemoryStore
from mocksrv.domain.store.records import SortKey

_negated_millis = itemgetter(0)
_amount = attrgetter("amount")
GroupKey = tuple[int, tuple[Shown, ...]]  # (bucket, the values of the grouped dimensions)
CURRENCY = "currency"  # the dimension every subject has, by which amounts are kept apart


@dataclass(frozen=True, slots=True)
class MetricsRow:
    """The figures of one time bucket and group."""

    start: datetime
    end: datetime  # the bucket's last millisecond
    dimensions: dict[str, Shown]  # every dimension of the subject; None where not grouped by
    values: dict[str, Value]  # every value field of the subject; None where not asked for


@dataclass(frozen=True, slots=True)
class MetricsReport:
    rows: list[MetricsRow]
    window: TimeWindow
    totals: dict[str, Value]  # over the whole range, every group together
    previous: TimeWindow | None = None  # with `delta`: the window just before, of the same length
    delta: dict[str, Value] | None = None  # with `delta`: each asked figure, now less then


@dataclass(frozen=True, slots=True)
class _Reader:
    """How a request reads the dimensions it needs from a record, and shows what it read."""

    read: Callable[[Any], Hashable]
    show: Callable[[Any], tuple[Any, ...]]  # what `read` returned -> one value per dimension


class AnalyticsService:
    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def metrics(self, merchant_id: str, subject: Subject, query: MetricsQuery) -> MetricsReport:
        """Compute the asked metrics per time bucket and group; IR_04 names what is unknown."""
        check_names("metrics", "metric", query.metrics, subject.metrics)
        if not query.metrics:
            raise InvalidField("metrics", "name at least one metric")
        check_names("groupByNames", "dimension", query.group_by, subject.dimensions)
        check_names("filters", "filter", tuple(query.filters), subject.filters)
        filters = self._filters(subject, query)
        step = step_of(query.granularity)
        end = query.end if query.end is not None else self._clock.now(merchant_id)
        window = TimeWindow.of(query.start, end)
        group_by = tuple(dict.fromkeys(query.group_by))
        if subject.adds_amounts(query.metrics) and CURRENCY not in group_by:
            group_by = (*group_by, CURRENCY)  # as the real service does: no row adds two currencies
        groups, currencies = self._groups(merchant_id, subject, window, step, group_by, filters)
        asked = {name for metric in query.metrics for name in subject.metrics[metric]}
        rows = [
            self._row(subject, key, counters, window, step, group_by, asked)
            for key, counters in sorted(groups.items(), key=_order)
        ]
        current = _sum(subject, groups.values())
        totals = _one_currency(subject, subject.totals(current), currencies)
        if not query.delta:
            return MetricsReport(rows, window, totals)
        previous = window.previous()
        before_groups, before_currencies = self._groups(merchant_id, subject, previous, None, (), filters)
        before = _sum(subject, before_groups.values())
        now_values, then_values = subject.values(current), subject.values(before)
        delta = {
            name: _less(now_values[name], then_values[name]) for name in subject.value_fields if name in asked
        }
        delta = _one_currency(subject, delta, currencies | before_currencies)
        return MetricsReport(rows, window, totals, previous, delta)

    @staticmethod
    def _filters(subject: Subject, query: MetricsQuery) -> dict[str, frozenset[str]]:
        """The values each filtered dimension may take; IR_04 naming a value the real service refuses."""
        chosen: dict[str, frozenset[str]] = {}
        for key, values in query.filters.items():
            dimension = subject.filters[key]
            known = subject.dimensions[dimension].values
            unknown = [value for value in values if known is not None and value not in known]
            if unknown:
                raise InvalidField(f"filters.{key}", f"unknown value {', '.join(unknown)}")
            if values:  # an empty list filters nothing, as in the real service
                chosen[dimension] = chosen.get(dimension, frozenset(values)) & frozenset(values)
        return chosen

    def _groups(
        self,
        merchant_id: str,
        subject: Subject,
        window: TimeWindow,
        step: int | None,
        group_by: tuple[str, ...],
        filters: dict[str, frozenset[str]],
    ) -> tuple[dict[GroupKey, Counters], set[Shown]]:
        """The counters of each (bucket, group) with a record in the window that passes the filters,
        and the currencies of those records.

        Records are first grouped by what is read of them, as read, with no work per record beyond
        one read and one dict lookup; the values shown, the filters, and the merging of groups that
        show the same are then done once per such group, of which there are few.
        """
        keys, records = self._store.created_between(subject.kind, merchant_id, window.start, window.end)
        names = [*group_by, *(name for name in filters if name not in group_by)]
        if CURRENCY not in names:
            names.append(CURRENCY)
        currency_at = names.index(CURRENCY)
        reader = _reader([*(subject.dimensions[name] for name in names), Dimension(subject.facts, _as_read)])
        read = reader.read
        raw_groups: dict[tuple[int, Hashable], list[int]] = {}
        for bucket, first, last in _buckets(keys, step):
            part = records[first:last]
            in_bucket: dict[Hashable, list[int]] = {}
            for raw, amount in zip(map(read, part), map(_amount, part), strict=True):
                found = in_bucket.get(raw)
                if found is None:
                    in_bucket[raw] = [amount]
                else:
                    found.append(amount)
            raw_groups.update(((bucket, raw), amounts) for raw, amounts in in_bucket.items())
        tests = [(names.index(name), allowed) for name, allowed in filters.items()]
        groups: dict[GroupKey, Counters] = {}
        currencies: set[Shown] = set()
        for (bucket, raw), amounts in raw_groups.items():
            shown = reader.show(raw)
            if any(shown[index] not in allowed for index, allowed in tests):
                continue
            currencies.add(shown[currency_at])
            key = (bucket, shown[: len(group_by)])
            counters = subject.count(shown[-1], amounts)
            found_counters = groups.get(key)
            groups[key] = counters if found_counters is None else _add(found_counters, counters)
        return groups, currencies

    @staticmethod
    def _row(
        subject: Subject,
        key: GroupKey,
        counters: Counters,
        window: TimeWindow,
        step: int | None,
        group_by: tuple[str, ...],
        asked: set[str],
    ) -> MetricsRow:
        bucket, shown = key
        if step is None:
            start, end = window.start, window.end
        else:
            start, end = moment_of(bucket * step), moment_of((bucket + 1) * step - 1)
        grouped = dict(zip(group_by, shown, strict=True))
        values = subject.values(counters)
        return MetricsRow(
            start,
            end,
            {name: grouped.get(name) for name in subject.dimensions},
            {name: values[name] if name in asked else None for name in subject.value_fields},
        )


def _reader(dimensions: list[Dimension]) -> _Reader:
    """Read every dimension in one step where they all read attributes: one `attrgetter` call."""
    if all(isinstance(d.reads, tuple) for d in dimensions):
        spans: list[tuple[int, int]] = []
        attributes: list[str] = []
        for dimension in dimensions:
            assert isinstance(dimension.reads, tuple)
            spans.append((len(attributes), len(attributes) + len(dimension.reads)))
            attributes.extend(dimension.reads)
        shows = [d.show for d in dimensions]

        def show_flat(flat: tuple[Any, ...]) -> tuple[Shown, ...]:
            return tuple(show(flat[a:b]) for show, (a, b) in zip(shows, spans, strict=True))

        if not attributes:
            return _Reader(lambda record: (), show_flat)
        getter = attrgetter(*attributes)
        if len(attributes) == 1:  # attrgetter of one name answers the value itself, not a tuple
            return _Reader(getter, lambda raw: show_flat((raw,)))
        return _Reader(getter, show_flat)
    readers = [_one(d) for d in dimensions]
    shows = [d.show for d in dimensions]
    return _Reader(
        lambda record: tuple(read(record) for read in readers),
        lambda raw: tuple(show(part) for show, part in zip(shows, raw, strict=True)),
    )


def _as_read(raw: tuple[Any, ...]) -> Any:
    return raw


def _one(dimension: Dimension) -> Callable[[Any], Hashable]:
    """A function reading one dimension of a record as a tuple, for its `show`."""
    reads = dimension.reads
    if callable(reads):
        return lambda record: (reads(record),)
    getters = [attrgetter(name) for name in reads]
    return lambda record: tuple(get(record) for get in getters)


def _buckets(keys: list[SortKey], step: int | None) -> Iterator[tuple[int, int, int]]:
    """(bucket, first, last): the slice of the records in each bucket that has any.

    `keys` are the records' keys in list order, newest first, each starting with its creation in
    milliseconds, negated.
    """
    if step is None:
        yield 0, 0, len(keys)
        return
    first, count = 0, len(keys)
    while first < count:
        bucket = -keys[first][0] // step
        last = bisect_right(keys, -bucket * step, first, key=_negated_millis)
        yield bucket, first, last
        first = last


def _one_currency(subject: Subject, figures: dict[str, Value], currencies: set[Shown]) -> dict[str, Value]:
    """The figures, those that add amounts up left out (None) when they would add two currencies."""
    if len(currencies) <= 1:
        return figures
    return {name: None if name in subject.amounts else value for name, value in figures.items()}


def _add(left: Counters, right: Counters) -> Counters:
    return tuple(a + b for a, b in zip(left, right, strict=True))


def _sum(subject: Subject, groups: Iterable[Counters]) -> Counters:
    total: Counters | None = None
    for counters in groups:
        total = counters if total is None else _add(total, counters)
    return total if total is not None else subject.empty


def _less(now: Value, then: Value) -> Value:
    return None if now is None or then is None else now - then


def _order(item: tuple[GroupKey, Counters]) -> tuple[int, tuple[tuple[bool, str], ...]]:
    """Buckets in time order; within one, groups by their values, a missing value first."""
    bucket, shown = item[0]
    return bucket, tuple((value is not None, value or "") for value in shown)
