"""Equality of JSON values as JSON sees them: a fault rule's body values, a scenario's expectations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def same(left: Any, right: Any) -> bool:
    """Equal as JSON values: numbers by value (1 is 1.0), but a boolean only equals a boolean, and
    text only text (1 is not "1", true is not 1)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(same(left[key], right[key]) for key in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and bool(left == right)
