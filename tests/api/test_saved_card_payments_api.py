"""Paying with a saved card: a checkout page's saved-card flow with the publishable key, and the
merchant's payments with a saved method's token or id."""

from __future__ import annotations

from typing import Any

import pytest

from tests import payloads
from tests.api.expected import error, invalid
from tests.api.scenarios import create, ok, payment_count, retrieve
from tests.conftest import Api

pytestmark = pytest.mark.usefixtures("frozen")


def saved_card(api: Api, customer_id: str = "cus_1") -> dict[str, Any]:
    """A customer with a card saved by a payment; the customer's one saved method, as listed."""
    ok(api.post("/customers", {"customer_id": customer_id}))
    create(api, payment_id=f"pay_{customer_id}", customer_id=customer_id, setup_future_usage="on_session")
    methods = ok(api.get(f"/customers/{customer_id}/payment_methods"))["customer_payment_methods"]
    assert len(methods) == 1
    method: dict[str, Any] = methods[0]
    return method


def awaiting(api: Api, **fields: Any) -> dict[str, Any]:
    """A payment of cus_1 created without a method, as a checkout page gets it."""
    return create(api, None, payment_id="pay_2", customer_id="cus_1", **fields)


def checks(cvc: str) -> dict[str, str]:
    """A saved card's checks: the address's from the billing saved with it."""
    return {"cvc_check": cvc, "address_line1_check": "pass", "address_postal_code_check": "pass"}


def test_a_checkout_page_lists_the_saved_card_and_pays_with_its_token(api: Api, browser: Api) -> None:
    method = saved_card(api)
    secret = awaiting(api)["client_secret"]

    listed = ok(browser.get(f"/customers/payment_methods?client_secret={secret}"))
    paid = ok(
        browser.post(
            "/payments/pay_2/confirm",
            {
                "payment_token": listed["customer_payment_methods"][0]["payment_token"],
                "card_cvc": "123",
                "client_secret": secret,
            },
        )
    )

    assert listed["customer_payment_methods"] == [method]
    assert (paid["status"], paid["payment_method_id"], paid["payment_method"]) == (
        "succeeded",
        method["payment_method_id"],
        "card",
    )
    card = paid["payment_method_data"]["card"]
    assert (card["last4"], card["card_isin"], card["payment_checks"]) == ("4242", "424242", checks("pass"))
    assert "card_number" not in card
    assert retrieve(api, "pay_2") == paid


@pytest.mark.parametrize(
    ("extra", "cvc_check"),
    [({}, "unavailable"), ({"payment_method_data": {"card_token": {"card_cvc": "987"}}}, "pass")],
)
def test_the_cvc_of_a_saved_card_is_optional(api: Api, extra: dict[str, Any], cvc_check: str) -> None:
    method = saved_card(api)
    awaiting(api)

    paid = ok(api.post("/payments/pay_2/confirm", {"payment_token": method["payment_token"], **extra}))

    assert (paid["status"], paid["payment_method_data"]["card"]["payment_checks"]) == (
        "succeeded",
        checks(cvc_check),
    )


def test_a_wrong_cvc_is_refused_and_leaves_the_payment_waiting(api: Api) -> None:
    method = saved_card(api)
    before = awaiting(api)

    response = api.post(
        "/payments/pay_2/confirm", {"payment_token": method["payment_token"], "card_cvc": "12"}
    )

    assert (response.status_code, response.json) == (400, invalid("card_cvc", "three or four digits"))
    assert retrieve(api, "pay_2") == before


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"payment_token": "token_unknown"}, invalid("payment_token", "no such saved payment method")),
        (
            {"payment_token": "TOKEN", **payloads.confirmation()},
            invalid("payment_method_data", "payment_token names what to pay with already: send one of them"),
        ),
        (
            {
                "recurring_details": {
                    "type": "processor_payment_token",
                    "data": {"processor_payment_token": "x"},
                }
            },
            invalid("recurring_details.type", "mocksrv charges a mandate_id or a payment_method_id"),
        ),
        (
            {"recurring_details": {"type": "payment_method_id", "data": "pm_unknown"}},
            invalid("recurring_details.data", "no such payment method"),
        ),
    ],
)
def test_a_saved_method_the_request_cannot_pay_with_is_refused(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    method = saved_card(api)
    before = awaiting(api)
    if body.get("payment_token") == "TOKEN":
        body = {**body, "payment_token": method["payment_token"]}

    response = api.post("/payments/pay_2/confirm", body)

    assert (response.status_code, response.json) == (400, expected)
    assert retrieve(api, "pay_2") == before


def test_another_customers_saved_card_is_refused(api: Api) -> None:
    saved_card(api)
    other = saved_card(api, "cus_2")
    count = payment_count(api)

    response = api.post(
        "/payments",
        payloads.payment(None, confirm=True, customer_id="cus_1", payment_token=other["payment_token"]),
    )

    assert (response.status_code, response.json) == (
        400,
        invalid("payment_token", "it belongs to another customer than the payment's"),
    )
    assert payment_count(api) == count


BY_CUSTOMER_ONLY = (
    "a confirmation with the publishable key pays only with the payment's own customer's saved methods "
    "and mandates"
)


@pytest.mark.parametrize(
    "customer_id", [None, "cus_2"], ids=["a guest payment", "another customer's payment"]
)
@pytest.mark.parametrize("way", ["payment_token", "payment_method_id"])
def test_a_checkout_page_cannot_pay_with_another_customers_saved_card(
    api: Api, browser: Api, customer_id: str | None, way: str
) -> None:
    method = saved_card(api)  # cus_1's
    if customer_id is not None:
        ok(api.post("/customers", {"customer_id": customer_id}))
    before = create(api, None, payment_id="pay_2", **({"customer_id": customer_id} if customer_id else {}))
    named, path = (
        ({"payment_token": method["payment_token"]}, "payment_token")
        if way == "payment_token"
        else (
            {"recurring_details": {"type": "payment_method_id", "data": method["payment_method_id"]}},
            "recurring_details.data",
        )
    )

    response = browser.post("/payments/pay_2/confirm", {**named, "client_secret": before["client_secret"]})

    assert (response.status_code, response.json) == (400, invalid(path, BY_CUSTOMER_ONLY))
    assert retrieve(api, "pay_2") == before


def test_a_saved_method_by_its_id_pays_on_session_for_its_customer(api: Api) -> None:
    method = saved_card(api)

    paid = create(
        api,
        None,
        payment_id="pay_2",
        confirm=True,
        recurring_details={"type": "payment_method_id", "data": method["payment_method_id"]},
    )

    assert (paid["status"], paid["customer_id"], paid["payment_method_id"]) == (
        "succeeded",
        "cus_1",
        method["payment_method_id"],
    )
    assert paid["customer"]["id"] == "cus_1"


def test_saving_a_card_needs_a_customer(api: Api) -> None:
    count = payment_count(api)

    response = api.post("/payments", payloads.payment(setup_future_usage="off_session"))

    assert response.status_code == 400
    reason = "a payment that saves its method or sets up a mandate needs a customer"
    assert response.json == error("IR_04", f"Missing required param: customer_id: {reason}", "customer_id")
    assert payment_count(api) == count
