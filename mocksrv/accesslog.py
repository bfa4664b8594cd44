"""The access log: a line per request on `mocksrv.access`, and at debug its bodies, numbers masked.

`POST /payments 200 1.42ms merchant=merchant_default`; at debug the line goes on with
`request=<body> response=<body>`, card numbers, CVCs and bank account numbers masked.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import orjson
from flask import Flask, Request, Response, g, request
from werkzeug.exceptions import HTTPException

from mocksrv.faults import DROP_CONNECTION
from mocksrv.masking import mask_json, mask_text, one_line
from mocksrv.rest import STARTED, current_request

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

log = logging.getLogger("mocksrv.access")

BODY_LIMIT = 4096  # characters of each body a line shows
_LINE = "%s %s %s %.2fms merchant=%s"
NO_ANSWER = "-"  # the status of a connection closed without an answer (a drop or a hang fault)


def init_app(app: Flask) -> None:
    """Time every request and log a line for it as it is answered."""
    app.wsgi_app = _timed(app.wsgi_app)  # type: ignore[method-assign,assignment]
    app.after_request(_log)


def _timed(wsgi_app: WSGIApplication) -> WSGIApplication:
    """The app, noting in the WSGI environment when each request came in.

    A WSGI middleware rather than a `before_request` hook, which costs Flask a lookup of the
    request's hooks and a write to `g`: 1% of a request.
    """

    def timed(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        environ[STARTED] = time.perf_counter()
        return wsgi_app(environ, start_response)

    return timed


def _log(response: Response) -> Response:
    if not log.isEnabledFor(logging.INFO):
        return response
    # The request itself, not its proxy, which looks it up again on every read.
    request_ = current_request()
    started = request_.environ.get(STARTED)
    milliseconds = 0.0 if started is None else (time.perf_counter() - started) * 1000
    merchant = g.get("merchant_id", "-")
    status = NO_ANSWER if request_.environ.get(DROP_CONNECTION) else response.status_code
    line = (request_.method, _target(request_), status, milliseconds, merchant)
    if log.isEnabledFor(logging.DEBUG):
        log.info(_LINE + " request=%s response=%s", *line, _request_body(), _response_body(response))
    else:
        log.info(_LINE, *line)
    return response


def _target(request_: Request) -> str:
    """The path and query string, on one line, card-like numbers in the query masked."""
    target = request_.path
    if request_.query_string:
        target = f"{target}?{mask_text(request_.query_string.decode('latin-1'))}"
    return one_line(target)


def _request_body() -> str:
    try:
        body = request.get_data(cache=True)
    except HTTPException:  # larger than the limit, or cut short by the client
        return "(unread)"
    return masked(body)


def _response_body(response: Response) -> str:
    if response.is_streamed or response.direct_passthrough:
        return "(streamed)"
    return masked(response.get_data())


def masked(body: bytes) -> str:
    """Show a body on one line and at most BODY_LIMIT characters, with no card or account number.

    In JSON, the values of card and account number keys keep their last four characters and CVCs
    become ***; in any body, a run of 12 to 19 digits keeps its last four.
    """
    if not body:
        return "-"
    try:
        text = orjson.dumps(mask_json(orjson.loads(body))).decode()
    except orjson.JSONDecodeError:
        text = mask_text(body.decode("utf-8", errors="replace"))
    except RecursionError:
        return "(JSON nested too deeply to show)"
    text = one_line(text)
    if len(text) > BODY_LIMIT:
        text = f"{text[:BODY_LIMIT]}...({len(body)} bytes)"
    return text
