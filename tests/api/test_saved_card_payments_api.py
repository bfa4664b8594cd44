"""Paying with a saved card: a checkout page's saved-card flow with the publishable key, and the
merchant's payments with a saved method's token or id."""

from __future__ import annotations

from typing import Any

import pytest

from tests import payloads
from tests.api.expected import error, invalid
from tests.api.scenarios import (
    CHALLENGE_CARD,
    PROCESSING_CARD,
    REVIEW_CARD,
    advance,
    create,
    ok,
    payment_count,
    retrieve,
)
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


# -- what changed between a payment's create and its confirmation -------------------------------


def by_id(method: dict[str, Any]) -> dict[str, Any]:
    return {"recurring_details": {"type": "payment_method_id", "data": method["payment_method_id"]}}


@pytest.mark.parametrize("way", ["payment_token", "recurring_details"])
def test_a_saved_card_payment_moved_to_another_customer_is_refused_at_confirmation(
    api: Api, way: str
) -> None:
    method = saved_card(api)
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    named = {"payment_token": method["payment_token"]} if way == "payment_token" else by_id(method)
    create(api, None, payment_id="pay_2", customer_id="cus_1", **named)
    moved = ok(api.post("/payments/pay_2", {"customer_id": "cus_2"}))

    response = api.post("/payments/pay_2/confirm", {})

    assert response.status_code == 400
    assert response.json == invalid(
        "customer_id", "the saved payment method the payment pays with belongs to another customer"
    )
    assert retrieve(api, "pay_2") == moved


def test_a_saved_card_deleted_after_its_payment_was_created_is_refused_at_confirmation(api: Api) -> None:
    method = saved_card(api)
    created = create(api, None, payment_id="pay_2", customer_id="cus_1", **by_id(method))
    ok(api.delete(f"/payment_methods/{method['payment_method_id']}"))

    response = api.post("/payments/pay_2/confirm", {})

    assert (response.status_code, response.json) == (
        400,
        invalid("payment_method_id", "the saved payment method has been deleted"),
    )
    assert retrieve(api, "pay_2") == created


def test_a_saved_card_deleted_while_its_payment_is_processing_stays_deleted(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    create(api, PROCESSING_CARD, payment_id="pay_1", customer_id="cus_1", setup_future_usage="off_session")
    advance(api, 11)
    pm = retrieve(api, "pay_1")["payment_method_id"]
    assert (
        create(api, None, payment_id="pay_2", confirm=True, **by_id({"payment_method_id": pm}))["status"]
        == "processing"
    )
    ok(api.delete(f"/payment_methods/{pm}"))

    advance(api, 11)

    assert retrieve(api, "pay_2")["status"] == "succeeded"
    gone = api.get(f"/payment_methods/{pm}")
    assert (gone.status_code, gone.json["error"]["code"]) == (404, "HE_02")
    assert ok(api.get("/customers/cus_1/payment_methods"))["customer_payment_methods"] == []


def test_a_card_whose_customer_was_deleted_while_its_payment_processed_is_not_saved(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    created = create(
        api, PROCESSING_CARD, payment_id="pay_1", customer_id="cus_1", setup_future_usage="off_session"
    )
    ok(api.delete("/customers/cus_1"))

    advance(api, 11)

    assert retrieve(api, "pay_1")["status"] == "succeeded"
    gone = api.get(f"/payment_methods/{created['payment_method_id']}")
    assert (gone.status_code, gone.json["error"]["code"]) == (404, "HE_02")
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    assert ok(api.get("/customers/cus_1/payment_methods"))["customer_payment_methods"] == []


# How a payment under way is paid: settled by the clock, approved, or its 3DS challenge passed.
_PAID_LATER = {
    PROCESSING_CARD: lambda api: advance(api, 11),
    REVIEW_CARD: lambda api: ok(api.post("/payments/pay_1/approve", {})),
    CHALLENGE_CARD: lambda api: ok(api.post("/__mock/payments/pay_1/authentication", {"result": "success"})),
}


@pytest.mark.parametrize("seconds", [0, 1], ids=["same-millisecond", "a-second-later"])
@pytest.mark.parametrize("card", list(_PAID_LATER))
def test_a_card_whose_customer_was_deleted_and_made_again_while_its_payment_was_under_way_is_not_saved(
    api: Api, card: str, seconds: int
) -> None:
    # On a frozen clock the customer made again has the very `created` of the payment's attempt.
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    created = create(
        api,
        card,
        payment_id="pay_1",
        customer_id="cus_1",
        setup_future_usage="off_session",
        return_url="https://shop.example/done",
    )
    advance(api, seconds)
    ok(api.delete("/customers/cus_1"))
    ok(api.post("/customers", {"customer_id": "cus_1"}))

    _PAID_LATER[card](api)

    assert retrieve(api, "pay_1")["status"] == "succeeded"
    gone = api.get(f"/payment_methods/{created['payment_method_id']}")
    assert (gone.status_code, gone.json["error"]["code"]) == (404, "HE_02")
    assert ok(api.get("/customers/cus_1/payment_methods"))["customer_payment_methods"] == []


def test_a_card_is_saved_for_a_customer_named_by_an_update_after_the_payment_was_made(api: Api) -> None:
    create(api, None, payment_id="pay_1")
    advance(api, 1)
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    ok(api.post("/payments/pay_1", {"customer_id": "cus_1", "setup_future_usage": "on_session"}))

    confirmed = ok(api.post("/payments/pay_1/confirm", payloads.confirmation(PROCESSING_CARD)))
    advance(api, 11)

    assert retrieve(api, "pay_1")["status"] == "succeeded"
    listed = ok(api.get("/customers/cus_1/payment_methods"))["customer_payment_methods"]
    assert [m["payment_method_id"] for m in listed] == [confirmed["payment_method_id"]]


def test_a_card_saved_on_session_is_kept_for_off_session_once_a_payment_asks_for_it(api: Api) -> None:
    method = saved_card(api)
    off_session = {"off_session": True, "confirm": True, **by_id(method)}
    refused = api.post("/payments", payloads.payment(None, payment_id="pay_2", **off_session))
    assert (refused.status_code, refused.json["error"]["code"]) == (400, "HE_03")

    again = create(
        api,
        None,
        payment_id="pay_3",
        confirm=True,
        payment_token=method["payment_token"],
        setup_future_usage="off_session",
    )
    assert again["status"] == "succeeded"

    paid = create(api, None, payment_id="pay_4", **off_session)
    assert (paid["status"], paid["payment_method_id"]) == ("succeeded", method["payment_method_id"])


# -- the same card saved again -------------------------------------------------------------------


def methods_of(api: Api, customer_id: str = "cus_1") -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = ok(api.get(f"/customers/{customer_id}/payment_methods"))[
        "customer_payment_methods"
    ]
    return listed


def test_a_card_saved_again_by_its_customer_is_the_method_saved_before(api: Api) -> None:
    method = saved_card(api)
    advance(api, 60)

    again = create(api, payment_id="pay_2", customer_id="cus_1", setup_future_usage="on_session")

    assert (again["status"], again["payment_method_id"]) == ("succeeded", method["payment_method_id"])
    listed = methods_of(api)
    assert [m["payment_method_id"] for m in listed] == [method["payment_method_id"]]
    assert listed[0]["last_used_at"] != method["last_used_at"]
    assert {k: v for k, v in listed[0].items() if k != "last_used_at"} == {
        k: v for k, v in method.items() if k != "last_used_at"
    }


def test_a_card_saved_again_keeps_the_details_saved_before(api: Api) -> None:
    # Another expiry with the same number: the saved card is the one saved first, until updated.
    method = saved_card(api)
    fields = {"customer_id": "cus_1", "setup_future_usage": "on_session"}
    renewed = payloads.card("4242424242424242", card_exp_year="2098")

    again = create(api, payment_id="pay_2", payment_method_data=renewed, **fields)

    assert again["payment_method_id"] == method["payment_method_id"]
    assert again["payment_method_data"]["card"]["card_exp_year"] == "2098"
    assert [m["card"]["expiry_year"] for m in methods_of(api)] == [method["card"]["expiry_year"]]


def test_another_card_or_another_customer_saves_a_method_of_its_own(api: Api) -> None:
    method = saved_card(api)
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    advance(api, 1)  # the list is latest used first

    other_card = create(
        api, "5555555555554444", payment_id="pay_2", customer_id="cus_1", setup_future_usage="on_session"
    )
    other_customer = create(api, payment_id="pay_3", customer_id="cus_2", setup_future_usage="on_session")

    ids = {method["payment_method_id"], other_card["payment_method_id"], other_customer["payment_method_id"]}
    assert len(ids) == 3
    assert [m["payment_method_id"] for m in methods_of(api)] == [
        other_card["payment_method_id"],
        method["payment_method_id"],
    ]
    assert [m["payment_method_id"] for m in methods_of(api, "cus_2")] == [other_customer["payment_method_id"]]


def test_a_card_saved_again_is_kept_off_session_once_its_payment_asks_for_it(api: Api) -> None:
    method = saved_card(api)
    again = create(api, payment_id="pay_2", customer_id="cus_1", setup_future_usage="off_session")
    off_session = {"off_session": True, "confirm": True, **by_id(method)}

    paid = create(api, None, payment_id="pay_3", **off_session)

    assert again["payment_method_id"] == method["payment_method_id"]
    assert (paid["status"], paid["payment_method_id"]) == ("succeeded", method["payment_method_id"])


def test_the_method_a_card_saved_again_names_stays_deleted_when_deleted_while_its_payment_processes(
    api: Api,
) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    saves = {"customer_id": "cus_1", "setup_future_usage": "off_session"}
    first = create(api, PROCESSING_CARD, payment_id="pay_1", **saves)
    advance(api, 11)
    again = create(api, PROCESSING_CARD, payment_id="pay_2", **saves)
    assert (again["status"], again["payment_method_id"]) == ("processing", first["payment_method_id"])
    ok(api.delete(f"/payment_methods/{first['payment_method_id']}"))

    advance(api, 11)

    assert retrieve(api, "pay_2")["status"] == "succeeded"
    gone = api.get(f"/payment_methods/{first['payment_method_id']}")
    assert (gone.status_code, gone.json["error"]["code"]) == (404, "HE_02")
    assert methods_of(api) == []


def test_a_saved_method_paid_with_and_deleted_while_its_payment_processes_stays_deleted_though_it_saves(
    api: Api,
) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    create(api, PROCESSING_CARD, payment_id="pay_1", customer_id="cus_1", setup_future_usage="off_session")
    advance(api, 11)
    pm = retrieve(api, "pay_1")["payment_method_id"]
    paying = {"confirm": True, "setup_future_usage": "off_session", **by_id({"payment_method_id": pm})}
    assert create(api, None, payment_id="pay_2", **paying)["status"] == "processing"
    ok(api.delete(f"/payment_methods/{pm}"))

    advance(api, 11)

    assert retrieve(api, "pay_2")["status"] == "succeeded"
    assert methods_of(api) == []


def test_a_card_saved_again_moves_first_among_its_customer_s_methods(api: Api) -> None:
    method = saved_card(api)
    advance(api, 1)
    other = create(
        api, "5555555555554444", payment_id="pay_2", customer_id="cus_1", setup_future_usage="on_session"
    )
    advance(api, 1)

    create(api, payment_id="pay_3", customer_id="cus_1", setup_future_usage="on_session")

    assert [m["payment_method_id"] for m in methods_of(api)] == [
        method["payment_method_id"],
        other["payment_method_id"],
    ]


def test_one_new_card_in_two_payments_under_way_together_is_saved_by_each(api: Api) -> None:
    # Each confirmation finds no saved card to name: the card is saved when a payment is paid.
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    saves = {"customer_id": "cus_1", "setup_future_usage": "on_session"}
    first = create(api, PROCESSING_CARD, payment_id="pay_1", **saves)
    second = create(api, PROCESSING_CARD, payment_id="pay_2", **saves)

    advance(api, 11)

    assert first["payment_method_id"] != second["payment_method_id"]
    assert sorted(m["payment_method_id"] for m in methods_of(api)) == sorted(
        [first["payment_method_id"], second["payment_method_id"]]
    )


def test_a_card_sent_before_its_payment_asked_to_save_it_is_saved_as_a_method_of_its_own(api: Api) -> None:
    # Sent before the payment asked to save it, the card keeps no digest of its number to match.
    method = saved_card(api)
    create(api, None, payment_id="pay_2", customer_id="cus_1")
    sent = {"payment_method": "card", "payment_method_data": payloads.card(), "billing": payloads.BILLING}
    ok(api.post("/payments/pay_2", sent))
    ok(api.post("/payments/pay_2", {"setup_future_usage": "on_session"}))

    confirmed = ok(api.post("/payments/pay_2/confirm", {}))

    assert confirmed["status"] == "succeeded"
    assert confirmed["payment_method_id"] != method["payment_method_id"]
    assert len(methods_of(api)) == 2


def test_a_card_saved_before_and_saved_with_post_payment_methods_is_a_new_method(api: Api) -> None:
    method = saved_card(api)
    card = {k: v for k, v in payloads.card()["card"].items() if k != "card_cvc"}

    created = ok(
        api.post(
            "/payment_methods",
            {"customer_id": "cus_1", "payment_method": "card", "card": {**card, "card_holder_name": "Ann"}},
        )
    )

    assert created["payment_method_id"] != method["payment_method_id"]
    assert len(methods_of(api)) == 2
