"""Merchant-initiated payments of what `recurring_details` carries, with no saved method or mandate: a
card or a network token with the network's id of an earlier customer-initiated payment, or a
processor's token of a method mocksrv never saw."""

from __future__ import annotations

from typing import Any

import pytest

from tests import payloads
from tests.api.expected import card_data, card_payment, error, invalid, malformed, missing
from tests.api.scenarios import (
    CHALLENGE_CARD,
    DECLINE_CARD,
    PROCESSING_CARD,
    advance,
    ok,
    payment_count,
    retrieve,
)
from tests.conftest import Api
from tests.payloads import PROFILE_ID

pytestmark = pytest.mark.usefixtures("frozen")

CARD = "4242424242424242"
TOKEN = "4604000460040787"  # a network token: a Visa number that no rule names, so success
NETWORK_TRANSACTION_ID = "MCC5ZRGMI0925"
CARD_DETAILS = "network_transaction_id_and_card_details"
TOKEN_DETAILS = "network_transaction_id_and_network_token_details"
PROCESSOR_TOKEN = "processor_payment_token"


def card_details(number: str = CARD, **changes: Any) -> dict[str, Any]:
    return {
        "card_number": number,
        "card_exp_month": "10",
        "card_exp_year": "2030",
        "card_holder_name": "Ada Lovelace",
        "network_transaction_id": NETWORK_TRANSACTION_ID,
        **changes,
    }


def token_details(token: str = TOKEN, **changes: Any) -> dict[str, Any]:
    return {
        "network_token": token,
        "token_exp_month": "10",
        "token_exp_year": "2030",
        "card_holder_name": "Ada Lovelace",
        "network_transaction_id": NETWORK_TRANSACTION_ID,
        **changes,
    }


DETAILS = {CARD_DETAILS: card_details, TOKEN_DETAILS: token_details}


def charge_body(kind: str, data: Any, payment_id: str = "pay_mit", **fields: Any) -> dict[str, Any]:
    """A one-step merchant-initiated charge of what `recurring_details` of type `kind` carries."""
    return {
        "payment_id": payment_id,
        "amount": 1000,
        "currency": "USD",
        "profile_id": PROFILE_ID,
        "confirm": True,
        "off_session": True,
        "recurring_details": {"type": kind, "data": data},
        **fields,
    }


def charged_card(number: str) -> dict[str, Any]:
    """What the payment shows of the card or token it charged: its summary, nothing checked."""
    shown = card_data(number, exp_month="10", exp_year="2030", card_type=None)
    shown["card"]["card_holder_name"] = "Ada Lovelace"
    shown["card"]["payment_checks"] = dict.fromkeys(shown["card"]["payment_checks"], "unavailable")
    return shown


def mit_payment(now: str, **changes: Any) -> dict[str, Any]:
    """The body of a successful `charge_body` payment at `now`; `changes` override."""
    return card_payment(
        now,
        "pay_mit",
        **{
            "payment_method_type": None,
            "billing": None,
            "return_url": None,
            "off_session": True,
            **changes,
        },
    )


@pytest.mark.parametrize(("kind", "number"), [(CARD_DETAILS, CARD), (TOKEN_DETAILS, TOKEN)])
def test_a_card_or_network_token_with_a_network_transaction_id_is_charged_and_only_its_summary_kept(
    api: Api, frozen: str, kind: str, number: str
) -> None:
    response = api.post("/payments", charge_body(kind, DETAILS[kind](number)))

    assert response.status_code == 200
    assert response.json == mit_payment(frozen, payment_method_data=charged_card(number))
    assert retrieve(api, "pay_mit") == response.json
    for shown in (response.get_data(as_text=True), str(retrieve(api, "pay_mit"))):
        assert number not in shown
        assert NETWORK_TRANSACTION_ID not in shown
    journal = str(ok(api.get("/__mock/requests?limit=1")))
    assert number not in journal


@pytest.mark.parametrize("kind", [CARD_DETAILS, TOKEN_DETAILS])
@pytest.mark.parametrize(
    ("number", "status", "error_code"),
    [
        (CARD, "succeeded", None),
        (DECLINE_CARD, "failed", "card_declined"),
        # Without the customer, nobody can pass a challenge; nor may a payment count on them.
        (CHALLENGE_CARD, "failed", "authentication_required"),
        ("4000000000000341", "failed", "insufficient_funds"),
        (PROCESSING_CARD, "processing", None),
    ],
)
def test_the_number_s_magic_value_decides_as_for_a_card_charged_without_the_customer(
    api: Api, kind: str, number: str, status: str, error_code: str | None
) -> None:
    payment = ok(api.post("/payments", charge_body(kind, DETAILS[kind](number))))

    assert (payment["status"], payment["error_code"]) == (status, error_code)
    assert payment["payment_method_data"]["card"]["last4"] == number[-4:]


def test_a_charge_of_card_details_created_unconfirmed_turns_out_at_its_confirmation(api: Api) -> None:
    created = ok(
        api.post("/payments", charge_body(CARD_DETAILS, card_details(PROCESSING_CARD), confirm=False))
    )
    assert created["status"] == "requires_confirmation"

    confirmed = ok(api.post("/payments/pay_mit/confirm", {}))

    assert confirmed["status"] == "processing"
    advance(api, 10)
    assert retrieve(api, "pay_mit")["status"] == "succeeded"


def test_a_processor_token_is_charged_without_the_customer_and_not_kept(api: Api, frozen: str) -> None:
    token = "pm_1Q0PsIJAbcd1234"
    data = {"processor_payment_token": token, "merchant_connector_id": "mca_1"}

    response = api.post("/payments", charge_body(PROCESSOR_TOKEN, data, payment_method="card"))

    assert response.status_code == 200
    assert response.json == mit_payment(frozen, payment_method_data=None)
    assert token not in response.get_data(as_text=True)
    assert token not in str(retrieve(api, "pay_mit"))
    [entry] = [entry for entry in ok(api.get("/__mock/requests"))["data"] if entry["method"] == "POST"]
    assert entry["request_body"]["recurring_details"]["data"] == {
        "processor_payment_token": "*" * (len(token) - 4) + "1234",
        "merchant_connector_id": "mca_1",
    }


def test_a_processor_token_pays_as_the_method_the_request_names(api: Api) -> None:
    body = charge_body(
        PROCESSOR_TOKEN,
        {"processor_payment_token": "tok_wallet"},
        payment_method="wallet",
        payment_method_type="google_pay",
    )

    payment = ok(api.post("/payments", body))

    assert (payment["status"], payment["payment_method"], payment["payment_method_type"]) == (
        "succeeded",
        "wallet",
        "google_pay",
    )


def test_a_processor_token_containing_decline_is_declined(api: Api) -> None:
    body = charge_body(PROCESSOR_TOKEN, {"processor_payment_token": "tok_DECLINE_1"})

    payment = ok(api.post("/payments", body))

    assert (payment["status"], payment["error_code"], payment["error_message"]) == (
        "failed",
        "card_declined",
        "Your card was declined.",
    )


_DATA = "recurring_details.data"


def _without(data: dict[str, Any], name: str) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != name}


@pytest.mark.parametrize(
    ("kind", "data", "expected"),
    [
        *(
            pytest.param(
                kind, _without(DETAILS[kind](), name), missing(f"{_DATA}.{name}"), id=f"{kind} without {name}"
            )
            for kind in DETAILS
            for name in DETAILS[kind]()
        ),
        pytest.param(
            PROCESSOR_TOKEN, {}, missing(f"{_DATA}.processor_payment_token"), id="no processor token"
        ),
        pytest.param(
            CARD_DETAILS,
            card_details(network_transaction_id=""),
            invalid(f"{_DATA}.network_transaction_id", "length must be between 1 and 255"),
            id="an empty network transaction id",
        ),
        pytest.param(
            PROCESSOR_TOKEN,
            {"processor_payment_token": ""},
            invalid(f"{_DATA}.processor_payment_token", "length must be between 1 and 255"),
            id="an empty processor token",
        ),
        pytest.param(
            CARD_DETAILS,
            card_details("4242424242424241"),
            invalid(f"{_DATA}.card_number", "the card number is not valid"),
            id="a card number failing the Luhn check",
        ),
        pytest.param(
            TOKEN_DETAILS,
            token_details("4604000460040788"),
            invalid(f"{_DATA}.network_token", "the card number is not valid"),
            id="a network token failing the Luhn check",
        ),
        pytest.param(
            CARD_DETAILS,
            card_details(card_exp_month="13"),
            invalid(f"{_DATA}.card_exp_month", "a month from 01 to 12"),
            id="a card's month 13",
        ),
        pytest.param(
            TOKEN_DETAILS,
            token_details(token_exp_year="2020"),
            invalid(f"{_DATA}.token_exp_year", "the card has expired"),
            id="an expired network token",
        ),
        pytest.param(CARD_DETAILS, CARD, invalid(_DATA, "invalid input type"), id="card details as text"),
        pytest.param(
            PROCESSOR_TOKEN, "tok_1", invalid(_DATA, "invalid input type"), id="a bare processor token"
        ),
        pytest.param(
            "mandate_id", {"id": "man_1"}, invalid(_DATA, "not a valid string"), id="a mandate as an object"
        ),
        pytest.param(
            CARD_DETAILS,
            card_details(card_cvc="123"),
            malformed(f"unknown field `{_DATA}.card_cvc`"),
            id="a CVC, which a charge without the customer has not",
        ),
    ],
)
def test_a_bad_recurring_detail_is_refused_naming_its_field_and_nothing_is_stored(
    api: Api, kind: str, data: Any, expected: dict[str, Any]
) -> None:
    response = api.post("/payments", charge_body(kind, data))

    assert (response.status_code, response.json) == (400, expected)
    assert payment_count(api) == 0


def test_card_details_for_another_method_are_refused(api: Api) -> None:
    response = api.post("/payments", charge_body(CARD_DETAILS, card_details(), payment_method="wallet"))

    assert response.status_code == 400
    assert response.json == invalid(
        "payment_method", f"recurring_details of type {CARD_DETAILS} charge a card"
    )
    assert payment_count(api) == 0


def test_card_details_beside_method_data_are_refused(api: Api) -> None:
    body = charge_body(
        CARD_DETAILS, card_details(), payment_method_data=payloads.card(), billing=payloads.BILLING
    )

    response = api.post("/payments", body)

    assert response.status_code == 400
    assert response.json == error(
        "IR_04",
        "Invalid value provided: payment_method_data: recurring_details names what to pay with already: "
        "send one of them",
        "payment_method_data",
    )
    assert payment_count(api) == 0


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        (CARD_DETAILS, card_details()),
        (TOKEN_DETAILS, token_details()),
        (PROCESSOR_TOKEN, {"processor_payment_token": "tok_1"}),
    ],
)
def test_the_customer_s_browser_cannot_charge_without_the_customer(
    api: Api, browser: Api, kind: str, data: dict[str, Any]
) -> None:
    created = ok(api.post("/payments", payloads.payment(None, payment_id="pay_1")))
    confirmation = {
        "client_secret": created["client_secret"],
        "recurring_details": {"type": kind, "data": data},
    }

    response = browser.post("/payments/pay_1/confirm", confirmation)

    assert (response.status_code, response.json) == (
        400,
        invalid(
            "recurring_details.type", f"{kind} charges without the customer: send it with the secret key"
        ),
    )
    assert retrieve(api, "pay_1") == created


@pytest.mark.parametrize(
    "setup",
    [
        {"setup_future_usage": "off_session", "customer_id": "cus_1"},
        {"setup_future_usage": "on_session", "customer_id": "cus_1"},
    ],
)
def test_a_processor_token_saves_nothing(api: Api, setup: dict[str, Any]) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    body = charge_body(PROCESSOR_TOKEN, {"processor_payment_token": "tok_1"}, **setup)

    response = api.post("/payments", body)

    assert (response.status_code, response.json) == (
        400,
        invalid(
            "setup_future_usage",
            "a processor's token saves no method and sets up no mandate: nothing is known of it",
        ),
    )
    assert payment_count(api) == 0
    assert ok(api.get("/customers/cus_1/payment_methods"))["customer_payment_methods"] == []
