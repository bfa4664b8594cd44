"""Currencies and countries, from the CLDR data that Babel ships."""

from __future__ import annotations

from functools import cache

from babel import Locale
from babel.numbers import get_currency_precision, list_currencies

MIN_AMOUNT = 1
MAX_AMOUNT = 99_999_999_999


@cache
def currencies() -> frozenset[str]:
    return frozenset(list_currencies())


@cache
def countries() -> frozenset[str]:
    codes = [str(code) for code in Locale("en").territories]
    return frozenset(code for code in codes if len(code) == 2 and code.isalpha())


def is_currency(code: str) -> bool:
    return code in currencies()


def is_country(code: str) -> bool:
    return code in countries()


def currency_exponent(code: str) -> int:
    """Return the number of minor-unit digits: 0 for JPY, 2 for USD, 3 for KWD."""
    return int(get_currency_precision(code))
