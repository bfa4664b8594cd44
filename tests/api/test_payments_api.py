"""The payments routes: create, update, confirm, retrieve, capture, cancel, review, 3DS, expiry, list."""

from __future__ import annotations

import hashlib
import hmac
import html
import re
from datetime import timedelta, timezone
from typing import Any
from urllib.parse import urlencode

import pytest
from flask.testing import FlaskClient

from mocksrv import verify_redirect
from mocksrv.api import real_values
from mocksrv.app import create_app, create_sandbox
from mocksrv.settings import Settings
from tests import payloads
from tests.api.expected import (
    CANCELLABLE,
    CAPTURABLE,
    CAPTURE_WINDOW,
    CONFIRMABLE,
    GENERATED_PAYMENT_ID,
    PAYMENT_NOT_FOUND,
    RETURN_URL,
    REVIEWABLE,
    SESSION_EXPIRY,
    UPDATABLE,
    authorized_payment,
    card_data,
    card_payment,
    challenge_url,
    client_secret_of,
    declined_payment,
    error,
    invalid,
    later,
    parse,
    refused,
    summary,
    unconfirmed_payment,
)
from tests.api.scenarios import (
    CHALLENGE_CARD,
    CHALLENGE_THEN_DECLINE_CARD,
    PROCESSING_CARD,
    PROCESSING_THEN_DECLINE_CARD,
    REVIEW_CARD,
    STATUSES,
    WEEK,
    advance,
    create,
    ok,
    payment_count,
    payment_in,
    retrieve,
)
from tests.conftest import Api, CheckedClient
from tests.payloads import SIGNING_KEY
from tests.unit.fakes import FakeSystemTime

pytestmark = pytest.mark.usefixtures("frozen")


# -- create -----------------------------------------------------------------------------------


def test_create_with_confirm_charges_the_card_at_once(api: Api, frozen: str) -> None:
    response = api.post("/payments", payloads.payment(payment_id="pay_1"))

    assert response.status_code == 200
    assert response.json == card_payment(frozen, "pay_1")


def test_create_without_payment_id_generates_one(api: Api, frozen: str) -> None:
    response = api.post("/payments", payloads.payment())

    assert response.status_code == 200
    payment_id = response.json["payment_id"]
    assert payment_id == GENERATED_PAYMENT_ID
    assert response.json == card_payment(frozen, payment_id)


@pytest.mark.parametrize(
    "number",
    [
        "4242424242424242",
        "4111111111111111",
        "5555555555554444",
        "378282246310005",
        "6011111111111117",
        "4012888888881881",  # any other Luhn-valid number
    ],
)
def test_create_with_a_success_card_succeeds(api: Api, frozen: str, number: str) -> None:
    response = api.post("/payments", payloads.payment(number, payment_id="pay_1"))

    assert response.status_code == 200
    assert response.json == card_payment(frozen, "pay_1", number)


@pytest.mark.parametrize(
    ("number", "code", "message"),
    [
        ("4000000000000002", "card_declined", "Your card was declined."),
        ("5105105105105100", "card_declined", "Your card was declined."),
        ("4000000000009995", "insufficient_funds", "Your card has insufficient funds."),
        ("4000000000009987", "lost_card", "Your card has been reported lost."),
        ("4000000000009979", "stolen_card", "Your card has been reported stolen."),
        ("4000000000000069", "expired_card", "Your card has expired."),
        ("4000000000000127", "incorrect_cvc", "Your card's security code is incorrect."),
        ("4000000000000119", "processing_error", "An error occurred while processing your card."),
        ("4100000000000019", "fraudulent", "The payment was blocked as fraudulent."),
    ],
)
def test_create_with_a_decline_card_answers_200_with_a_failed_payment(
    api: Api, frozen: str, number: str, code: str, message: str
) -> None:
    response = api.post("/payments", payloads.payment(number, payment_id="pay_1"))

    assert response.status_code == 200
    assert response.json == declined_payment(frozen, "pay_1", number, code, message)


def test_create_with_manual_capture_only_authorizes(api: Api, frozen: str) -> None:
    response = api.post("/payments", payloads.payment(payment_id="pay_1", capture_method="manual"))

    assert response.status_code == 200
    assert response.json == authorized_payment(frozen, "pay_1")


def test_create_without_confirm_and_without_method_requires_a_payment_method(api: Api, frozen: str) -> None:
    response = api.post("/payments", payloads.payment(None, payment_id="pay_1"))

    assert response.status_code == 200
    assert response.json == unconfirmed_payment(frozen, "pay_1")


def test_create_without_confirm_with_a_method_requires_confirmation(api: Api, frozen: str) -> None:
    response = api.post("/payments", payloads.payment(payment_id="pay_1", confirm=False))

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen, "pay_1", status="requires_confirmation", amount_received=0, captured_at=None
    )


def test_create_keeps_the_descriptive_fields_sent(api: Api, frozen: str) -> None:
    fields: dict[str, Any] = {
        "email": "ada@example.com",
        "name": "Ada Lovelace",
        "phone": "4155550100",
        "phone_country_code": "+1",
        "description": "Order 42",
        "statement_descriptor": "SHOP ORDER 42",
        "metadata": {"order_id": "42"},
        "order_details": [{"name": "Tea", "quantity": 2, "amount": 500, "currency": "USD"}],
        "browser_info": {"user_agent": "Mozilla/5.0", "color_depth": 24, "java_enabled": False},
        "authentication_type": "no_three_ds",
    }

    response = api.post("/payments", payloads.payment(payment_id="pay_1", **fields))

    assert response.status_code == 200
    # A line is answered under the real service's `product_name` too.
    line = {**fields["order_details"][0], "product_name": "Tea"}
    assert response.json == card_payment(frozen, "pay_1", **{**fields, "order_details": [line]})


def test_create_with_a_manual_review_card_holds_the_payment_for_review(api: Api, frozen: str) -> None:
    response = api.post("/payments", payloads.payment(REVIEW_CARD, payment_id="pay_1"))

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen,
        "pay_1",
        REVIEW_CARD,
        status="requires_merchant_action",
        amount_received=0,
        captured_at=None,
    )


def test_create_with_an_asynchronous_card_is_processing(api: Api, frozen: str) -> None:
    response = api.post("/payments", payloads.payment(PROCESSING_CARD, payment_id="pay_1"))

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen, "pay_1", PROCESSING_CARD, status="processing", amount_received=0, captured_at=None
    )


def test_asynchronous_payment_succeeds_ten_seconds_later_on_the_mock_clock(api: Api, frozen: str) -> None:
    create(api, PROCESSING_CARD, payment_id="pay_1")

    assert advance(api, 9)["timers_fired"] == []
    assert retrieve(api, "pay_1")["status"] == "processing"
    settled = later(frozen, 10)
    assert advance(api, 1)["timers_fired"] == [
        {"due_at": settled, "kind": "payment.settle", "target_id": "pay_1"}
    ]
    assert retrieve(api, "pay_1") == card_payment(
        frozen, "pay_1", PROCESSING_CARD, modified_at=settled, captured_at=settled
    )


def test_asynchronous_decline_fails_ten_seconds_later_on_the_mock_clock(api: Api, frozen: str) -> None:
    create(api, PROCESSING_THEN_DECLINE_CARD, payment_id="pay_1")

    advance(api, 10)

    assert retrieve(api, "pay_1") == declined_payment(
        frozen, "pay_1", PROCESSING_THEN_DECLINE_CARD, "card_declined", "Your card was declined."
    ) | {"modified_at": later(frozen, 10)}


def test_create_with_a_repeated_payment_id_is_he_01_and_keeps_the_original(api: Api) -> None:
    original = create(api, payment_id="pay_1")

    response = api.post("/payments", payloads.payment(payment_id="pay_1", amount=5000))

    assert response.status_code == 400
    assert response.json == error(
        "HE_01",
        "The payment with the specified payment_id already exists in our records",
        "payment_id",
    )
    assert retrieve(api, "pay_1") == original
    assert payment_count(api) == 1


def test_a_failed_create_does_not_use_up_its_payment_id(api: Api, frozen: str) -> None:
    rejected = api.post("/payments", payloads.payment(payment_id="pay_1", currency="usd"))
    assert rejected.status_code == 400

    response = api.post("/payments", payloads.payment(payment_id="pay_1"))

    assert response.status_code == 200
    assert response.json == card_payment(frozen, "pay_1")


# -- update -----------------------------------------------------------------------------------


def test_update_changes_amount_description_and_metadata(api: Api, frozen: str) -> None:
    create(api, None, payment_id="pay_1")
    advance(api, 5)

    response = api.post(
        "/payments/pay_1", {"amount": 2500, "description": "Order 42", "metadata": {"order_id": "42"}}
    )

    assert response.status_code == 200
    assert response.json == unconfirmed_payment(
        frozen,
        "pay_1",
        amount=2500,
        description="Order 42",
        metadata={"order_id": "42"},
        modified_at=later(frozen, 5),
    )


def test_update_changes_currency_and_customer(api: Api, frozen: str) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1", {"currency": "EUR", "customer_id": "cus_1"})

    assert response.status_code == 200
    assert response.json == unconfirmed_payment(frozen, "pay_1", currency="EUR", customer_id="cus_1")


def test_update_attaching_a_method_requires_confirmation(api: Api, frozen: str) -> None:
    create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1", payloads.confirmation())

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen, "pay_1", status="requires_confirmation", amount_received=0, captured_at=None
    )


def test_update_of_a_payment_awaiting_confirmation_keeps_it_awaiting(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", confirm=False)

    response = api.post("/payments/pay_1", {"amount": 700})

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen, "pay_1", status="requires_confirmation", amount=700, amount_received=0, captured_at=None
    )


@pytest.mark.parametrize(
    "status", [s for s in STATUSES if s not in ("requires_payment_method", "requires_confirmation")]
)
def test_update_after_confirmation_is_refused(api: Api, status: str) -> None:
    before = payment_in(api, status)

    response = api.post("/payments/pay_1", {"amount": 1})

    assert response.status_code == 400
    assert response.json == refused("updated", status, UPDATABLE)
    assert retrieve(api, "pay_1") == before


def test_update_of_an_unknown_payment_is_not_found(api: Api) -> None:
    response = api.post("/payments/pay_missing", {"amount": 1})

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


# -- confirm ----------------------------------------------------------------------------------


def test_confirm_with_the_secret_key_charges_the_card(api: Api, frozen: str) -> None:
    create(api, None, payment_id="pay_1")
    advance(api, 2)

    response = api.post("/payments/pay_1/confirm", payloads.confirmation())

    assert response.status_code == 200
    now = later(frozen, 2)
    assert response.json == card_payment(frozen, "pay_1", modified_at=now, captured_at=now)


def test_confirm_without_a_body_uses_the_method_attached_on_create(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", confirm=False)

    response = api.post("/payments/pay_1/confirm")

    assert response.status_code == 200
    assert response.json == card_payment(frozen, "pay_1")


def test_confirm_with_manual_capture_authorizes(api: Api, frozen: str) -> None:
    create(api, None, payment_id="pay_1", capture_method="manual")

    response = api.post("/payments/pay_1/confirm", payloads.confirmation())

    assert response.status_code == 200
    assert response.json == authorized_payment(frozen, "pay_1")


def test_confirm_with_a_decline_card_answers_200_with_a_failed_payment(api: Api, frozen: str) -> None:
    create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1/confirm", payloads.confirmation("4000000000009995"))

    assert response.status_code == 200
    assert response.json == declined_payment(
        frozen, "pay_1", "4000000000009995", "insufficient_funds", "Your card has insufficient funds."
    )


def test_confirm_with_the_publishable_key_and_client_secret_charges_the_card(
    api: Api, browser: Api, frozen: str
) -> None:
    secret = create(api, None, payment_id="pay_1")["client_secret"]

    response = browser.post("/payments/pay_1/confirm", payloads.confirmation(client_secret=secret))

    assert response.status_code == 200
    assert response.json == card_payment(frozen, "pay_1")


def test_confirm_with_the_publishable_key_without_client_secret_is_ir_08(api: Api, browser: Api) -> None:
    before = create(api, None, payment_id="pay_1")

    response = browser.post("/payments/pay_1/confirm", payloads.confirmation())

    assert response.status_code == 400
    assert response.json == error("IR_08", "Missing required param: client_secret", "client_secret")
    assert retrieve(api, "pay_1") == before


@pytest.mark.parametrize("key", ["secret", "publishable"])
def test_confirm_with_a_wrong_client_secret_is_ir_09(api: Api, browser: Api, key: str) -> None:
    before = create(api, None, payment_id="pay_1")
    client = api if key == "secret" else browser

    response = client.post(
        "/payments/pay_1/confirm", payloads.confirmation(client_secret="pay_1_secret_wrong")
    )

    assert response.status_code == 400
    assert response.json == error(
        "IR_09",
        "The client_secret provided does not match the client_secret associated with the Payment",
        "client_secret",
    )
    assert retrieve(api, "pay_1") == before


def test_client_secret_still_confirms_one_second_before_it_expires(api: Api, browser: Api) -> None:
    secret = create(api, None, payment_id="pay_1")["client_secret"]
    advance(api, SESSION_EXPIRY - 1)

    response = browser.post("/payments/pay_1/confirm", payloads.confirmation(client_secret=secret))

    assert response.status_code == 200
    assert response.json["status"] == "succeeded"


def test_client_secret_expires_after_900_seconds_on_the_mock_clock(api: Api, browser: Api) -> None:
    before = create(api, None, payment_id="pay_1")
    advance(api, SESSION_EXPIRY)

    response = browser.post(
        "/payments/pay_1/confirm", payloads.confirmation(client_secret=before["client_secret"])
    )

    assert response.status_code == 400
    assert response.json == error("IR_08", "The provided client_secret has expired", "client_secret")
    assert retrieve(api, "pay_1") == before


def test_an_unconfirmed_payments_expired_client_secret_no_longer_reads_it(api: Api, browser: Api) -> None:
    before = create(api, None, payment_id="pay_1")
    path = f"/payments/pay_1?client_secret={before['client_secret']}"
    advance(api, SESSION_EXPIRY - 1)
    assert ok(browser.get(path))["status"] == "requires_payment_method"
    advance(api, 1)

    response = browser.get(path)

    assert response.status_code == 400
    assert response.json == error("IR_08", "The provided client_secret has expired", "client_secret")
    assert retrieve(api, "pay_1") == before  # the secret key reads it still


def test_a_confirmed_payments_client_secret_still_reads_it_once_expired(api: Api, browser: Api) -> None:
    paid = create(api, payment_id="pay_1")
    advance(api, SESSION_EXPIRY)

    shown = ok(browser.get(f"/payments/pay_1?client_secret={paid['client_secret']}"))

    assert (shown["payment_id"], shown["status"]) == ("pay_1", "succeeded")


@pytest.mark.parametrize(
    "status", [s for s in STATUSES if s not in ("requires_payment_method", "requires_confirmation")]
)
def test_confirm_after_confirmation_is_refused(api: Api, status: str) -> None:
    before = payment_in(api, status)

    response = api.post("/payments/pay_1/confirm", payloads.confirmation())

    assert response.status_code == 400
    assert response.json == refused("confirmed", status, CONFIRMABLE)
    assert retrieve(api, "pay_1") == before


def test_confirm_of_an_unknown_payment_is_not_found(api: Api) -> None:
    response = api.post("/payments/pay_missing/confirm", payloads.confirmation())

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


def test_confirm_without_any_payment_method_is_ir_04(api: Api) -> None:
    before = create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1/confirm", {})

    assert response.status_code == 400
    assert response.json == error(
        "IR_04", "Missing required param: payment_method_data", "payment_method_data"
    )
    assert retrieve(api, "pay_1") == before


# -- retrieve ---------------------------------------------------------------------------------


def test_retrieve_answers_the_payment(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")

    response = api.get("/payments/pay_1")

    assert response.status_code == 200
    assert response.json == card_payment(frozen, "pay_1")


def test_retrieve_of_an_unknown_payment_is_ir_05(api: Api) -> None:
    response = api.get("/payments/pay_missing")

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


def test_retrieve_with_the_publishable_key_and_client_secret(api: Api, browser: Api, frozen: str) -> None:
    secret = create(api, None, payment_id="pay_1")["client_secret"]

    response = browser.get(f"/payments/pay_1?client_secret={secret}")

    assert response.status_code == 200
    assert response.json == unconfirmed_payment(frozen, "pay_1")


def test_retrieve_with_the_publishable_key_without_client_secret_is_ir_08(api: Api, browser: Api) -> None:
    create(api, None, payment_id="pay_1")

    response = browser.get("/payments/pay_1")

    assert response.status_code == 400
    assert response.json == error("IR_08", "Missing required param: client_secret", "client_secret")


def test_retrieve_with_the_publishable_key_and_a_wrong_client_secret_is_ir_09(api: Api, browser: Api) -> None:
    create(api, None, payment_id="pay_1")

    response = browser.get("/payments/pay_1?client_secret=pay_1_secret_wrong")

    assert response.status_code == 400
    assert response.json == error(
        "IR_09",
        "The client_secret provided does not match the client_secret associated with the Payment",
        "client_secret",
    )


# -- capture ----------------------------------------------------------------------------------


def test_capture_without_amount_captures_all_that_was_authorized(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual")
    advance(api, 60)

    response = api.post("/payments/pay_1/capture", {})

    assert response.status_code == 200
    now = later(frozen, 60)
    assert response.json == card_payment(
        frozen, "pay_1", capture_method="manual", modified_at=now, captured_at=now
    )


def test_capture_of_the_full_amount_succeeds(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual")

    response = api.post("/payments/pay_1/capture", {"amount_to_capture": 1000})

    assert response.status_code == 200
    assert response.json == card_payment(frozen, "pay_1", capture_method="manual")


def test_partial_capture_with_manual_capture_releases_the_rest(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual")

    response = api.post("/payments/pay_1/capture", {"amount_to_capture": 400})

    assert response.status_code == 200
    assert response.json == authorized_payment(
        frozen,
        "pay_1",
        status="partially_captured",
        amount_received=400,
        amount_capturable=0,
        captured_at=frozen,
    )


def test_partial_capture_with_manual_multiple_leaves_the_rest_capturable(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual_multiple")

    response = api.post("/payments/pay_1/capture", {"amount_to_capture": 400})

    assert response.status_code == 200
    assert response.json == authorized_payment(
        frozen,
        "pay_1",
        status="partially_captured_and_capturable",
        capture_method="manual_multiple",
        amount_received=400,
        amount_capturable=600,
        captured_at=frozen,
    )


def test_second_capture_with_manual_multiple_completes_the_payment(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual_multiple")
    ok(api.post("/payments/pay_1/capture", {"amount_to_capture": 400}))
    advance(api, 30)

    response = api.post("/payments/pay_1/capture", {"amount_to_capture": 600})

    assert response.status_code == 200
    now = later(frozen, 30)
    assert response.json == card_payment(
        frozen, "pay_1", capture_method="manual_multiple", modified_at=now, captured_at=now
    )


@pytest.mark.parametrize(
    ("capture_method", "captured_before", "amount_to_capture", "capturable"),
    [
        ("manual", 0, 1001, 1000),
        ("manual_multiple", 400, 601, 600),
    ],
)
def test_capture_of_more_than_is_capturable_is_rejected(
    api: Api, capture_method: str, captured_before: int, amount_to_capture: int, capturable: int
) -> None:
    create(api, payment_id="pay_1", capture_method=capture_method)
    if captured_before:
        ok(api.post("/payments/pay_1/capture", {"amount_to_capture": captured_before}))
    before = retrieve(api, "pay_1")

    response = api.post("/payments/pay_1/capture", {"amount_to_capture": amount_to_capture})

    assert response.status_code == 400
    assert response.json == invalid("amount_to_capture", f"exceeds amount_capturable ({capturable})")
    assert retrieve(api, "pay_1") == before


@pytest.mark.parametrize(
    "status",
    [
        "requires_payment_method",
        "requires_confirmation",
        "requires_customer_action",
        "requires_merchant_action",
        "processing",
        "partially_captured",
        "failed",
        "expired",
    ],
)
def test_capture_of_a_payment_not_capturable_is_400(api: Api, status: str) -> None:
    before = payment_in(api, status)

    response = api.post("/payments/pay_1/capture", {})

    assert response.status_code == 400
    assert response.json == refused("captured", status, CAPTURABLE)
    assert retrieve(api, "pay_1") == before


@pytest.mark.parametrize("status", ["succeeded", "cancelled"])
def test_capture_of_a_fully_captured_or_cancelled_payment_is_409(api: Api, status: str) -> None:
    before = payment_in(api, status)

    response = api.post("/payments/pay_1/capture", {})

    assert response.status_code == 409
    assert response.json == refused("captured", status, CAPTURABLE)
    assert retrieve(api, "pay_1") == before


def test_capture_of_an_unknown_payment_is_404(api: Api) -> None:
    response = api.post("/payments/pay_missing/capture", {})

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


def test_capture_sets_the_statement_descriptor_from_prefix_and_suffix(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual")

    response = api.post(
        "/payments/pay_1/capture",
        {"statement_descriptor_prefix": "SHOP.EXAMPLE ", "statement_descriptor_suffix": "ORDER 421"},
    )

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen, "pay_1", capture_method="manual", statement_descriptor="SHOP.EXAMPLE ORDER 421"
    )


@pytest.mark.parametrize(
    ("descriptor", "param"),
    [
        (
            {"statement_descriptor_prefix": "SHOP.EXAMPLE ", "statement_descriptor_suffix": "ORDER 4211"},
            "suffix",
        ),
        ({"statement_descriptor_prefix": "X" * 23}, "prefix"),
        ({"statement_descriptor_suffix": "X" * 23}, "suffix"),
    ],
)
def test_capture_with_a_descriptor_over_22_characters_is_ir_04(
    api: Api, descriptor: dict[str, str], param: str
) -> None:
    before = create(api, payment_id="pay_1", capture_method="manual")

    response = api.post("/payments/pay_1/capture", descriptor)

    assert response.status_code == 400
    assert response.json == invalid(
        f"statement_descriptor_{param}", "prefix and suffix together exceed 22 characters"
    )
    assert retrieve(api, "pay_1") == before


# -- cancel -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "status",
    ["requires_payment_method", "requires_confirmation", "requires_customer_action", "requires_capture"],
)
def test_cancel_of_a_payment_not_captured_cancels_it(api: Api, frozen: str, status: str) -> None:
    before = payment_in(api, status)
    advance(api, 10)

    response = api.post("/payments/pay_1/cancel", {"cancellation_reason": "requested_by_customer"})

    assert response.status_code == 200
    now = later(frozen, 10)
    assert response.json == before | {
        "status": "cancelled",
        "amount_capturable": 0,
        "next_action": None,
        "modified_at": now,
        "cancelled_at": now,
        "cancellation_reason": "requested_by_customer",
    }


def test_cancel_without_a_reason_leaves_the_reason_empty(api: Api, frozen: str) -> None:
    create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1/cancel")

    assert response.status_code == 200
    assert response.json == unconfirmed_payment(
        frozen, "pay_1", status="cancelled", cancelled_at=frozen, cancellation_reason=None
    )


def test_cancel_of_a_partially_captured_payment_releases_the_rest(api: Api, frozen: str) -> None:
    before = payment_in(api, "partially_captured_and_capturable")

    response = api.post("/payments/pay_1/cancel", {"cancellation_reason": "out of stock"})

    assert response.status_code == 200
    assert response.json == before | {
        "status": "partially_captured",
        "amount_received": 400,
        "amount_capturable": 0,
        "cancelled_at": frozen,
        "cancellation_reason": "out of stock",
    }


def test_a_cancelled_payment_cannot_be_confirmed_afterwards(api: Api) -> None:
    payment_in(api, "cancelled")

    response = api.post("/payments/pay_1/confirm", payloads.confirmation())

    assert response.status_code == 400
    assert response.json == refused("confirmed", "cancelled", CONFIRMABLE)


@pytest.mark.parametrize(
    "status",
    [
        "requires_merchant_action",
        "processing",
        "partially_captured",
        "succeeded",
        "failed",
        "cancelled",
        "expired",
    ],
)
def test_cancel_in_a_state_that_does_not_allow_it_is_refused(api: Api, status: str) -> None:
    before = payment_in(api, status)

    response = api.post("/payments/pay_1/cancel", {"cancellation_reason": "too late"})

    assert response.status_code == 400
    assert response.json == refused("cancelled", status, CANCELLABLE)
    assert retrieve(api, "pay_1") == before


def test_cancel_of_an_unknown_payment_is_404(api: Api) -> None:
    response = api.post("/payments/pay_missing/cancel", {})

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


# -- approve and reject -----------------------------------------------------------------------


def test_approve_of_a_payment_in_review_charges_it(api: Api, frozen: str) -> None:
    create(api, REVIEW_CARD, payment_id="pay_1")
    advance(api, 120)

    response = api.post("/payments/pay_1/approve")

    assert response.status_code == 200
    now = later(frozen, 120)
    assert response.json == card_payment(frozen, "pay_1", REVIEW_CARD, modified_at=now, captured_at=now)


def test_approve_with_manual_capture_authorizes_without_capturing(api: Api, frozen: str) -> None:
    create(api, REVIEW_CARD, payment_id="pay_1", capture_method="manual")

    response = api.post("/payments/pay_1/approve")

    assert response.status_code == 200
    assert response.json == authorized_payment(frozen, "pay_1", payment_method_data=card_data(REVIEW_CARD))


def test_approve_ignores_review_notes_in_the_body(api: Api, frozen: str) -> None:
    create(api, REVIEW_CARD, payment_id="pay_1")

    response = api.post("/payments/pay_1/approve", {"review_note": "customer called"})

    assert response.status_code == 200
    assert response.json == card_payment(frozen, "pay_1", REVIEW_CARD)


def test_reject_of_a_payment_in_review_fails_it(api: Api, frozen: str) -> None:
    create(api, REVIEW_CARD, payment_id="pay_1")

    response = api.post("/payments/pay_1/reject")

    assert response.status_code == 200
    assert response.json == declined_payment(
        frozen,
        "pay_1",
        REVIEW_CARD,
        "manual_review_rejected",
        "The payment was rejected after manual review",
    )


@pytest.mark.parametrize(("action", "participle"), [("approve", "approved"), ("reject", "rejected")])
@pytest.mark.parametrize(
    "status",
    [
        "requires_payment_method",
        "requires_customer_action",
        "requires_capture",
        "succeeded",
        "failed",
        "cancelled",
    ],
)
def test_review_of_a_payment_not_in_review_is_refused(
    api: Api, action: str, participle: str, status: str
) -> None:
    before = payment_in(api, status)

    response = api.post(f"/payments/pay_1/{action}")

    assert response.status_code == 400
    assert response.json == refused(participle, status, REVIEWABLE)
    assert retrieve(api, "pay_1") == before


@pytest.mark.parametrize("action", ["approve", "reject"])
def test_review_of_an_unknown_payment_is_404(api: Api, action: str) -> None:
    response = api.post(f"/payments/pay_missing/{action}")

    assert response.status_code == 404
    assert response.json == PAYMENT_NOT_FOUND


# -- 3D Secure --------------------------------------------------------------------------------


def _challenged(api: Api, number: str = CHALLENGE_CARD, **fields: Any) -> dict[str, Any]:
    return create(api, number, payment_id="pay_1", **fields)


def _expected_signature(params: dict[str, str]) -> str:
    message = urlencode(sorted(params.items())).encode()
    return hmac.new(SIGNING_KEY.encode(), message, hashlib.sha512).hexdigest()


def _on_challenge_page(client: FlaskClient, method: str, fields: dict[str, str]) -> Any:
    """Open the challenge page (GET, fields in the query) or submit its form (POST)."""
    path = "/web/3ds/merchant_default/pay_1"
    if method == "get":
        return client.get(path, query_string=fields)
    return client.post(path, data=fields)


def _detail_of(response: Any) -> str:
    """The error's code and message, as the error page prints them for the developer."""
    found = re.findall(r'<p class="note" id="detail">([^<]*)</p>', response.get_data(as_text=True))
    assert len(found) == 1, response.get_data(as_text=True)
    return html.unescape(found[0])


def test_a_3ds_card_requires_customer_action_with_a_redirect(api: Api, frozen: str) -> None:
    response = api.post("/payments", payloads.payment(CHALLENGE_CARD, payment_id="pay_1"))

    assert response.status_code == 200
    secret = response.json["client_secret"]
    assert secret == client_secret_of("pay_1")
    assert response.json == card_payment(
        frozen,
        "pay_1",
        CHALLENGE_CARD,
        status="requires_customer_action",
        amount_received=0,
        captured_at=None,
        next_action={"type": "redirect_to_url", "redirect_to_url": challenge_url("pay_1", secret)},
    )


def test_a_3ds_card_confirmed_in_two_steps_requires_customer_action(api: Api) -> None:
    create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1/confirm", payloads.confirmation(CHALLENGE_CARD))

    assert response.status_code == 200
    assert response.json["status"] == "requires_customer_action"
    assert response.json["next_action"] == {
        "type": "redirect_to_url",
        "redirect_to_url": challenge_url("pay_1", response.json["client_secret"]),
    }


def test_the_challenge_page_offers_complete_and_fail(api: Api, client: FlaskClient) -> None:
    url = _challenged(api)["next_action"]["redirect_to_url"]

    response = client.get(url)

    assert response.status_code == 200
    assert response.content_type == "text/html; charset=utf-8"
    page = response.get_data(as_text=True)
    assert '<dd id="payment-id">pay_1</dd>' in page
    assert '<dd id="amount">$10.00</dd>' in page
    assert '<button class="complete" type="submit" name="action" value="complete">Complete</button>' in page
    assert '<button class="fail" type="submit" name="action" value="fail">Fail</button>' in page


def test_completing_the_challenge_redirects_to_return_url_signed(api: Api, client: FlaskClient) -> None:
    secret = _challenged(api)["client_secret"]

    response = client.post(
        "/web/3ds/merchant_default/pay_1", data={"client_secret": secret, "action": "complete"}
    )

    assert response.status_code == 302
    params = {
        "status": "succeeded",
        "payment_id": "pay_1",
        "payment_intent_client_secret": secret,
        "amount": "1000",
    }
    signature = _expected_signature(params)
    assert response.headers["Location"] == (
        f"{RETURN_URL}?{urlencode(params)}&signature={signature}&signature_algorithm=HMAC-SHA512"
    )
    assert verify_redirect(response.headers["Location"], SIGNING_KEY)


def test_completing_the_challenge_charges_the_payment(api: Api, client: FlaskClient, frozen: str) -> None:
    secret = _challenged(api)["client_secret"]

    client.post("/web/3ds/merchant_default/pay_1", data={"client_secret": secret, "action": "complete"})

    assert retrieve(api, "pay_1") == card_payment(frozen, "pay_1", CHALLENGE_CARD)


def test_failing_the_challenge_redirects_with_status_failed(
    api: Api, client: FlaskClient, frozen: str
) -> None:
    secret = _challenged(api)["client_secret"]

    response = client.post(
        "/web/3ds/merchant_default/pay_1", data={"client_secret": secret, "action": "fail"}
    )

    assert response.status_code == 302
    params = {
        "status": "failed",
        "payment_id": "pay_1",
        "payment_intent_client_secret": secret,
        "amount": "1000",
    }
    assert response.headers["Location"] == (
        f"{RETURN_URL}?{urlencode(params)}&signature={_expected_signature(params)}"
        "&signature_algorithm=HMAC-SHA512"
    )
    assert retrieve(api, "pay_1") == declined_payment(
        frozen,
        "pay_1",
        CHALLENGE_CARD,
        "authentication_failed",
        "The customer did not complete 3D Secure authentication",
    )


def test_completing_the_challenge_of_a_decline_card_fails_the_payment(
    api: Api, client: FlaskClient, frozen: str
) -> None:
    secret = _challenged(api, CHALLENGE_THEN_DECLINE_CARD)["client_secret"]

    response = client.post(
        "/web/3ds/merchant_default/pay_1", data={"client_secret": secret, "action": "complete"}
    )

    assert response.status_code == 302
    assert "status=failed" in response.headers["Location"]
    assert retrieve(api, "pay_1") == declined_payment(
        frozen, "pay_1", CHALLENGE_THEN_DECLINE_CARD, "card_declined", "Your card was declined."
    )


def test_completing_the_challenge_with_manual_capture_authorizes(
    api: Api, client: FlaskClient, frozen: str
) -> None:
    secret = _challenged(api, capture_method="manual")["client_secret"]

    response = client.post(
        "/web/3ds/merchant_default/pay_1", data={"client_secret": secret, "action": "complete"}
    )

    assert response.status_code == 302
    assert "status=requires_capture" in response.headers["Location"]
    assert retrieve(api, "pay_1") == authorized_payment(
        frozen, "pay_1", payment_method_data=card_data(CHALLENGE_CARD)
    )


def test_the_redirect_keeps_the_query_of_return_url_and_signs_it_too(api: Api, client: FlaskClient) -> None:
    secret = _challenged(api, return_url=f"{RETURN_URL}?order=42")["client_secret"]

    response = client.post(
        "/web/3ds/merchant_default/pay_1", data={"client_secret": secret, "action": "complete"}
    )

    params = {
        "order": "42",
        "status": "succeeded",
        "payment_id": "pay_1",
        "payment_intent_client_secret": secret,
        "amount": "1000",
    }
    assert response.headers["Location"] == (
        f"{RETURN_URL}?{urlencode(params)}&signature={_expected_signature(params)}"
        "&signature_algorithm=HMAC-SHA512"
    )
    assert verify_redirect(response.headers["Location"], SIGNING_KEY)


def test_a_tampered_redirect_fails_verification(api: Api, client: FlaskClient) -> None:
    secret = _challenged(api)["client_secret"]
    location = client.post(
        "/web/3ds/merchant_default/pay_1", data={"client_secret": secret, "action": "complete"}
    ).headers["Location"]

    assert not verify_redirect(location.replace("amount=1000", "amount=1"), SIGNING_KEY)
    assert not verify_redirect(location, "whsec_some_other_key")


@pytest.mark.parametrize("method", ["get", "post"])
def test_the_challenge_page_without_client_secret_is_ir_08(
    api: Api, client: FlaskClient, method: str
) -> None:
    _challenged(api)

    response = _on_challenge_page(client, method, {"action": "complete"})

    assert (response.status_code, response.content_type) == (400, "text/html; charset=utf-8")
    assert _detail_of(response) == "IR_08: Missing required param: client_secret"
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"


@pytest.mark.parametrize("method", ["get", "post"])
def test_the_challenge_page_with_a_wrong_client_secret_is_ir_09(
    api: Api, client: FlaskClient, method: str
) -> None:
    _challenged(api)

    response = _on_challenge_page(
        client, method, {"client_secret": "pay_1_secret_wrong", "action": "complete"}
    )

    assert (response.status_code, response.content_type) == (400, "text/html; charset=utf-8")
    assert _detail_of(response) == (
        "IR_09: The client_secret provided does not match the client_secret associated with the Payment"
    )
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("path", ["/web/3ds/merchant_default/pay_missing", "/web/3ds/merchant_other/pay_1"])
def test_the_challenge_page_of_an_unknown_payment_is_ir_05(
    api: Api, client: FlaskClient, path: str, method: str
) -> None:
    secret = _challenged(api)["client_secret"]

    if method == "get":
        response = client.get(f"{path}?client_secret={secret}")
    else:
        response = client.post(path, data={"client_secret": secret, "action": "complete"})

    assert (response.status_code, response.content_type) == (404, "text/html; charset=utf-8")
    assert _detail_of(response) == "IR_05: Payment not found"


@pytest.mark.parametrize("method", ["get", "post"])
def test_the_challenge_page_of_a_payment_already_authenticated_is_refused(
    api: Api, client: FlaskClient, method: str
) -> None:
    secret = _challenged(api)["client_secret"]
    ok(api.post("/__mock/payments/pay_1/authentication", {"result": "success"}))

    response = _on_challenge_page(client, method, {"client_secret": secret, "action": "complete"})

    assert (response.status_code, response.content_type) == (400, "text/html; charset=utf-8")
    assert _detail_of(response) == (
        "IR_14: This Payment could not be authenticated because it has a status of succeeded. "
        "The expected state is requires_customer_action"
    )


# -- capture expiry ---------------------------------------------------------------------------


def test_an_uncaptured_authorization_expires_after_7_days(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual")

    fired = advance(api, WEEK)["timers_fired"]

    expiry = later(frozen, CAPTURE_WINDOW)
    assert fired == [{"due_at": expiry, "kind": "payment.expire", "target_id": "pay_1"}]
    assert retrieve(api, "pay_1") == authorized_payment(
        frozen, "pay_1", status="expired", amount_capturable=0, modified_at=expiry
    )


def test_a_payment_captured_in_time_lists_no_timer_when_its_authorization_would_have_expired(
    api: Api,
) -> None:
    create(api, payment_id="pay_1", capture_method="manual")
    ok(api.post("/payments/pay_1/capture", {}))

    assert advance(api, WEEK)["timers_fired"] == []
    assert retrieve(api, "pay_1")["status"] == "succeeded"


def test_an_authorization_is_still_capturable_one_second_before_7_days(api: Api) -> None:
    create(api, payment_id="pay_1", capture_method="manual")
    advance(api, WEEK - 1)

    response = api.post("/payments/pay_1/capture", {})

    assert response.status_code == 200
    assert response.json["status"] == "succeeded"


def test_a_partially_captured_and_capturable_payment_expires_after_7_days(api: Api, frozen: str) -> None:
    payment_in(api, "partially_captured_and_capturable")

    advance(api, WEEK)

    assert retrieve(api, "pay_1") == authorized_payment(
        frozen,
        "pay_1",
        status="expired",
        capture_method="manual_multiple",
        amount_received=400,
        amount_capturable=0,
        captured_at=frozen,
        modified_at=later(frozen, CAPTURE_WINDOW),
    )


def test_a_capture_after_the_window_on_a_running_clock_finds_the_payment_expired(settings: Settings) -> None:
    # No ticker runs beside this app: the capture's own request fires the expiry that fell due.
    system_time = FakeSystemTime()
    app = create_app(settings, create_sandbox(settings, system_time))
    app.test_client_class = CheckedClient
    api = Api(app.test_client())
    create(api, payment_id="pay_1", capture_method="manual")
    system_time.advance(WEEK)

    response = api.post("/payments/pay_1/capture", {})

    assert (response.status_code, response.json) == (
        400,
        error(
            "IR_14",
            "This Payment could not be captured because it has a status of expired. "
            "The expected state is requires_capture, partially_captured_and_capturable",
        ),
    )
    assert (retrieve(api, "pay_1")["status"], retrieve(api, "pay_1")["amount_received"]) == ("expired", 0)


def test_a_captured_payment_does_not_expire(api: Api) -> None:
    create(api, payment_id="pay_1", capture_method="manual")
    captured = ok(api.post("/payments/pay_1/capture", {}))

    advance(api, WEEK)

    assert retrieve(api, "pay_1") == captured


# -- list -------------------------------------------------------------------------------------


def _create_three_a_second_apart(api: Api) -> list[dict[str, Any]]:
    created = []
    for index in range(3):
        if index:
            advance(api, 1)
        created.append(create(api, payment_id=f"pay_{index}"))
    return created


def test_list_of_no_payments_is_empty(api: Api) -> None:
    response = api.post("/payments/list", {})

    assert response.status_code == 200
    assert response.json == {"count": 0, "total_count": 0, "data": []}


def test_list_is_newest_first(api: Api) -> None:
    created = _create_three_a_second_apart(api)

    response = api.post("/payments/list", {})

    assert response.status_code == 200
    assert response.json == {"count": 3, "total_count": 3, "data": [summary(p) for p in reversed(created)]}


def test_list_without_a_body_uses_the_defaults(api: Api) -> None:
    created = _create_three_a_second_apart(api)

    response = api.post("/payments/list")

    assert response.status_code == 200
    assert response.json == {"count": 3, "total_count": 3, "data": [summary(p) for p in reversed(created)]}


def test_list_shows_10_by_default(api: Api) -> None:
    ok(api.post("/__mock/seed", {"payments": 12}))

    response = api.post("/payments/list", {})

    assert response.status_code == 200
    assert (response.json["count"], response.json["total_count"], len(response.json["data"])) == (10, 12, 10)


@pytest.mark.parametrize(
    ("limit", "offset", "indexes"),
    [(1, 0, [2]), (2, 0, [2, 1]), (2, 1, [1, 0]), (2, 2, [0]), (2, 3, []), (100, 0, [2, 1, 0])],
)
def test_list_pages_with_limit_and_offset(api: Api, limit: int, offset: int, indexes: list[int]) -> None:
    created = _create_three_a_second_apart(api)

    response = api.post("/payments/list", {"limit": limit, "offset": offset})

    assert response.status_code == 200
    assert response.json == {
        "count": len(indexes),
        "total_count": 3,
        "data": [summary(created[i]) for i in indexes],
    }


@pytest.mark.parametrize(
    ("status", "payment_ids"),
    [
        ("succeeded", ["pay_ok"]),
        ("failed", ["pay_failed"]),
        ("requires_capture", ["pay_manual"]),
        ("processing", []),
    ],
)
def test_list_filters_by_status(api: Api, status: str, payment_ids: list[str]) -> None:
    create(api, payment_id="pay_ok")
    create(api, "4000000000000002", payment_id="pay_failed")
    create(api, payment_id="pay_manual", capture_method="manual")

    response = api.post("/payments/list", {"status": status})

    assert response.status_code == 200
    assert [p["payment_id"] for p in response.json["data"]] == payment_ids
    assert response.json["total_count"] == len(payment_ids)


def test_list_filters_by_status_after_the_status_changed(api: Api) -> None:
    create(api, payment_id="pay_1", capture_method="manual")
    ok(api.post("/payments/pay_1/capture", {}))

    captured = api.post("/payments/list", {"status": "succeeded"}).json
    authorized = api.post("/payments/list", {"status": "requires_capture"}).json

    assert [p["payment_id"] for p in captured["data"]] == ["pay_1"]
    assert authorized == {"count": 0, "total_count": 0, "data": []}


def test_list_filters_by_customer_id(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    create(api, payment_id="pay_mine", customer_id="cus_1")
    create(api, payment_id="pay_other")

    response = api.post("/payments/list", {"customer_id": "cus_1"})

    assert response.status_code == 200
    assert [p["payment_id"] for p in response.json["data"]] == ["pay_mine"]
    assert response.json["total_count"] == 1


def test_list_filters_by_currency(api: Api) -> None:
    create(api, payment_id="pay_usd")
    create(api, payment_id="pay_eur", currency="EUR")

    response = api.post("/payments/list", {"currency": "EUR"})

    assert response.status_code == 200
    assert response.json == {
        "count": 1,
        "total_count": 1,
        "data": [summary(retrieve(api, "pay_eur"))],
    }


def test_list_filters_by_payment_method(api: Api) -> None:
    create(api, payment_id="pay_card")
    create(
        api,
        payment_id="pay_crypto",
        payment_method="crypto",
        payment_method_type="crypto_currency",
        payment_method_data={"crypto": {"pay_currency": "BTC", "wallet_address": "bc1qexample"}},
    )
    create(api, None, payment_id="pay_none")

    crypto = api.post("/payments/list", {"payment_method": "crypto"}).json
    card = api.post("/payments/list", {"payment_method": "card"}).json

    assert [p["payment_id"] for p in crypto["data"]] == ["pay_crypto"]
    assert [p["payment_id"] for p in card["data"]] == ["pay_card"]


def test_list_combines_filters(api: Api) -> None:
    create(api, payment_id="pay_usd_ok")
    create(api, payment_id="pay_eur_ok", currency="EUR")
    create(api, "4000000000000002", payment_id="pay_eur_failed", currency="EUR")

    response = api.post("/payments/list", {"currency": "EUR", "status": "failed"})

    assert [p["payment_id"] for p in response.json["data"]] == ["pay_eur_failed"]
    assert response.json["total_count"] == 1


@pytest.mark.parametrize(
    ("bounds", "indexes"),
    [
        ({"created_gte": 1}, [2, 1]),
        ({"created_lte": 1}, [1, 0]),
        ({"created_gte": 1, "created_lte": 1}, [1]),
        ({"created_gte": 0, "created_lte": 2}, [2, 1, 0]),
        ({"created_gte": 3}, []),
    ],
)
def test_list_filters_by_creation_time_both_bounds_included(
    api: Api, frozen: str, bounds: dict[str, int], indexes: list[int]
) -> None:
    created = _create_three_a_second_apart(api)
    body = {name: later(frozen, seconds) for name, seconds in bounds.items()}

    response = api.post("/payments/list", body)

    assert response.status_code == 200
    assert response.json == {
        "count": len(indexes),
        "total_count": len(indexes),
        "data": [summary(created[i]) for i in indexes],
    }


def test_list_reads_a_creation_bound_with_an_offset_as_that_instant(api: Api, frozen: str) -> None:
    _create_three_a_second_apart(api)
    second = parse(later(frozen, 1)).astimezone(timezone(timedelta(hours=2)))

    response = api.post("/payments/list", {"created_gte": second.isoformat(timespec="milliseconds")})

    assert [p["payment_id"] for p in response.json["data"]] == ["pay_2", "pay_1"]


@pytest.mark.parametrize(
    ("body", "path", "reason"),
    [
        ({"limit": 0}, "limit", "must be greater than or equal to 1 and less than or equal to 100"),
        ({"limit": 101}, "limit", "must be greater than or equal to 1 and less than or equal to 100"),
        ({"limit": -1}, "limit", "must be greater than or equal to 1 and less than or equal to 100"),
        ({"offset": -1}, "offset", "must be greater than or equal to 0"),
        ({"limit": "10"}, "limit", "not a valid integer"),
        ({"limit": 10.5}, "limit", "not a valid integer"),
        ({"limit": True}, "limit", "not a valid integer"),
        ({"offset": "1"}, "offset", "not a valid integer"),
        ({"status": "paid"}, "status", None),
        ({"currency": "usd"}, "currency", "not an ISO 4217 currency code of money the service takes"),
        (
            {"payment_method": "cash"},
            "payment_method",
            f"must be one of: {', '.join(real_values.PAYMENT_METHODS)}",
        ),
        ({"created_gte": "yesterday"}, "created_gte", "not a valid ISO 8601 timestamp"),
        ({"created_lte": 1700000000}, "created_lte", "not a valid ISO 8601 timestamp"),
    ],
)
def test_list_with_an_invalid_filter_is_ir_04(
    api: Api, body: dict[str, Any], path: str, reason: str | None
) -> None:
    statuses = (
        "requires_payment_method, requires_confirmation, requires_customer_action, requires_merchant_action, "
        "processing, requires_capture, partially_captured, partially_captured_and_capturable, succeeded, "
        "failed, cancelled, expired"
    )

    response = api.post("/payments/list", body)

    assert response.status_code == 400
    assert response.json == invalid(path, reason or f"must be one of: {statuses}")


def test_list_compares_creation_bounds_below_the_millisecond(api: Api, frozen: str) -> None:
    _create_three_a_second_apart(api)
    half_a_millisecond_after_the_second = later(frozen, 1)[:-1] + "500Z"

    after = api.post("/payments/list", {"created_gte": half_a_millisecond_after_the_second}).json
    before = api.post("/payments/list", {"created_lte": half_a_millisecond_after_the_second}).json

    assert [p["payment_id"] for p in after["data"]] == ["pay_2"]
    assert [p["payment_id"] for p in before["data"]] == ["pay_1", "pay_0"]


def test_list_with_an_unknown_filter_is_ir_06(api: Api) -> None:
    response = api.post("/payments/list", {"merchant_id": "merchant_other"})

    assert response.status_code == 400
    assert response.json == error("IR_06", "Json deserialize error: unknown field `merchant_id`")


def test_create_with_the_profile_of_no_such_business_profile_is_ir_04(api: Api) -> None:
    response = api.post("/payments", payloads.payment(profile_id="pro_missing"))

    assert response.status_code == 400
    assert response.json == invalid("profile_id", "no such business profile")
    assert payment_count(api) == 0
