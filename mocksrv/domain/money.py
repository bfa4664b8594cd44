"""Currencies and countries: ISO 4217 and ISO 3166 from pycountry; minor units as the real service has."""

from __future__ import annotations

from functools import cache

import pycountry

MIN_AMOUNT = 1
MAX_AMOUNT = 99_999_999_999


# Codes ISO 4217 has retired that the real service still takes.
_RETIRED_CURRENCIES = frozenset({"ANG", "BGN", "CUC", "HRK", "SLL", "STD", "ZWL"})
# Codes of ISO 4217 the real service's Currency does not take, no money a customer pays with: funds
# and units of account (BOV, CHE, ...), precious metals (XAU, ...), the SDR and the bond-market
# units, the codes for testing and for no currency (XTS, XXX), and codes newer than its list.
_NOT_TAKEN = frozenset(
    {
        *("BOV", "CHE", "CHW", "COU", "MXV", "USN", "UYI", "UYW"),  # funds codes, units of account
        *("XAG", "XAU", "XPD", "XPT"),  # precious metals
        *("XBA", "XBB", "XBC", "XBD", "XDR", "XSU", "XUA"),  # bond units, SDR, regional units
        *("XTS", "XXX"),  # testing, no currency
        *("VED", "XAD", "XCG", "ZWG"),  # newer than the real service's list
    }
)


# The minor units of the currencies that have other than 2, as the real service lists them.
_EXPONENTS: dict[str, int] = {
    **dict.fromkeys(("BIF", "CLP", "DJF", "GNF", "IRR", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF"), 0),
    **dict.fromkeys(("UGX", "VND", "VUV", "XAF", "XOF", "XPF"), 0),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
    "CLF": 4,
}


@cache
def currencies() -> frozenset[str]:
    """The currencies the real service takes (160): ISO 4217's money, and some codes it retired."""
    iso = frozenset(currency.alpha_3 for currency in pycountry.currencies)
    return (iso - _NOT_TAKEN) | _RETIRED_CURRENCIES


@cache
def countries() -> frozenset[str]:
    return frozenset(country.alpha_2 for country in pycountry.countries)


def is_currency(code: str) -> bool:
    return code in currencies()


def is_country(code: str) -> bool:
    return code in countries()


def currency_exponent(code: str) -> int:
    """The number of minor-unit digits, as the real service counts them: 0 for JPY, 2 for USD, 3 for
    KWD and IQD, 4 for CLF. Neither CLDR (which gives IQD 0) nor ISO 4217 (which gives ISK 0 and
    MGA 2) agrees with it on every code."""
    return _EXPONENTS.get(code, 2)
