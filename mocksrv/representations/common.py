"""What every representation shares: the time format and the spec's list envelope."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mocksrv.domain.clock import format_timestamp

JsonObject = dict[str, Any]


def timestamp(moment: datetime | None) -> str | None:
    return None if moment is None else format_timestamp(moment)


def list_json(items: list[JsonObject], total_count: int) -> JsonObject:
    """The list envelope of the payments-style lists: count, total_count, data."""
    return {"count": len(items), "total_count": total_count, "data": items}
