"""The legacy card API over real HTTP: a 3D Secure initiate completed on the hosted page, its webhooks
received and verified, without a browser (the page's form is sent as a browser would send it)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from mocksrv.webhooks import SIGNATURE_HEADER, verify_signature
from tests.e2e.harness import DEADLINE, Merchant, Receiver, TimeoutSession, forms_of

WAIT_TIMEOUT = DEADLINE  # seconds a wait for deliveries may block; it returns once they are attempted
THREE_DS_CARD = "4000000000003063"  # a challenge when the payment asks for 3D Secure
RETURN_URL = "https://shop.example/return"


@pytest.fixture
def merchant(webhook_merchant: Merchant) -> Merchant:
    return webhook_merchant


def test_a_3ds_legacy_initiate_is_completed_on_the_hosted_page_and_its_webhooks_arrive(
    merchant: Merchant, receiver: Receiver
) -> None:
    token = merchant.legacy_token()
    body = {
        "amount": "25.99",
        "currency": "USD",
        "order_id": "order_42",
        "return_url": RETURN_URL,
        "three_ds": True,
        "card": {"number": THREE_DS_CARD, "expiry_month": "12", "expiry_year": "2099", "cvv": "123"},
    }
    with TimeoutSession() as shop:
        started = shop.post(
            f"{merchant.url}/api/v1/mocksrv/card/initiate",
            json=body,
            headers={"Authorization": f"Bearer {token}"},
        )
    assert started.status_code == 200, started.text
    transaction = started.json()
    assert (transaction["status"], transaction["amount_minor_units"]) == ("requires_customer_action", 2599)

    with TimeoutSession() as browser:
        page = browser.get(transaction["redirect_url"])
        [form] = forms_of(page.text)
        button = next(button for button in form.buttons if button.value == "complete")
        finished = browser.post(
            form.action or transaction["redirect_url"],
            data={**form.fields, button.name: button.value},
            allow_redirects=False,
        )

    assert finished.status_code == 302
    returned = dict(parse_qsl(urlsplit(finished.headers["Location"]).query))
    assert (returned["status"], returned["payment_id"], returned["amount"]) == (
        "succeeded",
        transaction["transaction_id"],
        "2599",
    )
    assert merchant.wait_webhooks(WAIT_TIMEOUT)
    events = [
        (body["event_type"], body["content"]["object"]["payment_id"], body["content"]["object"]["metadata"])
        for body in receiver.bodies()
    ]
    assert events == [
        ("action_required", transaction["transaction_id"], {"order_id": "order_42"}),
        ("payment_succeeded", transaction["transaction_id"], {"order_id": "order_42"}),
    ]
    assert all(
        verify_signature(request.get_data(), request.headers.get(SIGNATURE_HEADER), merchant.signing_key)
        for request in receiver.received()
    )


def test_a_legacy_token_expires_with_the_merchants_clock(merchant: Merchant) -> None:
    token = merchant.legacy_token()
    body = {"amount": "1.00", "currency": "USD"}
    headers = {"Authorization": f"Bearer {token}"}

    merchant.advance(hours=1)

    with TimeoutSession() as shop:
        refused = shop.post(f"{merchant.url}/api/v1/mocksrv/card/initiate", json=body, headers=headers)
    assert (refused.status_code, refused.json()["error"]["code"]) == (401, "IR_01")
