"""The outbox: events appended in the same transaction as the change they report."""

from __future__ import annotations

from mocksrv.domain.clock import Clock
from mocksrv.domain.events import ContentType, Event
from mocksrv.domain.ids import new_id
from mocksrv.domain.store import MemoryStore


class Outbox:
    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def emit(
        self, merchant_id: str, event_type: str, content_type: ContentType, object_id: str, resource: object
    ) -> Event | None:
        """Append an event; return None when the object already had one of this type."""
        event = Event(
            event_id=new_id("evt"),
            merchant_id=merchant_id,
            event_type=event_type,
            content_type=content_type,
            object_id=object_id,
            created=self._clock.now(merchant_id),
            resource=resource,
        )
        return event if self._store.append_event(merchant_id, event) else None
