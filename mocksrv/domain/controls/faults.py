"""Faults on demand: a merchant's rules that make the API misbehave for the requests they match.

A rule matches requests (method, a path pattern, values in the body), says what the client sees
(an error status, a 429, added latency, a dropped connection, a cut or broken body, a hang) and when
(before the request is processed, so nothing happens, or after, so it happened but the client cannot
tell), on a schedule: the next N matching requests, every Kth, a seeded probability, a window on the
merchant's clock. Rules are records of the store: a reset deletes them, a snapshot keeps them.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import Any

from mocksrv.domain.clock import Clock
from mocksrv.domain.equality import same
from mocksrv.domain.errors import InvalidField, ResourceNotFound
from mocksrv.domain.ids import new_id
from mocksrv.domain.store import MemoryStore

FAULTS = "fault"
MAX_FAULTS = 100  # rules a merchant may hold at once
PAUSE_LOOK = 0.25  # seconds between two looks of a paused request at whether its client is still there
ERROR_STATUSES = (500, 502, 503, 504)
RATE_LIMITED = 429
_NOT_IN_BODY = object()


class FaultEffect(StrEnum):
    ERROR = "error"  # a 5xx with the spec's error body
    RATE_LIMIT = "rate_limit"  # a 429 with Retry-After and the X-RateLimit-* headers
    LATENCY = "latency"  # the answer, late
    DROP = "drop"  # the connection closed without an answer
    TRUNCATE = "truncate"  # the answer's body cut short, the connection closed
    MALFORMED = "malformed"  # the answer's status and headers, with a body that is not JSON
    HANG = "hang"  # no answer until the client gives up (or `seconds` pass), then closed


class FaultTiming(StrEnum):
    BEFORE = "before"  # the request is not processed
    AFTER = "after"  # the request is processed, then the client sees the fault


# What only makes sense of an answer the request produced.
AFTER_ONLY = frozenset({FaultEffect.TRUNCATE, FaultEffect.MALFORMED})
# What holds the request's thread while it waits.
WAITING = frozenset({FaultEffect.LATENCY, FaultEffect.HANG})


@dataclass(frozen=True, slots=True)
class FaultRule:
    fault_id: str
    merchant_id: str
    created: datetime
    # -- which requests
    method: str | None  # upper case; None for any
    path: str  # a glob pattern, as fnmatch reads it: `/payments/*/capture`
    body: tuple[tuple[str, Any], ...]  # (dotted path, value) pairs the JSON body must hold
    # -- what the client sees, and when
    effect: FaultEffect
    timing: FaultTiming
    status: int | None  # for error and rate_limit
    retry_after: int | None  # seconds, for rate_limit
    milliseconds: int | None  # for latency
    seconds: float | None  # for hang: the most it holds the request (real seconds)
    # -- how often
    times: int | None  # apply to at most this many matching requests
    every: int | None  # apply to every Kth matching request
    probability: float | None  # apply with this chance, drawn from `seed` and the match's number
    seed: int
    active_from: datetime | None  # on the merchant's clock
    active_until: datetime | None
    # -- what it did
    matched: int = 0
    applied: int = 0

    def matches(self, method: str, path: str, body: Callable[[], Any]) -> bool:
        """Whether a request is one this rule is about (its schedule aside)."""
        if self.method is not None and method != self.method:
            return False
        if not fnmatchcase(path, self.path):
            return False
        return not self.body or all(same(_field(body(), name), value) for name, value in self.body)

    def fires(self, number: int, now: datetime) -> bool:
        """Whether the `number`th matching request, at `now`, gets the fault."""
        if self.times is not None and self.applied >= self.times:
            return False
        if self.active_from is not None and now < self.active_from:
            return False
        if self.active_until is not None and now >= self.active_until:
            return False
        if self.every is not None and number % self.every:
            return False
        return self.probability is None or _draw(self.seed, number) < self.probability


@dataclass(frozen=True, slots=True)
class AppliedFault:
    """The fault a request got, as the journal notes it."""

    fault_id: str
    effect: FaultEffect
    timing: FaultTiming
    status: int | None

    @classmethod
    def of(cls, rule: FaultRule) -> AppliedFault:
        return cls(rule.fault_id, rule.effect, rule.timing, rule.status)


def _field(body: Any, dotted: str) -> Any:
    for name in dotted.split("."):
        if not isinstance(body, Mapping) or name not in body:
            return _NOT_IN_BODY
        body = body[name]
    return body


def _draw(seed: int, number: int) -> float:
    """A number in [0, 1) made from the seed and the match's number alone: a run repeats exactly."""
    digest = hashlib.blake2b(f"{seed}:{number}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def check_rule(fields: Mapping[str, Any]) -> tuple[FaultEffect, FaultTiming]:
    """What a rule's fields (FaultRule's, checked by a schema) say together, beyond each field: its
    effect and its timing, or InvalidField."""
    effect = FaultEffect(fields["effect"])
    default = FaultTiming.AFTER if effect in AFTER_ONLY else FaultTiming.BEFORE
    timing = FaultTiming(fields.get("timing") or default)
    if effect in AFTER_ONLY and timing is FaultTiming.BEFORE:
        raise InvalidField("timing", f"a {effect.value} fault changes an answer, so it comes after")
    active_from, active_until = fields.get("active_from"), fields.get("active_until")
    if active_from is not None and active_until is not None and active_until <= active_from:
        raise InvalidField("schedule.until", "the window ends after it starts")
    return effect, timing


class FaultService:
    """Keeps each merchant's rules, and picks the fault a request gets."""

    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self._paused = threading.Lock()  # guards the two below
        self._stopping = False
        self._held: dict[str, set[threading.Event]] = {}  # per merchant: an event per paused request
        self._abandoned: set[threading.Event] = set()  # pauses whose requests are to go no further

    def pause(
        self,
        merchant_id: str,
        seconds: float,
        client_gone: Callable[[], bool] = lambda: False,
        slot: AbstractContextManager[object] | None = None,
    ) -> bool:
        """Hold the calling request for `seconds` of real time; less when its client has gone away
        (`client_gone`, looked at every PAUSE_LOOK seconds), when the merchant's pauses are released
        (its faults cleared, a reset, a restore, or the merchant deleted), or when the server stops
        (`stop_pauses()`). A test whose client gave up on a hang so leaves no request, thread or
        wait slot held behind it.

        False when the request is to go no further: its merchant was reset, restored or deleted
        meanwhile, and what it would do belongs to a merchant that is no more.

        `slot` (a wait slot) is held while the pause lasts, taken once the pause is known to the
        releases: one that comes as the slot is taken is not missed.
        """
        released = threading.Event()
        with self._paused:
            if self._stopping:
                return True
            self._held.setdefault(merchant_id, set()).add(released)
        try:
            with slot or nullcontext():
                deadline = time.monotonic() + seconds
                while not released.wait(max(0.0, min(deadline - time.monotonic(), PAUSE_LOOK))):
                    if time.monotonic() >= deadline or client_gone():
                        return True
                return released not in self._abandoned
        finally:
            with self._paused:
                held = self._held.get(merchant_id, set())
                held.discard(released)
                if not held:
                    self._held.pop(merchant_id, None)
                self._abandoned.discard(released)

    def release_pauses(self, merchant_id: str, *, abandon: bool = False) -> None:
        """End the merchant's pauses now; with `abandon` (a reset, a restore, a delete), their
        requests go no further."""
        with self._paused:
            for released in self._held.pop(merchant_id, set()):
                if abandon:
                    self._abandoned.add(released)
                released.set()

    def stop_pauses(self) -> None:
        """End every pause now and make later ones end at once: the server is stopping."""
        with self._paused:
            self._stopping = True
            for held in self._held.values():
                for released in held:
                    released.set()

    def allow_pauses(self) -> None:
        with self._paused:
            self._stopping = False

    def add(self, merchant_id: str, fields: Mapping[str, Any]) -> FaultRule:
        """Store a new rule; `fields` are FaultRule's, checked by the caller's schema."""
        effect, timing = check_rule(fields)
        active_from, active_until = fields.get("active_from"), fields.get("active_until")
        with self._store.transaction(merchant_id):
            if self._store.count(FAULTS, merchant_id) >= MAX_FAULTS:
                raise InvalidField("fault", f"a merchant holds at most {MAX_FAULTS} faults at once")
            rule = FaultRule(
                fault_id=new_id("flt", entropy=self._store.ids(merchant_id)),
                merchant_id=merchant_id,
                created=self._clock.now(merchant_id),
                method=fields.get("method"),
                path=fields.get("path") or "*",
                body=tuple(sorted((fields.get("body") or {}).items())),
                effect=effect,
                timing=timing,
                status=fields.get("status") or _default_status(effect),
                retry_after=fields.get("retry_after") if effect is FaultEffect.RATE_LIMIT else None,
                milliseconds=fields.get("milliseconds") if effect is FaultEffect.LATENCY else None,
                seconds=fields.get("seconds") if effect is FaultEffect.HANG else None,
                times=fields.get("times"),
                every=fields.get("every"),
                probability=fields.get("probability"),
                seed=fields.get("seed") or 0,
                active_from=active_from,
                active_until=active_until,
            )
            self._store.put(FAULTS, merchant_id, rule)
        return rule

    def list(self, merchant_id: str) -> list[FaultRule]:
        """The merchant's rules, oldest first: the order they are tried in."""
        return self._store.all(FAULTS, merchant_id)

    def retrieve(self, merchant_id: str, fault_id: str) -> FaultRule:
        rule: FaultRule | None = self._store.get(FAULTS, merchant_id, fault_id)
        if rule is None:
            raise ResourceNotFound("Fault")
        return rule

    def delete(self, merchant_id: str, fault_id: str) -> FaultRule:
        with self._store.transaction(merchant_id):
            rule = self.retrieve(merchant_id, fault_id)
            self._store.delete(FAULTS, merchant_id, fault_id)
        return rule

    def clear(self, merchant_id: str) -> int:
        """Delete every rule of the merchant, and end the pauses its rules hold; returns how many
        rules there were."""
        with self._store.transaction(merchant_id):
            rules = self.list(merchant_id)
            for rule in rules:
                self._store.delete(FAULTS, merchant_id, rule.fault_id)
        self.release_pauses(merchant_id)
        return len(rules)

    def pick(self, merchant_id: str, method: str, path: str, body: Callable[[], Any]) -> FaultRule | None:
        """Count the request against each rule it matches; return the first rule that fires for it."""
        if not self._store.count(FAULTS, merchant_id):
            return None
        with self._store.transaction(merchant_id):
            now = self._clock.now(merchant_id)
            picked: FaultRule | None = None
            for rule in self.list(merchant_id):
                if not rule.matches(method, path, body):
                    continue
                number = rule.matched + 1
                fires = picked is None and rule.fires(number, now)
                rule = replace(rule, matched=number, applied=rule.applied + fires)
                self._store.put(FAULTS, merchant_id, rule)
                if fires:
                    picked = rule
            return picked


def _default_status(effect: FaultEffect) -> int | None:
    if effect is FaultEffect.ERROR:
        return 503
    if effect is FaultEffect.RATE_LIMIT:
        return RATE_LIMITED
    return None
