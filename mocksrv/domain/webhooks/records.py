"""An event's delivery: its states and their table, its attempts, and the retry schedule."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from mocksrv.domain.events import ContentType, Event
from mocksrv.domain.store import Turn
from mocksrv.domain.transitions import TransitionTable, rows
from mocksrv.domain.webhooks.chaos import ChaosMode

DELIVERIES = "webhook_delivery"
ATTEMPTS = "delivery_attempt"
RETRY_TIMER = "webhook.retry"

# Seconds to wait before each retry after a failed attempt; after the last, delivery gives up.
RETRY_DELAYS: tuple[int, ...] = (60, 300, 300, *[600] * 5, *[3600] * 5, *[6 * 3600] * 3)


class DeliveryState(StrEnum):
    PENDING = "pending"  # queued for its first attempt
    RETRYING = "retrying"  # failed; the next attempt waits on the mock clock
    DELIVERED = "delivered"  # a receiver answered 2xx
    FAILED = "failed"  # every scheduled attempt failed
    NO_ENDPOINT = "no_endpoint"  # the profile had no webhook URL when its first attempt was due


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
        # No URL at the first attempt; a retry that finds none keeps to its schedule.
        *rows([D.PENDING], DeliveryEvent.SKIP, D.NO_ENDPOINT),
    ],
)


# The states in which a scheduled attempt is still wanted.
AWAITING_ATTEMPT = frozenset({DeliveryState.PENDING, DeliveryState.RETRYING})


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
    body: bytes | None = None  # serialized once; every attempt sends it
    held_by: ChaosMode | None = None  # the chaos that held its first attempt on the mock clock
    duplicated: bool = False  # chaos, when the event happened, asked for a duplicate of its delivery

    @property
    def awaits_release(self) -> bool:
        """Whether a hold still keeps its first attempt back: nothing has made it moot yet (a reset,
        a redelivery by hand that got through, a scheduled attempt)."""
        return self.state is DeliveryState.PENDING and not self.scheduled_attempts

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
    turn: Turn  # the merchant's turn it was taken in, handed back once it is over
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
