"""WebhookService: the delivery state of each event, its attempts, the retry schedule, and the
chaos a merchant can ask for (duplicates, deliveries out of order, deliveries held on the clock)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import ResourceNotFound
from mocksrv.domain.events import ContentType, Event
from mocksrv.domain.ids import new_id
from mocksrv.domain.merchants import MerchantService
from mocksrv.domain.models import Page, evolve
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import Collection, MemoryStore, Query
from mocksrv.domain.transitions import TransitionTable, rows

DELIVERIES = "webhook_delivery"
ATTEMPTS = "delivery_attempt"
CHAOS = "webhook_chaos"
HOLDS = "webhook_hold"
RETRY_TIMER = "webhook.retry"
RELEASE_TIMER = "webhook.release"

# How the store keeps a merchant's chaos setting (one record, by merchant id) and its held deliveries.
CHAOS_COLLECTIONS = (
    Collection(CHAOS, "merchant_id", ordered=False),
    Collection(HOLDS, "hold_id"),
)
# Seconds on the mock clock that an out-of-order batch stays open when no delay is set.
OUT_OF_ORDER_WINDOW = 1
MAX_CHAOS_DELAY = 30 * 24 * 3600

# Seconds to wait before each retry after a failed attempt; after the last, delivery gives up.
RETRY_DELAYS: tuple[int, ...] = (60, 300, 300, *[600] * 5, *[3600] * 5, *[6 * 3600] * 3)


class DeliveryState(StrEnum):
    PENDING = "pending"  # queued for its first attempt
    RETRYING = "retrying"  # failed; the next attempt waits on the mock clock
    DELIVERED = "delivered"  # a receiver answered 2xx
    FAILED = "failed"  # every scheduled attempt failed
    NO_ENDPOINT = "no_endpoint"  # the profile had no webhook URL when it was due


class DeliveryEvent(StrEnum):
    SUCCEED = "attempt.succeeded"
    RETRY = "attempt.failed"
    GIVE_UP = "attempt.gave_up"
    MANUAL_FAIL = "attempt.manual_failed"
    SKIP = "skip.no_endpoint"


D = DeliveryState
_ALL = list(DeliveryState)
DELIVERY_TRANSITIONS: TransitionTable[DeliveryState, DeliveryEvent] = TransitionTable(
    "Delivery",
    [
        *rows(_ALL, DeliveryEvent.SUCCEED, D.DELIVERED),
        *rows([D.PENDING, D.RETRYING], DeliveryEvent.RETRY, D.RETRYING),
        *rows([D.PENDING, D.RETRYING], DeliveryEvent.GIVE_UP, D.FAILED),
        # A failed attempt outside the schedule (a redelivery by hand, or a deliberate duplicate)
        # changes no schedule: the state stays, or says it failed.
        *[
            row
            for state in _ALL
            for row in rows(
                [state],
                DeliveryEvent.MANUAL_FAIL,
                D.FAILED if state in (D.FAILED, D.NO_ENDPOINT) else state,
            )
        ],
        *rows([D.PENDING, D.RETRYING], DeliveryEvent.SKIP, D.NO_ENDPOINT),
    ],
)


# The states in which a scheduled attempt is still wanted.
_AWAITING_ATTEMPT = frozenset({DeliveryState.PENDING, DeliveryState.RETRYING})


class ChaosMode(StrEnum):
    """What a merchant's webhook chaos did to an attempt."""

    DUPLICATE = "duplicate"  # a deliberate second delivery of an event already delivered
    OUT_OF_ORDER = "out_of_order"  # held in a batch, then sent newest first (or shuffled by a seed)
    DELAY = "delay"  # held on the mock clock for the merchant's delay


@dataclass(frozen=True, slots=True)
class WebhookChaos:
    """How a merchant's deliveries misbehave on purpose; the defaults are no chaos at all."""

    merchant_id: str
    duplicate: bool = False
    out_of_order: bool = False
    delay_seconds: int = 0
    seed: int | None = None
    open_batch: str | None = None  # the hold of the out-of-order batch still taking events

    @property
    def holds(self) -> bool:
        """Whether a new event's first attempt waits on the mock clock."""
        return self.out_of_order or self.delay_seconds > 0


@dataclass(frozen=True, slots=True)
class DeliveryHold:
    """Events whose first attempt waits on the mock clock until `release_at`, then goes in `mode`'s order."""

    hold_id: str  # the id of its first event
    merchant_id: str
    created: datetime
    release_at: datetime
    event_ids: tuple[str, ...]
    mode: ChaosMode
    seed: int | None = None

    def release_order(self) -> list[str]:
        """Held by delay: the order they happened in. Out of order: newest first; with a seed, a
        shuffle drawn from it (the same for the same seed and count), never the order they happened in."""
        happened = list(self.event_ids)
        if self.mode is not ChaosMode.OUT_OF_ORDER:
            return happened
        if self.seed is None or len(happened) < 2:
            return happened[::-1]
        draws = random.Random(self.seed)
        while True:
            shuffled = happened.copy()
            draws.shuffle(shuffled)
            if shuffled != happened:
                return shuffled


@dataclass(frozen=True, slots=True)
class EventDelivery:
    """Where an event stands: its state, attempts so far, and the bytes it is sent as."""

    event_id: str
    merchant_id: str
    created: datetime
    state: DeliveryState = DeliveryState.PENDING
    attempts: int = 0
    scheduled_attempts: int = 0  # the attempts that were not redeliveries by hand
    next_attempt_at: datetime | None = None  # of a held first attempt too: when it is released
    body: bytes | None = None  # serialized once, at the first attempt; every attempt sends it
    held_by: ChaosMode | None = None  # the chaos that held its first attempt on the mock clock

    @property
    def succeeded(self) -> bool | None:
        """Whether it was delivered; None while its first attempt is still to come."""
        if self.state is DeliveryState.DELIVERED:
            return True
        return None if self.state is DeliveryState.PENDING and self.attempts == 0 else False


@dataclass(frozen=True, slots=True)
class DeliveryAttempt:
    attempt_id: str
    event_id: str
    merchant_id: str
    attempted_at: datetime
    url: str
    number: int
    manual: bool
    succeeded: bool
    status_code: int | None = None
    latency_ms: float | None = None
    error: str | None = None
    duplicate: bool = False  # a deliberate duplicate of an attempt that delivered the event
    chaos: ChaosMode | None = None  # what the merchant's webhook chaos did to this attempt


@dataclass(frozen=True, slots=True)
class AttemptResult:
    """What the dispatcher saw: a status code, or an error instead."""

    url: str
    status_code: int | None
    latency_ms: float
    error: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


@dataclass(frozen=True, slots=True)
class DeliveryTask:
    """One attempt to make: the event, where to send it, and the key to sign it with."""

    merchant_id: str
    event: Event
    delivery: EventDelivery
    url: str | None
    signing_key: str
    manual: bool
    duplicate: bool = False  # the deliberate duplicate of an attempt that delivered the event
    send_duplicate: bool = False  # once this attempt delivers the event, send it again at once


@dataclass(frozen=True, slots=True)
class EventFilter:
    """Which events a list keeps; a criterion left None keeps every event. Times are inclusive."""

    created_after: datetime | None = None
    created_before: datetime | None = None
    object_id: str | None = None
    event_id: str | None = None
    profile_id: str | None = None
    event_types: frozenset[str] | None = None
    content_types: frozenset[ContentType] | None = None
    delivered: bool | None = None

    def keeps(self, event: Event, delivery: EventDelivery) -> bool:
        return (
            (self.created_after is None or event.created >= self.created_after)
            and (self.created_before is None or event.created <= self.created_before)
            and (self.object_id is None or event.object_id == self.object_id)
            and (self.event_id is None or event.event_id == self.event_id)
            and (self.event_types is None or event.event_type in self.event_types)
            and (self.content_types is None or event.content_type in self.content_types)
            and (self.delivered is None or (delivery.state is DeliveryState.DELIVERED) == self.delivered)
        )


class WebhookService:
    def __init__(
        self, store: MemoryStore, clock: Clock, scheduler: Scheduler, merchants: MerchantService
    ) -> None:
        self._store = store
        self._clock = clock
        self._scheduler = scheduler
        self._merchants = merchants
        scheduler.register(RETRY_TIMER, self._retry_due)
        scheduler.register(RELEASE_TIMER, self._release_due)

    # -- the outbox side ----------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Queue a new event's first attempt; called in the transaction that appended it."""
        state = DeliveryState.PENDING
        if self._merchants.default_profile(event.merchant_id).webhook_url is None:
            state = DELIVERY_TRANSITIONS.require(state, DeliveryEvent.SKIP).target
        delivery = EventDelivery(event.event_id, event.merchant_id, event.created, state)
        chaos: WebhookChaos | None = self._store.get(CHAOS, event.merchant_id, event.merchant_id)
        if state is DeliveryState.PENDING and chaos is not None and chaos.holds:
            delivery = self._hold(chaos, event, delivery)
        self._store.put(DELIVERIES, event.merchant_id, delivery)
        if state is DeliveryState.PENDING and delivery.held_by is None:
            self._store.enqueue_delivery(event.merchant_id, event.event_id, manual=False)

    def redeliver(self, merchant_id: str, event_id: str) -> EventDelivery:
        """Send an event again now, whatever its state."""
        delivery = self.delivery(merchant_id, event_id)
        self._store.enqueue_delivery(merchant_id, event_id, manual=True)
        return delivery

    def _retry_due(self, merchant_id: str, event_id: str) -> None:
        delivery: EventDelivery | None = self._store.get(DELIVERIES, merchant_id, event_id)
        if delivery is not None and delivery.state is DeliveryState.RETRYING:
            self._store.enqueue_delivery(merchant_id, event_id, manual=False)

    def _hold(self, chaos: WebhookChaos, event: Event, delivery: EventDelivery) -> EventDelivery:
        """Hold a new event's first attempt on the mock clock: alone for the delay, or in the open
        out-of-order batch (one opens with it if none is open)."""
        merchant_id = event.merchant_id
        hold: DeliveryHold | None = None
        if chaos.out_of_order and chaos.open_batch is not None:
            hold = self._store.get(HOLDS, merchant_id, chaos.open_batch)
        if hold is not None:
            hold = evolve(hold, event_ids=(*hold.event_ids, event.event_id))
        else:
            mode = ChaosMode.OUT_OF_ORDER if chaos.out_of_order else ChaosMode.DELAY
            seconds = chaos.delay_seconds or OUT_OF_ORDER_WINDOW
            release_at = event.created + timedelta(seconds=seconds)
            hold = DeliveryHold(
                event.event_id, merchant_id, event.created, release_at, (event.event_id,), mode, chaos.seed
            )
            self._scheduler.schedule(merchant_id, release_at, RELEASE_TIMER, hold.hold_id)
            if chaos.out_of_order:
                self._store.put(CHAOS, merchant_id, evolve(chaos, open_batch=hold.hold_id))
        self._store.put(HOLDS, merchant_id, hold)
        return evolve(delivery, next_attempt_at=hold.release_at, held_by=hold.mode)

    def _release_due(self, merchant_id: str, hold_id: str) -> None:
        """Queue the first attempts a hold kept back, in its order; those made moot meanwhile (reset,
        or delivered by hand) are left out."""
        hold: DeliveryHold | None = self._store.get(HOLDS, merchant_id, hold_id)
        if hold is None:
            return
        self._store.delete(HOLDS, merchant_id, hold_id)
        chaos: WebhookChaos | None = self._store.get(CHAOS, merchant_id, merchant_id)
        if chaos is not None and chaos.open_batch == hold_id:
            self._store.put(CHAOS, merchant_id, evolve(chaos, open_batch=None))
        for event_id in hold.release_order():
            delivery: EventDelivery | None = self._store.get(DELIVERIES, merchant_id, event_id)
            if delivery is None or delivery.state is not DeliveryState.PENDING or delivery.scheduled_attempts:
                continue
            self._store.put(DELIVERIES, merchant_id, evolve(delivery, next_attempt_at=None))
            self._store.enqueue_delivery(merchant_id, event_id, manual=False)

    # -- the dispatcher side ------------------------------------------------------------------

    def next_task(self, timeout: float, stopped: Callable[[], bool] = lambda: False) -> DeliveryTask | None:
        """Take the next attempt to make, waiting up to `timeout` seconds; None if nothing came,
        once `stopped()` turns true, or while delivery is closed."""
        deadline = time.monotonic() + timeout
        while taken := self._store.take_delivery(max(0.0, deadline - time.monotonic()), stopped):
            merchant_id, event_id, manual = taken
            event = self._store.event(merchant_id, event_id)
            delivery: EventDelivery | None = self._store.get(DELIVERIES, merchant_id, event_id)
            stale = delivery is not None and not manual and delivery.state not in _AWAITING_ATTEMPT
            if event is None or delivery is None or stale:
                # Reset since it was queued, or a retry that a redelivery by hand made moot.
                self._store.finish_delivery(merchant_id)
                continue
            profile = self._merchants.default_profile(merchant_id)
            chaos: WebhookChaos | None = self._store.get(CHAOS, merchant_id, merchant_id)
            return DeliveryTask(
                merchant_id,
                event,
                delivery,
                profile.webhook_url,
                profile.payment_response_hash_key,
                manual,
                send_duplicate=not manual and chaos is not None and chaos.duplicate,
            )
        return None

    def record(
        self, task: DeliveryTask, body: bytes | None, result: AttemptResult | None
    ) -> DeliveryAttempt | None:
        """Record an attempt (None: there was no URL to send to) and schedule what follows.

        The body is kept while another attempt may follow, so that every attempt sends the same
        bytes; once delivered it is dropped (serializing the same snapshot gives the same bytes).
        """
        merchant_id = task.merchant_id
        with self._store.transaction(merchant_id):
            delivery: EventDelivery | None = self._store.get(DELIVERIES, merchant_id, task.event.event_id)
            if delivery is None:
                return None
            now = self._clock.now(merchant_id)
            off_schedule = task.manual or task.duplicate  # attempts that change no schedule
            if result is None:
                if not off_schedule:
                    self._move(delivery, DeliveryEvent.SKIP)
                return None
            scheduled = delivery.scheduled_attempts  # before this one
            held_by = delivery.held_by if not off_schedule and scheduled == 0 else None
            number = delivery.attempts + 1
            attempt = DeliveryAttempt(
                attempt_id=new_id("att", entropy=self._store.ids(merchant_id)),
                event_id=delivery.event_id,
                merchant_id=merchant_id,
                attempted_at=now,
                url=result.url,
                number=number,
                manual=task.manual,
                succeeded=result.succeeded,
                status_code=result.status_code,
                latency_ms=round(result.latency_ms, 1),
                error=result.error,
                duplicate=task.duplicate,
                chaos=ChaosMode.DUPLICATE if task.duplicate else held_by,
            )
            self._store.put(ATTEMPTS, merchant_id, attempt)
            if result.succeeded:
                event = DeliveryEvent.SUCCEED
            elif off_schedule:
                event = DeliveryEvent.MANUAL_FAIL
            elif scheduled < len(RETRY_DELAYS):
                event = DeliveryEvent.RETRY
            else:
                event = DeliveryEvent.GIVE_UP
            next_at = None
            if event is DeliveryEvent.RETRY:
                next_at = now + timedelta(seconds=RETRY_DELAYS[scheduled])
                self._scheduler.schedule(merchant_id, next_at, RETRY_TIMER, delivery.event_id)
            elif event is DeliveryEvent.MANUAL_FAIL:
                next_at = delivery.next_attempt_at
            self._move(
                delivery,
                event,
                attempts=number,
                scheduled_attempts=scheduled + (0 if off_schedule else 1),
                next_attempt_at=next_at,
                body=None if event is DeliveryEvent.SUCCEED else body,
            )
            return attempt

    def follow_up(
        self, task: DeliveryTask, body: bytes | None, attempt: DeliveryAttempt | None
    ) -> DeliveryTask | None:
        """The deliberate duplicate to send at once after `attempt`, when the task asks for one and
        the attempt delivered the event: the same bytes, signed alike. None otherwise."""
        if not task.send_duplicate or body is None or attempt is None or not attempt.succeeded:
            return None
        return replace(task, delivery=evolve(task.delivery, body=body), duplicate=True, send_duplicate=False)

    def finish(self, task: DeliveryTask) -> None:
        """Let the merchant's next delivery go; called once per task, whatever happened."""
        self._store.finish_delivery(task.merchant_id)

    def _move(self, delivery: EventDelivery, event: DeliveryEvent, **changes: Any) -> None:
        row = DELIVERY_TRANSITIONS.require(delivery.state, event)
        self._store.put(DELIVERIES, delivery.merchant_id, evolve(delivery, state=row.target, **changes))

    # -- chaos --------------------------------------------------------------------------------

    def chaos(self, merchant_id: str) -> WebhookChaos:
        """The merchant's webhook chaos; none set reads as no chaos at all."""
        chaos: WebhookChaos | None = self._store.get(CHAOS, merchant_id, merchant_id)
        return chaos or WebhookChaos(merchant_id)

    def set_chaos(
        self, merchant_id: str, *, duplicate: bool, out_of_order: bool, delay_seconds: int, seed: int | None
    ) -> WebhookChaos:
        """Replace the merchant's webhook chaos; it applies to events from now on (a batch still open
        keeps taking them while out_of_order stays on)."""
        with self._store.transaction(merchant_id):
            old = self.chaos(merchant_id)
            chaos = WebhookChaos(
                merchant_id,
                duplicate,
                out_of_order,
                delay_seconds,
                seed,
                open_batch=old.open_batch if out_of_order else None,
            )
            self._store.put(CHAOS, merchant_id, chaos)
            return chaos

    def clear_chaos(self, merchant_id: str) -> WebhookChaos:
        """Deliver as usual from now on; deliveries already held are released at their time."""
        with self._store.transaction(merchant_id):
            self._store.delete(CHAOS, merchant_id, merchant_id)
            return self.chaos(merchant_id)

    def held(self, merchant_id: str) -> int:
        """How many of the merchant's deliveries are held on the mock clock."""
        with self._store.transaction(merchant_id):
            total = self._store.count(HOLDS, merchant_id)
            page = self._store.query(HOLDS, merchant_id, Query(limit=total))
            holds: list[DeliveryHold] = page.items
            return sum(len(hold.event_ids) for hold in holds)

    # -- reads --------------------------------------------------------------------------------

    def delivery(self, merchant_id: str, event_id: str) -> EventDelivery:
        delivery: EventDelivery | None = self._store.get(DELIVERIES, merchant_id, event_id)
        if delivery is None:
            raise ResourceNotFound("Event")
        return delivery

    def events(
        self, merchant_id: str, limit: int, offset: int
    ) -> tuple[list[tuple[Event, EventDelivery]], int]:
        """The merchant's events, newest first, each with its delivery."""
        events = self._store.events(merchant_id)
        page = list(reversed(events))[offset : offset + limit]
        return [(event, self.delivery(merchant_id, event.event_id)) for event in page], len(events)

    def find_events(
        self, merchant_id: str, where: EventFilter, limit: int, offset: int
    ) -> tuple[list[tuple[Event, EventDelivery]], int]:
        """The merchant's events that `where` keeps, newest first, each with its delivery; and how many
        it keeps in all. Every event belongs to the merchant's default profile."""
        profile_id = where.profile_id
        if profile_id is not None and profile_id != self._merchants.default_profile(merchant_id).profile_id:
            return [], 0
        kept = [
            (event, delivery)
            for event in reversed(self._store.events(merchant_id))
            if where.keeps(event, delivery := self.delivery(merchant_id, event.event_id))
        ]
        return kept[offset : offset + limit], len(kept)

    def event(self, merchant_id: str, event_id: str) -> tuple[Event, EventDelivery]:
        """One event with its delivery."""
        event = self._store.event(merchant_id, event_id)
        if event is None:
            raise ResourceNotFound("Event")
        return event, self.delivery(merchant_id, event_id)

    def event_attempts(self, merchant_id: str, event_id: str) -> list[DeliveryAttempt]:
        """Every attempt to deliver one event, oldest first."""
        self.event(merchant_id, event_id)
        of_event = {"event_id": event_id}
        total = self._store.query(ATTEMPTS, merchant_id, Query(where=of_event, limit=0)).total_count
        page = self._store.query(ATTEMPTS, merchant_id, Query(where=of_event, limit=total))
        attempts: list[DeliveryAttempt] = page.items
        return sorted(attempts, key=lambda attempt: attempt.number)

    def attempts(self, merchant_id: str, event_id: str | None, limit: int, offset: int) -> Page:
        where = {} if event_id is None else {"event_id": event_id}
        return self._store.query(ATTEMPTS, merchant_id, Query(where=where, limit=limit, offset=offset))

    def drained(self, merchant_id: str, timeout: float) -> bool:
        """Wait until the merchant's queued deliveries have been attempted; False if `timeout` passes
        first, or at once while delivery is closed."""
        return self._store.wait_deliveries_drained(merchant_id, timeout)

    def pending(self, merchant_id: str) -> int:
        return self._store.deliveries_pending(merchant_id)

    def wake(self) -> None:
        self._store.wake_deliveries()

    # -- opening and closing ------------------------------------------------------------------

    def close(self) -> None:
        """Stop delivering, as when the dispatcher stops: every wait for drained deliveries, under way
        or later, answers False at once, and no task is handed out. An attempt in flight that was
        not recorded yet goes back to the head of its merchant's queue, and is listed as pending."""
        self._store.close_deliveries()

    def open(self) -> None:
        """Deliver again after close(), from where the queues stand."""
        self._store.open_deliveries()
