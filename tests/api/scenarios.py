"""Steps that bring a payment of the default merchant into a given status through the API."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from tests import payloads
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

CHALLENGE_CARD = "4000003800000446"
CHALLENGE_THEN_DECLINE_CARD = "4000008400001629"
REVIEW_CARD = "4000000000009235"
PROCESSING_CARD = "4000000000000077"
PROCESSING_THEN_DECLINE_CARD = "4000000000000093"
DECLINE_CARD = "4000000000000002"
WEEK = 7 * 24 * 3600


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def create(api: Api, number: str | None = "4242424242424242", **fields: Any) -> dict[str, Any]:
    return ok(api.post("/payments", payloads.payment(number, **fields)))


def pay(api: Api, method: str, method_type: str, data: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """`pay_1`: a one-step payment of 25.99 EUR with method data of any kind, `{method: data}`."""
    body = {
        "payment_id": "pay_1",
        "amount": 2599,
        "currency": "EUR",
        "profile_id": payloads.PROFILE_ID,
        "confirm": True,
        "return_url": "https://shop.example/return",
        "payment_method": method,
        "payment_method_type": method_type,
        "payment_method_data": {method: data},
        "billing": copy.deepcopy(payloads.BILLING),
        **fields,
    }
    return ok(api.post("/payments", body))


def advance(api: Api, seconds: float) -> dict[str, Any]:
    return ok(api.post("/__mock/clock/advance", {"seconds": seconds}))


def retrieve(api: Api, payment_id: str) -> dict[str, Any]:
    return ok(api.get(f"/payments/{payment_id}"))


def payment_count(api: Api) -> int:
    count: int = ok(api.post("/payments/list", {"limit": 100}))["total_count"]
    return count


def _requires_payment_method(api: Api, payment_id: str) -> dict[str, Any]:
    return create(api, None, payment_id=payment_id)


def _requires_confirmation(api: Api, payment_id: str) -> dict[str, Any]:
    return create(api, payment_id=payment_id, confirm=False)


def _requires_customer_action(api: Api, payment_id: str) -> dict[str, Any]:
    return create(api, CHALLENGE_CARD, payment_id=payment_id)


def _requires_merchant_action(api: Api, payment_id: str) -> dict[str, Any]:
    return create(api, REVIEW_CARD, payment_id=payment_id)


def _processing(api: Api, payment_id: str) -> dict[str, Any]:
    return create(api, PROCESSING_CARD, payment_id=payment_id)


def _requires_capture(api: Api, payment_id: str) -> dict[str, Any]:
    return create(api, payment_id=payment_id, capture_method="manual")


def _partially_captured(api: Api, payment_id: str) -> dict[str, Any]:
    create(api, payment_id=payment_id, capture_method="manual")
    return ok(api.post(f"/payments/{payment_id}/capture", {"amount_to_capture": 400}))


def _partially_captured_and_capturable(api: Api, payment_id: str) -> dict[str, Any]:
    create(api, payment_id=payment_id, capture_method="manual_multiple")
    return ok(api.post(f"/payments/{payment_id}/capture", {"amount_to_capture": 400}))


def _succeeded(api: Api, payment_id: str) -> dict[str, Any]:
    return create(api, payment_id=payment_id)


def _failed(api: Api, payment_id: str) -> dict[str, Any]:
    return create(api, DECLINE_CARD, payment_id=payment_id)


def _cancelled(api: Api, payment_id: str) -> dict[str, Any]:
    create(api, None, payment_id=payment_id)
    return ok(api.post(f"/payments/{payment_id}/cancel", {}))


def _expired(api: Api, payment_id: str) -> dict[str, Any]:
    create(api, payment_id=payment_id, capture_method="manual")
    advance(api, WEEK)
    return retrieve(api, payment_id)


_STEPS: dict[str, Callable[[Api, str], dict[str, Any]]] = {
    "requires_payment_method": _requires_payment_method,
    "requires_confirmation": _requires_confirmation,
    "requires_customer_action": _requires_customer_action,
    "requires_merchant_action": _requires_merchant_action,
    "processing": _processing,
    "requires_capture": _requires_capture,
    "partially_captured": _partially_captured,
    "partially_captured_and_capturable": _partially_captured_and_capturable,
    "succeeded": _succeeded,
    "failed": _failed,
    "cancelled": _cancelled,
    "expired": _expired,
}

STATUSES = tuple(_STEPS)


def payment_in(api: Api, status: str, payment_id: str = "pay_1") -> dict[str, Any]:
    """Create a payment and move it to `status`; return its body as the API last showed it."""
    body = _STEPS[status](api, payment_id)
    assert body["status"] == status, body
    assert body["merchant_id"] == MERCHANT_ID
    return body


NEVER_CONTACTED = "http://127.0.0.1:9/webhooks"  # an api test's deliveries are never made


def sent_webhook(api: Api, event_id: str) -> dict[str, Any]:
    """The body a delivery of the event sends, as the retry route tells it; a webhook URL is set
    first, as a retry with nowhere to send is refused."""
    ok(api.put("/__mock/webhook_url", {"webhook_url": NEVER_CONTACTED}))
    answer = ok(api.post(f"/events/{MERCHANT_ID}/{event_id}/retry", {}))
    body: dict[str, Any] = json.loads(answer["request"]["body"])
    return body
