"""State machines as data: one table of `(state, event) -> new state` rows per resource."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from mocksrv.domain.errors import InvalidState

# The past participle of each action, for the IR_14 message.
_PARTICIPLES = {
    "update": "updated",
    "confirm": "confirmed",
    "authenticate": "authenticated",
    "settle": "settled",
    "approve": "approved",
    "reject": "rejected",
    "capture": "captured",
    "cancel": "cancelled",
    "expire": "expired",
    "fulfill": "fulfilled",
    "reverse": "reversed",
    "revoke": "revoked",
    "activate": "activated",
    "lapse": "lapsed",
    "use": "used",
    "complete": "completed",
}


def action_of(event: StrEnum) -> str:
    """Return the operation an event belongs to: the part of its value before the dot."""
    return event.value.partition(".")[0]


StateT = TypeVar("StateT", bound=StrEnum)
EventT = TypeVar("EventT", bound=StrEnum)


@dataclass(frozen=True, slots=True)
class Transition(Generic[StateT, EventT]):
    source: StateT
    event: EventT
    target: StateT
    emits: str | None = None  # the webhook event type this transition reports, if any


class TransitionTable(Generic[StateT, EventT]):
    """All allowed transitions of one resource; anything not listed is refused."""

    def __init__(self, resource: str, rows: Iterable[Transition[StateT, EventT]]) -> None:
        self.resource = resource
        self.rows: tuple[Transition[StateT, EventT], ...] = tuple(rows)
        self._by_pair = {(row.source, row.event): row for row in self.rows}
        if len(self._by_pair) != len(self.rows):
            raise ValueError(f"{resource} transition table lists a (state, event) pair twice")
        self._actions = {(row.source, action_of(row.event)) for row in self.rows}

    def find(self, state: StateT, event: EventT) -> Transition[StateT, EventT] | None:
        return self._by_pair.get((state, event))

    def expected_states(self, action: str) -> list[str]:
        """Return, in table order, the states from which some event of `action` is allowed."""
        seen: dict[str, None] = {}
        for row in self.rows:
            if action_of(row.event) == action:
                seen.setdefault(row.source.value)
        return list(seen)

    def allowed_events(self, state: StateT) -> list[str]:
        return [row.event.value for row in self.rows if row.source == state]

    def require(self, state: StateT, event: EventT, *, conflict: bool = False) -> Transition[StateT, EventT]:
        """Return the row for `(state, event)` or raise IR_14 naming the expected states."""
        row = self.find(state, event)
        if row is None:
            raise self.refusal(state, action_of(event), conflict=conflict)
        return row

    def allows_action(self, state: StateT, action: str) -> bool:
        """Whether some event of `action` is allowed from `state`."""
        return (state, action) in self._actions

    def check_action(self, state: StateT, action: str, *, conflict: bool = False) -> None:
        """Raise IR_14 unless some event of `action` is allowed from `state`."""
        if not self.allows_action(state, action):
            raise self.refusal(state, action, conflict=conflict)

    def refusal_for(self, state: StateT, participle: str, expected: list[str]) -> InvalidState:
        """IR_14 for an operation of another resource that needs this one in `expected` states."""
        return InvalidState(self.resource, participle, state.value, expected)

    def refusal(self, state: StateT, action: str, *, conflict: bool = False) -> InvalidState:
        return InvalidState(
            self.resource,
            _PARTICIPLES.get(action, action),
            state.value,
            self.expected_states(action),
            conflict=conflict,
        )

    def as_data(self) -> list[dict[str, str | None]]:
        return [
            {
                "from": row.source.value,
                "event": row.event.value,
                "to": row.target.value,
                "emits": row.emits,
            }
            for row in self.rows
        ]


def rows(
    sources: Sequence[StateT], event: EventT, target: StateT, emits: str | None = None
) -> list[Transition[StateT, EventT]]:
    """Return one row per source state for an event that leads to the same target."""
    return [Transition(source, event, target, emits) for source in sources]
