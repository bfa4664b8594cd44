"""Scenario files: read one with the line of every value, check it against schema.json, build a Scenario.

Every problem of a file is reported as `file:line: where: reason`, so that an editor jumps to it; a
file with any problem does not run. `where` is the dotted path of the value (`merchant.rate_limit`);
inside a step it starts with the step's number and name (`step 3 (capture it): request.method`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator, ValidationError

from mocksrv.scenario.variables import NAME, references
from mocksrv.settings import UnclearYaml, number_as_written

SUFFIXES = (".yaml", ".yml")
STEP_KINDS = (
    "request",
    "advance",
    "freeze",
    "set_outcomes",
    "receiver",
    "expect_webhook",
    "wait_webhooks",
    "expect_deliveries",
    "fault",
    "clear_faults",
    "expect_requests",
)
BUILT_IN_VARIABLES = ("merchant_id", "profile_id", "secret_key", "publishable_key", "run_id")
RECEIVER_VARIABLE = "webhook_url"  # only while the scenario's merchant has a receiver
NEEDS_RECEIVER = ("receiver", "expect_webhook")
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_SHOWN_LENGTH = 60  # characters of a value that a message quotes
_SURROGATE = re.compile("[\ud800-\udfff]")  # a "\\ud800" escape alone: no UTF-8 can write it
LONGEST_DELAY = 3600.0  # seconds a receiver may wait before it answers; anything longer is `hang`

Location = tuple[str | int, ...]


def parse_duration(text: str) -> float:
    """Seconds of a duration: `500ms`, `10s`, `5m`, `2h`, `7d` (an amount may have decimals)."""
    match = _DURATION.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"{text!r} is not a duration such as 500ms, 10s, 5m, 2h or 7d")
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a scenario file, where it is, and why."""

    file: str
    line: int | None
    where: str
    reason: str

    def __str__(self) -> str:
        location = self.file if self.line is None else f"{self.file}:{self.line}"
        return ": ".join(part for part in (location, self.where, self.reason) if part)


class InvalidScenario(ValueError):
    """A scenario file that cannot run: every problem found in it."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = list(problems)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a scenario: its kind (the step key) and everything it says, but its name."""

    number: int  # from 1, as reports show it
    name: str | None
    kind: str
    spec: Mapping[str, Any]
    line: int

    @property
    def label(self) -> str:
        return f"step {self.number} ({self.name or self.kind})"


@dataclass(frozen=True, slots=True)
class Scenario:
    """A scenario file that passed every check."""

    file: str  # as the user named it, or found in a directory the user named
    name: str
    description: str
    tags: tuple[str, ...]
    merchant: Mapping[str, Any]
    variables: Mapping[str, Any]
    steps: tuple[Step, ...]

    @property
    def receiver(self) -> Mapping[str, Any] | None:
        """How the scenario's webhook receiver answers at first; None if it has none."""
        receiver: Mapping[str, Any] | None = self.merchant.get("receiver")
        return receiver


# -- finding and reading files ---------------------------------------------------------------------


def scenario_files(paths: Iterable[str]) -> list[str]:
    """Each path that is a file, and each directory's *.yaml and *.yml at any depth, sorted.

    A path that is neither raises FileNotFoundError naming it.
    """
    found: list[str] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(
                str(file) for file in path.rglob("*") if file.suffix in SUFFIXES and file.is_file()
            )
        elif path.is_file():
            found.append(given)
        else:
            raise FileNotFoundError(given)
    return list(dict.fromkeys(found))


def load_scenarios(files: Iterable[str]) -> tuple[list[Scenario], list[Problem]]:
    """Every file that passes its checks, and every problem of the others."""
    scenarios: list[Scenario] = []
    problems: list[Problem] = []
    for file in files:
        try:
            scenarios.append(load_scenario(file))
        except InvalidScenario as invalid:
            problems += invalid.problems
    return scenarios, problems


def load_scenario(file: str) -> Scenario:
    """Read and check one scenario file; any problem raises InvalidScenario with all of them."""
    try:
        text = Path(file).read_text(encoding="utf-8")
    except OSError as error:
        reason = error.strerror or str(error)
        raise InvalidScenario(
            [Problem(file, None, "", f"cannot read: {reason[:1].lower()}{reason[1:]}")]
        ) from None
    except UnicodeDecodeError:
        raise InvalidScenario([Problem(file, None, "", "not UTF-8 text")]) from None
    try:
        root, data, duplicates = _read_document(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = None if mark is None else mark.line + 1
        reason = f"{error.problem}" if isinstance(error, UnclearYaml) else f"not valid YAML: {error.problem}"
        raise InvalidScenario([Problem(file, line, "", reason)]) from None
    except yaml.YAMLError as error:
        raise InvalidScenario([Problem(file, None, "", f"not valid YAML: {error}")]) from None
    if root is None:
        raise InvalidScenario(
            [Problem(file, 1, "", "empty: a scenario is a map with name, description, steps")]
        )
    checked = _Document(file, root, data)
    problems = [
        Problem(file, line, checked.where(location), f"duplicate key (first at line {first})")
        for location, line, first in duplicates
    ]
    problems = problems or checked.json_problems() or checked.schema_problems() or checked.meaning_problems()
    if problems:
        raise InvalidScenario(sorted(problems, key=lambda problem: problem.line or 0))
    return _scenario(file, data, root)


class _Loader(yaml.SafeLoader):
    """The safe loader, keeping a date or time as the text it was written as (JSON has no dates), and
    refusing a number YAML 1.1 reads in base 8 or 60."""


def _as_text(loader: _Loader, node: yaml.Node) -> str:
    return str(node.value)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _as_text)
_Loader.add_constructor("tag:yaml.org,2002:int", number_as_written)
_Loader.add_constructor("tag:yaml.org,2002:float", number_as_written)


Duplicate = tuple[Location, int, int]  # a key's location, its line, and the line it was first written on


def _read_document(text: str) -> tuple[yaml.Node | None, Any, list[Duplicate]]:
    """The document's node tree (every value with its position), the data built from it, and the
    keys written twice in one map: YAML would keep the last without a word."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None, None, []
        duplicates = _duplicate_keys(root)  # before building the data, which merges `<<` keys in
        return root, loader.construct_document(root), duplicates
    finally:
        loader.dispose()


def _duplicate_keys(root: yaml.Node) -> list[Duplicate]:
    duplicates: list[Duplicate] = []
    seen: set[int] = set()

    def walk(node: yaml.Node, location: Location) -> None:
        if id(node) in seen:  # an alias: the anchor's node was walked where it was written
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first_lines: dict[str, int] = {}
            for key_node, value_node in node.value:
                key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else ""
                line = key_node.start_mark.line + 1
                if key in first_lines and key != "<<":
                    duplicates.append(((*location, key), line, first_lines[key]))
                first_lines.setdefault(key, line)
                walk(value_node, (*location, key))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, (*location, index))

    walk(root, ())
    return duplicates


def _scenario(file: str, data: Mapping[str, Any], root: yaml.Node) -> Scenario:
    steps = tuple(
        Step(
            number=index + 1,
            name=step.get("name"),
            kind=_kind(step) or "",
            spec={key: value for key, value in step.items() if key != "name"},
            line=_node_at(root, ("steps", index)).start_mark.line + 1,
        )
        for index, step in enumerate(data["steps"])
    )
    return Scenario(
        file=file,
        name=data["name"],
        description=data["description"],
        tags=tuple(data.get("tags", ())),
        merchant=data.get("merchant", {}),
        variables=data.get("variables", {}),
        steps=steps,
    )


def _kind(step: Mapping[str, Any]) -> str | None:
    kinds = [key for key in step if key in STEP_KINDS]
    return kinds[0] if len(kinds) == 1 else None


# -- the checks ----------------------------------------------------------------------------------------


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file, as shipped in the package."""
    text = resources.files("mocksrv.scenario").joinpath("schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator() -> Draft202012Validator:
    Draft202012Validator.check_schema(schema())
    return Draft202012Validator(schema())


class _Document:
    """One parsed file: its data, and its nodes to find the line of any value."""

    def __init__(self, file: str, root: yaml.Node, data: Any) -> None:
        self.file = file
        self.root = root
        self.data = data

    def problem(self, location: Location, reason: str, *, at_key: bool = False) -> Problem:
        """A problem of the value at `location` (of its key, with `at_key`), on that value's line."""
        node = _key_node(self.root, location) if at_key else None
        if node is None:
            node = _node_at(self.root, location)
        return Problem(self.file, node.start_mark.line + 1, self.where(location), reason)

    def where(self, location: Location) -> str:
        """`merchant.rate_limit`, or inside a step `step 3 (pay): request.method`."""
        if len(location) >= 2 and location[0] == "steps" and isinstance(location[1], int):
            steps = self.data.get("steps") if isinstance(self.data, Mapping) else None
            step = steps[location[1]] if isinstance(steps, list) and location[1] < len(steps) else None
            label = f"step {location[1] + 1}"
            if isinstance(step, Mapping):
                name = step.get("name")
                named = name if isinstance(name, str) and name else _kind(step)
                label += f" ({named})" if named else ""
            rest = _dotted(location[2:])
            return f"{label}: {rest}" if rest else label
        return _dotted(location)

    def json_problems(self) -> list[Problem]:
        """Values YAML can write but JSON cannot carry: the request would fail as the step runs."""
        return [
            self.problem(location, reason, at_key=at_key) for location, reason, at_key in _not_json(self.data)
        ]

    def schema_problems(self) -> list[Problem]:
        problems: list[Problem] = []
        for error in _validator().iter_errors(self.data):
            problems += self._explained(error)
        return problems

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
        if isinstance(subschema, Mapping) and "errorMessage" in subschema:
            reason = str(subschema["errorMessage"]).replace("{value}", _shown(instance))
            return [self.problem(location, reason)]
        if error.validator == "type":
            types = subschema["type"] if isinstance(subschema, Mapping) else "?"
            wanted = " or ".join(types) if isinstance(types, list) else str(types)
            return [self.problem(location, f"{_shown(instance)} is not of type {wanted}")]
        return [self.problem(location, error.message)]

    def meaning_problems(self) -> list[Problem]:
        """What the schema cannot say: variables used before they exist, bad patterns, a receiver
        step without a receiver."""
        data = self.data
        problems: list[Problem] = []
        has_receiver = "receiver" in data.get("merchant", {})
        known = set(BUILT_IN_VARIABLES) | ({RECEIVER_VARIABLE} if has_receiver else set())
        for location, name in references(data.get("variables", {})):
            if name not in known:
                problems.append(self.problem(("variables", *location), f"unknown variable ${{{name}}}"))
        known |= set(data.get("variables", {}))
        for location, name in references(data.get("merchant", {}).get("outcomes", [])):
            if name not in known:
                where = ("merchant", "outcomes", *location)
                problems.append(self.problem(where, f"unknown variable ${{{name}}}"))
        receivers: list[tuple[Location, Any]] = [
            (("merchant", "receiver"), data.get("merchant", {}).get("receiver"))
        ]
        receivers += [
            (("steps", index, "receiver"), step.get("receiver")) for index, step in enumerate(data["steps"])
        ]
        for location, receiver in receivers:
            delay = receiver.get("delay") if isinstance(receiver, Mapping) else None
            if isinstance(delay, str) and parse_duration(delay) > LONGEST_DELAY:
                reason = f"{delay} is longer than an hour: a receiver that never answers is hang: true"
                problems.append(self.problem((*location, "delay"), reason))
        for index, step in enumerate(data["steps"]):
            here: Location = ("steps", index)
            said = {key: value for key, value in step.items() if key != "name"}
            for location, name in references(said):
                if name not in known or not NAME.fullmatch(name):
                    problems.append(self.problem((*here, *location), f"unknown variable ${{{name}}}"))
            kind = _kind(step)
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
            known |= set(step.get("save", {}))
        return problems


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
    """The key node and value node of `key` in a map, or the item at `key` of a list."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(key):
                return key_node, value_node
    elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        item: yaml.Node = node.value[key]
        return item, item
    return None


def _node_at(root: yaml.Node, location: Location) -> yaml.Node:
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
    found = _child(_node_at(root, location[:-1]), location[-1])
    return None if found is None else found[0]


def _dotted(location: Location) -> str:
    return ".".join(str(key) for key in location)


def _shown(value: Any) -> str:
    """A value as a message quotes it: short, and nested data as {...} or [...]."""
    if isinstance(value, Mapping):
        return "{...}"
    if isinstance(value, list):
        return "[...]"
    text = repr(value)
    return text if len(text) <= _SHOWN_LENGTH else text[: _SHOWN_LENGTH - 3] + "..."
