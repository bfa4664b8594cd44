"""Every answer the tests get, checked against the server's own OpenAPI document.

The test client of tests/conftest.py passes each answer here: its status must be one the document
lists for the route and method, and a JSON body must match the answer schema listed for it. The
document is built once, from the first app; every app of the tests is built from the same code.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema_rs
from flask import Flask
from werkzeug.exceptions import HTTPException
from werkzeug.test import TestResponse

from mocksrv.contract.document import document, openapi_path

_built: list[dict[str, Any]] = []
_seen: set[tuple[str, str, str]] = set()  # (path, method, status) of every answer checked


def record(path: str, method: str, status: int) -> None:
    _seen.add((path, method.lower(), str(status)))


def unreached() -> list[str]:
    """Every status the document lists that no test has seen its route answer."""
    if not _built:
        return ["the document was never built: no test used the client"]
    return [
        f"{method.upper()} {path} {status}"
        for path, operations in _built[0]["paths"].items()
        for method, operation in operations.items()
        for status in operation["responses"]
        if (path, method, status) not in _seen
    ]


def _document(app: Flask) -> dict[str, Any]:
    if not _built:
        _built.append(document(app))
    return _built[0]


def _response(path: str, method: str, status: str) -> dict[str, Any]:
    doc = _built[0]
    answer: dict[str, Any] = doc["paths"][path][method]["responses"][status]
    if "$ref" in answer:
        answer = doc["components"]["responses"][answer["$ref"].rsplit("/", 1)[1]]
    return answer


def _listed_content(path: str, method: str, status: str) -> list[str] | None:
    """The content types the document lists for the answer; None when it lists no body."""
    content = _response(path, method, status).get("content")
    return None if content is None else list(content)


@cache
def _validator(path: str, method: str, status: str, content_type: str) -> Any:
    doc = _built[0]
    schema = _response(path, method, status).get("content", {}).get(content_type, {}).get("schema")
    if schema is None:
        return None
    return jsonschema_rs.validator_for({**schema, "components": doc["components"]})


def check(app: Flask, response: TestResponse) -> None:
    """Raise AssertionError when the answer is not one the document lists, or not in its shape."""
    request = response.request
    if request.method == "OPTIONS":
        return  # Flask's own answer to a browser's preflight, not an operation of the document
    if "//" in request.environ.get("PATH_INFO", ""):
        return  # an empty segment: no route, though werkzeug would match `//health` as `/health`
    try:
        rule, _ = app.url_map.bind("localhost").match(request.path, request.method, return_rule=True)
    except HTTPException:
        return  # no route: the 404 or 405 every unknown address gets
    if rule.endpoint == "static" or response.status_code == 500:
        return  # Flask's own files; a 500 is asserted by the tests that provoke one
    if "X-Mocksrv-Fault" in response.headers:
        return  # an answer broken on purpose by a fault rule
    doc = _document(app)
    path = openapi_path(rule.rule)
    method = "get" if request.method == "HEAD" else request.method.lower()
    operation = doc["paths"][path][method]
    status = str(response.status_code)
    record(path, method, response.status_code)
    assert status in operation["responses"], (
        f"{request.method} {path} answered {status}, which the document does not list "
        f"(it lists {', '.join(operation['responses'])})"
    )
    content_type = (response.mimetype or "").lower()
    listed = _listed_content(path, method, status)
    assert listed is None or content_type in listed, (
        f"{request.method} {path} {status} answered {content_type}; the document lists {', '.join(listed)}"
    )
    if not response.is_json or request.method == "HEAD":
        return  # a page, or a HEAD's answer with no body: its status and type are what the document says
    validator = _validator(path, method, status, content_type)
    if validator is None:
        return
    body = response.get_json()
    errors = [f"at /{'/'.join(map(str, e.instance_path))}: {e.message}" for e in validator.iter_errors(body)]
    assert not errors, f"{request.method} {path} {status} does not match the document:\n" + "\n".join(
        errors[:5]
    )
