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


# The currencies whose minor units are not 2, by their number of digits, as the real service lists them.
_EXPONENTS: dict[int, frozenset[str]] = {
    0: frozenset(
        {"BIF", "CLP", "DJF", "GNF", "IRR", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV"}
        | {"XAF", "XOF", "XPF"}
    ),
    3: frozenset({"BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"}),
    4: frozenset({"CLF"}),
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
    for exponent, codes in _EXPONENTS.items():
        if code in codes:
            return exponent
    return 2
