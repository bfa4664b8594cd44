"""Klarna and iDEAL through the hosted authorization page, and ACH debits settled on the mock
clock, against a real `mocksrv serve` process, each on a merchant of its own."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mocksrv import verify_redirect
from tests.e2e.harness import Merchant, Receiver, TimeoutSession, forms_of
from tests.e2e.test_flows import RETURN_URL, query_of, retrieve, submit_challenge, without_query
from tests.payloads import BILLING

THREE_DAYS = 3 * 24 * 3600


def pay(merchant: Merchant, method: str, method_type: str, data: dict[str, Any]) -> dict[str, Any]:
    response = merchant.post(
        "/payments",
        {
            "amount": 4500,
            "currency": "EUR",
            "profile_id": merchant.profile_id,
            "confirm": True,
            "return_url": RETURN_URL,
            "payment_method": method,
            "payment_method_type": method_type,
            "payment_method_data": {method: data},
            "billing": copy.deepcopy(BILLING),
        },
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize(
    ("method", "method_type", "data", "name"),
    [
        ("pay_later", "klarna", {"klarna_redirect": {}}, "Klarna"),
        ("bank_redirect", "ideal", {"ideal": {"bank_name": "ing"}}, "iDEAL"),
    ],
)
def test_a_redirect_payment_is_authorized_on_the_page_and_returns_signed(
    merchant: Merchant, method: str, method_type: str, data: dict[str, Any], name: str
) -> None:
    created = pay(merchant, method, method_type, data)
    page_url = created["next_action"]["redirect_to_url"]
    with TimeoutSession() as browser:
        page = browser.get(page_url)
    form = forms_of(page.text)[0]

    response = submit_challenge(page_url, "complete")

    assert created["status"] == "requires_customer_action"
    assert f"Pay with {name}" in page.text
    assert [(b.value, b.label) for b in form.buttons] == [
        ("complete", "Authorize"),
        ("fail", "Fail"),
        ("cancel", "Cancel"),
    ]
    location = response.headers["Location"]
    assert (response.status_code, without_query(location)) == (302, RETURN_URL)
    assert verify_redirect(location, merchant.signing_key)
    params = query_of(location)
    assert (params["status"], params["payment_id"], params["amount"]) == (
        "succeeded",
        created["payment_id"],
        "4500",
    )
    assert retrieve(merchant, created["payment_id"])["status"] == "succeeded"


def test_a_redirect_payment_cancelled_on_the_page_returns_cancelled(merchant: Merchant) -> None:
    created = pay(merchant, "pay_later", "klarna", {"klarna_redirect": {}})

    response = submit_challenge(created["next_action"]["redirect_to_url"], "cancel")

    assert query_of(response.headers["Location"])["status"] == "cancelled"
    assert retrieve(merchant, created["payment_id"])["status"] == "cancelled"


@pytest.mark.parametrize(
    ("account", "status", "error_code"),
    [("000123456789", "succeeded", None), ("000111111113", "failed", "insufficient_funds")],
)
def test_an_ach_debit_settles_or_is_returned_three_days_later(
    merchant: Merchant, account: str, status: str, error_code: str | None
) -> None:
    merchant.freeze()
    created = pay(
        merchant,
        "bank_debit",
        "ach",
        {"ach_bank_debit": {"account_number": account, "routing_number": "110000000"}},
    )

    merchant.advance(seconds=THREE_DAYS)

    settled = retrieve(merchant, created["payment_id"])
    assert created["status"] == "processing"
    assert (settled["status"], settled["error_code"]) == (status, error_code)


def test_a_bank_transfer_is_completed_through_the_control_plane(merchant: Merchant) -> None:
    created = pay(merchant, "bank_transfer", "sepa", {"account_number": "DE00123"})

    arrived = merchant.post(f"/__mock/payments/{created['payment_id']}/transfer", {})

    assert (created["status"], created["next_action"]["type"]) == (
        "requires_customer_action",
        "display_bank_transfer_information",
    )
    assert (arrived.status_code, arrived.json()["status"]) == (200, "succeeded")
    assert retrieve(merchant, created["payment_id"])["status"] == "succeeded"


def test_each_outcome_of_the_other_methods_arrives_as_a_webhook(
    webhook_merchant: Merchant, receiver: Receiver
) -> None:
    merchant = webhook_merchant
    klarna = pay(merchant, "pay_later", "klarna", {"klarna_redirect": {}})
    submit_challenge(klarna["next_action"]["redirect_to_url"], "complete")
    ideal = pay(merchant, "bank_redirect", "ideal", {"ideal": {"bank_name": "ing"}})
    submit_challenge(ideal["next_action"]["redirect_to_url"], "fail")
    debits = [
        pay(
            merchant,
            "bank_debit",
            "ach",
            {"ach_bank_debit": {"account_number": n, "routing_number": "110000000"}},
        )
        for n in ("000123456789", "000111111116")
    ]
    arrives = pay(merchant, "bank_transfer", "sepa", {"account_number": "DE00123"})
    never = pay(merchant, "bank_transfer", "sepa", {"account_number": "DE00456"})
    merchant.post(f"/__mock/payments/{arrives['payment_id']}/transfer", {})
    merchant.advance(seconds=7 * 24 * 3600)

    assert merchant.wait_webhooks(4.0) is True
    seen: dict[str, list[str]] = {}
    for body in receiver.bodies():
        seen.setdefault(body["content"]["object"]["payment_id"], []).append(body["event_type"])
    assert seen == {
        klarna["payment_id"]: ["action_required", "payment_succeeded"],
        ideal["payment_id"]: ["action_required", "payment_failed"],
        debits[0]["payment_id"]: ["payment_processing", "payment_succeeded"],
        debits[1]["payment_id"]: ["payment_processing", "payment_failed"],
        arrives["payment_id"]: ["action_required", "payment_succeeded"],
        never["payment_id"]: ["action_required", "payment_failed"],
    }
