"""The one path of every status change: the transition table, the store and the outbox together."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from mocksrv.domain.errors import DomainError
from mocksrv.domain.events import ContentType
from mocksrv.domain.models import evolve
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.store import MemoryStore
from mocksrv.domain.transitions import EventT, StateT, TransitionTable, action_of


class Owned(Protocol):
    @property
    def merchant_id(self) -> str: ...


RecordT = TypeVar("RecordT", bound=Owned)


class Lifecycle(Generic[RecordT, StateT, EventT]):
    """How one kind of resource changes state.

    `move` finds the row of the record's table, stores a copy with the new status and the time of
    the change, and appends the row's event, if it has one, to the outbox: all in the caller's
    transaction. A record names its status `status_field`, and the time of its last change
    `stamp_field` (None: it keeps none); a table whose rows emit nothing needs no outbox.
    """

    def __init__(
        self,
        store: MemoryStore,
        outbox: Outbox | None,
        table: TransitionTable[StateT, EventT],
        *,
        kind: str,
        id_field: str,
        content_type: ContentType | None = None,
        status_field: str = "status",
        stamp_field: str | None = "updated_at",
        refuse: Callable[[RecordT, EventT], DomainError] | None = None,
        space: str | None = None,
    ) -> None:
        emits = any(row.emits for row in table.rows)
        if emits and (content_type is None or outbox is None):
            raise ValueError(f"{table.resource} transitions emit events: name their content type and outbox")
        self._store = store
        self._outbox = outbox
        self._table = table
        self._kind = kind
        self._id_field = id_field
        self._content_type = content_type
        self._status_field = status_field
        self._stamp_field = stamp_field
        self._refuse = refuse
        self._space = space  # the store space every record lives in; None: each its merchant's

    def move(self, record: RecordT, event: EventT, now: datetime, **changes: Any) -> RecordT:
        """Apply `event` to the record at `now`; IR_14 (or the resource's own refusal) if not allowed."""
        status = getattr(record, self._status_field)
        row = self._table.find(status, event)
        if row is None:
            if self._refuse is not None:
                raise self._refuse(record, event)
            raise self._table.refusal(status, action_of(event))
        changes[self._status_field] = row.target
        if self._stamp_field is not None:
            changes[self._stamp_field] = now
        updated = evolve(record, **changes)
        self._store.put(self._kind, self._space or record.merchant_id, updated)
        if row.emits is not None and self._content_type is not None and self._outbox is not None:
            record_id = getattr(record, self._id_field)
            self._outbox.emit(record.merchant_id, row.emits, self._content_type, record_id, updated, at=now)
        return updated
