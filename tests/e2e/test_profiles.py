"""Business profiles over real HTTP: each payment's webhooks go to its own profile's URL, signed with
its own profile's key. MockServer in this process delivers to receivers on 127.0.0.1."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from pytest_httpserver import HTTPServer

from mocksrv.webhooks import SIGNATURE_HEADER
from tests import payloads
from tests.e2e.harness import DEADLINE, Merchant, Receiver

WAIT_TIMEOUT = DEADLINE  # seconds a wait for deliveries may block; it returns once they are attempted
OUTLET_SIGNING_KEY = "whsec_outlet_signing_key"


def ok(response: Any) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def pay(merchant: Merchant, profile_id: str) -> dict[str, Any]:
    body: dict[str, Any] = ok(merchant.post("/payments", payloads.payment(profile_id=profile_id)))
    return body


def test_a_payment_on_a_second_profile_is_sent_to_its_url_signed_with_its_key(
    webhook_merchant: Merchant, receiver: Receiver, receiver_server: HTTPServer
) -> None:
    outlet_receiver = Receiver(receiver_server)
    outlet = ok(
        webhook_merchant.post(
            f"/account/{webhook_merchant.merchant_id}/business_profile",
            {
                "profile_name": "outlet",
                "webhook_details": {"webhook_url": outlet_receiver.url},
                "payment_response_hash_key": OUTLET_SIGNING_KEY,
            },
        )
    )

    payment = pay(webhook_merchant, outlet["profile_id"])
    assert webhook_merchant.wait_webhooks(WAIT_TIMEOUT) is True

    (request,) = outlet_receiver.received()
    body = request.get_data()
    expected = hmac.new(OUTLET_SIGNING_KEY.encode(), body, hashlib.sha512).hexdigest()
    assert request.headers[SIGNATURE_HEADER] == expected
    assert outlet_receiver.bodies()[0]["content"]["object"]["payment_id"] == payment["payment_id"]
    assert outlet_receiver.bodies()[0]["content"]["object"]["profile_id"] == outlet["profile_id"]
    assert receiver.received() == []


def test_a_payment_on_the_default_profile_still_goes_to_the_default_url(
    webhook_merchant: Merchant, receiver: Receiver, receiver_server: HTTPServer
) -> None:
    outlet_receiver = Receiver(receiver_server)
    ok(
        webhook_merchant.post(
            f"/account/{webhook_merchant.merchant_id}/business_profile",
            {"profile_name": "outlet", "webhook_details": {"webhook_url": outlet_receiver.url}},
        )
    )

    payment = pay(webhook_merchant, webhook_merchant.profile_id)
    assert webhook_merchant.wait_webhooks(WAIT_TIMEOUT) is True

    (request,) = receiver.received()
    expected = hmac.new(webhook_merchant.signing_key.encode(), request.get_data(), hashlib.sha512).hexdigest()
    assert request.headers[SIGNATURE_HEADER] == expected
    assert receiver.bodies()[0]["content"]["object"]["payment_id"] == payment["payment_id"]
    assert outlet_receiver.received() == []
