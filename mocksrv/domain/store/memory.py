"""The in-memory store: records by kind and merchant, timers, outbox, counters, clocks.

Records are immutable plain data; a change puts a new copy. A merchant's data is guarded by one
re-entrant lock, taken by every call and held across a read-modify-write by `transaction()`.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any

from sortedcontainers import SortedList

from mocksrv.domain.clock import ClockState, ClockStates
from mocksrv.domain.events import Event
from mocksrv.domain.ids import SYSTEM, Entropy, IdState, SeededEntropy
from mocksrv.domain.models import Page
from mocksrv.domain.store.deliveries import DeliveryQueue
from mocksrv.domain.store.records import (
    GLOBAL,
    Between,
    Collection,
    Query,
    SortKey,
    Timer,
    listed,
    millis,
    millis_up,
    sort_key,
)


class _Space:
    """One merchant's data."""

    def __init__(self, clock: ClockState) -> None:
        self.lock = threading.RLock()
        self.records: dict[str, dict[str, Any]] = {}
        self.order: dict[str, SortedList] = {}
        # Per ordered kind, while `records` holds it in creation order (as a clock that only moves on
        # makes it): the newest creation put, in negated milliseconds; None once a record came late.
        self.newest: dict[str, int | None] = {}
        self.indexes: dict[tuple[str, str], dict[object, SortedList]] = {}
        self.timers: list[Timer] = []
        self.events: list[Event] = []  # in the order they happened
        self.event_index: dict[str, Event] = {}
        self.event_keys: set[tuple[str, str]] = set()
        self.counters: dict[str, tuple[int, int]] = {}
        self.counter_lock = threading.Lock()
        self.clock = clock
        self.ids: Entropy = SYSTEM  # where its new ids come from (ids.py)


@dataclass(frozen=True, slots=True)
class SpaceState:
    """A merchant's data as plain values: what a snapshot writes, and what a restore puts back."""

    records: dict[str, list[Any]]  # by kind, in the order they were first stored
    timers: list[tuple[datetime, str, str]]  # (due_at, kind, target_id), in the order they fire
    events: list[Event]  # the outbox, in the order the events happened
    event_keys: list[tuple[str, str]]  # (object_id, event_type): the events that may not happen again
    deliveries: list[tuple[str, bool]]  # (event_id, manual): queued for an attempt, the next first
    clock: ClockState
    ids: IdState | None  # a seeded stream of ids, or None for the system's randomness


@dataclass(frozen=True, slots=True)
class PreparedSpace:
    """A space built from a SpaceState, with its lists and indexes, ready to be swapped in."""

    space: _Space
    deliveries: list[tuple[str, bool]]
    ids: IdState | None


class MemoryStore(ClockStates):
    """The in-memory store, the default."""

    def __init__(self, collections: list[Collection], new_clock: Callable[[], ClockState]) -> None:
        self._collections = {c.kind: c for c in collections}
        self._spaces: dict[str, _Space] = {}
        self._spaces_lock = threading.Lock()
        self._new_clock = new_clock
        self._timer_seq = itertools.count()
        self._deliveries = DeliveryQueue()
        self._id_seed: int | None = None  # the seed of every merchant's ids, unless one is given its own

    # -- spaces and transactions --------------------------------------------------------------

    def _space(self, merchant_id: str) -> _Space:
        space = self._spaces.get(merchant_id)
        if space is None:
            with self._spaces_lock:
                space = self._spaces.get(merchant_id)
                if space is None:
                    space = _Space(self._new_clock())
                    if self._id_seed is not None:
                        space.ids = self._default_ids(merchant_id)
                    self._spaces[merchant_id] = space
        return space

    def transaction(self, merchant_id: str) -> AbstractContextManager[bool]:
        """Hold the merchant's lock, so that a read-modify-write sees no other writer."""
        return self._space(merchant_id).lock

    def merchant_ids(self) -> list[str]:
        return [m for m in list(self._spaces) if m != GLOBAL]

    # -- records ------------------------------------------------------------------------------

    def get(self, kind: str, merchant_id: str, record_id: str) -> Any:
        # No lock: a dict lookup is atomic, and a stored record is never changed in place.
        return self._space(merchant_id).records.get(kind, {}).get(record_id)

    def put(self, kind: str, merchant_id: str, record: Any) -> None:
        spec = self._collections[kind]
        record_id = getattr(record, spec.id_field)
        space = self._space(merchant_id)
        with space.lock:
            records = space.records.setdefault(kind, {})
            old = records.get(record_id)
            records[record_id] = record
            if not spec.ordered:
                return
            key = sort_key(getattr(record, spec.created_field), record_id)
            # A record put over one of another creation (a restore's) moves in the list order, in
            # this one step: a reader never finds it missing.
            old_key = None if old is None else sort_key(getattr(old, spec.created_field), record_id)
            if old_key != key:
                order = listed(space.order, kind)
                if old_key is not None:
                    order.remove(old_key)
                order.add(key)
                newest = space.newest.get(kind, key[0])
                late = newest is None or key[0] > newest or old_key is not None
                space.newest[kind] = None if late else key[0]
            for name in spec.indexed:
                value = getattr(record, name)
                old_value = getattr(old, name) if old is not None else None
                if old is not None and old_value == value and old_key == key:
                    continue
                index = space.indexes.setdefault((kind, name), {})
                if old_key is not None and old_value is not None:
                    index[old_value].remove(old_key)
                if value is not None:
                    listed(index, value).add(key)

    def delete(self, kind: str, merchant_id: str, record_id: str) -> None:
        spec = self._collections[kind]
        space = self._space(merchant_id)
        with space.lock:
            old = space.records.get(kind, {}).pop(record_id, None)
            if old is None or not spec.ordered:
                return
            key = sort_key(getattr(old, spec.created_field), record_id)
            space.order[kind].remove(key)
            for name in spec.indexed:
                value = getattr(old, name)
                if value is not None:
                    space.indexes[(kind, name)][value].remove(key)

    def all(self, kind: str, merchant_id: str) -> list[Any]:
        """Every record of a kind, in the order they were first put: for the few records of a kind
        kept out of list order."""
        space = self._space(merchant_id)
        with space.lock:
            return list(space.records.get(kind, {}).values())

    def count(self, kind: str, merchant_id: str) -> int:
        # No lock, as in get(): the length of a dict is read in one step.
        return len(self._space(merchant_id).records.get(kind, {}))

    def created_between(
        self, kind: str, merchant_id: str, gte: datetime, lte: datetime
    ) -> tuple[list[SortKey], list[Any]]:
        """Every record created in [gte, lte], newest first, and the keys of that slice of the list order.

        For reports over many records: one slice, no page; the keys hold the creation in milliseconds
        (negated), so a caller need not compute it from each record. Each record was created in the
        same millisecond as the key beside it; records of one millisecond may come in another order.
        While the records of the kind were stored in creation order, the slice is cut from them by
        position, which costs a fiftieth of looking each one up by id (measured over 100,000).
        """
        space = self._space(merchant_id)
        with space.lock:
            records = space.records.get(kind, {})
            order: SortedList | None = space.order.get(kind)
            if not order:
                return [], []
            first = order.bisect_left((-millis(lte),))
            last = order.bisect_left((-millis_up(gte) + 1,))
            keys = order[first:last]
            if space.newest.get(kind) is None:
                return keys, list(map(records.__getitem__, map(itemgetter(1), keys)))
            count = len(order)
            chosen = list(itertools.islice(records.values(), count - last, count - first))
            chosen.reverse()
            return keys, chosen

    def query(self, kind: str, merchant_id: str, query: Query) -> Page:
        """Return a page, newest first; indexed equality filters and the created range are cheap."""
        spec = self._collections[kind]
        space = self._space(merchant_id)
        with space.lock:
            records = space.records.get(kind, {})
            candidates: SortedList | None = space.order.get(kind)
            if not candidates:  # no record of this kind (as for the disputes of most payments)
                return Page([], 0)
            # A set of values (any of them matches) or a range is tested on each record, never looked up.
            rest = {
                name: value
                for name, value in query.where.items()
                if name not in spec.indexed or isinstance(value, _MANY)
            }
            indexed = [(name, value) for name, value in query.where.items() if name not in rest]
            narrowest: tuple[str, object] | None = None
            for name, value in indexed:
                listed = space.indexes.get((kind, name), {}).get(value)
                if listed is None:
                    return Page([], 0)
                if narrowest is None or len(listed) < len(candidates):
                    narrowest, candidates = (name, value), listed
            rest.update((name, value) for name, value in indexed if (name, value) != narrowest)
            start = 0 if query.created_lte is None else candidates.bisect_left((-millis(query.created_lte),))
            end = (
                len(candidates)
                if query.created_gte is None
                else candidates.bisect_left((-millis_up(query.created_gte) + 1,))
            )
            start, end = self._cursors(spec, records, candidates, query, start, end)
            if query.ending_before is not None:  # the page just before the cursor: the last ones
                matching = [
                    records[key[1]]
                    for key in candidates.islice(start, end)
                    if _matches(records[key[1]], rest)
                ]
                stop = max(0, len(matching) - query.offset)
                return Page(matching[max(0, stop - query.limit) : stop], len(matching))
            if not rest:
                total = max(0, end - start)
                keys = candidates.islice(start + query.offset, min(end, start + query.offset + query.limit))
                return Page([records[key[1]] for key in keys], total)
            items: list[Any] = []
            total = 0
            for key in candidates.islice(start, end):
                record = records[key[1]]
                if _matches(record, rest):
                    if query.offset <= total < query.offset + query.limit:
                        items.append(record)
                    total += 1
            return Page(items, total)

    @staticmethod
    def _cursors(
        spec: Collection, records: dict[str, Any], candidates: SortedList, query: Query, start: int, end: int
    ) -> tuple[int, int]:
        """Narrow [start, end) to what lies after `starting_after` and before `ending_before`."""
        for cursor, after in ((query.starting_after, True), (query.ending_before, False)):
            if cursor is None or cursor not in records:
                continue  # the caller checks that a cursor names a record
            record = records[cursor]
            key = sort_key(getattr(record, spec.created_field), cursor)
            if after:
                start = max(start, candidates.bisect_right(key))
            else:
                end = min(end, candidates.bisect_left(key))
        return start, end

    def clear(self, merchant_id: str, kinds: list[str]) -> None:
        """Delete the merchant's records of these kinds, its timers, events and counters."""
        space = self._space(merchant_id)
        with space.lock:
            for kind in kinds:
                space.records.pop(kind, None)
                space.order.pop(kind, None)
                space.newest.pop(kind, None)
                for key in [k for k in space.indexes if k[0] == kind]:
                    del space.indexes[key]
            space.timers.clear()
            space.events.clear()
            space.event_index.clear()
            space.event_keys.clear()
            space.counters.clear()
        self.drop_deliveries(merchant_id)

    # -- timers -------------------------------------------------------------------------------

    def schedule(self, merchant_id: str, due_at: datetime, kind: str, target_id: str) -> Timer:
        timer = Timer(due_at, next(self._timer_seq), kind, target_id)
        space = self._space(merchant_id)
        with space.lock:
            heapq.heappush(space.timers, timer)
        return timer

    def next_timer(self, merchant_id: str) -> Timer | None:
        space = self._space(merchant_id)
        with space.lock:
            return space.timers[0] if space.timers else None

    def pop_due_timer(self, merchant_id: str, until: datetime) -> Timer | None:
        space = self._space(merchant_id)
        with space.lock:
            if space.timers and space.timers[0].due_at <= until:
                return heapq.heappop(space.timers)
            return None

    def pending_timers(self, merchant_id: str) -> list[Timer]:
        space = self._space(merchant_id)
        with space.lock:
            return sorted(space.timers)

    # -- outbox -------------------------------------------------------------------------------

    def append_event(self, merchant_id: str, event: Event) -> bool:
        """Append to the outbox unless this object already had an event of this type."""
        space = self._space(merchant_id)
        with space.lock:
            key = (event.object_id, event.event_type)
            if key in space.event_keys:
                return False
            space.event_keys.add(key)
            space.events.append(event)
            space.event_index[event.event_id] = event
            return True

    def event(self, merchant_id: str, event_id: str) -> Event | None:
        return self._space(merchant_id).event_index.get(event_id)

    def events(self, merchant_id: str) -> list[Event]:
        space = self._space(merchant_id)
        with space.lock:
            return list(space.events)

    # -- the delivery queue -------------------------------------------------------------------

    def enqueue_delivery(self, merchant_id: str, event_id: str, *, manual: bool) -> None:
        self._deliveries.put(merchant_id, event_id, manual)

    def take_delivery(
        self, timeout: float, stopped: Callable[[], bool] = lambda: False
    ) -> tuple[str, str, bool] | None:
        return self._deliveries.take(timeout, stopped)

    def finish_delivery(self, merchant_id: str) -> None:
        self._deliveries.finish(merchant_id)

    def deliveries_pending(self, merchant_id: str) -> int:
        return self._deliveries.pending(merchant_id)

    def wait_deliveries_drained(self, merchant_id: str, timeout: float) -> bool:
        return self._deliveries.wait_drained(merchant_id, timeout)

    def wake_deliveries(self) -> None:
        self._deliveries.wake()

    def close_deliveries(self) -> None:
        self._deliveries.close()

    def open_deliveries(self) -> None:
        self._deliveries.open()

    def drop_deliveries(self, merchant_id: str) -> None:
        self._deliveries.drop(merchant_id)

    # -- counters (rate-limit windows) --------------------------------------------------------

    def increment(self, merchant_id: str, name: str, window: int) -> int:
        """Count one more in `window` for `name`; a new window starts again at one."""
        space = self._space(merchant_id)
        with space.counter_lock:  # not the merchant's lock: a hit must not wait for a transaction
            current_window, count = space.counters.get(name, (window, 0))
            count = count + 1 if current_window == window else 1
            space.counters[name] = (window, count)
            return count

    # -- clocks -------------------------------------------------------------------------------

    def clock_state(self, merchant_id: str) -> ClockState:
        space = self._space(merchant_id)
        return space.clock

    def change_clock_state(self, merchant_id: str, change: Callable[[ClockState], ClockState]) -> ClockState:
        space = self._space(merchant_id)
        with space.lock:
            space.clock = changed = change(space.clock)
            return changed

    # -- ids ----------------------------------------------------------------------------------

    def ids(self, merchant_id: str) -> Entropy:
        """Where the merchant's new ids come from."""
        return self._space(merchant_id).ids

    def seed_ids(self, merchant_id: str, state: IdState | None) -> None:
        """Draw the merchant's ids from a seeded stream from now on (None: the store's default)."""
        space = self._space(merchant_id)
        with space.lock:
            space.ids = self._default_ids(merchant_id) if state is None else SeededEntropy(state)

    def resume_ids(self, merchant_id: str, state: IdState | None) -> None:
        """Draw the merchant's ids as a restored document says (None: the store's default), never
        going back in a stream: where the stream of the same seed already stands farther on, it
        goes on from there, so that no id drawn since the document was written comes twice."""
        space = self._space(merchant_id)
        with space.lock:
            space.ids = self._resumed(merchant_id, space.ids, state)

    def _resumed(self, merchant_id: str, live: Entropy, state: IdState | None) -> Entropy:
        if state is None and self._id_seed is not None:
            state = IdState(self._id_seed, merchant_id)
        if state is None:
            return SYSTEM
        now = live.state()  # the same stream (seed and scope), farther on, goes on where it is
        if (
            now is not None
            and now.drawn > state.drawn
            and dataclasses.replace(now, drawn=state.drawn) == state
        ):
            state = now
        return SeededEntropy(state)

    def _default_ids(self, merchant_id: str) -> Entropy:
        """A merchant's ids unless it is given a seed of its own: the seed of all, or the system's."""
        seed = self._id_seed
        return SYSTEM if seed is None else SeededEntropy(IdState(seed, merchant_id))

    def seed_all_ids(self, seed: int) -> None:
        """Seed every merchant's ids, those of merchants to come included, each in a stream of its own."""
        with self._spaces_lock:
            self._id_seed = seed
            spaces = list(self._spaces.items())
        for merchant_id, space in spaces:
            with space.lock:
                space.ids = SeededEntropy(IdState(seed, merchant_id))

    # -- whole spaces: snapshots and restores -------------------------------------------------

    def dump_space(self, merchant_id: str) -> SpaceState:
        """Everything the merchant's space holds, as one consistent copy (records are immutable)."""
        space = self._space(merchant_id)
        with space.lock:
            return SpaceState(
                records={kind: list(records.values()) for kind, records in space.records.items() if records},
                timers=[(timer.due_at, timer.kind, timer.target_id) for timer in sorted(space.timers)],
                events=list(space.events),
                event_keys=sorted(space.event_keys),
                deliveries=self._deliveries.queued(merchant_id),
                clock=space.clock,
                ids=space.ids.state(),
            )

    def prepare_space(self, state: SpaceState) -> PreparedSpace:
        """A space built from `state`, with its lists and indexes, for `swap_space` to put in place.

        Built apart, with no lock held, so that a restore holds the locks only to swap it in.
        """
        scratch = MemoryStore(list(self._collections.values()), lambda: state.clock)
        for kind, records in state.records.items():
            for record in records:
                scratch.put(kind, GLOBAL, record)
        space = scratch._space(GLOBAL)
        space.timers = [Timer(due_at, 0, kind, target_id) for due_at, kind, target_id in state.timers]
        space.events = list(state.events)
        space.event_index = {event.event_id: event for event in state.events}
        space.event_keys = set(state.event_keys)
        return PreparedSpace(space, list(state.deliveries), state.ids)

    def swap_space(self, merchant_id: str, prepared: PreparedSpace) -> None:
        """Replace the merchant's data with a prepared space, and queue its deliveries again."""
        built = prepared.space
        space = self._space(merchant_id)
        with space.lock:
            space.records, space.order, space.indexes = built.records, built.order, built.indexes
            space.newest = built.newest
            # Fresh sequence numbers, in the order the timers were listed: ties keep their order.
            space.timers = [Timer(t.due_at, next(self._timer_seq), t.kind, t.target_id) for t in built.timers]
            heapq.heapify(space.timers)
            space.events, space.event_index = built.events, built.event_index
            space.event_keys = built.event_keys
            with space.counter_lock:
                space.counters = {}
            space.clock = built.clock
            space.ids = self._resumed(merchant_id, space.ids, prepared.ids)
            self._deliveries.drop(merchant_id)
            for event_id, manual in prepared.deliveries:
                self._deliveries.put(merchant_id, event_id, manual)

    def remove_space(self, merchant_id: str) -> None:
        """Forget everything of the merchant's space, and the space itself."""
        with self._spaces_lock:
            space = self._spaces.pop(merchant_id, None)
        if space is None:
            return
        with space.lock:
            space.records, space.order, space.indexes, space.timers = {}, {}, {}, []
            space.events, space.event_index, space.event_keys = [], {}, set()
        self._deliveries.drop(merchant_id)


_MANY = (frozenset, Between)  # where values that match more than one value


def _matches(record: Any, where: Mapping[str, object]) -> bool:
    """Whether the record has each value `where` names: that value, one of a set of them, or one
    in a range."""
    for name, wanted in where.items():
        value = getattr(record, name)
        if not (value in wanted if isinstance(wanted, _MANY) else value == wanted):
            return False
    return True
