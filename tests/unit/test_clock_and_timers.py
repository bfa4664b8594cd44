"""Mock clocks and timers (decisions section 8): per merchant, forward only, timers fired in time order."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import orjson
import pytest

from mocksrv.domain.clock import (
    LATEST,
    Clock,
    ClockState,
    ClockStates,
    format_timestamp,
    initial_state,
    parse_timestamp,
    to_millis,
)
from mocksrv.domain.controls.snapshot import Snapshots
from mocksrv.domain.errors import InvalidField
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.sandbox import Sandbox
from tests.payloads import MERCHANT_ID
from tests.unit.fakes import T0, FakeSystemTime, at

RECORD = "test.record"


class Recorder:
    """A timer handler that notes which target fired and what the merchant's clock read then."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.fired: list[tuple[str, datetime]] = []

    def __call__(self, merchant_id: str, target_id: str) -> None:
        self.fired.append((target_id, self.sandbox.clock.now(merchant_id)))
        self.sandbox.customers.create(merchant_id, {})  # a change, which a timer reported as fired makes


@pytest.fixture
def recorder(sandbox: Sandbox) -> Recorder:
    recorder = Recorder(sandbox)
    sandbox.scheduler.register(RECORD, recorder)
    return recorder


def schedule(sandbox: Sandbox, seconds: float, target: str, merchant_id: str = MERCHANT_ID) -> None:
    sandbox.scheduler.schedule(merchant_id, at(seconds), RECORD, target)


# -- formatting ------------------------------------------------------------------------------------


def test_format_timestamp_is_utc_with_milliseconds() -> None:
    assert format_timestamp(T0) == "2026-01-22T18:43:56.112Z"


def test_format_timestamp_converts_other_offsets_to_utc() -> None:
    moment = datetime(2026, 1, 22, 20, 43, 56, 112999, tzinfo=timezone(timedelta(hours=2)))
    assert format_timestamp(moment) == "2026-01-22T18:43:56.112Z"


def test_format_timestamp_pads_milliseconds() -> None:
    assert format_timestamp(datetime(2026, 1, 2, 3, 4, 5, 7000, tzinfo=UTC)) == "2026-01-02T03:04:05.007Z"


@pytest.mark.parametrize(
    "text",
    [
        "2026-01-22T18:43:56.112Z",
        "2026-01-22T18:43:56.112+00:00",
        "2026-01-22T18:43:56.112",
        "2026-01-22T20:43:56.112+02:00",
    ],
)
def test_parse_timestamp_gives_utc(text: str) -> None:
    assert parse_timestamp(text) == T0
    assert parse_timestamp(text).utcoffset() == timedelta(0)


def test_parse_timestamp_refuses_non_iso_text() -> None:
    with pytest.raises(ValueError, match="Invalid isoformat"):
        parse_timestamp("22/01/2026 18:43")


def test_to_millis_drops_the_microseconds_below_a_millisecond() -> None:
    assert to_millis(T0 + timedelta(microseconds=999)) == T0


# -- one clock -------------------------------------------------------------------------------------


def test_new_merchant_clock_starts_at_the_system_time(sandbox: Sandbox) -> None:
    assert sandbox.clock.now(MERCHANT_ID) == T0


def test_initial_state_is_running_at_the_system_time(system_time: FakeSystemTime) -> None:
    assert initial_state(system_time) == ClockState(base=T0, anchor=T0, frozen=False)


def test_running_clock_follows_the_system_time(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    system_time.advance(2.5)
    assert sandbox.clock.now(MERCHANT_ID) == at(2.5)


def test_a_running_clock_stops_at_the_latest_time_and_restores_from_there(
    sandbox: Sandbox, system_time: FakeSystemTime
) -> None:
    sandbox.scheduler.set_time(MERCHANT_ID, LATEST - timedelta(milliseconds=500))
    system_time.advance(2)

    assert sandbox.clock.now(MERCHANT_ID) == LATEST
    snapshots = Snapshots(sandbox)
    document = snapshots.take(MERCHANT_ID, producer="test")
    snapshots.restore(orjson.loads(orjson.dumps(document)), MERCHANT_ID)
    assert sandbox.clock.now(MERCHANT_ID) == LATEST


def test_clock_reads_whole_milliseconds(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    system_time.advance(0.0004567)
    assert sandbox.clock.now(MERCHANT_ID) == T0


def test_frozen_clock_stands_still(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    sandbox.clock.freeze(MERCHANT_ID)
    system_time.advance(60)
    assert sandbox.clock.now(MERCHANT_ID) == T0


def test_freeze_reports_a_frozen_state(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    system_time.advance(1)
    assert sandbox.clock.freeze(MERCHANT_ID) == ClockState(base=at(1), anchor=at(1), frozen=True)


def test_resumed_clock_runs_on_from_where_it_stood(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    sandbox.clock.freeze(MERCHANT_ID)
    system_time.advance(60)
    sandbox.clock.resume(MERCHANT_ID)
    system_time.advance(5)
    assert sandbox.clock.now(MERCHANT_ID) == at(5)


def test_freezing_a_frozen_clock_keeps_its_time(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    sandbox.clock.freeze(MERCHANT_ID)
    system_time.advance(30)
    sandbox.clock.freeze(MERCHANT_ID)
    assert sandbox.clock.now(MERCHANT_ID) == T0


def test_move_to_a_later_time_sets_the_clock(sandbox: Sandbox) -> None:
    sandbox.clock.move_to(MERCHANT_ID, at(3600))
    assert sandbox.clock.now(MERCHANT_ID) == at(3600)


def test_move_to_keeps_a_running_clock_running(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    sandbox.clock.move_to(MERCHANT_ID, at(3600))
    system_time.advance(1)
    assert sandbox.clock.now(MERCHANT_ID) == at(3601)


def test_move_to_keeps_a_frozen_clock_frozen(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    sandbox.clock.freeze(MERCHANT_ID)
    sandbox.clock.move_to(MERCHANT_ID, at(3600))
    system_time.advance(1)
    assert sandbox.clock.now(MERCHANT_ID) == at(3600)


def test_move_to_the_current_time_is_allowed(sandbox: Sandbox) -> None:
    sandbox.clock.move_to(MERCHANT_ID, T0)
    assert sandbox.clock.now(MERCHANT_ID) == T0


def test_check_forward_rejects_an_earlier_time(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField) as raised:
        sandbox.clock.check_forward(MERCHANT_ID, at(-1))
    assert (raised.value.code, raised.value.param, raised.value.message) == (
        "IR_04",
        "now",
        "Invalid value provided: now: the mock clock only moves forward",
    )


def test_check_forward_accepts_the_current_time(sandbox: Sandbox) -> None:
    sandbox.clock.check_forward(MERCHANT_ID, T0)
    assert sandbox.clock.now(MERCHANT_ID) == T0


def test_move_to_an_earlier_time_keeps_the_clock(sandbox: Sandbox) -> None:
    sandbox.clock.move_to(MERCHANT_ID, at(-1))
    assert sandbox.clock.now(MERCHANT_ID) == T0


def test_clocks_of_merchants_are_independent(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    sandbox.scheduler.advance(MERCHANT_ID, 3600)
    assert sandbox.clock.now(other) == T0


def test_a_freeze_while_the_clock_is_being_moved_never_takes_it_back(
    sandbox: Sandbox, system_time: FakeSystemTime
) -> None:
    """An advance holds the merchant's lock while it moves the clock; a freeze meanwhile waits for
    it, and stops the clock where the advance left it, not where it read it before."""
    started = threading.Event()

    def noted_time() -> datetime:
        started.set()
        return system_time()

    freezing = Clock(sandbox.store, noted_time)
    frozen: list[ClockState] = []
    freezer = threading.Thread(target=lambda: frozen.append(freezing.freeze(MERCHANT_ID)))
    with sandbox.store.transaction(MERCHANT_ID):  # as an advance holds it
        freezer.start()
        assert started.wait(timeout=10)
        sandbox.clock.move_to(MERCHANT_ID, at(3600))
    freezer.join(timeout=10)

    assert not freezer.is_alive()
    assert frozen == [ClockState(at(3600), T0, frozen=True)]
    assert sandbox.clock.now(MERCHANT_ID) == at(3600)


def test_clock_reads_the_states_it_is_given(system_time: FakeSystemTime) -> None:
    class OneState(ClockStates):
        def __init__(self) -> None:
            self.state = ClockState(base=at(100), anchor=T0)

        def clock_state(self, merchant_id: str) -> ClockState:
            return self.state

        def change_clock_state(
            self, merchant_id: str, change: Callable[[ClockState], ClockState]
        ) -> ClockState:
            self.state = change(self.state)
            return self.state

    clock = Clock(OneState(), system_time)
    system_time.advance(1)
    assert clock.now("any") == at(101)


# -- advance and timers ----------------------------------------------------------------------------


def test_advance_moves_the_clock_by_the_seconds(sandbox: Sandbox) -> None:
    state, fired = sandbox.scheduler.advance(MERCHANT_ID, 90)
    assert (sandbox.clock.now(MERCHANT_ID), state.base, fired) == (at(90), at(90), [])


def test_advances_below_a_millisecond_add_up(sandbox: Sandbox) -> None:
    for _ in range(50):
        sandbox.scheduler.advance(MERCHANT_ID, 0.0004)

    state, _ = sandbox.scheduler.advance(MERCHANT_ID, 0.0019)
    assert sandbox.clock.now(MERCHANT_ID) == at(0.021)
    assert state.base == at(0.0219)


def test_advance_fires_timers_in_due_time_order(sandbox: Sandbox, recorder: Recorder) -> None:
    schedule(sandbox, 30, "third")
    schedule(sandbox, 10, "first")
    schedule(sandbox, 20, "second")
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert [target for target, _ in recorder.fired] == ["first", "second", "third"]


def test_advance_pins_the_clock_at_each_due_time(sandbox: Sandbox, recorder: Recorder) -> None:
    schedule(sandbox, 30, "third")
    schedule(sandbox, 10, "first")
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert recorder.fired == [("first", at(10)), ("third", at(30))]


def test_advance_returns_the_fired_timers_in_order(sandbox: Sandbox, recorder: Recorder) -> None:
    schedule(sandbox, 20, "b")
    schedule(sandbox, 10, "a")
    _, fired = sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert [(t.kind, t.target_id, t.due_at) for t in fired] == [(RECORD, "a", at(10)), (RECORD, "b", at(20))]


def test_timers_due_at_the_same_time_fire_in_scheduling_order(sandbox: Sandbox, recorder: Recorder) -> None:
    for target in ("one", "two", "three"):
        schedule(sandbox, 10, target)
    sandbox.scheduler.advance(MERCHANT_ID, 10)
    assert [target for target, _ in recorder.fired] == ["one", "two", "three"]


def test_timer_due_exactly_at_the_target_fires(sandbox: Sandbox, recorder: Recorder) -> None:
    schedule(sandbox, 10, "edge")
    sandbox.scheduler.advance(MERCHANT_ID, 10)
    assert recorder.fired == [("edge", at(10))]


def test_timer_due_after_the_target_stays_pending(sandbox: Sandbox, recorder: Recorder) -> None:
    schedule(sandbox, 10.001, "later")
    sandbox.scheduler.advance(MERCHANT_ID, 10)
    assert recorder.fired == []
    assert [t.target_id for t in sandbox.store.pending_timers(MERCHANT_ID)] == ["later"]


def test_clock_ends_at_the_target_after_firing(sandbox: Sandbox, recorder: Recorder) -> None:
    schedule(sandbox, 10, "a")
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert sandbox.clock.now(MERCHANT_ID) == at(60)


def test_successive_advances_fire_each_timer_once(sandbox: Sandbox, recorder: Recorder) -> None:
    schedule(sandbox, 10, "a")
    schedule(sandbox, 70, "b")
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert recorder.fired == [("a", at(10)), ("b", at(70))]


def test_timer_scheduled_by_a_firing_timer_fires_in_the_same_advance(
    sandbox: Sandbox, recorder: Recorder
) -> None:
    def chain(merchant_id: str, target_id: str) -> None:
        recorder(merchant_id, target_id)
        sandbox.scheduler.schedule(
            merchant_id, sandbox.clock.now(merchant_id) + timedelta(seconds=5), RECORD, "child"
        )

    sandbox.scheduler.register("test.chain", chain)
    sandbox.scheduler.schedule(MERCHANT_ID, at(10), "test.chain", "parent")
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert recorder.fired == [("parent", at(10)), ("child", at(15))]


def test_timer_scheduled_by_a_firing_timer_beyond_the_target_waits(
    sandbox: Sandbox, recorder: Recorder
) -> None:
    def chain(merchant_id: str, target_id: str) -> None:
        sandbox.scheduler.schedule(
            merchant_id, sandbox.clock.now(merchant_id) + timedelta(seconds=60), RECORD, "child"
        )

    sandbox.scheduler.register("test.chain", chain)
    sandbox.scheduler.schedule(MERCHANT_ID, at(10), "test.chain", "parent")
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert recorder.fired == []
    assert [(t.target_id, t.due_at) for t in sandbox.store.pending_timers(MERCHANT_ID)] == [("child", at(70))]


def test_failing_timer_does_not_stop_the_others(sandbox: Sandbox, recorder: Recorder) -> None:
    def broken(merchant_id: str, target_id: str) -> None:
        raise RuntimeError("boom")

    sandbox.scheduler.register("test.broken", broken)
    sandbox.scheduler.schedule(MERCHANT_ID, at(5), "test.broken", "bad")
    schedule(sandbox, 10, "good")
    _, fired = sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert [t.target_id for t in fired] == ["bad", "good"]
    assert recorder.fired == [("good", at(10))]


def test_advance_of_a_frozen_clock_leaves_it_frozen(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    sandbox.clock.freeze(MERCHANT_ID)
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    system_time.advance(10)
    assert sandbox.clock.now(MERCHANT_ID) == at(60)


def test_advance_of_a_running_clock_keeps_it_running(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    system_time.advance(10)
    assert sandbox.clock.now(MERCHANT_ID) == at(70)


def test_advance_fires_only_that_merchants_timers(sandbox: Sandbox, recorder: Recorder) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    schedule(sandbox, 10, "theirs", merchant_id=other)
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert recorder.fired == []


def test_scheduling_an_unknown_kind_is_refused(sandbox: Sandbox) -> None:
    with pytest.raises(KeyError, match=r"no handler for timer kind test\.unknown"):
        sandbox.scheduler.schedule(MERCHANT_ID, at(1), "test.unknown", "x")


# -- set_time ----------------------------------------------------------------------------------------


def test_set_time_fires_the_timers_it_passes(sandbox: Sandbox, recorder: Recorder) -> None:
    schedule(sandbox, 10, "a")
    schedule(sandbox, 100, "b")
    state, fired = sandbox.scheduler.set_time(MERCHANT_ID, at(50))
    assert (recorder.fired, [t.target_id for t in fired], state.base) == ([("a", at(10))], ["a"], at(50))


def test_set_time_to_the_past_is_rejected_and_fires_nothing(sandbox: Sandbox, recorder: Recorder) -> None:
    sandbox.scheduler.advance(MERCHANT_ID, 100)
    schedule(sandbox, 150, "a")
    with pytest.raises(InvalidField) as raised:
        sandbox.scheduler.set_time(MERCHANT_ID, at(99))
    assert raised.value.param == "now"
    assert (recorder.fired, sandbox.clock.now(MERCHANT_ID)) == ([], at(100))


# -- tick: the real-time ticker ----------------------------------------------------------------------


def test_tick_fires_nothing_before_the_due_time(
    sandbox: Sandbox, system_time: FakeSystemTime, recorder: Recorder
) -> None:
    schedule(sandbox, 5, "a")
    system_time.advance(4.999)
    assert sandbox.scheduler.tick() == 0
    assert recorder.fired == []


def test_tick_fires_what_the_running_clock_has_reached(
    sandbox: Sandbox, system_time: FakeSystemTime, recorder: Recorder
) -> None:
    schedule(sandbox, 5, "a")
    schedule(sandbox, 6, "b")
    system_time.advance(5)
    assert sandbox.scheduler.tick() == 1
    assert recorder.fired == [("a", at(5))]


def test_tick_fires_on_every_merchants_clock(
    sandbox: Sandbox, system_time: FakeSystemTime, recorder: Recorder
) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    schedule(sandbox, 5, "mine")
    schedule(sandbox, 5, "theirs", merchant_id=other)
    system_time.advance(5)
    assert sandbox.scheduler.tick() == 2
    assert sorted(target for target, _ in recorder.fired) == ["mine", "theirs"]


def test_tick_fires_nothing_on_a_frozen_clock(
    sandbox: Sandbox, system_time: FakeSystemTime, recorder: Recorder
) -> None:
    sandbox.clock.freeze(MERCHANT_ID)
    schedule(sandbox, 5, "a")
    system_time.advance(60)
    assert sandbox.scheduler.tick() == 0


def test_tick_does_not_move_the_clock_back_to_an_overdue_time(
    sandbox: Sandbox, system_time: FakeSystemTime, recorder: Recorder
) -> None:
    schedule(sandbox, 5, "a")
    system_time.advance(8)
    sandbox.scheduler.tick()
    assert sandbox.clock.now(MERCHANT_ID) == at(8)


def test_a_timer_that_changes_only_what_no_merchant_owns_is_not_listed_as_fired(sandbox: Sandbox) -> None:
    # Another merchant made meanwhile (a change of the records of no single merchant) is no change
    # of this merchant's: a timer whose object moved on is not listed, whatever else happens.
    sandbox.scheduler.register(
        "test.other", lambda merchant_id, target_id: sandbox.merchants.create(MerchantSeed())
    )
    sandbox.scheduler.schedule(MERCHANT_ID, at(5), "test.other", "x")

    _, fired = sandbox.scheduler.advance(MERCHANT_ID, 60)

    assert fired == []
    assert len(sandbox.merchants.merchant_ids()) == 2
