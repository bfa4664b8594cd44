"""Apply a merchant's fault rules to its API requests: answers the service might give on a bad day.

A request is looked at once its key is checked (so the journal knows whose it is), never on the control
plane or the pages. A fault `before` answers in place of the route, which does nothing; `after` lets the
route do its work and then changes what the client gets. A dropped connection or a hang sends nothing
at all: the server closes the connection without a status line (`DROP_CONNECTION`); another WSGI server
would send the stand-in answer, a JSON 500.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask, Response, current_app, g

from mocksrv.bodies import request_body
from mocksrv.domain.controls.faults import FaultEffect, FaultRule, FaultTiming
from mocksrv.domain.models import Principal
from mocksrv.domain.waits import TooManyWaits
from mocksrv.rest import (
    current_request,
    domain_error_response,
    error_response,
    is_api_call,
    on_authenticated,
    sandbox,
    wait_slots,
)

# Set in the WSGI environment when the client must get no answer; read by the HTTP server.
DROP_CONNECTION = "mocksrv.drop_connection"
# environ key: a callable, true once the client has closed its connection (set by mocksrv's server)
CLIENT_GONE = "mocksrv.client_gone"
CUT_SHORT = "mocksrv.cut_short"  # environ key: the answer is shorter than its Content-Length on purpose
FAULT_HEADER = "X-Mocksrv-Fault"  # names the rule behind a faulted answer
HANG_SECONDS = 30.0  # how long a hang holds the request when its rule names no time
RETRY_AFTER = 1  # seconds, when a rate_limit rule names none
_ERRORS = {
    500: "Something went wrong",
    502: "Bad gateway: the service behind this one answered wrongly",
    503: "The service is temporarily unavailable; try again later",
    504: "Gateway timeout: the service behind this one did not answer in time",
}


class InjectedFault(Exception):
    """A fault that answers before the route runs: the rule's effect, or `effect` in its place."""

    def __init__(self, rule: FaultRule, effect: FaultEffect | None = None) -> None:
        super().__init__(rule.fault_id)
        self.rule = rule
        self.effect = effect or rule.effect


def init_app(app: Flask) -> None:
    """Look at each authenticated API request; register after the shared hooks, so this runs first."""
    on_authenticated(app, _before)
    app.register_error_handler(InjectedFault, _answer_before)
    app.after_request(_after)


def _before(principal: Principal) -> None:
    request_ = current_request()
    path = request_.path
    if not is_api_call(path):
        return
    rule = sandbox().faults.pick(principal.merchant_id, request_.method, path, _json_body)
    if rule is None:
        return
    g.fault = rule
    if rule.timing is FaultTiming.BEFORE:
        if rule.effect is not FaultEffect.LATENCY:
            raise InjectedFault(rule)
        if not _pause(rule, principal.merchant_id):
            raise InjectedFault(rule, FaultEffect.DROP)


def _json_body() -> Any:
    try:
        return orjson.loads(request_body(current_request()) or b"null")
    except orjson.JSONDecodeError:
        return None


def _answer_before(fault: InjectedFault) -> Response:
    return _faulted(fault.rule, None, fault.effect)


def _after(response: Response) -> Response:
    rule: FaultRule | None = g.get("fault")
    if rule is None:
        return response
    if rule.timing is FaultTiming.BEFORE:  # answered by _faulted, or a latency paused before the route
        response.headers[FAULT_HEADER] = rule.fault_id
        return response
    return _faulted(rule, response)


def _faulted(rule: FaultRule, answer: Response | None, effect: FaultEffect | None = None) -> Response:
    """What the client gets of a request faulted by `rule` (with `effect`, else the rule's);
    `answer` is the route's, if it ran."""
    effect = effect or rule.effect
    if effect in (FaultEffect.LATENCY, FaultEffect.HANG):
        try:
            goes_on = _pause(rule, rule.merchant_id)
        except TooManyWaits as refused:  # every wait slot is taken: the long-poll's 429
            return domain_error_response(refused)
        if not goes_on:  # its merchant was reset, restored or deleted meanwhile: no answer
            effect = FaultEffect.DROP
    if effect is FaultEffect.LATENCY:
        assert answer is not None  # a latency before is paused in _before, then the route runs
        response = answer
    elif effect is FaultEffect.ERROR:
        status = rule.status or 503
        response = error_response(status, "HE_00", _ERRORS.get(status, "Something went wrong"))
    elif effect is FaultEffect.RATE_LIMIT:
        response = _rate_limited(rule)
    elif effect in (FaultEffect.DROP, FaultEffect.HANG):
        current_request().environ[DROP_CONNECTION] = True
        response = error_response(500, "HE_00", "The connection was closed without an answer")
    else:
        assert answer is not None  # truncate and malformed come after the route
        response = _cut(answer, keep_length=effect is FaultEffect.TRUNCATE)
    response.headers[FAULT_HEADER] = rule.fault_id
    return response


def _rate_limited(rule: FaultRule) -> Response:
    retry_after = rule.retry_after or RETRY_AFTER
    reset = int(sandbox().clock.now(rule.merchant_id).timestamp()) + retry_after
    response = error_response(429, "RL_01", f"Rate limit exceeded; the window resets at {reset} (Unix time)")
    limit = g.get("rate_status", (sandbox().config.rate_limit, 0, 0))[0]
    g.rate_status = (limit, 0, reset)  # written as the X-RateLimit-* headers by the shared hook
    response.headers["Retry-After"] = str(retry_after)
    return response


def _cut(answer: Response, *, keep_length: bool) -> Response:
    """The answer with the second half of its body gone: announced in full (truncate, so the
    connection closes short of it) or as sent (malformed: a whole answer that is not JSON)."""
    body = answer.get_data()
    response = Response(body[: len(body) // 2], status=answer.status_code, headers=answer.headers)
    if keep_length:
        response.headers["Content-Length"] = str(len(body))
        current_request().environ[CUT_SHORT] = True
    return response


def _pause(rule: FaultRule, merchant_id: str) -> bool:
    """Hold the request, in a wait slot like a long-poll's, so other requests still find a thread;
    False when it is to go no further (see FaultService.pause)."""
    seconds = (rule.milliseconds or 0) / 1000 if rule.effect is FaultEffect.LATENCY else rule.seconds
    client_gone = current_request().environ.get(CLIENT_GONE, lambda: False)
    slot = wait_slots(current_app).hold(merchant_id)
    return sandbox().faults.pause(
        merchant_id, HANG_SECONDS if seconds is None else seconds, client_gone, slot
    )
