"""Bounds of a record's whole numbers, written in its annotations (`Annotated[int, Within(0, 9)]`):
what the API takes, so that a snapshot holding another value is refused (controls.codec) instead of
failing a request later."""

from __future__ import annotations

from typing import NamedTuple


class Within(NamedTuple):
    """A whole number, when not None, from `lowest` to `highest`, both included."""

    lowest: int
    highest: int
