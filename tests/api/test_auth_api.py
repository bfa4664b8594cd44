"""Keys, rate limits and merchant isolation.

The server here allows 3 requests per key per minute, so that the limit is reached in a few requests.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from mocksrv.settings import Settings
from tests import payloads
from tests.api.conftest import OtherMerchant
from tests.api.expected import PAYMENT_NOT_FOUND, UNAUTHORIZED, error, invalid, unix, window_reset
from tests.api.scenarios import advance, create
from tests.conftest import Api
from tests.payloads import ADMIN_KEY, PUBLISHABLE_KEY, SECRET_KEY

pytestmark = pytest.mark.usefixtures("frozen")

LIMIT = 3


@pytest.fixture
def settings() -> Settings:
    return Settings(rate_limit=LIMIT)


# Every route of the payments API, with a body it accepts where it takes one.
API_ROUTES = [
    ("POST", "/payments", payloads.payment()),
    ("POST", "/payments/list", {}),
    ("GET", "/payments/pay_1", None),
    ("POST", "/payments/pay_1", {"amount": 1}),
    ("POST", "/payments/pay_1/confirm", {}),
    ("POST", "/payments/pay_1/capture", {}),
    ("POST", "/payments/pay_1/cancel", {}),
    ("POST", "/payments/pay_1/approve", {}),
    ("POST", "/payments/pay_1/reject", {}),
    ("GET", "/health", None),
    ("POST", "/customers", {}),
    ("GET", "/customers/list", None),
    ("GET", "/customers/cus_1", None),
    ("POST", "/customers/cus_1", {}),
    ("DELETE", "/customers/cus_1", None),
]
ROUTE_IDS = [f"{method} {path}" for method, path, _ in API_ROUTES]

# What a publishable key may do: confirm and retrieve a payment (with its client_secret).
SECRET_ONLY_ROUTES = [
    route
    for route in API_ROUTES
    if route[:2] not in {("GET", "/payments/pay_1"), ("POST", "/payments/pay_1/confirm")}
]


def send(client: FlaskClient, method: str, path: str, body: Any, headers: dict[str, str]) -> Any:
    if body is None:
        return client.open(path, method=method, headers=headers)
    return client.open(path, method=method, headers=headers, json=body)


# -- keys -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body"), API_ROUTES, ids=ROUTE_IDS)
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"api-key": ""},
        {"api-key": "snd_not_a_key"},
        {"api-key": ADMIN_KEY},
        {"Authorization": f"Bearer {SECRET_KEY}"},
    ],
    ids=["no key", "empty key", "unknown key", "admin key", "key in Authorization"],
)
def test_a_request_without_a_valid_key_is_401(
    client: FlaskClient, method: str, path: str, body: Any, headers: dict[str, str]
) -> None:
    response = send(client, method, path, body, headers)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)
    assert "X-RateLimit-Limit" not in response.headers


@pytest.mark.parametrize("key", ["prd_some_live_key", "pk_prd_some_live_key"])
@pytest.mark.parametrize(("method", "path", "body"), API_ROUTES[:3], ids=ROUTE_IDS[:3])
def test_a_production_key_is_refused_by_the_sandbox(
    client: FlaskClient, method: str, path: str, body: Any, key: str
) -> None:
    response = send(client, method, path, body, {"api-key": key})

    assert response.status_code == 401
    assert response.json == error("IR_01", "Production keys are not accepted by the sandbox")


@pytest.mark.parametrize(
    ("method", "path", "body"), SECRET_ONLY_ROUTES, ids=[f"{m} {p}" for m, p, _ in SECRET_ONLY_ROUTES]
)
def test_the_publishable_key_on_a_secret_only_route_is_401(
    api: Api, client: FlaskClient, method: str, path: str, body: Any
) -> None:
    create(api, None, payment_id="pay_1")

    response = send(client, method, path, body, {"api-key": PUBLISHABLE_KEY})

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


def test_the_secret_key_opens_the_health_check(api: Api) -> None:
    response = api.get("/health")

    assert response.status_code == 200
    assert response.json == {"status": "healthy"}


def test_the_publishable_key_does_not_open_the_health_check(browser: Api) -> None:
    response = browser.get("/health")

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


class TestProductionMode:
    @pytest.fixture
    def settings(self) -> Settings:
        return Settings(environment="production", rate_limit=LIMIT)

    def test_a_merchant_created_in_production_gets_production_keys(self, admin: Api) -> None:
        response = admin.post("/__mock/merchants", {"merchant_id": "merchant_live"})

        assert response.status_code == 200
        assert response.json["secret_key"].startswith("prd_")
        assert response.json["publishable_key"].startswith("pk_prd_")
        assert admin.as_key(response.json["secret_key"]).get("/health").status_code == 200

    @pytest.mark.parametrize("key", [SECRET_KEY, PUBLISHABLE_KEY])
    def test_a_sandbox_key_is_refused_in_production(self, api: Api, key: str) -> None:
        response = api.as_key(key).get("/health")

        assert response.status_code == 401
        assert response.json == error("IR_01", "Sandbox keys are not accepted in production")


# -- rate limits ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", "/health", None, 200),
        ("POST", "/payments", payloads.payment(), 200),
        ("POST", "/payments/list", {}, 200),
        ("GET", "/payments/pay_missing", None, 404),
        ("POST", "/payments", {}, 400),
        ("POST", "/payments/pay_missing/capture", {}, 404),
        ("POST", "/customers", {}, 200),
        ("GET", "/customers/cus_missing", None, 404),
        ("POST", "/payments/list", {"limit": 0}, 400),
    ],
)
def test_every_authenticated_answer_carries_the_rate_limit_headers(
    client: FlaskClient, frozen: str, method: str, path: str, body: Any, status: int
) -> None:
    response = send(client, method, path, body, {"api-key": SECRET_KEY})

    assert response.status_code == status
    assert (
        response.headers["X-RateLimit-Limit"],
        response.headers["X-RateLimit-Remaining"],
        response.headers["X-RateLimit-Reset"],
    ) == (str(LIMIT), str(LIMIT - 1), str(window_reset(frozen)))


def test_a_body_over_the_size_limit_still_counts_and_carries_the_headers(client: FlaskClient) -> None:
    response = client.post(
        "/payments",
        data="{" + " " * (1024 * 1024) + "}",
        headers={"api-key": SECRET_KEY, "Content-Type": "application/json"},
    )

    assert response.status_code == 413
    assert response.headers["X-RateLimit-Remaining"] == str(LIMIT - 1)


def test_remaining_counts_down_with_each_request(api: Api) -> None:
    remaining = [api.get("/health").headers["X-RateLimit-Remaining"] for _ in range(LIMIT)]

    assert remaining == ["2", "1", "0"]


def test_a_request_past_the_limit_is_429_rl_01(api: Api, frozen: str) -> None:
    for _ in range(LIMIT):
        assert api.get("/health").status_code == 200

    response = api.get("/health")

    reset = window_reset(frozen)
    assert response.status_code == 429
    assert response.json == error("RL_01", f"Rate limit exceeded; the window resets at {reset} (Unix time)")
    assert (
        response.headers["X-RateLimit-Limit"],
        response.headers["X-RateLimit-Remaining"],
        response.headers["X-RateLimit-Reset"],
    ) == (str(LIMIT), "0", str(reset))


def test_a_request_refused_by_the_rate_limit_changes_nothing(api: Api) -> None:
    for _ in range(LIMIT):
        api.get("/health")

    response = api.post("/payments", payloads.payment(payment_id="pay_1"))

    assert response.status_code == 429
    advance(api, 60)
    assert api.get("/payments/pay_1").json == PAYMENT_NOT_FOUND


def test_the_window_opens_again_after_60_seconds_on_the_mock_clock(api: Api, frozen: str) -> None:
    for _ in range(LIMIT + 1):
        api.get("/health")

    advance(api, 60)
    response = api.get("/health")

    assert response.status_code == 200
    assert response.headers["X-RateLimit-Remaining"] == str(LIMIT - 1)
    assert response.headers["X-RateLimit-Reset"] == str(window_reset(frozen) + 60)


def test_the_window_stays_closed_until_its_reset_time(api: Api, frozen: str) -> None:
    for _ in range(LIMIT):
        api.get("/health")

    advance(api, window_reset(frozen) - unix(frozen) - 0.001)

    assert api.get("/health").status_code == 429


def test_each_key_has_its_own_window(api: Api, browser: Api) -> None:
    secret = create(api, None, payment_id="pay_1")["client_secret"]
    for _ in range(LIMIT):
        api.get("/health")
    assert api.get("/health").status_code == 429

    response = browser.get(f"/payments/pay_1?client_secret={secret}")

    assert response.status_code == 200
    assert response.headers["X-RateLimit-Remaining"] == str(LIMIT - 1)


def test_the_control_plane_is_not_rate_limited(api: Api) -> None:
    for _ in range(LIMIT + 2):
        response = api.get("/__mock/clock")
        assert response.status_code == 200
        assert "X-RateLimit-Limit" not in response.headers

    assert api.get("/health").headers["X-RateLimit-Remaining"] == str(LIMIT - 1)


def test_a_merchant_created_with_its_own_rate_limit_uses_it(admin: Api) -> None:
    credentials = admin.post("/__mock/merchants", {"merchant_id": "merchant_small", "rate_limit": 1}).json
    merchant = admin.as_key(credentials["secret_key"])

    first, second = merchant.get("/health"), merchant.get("/health")

    assert (first.status_code, first.headers["X-RateLimit-Limit"]) == (200, "1")
    assert second.status_code == 429


def test_a_merchant_with_rate_limit_0_is_never_limited(admin: Api) -> None:
    credentials = admin.post("/__mock/merchants", {"merchant_id": "merchant_free", "rate_limit": 0}).json
    merchant = admin.as_key(credentials["secret_key"])

    answers = [merchant.get("/health") for _ in range(LIMIT + 2)]

    assert [a.status_code for a in answers] == [200] * (LIMIT + 2)
    assert all("X-RateLimit-Limit" not in a.headers for a in answers)


# -- merchant isolation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/payments/pay_1", None),
        ("POST", "/payments/pay_1", {"amount": 1}),
        ("POST", "/payments/pay_1/confirm", payloads.confirmation()),
        ("POST", "/payments/pay_1/capture", {}),
        ("POST", "/payments/pay_1/cancel", {}),
        ("POST", "/payments/pay_1/approve", {}),
        ("POST", "/payments/pay_1/reject", {}),
    ],
)
def test_another_merchant_gets_404_for_a_payment_not_its_own(
    api: Api, client: FlaskClient, other_merchant: OtherMerchant, method: str, path: str, body: Any
) -> None:
    before = create(api, None, payment_id="pay_1")

    response = send(client, method, path, body, {"api-key": other_merchant.credentials["secret_key"]})

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND
    assert api.get("/payments/pay_1").json == before


def test_another_merchants_publishable_key_gets_404_even_with_the_client_secret(
    api: Api, other_merchant: OtherMerchant
) -> None:
    secret = create(api, None, payment_id="pay_1")["client_secret"]
    browser = api.as_key(other_merchant.credentials["publishable_key"])

    response = browser.get(f"/payments/pay_1?client_secret={secret}")

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


def test_another_merchant_sees_an_empty_list(api: Api, other_merchant: OtherMerchant) -> None:
    create(api, payment_id="pay_1")

    response = other_merchant.api.post("/payments/list", {})

    assert response.status_code == 200
    assert response.json == {"count": 0, "total_count": 0, "data": []}


def test_two_merchants_may_use_the_same_payment_id(api: Api, other_merchant: OtherMerchant) -> None:
    create(api, payment_id="pay_1")
    profile_id = other_merchant.credentials["profile_id"]

    response = other_merchant.api.post(
        "/payments", payloads.payment(payment_id="pay_1", profile_id=profile_id)
    )

    assert response.status_code == 200
    assert (response.json["merchant_id"], response.json["profile_id"]) == ("merchant_other", profile_id)


def test_a_merchant_cannot_use_another_merchants_profile(other_merchant: OtherMerchant) -> None:
    response = other_merchant.api.post("/payments", payloads.payment())

    assert response.status_code == 400
    assert response.json == invalid("profile_id", "no such business profile")


def test_another_merchant_gets_404_for_a_customer_not_its_own(
    api: Api, other_merchant: OtherMerchant
) -> None:
    api.post("/customers", {"customer_id": "cus_1"})

    response = other_merchant.api.get("/customers/cus_1")

    assert response.status_code == 404
    assert response.json == error("HE_02", "Customer does not exist in our records")


def test_another_merchants_customer_cannot_be_named_on_a_payment(
    api: Api, other_merchant: OtherMerchant
) -> None:
    api.post("/customers", {"customer_id": "cus_1"})
    body = payloads.payment(customer_id="cus_1", profile_id=other_merchant.credentials["profile_id"])

    response = other_merchant.api.post("/payments", body)

    assert response.status_code == 400
    assert response.json == invalid("customer_id", "no such customer; create it with POST /customers first")


def test_rate_limit_windows_are_per_merchant(api: Api, other_merchant: OtherMerchant) -> None:
    for _ in range(LIMIT + 1):
        api.get("/health")

    response = other_merchant.api.get("/health")

    assert response.status_code == 200
    assert response.headers["X-RateLimit-Remaining"] == str(LIMIT - 1)
