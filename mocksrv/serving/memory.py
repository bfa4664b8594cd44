"""Memory: collecting without long pauses, and giving memory back once the store is emptied.

Collecting. CPython's full collection looks at every object that can hold others, and the store
is hundreds of thousands of them: in a 2-minute soak, with some 80,000 payments stored, one took
0.54 s, every request in flight waited for it, and one came each time a quarter more objects were
kept. So `mocksrv serve` freezes what survives each full collection (`gc.freeze`): the next full
ones look only at what came since, and took at most 79 ms in that soak. Freezing stops nothing from
being freed when the last reference to it goes, which is how the store's records go. What it holds
back is a cycle that was in use at a freeze and became garbage later (werkzeug's router makes one
per request, alive while the request is routed). So once a minute, and at every reset of every
merchant, the frozen objects are unfrozen, and the next full collection looks at everything.

Giving memory back. CPython returns a 1 MiB arena of small objects only once nothing in it lives.
After a load and a reset the records are gone, but a few objects made during the load live on in
process-wide caches, refilled until the load's end and so spread over its arenas: each keeps its
arena, and RSS stays at the load's peak. The caches: the last 4,096 timestamps written
(`format_timestamp`), the last request targets split by `urllib.parse` (waitress splits each request
line), the names in the interpreter's method cache (`datetime` makes a new "utcoffset" string for
each operation on an aware datetime, and each copy takes a slot), and the free lists that a full
collection empties. (`mocksrv serve` runs on glibc's allocator, where the same objects keep pages
rather than arenas: mocksrv/launch.py.)
"""

from __future__ import annotations

import ctypes
import gc
import sys
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

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
    gc.unfreeze()  # a collection of everything; what survives it is frozen again (Collector)
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)


WHOLE_EVERY = 60.0  # seconds between full collections that look at every object, frozen ones too
OLDEST = 2  # the generation of a full collection


class Collector:
    """Freezes what survives each full collection; every `every` seconds, unfreezes instead.

    A garbage collector callback: `install()` adds it to `gc.callbacks`, `uninstall()` takes it out
    and unfreezes.
    """

    def __init__(self, every: float = WHOLE_EVERY) -> None:
        self.every = every
        self.due = time.monotonic() + every  # when the frozen objects are next looked at

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info["generation"] != OLDEST:
            return
        now = time.monotonic()
        if now < self.due:
            gc.freeze()
        else:  # the next full collection looks at everything
            gc.unfreeze()
            self.due = now + self.every

    def install(self) -> Collector:
        gc.callbacks.append(self)
        return self

    def uninstall(self) -> None:
        if self in gc.callbacks:
            gc.callbacks.remove(self)
        gc.unfreeze()
