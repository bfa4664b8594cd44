"""Mock clocks under freezegun: a running clock follows the time freezegun shows, a frozen or moved
one keeps its own offset, and timers fire when the time passes them, never when it goes back."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import freezegun
import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from mocksrv.app import create_sandbox
from mocksrv.domain.clock import REAL_TIME_MODULES, ClockState, exempt_real_intervals, system_now
from mocksrv.domain.controls.snapshot import Snapshots
from mocksrv.domain.sandbox import Sandbox
from mocksrv.settings import Settings
from tests.payloads import MERCHANT_ID

RECORD = "test.record"
MARCH = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class Recorder:
    """A timer handler that notes which target fired and what the merchant's clock read then."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.fired: list[tuple[str, datetime]] = []

    def __call__(self, merchant_id: str, target_id: str) -> None:
        self.fired.append((target_id, self.sandbox.clock.now(merchant_id)))
        self.sandbox.customers.create(merchant_id, {})  # a change, which a timer reported as fired makes


@pytest.fixture
def live() -> Sandbox:
    """A sandbox on the system time, made before any freeze, as a server's is."""
    return create_sandbox(Settings())


@pytest.fixture
def recorder(live: Sandbox) -> Recorder:
    recorder = Recorder(live)
    live.scheduler.register(RECORD, recorder)
    return recorder


@pytest.fixture
def march() -> Iterator[FrozenDateTimeFactory]:
    with freeze_time(MARCH) as frozen:
        yield frozen


def later(seconds: float) -> datetime:
    return MARCH + timedelta(seconds=seconds)


def schedule(sandbox: Sandbox, due_at: datetime, target: str) -> None:
    sandbox.scheduler.schedule(MERCHANT_ID, due_at, RECORD, target)


# -- the system time -------------------------------------------------------------------------------


def test_system_now_is_the_frozen_time_as_a_plain_datetime(march: FrozenDateTimeFactory) -> None:
    now = system_now()

    assert now == MARCH
    # MARCH was made before the freeze: a plain datetime, not freezegun's subclass, which orjson and
    # the snapshot codec refuse (this module's `datetime` is that subclass during the freeze).
    assert type(now) is type(MARCH)


def test_system_now_is_the_real_time_again_once_the_freeze_ends() -> None:
    with freeze_time(MARCH):
        pass

    assert abs(system_now() - datetime.now(UTC)) < timedelta(seconds=5)


def test_exempting_real_intervals_puts_mocksrv_and_waitress_on_freezeguns_ignore_list() -> None:
    exempt_real_intervals()

    assert REAL_TIME_MODULES == ("mocksrv.", "waitress.")
    assert set(REAL_TIME_MODULES) <= set(freezegun.config.settings.default_ignore_list)


# -- a running clock follows freezegun ------------------------------------------------------------


def test_a_running_clock_shows_the_frozen_time(live: Sandbox, march: FrozenDateTimeFactory) -> None:
    assert live.clock.now(MERCHANT_ID) == MARCH


def test_a_running_clock_moves_with_tick_and_move_to(live: Sandbox, march: FrozenDateTimeFactory) -> None:
    march.tick(timedelta(hours=2))
    after_tick = live.clock.now(MERCHANT_ID)
    march.move_to(later(86400))

    assert (after_tick, live.clock.now(MERCHANT_ID)) == (later(7200), later(86400))


def test_tick_fires_the_timers_it_passes_in_time_order(
    live: Sandbox, recorder: Recorder, march: FrozenDateTimeFactory
) -> None:
    schedule(live, later(120), "second")
    schedule(live, later(60), "first")
    schedule(live, later(600), "not yet")
    march.tick(300)

    fired = live.scheduler.fire_now(MERCHANT_ID)

    assert [timer.target_id for timer in fired] == ["first", "second"]
    assert recorder.fired == [("first", later(300)), ("second", later(300))]
    assert live.clock.now(MERCHANT_ID) == later(300)


def test_the_ticker_pass_fires_what_is_due_on_every_merchant(
    live: Sandbox, recorder: Recorder, march: FrozenDateTimeFactory
) -> None:
    schedule(live, later(60), "due")
    march.tick(61)

    assert live.scheduler.tick() == 1
    assert live.scheduler.tick() == 0
    assert recorder.fired == [("due", later(61))]


def test_nothing_fires_before_its_due_time(
    live: Sandbox, recorder: Recorder, march: FrozenDateTimeFactory
) -> None:
    schedule(live, later(60), "due")
    march.tick(59)

    assert live.scheduler.fire_now(MERCHANT_ID) == []
    assert recorder.fired == []


# -- time going back --------------------------------------------------------------------------------


def test_a_move_back_shows_the_earlier_time_and_fires_nothing(
    live: Sandbox, recorder: Recorder, march: FrozenDateTimeFactory
) -> None:
    schedule(live, later(60), "due")
    march.move_to(later(-86400))

    assert live.clock.now(MERCHANT_ID) == later(-86400)
    assert live.scheduler.fire_now(MERCHANT_ID) == []
    assert recorder.fired == []


def test_a_timer_fired_stays_fired_when_time_goes_back_and_forth(
    live: Sandbox, recorder: Recorder, march: FrozenDateTimeFactory
) -> None:
    schedule(live, later(60), "once")
    march.tick(60)
    live.scheduler.fire_now(MERCHANT_ID)
    march.move_to(later(-3600))
    live.scheduler.fire_now(MERCHANT_ID)
    march.move_to(later(3600))

    assert live.scheduler.fire_now(MERCHANT_ID) == []
    assert recorder.fired == [("once", later(60))]


def test_a_freeze_before_the_merchants_time_then_its_end_brings_the_real_time_back(live: Sandbox) -> None:
    with freeze_time("2001-09-09 01:46:40"):
        assert live.clock.now(MERCHANT_ID) == datetime(2001, 9, 9, 1, 46, 40, tzinfo=UTC)

    assert abs(live.clock.now(MERCHANT_ID) - datetime.now(UTC)) < timedelta(seconds=5)


def test_moving_a_clock_to_a_moment_it_has_passed_leaves_its_state_as_it_is(
    live: Sandbox, march: FrozenDateTimeFactory
) -> None:
    before = live.clock.state(MERCHANT_ID)

    assert live.clock.move_to(MERCHANT_ID, later(-1)) == before
    assert live.clock.state(MERCHANT_ID) == before


# -- clocks set through the control plane keep their own time --------------------------------------


def test_a_frozen_clock_ignores_freezegun(live: Sandbox) -> None:
    live.clock.freeze(MERCHANT_ID)
    stopped_at = live.clock.now(MERCHANT_ID)
    with freeze_time(MARCH) as frozen:
        frozen.tick(timedelta(days=30))

        assert live.clock.now(MERCHANT_ID) == stopped_at


def test_an_advanced_clock_keeps_its_lead_over_freezegun(live: Sandbox, march: FrozenDateTimeFactory) -> None:
    live.scheduler.advance(MERCHANT_ID, 86400)
    march.tick(3600)

    assert live.clock.now(MERCHANT_ID) == later(86400 + 3600)
    assert live.clock.state(MERCHANT_ID) == ClockState(base=later(86400), anchor=MARCH)


# -- what a freeze writes can be snapshotted --------------------------------------------------------


def test_a_sandbox_with_records_made_under_a_freeze_can_be_snapshotted(
    live: Sandbox, march: FrozenDateTimeFactory
) -> None:
    live.seed_payments(MERCHANT_ID, 2)
    march.tick(60)
    live.clock.freeze(MERCHANT_ID)

    document = Snapshots(live).take(MERCHANT_ID, producer="test")

    assert document["taken_at"] == later(60).isoformat()
    assert document["merchants"][MERCHANT_ID]["clock"] == {
        "frozen": True,
        "now": {"$datetime": later(60).isoformat()},
    }
