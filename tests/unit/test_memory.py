"""Giving memory back after a full reset: the caches it empties, and the private call it relies on."""

from __future__ import annotations

import gc
import sys
import time
import urllib.parse
import weakref
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from mocksrv.domain.clock import format_timestamp
from mocksrv.serving import memory


def test_the_interpreter_still_has_a_way_to_empty_its_method_cache() -> None:
    clear = getattr(sys, "_clear_internal_caches", None) or getattr(sys, "_clear_type_cache", None)
    assert callable(clear)
    assert memory._CLEAR_TYPE_CACHE is clear


def test_release_memory_empties_the_timestamp_and_url_caches() -> None:
    format_timestamp(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    urllib.parse.urlsplit("/payments/pay_cached?x=1")
    assert format_timestamp.cache_info().currsize > 0
    assert urllib.parse.urlsplit.cache_info().currsize > 0

    memory.release_memory()

    assert (format_timestamp.cache_info().currsize, urllib.parse.urlsplit.cache_info().currsize) == (0, 0)
    assert format_timestamp(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02T03:04:05.000Z"


class Node:
    """An object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> Node:
    """One of a two-object cycle."""
    first, second = Node(), Node()
    first.other, second.other = second, first
    return first


@pytest.fixture
def collector() -> Iterator[memory.Collector]:
    gc.collect()
    installed = memory.Collector(every=3600).install()
    yield installed
    installed.uninstall()


def test_a_full_collection_freezes_what_survives_it(collector: memory.Collector) -> None:
    assert gc.get_freeze_count() == 0

    gc.collect()

    assert gc.get_freeze_count() > 0
    assert collector in gc.callbacks


def test_a_young_collection_freezes_nothing(collector: memory.Collector) -> None:
    gc.collect(0)

    assert gc.get_freeze_count() == 0


def test_a_frozen_cycle_turned_garbage_waits_for_the_whole_collection(collector: memory.Collector) -> None:
    in_use = cycle()
    watched = weakref.ref(in_use)
    gc.collect()  # frozen while in use...
    del in_use  # ...and garbage afterwards

    gc.collect()
    assert watched() is not None  # a full collection does not look at frozen objects

    collector.due = 0.0
    gc.collect()  # the due one: unfreezes, so that the next full collection looks at everything
    assert gc.get_freeze_count() == 0
    gc.collect()

    assert watched() is None
    assert gc.get_freeze_count() > 0  # frozen again after it
    assert collector.due > time.monotonic() + 3000


def test_a_full_reset_collects_a_frozen_cycle_at_once(collector: memory.Collector) -> None:
    in_use = cycle()
    watched = weakref.ref(in_use)
    gc.collect()
    del in_use
    gc.collect()
    assert watched() is not None

    memory.release_memory()

    assert watched() is None


def test_uninstall_takes_the_callback_out_and_unfreezes() -> None:
    installed = memory.Collector().install()
    gc.collect()
    assert gc.get_freeze_count() > 0

    installed.uninstall()

    assert (installed in gc.callbacks, gc.get_freeze_count()) == (False, 0)
