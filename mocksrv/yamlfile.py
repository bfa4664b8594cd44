"""YAML read so that it means what it says: a key given twice, a number YAML 1.1 reads in base 8 or
60, and a word it reads as a boolean are refused (UnclearYaml), for settings, fixtures and scenarios."""

from __future__ import annotations

import re
from typing import Any

import yaml


def yaml_problem(error: yaml.YAMLError) -> str:
    """What is wrong with a YAML text, in one line, with where it is."""
    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        mark = error.problem_mark
        what = error.problem if isinstance(error, UnclearYaml) else f"not valid YAML: {error.problem}"
        return f"{what} (line {mark.line + 1}, column {mark.column + 1})"
    return "not valid YAML"


class UnclearYaml(yaml.constructor.ConstructorError):
    """Valid YAML that would not mean what it says: a key written twice in one map (the last would
    win without a word), a number that YAML 1.1 reads in base 8 (`0100` is 64) or 60 (`1:30` is 90),
    or a word it reads as a boolean (`No`, Norway's `NO` and `off` are false)."""


_BASE_8 = re.compile(r"[-+]?0[0-7_]+")
_MERGE_TAG = "tag:yaml.org,2002:merge"


def read_number(
    loader: yaml.SafeLoader | yaml.CSafeLoader, node: yaml.ScalarNode
) -> tuple[int | float, str | None]:
    """The int or float YAML 1.1 reads a plain scalar as, and why that is not the number it looks
    like (base 8 or base 60), or None."""
    whole = node.tag.endswith(":int")
    value: int | float = (
        yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
        if whole
        else yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    )
    text = str(node.value)
    base = 60 if ":" in text else 8 if _BASE_8.fullmatch(text) else 10
    if base != 10:
        return value, f"{text} is read as {value} (base {base}): write the number you mean, or quote it"
    return value, None


def read_bool(loader: yaml.SafeLoader | yaml.CSafeLoader, node: yaml.ScalarNode) -> tuple[bool, str | None]:
    """The boolean YAML 1.1 reads a word as, and why it is not true or false in any case (yes, no,
    on, off), or None."""
    text = str(node.value)
    read = yaml.constructor.SafeConstructor.construct_yaml_bool(loader, node)
    if text.lower() not in ("true", "false"):
        return read, f"{text} is read as {str(read).lower()}: write true or false, or quote it for text"
    return read, None


def number_as_written(loader: yaml.SafeLoader | yaml.CSafeLoader, node: yaml.ScalarNode) -> int | float:
    """The int or float of a plain scalar, refusing what YAML 1.1 reads in base 8 or base 60."""
    value, unclear = read_number(loader, node)
    if unclear is not None:
        raise UnclearYaml(None, None, unclear, node.start_mark)
    return value


def bool_as_written(loader: yaml.SafeLoader | yaml.CSafeLoader, node: yaml.ScalarNode) -> bool:
    """true or false, in any case; refusing the words YAML 1.1 also reads as booleans (yes, no, on, off)."""
    read, unclear = read_bool(loader, node)
    if unclear is not None:
        raise UnclearYaml(None, None, unclear, node.start_mark)
    return read


# libyaml's parser when PyYAML was built with it (its wheels are): ten times faster to start.
class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader, for settings and fixtures: what it reads means what it says (UnclearYaml)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first: dict[object, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
                continue
            line = key_node.start_mark.line + 1
            if key_node.value in first:
                reason = f"{key_node.value} is given twice (first on line {first[key_node.value]})"
                raise UnclearYaml(None, None, reason, key_node.start_mark)
            first[key_node.value] = line
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


def refuse_unclear_scalars(loader: type[yaml.SafeLoader] | type[yaml.CSafeLoader]) -> None:
    """Make `loader` refuse the numbers and words YAML 1.1 reads otherwise than they look (UnclearYaml)."""
    for tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        loader.add_constructor(tag, number_as_written)
    loader.add_constructor("tag:yaml.org,2002:bool", bool_as_written)


refuse_unclear_scalars(Loader)
