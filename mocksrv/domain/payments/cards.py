"""Card checks and the summary that is kept of a card (never its number or CVC)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mocksrv.domain.errors import InvalidField

_CARD = "payment_method_data.card"

# (prefix range start, end, brand), checked in order; numbers compared on the prefix length.
_BRANDS = (
    ("34", "34", "AmericanExpress"),
    ("37", "37", "AmericanExpress"),
    ("4", "4", "Visa"),
    ("51", "55", "Mastercard"),
    ("2221", "2720", "Mastercard"),
    ("6011", "6011", "Discover"),
    ("644", "649", "Discover"),
    ("65", "65", "Discover"),
    ("3528", "3589", "JCB"),
    ("300", "305", "DinersClub"),
    ("36", "36", "DinersClub"),
    ("38", "39", "DinersClub"),
    ("62", "62", "UnionPay"),
)


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


# Each digit's value, and its value doubled with the digits of the result added (as Luhn doubles
# every second digit from the right), as byte translations: the sum then takes one pass in C.
_VALUE = bytes.maketrans(b"0123456789", bytes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))
_DOUBLED = bytes.maketrans(b"0123456789", bytes([0, 2, 4, 6, 8, 1, 3, 5, 7, 9]))


def luhn_valid(number: str) -> bool:
    if not _digits(number) or not 12 <= len(number) <= 19:
        return False
    digits = number.encode()[::-1]
    total = sum(digits[::2].translate(_VALUE)) + sum(digits[1::2].translate(_DOUBLED))
    return total % 10 == 0


def brand_of(number: str) -> str:
    for start, end, brand in _BRANDS:
        prefix = number[: len(start)]
        if start <= prefix <= end:
            return brand
    return "Unknown"


@dataclass(frozen=True, slots=True)
class CardNames:
    """The names of a card's number and expiry in the data sent: a card's own, or a network token's."""

    number: str = "card_number"
    exp_month: str = "card_exp_month"
    exp_year: str = "card_exp_year"


CARD_NAMES = CardNames()
NETWORK_TOKEN_NAMES = CardNames("network_token", "token_exp_month", "token_exp_year")

# What a test card's issuer is shown as: every card in the sandbox is issued by it.
CARD_ISSUER = "mocksrv test bank"
CARD_ISSUING_COUNTRY = "US"
CARD_TYPES = ("credit", "debit")  # payment_method_type values that are a card's type


def card_summary(
    card: Mapping[str, Any],
    now: datetime,
    method_type: str | None = None,
    path: str = _CARD,
    names: CardNames = CARD_NAMES,
) -> dict[str, Any]:
    """Check a card and return what is kept of it; raise IR_04 naming the bad field (under `path`,
    by its `names`).

    The spec's names (`last4`, `brand`, `exp_month`, `exp_year`) and the real service's beside
    them; of the number, only the first six digits (`card_isin`) and the last four are kept. The
    CVC is checked when sent (a card saved without one has its check `unavailable`).
    """
    number = normalized_number(card, names)
    if not luhn_valid(number):
        raise InvalidField(f"{path}.{names.number}", "the card number is not valid")
    month, year = card_expiry(card, now, path, names)
    cvc = card.get("card_cvc")
    if cvc is not None:
        check_cvc(cvc, f"{path}.card_cvc")
    brand = brand_of(number)
    return {
        "last4": number[-4:],
        "brand": brand,
        "exp_month": f"{month:02d}",
        "exp_year": str(year),
        "card_holder_name": card.get("card_holder_name"),
        "card_network": None if brand == "Unknown" else brand,
        "card_type": method_type if method_type in CARD_TYPES else None,
        "card_issuer": CARD_ISSUER,
        "card_issuing_country": CARD_ISSUING_COUNTRY,
        "card_isin": number[:6],
        "card_exp_month": f"{month:02d}",
        "card_exp_year": str(year),
        "payment_checks": {"cvc_check": "unavailable" if cvc is None else "pass"},
    }


def card_expiry(
    card: Mapping[str, Any], now: datetime, path: str, names: CardNames = CARD_NAMES
) -> tuple[int, int]:
    """The month and the four-digit year of a card's expiry; IR_04 if malformed or past on the clock."""
    month_text = card[names.exp_month]
    month = int(month_text) if _digits(month_text) else 0
    if not 1 <= month <= 12:
        raise InvalidField(f"{path}.{names.exp_month}", "a month from 01 to 12")
    year_text = card[names.exp_year]
    if not _digits(year_text) or len(year_text) not in (2, 4):
        raise InvalidField(f"{path}.{names.exp_year}", "a year of two or four digits")
    year = int(year_text) + (2000 if len(year_text) == 2 else 0)
    if (year, month) < (now.year, now.month):
        raise InvalidField(f"{path}.{names.exp_year}", "the card has expired")
    return month, year


def check_cvc(cvc: str, path: str) -> None:
    if not _digits(cvc) or len(cvc) not in (3, 4):
        raise InvalidField(path, "three or four digits")


def normalized_number(card: Mapping[str, Any], names: CardNames = CARD_NAMES) -> str:
    return str(card[names.number]).replace(" ", "")


# The key of the card keys: made anew by each process, so a key tells nothing of its number.
_CARD_KEY_SECRET = secrets.token_bytes(32)


def card_key(number: str) -> str:
    """What a saved card keeps of its number for the magic values: a keyed digest, never the number.

    A saved card is charged again without its number, and the magic-value table still matches it:
    a rule's card numbers are compared as these keys (`OutcomeRule`)."""
    return hmac.new(_CARD_KEY_SECRET, number.encode(), hashlib.sha256).hexdigest()
