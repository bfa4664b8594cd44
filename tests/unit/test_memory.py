"""Giving memory back after a full reset: the caches it empties, and the private call it relies on."""

from __future__ import annotations

import sys
import urllib.parse
from datetime import UTC, datetime

from mocksrv import memory
from mocksrv.domain.clock import format_timestamp


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
