"""CORS: a checkout page on the shop's own origin may call the API, as it calls the real service."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.payloads import PUBLISHABLE_KEY, SECRET_KEY

SHOP = "https://shop.example"
EXPOSED = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After"


def cross_origin_headers(response: object) -> dict[str, str]:
    headers = response.headers  # type: ignore[attr-defined]
    return {name: value for name, value in headers.items() if name.startswith("Access-Control-")}


def test_a_preflight_is_answered_for_any_origin(client: FlaskClient) -> None:
    response = client.options(
        "/payments/pay_1",
        headers={
            "Origin": SHOP,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "api-key",
        },
    )

    assert (response.status_code, response.content_type, response.data) == (204, None, b"")
    assert cross_origin_headers(response) == {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Expose-Headers": EXPOSED,
        "Access-Control-Allow-Methods": "GET, POST, PUT, DELETE",
        "Access-Control-Allow-Headers": "api-key, Content-Type",
        "Access-Control-Max-Age": "600",
    }


def test_an_answer_to_another_origin_may_be_read_by_it(client: FlaskClient) -> None:
    response = client.get(
        "/payments/pay_missing?client_secret=x", headers={"Origin": SHOP, "api-key": PUBLISHABLE_KEY}
    )

    assert response.status_code == 404
    assert cross_origin_headers(response) == {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Expose-Headers": EXPOSED,
    }


def test_a_request_without_an_origin_gets_no_cross_origin_headers(client: FlaskClient) -> None:
    response = client.get("/health", headers={"api-key": SECRET_KEY})

    assert response.status_code == 200
    assert cross_origin_headers(response) == {}


def test_an_options_request_without_an_origin_is_answered_with_no_content(client: FlaskClient) -> None:
    response = client.options("/payments", headers={"api-key": SECRET_KEY})

    assert (response.status_code, response.content_type, response.data) == (204, None, b"")
    assert set(response.headers["Allow"].split(", ")) == {"OPTIONS", "POST"}
