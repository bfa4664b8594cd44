"""Payment flows against a real `mocksrv serve` process, each on a merchant of its own."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests

from tests.api.expected import card_data
from tests.e2e.harness import Form, Merchant, TimeoutSession, forms_of, poll
from tests.payloads import confirmation, payment

SUCCESS_CARD = "4242424242424242"
DECLINE_CARD = "4000000000000002"
THREE_DS_CARD = "4000003800000446"
REVIEW_CARD = "4000000000009235"
ASYNC_CARD = "4000000000000077"
RETURN_URL = "https://shop.example/return"
SEVEN_DAYS = 7 * 24 * 3600


# -- helpers ------------------------------------------------------------------------------------


def create_payment(merchant: Merchant, number: str | None = SUCCESS_CARD, **overrides: Any) -> dict[str, Any]:
    """Create a payment for the merchant (one-step card by default); it must answer 200."""
    response = merchant.post("/payments", payment(number, profile_id=merchant.profile_id, **overrides))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def retrieve(merchant: Merchant, payment_id: str) -> dict[str, Any]:
    response = merchant.get(f"/payments/{payment_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def pick(body: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: body[name] for name in names}


def format_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def error(code: str, message: str, **extra: str) -> dict[str, Any]:
    return {"error": {"type": "invalid_request", "code": code, "message": message, **extra}}


def challenge_form(page_url: str) -> Form:
    """Open the 3DS challenge page as a browser would and return its one form."""
    with TimeoutSession() as browser:
        page = browser.get(page_url)
    assert page.status_code == 200, page.text
    forms = forms_of(page.text)
    assert len(forms) == 1, page.text
    return forms[0]


def submit_challenge(page_url: str, action: str) -> requests.Response:
    """Press the challenge page's button named `action`, without following the redirect."""
    form = challenge_form(page_url)
    button = next(b for b in form.buttons if b.value == action)
    with TimeoutSession() as browser:
        return browser.post(
            form.action or page_url, data={**form.fields, button.name: button.value}, allow_redirects=False
        )


def query_of(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def without_query(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


# -- one-step card payments ---------------------------------------------------------------------


def test_one_step_card_payment_succeeds(merchant: Merchant) -> None:
    created = create_payment(merchant)

    assert pick(
        created,
        "merchant_id",
        "profile_id",
        "status",
        "amount",
        "amount_received",
        "amount_capturable",
        "amount_refunded",
        "currency",
        "capture_method",
        "payment_method",
        "payment_method_type",
        "payment_method_data",
        "next_action",
        "error_code",
        "error_message",
    ) == {
        "merchant_id": merchant.merchant_id,
        "profile_id": merchant.profile_id,
        "status": "succeeded",
        "amount": 1000,
        "amount_received": 1000,
        "amount_capturable": 0,
        "amount_refunded": 0,
        "currency": "USD",
        "capture_method": "automatic",
        "payment_method": "card",
        "payment_method_type": "credit",
        "payment_method_data": card_data(),
        "next_action": None,
        "error_code": None,
        "error_message": None,
    }
    assert created["captured_at"] == created["created"]


def test_one_step_payment_is_stored_as_answered(merchant: Merchant) -> None:
    created = create_payment(merchant)

    assert retrieve(merchant, created["payment_id"]) == created


def test_declined_card_fails_with_card_declined(merchant: Merchant) -> None:
    created = create_payment(merchant, DECLINE_CARD)

    assert pick(
        created,
        "status",
        "amount_received",
        "amount_capturable",
        "captured_at",
        "error_code",
        "error_message",
    ) == {
        "status": "failed",
        "amount_received": 0,
        "amount_capturable": 0,
        "captured_at": None,
        "error_code": "card_declined",
        "error_message": "Your card was declined.",
    }


# -- the SDK flow -------------------------------------------------------------------------------


def test_sdk_payment_is_created_without_a_method_and_with_a_client_secret(merchant: Merchant) -> None:
    created = create_payment(merchant, None)

    assert created["status"] == "requires_payment_method"
    assert created["client_secret"].startswith(f"{created['payment_id']}_secret_")


def test_sdk_payment_is_confirmed_with_the_publishable_key_and_client_secret(merchant: Merchant) -> None:
    created = create_payment(merchant, None)

    confirmed = merchant.post(
        f"/payments/{created['payment_id']}/confirm",
        confirmation(client_secret=created["client_secret"]),
        headers={"api-key": merchant.publishable_key},
    )

    assert confirmed.status_code == 200, confirmed.text
    assert pick(confirmed.json(), "payment_id", "status", "amount_received", "client_secret") == {
        "payment_id": created["payment_id"],
        "status": "succeeded",
        "amount_received": 1000,
        "client_secret": created["client_secret"],
    }


def test_sdk_confirm_with_the_publishable_key_needs_the_client_secret(merchant: Merchant) -> None:
    created = create_payment(merchant, None)

    confirmed = merchant.post(
        f"/payments/{created['payment_id']}/confirm",
        confirmation(),
        headers={"api-key": merchant.publishable_key},
    )

    assert confirmed.status_code == 400
    assert confirmed.json() == error("IR_08", "Missing required param: client_secret", param="client_secret")
    assert retrieve(merchant, created["payment_id"])["status"] == "requires_payment_method"


def test_publishable_key_retrieves_a_payment_with_its_client_secret(merchant: Merchant) -> None:
    created = create_payment(merchant, None)

    retrieved = merchant.get(
        f"/payments/{created['payment_id']}",
        params={"client_secret": created["client_secret"]},
        headers={"api-key": merchant.publishable_key},
    )

    assert retrieved.status_code == 200, retrieved.text
    assert retrieved.json() == created


def test_publishable_key_cannot_create_a_payment(merchant: Merchant) -> None:
    response = merchant.post(
        "/payments",
        payment(profile_id=merchant.profile_id),
        headers={"api-key": merchant.publishable_key},
    )

    assert response.status_code == 401
    assert response.json() == error("IR_01", "API key not provided or invalid API key used")


# -- capture and cancel -------------------------------------------------------------------------


def test_manual_multiple_capture_takes_a_part_then_the_rest(merchant: Merchant) -> None:
    authorized = create_payment(merchant, capture_method="manual_multiple")
    assert pick(authorized, "status", "amount_received", "amount_capturable") == {
        "status": "requires_capture",
        "amount_received": 0,
        "amount_capturable": 1000,
    }
    path = f"/payments/{authorized['payment_id']}/capture"

    part = merchant.post(path, {"amount_to_capture": 400})
    assert part.status_code == 200, part.text
    assert pick(part.json(), "status", "amount_received", "amount_capturable") == {
        "status": "partially_captured_and_capturable",
        "amount_received": 400,
        "amount_capturable": 600,
    }

    rest = merchant.post(path, {})
    assert rest.status_code == 200, rest.text
    assert pick(rest.json(), "status", "amount_received", "amount_capturable") == {
        "status": "succeeded",
        "amount_received": 1000,
        "amount_capturable": 0,
    }


def test_cancel_releases_an_authorized_payment(merchant: Merchant) -> None:
    authorized = create_payment(merchant, capture_method="manual")

    cancelled = merchant.post(
        f"/payments/{authorized['payment_id']}/cancel", {"cancellation_reason": "requested_by_customer"}
    )

    assert cancelled.status_code == 200, cancelled.text
    body = cancelled.json()
    assert pick(body, "status", "amount_received", "amount_capturable", "cancellation_reason") == {
        "status": "cancelled",
        "amount_received": 0,
        "amount_capturable": 0,
        "cancellation_reason": "requested_by_customer",
    }
    assert body["cancelled_at"] == body["modified_at"]


# -- manual review ------------------------------------------------------------------------------


def test_review_card_holds_the_payment_for_the_merchant(merchant: Merchant) -> None:
    held = create_payment(merchant, REVIEW_CARD)

    assert pick(held, "status", "amount_received", "amount_capturable") == {
        "status": "requires_merchant_action",
        "amount_received": 0,
        "amount_capturable": 0,
    }


def test_approving_a_held_payment_captures_it(merchant: Merchant) -> None:
    held = create_payment(merchant, REVIEW_CARD)

    approved = merchant.post(f"/payments/{held['payment_id']}/approve")

    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert pick(body, "status", "amount_received", "amount_capturable") == {
        "status": "succeeded",
        "amount_received": 1000,
        "amount_capturable": 0,
    }
    assert body["captured_at"] == body["modified_at"]


def test_rejecting_a_held_payment_fails_it(merchant: Merchant) -> None:
    held = create_payment(merchant, REVIEW_CARD)

    rejected = merchant.post(f"/payments/{held['payment_id']}/reject")

    assert rejected.status_code == 200, rejected.text
    assert pick(
        rejected.json(), "status", "amount_received", "captured_at", "error_code", "error_message"
    ) == {
        "status": "failed",
        "amount_received": 0,
        "captured_at": None,
        "error_code": "manual_review_rejected",
        "error_message": "The payment was rejected after manual review",
    }


# -- 3D Secure ----------------------------------------------------------------------------------


def test_3ds_card_requires_customer_action_with_a_redirect(merchant: Merchant) -> None:
    created = create_payment(merchant, THREE_DS_CARD)

    assert created["status"] == "requires_customer_action"
    assert created["next_action"] == {
        "type": "redirect_to_url",
        "redirect_to_url": (
            f"{merchant.url}/web/3ds/{merchant.merchant_id}/{created['payment_id']}"
            f"?client_secret={created['client_secret']}"
        ),
    }


def test_3ds_challenge_page_offers_complete_and_fail(merchant: Merchant) -> None:
    created = create_payment(merchant, THREE_DS_CARD)
    page_url = created["next_action"]["redirect_to_url"]

    with TimeoutSession() as browser:
        page = browser.get(page_url)

    assert page.status_code == 200
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert created["payment_id"] in page.text
    forms = forms_of(page.text)
    assert len(forms) == 1
    assert forms[0].method == "post"
    assert forms[0].fields == {"client_secret": created["client_secret"]}
    assert [(b.name, b.value, b.label) for b in forms[0].buttons] == [
        ("action", "complete", "Complete"),
        ("action", "fail", "Fail"),
    ]


def test_3ds_complete_redirects_to_return_url_with_the_result(merchant: Merchant) -> None:
    created = create_payment(merchant, THREE_DS_CARD)

    response = submit_challenge(created["next_action"]["redirect_to_url"], "complete")

    assert response.status_code == 302
    location = response.headers["Location"]
    assert without_query(location) == RETURN_URL
    params = query_of(location)
    signature = params.pop("signature")
    assert params == {
        "status": "succeeded",
        "payment_id": created["payment_id"],
        "payment_intent_client_secret": created["client_secret"],
        "amount": "1000",
        "signature_algorithm": "HMAC-SHA512",
    }
    assert len(signature) == 128
    assert set(signature) <= set("0123456789abcdef")


def test_3ds_redirect_signature_verifies_with_the_profile_hash_key(merchant: Merchant) -> None:
    created = create_payment(merchant, THREE_DS_CARD)

    response = submit_challenge(created["next_action"]["redirect_to_url"], "complete")

    params = query_of(response.headers["Location"])
    signature = params.pop("signature")
    params.pop("signature_algorithm")
    signed = urlencode(sorted(params.items())).encode()
    expected = hmac.new(merchant.signing_key.encode(), signed, hashlib.sha512).hexdigest()
    assert hmac.compare_digest(signature, expected)


def test_3ds_complete_succeeds_the_payment(merchant: Merchant) -> None:
    created = create_payment(merchant, THREE_DS_CARD)

    submit_challenge(created["next_action"]["redirect_to_url"], "complete")

    assert pick(retrieve(merchant, created["payment_id"]), "status", "amount_received", "next_action") == {
        "status": "succeeded",
        "amount_received": 1000,
        "next_action": None,
    }


def test_3ds_fail_redirects_with_status_failed(merchant: Merchant) -> None:
    created = create_payment(merchant, THREE_DS_CARD)

    response = submit_challenge(created["next_action"]["redirect_to_url"], "fail")

    assert response.status_code == 302
    assert query_of(response.headers["Location"])["status"] == "failed"
    assert pick(retrieve(merchant, created["payment_id"]), "status", "amount_received", "error_code") == {
        "status": "failed",
        "amount_received": 0,
        "error_code": "authentication_failed",
    }


def test_3ds_completed_through_the_control_plane_succeeds(merchant: Merchant) -> None:
    created = create_payment(merchant, THREE_DS_CARD)

    authenticated = merchant.authenticate(created["payment_id"])

    assert pick(authenticated, "payment_id", "status", "amount_received") == {
        "payment_id": created["payment_id"],
        "status": "succeeded",
        "amount_received": 1000,
    }


def test_3ds_failed_through_the_control_plane_fails(merchant: Merchant) -> None:
    created = create_payment(merchant, THREE_DS_CARD)

    authenticated = merchant.authenticate(created["payment_id"], success=False)

    assert pick(authenticated, "status", "error_code", "error_message") == {
        "status": "failed",
        "error_code": "authentication_failed",
        "error_message": "The customer did not complete 3D Secure authentication",
    }


# -- the mock clock -----------------------------------------------------------------------------


def test_authorization_expires_7_days_after_it_was_made(merchant: Merchant) -> None:
    frozen_at = merchant.freeze()
    authorized = create_payment(merchant, capture_method="manual")

    fired = merchant.advance(SEVEN_DAYS)

    due = frozen_at + timedelta(seconds=SEVEN_DAYS)
    assert merchant.now() == due
    assert fired == [
        {"due_at": format_time(due), "kind": "payment.expire", "target_id": authorized["payment_id"]}
    ]
    assert pick(retrieve(merchant, authorized["payment_id"]), "status", "amount_capturable") == {
        "status": "expired",
        "amount_capturable": 0,
    }


def test_authorization_is_still_capturable_a_second_before_7_days(merchant: Merchant) -> None:
    merchant.freeze()
    authorized = create_payment(merchant, capture_method="manual")

    fired = merchant.advance(SEVEN_DAYS - 1)

    assert fired == []
    assert pick(retrieve(merchant, authorized["payment_id"]), "status", "amount_capturable") == {
        "status": "requires_capture",
        "amount_capturable": 1000,
    }


def test_capture_after_expiry_is_refused(merchant: Merchant) -> None:
    merchant.freeze()
    authorized = create_payment(merchant, capture_method="manual")
    merchant.advance(SEVEN_DAYS)

    response = merchant.post(f"/payments/{authorized['payment_id']}/capture", {})

    assert response.status_code == 400
    assert response.json() == error(
        "IR_14",
        "This Payment could not be captured because it has a status of expired. "
        "The expected state is requires_capture, partially_captured_and_capturable",
    )


def test_async_card_is_processing_until_10_seconds_pass(merchant: Merchant) -> None:
    merchant.freeze()
    created = create_payment(merchant, ASYNC_CARD)
    assert created["status"] == "processing"

    fired = merchant.advance(9.999)

    assert fired == []
    assert retrieve(merchant, created["payment_id"])["status"] == "processing"


def test_async_card_settles_when_the_clock_passes_10_seconds(merchant: Merchant) -> None:
    frozen_at = merchant.freeze()
    created = create_payment(merchant, ASYNC_CARD)

    fired = merchant.advance(10)

    due = format_time(frozen_at + timedelta(seconds=10))
    assert fired == [{"due_at": due, "kind": "payment.settle", "target_id": created["payment_id"]}]
    settled = retrieve(merchant, created["payment_id"])
    assert pick(settled, "status", "amount_received", "captured_at") == {
        "status": "succeeded",
        "amount_received": 1000,
        "captured_at": due,
    }


def test_processing_payment_settles_in_real_time_with_the_clock_running(
    new_merchant: Callable[..., Merchant],
) -> None:
    # No rate limit: the test polls as fast as the server answers.
    merchant = new_merchant(rate_limit=0)
    rules = [
        {
            "name": "quick asynchronous success",
            "match": {"card_number": [ASYNC_CARD]},
            "outcome": {"result": "processing", "after_seconds": 1, "then": {"result": "success"}},
        }
    ]
    assert merchant.set_outcomes(rules) == rules
    created = create_payment(merchant, ASYNC_CARD)
    assert created["status"] == "processing"

    settled = poll(
        lambda: retrieve(merchant, created["payment_id"]),
        lambda body: body["status"] != "processing",
        timeout=10.0,
        max_attempts=100_000,
    )

    assert pick(settled, "status", "amount_received") == {"status": "succeeded", "amount_received": 1000}


# -- tenancy and customers ----------------------------------------------------------------------


def test_another_merchant_gets_404_for_a_payment_it_does_not_own(
    new_merchant: Callable[..., Merchant],
) -> None:
    owner, other = new_merchant(), new_merchant()
    created = create_payment(owner)

    response = other.get(f"/payments/{created['payment_id']}")

    assert response.status_code == 404
    assert response.json() == error("IR_05", "Payment not found")


def test_customer_is_created_with_a_generated_id(merchant: Merchant) -> None:
    response = merchant.post("/customers", {"name": "Ada Lovelace", "email": "ada@example.com"})

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["customer_id"].startswith("cus_")
    assert pick(
        body, "name", "email", "phone", "phone_country_code", "description", "address", "metadata"
    ) == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "phone": None,
        "phone_country_code": None,
        "description": None,
        "address": None,
        "metadata": None,
    }


def test_payment_names_an_existing_customer(merchant: Merchant) -> None:
    customer = merchant.post("/customers", {"name": "Ada Lovelace"}).json()

    created = create_payment(merchant, customer_id=customer["customer_id"])

    assert created["customer_id"] == customer["customer_id"]
    assert retrieve(merchant, created["payment_id"])["customer_id"] == customer["customer_id"]


def test_deleting_a_customer_answers_what_was_deleted(merchant: Merchant) -> None:
    customer = merchant.post("/customers", {"name": "Ada Lovelace"}).json()

    response = merchant.delete(f"/customers/{customer['customer_id']}")

    assert response.status_code == 200, response.text
    assert response.json() == {
        "customer_id": customer["customer_id"],
        "customer_deleted": True,
        "address_deleted": True,
        "payment_methods_deleted": True,
    }


def test_deleted_customer_is_not_found(merchant: Merchant) -> None:
    customer = merchant.post("/customers", {"name": "Ada Lovelace"}).json()
    merchant.delete(f"/customers/{customer['customer_id']}")

    response = merchant.get(f"/customers/{customer['customer_id']}")

    assert response.status_code == 404
    assert response.json() == error("HE_02", "Customer does not exist in our records")


def test_payment_cannot_name_a_deleted_customer(merchant: Merchant) -> None:
    customer = merchant.post("/customers", {"name": "Ada Lovelace"}).json()
    merchant.delete(f"/customers/{customer['customer_id']}")

    response = merchant.post(
        "/payments", payment(profile_id=merchant.profile_id, customer_id=customer["customer_id"])
    )

    assert response.status_code == 400
    assert response.json() == error(
        "IR_04",
        "Invalid value provided: customer_id: no such customer; create it with POST /customers first",
        param="customer_id",
    )
