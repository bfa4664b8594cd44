"""Variables of a scenario: `${name}` in any string of a step takes the variable's value.

A string that is exactly one `${name}` takes the value with its type (an int stays an int); inside
longer text a value is written as JSON writes it (`true`, `null`), a string as it is. `$${` is a
literal `${`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

REFERENCE = re.compile(r"\$\$\{|\$\{([^}]*)\}")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class UnknownVariable(KeyError):
    """A string names a variable that the scenario does not have (yet)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown variable ${{{self.name}}}"


def whole_reference(value: Any) -> str | None:
    """The name, when `value` is a string that is exactly one `${name}`: it takes the variable's type."""
    whole = REFERENCE.fullmatch(value) if isinstance(value, str) else None
    return None if whole is None else whole.group(1)


def is_whole_reference(value: Any) -> bool:
    """Whether `value` is a string that is exactly one `${name}`."""
    return whole_reference(value) is not None


def references(value: Any) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every `${name}` inside `value`, with the path of the string that holds it."""
    if isinstance(value, str):
        for match in REFERENCE.finditer(value):
            if match.group(1) is not None:
                yield (), match.group(1)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            for path, name in references(item):
                yield (key, *path), name
    elif isinstance(value, list):
        for index, item in enumerate(value):
            for path, name in references(item):
                yield (index, *path), name


def substitute(value: Any, variables: Mapping[str, Any]) -> Any:
    """`value` with every `${name}` replaced; an unknown name raises UnknownVariable."""
    if isinstance(value, str):
        name = whole_reference(value)
        if name is not None:
            return _value(name, variables)
        return REFERENCE.sub(lambda match: _text(match, variables), value)
    if isinstance(value, Mapping):
        return {key: substitute(item, variables) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, variables) for item in value]
    return value


def _value(name: str, variables: Mapping[str, Any]) -> Any:
    if name not in variables:
        raise UnknownVariable(name)
    return variables[name]


def _text(match: re.Match[str], variables: Mapping[str, Any]) -> str:
    if match.group(1) is None:  # `$${`, the escape of a literal `${`
        return "${"
    value = _value(match.group(1), variables)
    return value if isinstance(value, str) else json.dumps(value)
