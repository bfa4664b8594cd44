"""The errors every route's shape brings, reached on every route the document lists them for.

The document says a route with a key answers 401 without one, a route of the API answers 429 past
its key's rate limit, and every route answers 413 for a body over the size limit (the app itself
when it reads one, the HTTP server before it for any) and 431 for headers over theirs. These tests
take the routes from the document itself, so a route added later is covered without a new test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from flask.testing import FlaskClient

from mocksrv import MockServer
from mocksrv.app import create_app
from mocksrv.contract import is_page
from mocksrv.contract.document import document
from mocksrv.settings import Settings
from tests import contract
from tests.conftest import CheckedClient
from tests.payloads import ADMIN_KEY, MERCHANT_ID, PUBLISHABLE_KEY, SECRET_KEY

DOCUMENT = document(create_app())
OPERATIONS = [
    (method, path, operation)
    for path, operations in DOCUMENT["paths"].items()
    for method, operation in operations.items()
]


def listing(status: str, content_type: str = "application/json", *, body: bool = False) -> list[Any]:
    """The routes whose document lists `status`, answered with a body of `content_type` (JSON for
    the API, HTML for a page); with `body`, only those that read one (a JSON body, or a page's form)."""
    return [
        pytest.param(method, path, id=f"{method.upper()} {path}")
        for method, path, operation in OPERATIONS
        if status in operation["responses"]
        and content_type in answer_content(operation["responses"][status])
        and (not body or "requestBody" in operation or (content_type == "text/html" and method == "post"))
    ]


def answer_content(answer: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in answer:
        answer = DOCUMENT["components"]["responses"][answer["$ref"].rsplit("/", 1)[1]]
    content: dict[str, Any] = answer.get("content", {})
    return content


def concrete(path: str) -> str:
    """The path with the default merchant's id for a merchant, and an id of nothing for the rest."""
    return re.sub(r"\{[^}]+\}", "unknown_1", path.replace("{merchant_id}", MERCHANT_ID))


PUBLISHABLE_ONLY = {"/payments/session_tokens"}  # the browser's route, which takes no secret key


def key_for(path: str) -> dict[str, str]:
    if path.startswith("/__mock/"):
        return {"api-key": ADMIN_KEY}
    return {"api-key": PUBLISHABLE_KEY if path in PUBLISHABLE_ONLY else SECRET_KEY}


def error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"type": "invalid_request", "code": code, "message": message}}


@pytest.mark.parametrize(("method", "path"), listing("401"))
def test_a_route_with_a_key_answers_401_without_one(client: FlaskClient, method: str, path: str) -> None:
    answer = client.open(concrete(path), method=method.upper(), json={})

    assert answer.status_code == 401
    assert answer.json == error("IR_01", "API key not provided or invalid API key used")


def client_of(settings: Settings) -> FlaskClient:
    app = create_app(settings)
    app.test_client_class = CheckedClient
    return app.test_client()


# The control plane has no rate limit; its long-poll's 429 is for too many open at once.
@pytest.mark.parametrize(
    ("method", "path"),
    # The legacy API authenticates with Basic and Bearer credentials, not an api-key: test_legacy_api
    # reaches its 429s.
    [param for param in listing("429") if not param.values[1].startswith(("/__mock/", "/api/v1"))],
)
def test_a_route_of_the_api_answers_429_past_the_rate_limit(method: str, path: str) -> None:
    client = client_of(Settings(rate_limit=1))
    headers = key_for(path)
    frozen = client.post(f"/__mock/clock/freeze?merchant_id={MERCHANT_ID}", headers={"api-key": ADMIN_KEY})
    assert frozen.status_code == 200  # one window of the limit for the whole test
    first = client.open(concrete(path), method=method.upper(), json={}, headers=headers)
    assert first.status_code != 429

    answer = client.open(concrete(path), method=method.upper(), json={}, headers=headers)

    assert answer.status_code == 429
    assert answer.json == error(
        "RL_01",
        f"Rate limit exceeded; the window resets at {answer.headers['X-RateLimit-Reset']} (Unix time)",
    )


@pytest.mark.parametrize(("method", "path"), listing("413", body=True))
def test_a_route_with_a_body_answers_413_for_one_over_the_limit(method: str, path: str) -> None:
    client = client_of(Settings(max_body_bytes=16))
    body = {"description": "x" * 32}

    answer = client.open(concrete(path), method=method.upper(), json=body, headers=key_for(path))

    assert answer.status_code == 413
    assert answer.json == error("IR_06", "Request body is larger than the limit of 16 bytes")


@pytest.mark.parametrize(("method", "path"), listing("413", "text/html", body=True))
def test_a_page_with_a_form_answers_413_with_a_page_for_one_over_the_limit(method: str, path: str) -> None:
    client = client_of(Settings(max_body_bytes=16))

    answer = client.open(concrete(path), method=method.upper(), data={"description": "x" * 32})

    assert (answer.status_code, answer.content_type) == (413, "text/html; charset=utf-8")
    assert (
        '<p class="note" id="detail">IR_06: Request body is larger than the limit of 16 bytes</p>'
        in answer.get_data(as_text=True)
    )


# A real server's own refusals, before the app: every route answers them, whatever it reads.
BODY_LIMIT = 16
HEADER_LIMIT = 1024


@pytest.fixture(scope="module")
def server() -> Iterator[MockServer]:
    running = MockServer(Settings(max_body_bytes=BODY_LIMIT, max_header_bytes=HEADER_LIMIT)).start()
    yield running
    running.stop()


def every_route_listing(status: str) -> list[Any]:
    return [
        pytest.param(method, path, id=f"{method.upper()} {path}")
        for method, path, operation in OPERATIONS
        if status in operation["responses"]
    ]


def sent(server: MockServer, method: str, path: str, **kwargs: Any) -> requests.Response:
    """Send a request to the real server; its answer must have a status and type the document lists."""
    answer = requests.request(method.upper(), f"{server.url}{concrete(path)}", timeout=10, **kwargs)
    content_type = answer.headers["Content-Type"].split(";")[0]
    listed = DOCUMENT["paths"][path][method]["responses"]
    assert str(answer.status_code) in listed
    assert content_type in answer_content(listed[str(answer.status_code)])
    contract.record(path, method, answer.status_code)
    return answer


def test_every_route_lists_413_and_431() -> None:
    assert [(m, p) for m, p, op in OPERATIONS if not {"413", "431"} <= set(op["responses"])] == []


@pytest.mark.parametrize(("method", "path"), every_route_listing("413"))
def test_every_route_answers_413_from_the_server_for_a_body_over_the_limit(
    server: MockServer, method: str, path: str
) -> None:
    answer = sent(server, method, path, data=b"x" * 64, headers={"Content-Type": "application/json"})

    assert answer.status_code == 413
    message = f"Request body is larger than the limit of {BODY_LIMIT} bytes"
    if is_page(method.upper(), concrete(path)):
        assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
        assert f"<p>{message}</p>" in answer.text
    else:
        assert answer.json() == error("IR_06", message)


@pytest.mark.parametrize(("method", "path"), every_route_listing("431"))
def test_every_route_answers_431_for_headers_over_the_limit(
    server: MockServer, method: str, path: str
) -> None:
    answer = sent(server, method, path, headers={"X-Padding": "a" * 2 * HEADER_LIMIT})

    assert answer.status_code == 431
    assert answer.json() == error(
        "IR_04", f"Request headers are larger than the limit of {HEADER_LIMIT} bytes"
    )
