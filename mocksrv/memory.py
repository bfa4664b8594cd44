"""Giving memory back to the system once the store is emptied.

CPython returns a 1 MiB arena of small objects only once nothing in it lives. After a load and a
reset the records are gone, but a few objects made during the load live on in process-wide caches,
refilled until the load's end and so spread over its arenas: each keeps its arena, and RSS stays at
the load's peak. The caches: the last 4,096 timestamps written (`format_timestamp`), the last
request targets split by `urllib.parse` (waitress splits each request line), the names in the
interpreter's method cache (`datetime` makes a new "utcoffset" string for each operation on an
aware datetime, and each copy takes a slot), and the free lists that a full collection empties.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import urllib.parse
from collections.abc import Callable

from mocksrv.domain.clock import format_timestamp


def _malloc_trim() -> Callable[[int], int] | None:
    try:  # glibc's; elsewhere (musl, macOS) there is nothing to trim
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


_TRIM = _malloc_trim()
# Private, as the interpreter has no public way to empty its method cache (pinned by
# tests/unit/test_memory.py). Without it, a full reset after a load left 43 of the load's 76 arenas
# in use; with it, 20, against 18 before the load.
_CLEAR_TYPE_CACHE: Callable[[], None] = getattr(sys, "_clear_internal_caches", None) or sys._clear_type_cache


def release_memory() -> None:
    """Empty those caches and collect, so that the arenas come free; glibc then gives back the pages
    it keeps. About 25 ms: the control plane calls it after a reset of every merchant."""
    format_timestamp.cache_clear()
    urllib.parse.clear_cache()  # type: ignore[attr-defined]  # public, if missing from the stubs
    _CLEAR_TYPE_CACHE()
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)
