"""A request step's request, sent, and how its answer came: whole, not at all, or cut short.

A fault can keep an answer from coming whole: a `drop` closes the connection before a status, a
`hang` holds it past the step's timeout, a `truncate` stops the body short of its length. A step
says which it expects (`expect.answer`); a server that cannot be reached is none of these, and is
raised, as the scenario cannot run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import requests
import urllib3

from mocksrv.scenario.format import CUT_SHORT, NO_ANSWER, WHOLE
from mocksrv.scenario.results import NO_BODY, Exchange

_SAID = {WHOLE: "a whole answer", NO_ANSWER: "no answer", CUT_SHORT: "an answer cut short"}


@dataclass(frozen=True, slots=True)
class Sent:
    """How the answer came (WHOLE, NO_ANSWER or CUT_SHORT); the exchange, but for no answer; and,
    for none, whether the step gave up waiting (a hang) rather than the server closing."""

    came: str
    exchange: Exchange | None = None
    timed_out: bool = False

    def mismatch(self, expected: str) -> str | None:
        """Why the answer is not the one `expected`; None if it is."""
        if self.came == expected:
            return None
        why = "the timeout passed" if self.timed_out else "the connection closed"
        got = f"none ({why})" if self.came == NO_ANSWER else _SAID[self.came]
        return f"answer: expected {_SAID[expected]}, got {got}"


def send(
    session: requests.Session,
    base_url: str,
    request: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    query: Mapping[str, str],
    timeout: float,
) -> Sent:
    """Send the step's `request` (method, path, body) and read its answer."""
    method, path, body = request["method"], request["path"], request.get("body", NO_BODY)
    try:
        response = session.request(
            method,
            base_url + path,
            params=query or None,
            json=None if body is NO_BODY else body,
            headers=headers,
            timeout=timeout,
            allow_redirects=False,
            stream=True,  # the head first: an answer cut short still shows its status
        )
    except (requests.ConnectionError, requests.Timeout) as error:
        if not _no_answer(error):
            raise  # the server could not be reached: the scenario cannot run
        return Sent(NO_ANSWER, timed_out=isinstance(error, requests.ReadTimeout))
    with response:
        try:
            content: bytes | None = response.content  # read whole, or found cut short
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
            content = None
    answer: Any = ""  # of an answer cut short, nothing is shown
    answer_is_json = False
    if content is not None:
        try:
            answer, answer_is_json = response.json(), True
        except ValueError:
            answer = response.text
    exchange = Exchange(method, path, query, body, response.status_code, answer, answer_is_json)
    return Sent(WHOLE if content is not None else CUT_SHORT, exchange)


def _no_answer(error: requests.RequestException) -> bool:
    """Whether a request that failed reached the server, which then sent no status: it closed the
    connection (a drop fault), or the timeout passed first (a hang). A server that could not be
    reached is not that."""
    if isinstance(error, requests.ConnectTimeout):
        return False
    return isinstance(error, requests.ReadTimeout) or isinstance(
        error.args[0] if error.args else None, urllib3.exceptions.ProtocolError
    )
