"""Rate limiting per API key, in one-minute windows of the merchant's mock clock."""

from __future__ import annotations

from dataclasses import dataclass

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import RateLimited
from mocksrv.domain.models import Principal
from mocksrv.domain.store import MemoryStore

WINDOW_SECONDS = 60


@dataclass(frozen=True, slots=True)
class RateStatus:
    limit: int
    remaining: int
    reset: int  # Unix time at which the window ends


class RateLimiter:
    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def hit(self, principal: Principal) -> RateStatus | None:
        """Count a request; raise RateLimited past the limit. None when limiting is off."""
        if principal.rate_limit <= 0:
            return None
        now = int(self._clock.now(principal.merchant_id).timestamp())
        window = now // WINDOW_SECONDS
        count = self._store.increment(principal.merchant_id, f"rate:{principal.key_id}", window)
        status = RateStatus(
            limit=principal.rate_limit,
            remaining=max(0, principal.rate_limit - count),
            reset=(window + 1) * WINDOW_SECONDS,
        )
        if count > principal.rate_limit:
            raise RateLimited(status.reset, status.limit)
        return status
