"""What the HTTP server answers itself, before or instead of the app: in the spec's error shape.

Waitress refuses some requests before the app sees them (a body or headers over the limit, a head it
cannot parse); each gets the same JSON error the app would answer, or a page for a hosted page's
route, with the headers the app gives its own errors.
"""

from __future__ import annotations

import html
from typing import Any

import orjson
from waitress.task import ErrorTask

from mocksrv.contract import is_page
from mocksrv.rest import ANSWER_HEADERS, PAGE_HEADERS, error_object
from mocksrv.serving.httpparser import FramingTooLarge, framing_limit


def error_body(status: int, code: str, message: str) -> bytes:
    """The spec's error object, as bytes."""
    return orjson.dumps(error_object(status, code, message))


def error_page(title: str, message: str) -> bytes:
    """A hosted page's refusal, for a browser: a page route never answers the API's JSON error."""
    return (
        f'<!doctype html>\n<html lang="en">\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
        f"<h1>{html.escape(title)}</h1>\n<p>{html.escape(message)}</p>\n</html>\n"
    ).encode()


# What waitress refuses before the app, by status: the spec's code and message for each.
_REFUSALS: dict[int, tuple[str, str]] = {
    400: ("IR_04", "Malformed HTTP request: {detail}"),
    413: ("IR_06", "Request body is larger than the limit of {body_limit} bytes"),
    431: ("IR_04", "Request headers are larger than the limit of {header_limit} bytes"),
    501: ("HE_00", "Not supported by this server: {detail}"),
}


def refusal_headers(page: bool) -> list[tuple[str, str]]:
    """The headers of an error answered outside the app: those the app gives its own errors."""
    content_type = "text/html; charset=utf-8" if page else "application/json"
    return [("Content-Type", content_type), *ANSWER_HEADERS, *(PAGE_HEADERS if page else ())]


class JsonErrorTask(ErrorTask):
    """Waitress's answer to a request it could not take, in the spec's error shape."""

    def execute(self) -> None:
        # waitress's type stubs name less than its classes have: these are its parser's error and
        # the server's adjustments.
        request: Any = self.request
        error: Any = request.error
        adj: Any = self.channel.server.adj
        code, template = _REFUSALS.get(error.code, ("HE_00", "{detail}"))
        if isinstance(error, FramingTooLarge):
            template = "Chunked framing of the request body is larger than the limit of {framing_limit} bytes"
        message = template.format(
            detail=str(error.body).strip().rstrip("."),
            body_limit=adj.max_request_body_size - 1,
            header_limit=adj.max_request_header_size,
            framing_limit=framing_limit(adj.max_request_body_size - 1),
        )
        page = is_page(str(getattr(request, "command", "") or ""), str(getattr(request, "path", "") or ""))
        body = error_page(error.reason, message) if page else error_body(error.code, code, message)
        self.status = f"{error.code} {error.reason}"
        headers: list[tuple[str, str]] = self.response_headers  # type: ignore[assignment]
        headers.extend(refusal_headers(page))
        self.set_close_on_finish()
        channel: Any = self.channel
        channel.linger = True
        self.content_length = len(body)
        # The answer to HEAD has the headers of the answer to GET, Content-Length too, and no content.
        self.write(b"" if getattr(request, "method_sent", "") == "HEAD" else body)
