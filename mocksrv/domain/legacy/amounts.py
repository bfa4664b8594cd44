"""Amounts of the legacy card API: decimal strings in major units, converted with the currency's exponent."""

from __future__ import annotations

import re

from mocksrv.domain.errors import InvalidField
from mocksrv.domain.money import MAX_AMOUNT, MIN_AMOUNT, currency_exponent

_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")  # ASCII digits only: `\d` takes every script's
_MAX_WHOLE_DIGITS = len(str(MAX_AMOUNT))  # longer is out of range, and is never turned into an int


def minor_units(amount: object, currency: str, field: str = "amount") -> int:
    """`amount` ("10.50") in the currency's minor units (1050); IR_04 naming `field` otherwise.

    A number with more decimals than the currency has (`10.505` USD, `100.5` JPY) is refused, not
    rounded: the client meant an amount the currency cannot hold.
    """
    if not isinstance(amount, str) or _DECIMAL.fullmatch(amount) is None:
        raise InvalidField(field, 'a decimal string in major units, such as "10.50"')
    whole, _, fraction = amount.partition(".")
    exponent = currency_exponent(currency)
    if len(fraction) > exponent:
        places = "no decimals" if exponent == 0 else f"at most {exponent} decimals"
        raise InvalidField(field, f"{currency} takes {places}")
    whole = whole.lstrip("0")
    value = 0
    if len(whole) <= _MAX_WHOLE_DIGITS:
        value = int(whole or "0") * 10**exponent + int(fraction.ljust(exponent, "0") or "0")
    if not MIN_AMOUNT <= value <= MAX_AMOUNT:
        low, high = major_units(MIN_AMOUNT, currency), major_units(MAX_AMOUNT, currency)
        raise InvalidField(field, f"from {low} to {high} {currency}")
    return value


def major_units(minor: int, currency: str) -> str:
    """A minor-unit amount written as the legacy API writes amounts: 1050 USD is "10.50"."""
    exponent = currency_exponent(currency)
    if exponent == 0:
        return str(minor)
    whole, fraction = divmod(minor, 10**exponent)
    return f"{whole}.{fraction:0{exponent}d}"
