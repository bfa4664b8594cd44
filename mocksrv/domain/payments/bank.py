"""Payment method details as they are kept: card and account numbers cut to their last four, CVCs never."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The fields of a bank transfer or a bank payout that hold an account number (or one in an IBAN;
# `bank_account_iban` is a Giropay redirect's).
ACCOUNT_NUMBER_FIELDS = ("account_number", "bank_account_number", "iban", "bank_account_iban")
# Kept and shown to their last four: card and account numbers; `number` is a gift card's, and
# `network_token` and `dpan` (an Apple Pay payout's) numbers a card network issued in place of a card's.
LAST_FOUR_FIELDS = frozenset({"card_number", "number", "network_token", "dpan", *ACCOUNT_NUMBER_FIELDS})
# Never kept nor shown: a card's security code under each of its names (cvv: the legacy card API's),
# and a gift card's PIN and CVV2.
CVC_FIELDS = frozenset({"card_cvc", "cvc", "cvv", "cvv2", "pin"})


def last_four(number: str) -> str:
    """`****6789`: what is kept and shown of an account number."""
    return f"****{number[-4:]}"


def kept_details(details: Mapping[str, Any]) -> dict[str, Any]:
    """The details of a payment method as they are kept, at any depth (a bank debit's
    `{"ach_bank_debit": {"account_number": ...}}`, a gift card's `{"givex": {"number": ...}}`):
    card and account numbers cut to their last four, CVCs left out, the rest as sent."""
    return {name: _kept(name, value) for name, value in details.items() if name.lower() not in CVC_FIELDS}


def _kept(name: str, value: Any) -> Any:
    if name.lower() in LAST_FOUR_FIELDS and isinstance(value, str | int) and not isinstance(value, bool):
        return last_four(str(value))
    if isinstance(value, Mapping):
        return kept_details(value)
    if isinstance(value, list):  # each item kept as the key it is under would keep it
        return [_kept(name, item) for item in value]
    return value
