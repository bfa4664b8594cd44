"""WebhookService: the delivery state of each event, its attempts and retries, and the chaos a merchant
can ask for (duplicates, deliveries out of order, deliveries held on the clock)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import PreconditionFailed, ResourceNotFound
from mocksrv.domain.events import Event
from mocksrv.domain.ids import new_id
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.merchants import MerchantService
from mocksrv.domain.models import Page, evolve
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import MemoryStore, Query, Turn
from mocksrv.domain.webhooks.chaos import (
    CHAOS,
    HOLDS,
    OUT_OF_ORDER_WINDOW,
    RELEASE_TIMER,
    ChaosMode,
    DeliveryHold,
    WebhookChaos,
)
from mocksrv.domain.webhooks.records import (
    ATTEMPTS,
    AWAITING_ATTEMPT,
    DELIVERIES,
    DELIVERY_TRANSITIONS,
    RETRY_DELAYS,
    RETRY_TIMER,
    AttemptResult,
    DeliveryAttempt,
    DeliveryEvent,
    DeliveryState,
    DeliveryTask,
    EventDelivery,
    EventFilter,
)

log = logging.getLogger(__name__)
NO_URL_TO_REDELIVER = (
    "The event's business profile has no webhook URL, or is deleted: there is nowhere to send it"
)


class WebhookService:
    def __init__(
        self, store: MemoryStore, clock: Clock, scheduler: Scheduler, merchants: MerchantService
    ) -> None:
        self._store = store
        self._clock = clock
        self._scheduler = scheduler
        self._merchants = merchants
        # Delivery states change through their table as every resource's do; they emit no events.
        self._deliveries: Lifecycle[EventDelivery, DeliveryState, DeliveryEvent] = Lifecycle(
            store,
            None,
            DELIVERY_TRANSITIONS,
            kind=DELIVERIES,
            id_field="event_id",
            status_field="state",
            stamp_field=None,
        )
        # Writes an event's body as it will be sent: set by the dispatcher, which knows the server's
        # address. Without one, the first attempt writes it.
        self.serialize: Callable[[Event], bytes] | None = None
        scheduler.register(RETRY_TIMER, self._retry_due)
        scheduler.register(RELEASE_TIMER, self._release_due)

    # -- the outbox side ----------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Queue a new event's first attempt; called in the transaction that appended it."""
        state = DeliveryState.PENDING
        profile = self._merchants.event_profile(event.merchant_id, event.resource)
        if profile is None or profile.webhook_url is None:
            state = DELIVERY_TRANSITIONS.require(state, DeliveryEvent.SKIP).target
        # Written now, in the transaction of the change: the resource as it is when the event happens,
        # whenever the attempts go (held by chaos, behind a busy receiver, redelivered by hand).
        body = self.serialize(event) if state is DeliveryState.PENDING and self.serialize else None
        chaos: WebhookChaos | None = None  # what chaos there is now decides, not when the attempts go
        if state is DeliveryState.PENDING:
            chaos = self._store.get(CHAOS, event.merchant_id, event.merchant_id)
        delivery = EventDelivery(
            event.event_id,
            event.merchant_id,
            event.created,
            state,
            body=body,
            duplicated=chaos is not None and chaos.duplicate,
        )
        if chaos is not None and chaos.holds:
            delivery = self._hold(chaos, event, delivery)
        self._store.put(DELIVERIES, event.merchant_id, delivery)
        if state is DeliveryState.PENDING and delivery.held_by is None:
            self._store.enqueue_delivery(event.merchant_id, event.event_id, manual=False)

    def redeliver(self, merchant_id: str, event_id: str) -> EventDelivery:
        """Send an event again now, whatever its state; refused (IR_16) when its profile has no
        webhook URL, or is deleted, as nothing would be sent or recorded."""
        event = self._store.event(merchant_id, event_id)
        if event is None:
            raise ResourceNotFound("Event")
        delivery = self.delivery(merchant_id, event_id)
        profile = self._merchants.event_profile(merchant_id, event.resource)
        if profile is None or profile.webhook_url is None:
            raise PreconditionFailed(NO_URL_TO_REDELIVER)
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
            if delivery is None or not delivery.awaits_release:
                continue
            # Due now: its `next_attempt_at`, the release time, stays until the attempt is made.
            self._store.enqueue_delivery(merchant_id, event_id, manual=False)

    # -- the dispatcher side ------------------------------------------------------------------

    def next_task(self, timeout: float, stopped: Callable[[], bool] = lambda: False) -> DeliveryTask | None:
        """Take the next attempt to make, waiting up to `timeout` seconds; None if nothing came,
        once `stopped()` turns true, or while delivery is closed."""
        deadline = time.monotonic() + timeout
        while turn := self._store.take_delivery(max(0.0, deadline - time.monotonic()), stopped):
            try:
                task = self._task_of(turn)
            except Exception:  # a fault of mocksrv's: the turn goes on, and the thread that asked
                log.exception("the delivery of %s could not be prepared", turn.event_id)
                task = None
            if task is not None:
                return task
            self._store.finish_delivery(turn)
        return None

    def _task_of(self, turn: Turn) -> DeliveryTask | None:
        """The attempt a turn is for; None if there is none to make: its merchant deleted since, its
        event reset since it was queued, or a retry that a redelivery by hand made moot. Read under
        the merchant's lock, so that a delete meanwhile makes no space again for it."""
        merchant_id, event_id, manual = turn.merchant_id, turn.event_id, turn.manual
        with self._store.transaction_if_held(merchant_id) as held:
            if not held:
                return None
            event = self._store.event(merchant_id, event_id)
            delivery: EventDelivery | None = self._store.get(DELIVERIES, merchant_id, event_id)
            stale = delivery is not None and not manual and delivery.state not in AWAITING_ATTEMPT
            if event is None or delivery is None or stale:
                return None
            # Sent per the profile of the event's payment (refund, ...), as it stands now.
            profile = self._merchants.event_profile(merchant_id, event.resource)
        return DeliveryTask(
            merchant_id,
            event,
            delivery,
            None if profile is None else profile.webhook_url,
            "" if profile is None else profile.payment_response_hash_key,
            manual,
            send_duplicate=not manual and delivery.duplicated,
            turn=turn,
        )

    def record(
        self, task: DeliveryTask, body: bytes | None, result: AttemptResult | None
    ) -> DeliveryAttempt | None:
        """Record an attempt (None: there was no URL to send to) and schedule what follows.

        The body is kept, so that every attempt, a redelivery by hand included, sends the same bytes.
        An attempt of an event that is gone since it was taken (a reset, a restored snapshot) is
        not recorded, even where a new event took its id.
        """
        merchant_id = task.merchant_id
        with self._store.transaction_if_held(merchant_id) as held:
            if not held:
                return None  # deleted while its attempt was in flight: nothing is made again for it
            delivery: EventDelivery | None = self._store.get(DELIVERIES, merchant_id, task.event.event_id)
            if delivery is None or self._store.event(merchant_id, task.event.event_id) is not task.event:
                return None
            now = self._clock.now(merchant_id)
            off_schedule = task.manual or task.duplicate  # attempts that change no schedule
            # A scheduled attempt is recorded at the time it fell due (the event's, a hold's release,
            # a retry's): after an advance past several, each is made in turn at its own time, and
            # the next counted from there (`_scheduled_failure`).
            due = delivery.next_attempt_at or delivery.created
            at = now if off_schedule else min(due, now)
            if result is None:
                if off_schedule:
                    return None
                if delivery.state is DeliveryState.PENDING:
                    self._deliveries.move(delivery, DeliveryEvent.SKIP, now)
                else:  # a retry due while there is no URL: nothing sent, the schedule goes on
                    self._scheduled_failure(delivery, at, now)
                return None
            scheduled = delivery.scheduled_attempts  # before this one
            held_by = delivery.held_by if not off_schedule and scheduled == 0 else None
            number = delivery.attempts + 1
            attempt = DeliveryAttempt(
                attempt_id=new_id("att", entropy=self._store.ids(merchant_id)),
                event_id=delivery.event_id,
                merchant_id=merchant_id,
                attempted_at=at,
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
            changes: dict[str, Any] = {"attempts": number, "body": body}
            if result.succeeded:
                scheduled += 0 if off_schedule else 1
                self._deliveries.move(
                    delivery,
                    DeliveryEvent.SUCCEED,
                    now,
                    scheduled_attempts=scheduled,
                    next_attempt_at=None,
                    **changes,
                )
            elif off_schedule:
                self._deliveries.move(delivery, DeliveryEvent.MANUAL_FAIL, now, **changes)
            else:
                self._scheduled_failure(delivery, at, now, **changes)
            return attempt

    def _scheduled_failure(
        self, delivery: EventDelivery, at: datetime, now: datetime, **changes: Any
    ) -> None:
        """A scheduled attempt, due `at`, failed or found no URL: the next one on the schedule,
        counted from `at`, or give up. A next one already due (the clock was advanced past it) is
        queued at once, behind what the merchant has queued, rather than set on a timer."""
        scheduled = delivery.scheduled_attempts
        if scheduled < len(RETRY_DELAYS):
            next_at = at + timedelta(seconds=RETRY_DELAYS[scheduled])
            if next_at <= now:
                self._store.enqueue_delivery(delivery.merchant_id, delivery.event_id, manual=False)
            else:
                self._scheduler.schedule(delivery.merchant_id, next_at, RETRY_TIMER, delivery.event_id)
            event = DeliveryEvent.RETRY
        else:
            next_at, event = None, DeliveryEvent.GIVE_UP
        self._deliveries.move(
            delivery, event, now, scheduled_attempts=scheduled + 1, next_attempt_at=next_at, **changes
        )

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
        self._store.finish_delivery(task.turn)

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
            deliveries = (
                self._store.get(DELIVERIES, merchant_id, event_id)
                for hold in holds
                for event_id in hold.event_ids
            )
            return sum(1 for delivery in deliveries if delivery is not None and delivery.awaits_release)

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
        it keeps in all. An event belongs to the profile of its payment (refund, ...)."""
        profile_id = where.profile_id
        profile_of = self._merchants.profile_id_of
        kept = [
            (event, delivery)
            for event in reversed(self._store.events(merchant_id))
            if (profile_id is None or profile_of(merchant_id, event.resource) == profile_id)
            and where.keeps(event, delivery := self.delivery(merchant_id, event.event_id))
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
        return self._attempts_of(merchant_id, event_id)

    def attempts(self, merchant_id: str, event_id: str | None, limit: int, offset: int) -> Page:
        """Delivery attempts, newest first; one event's by their number, since a duplicate made in
        the same millisecond as the attempt before it would otherwise come in the order of its id."""
        if event_id is None:
            return self._store.query(ATTEMPTS, merchant_id, Query(limit=limit, offset=offset))
        newest_first = self._attempts_of(merchant_id, event_id)[::-1]
        return Page(newest_first[offset : offset + limit], len(newest_first))

    def _attempts_of(self, merchant_id: str, event_id: str) -> list[DeliveryAttempt]:
        of_event = {"event_id": event_id}
        total = self._store.query(ATTEMPTS, merchant_id, Query(where=of_event, limit=0)).total_count
        page = self._store.query(ATTEMPTS, merchant_id, Query(where=of_event, limit=total))
        attempts: list[DeliveryAttempt] = page.items
        return sorted(attempts, key=lambda attempt: attempt.number)

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
