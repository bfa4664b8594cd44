"""What a run of scenarios prints and writes: a line per scenario, the failures, a summary, JUnit XML.

Card numbers and account numbers keep their last four digits and CVCs are hidden, wherever they are
shown: in request and answer bodies, queries, and any text (a card-like run of 12 to 19 digits), as
mocksrv.masking masks them everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from xml.etree import ElementTree

from mocksrv.masking import mask_card_like, mask_json, mask_text
from mocksrv.scenario.format import shown_text
from mocksrv.scenario.results import NO_BODY, Exchange, Outcome, ScenarioResult

LABELS = {Outcome.PASSED: "PASS", Outcome.FAILED: "FAIL", Outcome.ERROR: "ERROR"}
SUITE_NAME = "mocksrv scenarios"
MAX_BODY_LINES = 200  # lines of a body that a failure shows; the rest is cut
# XML 1.0 cannot carry these, not even escaped: control characters, and the halves of a character
# that a file name of bytes other than UTF-8 comes back with.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


# -- masking -----------------------------------------------------------------------------------------


def masked(value: Any) -> Any:
    """`value` with card numbers, account numbers and CVCs masked, by key and by the look of the text."""
    return mask_json(value)


# -- console ------------------------------------------------------------------------------------------


def result_line(result: ScenarioResult) -> str:
    """`PASS name (file) 0.31s`."""
    name, file = shown_text(result.scenario.name), result.scenario.file
    return f"{LABELS[result.outcome]} {name} ({file}) {result.seconds:.2f}s"


def failure_text(result: ScenarioResult) -> str:
    """The failed step and why, then what was sent and what came back; masked (the step's name and
    the values a message quotes are masked where they are written)."""
    parts = [result.message]
    if result.exchange is not None:
        parts.append(exchange_text(result.exchange))
    if result.detail:
        parts.append(result.detail)
    return mask_card_like("\n".join(parts))


def exchange_text(exchange: Exchange) -> str:
    query = "&".join(f"{name}={value}" for name, value in masked(dict(exchange.query)).items())
    lines = [f"request: {exchange.method} {exchange.path}" + (f"?{query}" if query else "")]
    if exchange.body is not NO_BODY:
        lines.append(_indented(_json(masked(exchange.body))))
    lines.append(f"answer: {exchange.status}")
    answer = _json(masked(exchange.answer)) if exchange.answer_is_json else str(exchange.answer)
    if answer:
        lines.append(_indented(answer))
    return "\n".join(lines)


def summary_line(results: Sequence[ScenarioResult], seconds: float, deselected: int = 0) -> str:
    """`3 passed, 1 failed in 2.41s`, with errors and scenarios left out by -k when there are any."""
    counts = {outcome: sum(result.outcome is outcome for result in results) for outcome in Outcome}
    line = f"{counts[Outcome.PASSED]} passed, {counts[Outcome.FAILED]} failed"
    if counts[Outcome.ERROR]:
        line += f", {counts[Outcome.ERROR]} errors"
    if deselected:
        line += f", {deselected} deselected"
    return f"{line} in {seconds:.2f}s"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _indented(text: str) -> str:
    lines = text.splitlines()
    if len(lines) > MAX_BODY_LINES:
        lines = [*lines[:MAX_BODY_LINES], f"... ({len(lines) - MAX_BODY_LINES} more lines)"]
    return "\n".join("  " + line for line in lines)


# -- JUnit XML ----------------------------------------------------------------------------------------


def classname(file: str) -> str:
    """A scenario's JUnit class: file's path without the suffix, dotted (`scenarios.cards.declined`);
    `.` and `..` left out, which report viewers would split into empty names."""
    path = PurePath(file)
    parts = [part for part in path.with_suffix("").parts if part not in (".", "..", "/")]
    return ".".join(parts)


def junit_xml(results: Sequence[ScenarioResult], seconds: float) -> bytes:
    """A JUnit report: one testsuite, a testcase per scenario, failures and errors with their text."""
    counts = {outcome: sum(result.outcome is outcome for result in results) for outcome in Outcome}
    totals = {
        "tests": str(len(results)),
        "failures": str(counts[Outcome.FAILED]),
        "errors": str(counts[Outcome.ERROR]),
        "skipped": "0",
        "time": f"{seconds:.3f}",
    }
    suites = ElementTree.Element("testsuites", {"name": SUITE_NAME, **totals})
    suite = ElementTree.SubElement(suites, "testsuite", {"name": SUITE_NAME, **totals})
    for result in results:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            {
                "classname": _xml_text(classname(result.scenario.file)),
                "name": _xml_text(mask_text(result.scenario.name, read_escapes=False)),
                "file": _xml_text(result.scenario.file),
                "time": f"{result.seconds:.3f}",
            },
        )
        if result.outcome is not Outcome.PASSED:
            tag = "failure" if result.outcome is Outcome.FAILED else "error"
            text = failure_text(result)
            message = _xml_text(text.splitlines()[0] if text else "")
            problem = ElementTree.SubElement(case, tag, {"message": message, "type": f"scenario {tag}"})
            problem.text = _xml_text(text)
    ElementTree.indent(suites)
    written: bytes = ElementTree.tostring(suites, encoding="utf-8", xml_declaration=True)
    return written + b"\n"


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("?", text)
