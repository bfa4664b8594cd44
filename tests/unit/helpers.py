"""Small steps and readings shared by the unit tests of the services."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest

from mocksrv.domain.errors import DomainError, ErrorKind
from mocksrv.domain.events import Event
from mocksrv.domain.sandbox import Sandbox
from tests.payloads import MERCHANT_ID


def advance(sandbox: Sandbox, seconds: float) -> None:
    sandbox.scheduler.advance(MERCHANT_ID, seconds)


def events_of(sandbox: Sandbox, object_id: str) -> list[Event]:
    return [event for event in sandbox.store.events(MERCHANT_ID) if event.object_id == object_id]


def event_types_of(sandbox: Sandbox, object_id: str) -> list[str]:
    return [event.event_type for event in events_of(sandbox, object_id)]


def timers(sandbox: Sandbox) -> list[tuple[datetime, str, str]]:
    return [(t.due_at, t.kind, t.target_id) for t in sandbox.store.pending_timers(MERCHANT_ID)]


def raised_by(call: Callable[[], object]) -> DomainError:
    """The error `call` raises; the test fails if it raises none."""
    with pytest.raises(DomainError) as raised:
        call()
    return raised.value


def error_of(error: DomainError) -> tuple[str, ErrorKind, str, str | None]:
    return (error.code, error.kind, error.message, error.param)
