"""MemoryStore: records, the list order and filters, indexes, timers, outbox, counters, the delivery queue."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

import pytest

from mocksrv.domain.clock import ClockState, initial_state
from mocksrv.domain.errors import ResourceNotFound
from mocksrv.domain.events import ContentType, Event
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.domain.store import Collection, DeliveryQueue, MemoryStore, Query, sort_key
from tests.e2e.harness import poll
from tests.unit.fakes import T0, FakeSystemTime, at

THING = "thing"
NOTE = "note"

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Thing:
    thing_id: str
    created: datetime
    status: str | None = "open"
    color: str | None = "red"
    size: int = 1  # not indexed


@dataclass(frozen=True, slots=True)
class Note:
    note_id: str
    written: datetime


@pytest.fixture
def store() -> MemoryStore:
    collections = [
        Collection(THING, "thing_id", indexed=("status", "color")),
        Collection(NOTE, "note_id", created_field="written"),
    ]
    store = MemoryStore(collections, lambda: initial_state(FakeSystemTime()))
    for merchant_id in ("m1", "m2"):  # the global space ("*") is opened with the store
        store.open_space(merchant_id)
    return store


def put(store: MemoryStore, *things: Thing, merchant_id: str = "m1") -> None:
    for thing in things:
        store.put(THING, merchant_id, thing)


def ids(store: MemoryStore, query: Query, merchant_id: str = "m1") -> list[str]:
    return [thing.thing_id for thing in store.query(THING, merchant_id, query).items]


def event(object_id: str, event_type: str) -> Event:
    return Event(
        f"evt_{object_id}_{event_type}", "m1", event_type, ContentType.PAYMENT_DETAILS, object_id, T0, None
    )


# -- records ---------------------------------------------------------------------------------------


def test_get_returns_what_was_put(store: MemoryStore) -> None:
    thing = Thing("t1", T0)
    put(store, thing)
    assert store.get(THING, "m1", "t1") == thing


def test_get_of_an_unknown_id_is_none(store: MemoryStore) -> None:
    assert store.get(THING, "m1", "nothing") is None


def test_put_of_the_same_id_replaces_the_record(store: MemoryStore) -> None:
    put(store, Thing("t1", T0, size=1), Thing("t1", T0, size=2))
    assert (store.get(THING, "m1", "t1").size, store.count(THING, "m1")) == (2, 1)


def test_records_of_one_merchant_are_invisible_to_another(store: MemoryStore) -> None:
    put(store, Thing("t1", T0), merchant_id="m1")
    assert store.get(THING, "m2", "t1") is None
    assert store.query(THING, "m2", Query()).total_count == 0


def test_count_counts_the_merchants_records_of_a_kind(store: MemoryStore) -> None:
    put(store, Thing("t1", T0), Thing("t2", T0))
    store.put(NOTE, "m1", Note("n1", T0))
    assert (store.count(THING, "m1"), store.count(NOTE, "m1"), store.count(THING, "m2")) == (2, 1, 0)


def test_delete_removes_the_record(store: MemoryStore) -> None:
    put(store, Thing("t1", T0), Thing("t2", T0))
    store.delete(THING, "m1", "t1")
    assert store.get(THING, "m1", "t1") is None
    assert (ids(store, Query()), store.count(THING, "m1")) == (["t2"], 1)


def test_delete_removes_the_record_from_its_indexes(store: MemoryStore) -> None:
    put(store, Thing("t1", T0, status="open"), Thing("t2", T0, status="open"))
    store.delete(THING, "m1", "t1")
    page = store.query(THING, "m1", Query({"status": "open"}))
    assert ([t.thing_id for t in page.items], page.total_count) == (["t2"], 1)


def test_delete_of_an_unknown_id_does_nothing(store: MemoryStore) -> None:
    put(store, Thing("t1", T0))
    store.delete(THING, "m1", "nothing")
    assert ids(store, Query()) == ["t1"]


def test_deleted_id_can_be_put_again(store: MemoryStore) -> None:
    put(store, Thing("t1", T0))
    store.delete(THING, "m1", "t1")
    put(store, Thing("t1", at(5)))
    assert ids(store, Query({"status": "open"})) == ["t1"]


# -- order -----------------------------------------------------------------------------------------


def test_query_lists_newest_first(store: MemoryStore) -> None:
    put(store, Thing("a", at(1)), Thing("b", at(3)), Thing("c", at(2)))
    assert ids(store, Query()) == ["b", "c", "a"]


def test_query_breaks_ties_by_id_ascending(store: MemoryStore) -> None:
    put(store, Thing("t3", T0), Thing("t1", T0), Thing("t2", T0))
    assert ids(store, Query()) == ["t1", "t2", "t3"]


def test_query_orders_by_the_collections_creation_field(store: MemoryStore) -> None:
    store.put(NOTE, "m1", Note("old", at(1)))
    store.put(NOTE, "m1", Note("new", at(2)))
    assert [n.note_id for n in store.query(NOTE, "m1", Query()).items] == ["new", "old"]


def test_sort_key_is_newest_first_then_id() -> None:
    assert sorted([sort_key(at(1), "b"), sort_key(at(2), "z"), sort_key(at(1), "a")]) == [
        sort_key(at(2), "z"),
        sort_key(at(1), "a"),
        sort_key(at(1), "b"),
    ]


def test_replacing_a_record_keeps_its_place(store: MemoryStore) -> None:
    put(store, Thing("a", at(1)), Thing("b", at(2)))
    put(store, Thing("a", at(1), size=9))
    assert ids(store, Query()) == ["b", "a"]


# -- created range ---------------------------------------------------------------------------------


@pytest.fixture
def timeline(store: MemoryStore) -> MemoryStore:
    """Five things created one second apart, t0 at T0 to t4 at T0 + 4 s."""
    put(store, *(Thing(f"t{i}", at(i)) for i in range(5)))
    return store


def test_created_gte_is_inclusive(timeline: MemoryStore) -> None:
    assert ids(timeline, Query(created_gte=at(3))) == ["t4", "t3"]


def test_created_lte_is_inclusive(timeline: MemoryStore) -> None:
    assert ids(timeline, Query(created_lte=at(1))) == ["t1", "t0"]


def test_created_range_is_inclusive_at_both_ends(timeline: MemoryStore) -> None:
    page = timeline.query(THING, "m1", Query(created_gte=at(1), created_lte=at(3)))
    assert ([t.thing_id for t in page.items], page.total_count) == (["t3", "t2", "t1"], 3)


def test_created_range_between_records_is_empty(timeline: MemoryStore) -> None:
    page = timeline.query(THING, "m1", Query(created_gte=at(1.5), created_lte=at(1.9)))
    assert (page.items, page.total_count) == ([], 0)


def test_created_range_of_one_instant_keeps_every_tie(store: MemoryStore) -> None:
    put(store, Thing("b", at(1)), Thing("a", at(1)), Thing("c", at(2)))
    assert ids(store, Query(created_gte=at(1), created_lte=at(1))) == ["a", "b"]


def test_inverted_created_range_is_empty(timeline: MemoryStore) -> None:
    page = timeline.query(THING, "m1", Query(created_gte=at(3), created_lte=at(1)))
    assert (page.items, page.total_count) == ([], 0)


def test_created_gte_between_milliseconds_excludes_the_earlier_millisecond(timeline: MemoryStore) -> None:
    # t3 was created at T0 + 3 s exactly, which is before T0 + 3.0005 s: not "on or after" it.
    assert ids(timeline, Query(created_gte=at(3.0005))) == ["t4"]


def test_created_lte_between_milliseconds_includes_the_earlier_millisecond(timeline: MemoryStore) -> None:
    assert ids(timeline, Query(created_lte=at(1.0005))) == ["t1", "t0"]


def between(store: MemoryStore, first: float, last: float) -> tuple[list[str], list[str]]:
    """The ids of the keys and of the records `created_between` answers, in its order."""
    keys, records = store.created_between(THING, "m1", at(first), at(last))
    return [key[1] for key in keys], [thing.thing_id for thing in records]


def test_created_between_answers_the_slice_newest_first_when_stored_in_creation_order(
    timeline: MemoryStore,
) -> None:
    timeline.delete(THING, "m1", "t2")
    put(timeline, replace(Thing("t3", at(3)), status="closed"))  # a new copy keeps its place

    assert between(timeline, 1, 3) == (["t3", "t1"], ["t3", "t1"])
    assert between(timeline, 0, 4) == (["t4", "t3", "t1", "t0"], ["t4", "t3", "t1", "t0"])
    assert between(timeline, 4.5, 9) == ([], [])
    _, records = timeline.created_between(THING, "m1", at(3), at(3))
    assert records == [Thing("t3", at(3), status="closed")]


def test_created_between_answers_the_same_once_a_record_is_stored_out_of_creation_order(
    timeline: MemoryStore,
) -> None:
    put(timeline, Thing("late", at(2.5)), Thing("t5", at(5)))

    assert between(timeline, 2, 5) == (["t5", "t4", "t3", "late", "t2"], ["t5", "t4", "t3", "late", "t2"])
    assert between(timeline, 0, 0.5) == (["t0"], ["t0"])


def test_created_between_pairs_each_record_with_a_key_of_its_millisecond(store: MemoryStore) -> None:
    put(store, Thing("b", at(1)), Thing("a", at(1)), Thing("c", at(2)))

    keys, records = store.created_between(THING, "m1", at(0), at(5))
    assert [key[1] for key in keys] == ["c", "a", "b"]
    assert [sort_key(thing.created, thing.thing_id)[0] for thing in records] == [key[0] for key in keys]
    assert sorted(thing.thing_id for thing in records) == ["a", "b", "c"]


def test_created_between_after_a_clear_is_in_order_again(timeline: MemoryStore) -> None:
    put(timeline, Thing("late", at(0.5)))
    timeline.clear("m1", [THING])
    put(timeline, Thing("n0", at(7)), Thing("n1", at(8)))

    assert between(timeline, 0, 9) == (["n1", "n0"], ["n1", "n0"])


# -- filters ---------------------------------------------------------------------------------------


@pytest.fixture
def mixed(store: MemoryStore) -> MemoryStore:
    put(
        store,
        Thing("a", at(1), status="open", color="red", size=1),
        Thing("b", at(2), status="open", color="blue", size=2),
        Thing("c", at(3), status="closed", color="red", size=2),
        Thing("d", at(4), status="open", color="red", size=2),
        Thing("e", at(5), status="open", color="red", size=1),
    )
    return store


def test_indexed_filter_keeps_equal_records(mixed: MemoryStore) -> None:
    assert ids(mixed, Query({"status": "open"})) == ["e", "d", "b", "a"]


def test_two_indexed_filters_combine(mixed: MemoryStore) -> None:
    assert ids(mixed, Query({"status": "open", "color": "red"})) == ["e", "d", "a"]


def test_non_indexed_filter_keeps_equal_records(mixed: MemoryStore) -> None:
    assert ids(mixed, Query({"size": 2})) == ["d", "c", "b"]


def test_indexed_and_non_indexed_filters_combine(mixed: MemoryStore) -> None:
    page = mixed.query(THING, "m1", Query({"status": "open", "size": 2}))
    assert ([t.thing_id for t in page.items], page.total_count) == (["d", "b"], 2)


def test_filters_combine_with_the_created_range(mixed: MemoryStore) -> None:
    query = Query({"color": "red", "size": 2}, created_gte=at(2), created_lte=at(4))
    assert ids(mixed, query) == ["d", "c"]


def test_filter_on_a_value_nobody_has_is_empty(mixed: MemoryStore) -> None:
    page = mixed.query(THING, "m1", Query({"status": "archived"}))
    assert (page.items, page.total_count) == ([], 0)


def test_indexed_filter_matches_enum_and_string_alike(store: MemoryStore) -> None:
    put(store, Thing("a", T0, status=PaymentStatus.SUCCEEDED))
    assert ids(store, Query({"status": "succeeded"})) == ["a"]


# -- offset, limit, total_count --------------------------------------------------------------------


def test_limit_cuts_the_page(timeline: MemoryStore) -> None:
    assert ids(timeline, Query(limit=2)) == ["t4", "t3"]


def test_offset_skips_the_newest(timeline: MemoryStore) -> None:
    assert ids(timeline, Query(limit=2, offset=2)) == ["t2", "t1"]


def test_total_count_counts_every_match_beyond_the_page(timeline: MemoryStore) -> None:
    assert timeline.query(THING, "m1", Query(limit=2, offset=1)).total_count == 5


def test_offset_past_the_end_gives_an_empty_page_and_the_total(timeline: MemoryStore) -> None:
    page = timeline.query(THING, "m1", Query(limit=10, offset=7))
    assert (page.items, page.total_count) == ([], 5)


def test_last_page_is_short(timeline: MemoryStore) -> None:
    assert ids(timeline, Query(limit=3, offset=3)) == ["t1", "t0"]


def test_offset_and_limit_apply_after_a_non_indexed_filter(mixed: MemoryStore) -> None:
    page = mixed.query(THING, "m1", Query({"size": 2}, limit=1, offset=1))
    assert ([t.thing_id for t in page.items], page.total_count) == (["c"], 3)


def test_offset_and_limit_apply_inside_the_created_range(timeline: MemoryStore) -> None:
    page = timeline.query(THING, "m1", Query(created_gte=at(1), created_lte=at(3), limit=1, offset=1))
    assert ([t.thing_id for t in page.items], page.total_count) == (["t2"], 3)


def test_offset_and_limit_apply_after_an_indexed_filter(mixed: MemoryStore) -> None:
    page = mixed.query(THING, "m1", Query({"status": "open"}, limit=2, offset=1))
    assert ([t.thing_id for t in page.items], page.total_count) == (["d", "b"], 4)


# -- index maintenance -----------------------------------------------------------------------------


def test_changed_status_leaves_the_old_status_index(store: MemoryStore) -> None:
    thing = Thing("a", T0, status="open")
    put(store, thing)
    put(store, replace(thing, status="closed"))
    assert store.query(THING, "m1", Query({"status": "open"})).total_count == 0


def test_changed_status_joins_the_new_status_index(store: MemoryStore) -> None:
    thing = Thing("a", T0, status="open")
    put(store, thing)
    put(store, replace(thing, status="closed"))
    assert ids(store, Query({"status": "closed"})) == ["a"]


def test_changed_status_keeps_the_other_indexes(store: MemoryStore) -> None:
    thing = Thing("a", T0, status="open", color="red")
    put(store, thing)
    put(store, replace(thing, status="closed"))
    assert ids(store, Query({"color": "red", "status": "closed"})) == ["a"]


def test_indexed_value_set_to_none_leaves_the_index(store: MemoryStore) -> None:
    thing = Thing("a", T0, color="red")
    put(store, thing)
    put(store, replace(thing, color=None))
    assert store.query(THING, "m1", Query({"color": "red"})).total_count == 0


def test_indexed_value_set_from_none_joins_the_index(store: MemoryStore) -> None:
    thing = Thing("a", T0, color=None)
    put(store, thing)
    put(store, replace(thing, color="green"))
    assert ids(store, Query({"color": "green"})) == ["a"]


def test_status_changing_back_and_forth_is_listed_once(store: MemoryStore) -> None:
    thing = Thing("a", T0, status="open")
    put(store, thing, replace(thing, status="closed"), replace(thing, status="open"))
    page = store.query(THING, "m1", Query({"status": "open"}))
    assert ([t.thing_id for t in page.items], page.total_count) == (["a"], 1)


# -- clear -----------------------------------------------------------------------------------------


def test_clear_deletes_the_listed_kinds(store: MemoryStore) -> None:
    put(store, Thing("a", T0))
    store.clear("m1", [THING])
    assert (store.get(THING, "m1", "a"), store.count(THING, "m1")) == (None, 0)
    assert store.query(THING, "m1", Query({"status": "open"})).total_count == 0


def test_clear_keeps_other_kinds(store: MemoryStore) -> None:
    store.put(NOTE, "m1", Note("n", T0))
    store.clear("m1", [THING])
    assert store.get(NOTE, "m1", "n") == Note("n", T0)


def test_clear_keeps_other_merchants(store: MemoryStore) -> None:
    put(store, Thing("a", T0), merchant_id="m2")
    store.clear("m1", [THING])
    assert store.count(THING, "m2") == 1


def test_clear_drops_timers_events_and_counters(store: MemoryStore) -> None:
    store.schedule("m1", at(5), "k", "a")
    store.append_event("m1", event("a", "payment_succeeded"))
    store.increment("m1", "rate:key", 7)
    store.clear("m1", [THING])
    assert (store.pending_timers("m1"), store.events("m1"), store.increment("m1", "rate:key", 7)) == (
        [],
        [],
        1,
    )


def test_clear_forgets_which_events_were_sent(store: MemoryStore) -> None:
    store.append_event("m1", event("a", "payment_succeeded"))
    store.clear("m1", [THING])
    assert store.append_event("m1", event("a", "payment_succeeded")) is True


def test_clear_keeps_the_clock(store: MemoryStore) -> None:
    moved = ClockState(base=at(100), anchor=T0, frozen=True)
    store.change_clock_state("m1", lambda state: moved)
    store.clear("m1", [THING])
    assert store.clock_state("m1") == moved


def test_records_can_be_put_after_clear(store: MemoryStore) -> None:
    put(store, Thing("a", T0))
    store.clear("m1", [THING])
    put(store, Thing("b", T0))
    assert ids(store, Query({"status": "open"})) == ["b"]


# -- timers ----------------------------------------------------------------------------------------


def test_pending_timers_are_in_due_order(store: MemoryStore) -> None:
    store.schedule("m1", at(20), "k", "late")
    store.schedule("m1", at(10), "k", "early")
    assert [t.target_id for t in store.pending_timers("m1")] == ["early", "late"]


def test_next_timer_is_the_earliest(store: MemoryStore) -> None:
    store.schedule("m1", at(20), "k", "late")
    store.schedule("m1", at(10), "k", "early")
    assert store.next_timer("m1").target_id == "early"


def test_pop_due_timer_takes_only_what_is_due(store: MemoryStore) -> None:
    store.schedule("m1", at(10), "k", "a")
    store.schedule("m1", at(20), "k", "b")
    assert store.pop_due_timer("m1", at(15)).target_id == "a"
    assert store.pop_due_timer("m1", at(15)) is None


def test_next_timer_of_a_merchant_without_timers_is_none(store: MemoryStore) -> None:
    assert store.next_timer("m1") is None


# -- outbox ----------------------------------------------------------------------------------------


def test_append_event_keeps_events_in_order(store: MemoryStore) -> None:
    first, second = event("a", "payment_authorized"), event("a", "payment_succeeded")
    store.append_event("m1", first)
    store.append_event("m1", second)
    assert store.events("m1") == [first, second]


def test_second_event_of_the_same_object_and_type_is_dropped(store: MemoryStore) -> None:
    store.append_event("m1", event("a", "payment_captured"))
    assert store.append_event("m1", event("a", "payment_captured")) is False
    assert len(store.events("m1")) == 1


def test_same_event_type_for_another_object_is_kept(store: MemoryStore) -> None:
    store.append_event("m1", event("a", "payment_captured"))
    assert store.append_event("m1", event("b", "payment_captured")) is True


# -- counters --------------------------------------------------------------------------------------


def test_increment_counts_within_a_window(store: MemoryStore) -> None:
    assert [store.increment("m1", "rate:k", 5) for _ in range(3)] == [1, 2, 3]


def test_increment_starts_again_in_a_new_window(store: MemoryStore) -> None:
    store.increment("m1", "rate:k", 5)
    store.increment("m1", "rate:k", 5)
    assert store.increment("m1", "rate:k", 6) == 1


def test_increment_counts_names_apart(store: MemoryStore) -> None:
    store.increment("m1", "rate:k1", 5)
    assert store.increment("m1", "rate:k2", 5) == 1


# -- spaces ----------------------------------------------------------------------------------------


def test_merchant_ids_lists_spaces_but_not_the_global_one(store: MemoryStore) -> None:
    put(store, Thing("a", T0), merchant_id="m1")
    put(store, Thing("a", T0), merchant_id="*")
    assert sorted(store.merchant_ids()) == ["m1", "m2"]


def test_a_transaction_if_held_makes_no_space_for_a_merchant_without_one(store: MemoryStore) -> None:
    with store.transaction_if_held("ghost") as held:
        assert held is False
    assert "ghost" not in store.merchant_ids()


def test_a_transaction_if_held_that_waited_while_its_space_was_removed_holds_nothing(
    store: MemoryStore,
) -> None:
    put(store, Thing("a", T0))
    seen: list[bool] = []

    def attempt() -> None:
        with store.transaction_if_held("m1") as held:
            seen.append(held)
            if held:
                put(store, Thing("b", T0))

    with store.transaction("m1"):
        waiting = threading.Thread(target=attempt, daemon=True)
        waiting.start()
        came = poll(
            lambda: waits_in(waiting, "transaction_if_held"), bool, timeout=DEADLINE, max_attempts=10**8
        )
        assert came, "the attempt never came to wait for the lock"
        store.remove_space("m1")  # the lock is re-entrant: this thread holds it
    waiting.join(DEADLINE)
    assert seen == [False]
    assert store.merchant_ids() == ["m2"]


def waits_in(thread: threading.Thread, function: str) -> bool:
    """Whether the thread's innermost frame runs `function`."""
    frame = sys._current_frames().get(thread.ident or 0)
    return frame is not None and frame.f_code.co_name == function


# -- the delivery queue ----------------------------------------------------------------------------

PROMPTLY = 1.0  # seconds: a call that is to answer at once answers well within this
DEADLINE = 10.0  # seconds a call on another thread may take to answer on a loaded machine
LONG = 60.0  # the timeout of a wait that closing must cut short: never reached when it does


def never() -> bool:
    return False


def answered_in(call: Callable[[], T]) -> tuple[T, float]:
    """What `call` answered, and how many seconds it took."""
    started = time.monotonic()
    answer = call()
    return answer, time.monotonic() - started


def in_thread(call: Callable[[], T]) -> Callable[[], T]:
    """Run `call` on a thread of its own now; the function returned waits DEADLINE s for its answer."""
    answers: list[T] = []
    thread = threading.Thread(target=lambda: answers.append(call()), daemon=True)
    thread.start()

    def answer() -> T:
        thread.join(DEADLINE)
        assert answers, "the call did not answer in time"
        return answers[0]

    return answer


@pytest.fixture
def queue() -> DeliveryQueue:
    return DeliveryQueue()


def taken(queue: DeliveryQueue) -> tuple[str, str, bool] | None:
    """The next delivery taken at once, as (merchant, event, manual); None if none is ready."""
    turn = queue.take(0, never)
    return None if turn is None else (turn.merchant_id, turn.event_id, turn.manual)


def test_a_merchants_deliveries_are_taken_one_at_a_time_in_order(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)
    queue.put("m1", "evt_2", True)

    first = queue.take(0, never)
    held_back = queue.take(0, never)
    assert first is not None
    queue.finish(first)
    second = taken(queue)

    assert ((first.merchant_id, first.event_id, first.manual), held_back, second) == (
        ("m1", "evt_1", False),
        None,
        ("m1", "evt_2", True),
    )


def test_a_dropped_merchants_attempt_in_flight_holds_up_nothing_after_it(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)
    old = queue.take(0, never)
    assert old is not None

    queue.drop("m1")  # a reset, or the merchant deleted, while the attempt is in flight
    drained = queue.wait_drained("m1", 0)
    queue.put("m1", "evt_new", False)
    new = queue.take(0, never)
    assert new is not None
    queue.put("m1", "evt_next", False)
    queue.finish(old)  # the old attempt ends: the new one is still in flight

    assert drained is True
    assert (new.event_id, taken(queue), queue.pending("m1")) == ("evt_new", None, 2)
    queue.finish(new)
    assert taken(queue) == ("m1", "evt_next", False)


def test_dropping_a_merchant_answers_its_waits_for_drained_deliveries(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)
    queue.take(0, never)
    waited = in_thread(lambda: queue.wait_drained("m1", LONG))

    queue.drop("m1")

    assert waited() is True


def test_a_closed_queue_hands_out_nothing_at_once(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)

    queue.close()

    task, seconds = answered_in(lambda: queue.take(LONG, never))
    assert task is None
    assert seconds < PROMPTLY
    assert queue.pending("m1") == 1


def test_closing_wakes_a_waiting_taker_with_nothing(queue: DeliveryQueue) -> None:
    taken = in_thread(lambda: queue.take(LONG, never))

    queue.close()

    assert taken() is None


def test_after_close_a_wait_for_drained_deliveries_answers_false_at_once(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)
    queue.close()

    drained, seconds = answered_in(lambda: queue.wait_drained("m1", LONG))

    assert drained is False
    assert seconds < PROMPTLY


def test_after_close_even_a_merchant_with_nothing_queued_is_not_drained(queue: DeliveryQueue) -> None:
    queue.close()

    assert queue.wait_drained("m1", LONG) is False


def test_closing_answers_a_wait_for_drained_deliveries_under_way(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)
    waited = in_thread(lambda: queue.wait_drained("m1", LONG))

    queue.close()

    assert waited() is False


def test_closing_puts_the_delivery_in_flight_back_first_in_its_queue(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)
    queue.put("m1", "evt_2", False)
    queue.take(0, never)

    queue.close()
    queue.open()

    assert queue.pending("m1") == 2
    assert taken(queue) == ("m1", "evt_1", False)


def test_a_finish_after_close_lets_no_second_delivery_of_the_merchant_go(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)
    queue.put("m1", "evt_2", False)
    turn = queue.take(0, never)
    assert turn is not None
    queue.close()

    queue.finish(turn)
    queue.open()

    assert [taken(queue), taken(queue)] == [("m1", "evt_1", False), None]


def test_reopened_the_queue_hands_out_and_drains_again(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)
    queue.close()

    queue.open()
    turn = queue.take(0, never)
    assert turn is not None
    queue.finish(turn)

    assert (turn.merchant_id, turn.event_id, turn.manual) == ("m1", "evt_1", False)
    assert queue.wait_drained("m1", 0) is True


def test_closing_leaves_other_merchants_queues_in_order(queue: DeliveryQueue) -> None:
    queue.put("m1", "evt_1", False)
    queue.put("m2", "evt_2", False)
    queue.put("m2", "evt_3", False)
    queue.take(0, never)

    queue.close()
    queue.open()

    assert sorted(filter(None, [taken(queue) for _ in range(3)])) == [
        ("m1", "evt_1", False),
        ("m2", "evt_2", False),
    ]


def test_a_record_put_over_one_of_another_creation_moves_in_the_order_and_its_indexes(
    store: MemoryStore,
) -> None:
    put(store, Thing("a", at(1), color="red"), Thing("b", at(2), color="red"))

    put(store, Thing("a", at(3), color="red"))  # as a restore puts another sandbox's copy

    assert ids(store, Query()) == ["a", "b"]
    assert ids(store, Query.of(color="red")) == ["a", "b"]
    assert ids(store, Query.of(created_lte=at(2))) == ["b"]
    put(store, Thing("a", at(0), color="blue"))
    assert ids(store, Query()) == ["b", "a"]
    assert (ids(store, Query.of(color="red")), ids(store, Query.of(color="blue"))) == (["b"], ["a"])
    store.delete(THING, "m1", "a")
    assert ids(store, Query()) == ["b"]


def test_a_value_no_record_holds_any_more_keeps_no_index_list(store: MemoryStore) -> None:
    # A store that makes and deletes a merchant per test must not keep a list per deleted value.
    put(store, Thing("a", at(1), status="open", color="red"), Thing("b", at(2), status="open", color="blue"))

    store.delete(THING, "m1", "a")

    indexes = store._space("m1").indexes
    assert (sorted(indexes[(THING, "color")]), sorted(indexes[(THING, "status")])) == (["blue"], ["open"])
    store.delete(THING, "m1", "b")
    assert (indexes[(THING, "color")], indexes[(THING, "status")]) == ({}, {})
    assert store.query(THING, "m1", Query(where={"color": "red"})).items == []


# -- spaces: opened with their merchant, never made by a read or a late write ---------------------


def test_a_read_of_a_merchant_without_a_space_finds_nothing_and_makes_none(store: MemoryStore) -> None:
    before = sorted(store.merchant_ids())

    found = (
        store.get(THING, "ghost", "a"),
        store.query(THING, "ghost", Query()).items,
        store.events("ghost"),
        store.next_timer("ghost"),
        store.count(THING, "ghost"),
    )

    assert found == (None, [], [], None, 0)
    assert sorted(store.merchant_ids()) == before == ["m1", "m2"]


@pytest.mark.parametrize(
    "write",
    [
        lambda store: store.put(THING, "ghost", Thing("a", T0)),
        lambda store: store.schedule("ghost", T0, "thing.expire", "a"),
        lambda store: store.increment("ghost", "key", 1),
        lambda store: store.clear("ghost", [THING]),
    ],
    ids=["put", "schedule", "increment", "clear"],
)
def test_a_write_to_a_merchant_without_a_space_is_refused_and_makes_none(
    store: MemoryStore, write: Callable[[MemoryStore], object]
) -> None:
    with pytest.raises(ResourceNotFound):
        write(store)

    assert "ghost" not in store.merchant_ids()


def test_a_write_after_the_space_is_removed_does_not_bring_it_back(store: MemoryStore) -> None:
    put(store, Thing("a", T0))
    store.remove_space("m1")

    with pytest.raises(ResourceNotFound):
        put(store, Thing("b", T0))

    assert ("m1" in store.merchant_ids(), store.get(THING, "m1", "a")) == (False, None)
    store.open_space("m1")  # made again under the same id, it starts empty
    assert store.query(THING, "m1", Query()).items == []
