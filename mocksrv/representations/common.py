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


def paged_list_json(items: list[JsonObject], total_count: int, offset: int) -> JsonObject:
    """The payments-style envelope with the spec's general `has_more`, for the lists whose real
    answer the spec's general form also covers (refunds, payment links, payouts)."""
    return {**list_json(items, total_count), "has_more": _has_more(items, total_count, offset)}


def general_list_json(items: list[JsonObject], total_count: int, offset: int) -> JsonObject:
    """The spec's general list envelope: data, total_count, has_more."""
    return {"data": items, "total_count": total_count, "has_more": _has_more(items, total_count, offset)}


def _has_more(items: list[JsonObject], total_count: int, offset: int) -> bool:
    return offset + len(items) < total_count
