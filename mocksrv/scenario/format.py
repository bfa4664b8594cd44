"""The scenario file format: its step kinds and variables, its JSON Schema (schema.json), and what a
file that passed its checks becomes (Scenario, Step) or what is wrong with one (Problem)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from mocksrv.masking import mask_text, one_line

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
LONGEST_DELAY = 3600.0  # seconds a receiver may wait before it answers; anything longer is `hang`
HANG_SECONDS = 2 * LONGEST_DELAY  # a `hang`: longer than any delay; released when the scenario ends
# What a request step expects of its answer (`expect.answer`): whole, none at all, or cut short.
WHOLE, NO_ANSWER, CUT_SHORT = "whole", "none", "cut_short"

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


def shown_text(text: str) -> str:
    """Text a file wrote (a name, a line of a description) as a report shows it: on one line, card
    numbers and CVCs masked."""
    return one_line(mask_text(text, read_escapes=False))


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
        """`step 2 (pay)`: its name, card numbers and CVCs masked, as every report shows them."""
        named = self.kind if self.name is None else shown_text(self.name)
        return f"step {self.number} ({named})"


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


def step_kind(step: Mapping[str, Any]) -> str | None:
    kinds = [key for key in step if key in STEP_KINDS]
    return kinds[0] if len(kinds) == 1 else None


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file, as shipped in the package."""
    text = resources.files("mocksrv.scenario").joinpath("schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded
