"""Finding scenario files and reading one, with the line of every value, into a Scenario; a file
with any problem (`checks.Document`) does not run."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from mocksrv.scenario.checks import Document, node_at
from mocksrv.scenario.format import (
    SUFFIXES,
    InvalidScenario,
    Location,
    Problem,
    Scenario,
    Step,
    step_kind,
)
from mocksrv.yamlfile import read_bool, read_number

# -- finding and reading files ---------------------------------------------------------------------


def scenario_files(paths: Iterable[str]) -> list[str]:
    """Each path that is a file, and each directory's *.yaml and *.yml at any depth, sorted; a file
    named twice, under two names or through a link, is taken once, by the name it was first found.

    A path that does not exist raises FileNotFoundError naming it; one that is there but neither a
    file nor a folder (a named pipe, a socket, a device), NotFileOrFolder.
    """
    found: dict[str, str] = {}  # the real path of each file: the name it was first found by
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = _yaml_files(path)
        elif path.is_file():
            files = [given]
        elif path.exists():
            raise NotFileOrFolder(given, _kind(path))
        else:
            raise FileNotFoundError(given)
        for file in files:
            found.setdefault(os.path.realpath(file), file)
    return list(found.values())


class NotFileOrFolder(ValueError):
    """A path named for scenarios that is there, but is neither a file nor a folder."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"{path}: {kind}, not a file or folder")


def _kind(path: Path) -> str:
    """What a path that is neither a file nor a folder is."""
    mode = path.stat().st_mode
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "something else"


def _yaml_files(folder: Path) -> list[str]:
    """The *.yaml and *.yml files under `folder`, sorted, following linked folders (a folder that
    links back to one above it is read once)."""
    files: list[str] = []
    seen: set[str] = set()
    for root, folders, names in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            folders.clear()
            continue
        seen.add(real)
        folders.sort()  # walked in name order, so that a folder reached twice keeps the same name
        files += [
            os.path.join(root, name)
            for name in names
            if Path(name).suffix in SUFFIXES and os.path.isfile(os.path.join(root, name))
        ]
    return sorted(files)


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
        raw = Path(file).read_bytes()
        text = raw.decode("utf-8")
    except OSError as error:
        reason = error.strerror or str(error)
        raise InvalidScenario(
            [Problem(file, None, "", f"cannot read: {reason[:1].lower()}{reason[1:]}")]
        ) from None
    except UnicodeDecodeError as error:  # at the line of its first byte that is not UTF-8
        at_line = raw[: error.start].count(b"\n") + 1
        reason = f"not UTF-8 text: byte 0x{raw[error.start]:02x}"
        raise InvalidScenario([Problem(file, at_line, "", reason)]) from None
    try:
        root, data, unclear, duplicates = _read_document(text)
    except _TooLarge as error:
        raise InvalidScenario([Problem(file, error.line, "", error.reason)]) from None
    except RecursionError:
        problem = Problem(file, _too_deep_line(text), "", f"nested more than {DEEPEST} deep")
        raise InvalidScenario([problem]) from None
    except yaml.reader.ReaderError as error:  # a character YAML does not allow, anywhere in the text
        at_line = text[: error.position].count("\n") + 1
        reason = f"not valid YAML: unacceptable character #x{error.character:04x}: {error.reason}"
        raise InvalidScenario([Problem(file, at_line, "", reason)]) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = None if mark is None else mark.line + 1
        reason = f"not valid YAML: {error.problem}"
        raise InvalidScenario([Problem(file, line, "", reason)]) from None
    except yaml.YAMLError as error:
        raise InvalidScenario([Problem(file, None, "", f"not valid YAML: {error}")]) from None
    if root is None or data is None:  # nothing, or a lone `---`
        raise InvalidScenario(
            [Problem(file, 1, "", "empty: a scenario is a map with name, description, steps")]
        )
    checked = Document(file, root, data)
    # What YAML reads otherwise than it looks, and what JSON cannot carry: all of it, as the data
    # holds such a number or word as its text; then, once the data is as it looks, what it means.
    problems = [
        *(Problem(file, line, "", reason) for line, reason in unclear),
        *(
            Problem(file, line, checked.where(location), f"duplicate key (first at line {first})")
            for location, line, first in duplicates
        ),
        *checked.json_problems(),
    ]
    problems = problems or [*checked.schema_problems(), *checked.meaning_problems()]
    if problems:
        raise InvalidScenario(sorted(problems, key=lambda problem: problem.line or 0))
    return _scenario(file, data, root)


class _Loader(yaml.SafeLoader):
    """The safe loader, keeping a date or time as the text it was written as (JSON has no dates), and
    a number YAML 1.1 reads in base 8 or 60, or a word it reads as a boolean (yes, no, on, off), as
    the text it was written as, with the line and why it is refused in `unclear`."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.unclear: list[tuple[yaml.Mark, str]] = []

    def as_written(self, node: yaml.ScalarNode, unclear: str) -> str:
        self.unclear.append((node.start_mark, unclear))
        return str(node.value)


def _as_text(loader: _Loader, node: yaml.Node) -> str:
    return str(node.value)


def _number(loader: _Loader, node: yaml.ScalarNode) -> int | float | str:
    value, unclear = read_number(loader, node)
    return value if unclear is None else loader.as_written(node, unclear)


def _bool(loader: _Loader, node: yaml.ScalarNode) -> bool | str:
    value, unclear = read_bool(loader, node)
    return value if unclear is None else loader.as_written(node, unclear)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _as_text)
_Loader.add_constructor("tag:yaml.org,2002:int", _number)
_Loader.add_constructor("tag:yaml.org,2002:float", _number)
_Loader.add_constructor("tag:yaml.org,2002:bool", _bool)


Duplicate = tuple[Location, int, int]  # a key's location, its line, and the line it was first written on


def _read_document(text: str) -> tuple[yaml.Node | None, Any, list[tuple[int, str]], list[Duplicate]]:
    """The document's node tree (every value with its position), the data built from it, the line
    of each number or word YAML 1.1 reads otherwise than it looks and why, and the keys written
    twice in one map: YAML would keep the last without a word."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None, None, [], []
        _check_size(root)
        duplicates = _duplicate_keys(root)  # before building the data, which merges `<<` keys in
        data = loader.construct_document(root)
        in_order = sorted(loader.unclear, key=lambda noted: noted[0].index)  # as written, not as built
        return root, data, [(mark.line + 1, reason) for mark, reason in in_order], duplicates
    finally:
        loader.dispose()


def _too_deep_line(text: str) -> int | None:
    """The line where `text` nests maps and lists more than DEEPEST deep, read event by event: the
    parser keeps a list of what is open where the composer calls itself once a level."""
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > DEEPEST and event.start_mark is not None:
                return event.start_mark.line + 1
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return None


DEEPEST = 64  # maps and lists in one another
MOST_VALUES = 100_000  # values in a file, each alias counted as what it stands for


class _TooLarge(Exception):
    def __init__(self, node: yaml.Node, reason: str) -> None:
        super().__init__(reason)
        self.line, self.reason = node.start_mark.line + 1, reason


def _check_size(root: yaml.Node) -> None:
    """Refuse a file deeper than DEEPEST, or larger than MOST_VALUES once its aliases stand for what
    they name (a few lines of aliases can name billions), or holding an alias within its own anchor.
    Each node is measured once, so a file of aliases is measured in the time of its text."""
    measured: dict[int, tuple[int, int]] = {}  # a node's id: its values and its depth
    open_nodes: set[int] = set()

    def measure(node: yaml.Node) -> tuple[int, int]:
        key = id(node)
        if key in measured:
            return measured[key]
        if key in open_nodes:
            raise _TooLarge(node, "an alias within its own anchor: JSON cannot carry it")
        open_nodes.add(key)
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        values, depth = 1, 0
        for child in children:
            child_values, child_depth = measure(child)
            values, depth = values + child_values, max(depth, child_depth + 1)
        open_nodes.discard(key)
        if depth > DEEPEST:
            raise _TooLarge(node, f"nested more than {DEEPEST} deep")
        if values > MOST_VALUES:
            raise _TooLarge(node, f"more than {MOST_VALUES:,} values once its aliases are read")
        measured[key] = values, depth
        return values, depth

    measure(root)


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
        _step(index + 1, step, node_at(root, ("steps", index))) for index, step in enumerate(data["steps"])
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


def _step(number: int, step: Mapping[str, Any], node: yaml.Node) -> Step:
    spec = {key: value for key, value in step.items() if key != "name"}
    return Step(
        number=number,
        name=step.get("name"),
        kind=step_kind(step) or "",
        spec=_numbers_as_written(spec, node),
        line=node.start_mark.line + 1,
    )


def _numbers_as_written(spec: dict[str, Any], step: yaml.Node) -> dict[str, Any]:
    """A step's spec with each number of its request's query and headers as the text it was written
    as, to be sent so: `12.50` stays `12.50`, and `1.0e+3` is not `1000.0`."""
    request = spec.get("request")
    if not isinstance(request, Mapping):
        return spec
    written = dict(request)
    for part in ("query", "headers"):
        values = request.get(part)
        if isinstance(values, Mapping):
            written[part] = {
                name: _as_written(value, node_at(step, ("request", part, name)))
                for name, value in values.items()
            }
    return {**spec, "request": written}


def _as_written(value: Any, node: yaml.Node) -> Any:
    """A number as the text of its node; any other value as it is."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return str(node.value) if is_number and isinstance(node, yaml.ScalarNode) else value
