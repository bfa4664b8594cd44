"""What an answer must hold: values at dotted paths of JSON, and the matchers of `expect.body`.

A plain value means `equals`; a map whose keys are all matcher names is a matcher, and each of its
keys must hold. Equality is exact and typed, as JSON sees it: 1 is not "1", and true is not 1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from mocksrv.domain.equality import same
from mocksrv.masking import mask_json, mask_text

MATCHERS = ("equals", "contains", "matches", "exists", "absent", "one_of", "greater_than", "less_than")
_INDEX = re.compile(r"[0-9]+")
_SHOWN_LENGTH = 200  # characters of a value that a failure quotes


def lookup(document: Any, path: str) -> tuple[bool, Any]:
    """The value at a dotted path (`data.0.status`, a number indexes a list): (found, value)."""
    value = document
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and _INDEX.fullmatch(part) and int(part) < len(value):
            value = value[int(part)]
        else:
            return False, None
    return True, value


def is_matcher(expected: Any) -> bool:
    return isinstance(expected, Mapping) and bool(expected) and all(key in MATCHERS for key in expected)


def shown(value: Any, key: str | None = None) -> str:
    """A value as a failure quotes it: JSON, cut short; card numbers and CVCs masked, in the value's
    text, and by `key` (the field that holds it): `card_cvc`'s value is shown `***`."""
    masked = mask_json(value) if key is None else mask_json({key: value})[key]
    text = mask_text(json.dumps(masked, ensure_ascii=False, default=str), read_escapes=False)
    return text if len(text) <= _SHOWN_LENGTH else text[: _SHOWN_LENGTH - 3] + "..."


def body_mismatches(expected_body: Mapping[str, Any], answer: Any) -> list[str]:
    """Each expectation of `expect.body` the answer does not meet: `body.path: expected ..., got ...`."""
    mismatches: list[str] = []
    for path, expected in expected_body.items():
        found, value = lookup(answer, path)
        matcher = expected if is_matcher(expected) else {"equals": expected}
        for name, argument in matcher.items():
            mismatch = check(name, argument, found, value, key=path.rsplit(".", 1)[-1])
            if mismatch is not None:
                mismatches.append(f"body.{path}: {mismatch}")
    return mismatches


def check(name: str, argument: Any, found: bool, value: Any, key: str | None = None) -> str | None:
    """None if the matcher `name: argument` holds of the value (`found` says if the key is there,
    and `key` names it); else what was expected and what there is, masked."""
    got = shown(value, key) if found else "nothing (no such key)"
    present = found and value is not None
    if name == "equals":
        holds, wanted = found and same(value, argument), shown(argument, key)
    elif name == "contains":
        holds, wanted = found and _contains(value, argument), f"a value containing {shown(argument, key)}"
    elif name == "matches":
        try:
            pattern = re.compile(argument)
        except re.error as error:
            return f"{shown(argument)} is not a regular expression: {error}"
        holds = found and isinstance(value, str) and pattern.search(value) is not None
        wanted = f"text matching {shown(argument, key)}"
    elif name in ("exists", "absent"):
        wants_value = argument is (name == "exists")
        holds, wanted = present == wants_value, "a value" if wants_value else "no value (missing or null)"
    elif name == "one_of":
        holds = found and any(same(value, option) for option in argument)
        wanted = f"one of {shown(argument, key)}"
    elif name in ("greater_than", "less_than"):
        number = found and isinstance(value, int | float) and not isinstance(value, bool)
        holds = number and (value > argument if name == "greater_than" else value < argument)
        wanted = f"a number {name.replace('_', ' ')} {shown(argument)}"
    else:
        raise ValueError(f"no matcher {name!r}")
    return None if holds else f"expected {wanted}, got {got}"


def _contains(value: Any, part: Any) -> bool:
    """Text within text, an item of a list, or a map whose keys and values are all in the map."""
    if isinstance(value, str):
        return isinstance(part, str) and part in value
    if isinstance(value, list):
        return any(same(item, part) for item in value)
    if isinstance(value, Mapping) and isinstance(part, Mapping):
        return all(key in value and same(value[key], item) for key, item in part.items())
    return False


def status_mismatch(expected: int | list[int] | None, status: int) -> str | None:
    """None if the answer's status is the one expected (any 2xx when none is); else why not."""
    if expected is None:
        return None if 200 <= status < 300 else f"status: expected a 2xx status, got {status}"
    allowed = expected if isinstance(expected, list) else [expected]
    if status in allowed:
        return None
    wanted = str(allowed[0]) if len(allowed) == 1 else f"one of {', '.join(map(str, allowed))}"
    return f"status: expected {wanted}, got {status}"
