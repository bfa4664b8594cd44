"""The checks of a scenario file: JSON can carry it, it matches schema.json, and it means something
(its variables exist, its patterns compile, a webhook step has a receiver).

Every problem is reported as `file:line: where: reason`, so that an editor jumps to it. `where` is
the dotted path of the value (`merchant.rate_limit`); inside a step it starts with the step's
number and name (`step 3 (capture it): request.method`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from functools import cache, cached_property
from typing import Any

import yaml
from jsonschema import Draft202012Validator, ValidationError, validators

from mocksrv.control.faults import check_fault
from mocksrv.domain.clock import LONGEST_ADVANCE_SECONDS
from mocksrv.domain.errors import DomainError, InvalidField
from mocksrv.masking import mask_text
from mocksrv.scenario.format import (
    BUILT_IN_VARIABLES,
    CUT_SHORT,
    LONGEST_DELAY,
    NEEDS_RECEIVER,
    NO_ANSWER,
    RECEIVER_VARIABLE,
    STEP_KINDS,
    Location,
    Problem,
    parse_duration,
    schema,
    shown_text,
    step_kind,
)
from mocksrv.scenario.variables import NAME, is_whole_reference, references

_SHOWN_LENGTH = 60  # characters of a value that a message quotes
_SURROGATE = re.compile("[\ud800-\udfff]")  # a "\\ud800" escape alone: no UTF-8 can write it
# What a request's headers can carry (RFC 9110): a name is a token; a value is Latin-1 text without
# control characters but the tab, and without spaces or tabs at its ends, which HTTP drops.
_TOKEN_MARKS = "!#$%&'*+-.^_`|~"
_HEADER_NAME = re.compile(f"[0-9A-Za-z{re.escape(_TOKEN_MARKS)}]+")
_NOT_LATIN_1 = re.compile("[^\x00-\xff]")
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")


# An integer is written without a fraction: `200.0`, an integer to JSON Schema, is refused by the
# control plane and by a status comparison alike.
_Validator = validators.extend(  # type: ignore[no-untyped-call]  # jsonschema's own, untyped
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)


@cache
def _validator() -> Any:
    Draft202012Validator.check_schema(schema())
    return _Validator(schema())


@cache
def _step_validator() -> Any:
    return _Validator({"$defs": schema()["$defs"], "$ref": "#/$defs/step"})


def substituted_problem(spec: Mapping[str, Any]) -> str | None:
    """What a step no longer meets once its variables are put in, or None: a whole `${name}` takes
    the variable's type, which the file's check cannot know (a number where a pattern goes)."""
    error = next(iter(_step_validator().iter_errors(spec)), None)
    if error is not None:
        where, reason = _dotted(tuple(error.absolute_path)), _reason(error)
    else:
        found = next(_value_problems(spec), None)
        if found is None:
            return None
        where, reason = _dotted(found[0]), found[1]
    return mask_text(f"{where}: {reason}, once its variables are put in", read_escapes=False)


def _reason(error: ValidationError) -> str:
    """The schema's words for a value it refuses: its own message for the value, if it has one."""
    subschema: Any = error.schema
    if isinstance(subschema, Mapping) and "errorMessage" in subschema:
        return str(subschema["errorMessage"]).replace("{value}", _shown(error.instance))
    if error.validator == "const":
        return f"{_shown(error.instance)} is not {json.dumps(error.validator_value)}"
    if error.validator == "type":
        types = subschema["type"] if isinstance(subschema, Mapping) else "?"
        wanted = " or ".join(types) if isinstance(types, list) else str(types)
        return f"{_shown(error.instance)} is not of type {wanted}"
    return error.message


class Document:
    """One parsed file: its data, and its nodes to find the line of any value."""

    def __init__(self, file: str, root: yaml.Node, data: Any) -> None:
        self.file = file
        self.root = root
        self.data = data

    def problem(self, location: Location, reason: str, *, at_key: bool = False) -> Problem:
        """A problem of the value at `location` (of its key, with `at_key`), on that value's line."""
        node = _key_node(self.root, location) if at_key else None
        if node is None:
            node = node_at(self.root, location)
        return Problem(self.file, node.start_mark.line + 1, self.where(location), reason)

    def key_problem(self, location: Location, key: str, reason: str) -> Problem:
        """A problem of `key`, a key of the map at `location`: on the key's line, where the map is."""
        line = self.problem((*location, key), reason, at_key=True).line
        return Problem(self.file, line, self.where(location), reason)

    def where(self, location: Location) -> str:
        """`merchant.rate_limit`, or inside a step `step 3 (pay): request.method`."""
        if len(location) >= 2 and location[0] == "steps" and isinstance(location[1], int):
            steps = self.data.get("steps") if isinstance(self.data, Mapping) else None
            step = steps[location[1]] if isinstance(steps, list) and location[1] < len(steps) else None
            label = f"step {location[1] + 1}"
            if isinstance(step, Mapping):
                name = step.get("name")
                named = shown_text(name) if isinstance(name, str) and name else step_kind(step)
                label += f" ({named})" if named else ""
            rest = _dotted(location[2:])
            return f"{label}: {rest}" if rest else label
        return _dotted(location)

    def json_problems(self) -> list[Problem]:
        """Values YAML can write but JSON cannot carry: the request would fail as the step runs."""
        return [
            self.problem(location, reason, at_key=at_key) for location, reason, at_key in _not_json(self.data)
        ]

    @cached_property
    def _schema_errors(self) -> list[ValidationError]:
        return [error for error in _validator().iter_errors(self.data) if not _only_variables(error)]

    def schema_problems(self) -> list[Problem]:
        return [problem for error in self._schema_errors for problem in self._explained(error)]

    def _accepted(self, location: Location) -> bool:
        """Whether the schema found nothing wrong at `location` or inside it."""
        return not any(
            tuple(error.absolute_path)[: len(location)] == location for error in self._schema_errors
        )

    def _explained(self, error: ValidationError) -> list[Problem]:
        """The schema's error as a problem a person can act on, at the line of what it is about."""
        location: Location = tuple(error.absolute_path)
        instance: Any = error.instance
        subschema: Any = error.schema
        is_step = len(location) == 2 and location[0] == "steps"
        if error.validator == "additionalProperties" and isinstance(subschema, Mapping):
            allowed = list(subschema.get("properties", {}))
            reason = f"unknown key (one of {', '.join(allowed)})" if allowed else "unknown key: takes none"
            return [
                self.problem((*location, key), reason, at_key=True) for key in instance if key not in allowed
            ]
        if "propertyNames" in error.relative_schema_path:
            if is_step:
                reason = f"unknown step key (a step has one of {', '.join(STEP_KINDS)}, and a name)"
            else:
                reason = "not a variable name (letters, digits and _, not starting with a digit)"
            return [self.problem((*location, instance), reason, at_key=True)]
        if error.validator == "oneOf" and is_step and not isinstance(instance, Mapping):
            return []  # not a map: its type is reported on its own
        if error.validator == "oneOf" and is_step and isinstance(instance, Mapping):
            kinds = [key for key in instance if key in STEP_KINDS]
            if len(kinds) > 1:
                return [self.problem(location, f"more than one step key: {', '.join(kinds)}")]
            if set(instance) - {"name"}:
                return []  # what it has instead is a problem of its own, reported on its line
            return [self.problem(location, f"no step key (one of {', '.join(STEP_KINDS)})")]
        if error.validator == "dependentRequired" and isinstance(instance, Mapping):
            return [
                self.problem((*location, key), f"{key} goes with a request step", at_key=True)
                for key in ("expect", "save")
                if key in instance and "request" not in instance
            ]
        return [self.problem(location, _reason(error))]

    def meaning_problems(self) -> list[Problem]:
        """What the schema cannot say, in each part of the file it accepted: variables used before
        they exist, bad patterns, a receiver step without a receiver. A variable is known from where
        it is given even in a part the schema refused, so that no use of it is reported for that."""
        data = self.data
        if not isinstance(data, Mapping):
            return []
        merchant, variables = _map(data.get("merchant")), _map(data.get("variables"))
        steps = data.get("steps")
        problems: list[Problem] = []
        has_receiver = "receiver" in merchant
        known = set(BUILT_IN_VARIABLES) | ({RECEIVER_VARIABLE} if has_receiver else set())
        if self._accepted(("variables",)):
            for location, name in references(variables):
                if name not in known:
                    problems.append(self.problem(("variables", *location), f"unknown variable ${{{name}}}"))
        known |= set(variables)
        if self._accepted(("merchant",)):
            for location, name in references(merchant.get("outcomes", [])):
                if name not in known:
                    where = ("merchant", "outcomes", *location)
                    problems.append(self.problem(where, f"unknown variable ${{{name}}}"))
            delay = _long_delay(merchant.get("receiver"))
            if delay is not None:
                problems.append(self.problem(("merchant", "receiver", "delay"), delay))
        for index, step in enumerate(steps if isinstance(steps, list) else []):
            here: Location = ("steps", index)
            if self._accepted(here):
                problems += self._step_problems(here, step, known, has_receiver)
            known |= set(_map(_map(step).get("save")))
        return problems

    def _step_problems(
        self, here: Location, step: Mapping[str, Any], known: set[str], has_receiver: bool
    ) -> list[Problem]:
        """What the schema cannot say of a step it accepted, with the variables `known` before it."""
        problems: list[Problem] = []
        for location, reason in _value_problems(step):
            at_key = location[0] in ("expect", "save")  # a map's problem shows on its key's line
            problems.append(self.problem((*here, *location), reason, at_key=at_key))
        problems += self._header_name_problems(here, step)
        said = {key: value for key, value in step.items() if key != "name"}
        for location, name in references(said):
            if name not in known or not NAME.fullmatch(name):
                problems.append(self.problem((*here, *location), f"unknown variable ${{{name}}}"))
        kind = step_kind(step)
        if kind == "fault" and not any(references(step["fault"])):
            problems += self._fault_problems((*here, "fault"), step["fault"])
        if kind in NEEDS_RECEIVER and not has_receiver:
            reason = "needs a webhook receiver: give the scenario merchant.receiver"
            problems.append(self.problem((*here, str(kind)), reason, at_key=True))
        for key, expected in step.get("expect", {}).get("body", {}).items():
            pattern = expected.get("matches") if isinstance(expected, Mapping) else None
            if isinstance(pattern, str) and not any(references(pattern)):
                try:
                    re.compile(pattern)
                except re.error as error:
                    where = (*here, "expect", "body", key, "matches")
                    problems.append(self.problem(where, f"not a regular expression: {error}"))
        return problems

    def _header_name_problems(self, here: Location, step: Mapping[str, Any]) -> list[Problem]:
        """The names of a request step's headers that are not HTTP's tokens: none can be sent."""
        request = step.get("request")
        headers = request.get("headers", {}) if isinstance(request, Mapping) else {}
        return [
            self.key_problem(
                (*here, "request", "headers"),
                name,
                f"{_shown(name)} is not a header name: letters, digits and {_TOKEN_MARKS} only",
            )
            for name in headers
            if not _HEADER_NAME.fullmatch(name)
        ]

    def _fault_problems(self, location: Location, rule: Any) -> list[Problem]:
        """What the control plane would refuse of a fault step's rule."""
        try:
            check_fault(rule)
        except DomainError as refused:
            named = tuple(refused.param.split(".")) if refused.param else ()
            reason = refused.reason if isinstance(refused, InvalidField) else refused.message
            return [self.problem((*location, *named), reason)]
        return []


def _value_problems(step: Mapping[str, Any]) -> Iterator[tuple[Location, str]]:
    """What a step's values ask that the schema cannot say: checked in the file, and again once its
    variables are put in (a whole `${name}` in the file is left to its value)."""
    advance = step.get("advance")
    if _duration(advance) > LONGEST_ADVANCE_SECONDS:
        most = f"{LONGEST_ADVANCE_SECONDS // 86400}d"
        yield ("advance",), f"{advance} is longer than {most}, the most a clock moves at once"
    delay = _long_delay(step.get("receiver"))
    if delay is not None:
        yield ("receiver", "delay"), delay
    request = step.get("request")
    request = request if isinstance(request, Mapping) else {}
    timeout = _seconds(request.get("timeout"))
    if timeout is not None and not 0 < timeout <= LONGEST_DELAY:
        reason = f"{request['timeout']} is not a timeout of more than 0 and at most an hour"
        yield ("request", "timeout"), reason
    for name, value in request.get("headers", {}).items():
        unsendable = header_value_problem(value) if isinstance(value, str) else None
        if unsendable is not None:
            yield ("request", "headers", name), unsendable
    yield from _unanswerable(step)


def header_value_problem(value: str) -> str | None:
    """Why `value` cannot be sent as a header's value, or None."""
    if "\r" in value or "\n" in value:
        return "a header's value is one line: no CR or LF"
    outside = _NOT_LATIN_1.search(value)
    if outside is not None:
        return f"a header's value is Latin-1 text: {outside.group()!r} cannot be sent"
    control = _CONTROL.search(value)
    if control is not None:
        return f"a header's value holds no control character but the tab: {control.group()!r} cannot be sent"
    if value != value.strip(" \t"):
        return "a header's value does not start or end with a space or a tab: HTTP drops them"
    return None


def _long_delay(receiver: Any) -> str | None:
    """Why a receiver's delay is refused, if it is: over an hour."""
    delay = receiver.get("delay") if isinstance(receiver, Mapping) else None
    if _duration(delay) > LONGEST_DELAY:
        return f"{delay} is longer than an hour: a receiver that never answers is hang: true"
    return None


# What a request step cannot expect, or save, of an answer that does not come whole.
_NOT_THERE = {NO_ANSWER: ("status", "body", "save"), CUT_SHORT: ("body", "save")}


def _unanswerable(step: Mapping[str, Any]) -> Iterator[tuple[Location, str]]:
    """The keys of a request step that ask for what its `expect.answer` says will not come."""
    expect = step.get("expect", {})
    answer = expect.get("answer")
    for key in _NOT_THERE.get(answer, ()) if isinstance(answer, str) else ():
        if key == "save" and key in step:
            yield (key,), f"an answer {answer} has no value to save"
        elif key in expect:
            yield ("expect", key), f"an answer {answer} has no {key} to expect"


def _duration(value: Any) -> float:
    """The seconds a duration written in the file says; 0 for none, or for a whole `${name}`, which
    is checked once its value is put in."""
    return _seconds(value) or 0


def _seconds(value: Any) -> float | None:
    """The seconds of a duration written in the file; None for none, or for a whole `${name}`."""
    return parse_duration(value) if isinstance(value, str) and not is_whole_reference(value) else None


# The schema's checks of a single value that a whole `${name}` fails where it stands for a number,
# a boolean, a duration or one of a list; and the types of such values.
_VALUE_CHECKS = frozenset({"enum", "const", "pattern", "minimum", "maximum"})
_VALUE_TYPES = frozenset({"integer", "number", "boolean"})


def _only_variables(error: ValidationError) -> bool:
    """Whether the schema's error is only that a whole `${name}` stands, inside a step, where a
    number, a boolean, a duration or one of a list goes: the variable's value takes its place,
    checked once it is put in (`substituted_problem`). One where a step, a request, an expect or a
    map goes is a problem of the file. An error of `anyOf` or `oneOf` is so when one of its
    branches fails only so."""
    location = tuple(error.absolute_path)
    if len(location) >= 3 and location[0] == "steps" and is_whole_reference(error.instance):
        if error.validator == "type":
            wanted = error.validator_value
            return bool(_VALUE_TYPES & set(wanted if isinstance(wanted, list) else [wanted]))
        return error.validator in _VALUE_CHECKS
    branches: dict[Any, list[ValidationError]] = {}
    for sub in error.context or ():
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    return any(all(_only_variables(sub) for sub in subs) for subs in branches.values())


def _not_json(value: Any, location: Location = ()) -> Iterator[tuple[Location, str, bool]]:
    """Where `value` holds what JSON has no word for, and what it is; True where it is a key."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                yield (*location, str(key)), f"the key {key!r} is not text: quote it", True
            else:
                yield from _not_json(key, (*location, key))
                yield from _not_json(item, (*location, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _not_json(item, (*location, index))
    elif isinstance(value, str):
        if _SURROGATE.search(value):
            yield location, "holds a lone surrogate (\\ud800 to \\udfff), which UTF-8 cannot write", False
    elif isinstance(value, float):
        if not math.isfinite(value):
            yield location, f"{value} is not a JSON number", False
    elif not (value is None or isinstance(value, bool | int)):
        yield location, f"{_shown(value)} is not JSON: write text, a number, a list or a map", False


# -- positions of values -------------------------------------------------------------------------------


def _child(node: yaml.Node, key: str | int) -> tuple[yaml.Node, yaml.Node] | None:
    """The key node and value node of `key` in a map, or the item at `key` of a list. A map's last:
    once built, a map that merges others (`<<: *anchor`) holds their keys first and its own after,
    and its own win."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in reversed(node.value):
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(key):
                return key_node, value_node
    elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        item: yaml.Node = node.value[key]
        return item, item
    return None


def node_at(root: yaml.Node, location: Location) -> yaml.Node:
    """The node of the value at `location`, or of the nearest value above it that exists."""
    node = root
    for key in location:
        found = _child(node, key)
        if found is None:
            break
        node = found[1]
    return node


def _key_node(root: yaml.Node, location: Location) -> yaml.Node | None:
    if not location:
        return None
    found = _child(node_at(root, location[:-1]), location[-1])
    return None if found is None else found[0]


def _map(value: Any) -> Mapping[str, Any]:
    """`value` if it is a map, else an empty one: a part the schema refused may be anything."""
    return value if isinstance(value, Mapping) else {}


def _dotted(location: Location) -> str:
    return ".".join(str(key) for key in location)


def _shown(value: Any) -> str:
    """A value as a message quotes it: short, and nested data as {...} or [...]."""
    if isinstance(value, Mapping):
        return "{...}"
    if isinstance(value, list):
        return "[...]"
    text = json.dumps(value) if value is None or isinstance(value, bool) else repr(value)  # true, null
    return text if len(text) <= _SHOWN_LENGTH else text[: _SHOWN_LENGTH - 3] + "..."
