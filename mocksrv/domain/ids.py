"""Identifiers the sandbox generates."""

from __future__ import annotations

import secrets
import string

_ALPHABET = string.ascii_letters + string.digits


def new_id(prefix: str, length: int = 20) -> str:
    """Return `prefix_` followed by random letters and digits."""
    return prefix + "_" + "".join(secrets.choice(_ALPHABET) for _ in range(length))


def new_secret(length: int = 32) -> str:
    return secrets.token_hex(length // 2)
