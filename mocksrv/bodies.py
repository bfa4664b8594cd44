"""What a request sends: its body, read once and kept; its JSON object; its query's arguments; and
their check against a schema, whose first problem is the spec's error naming its path."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import IO, Any

import orjson
from flask import Request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import ClientDisconnected
from werkzeug.wsgi import LimitedStream

from mocksrv.domain.errors import InvalidField, MalformedBody
from mocksrv.rest import current_request

ORDER_LINE_ALIASES = ("items", "line_items", "cart_items")


def json_body() -> dict[str, Any]:
    """Return the JSON object sent; an empty body is an empty object."""
    request_ = current_request()
    raw = request_body(request_)
    if not raw.strip():
        return {}
    data = parsed_json(request_, raw)
    if not isinstance(data, dict):
        raise MalformedBody("expected a JSON object")
    return data


def parsed_json(request_: Request, raw: bytes) -> Any:
    """The JSON value of a body sent as JSON; IR_06 for another Content-Type or for what does not
    parse."""
    # The Content-Type as clients send it settles the question without parsing it.
    if request_.environ.get("CONTENT_TYPE") != "application/json" and not request_.is_json:
        raise MalformedBody("the Content-Type must be application/json")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise MalformedBody(_not_utf_8(raw) or str(error)) from None


def _not_utf_8(raw: bytes) -> str | None:
    """Where a body is not UTF-8, said plainly (the JSON reader says `surrogates not allowed` at its
    first byte, whatever the byte); None for a body that is."""
    try:
        raw.decode()
    except UnicodeDecodeError as error:
        return f"the body is not UTF-8: byte 0x{raw[error.start]:02x} at offset {error.start}"
    return None


def request_body(request_: Request) -> bytes:
    """The body, as `request_.get_data(cache=True)` returns it (and, from then on, will).

    werkzeug reads a body through a stream wrapper, in 64 KiB reads until the stream ends: 60,000
    instructions, 5% of a payment create. A body with a plain Content-Length within the limit is
    read here in one read of that length, as werkzeug would read it, in a third of that; anything
    else goes to werkzeug. What was read is kept where `get_data` keeps it, `_cached_data` (pinned by
    tests/api/test_request_body.py), for the access log and any later reader.
    """
    environ = request_.environ
    declared = environ.get("CONTENT_LENGTH")
    limit = request_.max_content_length
    if (
        not declared
        or not (declared.isascii() and declared.isdigit())
        or "HTTP_TRANSFER_ENCODING" in environ
        or (limit is not None and int(declared) > limit)
        or hasattr(request_, "_cached_data")
        or request_.shallow
    ):
        return request_.get_data(cache=True)
    body = _read(environ, int(declared), limit)
    request_._cached_data = body
    request_.stream = io.BytesIO()  # read to its end, as werkzeug's stream is after `get_data`
    return body


def _read(environ: Mapping[str, Any], length: int, limit: int | None) -> bytes:
    """Read `length` bytes of the input; what werkzeug's stream would read, and raise, from there on."""
    stream: IO[bytes] = environ["wsgi.input"]
    terminated = "wsgi.input_terminated" in environ
    try:
        body = stream.read(length)
        if not terminated:
            # The stream holds the declared length; werkzeug's reading ends short ones with a 400.
            if len(body) < length:
                body += LimitedStream(stream, length - len(body)).read()
            return body
        # A server that ends the stream itself: werkzeug reads on to its end, up to the limit.
        more = stream.read(1)
    except (OSError, ValueError):
        if terminated and limit is None:  # werkzeug reads such a stream as it is
            raise
        raise ClientDisconnected() from None
    if not more:
        return body
    body += more
    if limit is None:
        return body + stream.read()
    if len(body) >= limit:
        return body[:limit]
    return body + LimitedStream(stream, limit - len(body), is_max=True).read()


def load(schema: Schema, data: Mapping[str, Any]) -> Any:
    """Validate `data` with a schema; the first problem becomes IR_04 (or IR_06) naming its path."""
    for alias in ORDER_LINE_ALIASES:
        if alias in data:
            raise InvalidField(alias, "order lines are sent as order_details")
    try:
        return schema.load(data)
    except ValidationError as error:
        path, message = _first_error(error.messages)
        if message == "Unknown field.":
            raise MalformedBody(f"unknown field `{path}`") from None
        if message == "Missing data for required field.":
            raise InvalidField(path, missing=True) from None
        raise InvalidField(path, message.rstrip(".")[:1].lower() + message.rstrip(".")[1:]) from None


def _first_error(messages: Any, prefix: str = "") -> tuple[str, str]:
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            name = prefix if key == "_schema" else f"{prefix}.{key}" if prefix else str(key)
            return _first_error(value, name)
    if isinstance(messages, list) and messages:
        return _first_error(messages[0], prefix)
    return prefix or "body", str(messages)
