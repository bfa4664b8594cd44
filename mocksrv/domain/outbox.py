"""The outbox: events appended in the same transaction as the change they report."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from mocksrv.domain.events import ContentType, Event
from mocksrv.domain.ids import new_id
from mocksrv.domain.store import MemoryStore

EventListener = Callable[[Event], None]


class Outbox:
    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self._listeners: list[EventListener] = []

    def subscribe(self, listener: EventListener) -> None:
        """Call `listener` with each new event, inside the transaction that appends it."""
        self._listeners.append(listener)

    def emit(
        self,
        merchant_id: str,
        event_type: str,
        content_type: ContentType,
        object_id: str,
        resource: object,
        at: datetime,
    ) -> Event | None:
        """Append an event of a change made `at` a time; None when the object already had one."""
        event = Event(
            event_id=new_id("evt", entropy=self._store.ids(merchant_id)),
            merchant_id=merchant_id,
            event_type=event_type,
            content_type=content_type,
            object_id=object_id,
            created=at,
            resource=resource,
        )
        if not self._store.append_event(merchant_id, event):
            return None
        for listener in self._listeners:
            listener(event)
        return event
