"""Reading a request's body: `request_body` reads what werkzeug's `get_data` reads, and raises what
it raises, for every kind of stream a server hands over; and `get_data` answers the same after it."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask, Request
from werkzeug.exceptions import HTTPException

from mocksrv.bodies import request_body

BODY = b'{"amount": 1000, "currency": "USD"}'
LIMIT = 64


class Broken(io.BytesIO):
    """A stream whose reads fail, as one whose client went away may."""

    def read(self, size: int | None = -1) -> bytes:
        raise OSError("connection reset")

    def readinto(self, buffer: Any) -> int:
        raise OSError("connection reset")


class Trickling(io.BytesIO):
    """A stream that hands over at most three bytes a read, as a slow socket may."""

    def read(self, size: int | None = -1) -> bytes:
        return super().read(size if size is None or size < 0 else min(size, 3))

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        return super().readinto(view[: min(len(view), 3)])


def environ(
    data: bytes = BODY,
    length: str | None = str(len(BODY)),
    *,
    terminated: bool = False,
    chunked: bool = False,
    stream: Callable[[bytes], io.BytesIO] = io.BytesIO,
) -> dict[str, Any]:
    env: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/payments",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "wsgi.url_scheme": "http",
        "CONTENT_TYPE": "application/json",
        "wsgi.input": stream(data),
    }
    if length is not None:
        env["CONTENT_LENGTH"] = length
    if terminated:
        env["wsgi.input_terminated"] = True
    if chunked:
        env["HTTP_TRANSFER_ENCODING"] = "chunked"
    return env


def cases() -> dict[str, dict[str, Any]]:
    long = b"x" * (LIMIT + 10)
    return {
        "as declared": environ(),
        "as declared, server-terminated": environ(terminated=True),
        "empty": environ(b"", "0"),
        "empty, server-terminated": environ(b"", "0", terminated=True),
        "no length": environ(length=None),
        "no length, server-terminated": environ(length=None, terminated=True),
        "chunked, server-terminated": environ(length=None, terminated=True, chunked=True),
        "shorter than declared": environ(BODY[:10]),
        "shorter than declared, server-terminated": environ(BODY[:10], terminated=True),
        "longer than declared": environ(BODY + b"tail"),
        "longer than declared, server-terminated": environ(BODY + b"tail", terminated=True),
        "past the limit, server-terminated": environ(long, "10", terminated=True),
        "at the limit and on, server-terminated": environ(long, str(LIMIT), terminated=True),
        "declared past the limit": environ(long, str(len(long))),
        "length with spaces": environ(BODY, f" {len(BODY)} "),
        "negative length": environ(BODY, "-5"),
        "length not a number": environ(BODY, "ten"),
        "broken stream": environ(stream=Broken),
        "broken stream, server-terminated": environ(terminated=True, stream=Broken),
        "trickling stream": environ(stream=Trickling),
        "trickling stream, server-terminated": environ(terminated=True, stream=Trickling),
    }


def outcome(read: Callable[[Request], bytes], env: dict[str, Any], limit: int | None) -> tuple[str, Any]:
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = limit
    with app.request_context(env) as context:
        try:
            body = read(context.request)
        except HTTPException as error:
            return "raised", (type(error), error.code)
        except OSError as error:
            return "raised", (type(error), str(error))
        return "read", (body, context.request.get_data(cache=True))


@pytest.mark.parametrize("limit", [LIMIT, None], ids=["limit", "no limit"])
@pytest.mark.parametrize("name", cases())
def test_the_body_is_what_werkzeug_reads_and_stays_what_get_data_answers(
    name: str, limit: int | None
) -> None:
    ours = outcome(request_body, cases()[name], limit)
    werkzeugs = outcome(lambda request: request.get_data(cache=True), cases()[name], limit)
    assert ours == werkzeugs


def test_get_data_answers_the_body_read_before(app: Flask) -> None:
    """`request_body` keeps the body where werkzeug's `get_data` keeps what it read."""
    with app.request_context(environ()) as context:
        assert request_body(context.request) == BODY
        assert context.request.get_data(cache=True) == BODY
        assert context.request.get_data() == BODY
        assert context.request.stream.read() == b""
