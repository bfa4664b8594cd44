"""The errors every route's shape brings, reached on every route the document lists them for.

The document says a route with a key answers 401 without one, a route of the API answers 429 past
its key's rate limit, and a route with a body answers 413 for one over the size limit. These tests
take the routes from the document itself, so a route added later is covered without a new test.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from mocksrv.app import create_app
from mocksrv.contract.document import document
from mocksrv.settings import Settings
from tests.conftest import CheckedClient
from tests.payloads import ADMIN_KEY, MERCHANT_ID, PUBLISHABLE_KEY, SECRET_KEY

DOCUMENT = document(create_app())
OPERATIONS = [
    (method, path, operation)
    for path, operations in DOCUMENT["paths"].items()
    for method, operation in operations.items()
]


def listing(status: str, content_type: str = "application/json") -> list[Any]:
    """The routes whose document lists `status`, answered with a body of `content_type` (JSON for
    the API, HTML for a page)."""
    return [
        pytest.param(method, path, id=f"{method.upper()} {path}")
        for method, path, operation in OPERATIONS
        if status in operation["responses"] and content_type in answer_content(operation["responses"][status])
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


@pytest.mark.parametrize(("method", "path"), listing("413"))
def test_a_route_with_a_body_answers_413_for_one_over_the_limit(method: str, path: str) -> None:
    client = client_of(Settings(max_body_bytes=16))
    body = {"description": "x" * 32}

    answer = client.open(concrete(path), method=method.upper(), json=body, headers=key_for(path))

    assert answer.status_code == 413
    assert answer.json == error("IR_06", "Request body is larger than the limit of 16 bytes")


@pytest.mark.parametrize(("method", "path"), listing("413", "text/html"))
def test_a_page_with_a_form_answers_413_with_a_page_for_one_over_the_limit(method: str, path: str) -> None:
    client = client_of(Settings(max_body_bytes=16))

    answer = client.open(concrete(path), method=method.upper(), data={"description": "x" * 32})

    assert (answer.status_code, answer.content_type) == (413, "text/html; charset=utf-8")
    assert (
        '<p class="note" id="detail">IR_06: Request body is larger than the limit of 16 bytes</p>'
        in answer.get_data(as_text=True)
    )
