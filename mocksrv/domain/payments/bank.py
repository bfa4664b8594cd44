"""Bank account details as they are kept: an account number's last four digits, never the whole."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The fields of a bank transfer or a bank payout that hold an account number (or one in an IBAN).
ACCOUNT_NUMBER_FIELDS = ("account_number", "bank_account_number", "iban")


def last_four(number: str) -> str:
    """`****6789`: what is kept and shown of an account number."""
    return f"****{number[-4:]}"


def kept_account(details: Mapping[str, Any]) -> dict[str, Any]:
    """The details with every account number cut to its last four, also in the objects inside them
    (a bank debit's `{"ach_bank_debit": {"account_number": ...}}`); the rest as sent."""
    return {name: _kept(name, value) for name, value in details.items()}


def _kept(name: str, value: Any) -> Any:
    if name in ACCOUNT_NUMBER_FIELDS and isinstance(value, str | int):
        return last_four(str(value))
    if isinstance(value, Mapping):
        return kept_account(value)
    return value
