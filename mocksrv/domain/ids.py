"""Identifiers the sandbox generates."""

from __future__ import annotations

import secrets
import string

_ALPHABET = string.digits + string.ascii_letters


def new_id(prefix: str, length: int = 20) -> str:
    """Return `prefix_` followed by `length` random letters and digits."""
    number = secrets.randbits(6 * length)  # about 5.95 bits of it end up in each character
    chars = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        chars.append(_ALPHABET[digit])
    return prefix + "_" + "".join(chars)


def new_secret(length: int = 32) -> str:
    """Return `length` random hex digits."""
    return secrets.token_hex(length // 2)
