"""Webhook delivery in the domain: the state table, the retry schedule, and the signature check.

The service is driven by hand, as the dispatcher drives it: `next_task`, then `record` with what a
receiver answered, then `finish`. No HTTP and no threads; the clock moves only when a test moves it.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import pytest

from mocksrv.domain.errors import InvalidState, PreconditionFailed, ResourceNotFound
from mocksrv.domain.events import ContentType, Event, EventType
from mocksrv.domain.ids import IdState
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.models import Payment
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.store import Turn
from mocksrv.domain.webhooks import (
    DELIVERY_TRANSITIONS,
    RETRY_DELAYS,
    RETRY_TIMER,
    AttemptResult,
    DeliveryAttempt,
    DeliveryEvent,
    DeliveryState,
    DeliveryTask,
    EventDelivery,
)
from mocksrv.webhooks import SIGNATURE_HEADER, verify_signature
from tests.payloads import MERCHANT_ID, PROFILE_ID, SIGNING_KEY, payment
from tests.unit.fakes import T0, at
from tests.unit.helpers import timers

D = DeliveryState
E = DeliveryEvent

# Never contacted: these tests write down by hand what a receiver answered.
URL = "http://127.0.0.1:9/webhooks"
BODY = b'{"event_id":"evt_1","event_type":"payment_succeeded"}'
FAILED = AttemptResult(URL, 500, 12.34)
SUCCEEDED = AttemptResult(URL, 200, 3.0)
TIMED_OUT = AttemptResult(URL, None, 5000.0, "timeout: the receiver did not answer in time")

# decisions section 6: +1 min, +5 min, +5 min, +10 min x5, +1 h x5, +6 h x3.
SCHEDULE = (60, 300, 300, 600, 600, 600, 600, 600, 3600, 3600, 3600, 3600, 3600, 21600, 21600, 21600)

# -- the state table ----------------------------------------------------------------------------

# Every allowed (state, event) pair, written out from decisions section 6 and issue 3.
ALLOWED: dict[tuple[DeliveryState, DeliveryEvent], DeliveryState] = {
    # a 2xx delivers, whatever came before, a redelivery by hand included
    (D.PENDING, E.SUCCEED): D.DELIVERED,
    (D.RETRYING, E.SUCCEED): D.DELIVERED,
    (D.DELIVERED, E.SUCCEED): D.DELIVERED,
    (D.FAILED, E.SUCCEED): D.DELIVERED,
    (D.NO_ENDPOINT, E.SUCCEED): D.DELIVERED,
    # a failed scheduled attempt waits for the next one on the schedule...
    (D.PENDING, E.RETRY): D.RETRYING,
    (D.RETRYING, E.RETRY): D.RETRYING,
    # ...or, after the last one, gives up
    (D.PENDING, E.GIVE_UP): D.FAILED,
    (D.RETRYING, E.GIVE_UP): D.FAILED,
    # a failed redelivery by hand changes no schedule
    (D.PENDING, E.MANUAL_FAIL): D.PENDING,
    (D.RETRYING, E.MANUAL_FAIL): D.RETRYING,
    (D.DELIVERED, E.MANUAL_FAIL): D.DELIVERED,
    (D.FAILED, E.MANUAL_FAIL): D.FAILED,
    (D.NO_ENDPOINT, E.MANUAL_FAIL): D.FAILED,
    # no URL when the first attempt was due (a retry that finds none keeps to its schedule)
    (D.PENDING, E.SKIP): D.NO_ENDPOINT,
}

ALL_PAIRS = list(itertools.product(DeliveryState, DeliveryEvent))
REFUSED = [pair for pair in ALL_PAIRS if pair not in ALLOWED]


def _pair_id(pair: tuple[StrEnum, StrEnum]) -> str:
    return f"{pair[0].value}--{pair[1].value}"


def test_the_table_covers_every_state_and_event() -> None:
    assert len(ALL_PAIRS) == len(DeliveryState) * len(DeliveryEvent) == 5 * 5


@pytest.mark.parametrize("pair", list(ALLOWED), ids=_pair_id)
def test_delivery_transition_emits_no_webhook_event(pair: tuple[DeliveryState, DeliveryEvent]) -> None:
    row = DELIVERY_TRANSITIONS.require(*pair)
    assert row.emits is None


@pytest.mark.parametrize("pair", REFUSED, ids=_pair_id)
def test_refused_pair_raises_IR_14(pair: tuple[DeliveryState, DeliveryEvent]) -> None:
    with pytest.raises(InvalidState) as raised:
        DELIVERY_TRANSITIONS.require(*pair)
    assert raised.value.code == "IR_14"


def test_refused_pairs_are_the_scheduled_ones_after_delivery_or_giving_up() -> None:
    finished = [D.DELIVERED, D.FAILED, D.NO_ENDPOINT]
    expected = [*itertools.product(finished, [E.RETRY, E.GIVE_UP, E.SKIP]), (D.RETRYING, E.SKIP)]
    assert sorted(REFUSED) == sorted(expected)


# -- the retry schedule -------------------------------------------------------------------------


def test_retry_delays_are_the_schedule_of_decisions_section_6() -> None:
    assert SCHEDULE == RETRY_DELAYS


def test_the_schedule_spans_a_day_and_a_minute_at_most() -> None:
    assert sum(RETRY_DELAYS) == 86_460
    assert len(RETRY_DELAYS) == 16


# -- driving the service by hand ----------------------------------------------------------------


@pytest.fixture
def hooked(sandbox: Sandbox) -> Sandbox:
    """The sandbox, with a webhook URL on the default merchant's profile."""
    sandbox.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": URL})
    return sandbox


def create(sandbox: Sandbox, number: str = "4242424242424242", **overrides: Any) -> Payment:
    return sandbox.payments.create(MERCHANT_ID, payment(number, **overrides))


def take(sandbox: Sandbox) -> DeliveryTask:
    task = sandbox.webhooks.next_task(0)
    assert task is not None, "no delivery was queued"
    return task


def attempt(
    sandbox: Sandbox, result: AttemptResult | None, body: bytes | None = BODY
) -> tuple[DeliveryTask, DeliveryAttempt | None]:
    """Take the next delivery, record `result` for it, and let the next one go, as the dispatcher does."""
    task = take(sandbox)
    recorded = sandbox.webhooks.record(task, body, result)
    sandbox.webhooks.finish(task)
    return task, recorded


def delivery(sandbox: Sandbox, event_id: str) -> EventDelivery:
    return sandbox.webhooks.delivery(MERCHANT_ID, event_id)


def attempts(sandbox: Sandbox) -> list[DeliveryAttempt]:
    """Every attempt recorded, oldest first."""
    return sorted(sandbox.webhooks.attempts(MERCHANT_ID, None, 100, 0).items, key=lambda a: a.number)


def queued(sandbox: Sandbox) -> bool:
    """Whether a delivery is waiting; takes none."""
    return sandbox.webhooks.pending(MERCHANT_ID) > 0


def fail_every_scheduled_attempt(sandbox: Sandbox) -> str:
    """Create a payment and fail its first attempt and every retry; return the event id."""
    create(sandbox)
    task, _ = attempt(sandbox, FAILED)
    for delay in RETRY_DELAYS:
        sandbox.scheduler.advance(MERCHANT_ID, delay)
        attempt(sandbox, FAILED)
    return task.event.event_id


def test_a_new_event_is_queued_pending(hooked: Sandbox) -> None:
    create(hooked)
    (event,) = hooked.store.events(MERCHANT_ID)

    assert delivery(hooked, event.event_id) == EventDelivery(event.event_id, MERCHANT_ID, T0)
    assert hooked.webhooks.pending(MERCHANT_ID) == 1


def test_the_task_carries_the_event_url_and_signing_key(hooked: Sandbox) -> None:
    created = create(hooked)

    task = take(hooked)

    assert task.merchant_id == MERCHANT_ID
    assert (task.event.event_type, task.event.object_id) == ("payment_succeeded", created.payment_id)
    assert task.event.content_type is ContentType.PAYMENT_DETAILS
    assert (task.url, task.signing_key, task.manual) == (URL, SIGNING_KEY, False)
    assert task.delivery == EventDelivery(task.event.event_id, MERCHANT_ID, T0)


@pytest.mark.parametrize("ending", ["reset", "delete"])
def test_an_attempt_in_flight_when_its_merchant_is_replaced_holds_up_none_of_the_new_ones(
    hooked: Sandbox, ending: str
) -> None:
    create(hooked)
    old = take(hooked)  # in flight, to a receiver that has not answered yet

    if ending == "reset":
        hooked.reset(MERCHANT_ID)
    else:
        hooked.remove_merchant(MERCHANT_ID)
        hooked.merchants.create(MerchantSeed(merchant_id=MERCHANT_ID, profile_id=PROFILE_ID, webhook_url=URL))
    drained_at_once = hooked.webhooks.drained(MERCHANT_ID, 0)
    new_payment = create(hooked)
    new = take(hooked)
    create(hooked)
    hooked.webhooks.finish(old)  # the old attempt ends: the new one is still in flight

    assert drained_at_once is True
    assert new.event.resource.payment_id == new_payment.payment_id
    assert (hooked.webhooks.next_task(0), hooked.webhooks.pending(MERCHANT_ID)) == (None, 2)
    hooked.webhooks.finish(new)
    assert take(hooked).event.resource.payment_id != new_payment.payment_id


def test_an_attempt_that_ends_after_its_merchant_was_deleted_is_recorded_nowhere(hooked: Sandbox) -> None:
    create(hooked)
    task = take(hooked)
    hooked.remove_merchant(MERCHANT_ID)

    recorded = hooked.webhooks.record(task, BODY, AttemptResult(URL, 200, 1.0))
    hooked.webhooks.finish(task)

    assert recorded is None
    assert MERCHANT_ID not in hooked.store.merchant_ids()


def test_a_turn_taken_as_its_merchant_is_deleted_makes_no_space_for_it(
    hooked: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(hooked)
    take_delivery = hooked.store.take_delivery

    def taken_then_deleted(timeout: float, stopped: Callable[[], bool] = lambda: False) -> Turn | None:
        turn = take_delivery(timeout, stopped)
        if turn is not None:
            hooked.remove_merchant(MERCHANT_ID)  # a delete landing right after the take
        return turn

    monkeypatch.setattr(hooked.store, "take_delivery", taken_then_deleted)

    assert hooked.webhooks.next_task(0) is None
    assert MERCHANT_ID not in hooked.store.merchant_ids()


def test_a_turn_whose_task_cannot_be_prepared_is_let_go_and_logged(
    hooked: Sandbox, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    create(hooked)
    [event] = hooked.store.events(MERCHANT_ID)

    def broken(merchant_id: str, resource: Any) -> None:
        raise ResourceNotFound("Merchant")

    monkeypatch.setattr(hooked.merchants, "event_profile", broken)

    assert hooked.webhooks.next_task(0) is None  # the thread that asked goes on
    assert hooked.webhooks.pending(MERCHANT_ID) == 0  # and the merchant's queue with it
    assert [r.getMessage() for r in caplog.records] == [
        f"the delivery of {event.event_id} could not be prepared"
    ]


def test_with_nothing_queued_next_task_is_none(hooked: Sandbox) -> None:
    assert hooked.webhooks.next_task(0) is None


def test_first_failed_attempt_leaves_the_delivery_retrying_a_minute_later(hooked: Sandbox) -> None:
    create(hooked)

    task, _ = attempt(hooked, FAILED)

    event_id = task.event.event_id
    assert delivery(hooked, event_id) == EventDelivery(
        event_id,
        MERCHANT_ID,
        T0,
        state=D.RETRYING,
        attempts=1,
        scheduled_attempts=1,
        next_attempt_at=at(60),
        body=BODY,
    )
    assert timers(hooked) == [(at(60), RETRY_TIMER, event_id)]
    assert RETRY_TIMER == "webhook.retry"


def test_a_failed_attempt_is_recorded_with_its_status_code_and_latency(hooked: Sandbox) -> None:
    create(hooked)

    task, recorded = attempt(hooked, FAILED)

    assert recorded is not None
    assert recorded.attempt_id.startswith("att_")
    assert recorded == DeliveryAttempt(
        attempt_id=recorded.attempt_id,
        event_id=task.event.event_id,
        merchant_id=MERCHANT_ID,
        attempted_at=T0,
        url=URL,
        number=1,
        manual=False,
        succeeded=False,
        status_code=500,
        latency_ms=12.3,
        error=None,
    )
    assert attempts(hooked) == [recorded]


def test_an_attempt_without_an_answer_is_recorded_with_its_error(hooked: Sandbox) -> None:
    create(hooked)

    _, recorded = attempt(hooked, TIMED_OUT)

    assert recorded is not None
    assert (recorded.succeeded, recorded.status_code, recorded.latency_ms, recorded.error) == (
        False,
        None,
        5000.0,
        "timeout: the receiver did not answer in time",
    )


@pytest.mark.parametrize("status_code", [200, 201, 202, 204, 299])
def test_any_2xx_is_a_success(status_code: int) -> None:
    assert AttemptResult(URL, status_code, 1.0).succeeded is True


@pytest.mark.parametrize("status_code", [None, 100, 199, 300, 301, 400, 404, 500, 503])
def test_anything_but_a_2xx_is_a_failure(status_code: int | None) -> None:
    assert AttemptResult(URL, status_code, 1.0).succeeded is False


def test_a_failed_first_attempt_queues_nothing_until_the_retry_is_due(hooked: Sandbox) -> None:
    create(hooked)
    attempt(hooked, FAILED)

    hooked.scheduler.advance(MERCHANT_ID, 59)

    assert not queued(hooked)
    assert hooked.webhooks.next_task(0) is None


def test_advancing_the_clock_to_the_retry_queues_it_again(hooked: Sandbox) -> None:
    create(hooked)
    first, _ = attempt(hooked, FAILED)

    _, fired = hooked.scheduler.advance(MERCHANT_ID, 60)

    assert [(t.due_at, t.kind, t.target_id) for t in fired] == [(at(60), RETRY_TIMER, first.event.event_id)]
    retry = take(hooked)
    assert (retry.event, retry.manual, retry.url) == (first.event, False, URL)
    assert retry.delivery.state is D.RETRYING


def test_the_retry_is_recorded_at_the_time_it_fell_due(hooked: Sandbox) -> None:
    create(hooked)
    attempt(hooked, FAILED)
    hooked.scheduler.advance(MERCHANT_ID, 60)

    task, recorded = attempt(hooked, FAILED)

    assert recorded is not None
    assert (recorded.number, recorded.attempted_at, recorded.manual) == (2, at(60), False)
    assert delivery(hooked, task.event.event_id).next_attempt_at == at(60 + 300)


def test_each_retry_waits_the_next_delay_of_the_schedule(hooked: Sandbox) -> None:
    create(hooked)
    task, _ = attempt(hooked, FAILED)
    event_id = task.event.event_id
    waits = []
    for delay in RETRY_DELAYS:
        before = delivery(hooked, event_id)
        assert before.next_attempt_at is not None
        waits.append((before.next_attempt_at - hooked.clock.now(MERCHANT_ID)).total_seconds())
        hooked.scheduler.advance(MERCHANT_ID, delay)
        attempt(hooked, FAILED)

    assert waits == list(SCHEDULE)


def test_after_17_failed_scheduled_attempts_the_delivery_fails(hooked: Sandbox) -> None:
    event_id = fail_every_scheduled_attempt(hooked)

    assert delivery(hooked, event_id) == EventDelivery(
        event_id,
        MERCHANT_ID,
        T0,
        state=D.FAILED,
        attempts=17,
        scheduled_attempts=17,
        next_attempt_at=None,
        body=BODY,
    )
    assert [a.number for a in attempts(hooked)] == list(range(1, 18))


def test_the_last_attempt_is_a_day_and_a_minute_after_the_first(hooked: Sandbox) -> None:
    fail_every_scheduled_attempt(hooked)

    assert attempts(hooked)[-1].attempted_at == at(86_460)


def attempt_while_queued(sandbox: Sandbox, *results: AttemptResult) -> int:
    """Make the queued attempts, as the dispatcher would, each with the next of `results` (the last
    one for the rest); how many were made."""
    made = 0
    while queued(sandbox) and made < 50:
        attempt(sandbox, results[min(made, len(results) - 1)])
        made += 1
    return made


def test_one_advance_past_the_whole_schedule_makes_every_retry_at_its_own_time(hooked: Sandbox) -> None:
    create(hooked)
    task, _ = attempt(hooked, FAILED)

    hooked.scheduler.advance(MERCHANT_ID, 2 * 24 * 3600)

    assert attempt_while_queued(hooked, FAILED) == 16
    due = list(itertools.accumulate(SCHEDULE, initial=0))
    assert [a.attempted_at for a in attempts(hooked)] == [at(seconds) for seconds in due]
    assert (delivery(hooked, task.event.event_id).state, timers(hooked)) == (D.FAILED, [])


def test_an_advance_past_some_retries_makes_those_and_sets_the_next_on_the_clock(hooked: Sandbox) -> None:
    create(hooked)
    task, _ = attempt(hooked, FAILED)

    hooked.scheduler.advance(MERCHANT_ID, 700)  # past the retries due at 60, 360 and 660 s

    assert attempt_while_queued(hooked, FAILED) == 3
    assert [a.attempted_at for a in attempts(hooked)] == [at(0), at(60), at(360), at(660)]
    assert delivery(hooked, task.event.event_id).next_attempt_at == at(1260)
    assert timers(hooked) == [(at(1260), RETRY_TIMER, task.event.event_id)]


def test_a_retry_that_succeeds_ends_the_retries_an_advance_fell_past(hooked: Sandbox) -> None:
    create(hooked)
    task, _ = attempt(hooked, FAILED)
    hooked.scheduler.advance(MERCHANT_ID, 2 * 24 * 3600)

    assert attempt_while_queued(hooked, FAILED, SUCCEEDED) == 2

    assert [a.attempted_at for a in attempts(hooked)] == [at(0), at(60), at(360)]
    assert (delivery(hooked, task.event.event_id).state, timers(hooked)) == (D.DELIVERED, [])


def test_a_first_attempt_an_advance_fell_past_is_made_at_its_time_and_its_retries_walked(
    hooked: Sandbox,
) -> None:
    # Held for 10 minutes by chaos, and released by the advance: due then, not at the advance's end.
    hooked.webhooks.set_chaos(MERCHANT_ID, duplicate=False, out_of_order=False, delay_seconds=600, seed=None)
    create(hooked)

    hooked.scheduler.advance(MERCHANT_ID, 2 * 24 * 3600)

    assert attempt_while_queued(hooked, FAILED) == 17
    due = list(itertools.accumulate(SCHEDULE, initial=600))
    assert [a.attempted_at for a in attempts(hooked)] == [at(seconds) for seconds in due]


def test_after_giving_up_nothing_more_is_scheduled(hooked: Sandbox) -> None:
    fail_every_scheduled_attempt(hooked)

    assert timers(hooked) == []
    hooked.scheduler.advance(MERCHANT_ID, 30 * 24 * 3600)
    assert not queued(hooked)
    assert len(attempts(hooked)) == 17


def test_a_successful_first_attempt_delivers(hooked: Sandbox) -> None:
    create(hooked)

    task, recorded = attempt(hooked, SUCCEEDED)

    event_id = task.event.event_id
    assert delivery(hooked, event_id) == EventDelivery(
        event_id, MERCHANT_ID, T0, state=D.DELIVERED, attempts=1, scheduled_attempts=1, body=BODY
    )
    assert recorded is not None
    assert (recorded.succeeded, recorded.status_code, recorded.number) == (True, 200, 1)
    assert timers(hooked) == []


def test_a_successful_retry_delivers_and_schedules_no_more(hooked: Sandbox) -> None:
    create(hooked)
    task, _ = attempt(hooked, FAILED)
    hooked.scheduler.advance(MERCHANT_ID, 60)

    attempt(hooked, SUCCEEDED)

    after = delivery(hooked, task.event.event_id)
    assert (after.state, after.attempts, after.scheduled_attempts, after.next_attempt_at) == (
        D.DELIVERED,
        2,
        2,
        None,
    )
    assert timers(hooked) == []


def test_redeliver_queues_a_manual_attempt(hooked: Sandbox) -> None:
    create(hooked)
    first, _ = attempt(hooked, SUCCEEDED)

    hooked.webhooks.redeliver(MERCHANT_ID, first.event.event_id)

    again = take(hooked)
    assert (again.event, again.manual, again.url) == (first.event, True, URL)


def test_redeliver_of_an_unknown_event_is_not_found(hooked: Sandbox) -> None:
    with pytest.raises(ResourceNotFound) as raised:
        hooked.webhooks.redeliver(MERCHANT_ID, "evt_unknown")
    assert (raised.value.code, raised.value.message) == ("HE_02", "Event does not exist in our records")
    assert not queued(hooked)


def test_a_failed_manual_redelivery_leaves_the_schedule_alone(hooked: Sandbox) -> None:
    create(hooked)
    first, _ = attempt(hooked, FAILED)
    event_id = first.event.event_id
    hooked.scheduler.advance(MERCHANT_ID, 20)
    hooked.webhooks.redeliver(MERCHANT_ID, event_id)

    _, recorded = attempt(hooked, FAILED)

    assert recorded is not None
    assert (recorded.number, recorded.manual, recorded.attempted_at) == (2, True, at(20))
    assert delivery(hooked, event_id) == EventDelivery(
        event_id,
        MERCHANT_ID,
        T0,
        state=D.RETRYING,
        attempts=2,
        scheduled_attempts=1,
        next_attempt_at=at(60),
        body=BODY,
    )
    assert timers(hooked) == [(at(60), RETRY_TIMER, event_id)]


def test_a_manual_redelivery_does_not_use_up_a_scheduled_retry(hooked: Sandbox) -> None:
    create(hooked)
    first, _ = attempt(hooked, FAILED)
    hooked.webhooks.redeliver(MERCHANT_ID, first.event.event_id)
    attempt(hooked, FAILED)
    hooked.scheduler.advance(MERCHANT_ID, 60)

    attempt(hooked, FAILED)

    # The third attempt is the first scheduled retry: the next one waits 5 minutes, not 5 again after.
    assert delivery(hooked, first.event.event_id).next_attempt_at == at(60 + 300)


def test_a_failed_manual_redelivery_of_a_failed_delivery_schedules_nothing(hooked: Sandbox) -> None:
    event_id = fail_every_scheduled_attempt(hooked)
    hooked.webhooks.redeliver(MERCHANT_ID, event_id)

    attempt(hooked, FAILED)

    after = delivery(hooked, event_id)
    assert (after.state, after.attempts, after.next_attempt_at) == (D.FAILED, 18, None)
    assert timers(hooked) == []


def test_a_successful_manual_redelivery_of_a_failed_delivery_delivers(hooked: Sandbox) -> None:
    event_id = fail_every_scheduled_attempt(hooked)
    hooked.webhooks.redeliver(MERCHANT_ID, event_id)

    attempt(hooked, SUCCEEDED)

    assert delivery(hooked, event_id).state is D.DELIVERED


def test_a_successful_manual_redelivery_stops_the_retries(hooked: Sandbox) -> None:
    create(hooked)
    first, _ = attempt(hooked, FAILED)
    hooked.webhooks.redeliver(MERCHANT_ID, first.event.event_id)
    attempt(hooked, SUCCEEDED)

    hooked.scheduler.advance(MERCHANT_ID, 60)

    assert not queued(hooked)
    assert delivery(hooked, first.event.event_id).state is D.DELIVERED
    assert len(attempts(hooked)) == 2


def test_a_retry_that_fell_due_behind_a_successful_redelivery_is_not_sent(hooked: Sandbox) -> None:
    # The redelivery is queued first; the retry falls due while it waits, then the redelivery
    # succeeds: the event is delivered, and a retry of it now would only be a duplicate.
    create(hooked)
    first, _ = attempt(hooked, FAILED)
    hooked.webhooks.redeliver(MERCHANT_ID, first.event.event_id)
    hooked.scheduler.advance(MERCHANT_ID, 60)
    attempt(hooked, SUCCEEDED)

    assert hooked.webhooks.next_task(0) is None


def test_without_a_url_the_delivery_has_no_endpoint_and_queues_nothing(sandbox: Sandbox) -> None:
    create(sandbox)

    (event,) = sandbox.store.events(MERCHANT_ID)
    assert delivery(sandbox, event.event_id) == EventDelivery(
        event.event_id, MERCHANT_ID, T0, state=D.NO_ENDPOINT
    )
    assert sandbox.webhooks.next_task(0) is None
    assert attempts(sandbox) == []
    assert timers(sandbox) == []


def test_a_manual_redelivery_without_a_url_is_refused(sandbox: Sandbox) -> None:
    create(sandbox)
    (event,) = sandbox.store.events(MERCHANT_ID)

    with pytest.raises(PreconditionFailed):
        sandbox.webhooks.redeliver(MERCHANT_ID, event.event_id)

    assert sandbox.webhooks.next_task(0) is None


def test_a_manual_redelivery_whose_url_goes_before_its_attempt_records_nothing(sandbox: Sandbox) -> None:
    create(sandbox)
    (event,) = sandbox.store.events(MERCHANT_ID)
    sandbox.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": URL})
    sandbox.webhooks.redeliver(MERCHANT_ID, event.event_id)
    sandbox.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": None})

    task, recorded = attempt(sandbox, None, None)

    assert (task.url, task.manual, recorded) == (None, True, None)
    assert delivery(sandbox, event.event_id).state is D.NO_ENDPOINT
    assert attempts(sandbox) == []


def test_a_manual_redelivery_after_a_url_is_set_is_attempted(sandbox: Sandbox) -> None:
    create(sandbox)
    (event,) = sandbox.store.events(MERCHANT_ID)
    sandbox.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": URL})
    sandbox.webhooks.redeliver(MERCHANT_ID, event.event_id)

    task, recorded = attempt(sandbox, SUCCEEDED)

    assert (task.url, task.manual) == (URL, True)
    assert recorded is not None
    assert delivery(sandbox, event.event_id).state is D.DELIVERED


def test_the_url_is_read_when_the_attempt_is_made(hooked: Sandbox) -> None:
    create(hooked)
    moved = "http://127.0.0.1:9/moved"
    hooked.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": moved})

    assert take(hooked).url == moved


def test_the_body_is_recorded_at_the_first_failed_attempt(hooked: Sandbox) -> None:
    create(hooked)
    first = take(hooked)
    assert first.delivery.body is None

    hooked.webhooks.record(first, BODY, FAILED)
    hooked.webhooks.finish(first)

    assert delivery(hooked, first.event.event_id).body == BODY


def test_a_retry_carries_the_body_of_the_first_attempt(hooked: Sandbox) -> None:
    create(hooked)
    attempt(hooked, FAILED)
    hooked.scheduler.advance(MERCHANT_ID, 60)

    retry = take(hooked)

    assert retry.delivery.body == BODY


def test_every_retry_carries_the_body_of_the_first_attempt(hooked: Sandbox) -> None:
    create(hooked)
    attempt(hooked, FAILED)
    bodies = []
    for delay in RETRY_DELAYS:
        hooked.scheduler.advance(MERCHANT_ID, delay)
        task = take(hooked)
        bodies.append(task.delivery.body)
        hooked.webhooks.record(task, task.delivery.body, FAILED)
        hooked.webhooks.finish(task)

    assert bodies == [BODY] * len(RETRY_DELAYS)


def test_a_redelivery_after_a_failure_carries_the_body_of_the_first_attempt(hooked: Sandbox) -> None:
    create(hooked)
    first, _ = attempt(hooked, FAILED)
    hooked.webhooks.redeliver(MERCHANT_ID, first.event.event_id)

    again = take(hooked)

    assert again.delivery.body == BODY


def test_the_body_is_kept_once_delivered_for_a_redelivery_by_hand(hooked: Sandbox) -> None:
    create(hooked)
    first, _ = attempt(hooked, SUCCEEDED)

    hooked.webhooks.redeliver(MERCHANT_ID, first.event.event_id)

    assert delivery(hooked, first.event.event_id).body == take(hooked).delivery.body == BODY


def test_with_a_serializer_the_body_is_written_when_the_event_happens(hooked: Sandbox) -> None:
    written: list[str] = []

    def serialize(event: Event) -> bytes:
        written.append(event.event_id)
        return f"body of {event.event_id} at {len(hooked.store.events(MERCHANT_ID))}".encode()

    hooked.webhooks.serialize = serialize
    create(hooked)
    (event,) = hooked.store.events(MERCHANT_ID)
    create(hooked, payment_id="pay_later")

    assert written[0] == event.event_id
    assert take(hooked).delivery.body == f"body of {event.event_id} at 1".encode()


def test_no_body_is_written_for_an_event_with_no_endpoint(sandbox: Sandbox) -> None:
    sandbox.webhooks.serialize = lambda event: pytest.fail("an event nobody receives was serialized")
    create(sandbox)

    (event,) = sandbox.store.events(MERCHANT_ID)
    assert delivery(sandbox, event.event_id).state is D.NO_ENDPOINT


def test_an_attempt_taken_before_a_reset_is_not_recorded_on_the_event_that_took_its_id(
    hooked: Sandbox,
) -> None:
    hooked.store.seed_ids(MERCHANT_ID, IdState(42, MERCHANT_ID))
    create(hooked)
    before = take(hooked)
    hooked.reset(MERCHANT_ID)
    hooked.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": URL})
    hooked.store.seed_ids(MERCHANT_ID, IdState(42, MERCHANT_ID))
    create(hooked, amount=2000)
    (event,) = hooked.store.events(MERCHANT_ID)
    assert event.event_id == before.event.event_id  # the same seeded id

    recorded = hooked.webhooks.record(before, BODY, SUCCEEDED)
    hooked.webhooks.finish(before)

    assert recorded is None
    assert attempts(hooked) == []
    assert delivery(hooked, event.event_id) == EventDelivery(event.event_id, MERCHANT_ID, T0)
    assert take(hooked).event is event


def test_one_delivery_per_object_and_event_type(hooked: Sandbox) -> None:
    created = create(hooked)

    again = hooked.outbox.emit(
        MERCHANT_ID,
        EventType.PAYMENT_SUCCEEDED,
        ContentType.PAYMENT_DETAILS,
        created.payment_id,
        created,
        at=created.modified_at,
    )

    assert again is None
    assert len(hooked.store.events(MERCHANT_ID)) == 1
    assert hooked.webhooks.pending(MERCHANT_ID) == 1


def test_a_second_partial_capture_queues_no_second_delivery(hooked: Sandbox) -> None:
    created = create(hooked, capture_method="manual_multiple")
    hooked.payments.capture(MERCHANT_ID, created.payment_id, 300)
    hooked.payments.capture(MERCHANT_ID, created.payment_id, 300)

    assert [e.event_type for e in hooked.store.events(MERCHANT_ID)] == [
        "payment_authorized",
        "payment_captured",
    ]
    assert hooked.webhooks.pending(MERCHANT_ID) == 2


def test_a_merchants_deliveries_are_taken_one_at_a_time_in_order(hooked: Sandbox) -> None:
    created = create(hooked, capture_method="manual")
    hooked.payments.capture(MERCHANT_ID, created.payment_id)
    first = take(hooked)

    held_back = hooked.webhooks.next_task(0)
    hooked.webhooks.finish(first)
    second = take(hooked)

    assert held_back is None
    assert [first.event.event_type, second.event.event_type] == ["payment_authorized", "payment_succeeded"]


def test_deliveries_of_another_merchant_are_not_held_back(hooked: Sandbox) -> None:
    other = hooked.merchants.create(MerchantSeed(merchant_id="merchant_other", webhook_url=URL))
    create(hooked)
    hooked.payments.create(
        "merchant_other", payment(profile_id=other.profile.profile_id, payment_id="pay_other")
    )
    first = take(hooked)

    second = take(hooked)

    assert {first.merchant_id, second.merchant_id} == {MERCHANT_ID, "merchant_other"}


def test_reset_drops_queued_deliveries(hooked: Sandbox) -> None:
    create(hooked)
    create(hooked, capture_method="manual")

    hooked.reset(MERCHANT_ID)

    assert hooked.webhooks.pending(MERCHANT_ID) == 0
    assert hooked.webhooks.next_task(0) is None


def test_reset_drops_the_retry_timers_and_attempts(hooked: Sandbox) -> None:
    create(hooked)
    attempt(hooked, FAILED)

    hooked.reset(MERCHANT_ID)

    assert timers(hooked) == []
    assert attempts(hooked) == []
    assert hooked.webhooks.events(MERCHANT_ID, 10, 0) == ([], 0)


def test_an_attempt_in_flight_during_a_reset_records_nothing(hooked: Sandbox) -> None:
    create(hooked)
    task = take(hooked)
    hooked.reset(MERCHANT_ID)

    recorded = hooked.webhooks.record(task, BODY, FAILED)
    hooked.webhooks.finish(task)

    assert recorded is None
    assert attempts(hooked) == []
    assert hooked.webhooks.pending(MERCHANT_ID) == 0


def test_events_are_listed_newest_first_with_their_delivery(hooked: Sandbox) -> None:
    created = create(hooked, capture_method="manual")
    hooked.scheduler.advance(MERCHANT_ID, 5)
    hooked.payments.capture(MERCHANT_ID, created.payment_id)

    listed, total = hooked.webhooks.events(MERCHANT_ID, 10, 0)

    assert total == 2
    assert [(event.event_type, event.created, d.state) for event, d in listed] == [
        ("payment_succeeded", at(5), D.PENDING),
        ("payment_authorized", T0, D.PENDING),
    ]


def test_wait_for_drained_deliveries_answers_false_while_one_is_queued(hooked: Sandbox) -> None:
    create(hooked)

    assert hooked.webhooks.drained(MERCHANT_ID, 0) is False


def test_wait_for_drained_deliveries_answers_true_once_attempted(hooked: Sandbox) -> None:
    create(hooked)
    attempt(hooked, SUCCEEDED)

    assert hooked.webhooks.drained(MERCHANT_ID, 0) is True
    assert hooked.webhooks.pending(MERCHANT_ID) == 0


def test_a_delivery_in_flight_is_pending(hooked: Sandbox) -> None:
    create(hooked)
    task = take(hooked)

    assert (hooked.webhooks.pending(MERCHANT_ID), hooked.webhooks.drained(MERCHANT_ID, 0)) == (1, False)
    hooked.webhooks.finish(task)
    assert (hooked.webhooks.pending(MERCHANT_ID), hooked.webhooks.drained(MERCHANT_ID, 0)) == (0, True)


def test_the_retry_uses_the_url_in_force_when_it_falls_due(hooked: Sandbox) -> None:
    create(hooked)
    attempt(hooked, FAILED)
    moved = "http://127.0.0.1:9/moved"
    hooked.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": moved})
    hooked.scheduler.advance(MERCHANT_ID, 60)

    assert take(hooked).url == moved


def test_a_retry_due_while_the_url_is_removed_keeps_to_the_schedule(hooked: Sandbox) -> None:
    create(hooked)
    first, _ = attempt(hooked, FAILED)
    hooked.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": None})
    hooked.scheduler.advance(MERCHANT_ID, 60)

    attempt(hooked, None)  # nothing sent, nothing recorded

    after = delivery(hooked, first.event.event_id)
    assert (after.state, after.attempts, after.scheduled_attempts) == (D.RETRYING, 1, 2)
    assert after.next_attempt_at == at(60 + 300)
    assert len(attempts(hooked)) == 1
    hooked.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": URL})
    hooked.scheduler.advance(MERCHANT_ID, 300)
    _, recorded = attempt(hooked, SUCCEEDED)
    assert recorded is not None
    assert (recorded.number, delivery(hooked, first.event.event_id).state) == (2, D.DELIVERED)


def test_the_last_retry_due_with_no_url_gives_up(hooked: Sandbox) -> None:
    create(hooked)
    first, _ = attempt(hooked, FAILED)
    hooked.merchants.update_profile(MERCHANT_ID, PROFILE_ID, {"webhook_url": None})
    for delay in RETRY_DELAYS:
        hooked.scheduler.advance(MERCHANT_ID, delay)
        attempt(hooked, None)

    after = delivery(hooked, first.event.event_id)
    assert (after.state, after.attempts, after.scheduled_attempts, after.next_attempt_at) == (
        D.FAILED,
        1,
        17,
        None,
    )


# -- closing and opening, as the dispatcher stops and starts -------------------------------------

PROMPTLY = 1.0  # seconds: a call that is to answer at once answers well within this
DEADLINE = 10.0  # seconds a call on another thread may take to answer on a loaded machine
LONG = 60.0  # the timeout of a wait that closing must cut short: never reached when it does


def test_after_close_a_wait_for_drained_deliveries_answers_false_at_once(hooked: Sandbox) -> None:
    create(hooked)
    hooked.webhooks.close()

    started = time.monotonic()
    drained = hooked.webhooks.drained(MERCHANT_ID, LONG)

    assert drained is False
    assert time.monotonic() - started < PROMPTLY


def test_closing_answers_a_wait_for_drained_deliveries_under_way(hooked: Sandbox) -> None:
    create(hooked)
    answers: list[bool] = []
    waiting = threading.Thread(target=lambda: answers.append(hooked.webhooks.drained(MERCHANT_ID, LONG)))
    waiting.start()

    hooked.webhooks.close()

    waiting.join(DEADLINE)
    assert answers == [False]


def test_a_closed_service_hands_out_no_task(hooked: Sandbox) -> None:
    create(hooked)

    hooked.webhooks.close()

    assert hooked.webhooks.next_task(0) is None
    assert hooked.webhooks.pending(MERCHANT_ID) == 1


def test_an_attempt_in_flight_at_close_is_made_again_after_open(hooked: Sandbox) -> None:
    create(hooked)
    cut_short = take(hooked)

    hooked.webhooks.close()
    hooked.webhooks.open()
    task = take(hooked)

    assert task.event.event_id == cut_short.event.event_id
    assert delivery(hooked, task.event.event_id).state is D.PENDING
    assert attempts(hooked) == []


def test_once_open_again_deliveries_drain(hooked: Sandbox) -> None:
    create(hooked)
    hooked.webhooks.close()

    hooked.webhooks.open()
    attempt(hooked, SUCCEEDED)

    assert hooked.webhooks.drained(MERCHANT_ID, 0) is True


# -- verify_signature against fixed vectors -----------------------------------------------------

# HMAC-SHA512 of VECTOR_BODY keyed with whsec_default_signing_key, computed once with
# `openssl dgst -sha512 -hmac` and written down.
VECTOR_BODY = b'{"merchant_id":"merchant_default","event_id":"evt_1","event_type":"payment_succeeded"}'
VECTOR_SIGNATURE = (
    "b86c2096f1c8162f4238b9d43b3baf9d4fff014843065cf9835aa0ba0acc7ed9"
    "f7586bf05afd000d298fbe176df4adddcb5350cfb59fad0d70a04ce7d5aa8565"
)
# RFC 4231, test case 2 (HMAC-SHA-512).
RFC_4231_KEY = "Jefe"
RFC_4231_DATA = b"what do ya want for nothing?"
RFC_4231_SIGNATURE = (
    "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75"
    "c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
)


def test_the_signature_header_is_named_as_the_spec_says() -> None:
    assert SIGNATURE_HEADER == "X-Webhook-Signature-512"


def test_verify_accepts_the_fixed_vector() -> None:
    assert verify_signature(VECTOR_BODY, VECTOR_SIGNATURE, SIGNING_KEY) is True


def test_verify_accepts_the_rfc_4231_vector() -> None:
    assert verify_signature(RFC_4231_DATA, RFC_4231_SIGNATURE, RFC_4231_KEY) is True


def test_verify_accepts_an_uppercase_hex_header() -> None:
    assert verify_signature(VECTOR_BODY, VECTOR_SIGNATURE.upper(), SIGNING_KEY) is True


def test_verify_refuses_the_wrong_key() -> None:
    assert verify_signature(VECTOR_BODY, VECTOR_SIGNATURE, "whsec_another_signing_key") is False


@pytest.mark.parametrize(
    "body",
    [
        VECTOR_BODY.replace(b"evt_1", b"evt_2"),
        VECTOR_BODY + b"\n",
        VECTOR_BODY.replace(b":", b": "),
        b"",
    ],
    ids=["changed-value", "trailing-newline", "re-serialized-with-spaces", "empty"],
)
def test_verify_refuses_a_modified_body(body: bytes) -> None:
    assert verify_signature(body, VECTOR_SIGNATURE, SIGNING_KEY) is False


@pytest.mark.parametrize("header", [None, ""], ids=["missing", "empty"])
def test_verify_refuses_a_missing_header(header: str | None) -> None:
    assert verify_signature(VECTOR_BODY, header, SIGNING_KEY) is False


@pytest.mark.parametrize(
    "header",
    [
        VECTOR_SIGNATURE[:-2],
        VECTOR_SIGNATURE + "00",
        VECTOR_SIGNATURE[:-1] + "6",
        "sha512=" + VECTOR_SIGNATURE,
        "é",
        VECTOR_SIGNATURE[:-1] + "\udc80",
    ],
    ids=["truncated", "extended", "last-digit-changed", "prefixed", "not-ascii", "lone-surrogate"],
)
def test_verify_refuses_a_header_that_is_not_the_signature(header: str) -> None:
    assert verify_signature(VECTOR_BODY, header, SIGNING_KEY) is False
