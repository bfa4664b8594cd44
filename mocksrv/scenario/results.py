"""How a scenario ended: its outcome, and what a failure shows (the exchange, the detail)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mocksrv.scenario.format import Scenario


class Outcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"  # a step's expectation was not met, or the server refused a step
    ERROR = "error"  # the scenario could not run: the server unreachable, a merchant not created, a bug


@dataclass(frozen=True, slots=True)
class Exchange:
    """A request of a step and the answer to it, as a failure shows them."""

    method: str
    path: str
    query: Mapping[str, str]
    body: Any  # NO_BODY when the request had none
    status: int
    answer: Any  # the parsed JSON, or the text when it is not JSON
    answer_is_json: bool


NO_BODY: Any = object()


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    """How one scenario ended, how long it took, and what a failure shows."""

    scenario: Scenario
    outcome: Outcome
    seconds: float
    message: str = ""  # one line: the step, and what went wrong
    detail: str = ""  # what was expected and what came back, beyond the message
    exchange: Exchange | None = None

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASSED


class StepFailed(Exception):
    """A step's expectation was not met: why, and the exchange or deliveries that show it."""

    def __init__(self, reason: str, *, exchange: Exchange | None = None, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.exchange = exchange
        self.detail = detail
