"""The parts of a snapshot document below its records: its envelope, clocks, timers, outbox keys,
queued deliveries and seeded ids, each written and read with the place of a value that fails."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from mocksrv.domain.clock import LATEST, ClockState, format_timestamp
from mocksrv.domain.controls.codec import Codec, Encode, Unreadable
from mocksrv.domain.errors import DomainError
from mocksrv.domain.ids import MAX_SEED, IdState

FORMAT = "mocksrv-snapshot"
VERSION = 1


class SnapshotInvalid(DomainError):
    """A document that cannot be restored: not a snapshot, another version, or a value that fails."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"Invalid snapshot: {where}: {reason}", param=where)


def checked_document(document: Any) -> dict[str, Any]:
    """The document's merchants, once its format and version are ones this server reads."""
    if type(document) is not dict or document.get("format") != FORMAT:
        raise SnapshotInvalid("format", f"not a snapshot of mocksrv (format {FORMAT!r})")
    version = document.get("version")
    if version != VERSION or type(version) is not int:
        written_by = document.get("mocksrv")
        by = f", written by mocksrv {written_by}" if isinstance(written_by, str) else ""
        raise SnapshotInvalid(
            "version", f"this server reads snapshots of version {VERSION}, not {version!r}{by}"
        )
    merchants = document.get("merchants")
    if type(merchants) is not dict:
        raise SnapshotInvalid("merchants", "expected an object of merchants by id")
    return merchants


def list_of(raw: Any, where: str) -> list[Any]:
    if raw is None:
        return []
    if type(raw) is not list:
        raise SnapshotInvalid(where, "expected a list")
    return raw


def decoded(codec: Codec, raw: Any, where: str) -> Any:
    """One value of the document, decoded; SnapshotInvalid naming `where` if it cannot be."""
    try:
        return codec.decode(raw)
    except Unreadable as error:
        raise SnapshotInvalid(where, str(error)) from None
    except RecursionError:
        raise SnapshotInvalid(where, "nested too deeply") from None


def timer_of(codec: Codec, raw: Any, where: str, kinds: Collection[str]) -> tuple[datetime, str, str]:
    if type(raw) is list and len(raw) == 3 and type(raw[1]) is str and type(raw[2]) is str:
        due_at = decoded(codec, raw[0], where)
        if type(due_at) is datetime:
            if raw[1] not in kinds:
                raise SnapshotInvalid(f"{where}.1", f"no timer is of the kind {raw[1]!r}")
            return due_at, raw[1], raw[2]
    raise SnapshotInvalid(where, "expected [due_at, kind, target_id]")


def string_pair(raw: Any, where: str) -> tuple[str, str]:
    if type(raw) is list and len(raw) == 2 and all(type(item) is str for item in raw):
        return raw[0], raw[1]
    raise SnapshotInvalid(where, "expected [object_id, event_type]")


def delivery_of(raw: Any, where: str) -> tuple[str, bool]:
    if type(raw) is list and len(raw) == 2 and type(raw[0]) is str and type(raw[1]) is bool:
        return raw[0], raw[1]
    raise SnapshotInvalid(where, "expected [event_id, manual]")


def clock_json(clock: ClockState, encode: Encode) -> dict[str, Any]:
    # A frozen clock is its time alone: when it was frozen in real time changes nothing it shows.
    if clock.frozen:
        return {"frozen": True, "now": encode(clock.base)}
    return {"frozen": False, "base": encode(clock.base), "anchor": encode(clock.anchor)}


def clock_state(codec: Codec, raw: Any, where: str, real_now: datetime) -> ClockState:
    """A clock read, checked against the system time `real_now` of the sandbox it is restored in."""
    if type(raw) is not dict or type(raw.get("frozen")) is not bool:
        raise SnapshotInvalid(where, "expected an object with frozen")
    if raw["frozen"]:
        now = decoded(codec, raw.get("now"), where)
        if _zoned(now):
            return _within_range(ClockState(now, real_now, frozen=True), where, real_now)
    else:
        base, anchor = decoded(codec, raw.get("base"), where), decoded(codec, raw.get("anchor"), where)
        if _zoned(base) and _zoned(anchor):
            return _within_range(ClockState(base, anchor), where, real_now)
    raise SnapshotInvalid(where, "expected the times of the clock, each with its zone")


def _zoned(value: Any) -> bool:
    return type(value) is datetime and value.tzinfo is not None


def _within_range(state: ClockState, where: str, real_now: datetime) -> ClockState:
    """The clock, if its time now is one the mock clock can reach."""
    try:
        now = state.now(real_now)
    except OverflowError:
        now = None
    if now is None or now > LATEST:
        raise SnapshotInvalid(where, f"the mock clock goes no later than {format_timestamp(LATEST)}")
    return state


def ids_json(state: IdState | None) -> dict[str, Any] | None:
    return None if state is None else {"seed": state.seed, "drawn": state.drawn}


MOST_DRAWN = 2**62


def ids_state(raw: Any, where: str, scope: str) -> IdState | None:
    if raw is None:
        return None
    if type(raw) is dict and raw.keys() == {"seed", "drawn"}:
        seed, drawn = raw["seed"], raw["drawn"]
        # Both are written as JSON numbers of 64 bits: a larger one could not be written out again,
        # and a stream must have room to draw on (2^62 leaves more than any run draws).
        if type(seed) is int and type(drawn) is int and 0 <= seed <= MAX_SEED and 0 <= drawn <= MOST_DRAWN:
            return IdState(seed, scope, drawn)
    raise SnapshotInvalid(where, f"expected null or {{seed, drawn}}, drawn at most {MOST_DRAWN}")
