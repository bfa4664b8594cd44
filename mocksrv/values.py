"""Parsers of the values a setting or a fixture file gives: each returns the value, or raises
ValueError with the reason a message shows (`not a port (0 to 65535)`).

A flag or a variable gives text; a YAML file gives any scalar, so a parser takes either.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import idna

Parse = Callable[[object], Any]

_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,30}")
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_MAX_HOST_NAME = 253


def whole_number(low: int, high: int | None = None, reason: str | None = None) -> Parse:
    """Parse a whole number from `low` up to `high`; booleans and fractions are refused."""
    if reason is None:
        reason = (
            f"not a whole number of {low} or more"
            if high is None
            else f"not a whole number from {low} to {high}"
        )

    def parse(value: object) -> int:
        if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(reason)
        if value < low or (high is not None and value > high):
            raise ValueError(reason)
        return value

    return parse


def number(low: float, *, inclusive: bool, reason: str, high: float = math.inf) -> Parse:
    """Parse a finite number above `low` (or from it, when `inclusive`) and at most `high`;
    booleans are refused."""

    def parse(value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise ValueError(reason)
        try:
            parsed = float(value)
        except (ValueError, OverflowError):
            raise ValueError(reason) from None
        if not math.isfinite(parsed) or parsed < low or (parsed == low and not inclusive) or parsed > high:
            raise ValueError(reason)
        return parsed

    return parse


# The largest whole number a snapshot or a state file holds: JSON numbers of 64 bits.
LARGEST_WHOLE = 2**63 - 1
# The longest wait a setting names, in seconds (about 11.6 days): far below what a thread's timed
# wait or a datetime can take, far above any wait a sandbox needs.
LONGEST_WAIT = 1_000_000


def one_of(*choices: str) -> Parse:
    """Parse one of `choices`, in any case."""
    reason = f"not one of {', '.join(choices)}"

    def parse(value: object) -> str:
        if not isinstance(value, str) or value.lower() not in choices:
            raise ValueError(reason)
        return value.lower()

    return parse


def text(value: object) -> str:
    """Parse a non-empty string; a YAML number is refused, so that `0123` is not read as 83."""
    if not isinstance(value, str) or not value:
        raise ValueError("not a non-empty string")
    return value


# A connector's name is a part of the legacy API's paths (/api/v1/<connector>/card/initiate).
CONNECTOR_NAME = r"[A-Za-z0-9_.-]{1,64}"
CONNECTOR_REASON = "1-64 letters, digits, _, . or -"


def connector_name(value: object) -> str:
    """Parse a connector's name, which a path of the legacy API holds."""
    if not isinstance(value, str) or not re.fullmatch(CONNECTOR_NAME, value):
        raise ValueError(f"not {CONNECTOR_REASON}")
    return value


def host_address(value: object) -> str:
    """Parse an IPv4 or IPv6 address, or a host name whose labels are not all digits."""
    reason = "not an IP address or host name"
    if not isinstance(value, str):
        raise ValueError(reason)
    try:
        ipaddress.ip_address(value)
    except ValueError:
        pass
    else:
        return value
    labels = value.split(".")
    if (
        len(value) > _MAX_HOST_NAME
        or not all(_HOST_LABEL.fullmatch(label) for label in labels)
        or all(label.isdigit() for label in labels)
    ):
        raise ValueError(reason)
    return value


def http_url(value: object) -> str:
    """Parse an http or https URL that names a host, and a port of 1 to 65535 if any."""
    reason = "not an http or https URL with a host and a port of 1 to 65535"
    if not isinstance(value, str) or not value.isprintable() or " " in value:
        raise ValueError(reason)
    try:
        parts = urlsplit(value)
        port = parts.port  # reading it checks the port
    except ValueError:
        raise ValueError(reason) from None
    if parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
        raise ValueError(reason)
    host = parts.hostname
    if "[" in parts.netloc:  # an address in brackets: IPv6, with a zone or not, not IPvFuture's `[v1.x]`
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(reason) from None
    else:  # a name the resolver takes (no empty label, none past 63)
        try:
            # A name not in ASCII as requests sends it, or refuses it (`😀.example`): IDNA 2008.
            host.encode("idna") if host.isascii() else idna.encode(host, uts46=True)
        except UnicodeError:  # idna's errors are UnicodeErrors too
            raise ValueError(reason) from None
    return value


def optional_http_url(value: object) -> str | None:
    """Parse an http or https URL, or nothing (a YAML null)."""
    return None if value is None else http_url(value)


def directory(value: object) -> Path:
    """Parse the path of an existing directory."""
    if not isinstance(value, str | Path) or not str(value):
        raise ValueError("not a directory")
    path = Path(value)
    if not path.is_dir():
        raise ValueError("not a directory")
    return path
