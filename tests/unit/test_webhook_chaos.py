"""Webhook chaos in the domain: holds on the mock clock, out-of-order batches, deliberate duplicates.

Driven by hand as the dispatcher drives the service: `next_task`, `record`, `follow_up`, `finish`.
The clock moves only when a test moves it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from mocksrv.app import create_sandbox
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.models import Payment
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.webhooks import (
    OUT_OF_ORDER_WINDOW,
    RELEASE_TIMER,
    RETRY_TIMER,
    AttemptResult,
    ChaosMode,
    DeliveryAttempt,
    DeliveryHold,
    DeliveryState,
    DeliveryTask,
    WebhookChaos,
)
from mocksrv.settings import Settings
from tests.payloads import MERCHANT_ID, PROFILE_ID, payment
from tests.unit.fakes import T0, FakeSystemTime, at
from tests.unit.helpers import timers

URL = "http://127.0.0.1:9/webhooks"
BODY = b'{"event_id":"evt_1","event_type":"payment_succeeded"}'
SUCCEEDED = AttemptResult(URL, 200, 3.0)
FAILED = AttemptResult(URL, 500, 12.0)


@pytest.fixture
def hooked(sandbox: Sandbox) -> Sandbox:
    """The sandbox, with a webhook URL on the default merchant's profile."""
    sandbox.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": URL})
    return sandbox


def chaos(sandbox: Sandbox, **setting: Any) -> WebhookChaos:
    wanted = {"duplicate": False, "out_of_order": False, "delay_seconds": 0, "seed": None, **setting}
    return sandbox.webhooks.set_chaos(MERCHANT_ID, **wanted)


def create(sandbox: Sandbox, **overrides: Any) -> Payment:
    return sandbox.payments.create(MERCHANT_ID, payment("4242424242424242", **overrides))


def take(sandbox: Sandbox) -> DeliveryTask:
    task = sandbox.webhooks.next_task(0)
    assert task is not None, "no delivery was queued"
    return task


def deliver(
    sandbox: Sandbox, result: AttemptResult = SUCCEEDED, duplicate_result: AttemptResult = SUCCEEDED
) -> list[DeliveryAttempt]:
    """Make the next attempt as the dispatcher does, a duplicate it asks for included; the attempts."""
    task: DeliveryTask | None = take(sandbox)
    made: list[DeliveryAttempt] = []
    answer = result
    while task is not None:
        recorded = sandbox.webhooks.record(task, BODY, answer)
        assert recorded is not None
        made.append(recorded)
        follow_up = sandbox.webhooks.follow_up(task, BODY, recorded)
        if follow_up is None:
            sandbox.webhooks.finish(task)
        task, answer = follow_up, duplicate_result
    return made


def delivered_order(sandbox: Sandbox) -> list[str]:
    """Take every queued delivery, one at a time; the ids of the objects, in the order taken."""
    order: list[str] = []
    while (task := sandbox.webhooks.next_task(0)) is not None:
        order.append(task.event.object_id)
        sandbox.webhooks.finish(task)
    return order


def advance(sandbox: Sandbox, seconds: float) -> None:
    sandbox.scheduler.advance(MERCHANT_ID, seconds)


def pending(sandbox: Sandbox) -> int:
    return sandbox.webhooks.pending(MERCHANT_ID)


# -- the order a hold releases in ---------------------------------------------------------------


def hold(mode: ChaosMode, count: int, seed: int | None = None) -> DeliveryHold:
    events = tuple(f"evt_{n}" for n in range(1, count + 1))
    return DeliveryHold(events[0], MERCHANT_ID, T0, at(1), events, mode, seed)


@pytest.mark.parametrize(
    ("mode", "count", "order"),
    [
        (ChaosMode.DELAY, 3, ["evt_1", "evt_2", "evt_3"]),
        (ChaosMode.OUT_OF_ORDER, 1, ["evt_1"]),
        (ChaosMode.OUT_OF_ORDER, 2, ["evt_2", "evt_1"]),
        (ChaosMode.OUT_OF_ORDER, 3, ["evt_3", "evt_2", "evt_1"]),
    ],
)
def test_a_hold_releases_in_the_order_of_its_mode(mode: ChaosMode, count: int, order: list[str]) -> None:
    assert hold(mode, count).release_order() == order


@pytest.mark.parametrize("count", [2, 3, 5])
@pytest.mark.parametrize("seed", [0, 1, 7, 42])
def test_a_seeded_batch_is_shuffled_the_same_way_every_time_and_never_left_in_order(
    seed: int, count: int
) -> None:
    first = hold(ChaosMode.OUT_OF_ORDER, count, seed).release_order()

    assert sorted(first) == sorted(hold(ChaosMode.DELAY, count).event_ids)
    assert first != list(hold(ChaosMode.DELAY, count).event_ids)
    assert hold(ChaosMode.OUT_OF_ORDER, count, seed).release_order() == first


# -- the setting ----------------------------------------------------------------------------------


def test_no_chaos_is_set_at_first(hooked: Sandbox) -> None:
    assert hooked.webhooks.chaos(MERCHANT_ID) == WebhookChaos(MERCHANT_ID)


def test_without_chaos_an_event_is_queued_at_once(hooked: Sandbox) -> None:
    create(hooked)

    assert pending(hooked) == 1
    assert hooked.webhooks.held(MERCHANT_ID) == 0


def test_reset_clears_the_chaos_and_what_it_holds(hooked: Sandbox) -> None:
    chaos(hooked, duplicate=True, delay_seconds=30)
    create(hooked)

    hooked.reset(MERCHANT_ID)

    assert hooked.webhooks.chaos(MERCHANT_ID) == WebhookChaos(MERCHANT_ID)
    assert hooked.webhooks.held(MERCHANT_ID) == 0
    assert timers(hooked) == []


def test_the_chaos_of_one_merchant_leaves_another_alone(hooked: Sandbox) -> None:
    other = hooked.merchants.create(MerchantSeed(merchant_id="merchant_other", webhook_url=URL))
    chaos(hooked, delay_seconds=30)

    hooked.payments.create("merchant_other", payment(profile_id=other.profile.profile_id))

    assert hooked.webhooks.pending("merchant_other") == 1
    assert hooked.webhooks.chaos("merchant_other") == WebhookChaos("merchant_other")


# -- delay ---------------------------------------------------------------------------------------


def test_a_delay_holds_the_first_attempt_on_the_mock_clock(hooked: Sandbox) -> None:
    chaos(hooked, delay_seconds=30)

    created = create(hooked)

    (event,) = hooked.store.events(MERCHANT_ID)
    delivery = hooked.webhooks.delivery(MERCHANT_ID, event.event_id)
    assert (pending(hooked), hooked.webhooks.held(MERCHANT_ID)) == (0, 1)
    assert (delivery.state, delivery.next_attempt_at, delivery.held_by) == (
        DeliveryState.PENDING,
        at(30),
        ChaosMode.DELAY,
    )
    assert timers(hooked) == [(at(30), RELEASE_TIMER, event.event_id)]
    assert event.object_id == created.payment_id


def test_a_held_delivery_is_queued_once_the_clock_passes_its_delay(hooked: Sandbox) -> None:
    chaos(hooked, delay_seconds=30)
    create(hooked)

    advance(hooked, 29)
    before = pending(hooked)
    advance(hooked, 1)

    assert (before, pending(hooked), hooked.webhooks.held(MERCHANT_ID)) == (0, 1, 0)
    assert take(hooked).delivery.next_attempt_at == hooked.clock.now(MERCHANT_ID)  # due at its release


def test_delayed_events_keep_the_order_they_happened_in(hooked: Sandbox) -> None:
    chaos(hooked, delay_seconds=30)
    first, second = create(hooked), create(hooked)

    advance(hooked, 30)

    assert delivered_order(hooked) == [first.payment_id, second.payment_id]


def test_the_first_attempt_after_a_delay_says_so_and_a_retry_does_not(hooked: Sandbox) -> None:
    chaos(hooked, delay_seconds=30)
    create(hooked)
    advance(hooked, 30)

    (first,) = deliver(hooked, FAILED)
    advance(hooked, 60)
    (retry,) = deliver(hooked, SUCCEEDED)

    assert (first.chaos, first.duplicate, first.attempted_at) == (ChaosMode.DELAY, False, at(30))
    assert (retry.chaos, retry.duplicate, retry.attempted_at) == (None, False, at(90))


def test_clearing_the_chaos_sends_later_events_at_once_and_keeps_the_held_ones_held(hooked: Sandbox) -> None:
    chaos(hooked, delay_seconds=30)
    held = create(hooked)

    hooked.webhooks.clear_chaos(MERCHANT_ID)
    later = create(hooked)

    assert delivered_order(hooked) == [later.payment_id]
    advance(hooked, 30)
    assert delivered_order(hooked) == [held.payment_id]


def test_a_held_event_delivered_by_hand_is_not_sent_again_at_its_release(hooked: Sandbox) -> None:
    chaos(hooked, delay_seconds=30)
    create(hooked)
    (event,) = hooked.store.events(MERCHANT_ID)
    hooked.webhooks.redeliver(MERCHANT_ID, event.event_id)
    (manual,) = deliver(hooked)

    held_before = hooked.webhooks.held(MERCHANT_ID)
    advance(hooked, 30)

    assert (manual.manual, manual.chaos) == (True, None)
    assert held_before == 0  # held no more: nothing goes at its release
    assert pending(hooked) == 0
    assert hooked.webhooks.delivery(MERCHANT_ID, event.event_id).state is DeliveryState.DELIVERED


# -- out of order -------------------------------------------------------------------------------


def test_out_of_order_holds_a_batch_for_the_window_then_sends_it_newest_first(hooked: Sandbox) -> None:
    chaos(hooked, out_of_order=True)
    created = [create(hooked).payment_id for _ in range(3)]

    before = delivered_order(hooked)
    held = hooked.webhooks.held(MERCHANT_ID)
    advance(hooked, OUT_OF_ORDER_WINDOW)

    assert (before, held) == ([], 3)
    assert delivered_order(hooked) == created[::-1]


def test_an_out_of_order_batch_takes_the_events_of_its_window_only(hooked: Sandbox) -> None:
    chaos(hooked, out_of_order=True, delay_seconds=10)
    first, second = create(hooked), create(hooked)
    advance(hooked, 10)
    third, fourth = create(hooked), create(hooked)

    released = delivered_order(hooked)
    advance(hooked, 10)

    assert released == [second.payment_id, first.payment_id]
    assert delivered_order(hooked) == [fourth.payment_id, third.payment_id]


def test_out_of_order_with_a_delay_holds_the_batch_for_the_delay(hooked: Sandbox) -> None:
    chaos(hooked, out_of_order=True, delay_seconds=30)
    create(hooked)
    create(hooked)

    advance(hooked, 29)
    before = pending(hooked)
    advance(hooked, 1)

    assert (before, pending(hooked)) == (0, 2)


def test_a_seeded_batch_goes_in_the_order_its_hold_draws(hooked: Sandbox) -> None:
    chaos(hooked, out_of_order=True, seed=7)
    created = [create(hooked).payment_id for _ in range(4)]
    events = hooked.store.events(MERCHANT_ID)
    drawn = hold(ChaosMode.OUT_OF_ORDER, 4, seed=7).release_order()
    expected = [created[int(event_id.removeprefix("evt_")) - 1] for event_id in drawn]

    advance(hooked, OUT_OF_ORDER_WINDOW)

    assert [event.object_id for event in events] == created
    assert delivered_order(hooked) == expected


def test_the_first_attempt_of_an_out_of_order_batch_says_so(hooked: Sandbox) -> None:
    chaos(hooked, out_of_order=True)
    create(hooked)
    advance(hooked, OUT_OF_ORDER_WINDOW)

    (attempt,) = deliver(hooked)

    assert (attempt.chaos, attempt.duplicate, attempt.number) == (ChaosMode.OUT_OF_ORDER, False, 1)


def same_seed_order(seed: int) -> list[str]:
    """The order in which a fresh sandbox delivers five payments, out of order with `seed`: their
    amounts, which are the same in every sandbox."""
    sandbox = create_sandbox(Settings(), FakeSystemTime())
    sandbox.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": URL})
    chaos(sandbox, out_of_order=True, seed=seed)
    amounts = {create(sandbox, amount=100 + n).payment_id: str(100 + n) for n in range(5)}
    advance(sandbox, OUT_OF_ORDER_WINDOW)
    return [amounts[object_id] for object_id in delivered_order(sandbox)]


def test_the_same_seed_gives_the_same_order_in_another_sandbox() -> None:
    assert same_seed_order(3) == same_seed_order(3)
    assert same_seed_order(3) != ["100", "101", "102", "103", "104"]


# -- duplicates ------------------------------------------------------------------------------------


def test_a_delivered_event_is_sent_again_at_once_as_a_duplicate(hooked: Sandbox) -> None:
    chaos(hooked, duplicate=True)
    create(hooked)
    (event,) = hooked.store.events(MERCHANT_ID)

    first, second = deliver(hooked)

    assert (first.number, first.duplicate, first.chaos) == (1, False, None)
    assert (second.number, second.duplicate, second.chaos) == (2, True, ChaosMode.DUPLICATE)
    assert second.event_id == first.event_id == event.event_id
    delivery = hooked.webhooks.delivery(MERCHANT_ID, event.event_id)
    assert (delivery.state, delivery.attempts, delivery.scheduled_attempts) == (DeliveryState.DELIVERED, 2, 1)


def test_the_duplicate_carries_the_bytes_of_the_attempt_that_delivered(hooked: Sandbox) -> None:
    chaos(hooked, duplicate=True)
    create(hooked)
    task = take(hooked)
    recorded = hooked.webhooks.record(task, BODY, SUCCEEDED)

    duplicate = hooked.webhooks.follow_up(task, BODY, recorded)

    assert duplicate is not None
    assert (duplicate.delivery.body, duplicate.duplicate, duplicate.send_duplicate) == (BODY, True, False)
    assert (duplicate.event, duplicate.url, duplicate.signing_key) == (task.event, task.url, task.signing_key)


def test_the_duplicate_keeps_the_merchants_turn_until_it_is_made(hooked: Sandbox) -> None:
    chaos(hooked, duplicate=True)
    first, second = create(hooked), create(hooked)

    order = []
    for _ in range(2):
        task = take(hooked)
        recorded = hooked.webhooks.record(task, BODY, SUCCEEDED)
        duplicate = hooked.webhooks.follow_up(task, BODY, recorded)
        assert duplicate is not None
        assert hooked.webhooks.next_task(0) is None  # the second event waits for the duplicate
        hooked.webhooks.record(duplicate, BODY, SUCCEEDED)
        hooked.webhooks.finish(duplicate)
        order.append(task.event.object_id)

    assert order == [first.payment_id, second.payment_id]


def test_a_failed_attempt_is_not_duplicated_and_the_retry_that_delivers_is(hooked: Sandbox) -> None:
    chaos(hooked, duplicate=True)
    create(hooked)

    failed = deliver(hooked, FAILED)
    advance(hooked, 60)
    retried = deliver(hooked)

    assert [(a.number, a.succeeded, a.duplicate) for a in failed] == [(1, False, False)]
    assert [(a.number, a.succeeded, a.duplicate) for a in retried] == [(2, True, False), (3, True, True)]


def test_an_event_keeps_the_duplicate_setting_of_when_it_happened(hooked: Sandbox) -> None:
    before = create(hooked)
    deliver(hooked, FAILED)  # its retry comes after the setting
    chaos(hooked, duplicate=True)
    under = create(hooked)
    hooked.webhooks.clear_chaos(MERCHANT_ID)  # before its first attempt

    made = deliver(hooked)
    advance(hooked, 60)
    retried = deliver(hooked)

    assert [(a.event_id, a.number, a.duplicate) for a in made] == [
        (event_of(hooked, under.payment_id), 1, False),
        (event_of(hooked, under.payment_id), 2, True),
    ]
    assert [(a.event_id, a.number, a.duplicate) for a in retried] == [
        (event_of(hooked, before.payment_id), 2, False)
    ]


def event_of(sandbox: Sandbox, payment_id: str) -> str:
    (event,) = [event for event in sandbox.store.events(MERCHANT_ID) if event.object_id == payment_id]
    return event.event_id


def test_a_failed_duplicate_changes_no_state_and_schedules_nothing(hooked: Sandbox) -> None:
    chaos(hooked, duplicate=True)
    create(hooked)
    (event,) = hooked.store.events(MERCHANT_ID)

    _, duplicate = deliver(hooked, SUCCEEDED, FAILED)

    delivery = hooked.webhooks.delivery(MERCHANT_ID, event.event_id)
    assert (duplicate.succeeded, duplicate.duplicate) == (False, True)
    assert (delivery.state, delivery.scheduled_attempts, delivery.next_attempt_at) == (
        DeliveryState.DELIVERED,
        1,
        None,
    )
    assert [timer for timer in timers(hooked) if timer[1] == RETRY_TIMER] == []


def test_a_redelivery_by_hand_is_not_duplicated(hooked: Sandbox) -> None:
    chaos(hooked, duplicate=True)
    create(hooked)
    (event,) = hooked.store.events(MERCHANT_ID)
    deliver(hooked)

    hooked.webhooks.redeliver(MERCHANT_ID, event.event_id)
    (manual,) = deliver(hooked)

    assert (manual.manual, manual.duplicate, manual.number) == (True, False, 3)


def test_modes_combine_a_held_batch_is_sent_newest_first_each_event_twice(hooked: Sandbox) -> None:
    chaos(hooked, duplicate=True, out_of_order=True, delay_seconds=5)
    first, second = create(hooked), create(hooked)
    advance(hooked, 5)

    made = deliver(hooked) + deliver(hooked)

    objects = {event.event_id: event.object_id for event in hooked.store.events(MERCHANT_ID)}
    assert [(objects[a.event_id], a.duplicate, a.chaos) for a in made] == [
        (second.payment_id, False, ChaosMode.OUT_OF_ORDER),
        (second.payment_id, True, ChaosMode.DUPLICATE),
        (first.payment_id, False, ChaosMode.OUT_OF_ORDER),
        (first.payment_id, True, ChaosMode.DUPLICATE),
    ]
    assert all(a.attempted_at == T0 + timedelta(seconds=5) for a in made)
