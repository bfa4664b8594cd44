"""What is never shown in full, wherever bodies are shown (the access log, scenario reports): card and
account numbers keep their last four characters, CVCs are hidden."""

from __future__ import annotations

from typing import Any

from mocksrv.domain.bank import ACCOUNT_NUMBER_FIELDS

LAST_FOUR_KEYS = frozenset({"card_number", *ACCOUNT_NUMBER_FIELDS})
HIDDEN_KEYS = frozenset({"card_cvc", "cvc"})
HIDDEN = "***"


def mask_fields(data: Any) -> Any:
    """JSON data with the values of card and account number keys cut to their last four, CVCs hidden."""
    if isinstance(data, dict):
        return {key: _mask_field(key, value) for key, value in data.items()}
    if isinstance(data, list):
        return [mask_fields(item) for item in data]
    return data


def last_four(number: str) -> str:
    return "*" * (len(number) - 4) + number[-4:] if len(number) > 4 else "*" * len(number)


def _mask_field(key: str, value: Any) -> Any:
    if value is None:
        return None
    if key in HIDDEN_KEYS:
        return HIDDEN
    if key in LAST_FOUR_KEYS:
        return last_four(str(value)) if isinstance(value, str | int) else HIDDEN
    return mask_fields(value)
