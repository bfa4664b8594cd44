"""The request journal: each merchant's latest API requests, in a bounded ring, for checking afterwards.

A test asks it what a merchant backend actually sent ("exactly one capture"), so an entry keeps
what was asked and answered, never more than the newest `size` of them per merchant.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from fnmatch import fnmatchcase
from typing import Any, cast

from mocksrv.domain.controls.faults import AppliedFault

DEFAULT_SIZE = 1000


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One request of a merchant as it was answered; its bodies are already masked."""

    number: int  # counts the merchant's requests from 1, and goes on counting after a clear
    at: datetime  # on the merchant's clock
    method: str
    path: str
    query: str
    status: int | None  # None when the client got no answer (a dropped connection)
    latency_ms: float
    key_kind: str | None
    request_body: Any
    response_body: Any
    fault: AppliedFault | None = None

    @property
    def request_id(self) -> str:
        return f"req_{self.number}"


@dataclass(frozen=True, slots=True)
class JournalFilter:
    """Which entries a query wants; a criterion left None takes every entry."""

    method: str | None = None
    path: str | None = None  # a glob pattern, as fnmatch reads it: `/payments/*/capture`
    status: int | None = None
    since: datetime | None = None  # at or after, on the merchant's clock

    def matches(self, entry: JournalEntry) -> bool:
        return (
            (self.method is None or entry.method == self.method.upper())
            and (self.status is None or entry.status == self.status)
            and (self.since is None or entry.at >= self.since)
            and (self.path is None or fnmatchcase(entry.path, self.path))
        )


EVERY_ENTRY = JournalFilter()


class _Ring:
    """One merchant's entries, oldest first, and the number its next entry takes."""

    __slots__ = ("entries", "lock", "next_number")

    def __init__(self, size: int) -> None:
        self.entries: deque[JournalEntry] = deque(maxlen=size)
        self.lock = threading.Lock()
        self.next_number = 1


class RequestJournal:
    """Every merchant's ring of requests; size 0 records nothing."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        if size < 0:
            raise ValueError("a journal's size is 0 or more")
        self.size = size
        self._rings: dict[str, _Ring] = {}
        self._lock = threading.Lock()  # guards the making of rings, not their contents

    @property
    def enabled(self) -> bool:
        return self.size > 0

    def record(
        self,
        merchant_id: str,
        *,
        at: datetime,
        method: str,
        path: str,
        query: str,
        status: int | None,
        latency_ms: float,
        key_kind: str | None,
        request_body: Any,
        response_body: Any,
        fault: AppliedFault | None = None,
        ring: object | None = None,
    ) -> JournalEntry | None:
        """Add a request to the merchant's ring, pushing out its oldest when full; None when off.

        `ring`, from `ring_of` as the request was let in, keeps a request out of a ring cleared (a
        reset) or forgotten (the merchant deleted, or made again under the same id) while it ran.
        """
        if not self.enabled:
            return None
        if ring is None:
            ring = self._ring(merchant_id)
        elif self._rings.get(merchant_id) is not ring:
            return None
        ring = cast(_Ring, ring)
        with ring.lock:
            entry = JournalEntry(
                ring.next_number,
                at,
                method,
                path,
                query,
                status,
                latency_ms,
                key_kind,
                request_body,
                response_body,
                fault,
            )
            ring.next_number += 1
            ring.entries.append(entry)
        return entry

    def ring_of(self, merchant_id: str) -> object | None:
        """The merchant's ring as it is now, for `record` to name later; None when off."""
        return self._ring(merchant_id) if self.enabled else None

    def entries(
        self, merchant_id: str, wanted: JournalFilter = EVERY_ENTRY, limit: int | None = None, offset: int = 0
    ) -> tuple[list[JournalEntry], int]:
        """A page of the merchant's matching entries, newest first, and how many match in all."""
        matching = [entry for entry in reversed(self._snapshot(merchant_id)) if wanted.matches(entry)]
        end = None if limit is None else offset + limit
        return matching[offset:end], len(matching)

    def count(self, merchant_id: str, wanted: JournalFilter = EVERY_ENTRY) -> int:
        return sum(1 for entry in self._snapshot(merchant_id) if wanted.matches(entry))

    def clear(self, merchant_id: str) -> int:
        """Forget the merchant's entries; returns how many there were. Numbering goes on, in a ring
        of its own: a request let in before is not recorded (see `record`)."""
        with self._lock:
            ring = self._rings.get(merchant_id)
            if ring is None:
                return 0
            fresh = self._rings[merchant_id] = _Ring(self.size)
            with ring.lock:
                fresh.next_number = ring.next_number
                return len(ring.entries)

    def current(self, merchant_id: str, ring: object) -> bool:
        """Whether `ring` (from `ring_of`) is still the merchant's: not cleared, forgotten or made anew."""
        return self._rings.get(merchant_id) is ring

    def forget(self, merchant_id: str) -> None:
        """Forget the merchant's entries and their numbering: the merchant is deleted."""
        with self._lock:
            self._rings.pop(merchant_id, None)

    def _snapshot(self, merchant_id: str) -> list[JournalEntry]:
        ring = self._rings.get(merchant_id)
        if ring is None:
            return []
        with ring.lock:
            return list(ring.entries)

    def _ring(self, merchant_id: str) -> _Ring:
        ring = self._rings.get(merchant_id)
        if ring is None:
            with self._lock:
                ring = self._rings.setdefault(merchant_id, _Ring(self.size))
        return ring
