"""POST /payments/session_tokens, POST /ephemeral_keys and DELETE /ephemeral_keys/:id."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import OtherMerchant
from tests.api.expected import (
    PAYMENT_NOT_FOUND,
    UNAUTHORIZED,
    Matches,
    error,
    invalid,
    invalid_for_any_reason,
    later,
    malformed,
    missing,
)
from tests.api.scenarios import advance, create, ok, retrieve
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

pytestmark = pytest.mark.usefixtures("frozen")

HOUR = 3600
KEY_NOT_FOUND = error("HE_02", "Ephemeral key does not exist in our records")
NO_SUCH_CUSTOMER = invalid("customer_id", "no such customer; create it with POST /customers first")


def _session_body(payment: dict[str, Any], **changes: Any) -> dict[str, Any]:
    body = {"payment_id": payment["payment_id"], "client_secret": payment["client_secret"], "wallets": []}
    body.update(changes)
    return body


# -- session tokens ---------------------------------------------------------------------------


def test_session_tokens_answer_the_payment_and_an_empty_token_list(api: Api, browser: Api) -> None:
    payment = create(api, None, payment_id="pay_1")

    response = browser.post(
        "/payments/session_tokens", _session_body(payment, wallets=["apple_pay", "google_pay"])
    )

    assert response.status_code == 200
    assert response.json == {
        "payment_id": "pay_1",
        "client_secret": payment["client_secret"],
        "session_token": [],
    }
    assert retrieve(api, "pay_1") == payment


def test_session_tokens_take_merchant_connector_details(api: Api, browser: Api) -> None:
    payment = create(api, None, payment_id="pay_1")
    details = {
        "creds_identifier": "creds_1",
        "encoded_data": {"connector_account_details": {"auth_type": "HeaderKey"}, "metadata": None},
    }

    response = browser.post(
        "/payments/session_tokens", _session_body(payment, merchant_connector_details=details)
    )

    assert response.status_code == 200
    assert response.json["session_token"] == []


def test_session_tokens_take_null_merchant_connector_details(api: Api, browser: Api) -> None:
    payment = create(api, None, payment_id="pay_1")

    response = browser.post(
        "/payments/session_tokens", _session_body(payment, merchant_connector_details=None)
    )

    assert response.status_code == 200


@pytest.mark.parametrize("key", ["snd_default_secret_key", "", "pk_snd_unknown"])
def test_session_tokens_take_only_a_valid_publishable_key(api: Api, key: str) -> None:
    payment = create(api, None, payment_id="pay_1")

    response = api.as_key(key).post("/payments/session_tokens", _session_body(payment))

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


def test_session_tokens_without_client_secret_are_ir_08(api: Api, browser: Api) -> None:
    create(api, None, payment_id="pay_1")

    response = browser.post("/payments/session_tokens", {"payment_id": "pay_1", "wallets": []})

    assert response.status_code == 400
    assert response.json == error("IR_08", "Missing required param: client_secret", "client_secret")


def test_session_tokens_with_a_null_client_secret_are_ir_08(api: Api, browser: Api) -> None:
    payment = create(api, None, payment_id="pay_1")

    response = browser.post("/payments/session_tokens", _session_body(payment, client_secret=None))

    assert response.status_code == 400
    assert response.json == error("IR_08", "Missing required param: client_secret", "client_secret")


def test_session_tokens_with_a_wrong_client_secret_are_ir_09(api: Api, browser: Api) -> None:
    payment = create(api, None, payment_id="pay_1")

    response = browser.post(
        "/payments/session_tokens", _session_body(payment, client_secret="pay_1_secret_no")
    )

    assert response.status_code == 400
    assert response.json == error(
        "IR_09",
        "The client_secret provided does not match the client_secret associated with the Payment",
        "client_secret",
    )


def test_session_tokens_of_an_unknown_payment_are_ir_05(browser: Api) -> None:
    body = {"payment_id": "pay_unknown", "client_secret": "pay_unknown_secret_x", "wallets": []}

    response = browser.post("/payments/session_tokens", body)

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


def test_session_tokens_of_another_merchants_payment_are_ir_05(
    api: Api, other_merchant: OtherMerchant
) -> None:
    payment = create(api, None, payment_id="pay_1")
    other_browser = other_merchant.api.as_key(other_merchant.credentials["publishable_key"])

    response = other_browser.post("/payments/session_tokens", _session_body(payment))

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"payment_id": None}, missing("payment_id")),
        ({"wallets": None}, missing("wallets")),
        ({"payment_id": 7}, invalid_for_any_reason("payment_id")),
        ({"client_secret": ["x"]}, invalid_for_any_reason("client_secret")),
        ({"wallets": "apple_pay"}, invalid_for_any_reason("wallets")),
        ({"wallets": ["apple_pay", "no_such_wallet"]}, invalid_for_any_reason("wallets.1")),
        ({"merchant_connector_details": {}}, missing("merchant_connector_details.creds_identifier")),
        (
            {"merchant_connector_details": {"creds_identifier": "c", "encoded_data": "text"}},
            invalid_for_any_reason("merchant_connector_details.encoded_data"),
        ),
        ({"wallet": []}, malformed("unknown field `wallet`")),
        (
            {"merchant_connector_details": {"creds_identifier": "c", "encoded_data": {"other": 1}}},
            malformed("unknown field `merchant_connector_details.encoded_data.other`"),
        ),
    ],
)
def test_session_token_bodies_are_validated(
    api: Api, browser: Api, changes: dict[str, Any], expected: dict[str, Any]
) -> None:
    payment = create(api, None, payment_id="pay_1")
    body = _session_body(payment, **changes)
    for name in [name for name, value in changes.items() if value is None]:
        del body[name]

    response = browser.post("/payments/session_tokens", body)

    assert response.status_code == 400
    assert response.json == expected


# -- ephemeral keys ---------------------------------------------------------------------------


def _customer(api: Api, customer_id: str = "cus_1") -> None:
    ok(api.post("/customers", {"customer_id": customer_id}))


def _key_body(frozen: str, customer_id: str = "cus_1", offset: int = 0) -> dict[str, Any]:
    created = later(frozen, offset)
    return {
        "id": Matches(r"eki_[A-Za-z0-9]{20}"),
        "merchant_id": MERCHANT_ID,
        "customer_id": customer_id,
        "created_at": created,
        "expires": later(created, HOUR),
        # The real service's form, and the merchant's id, which names the store that holds the key.
        "secret": Matches(rf"epk_[0-9a-f]{{32}}{MERCHANT_ID}"),
    }


def test_create_ephemeral_key_answers_the_key_valid_for_an_hour(api: Api, frozen: str) -> None:
    _customer(api)

    response = api.post("/ephemeral_keys", {"customer_id": "cus_1"})

    assert response.status_code == 200
    assert response.json == _key_body(frozen)


def test_each_ephemeral_key_is_new(api: Api) -> None:
    _customer(api)

    first = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))
    second = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))

    assert first["id"] != second["id"]
    assert first["secret"] != second["secret"]


def test_ephemeral_key_times_follow_the_mock_clock(api: Api, frozen: str) -> None:
    _customer(api)
    advance(api, 90)

    response = api.post("/ephemeral_keys", {"customer_id": "cus_1"})

    assert response.json == _key_body(frozen, offset=90)


def test_ephemeral_key_of_an_unknown_customer_is_ir_04(api: Api) -> None:
    response = api.post("/ephemeral_keys", {"customer_id": "cus_unknown"})

    assert response.status_code == 400
    assert response.json == NO_SUCH_CUSTOMER


def test_ephemeral_key_of_another_merchants_customer_is_ir_04(
    api: Api, other_merchant: OtherMerchant
) -> None:
    _customer(other_merchant.api)

    response = api.post("/ephemeral_keys", {"customer_id": "cus_1"})

    assert response.status_code == 400
    assert response.json == NO_SUCH_CUSTOMER


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("customer_id")),
        ({"customer_id": None}, invalid("customer_id", "field may not be null")),
        ({"customer_id": 12}, invalid_for_any_reason("customer_id")),
        ({"customer_id": "has space"}, invalid_for_any_reason("customer_id")),
        ({"customer_id": "cus_1", "resource_type": "customer"}, malformed("unknown field `resource_type`")),
    ],
)
def test_ephemeral_key_bodies_are_validated(api: Api, body: dict[str, Any], expected: dict[str, Any]) -> None:
    _customer(api)

    response = api.post("/ephemeral_keys", body)

    assert response.status_code == 400
    assert response.json == expected


def test_ephemeral_key_routes_refuse_the_publishable_key(api: Api, browser: Api) -> None:
    _customer(api)
    key = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))

    created = browser.post("/ephemeral_keys", {"customer_id": "cus_1"})
    deleted = browser.delete(f"/ephemeral_keys/{key['id']}")

    assert (created.status_code, created.json) == (401, error("IR_01", UNAUTHORIZED))
    assert (deleted.status_code, deleted.json) == (401, error("IR_01", UNAUTHORIZED))
    assert api.delete(f"/ephemeral_keys/{key['id']}").status_code == 200


def test_delete_ephemeral_key_answers_the_deleted_key(api: Api, frozen: str) -> None:
    _customer(api)
    key = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))

    response = api.delete(f"/ephemeral_keys/{key['id']}")

    assert response.status_code == 200
    assert response.json == key
    assert response.json == _key_body(frozen)


def test_a_deleted_ephemeral_key_is_not_found(api: Api) -> None:
    _customer(api)
    key = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))
    ok(api.delete(f"/ephemeral_keys/{key['id']}"))

    response = api.delete(f"/ephemeral_keys/{key['id']}")

    assert response.status_code == 404
    assert response.json == KEY_NOT_FOUND


def test_delete_of_an_unknown_ephemeral_key_is_404(api: Api) -> None:
    response = api.delete("/ephemeral_keys/eki_unknown")

    assert response.status_code == 404
    assert response.json == KEY_NOT_FOUND


def test_another_merchant_cannot_delete_an_ephemeral_key(api: Api, other_merchant: OtherMerchant) -> None:
    _customer(api)
    key = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))

    response = other_merchant.api.delete(f"/ephemeral_keys/{key['id']}")

    assert response.status_code == 404
    assert response.json == KEY_NOT_FOUND
    assert api.delete(f"/ephemeral_keys/{key['id']}").status_code == 200


@pytest.mark.parametrize(("seconds", "status"), [(HOUR - 1, 200), (HOUR, 404)])
def test_an_ephemeral_key_is_gone_once_it_expires(api: Api, seconds: int, status: int) -> None:
    _customer(api)
    key = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))
    advance(api, seconds)

    response = api.delete(f"/ephemeral_keys/{key['id']}")

    assert response.status_code == status
    if status == 404:
        assert response.json == KEY_NOT_FOUND


def test_reset_deletes_ephemeral_keys(api: Api) -> None:
    _customer(api)
    key = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))
    ok(api.post("/__mock/reset"))

    response = api.delete(f"/ephemeral_keys/{key['id']}")

    assert response.status_code == 404
    assert response.json == KEY_NOT_FOUND


def test_get_on_ephemeral_keys_is_ir_03(api: Api) -> None:
    response = api.get("/ephemeral_keys")

    assert response.status_code == 405
    assert response.json == error("IR_03", "The HTTP method is not applicable for this API")
