"""The in-memory store: records by kind and merchant, timers, outbox, counters, clocks.

Records are immutable plain data; a change puts a new copy. A merchant's data is guarded by one
re-entrant lock, taken by every call and held across a read-modify-write by `transaction()`.

A merchant's space is opened when the merchant is made (`open_space`) or restored, and removed with
it. A read of a merchant without one finds nothing and leaves nothing behind (a page that names an
unknown merchant); a write to one is refused as a merchant not found (a request still running when
its merchant was deleted), so that no space comes back for a merchant that is gone.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any

from mocksrv.domain.clock import ClockState, ClockStates
from mocksrv.domain.errors import ResourceNotFound
from mocksrv.domain.events import Event
from mocksrv.domain.ids import SYSTEM, Entropy, IdState, SeededEntropy
from mocksrv.domain.models import Page
from mocksrv.domain.store.deliveries import DeliveryQueue, Turn
from mocksrv.domain.store.records import (
    GLOBAL,
    Collection,
    Query,
    SortKey,
    Timer,
    listed,
    sort_key,
)
from mocksrv.domain.store.space import PreparedSpace, Space, SpaceState, created_between, page_of


class MemoryStore(ClockStates):
    """The in-memory store, the default."""

    def __init__(self, collections: list[Collection], new_clock: Callable[[], ClockState]) -> None:
        self._collections = {c.kind: c for c in collections}
        self._spaces: dict[str, Space] = {}
        self._spaces_lock = threading.Lock()
        self._new_clock = new_clock
        self._timer_seq = itertools.count()
        self._deliveries = DeliveryQueue()
        self._id_seed: int | None = None  # the seed of every merchant's ids, unless one is given its own
        self.open_space(GLOBAL)

    # -- spaces and transactions --------------------------------------------------------------

    def open_space(self, merchant_id: str) -> None:
        """Make the merchant's space, if it has none."""
        with self._spaces_lock:
            if merchant_id not in self._spaces:
                space = Space(self._new_clock())
                if self._id_seed is not None:
                    space.ids = self._default_ids(merchant_id)
                self._spaces[merchant_id] = space

    def _space(self, merchant_id: str) -> Space:
        """The merchant's space, to read: an empty one, kept nowhere, for a merchant without one."""
        space = self._spaces.get(merchant_id)
        return Space(self._new_clock()) if space is None else space

    def _held(self, merchant_id: str) -> Space:
        """The merchant's space, to write: refused (HE_02) for a merchant without one."""
        space = self._spaces.get(merchant_id)
        if space is None:
            raise ResourceNotFound("Merchant")
        return space

    def transaction(self, merchant_id: str) -> AbstractContextManager[bool]:
        """Hold the merchant's lock, so that a read-modify-write sees no other writer."""
        return self._space(merchant_id).lock

    def merchant_ids(self) -> list[str]:
        return [m for m in list(self._spaces) if m != GLOBAL]

    @contextmanager
    def transaction_if_held(self, merchant_id: str) -> Iterator[bool]:
        """`transaction`, for a merchant that has a space: True while its lock is held, False when it
        has none. A space is removed only under its lock, so it stays for the whole transaction."""
        space = self._spaces.get(merchant_id)
        if space is None:
            yield False
            return
        with space.lock:
            yield self._spaces.get(merchant_id) is space

    # -- records ------------------------------------------------------------------------------

    def get(self, kind: str, merchant_id: str, record_id: str) -> Any:
        # No lock: a dict lookup is atomic, and a stored record is never changed in place.
        return self._space(merchant_id).records.get(kind, {}).get(record_id)

    def put(self, kind: str, merchant_id: str, record: Any) -> None:
        spec = self._collections[kind]
        record_id = getattr(record, spec.id_field)
        space = self._held(merchant_id)
        with space.lock:
            space.changes += 1
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
        space = self._held(merchant_id)
        with space.lock:
            space.changes += 1
            old = space.records.get(kind, {}).pop(record_id, None)
            if old is None or not spec.ordered:
                return
            key = sort_key(getattr(old, spec.created_field), record_id)
            space.order[kind].remove(key)
            for name in spec.indexed:
                value = getattr(old, name)
                if value is not None:
                    index = space.indexes[(kind, name)]
                    index[value].remove(key)
                    if not index[value]:  # no list kept for a value no record holds (a merchant deleted)
                        del index[value]

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
        """Every record created in [gte, lte], newest first, and the keys of that slice of the list
        order (`space.created_between`)."""
        space = self._space(merchant_id)
        with space.lock:
            return created_between(space, kind, gte, lte)

    def missing_cursor(self, kind: str, merchant_id: str, query: Query) -> str | None:
        """The name of the query's cursor (`starting_after`, `ending_before`) that names no record
        of the kind, if one does: for the caller to refuse, as `query` passes over it."""
        for name in ("starting_after", "ending_before"):
            cursor = getattr(query, name)
            if cursor is not None and self.get(kind, merchant_id, cursor) is None:
                return name
        return None

    def query(self, kind: str, merchant_id: str, query: Query) -> Page:
        """Return a page, newest first (`space.page_of`)."""
        space = self._space(merchant_id)
        with space.lock:
            return page_of(space, self._collections[kind], query)

    def clear(self, merchant_id: str, kinds: list[str]) -> None:
        """Delete the merchant's records of these kinds, its timers, events and counters."""
        space = self._held(merchant_id)
        with space.lock:
            space.changes += 1
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
        space = self._held(merchant_id)
        with space.lock:
            space.changes += 1
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
        space = self._held(merchant_id)
        with space.lock:
            key = (event.object_id, event.event_type)
            if key in space.event_keys:
                return False
            space.changes += 1
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
        space = self._spaces.get(merchant_id)
        if space is not None:
            with space.lock:
                space.changes += 1  # a delivery to make is a change too, as a timer firing counts them
        self._deliveries.put(merchant_id, event_id, manual)

    def take_delivery(self, timeout: float, stopped: Callable[[], bool] = lambda: False) -> Turn | None:
        return self._deliveries.take(timeout, stopped)

    def finish_delivery(self, turn: Turn) -> None:
        self._deliveries.finish(turn)

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
        space = self._held(merchant_id)
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
        space = self._held(merchant_id)
        with space.lock:
            space.clock = changed = change(space.clock)
            return changed

    # -- ids ----------------------------------------------------------------------------------

    def ids(self, merchant_id: str) -> Entropy:
        """Where the merchant's new ids come from."""
        return self._space(merchant_id).ids

    def own_changes(self, merchant_id: str) -> int:
        """`changes`, of the merchant's own space alone: what its lock keeps every other writer from."""
        return self._space(merchant_id).changes

    def changes(self, merchant_id: str) -> int:
        """How many times the merchant's records, events, timers or deliveries to make changed, or the
        records of no single merchant (its API keys among them): what a request that gives back the
        ids it drew must not have done (a record may hold one of them)."""
        return self._space(merchant_id).changes + self._space(GLOBAL).changes

    def seed_ids(self, merchant_id: str, state: IdState | None) -> None:
        """Draw the merchant's ids from a seeded stream from now on (None: the store's default)."""
        space = self._held(merchant_id)
        with space.lock:
            space.ids = self._default_ids(merchant_id) if state is None else SeededEntropy(state)

    def resume_ids(self, merchant_id: str, state: IdState | None) -> None:
        """Draw the merchant's ids as a restored document says (None: the store's default), never
        going back in a stream: where the stream of the same seed already stands farther on, it
        goes on from there, so that no id drawn since the document was written comes twice."""
        space = self._held(merchant_id)
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
        space = scratch._held(GLOBAL)
        space.timers = [Timer(due_at, 0, kind, target_id) for due_at, kind, target_id in state.timers]
        space.events = list(state.events)
        space.event_index = {event.event_id: event for event in state.events}
        space.event_keys = set(state.event_keys)
        return PreparedSpace(space, list(state.deliveries), state.ids)

    def swap_space(self, merchant_id: str, prepared: PreparedSpace) -> None:
        """Replace the merchant's data with a prepared space, and queue its deliveries again."""
        built = prepared.space
        self.open_space(merchant_id)
        space = self._held(merchant_id)
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
        space = self._spaces.get(merchant_id)
        if space is None:
            return
        with space.lock:  # a transaction of the space ends before it goes (`transaction_if_held`)
            with self._spaces_lock:
                if self._spaces.get(merchant_id) is space:
                    del self._spaces[merchant_id]
            space.records, space.order, space.indexes, space.timers = {}, {}, {}, []
            space.events, space.event_index, space.event_keys = [], {}, set()
        self._deliveries.drop(merchant_id)
