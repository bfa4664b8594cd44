"""Webhook chaos a merchant can ask for: duplicates, deliveries out of order, deliveries held on the
mock clock; the setting and the holds are records of the store."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated

from mocksrv.domain.bounds import Within
from mocksrv.domain.store import Collection

CHAOS = "webhook_chaos"
HOLDS = "webhook_hold"
RELEASE_TIMER = "webhook.release"


# How the store keeps a merchant's chaos setting (one record, by merchant id) and its held deliveries.
CHAOS_COLLECTIONS = (
    Collection(CHAOS, "merchant_id", ordered=False),
    Collection(HOLDS, "hold_id"),
)
# Seconds on the mock clock that an out-of-order batch stays open when no delay is set.
OUT_OF_ORDER_WINDOW = 1
MAX_CHAOS_DELAY = 30 * 24 * 3600


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
    delay_seconds: Annotated[int, Within(0, MAX_CHAOS_DELAY)] = 0
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
