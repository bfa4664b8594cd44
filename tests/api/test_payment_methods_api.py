"""The saved-payment-method routes: create, retrieve, update and delete a method, a customer's list
and default method, the two lists a checkout page reads with the publishable key, and a card saved
by a payment that asked for it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mocksrv.api import real_values
from tests import payloads
from tests.api.conftest import OtherMerchant
from tests.api.expected import (
    RETURN_URL,
    UNAUTHORIZED,
    Matches,
    case_id,
    error,
    invalid,
    invalid_for_any_reason,
    later,
    missing,
)
from tests.api.scenarios import DECLINE_CARD, advance, create, ok, retrieve
from tests.conftest import Api
from tests.payloads import BILLING, MERCHANT_ID, PROFILE_ID, PUBLISHABLE_KEY

pytestmark = pytest.mark.usefixtures("frozen")

GENERATED_PM_ID = Matches(r"pm_[A-Za-z0-9]{20}")
GENERATED_TOKEN = Matches(r"token_[A-Za-z0-9]{20}")
GENERATED_CLIENT_SECRET = Matches(r"secret_[A-Za-z0-9]{23}")  # 30 characters
METHOD_NOT_FOUND = error("HE_02", "Payment method does not exist in our records")
CUSTOMER_NOT_FOUND = error("HE_02", "Customer does not exist in our records")
NO_SUCH_CUSTOMER = invalid("customer_id", "no such customer; create it with POST /customers first")
REFUSED_KEY = error("IR_01", UNAUTHORIZED)
HOUR = 3600
CLIENT_SECRET_MISSING = error("IR_08", "Missing required param: client_secret", "client_secret")
CLIENT_SECRET_WRONG = error(
    "IR_09",
    "The client_secret provided does not match the client_secret associated with the Payment",
    "client_secret",
)
METHOD_CLIENT_SECRET_WRONG = error(
    "IR_09",
    "The client_secret provided does not match the client_secret associated with the Payment method",
    "client_secret",
)
CLIENT_SECRET_EXPIRED = error("IR_08", "The provided client_secret has expired", "client_secret")
FIFTEEN_MINUTES = 15 * 60
BROWSER_ROUTES = ("/customers/payment_methods", "/account/payment_methods")

CARD: dict[str, Any] = {
    "card_number": "4242424242424242",
    "card_exp_month": "3",
    "card_exp_year": "30",
    "card_holder_name": "Ada Lovelace",
    "card_cvc": "123",
    "nick_name": "Everyday card",
}
FULL: dict[str, Any] = {
    "payment_method": "card",
    "payment_method_type": "credit",
    "customer_id": "cus_1",
    "card": CARD,
    "metadata": {"crm_id": "42"},
    "billing": copy.deepcopy(BILLING),
}
CARD_UPDATE = {"card_exp_month": "01", "card_exp_year": "2040", "card_holder_name": "Ada Lovelace"}
MANDATE_DATA: dict[str, Any] = {
    "customer_acceptance": {
        "acceptance_type": "online",
        "online": {"ip_address": "127.0.0.1", "user_agent": "Mozilla/5.0"},
    },
    "mandate_type": {"multi_use": {"amount": 5000, "currency": "USD"}},
}


# -- what the API answers ---------------------------------------------------------------------


def locker_card(
    last4: str = "4242",
    *,
    isin: str = "424242",
    month: str = "03",
    year: str = "2030",
    holder: str | None = "Ada Lovelace",
    nick_name: str | None = "Everyday card",
    card_type: str | None = "credit",
) -> dict[str, Any]:
    """A saved Visa card as the API shows it: never its number or CVC."""
    return {
        "scheme": "Visa",
        "issuer_country": "US",
        "issuer_country_code": "US",
        "last4_digits": last4,
        "expiry_month": month,
        "expiry_year": year,
        "card_token": None,
        "card_holder_name": holder,
        "card_fingerprint": None,
        "nick_name": nick_name,
        "card_network": "Visa",
        "card_isin": isin,
        "card_issuer": "mocksrv test bank",
        "card_type": card_type,
        "saved_to_locker": True,
    }


def payment_method(now: str, **changes: Any) -> dict[str, Any]:
    """The answer to POST /payment_methods with FULL at `now`; `changes` override."""
    body: dict[str, Any] = {
        "merchant_id": MERCHANT_ID,
        "customer_id": "cus_1",
        "payment_method_id": GENERATED_PM_ID,
        "payment_method": "card",
        "payment_method_type": "credit",
        "card": locker_card(),
        "recurring_enabled": True,
        "installment_payment_enabled": False,
        "payment_experience": None,
        "metadata": {"crm_id": "42"},
        "created": now,
        "bank_transfer": None,
        "last_used_at": None,
        "client_secret": GENERATED_CLIENT_SECRET,
    }
    body.update(changes)
    return body


def listed(method: dict[str, Any], *, default: bool = False, **changes: Any) -> dict[str, Any]:
    """A method's entry in a customer's list, from the method's own body; `changes` override."""
    body: dict[str, Any] = {
        "payment_token": GENERATED_TOKEN,
        "payment_method_id": method["payment_method_id"],
        "customer_id": method["customer_id"],
        "payment_method": method["payment_method"],
        "payment_method_type": method["payment_method_type"],
        "payment_method_issuer": None,
        "payment_method_issuer_code": None,
        "recurring_enabled": method["recurring_enabled"],
        "installment_payment_enabled": False,
        "payment_experience": None,
        "card": method["card"],
        "metadata": method["metadata"],
        "created": method["created"],
        "bank_transfer": method["bank_transfer"],
        "bank": None,
        "surcharge_details": None,
        "requires_cvv": method["card"] is not None,
        "last_used_at": method["last_used_at"],
        "default_payment_method_set": default,
        "billing": None,
    }
    body.update(changes)
    return body


def saved_list(*entries: dict[str, Any], guest: bool = False) -> dict[str, Any]:
    return {"customer_payment_methods": list(entries), "is_guest_customer": guest}


def method_type(method: str, name: str) -> dict[str, Any]:
    """A method type a checkout page may offer: a card type lists every card network."""
    networks = ("Visa", "Mastercard", "AmericanExpress", "Discover", "JCB", "DinersClub", "UnionPay")
    return {
        "payment_method_type": name,
        "payment_experience": None,
        "card_networks": [
            {"card_network": n, "surcharge_details": None, "eligible_connectors": ["mocksrv"]}
            for n in networks
        ]
        if method == "card"
        else None,
        "bank_names": None,
        "bank_debits": None,
        "bank_transfers": None,
        "required_fields": None,
        "surcharge_details": None,
        "pm_auth_connector": None,
    }


def offered(method: str, *types: str) -> dict[str, Any]:
    return {"payment_method": method, "payment_method_types": [method_type(method, t) for t in types]}


EVERY_METHOD = [
    offered("card", "credit", "debit"),
    offered("pay_later", "klarna", "affirm", "afterpay_clearpay"),
    offered("bank_redirect", "ideal", "eps", "giropay", "sofort", "przelewy24"),
    offered("wallet", "apple_pay", "google_pay", "paypal"),
    offered("bank_transfer", "ach", "sepa", "bacs"),
    offered("crypto", "crypto_currency"),
]


def account_methods(**changes: Any) -> dict[str, Any]:
    """GET /account/payment_methods of a plain USD payment with RETURN_URL; `changes` override."""
    body: dict[str, Any] = {
        "redirect_url": RETURN_URL,
        "currency": "USD",
        "payment_methods": EVERY_METHOD,
        "mandate_payment": None,
        "merchant_name": "default",
        "show_surcharge_breakup_screen": False,
        "payment_type": "normal",
        "request_external_three_ds_authentication": False,
        "collect_shipping_details_from_wallets": False,
        "collect_billing_details_from_wallets": False,
        "is_tax_calculation_enabled": False,
        "sdk_next_action": {"next_action": "confirm"},
        "is_guest_customer": False,
    }
    body.update(changes)
    return body


# -- steps ------------------------------------------------------------------------------------


def add_customer(api: Api, customer_id: str = "cus_1") -> None:
    ok(api.post("/customers", {"customer_id": customer_id}))


def save_card(api: Api, customer_id: str = "cus_1", **card: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "payment_method": "card",
        "payment_method_type": "credit",
        "customer_id": customer_id,
        "card": {**CARD, **card},
    }
    return ok(api.post("/payment_methods", body))


def save_bank_transfer(api: Api, customer_id: str = "cus_1") -> dict[str, Any]:
    body = {
        "payment_method": "bank_transfer",
        "customer_id": customer_id,
        "bank_transfer": {"bank_account_number": "000123456789", "bank_routing_number": "110000000"},
    }
    return ok(api.post("/payment_methods", body))


def methods_of(api: Api, customer_id: str = "cus_1") -> dict[str, Any]:
    return ok(api.get(f"/customers/{customer_id}/payment_methods"))


def token_of(api: Api, payment_method_id: str, customer_id: str = "cus_1") -> str:
    [token] = [
        m["payment_token"]
        for m in methods_of(api, customer_id)["customer_payment_methods"]
        if m["payment_method_id"] == payment_method_id
    ]
    return str(token)


def ephemeral(api: Api, customer_id: str = "cus_1") -> Api:
    """The client with an ephemeral key of the customer, as a browser SDK holds one."""
    key = ok(api.post("/ephemeral_keys", {"customer_id": customer_id}))
    return api.as_key(key["secret"])


def pay_with_token(api: Api, token: str, payment_id: str) -> dict[str, Any]:
    return ok(
        api.post(
            "/payments",
            payloads.payment(
                None, payment_id=payment_id, customer_id="cus_1", payment_token=token, confirm=True
            ),
        )
    )


# -- create -----------------------------------------------------------------------------------


def test_create_a_card_with_every_field_keeps_them_but_the_number_and_cvc(api: Api, frozen: str) -> None:
    add_customer(api)

    response = api.post("/payment_methods", FULL)

    assert response.status_code == 200
    assert response.json == payment_method(frozen)


def test_a_created_card_is_retrieved_as_created(api: Api) -> None:
    add_customer(api)
    created = ok(api.post("/payment_methods", FULL))

    response = api.get(f"/payment_methods/{created['payment_method_id']}")

    assert response.status_code == 200
    assert response.json == created


def test_a_created_card_is_listed_on_its_customer_with_its_billing(api: Api) -> None:
    add_customer(api)
    created = ok(api.post("/payment_methods", FULL))

    response = api.get("/customers/cus_1/payment_methods")

    assert response.status_code == 200
    assert response.json == saved_list(listed(created, billing=BILLING))


def test_a_card_sent_as_the_real_service_s_payment_method_data_is_saved_as_one_sent_beside_it(
    api: Api, frozen: str
) -> None:
    add_customer(api)
    beside = ok(api.post("/payment_methods", {**FULL, "customer_id": "cus_1"}))
    body = {key: value for key, value in FULL.items() if key != "card"}

    inside = ok(api.post("/payment_methods", {**body, "payment_method_data": {"card": CARD}}))

    differing = ("payment_method_id", "payment_token", "client_secret")
    assert {k: v for k, v in inside.items() if k not in differing} == {
        k: v for k, v in beside.items() if k not in differing
    }
    expired = {**CARD, "card_exp_year": "2001"}
    assert api.post("/payment_methods", {**body, "payment_method_data": {"card": expired}}).json == invalid(
        "payment_method_data.card.card_exp_year", "the card has expired"
    )


@pytest.mark.parametrize(
    "billing",
    [
        {"email": "ada@example.com"},
        {"address": {"city": "London", "country": "GB"}},
        {"phone": {"number": "4155550100"}, "address": None},
    ],
)
def test_a_saved_method_s_billing_is_the_real_service_s_address_every_part_optional(
    api: Api, billing: dict[str, Any]
) -> None:
    add_customer(api)

    ok(api.post("/payment_methods", {**FULL, "billing": billing}))

    (saved,) = ok(api.get("/customers/cus_1/payment_methods"))["customer_payment_methods"]
    assert saved["billing"] == {key: value for key, value in billing.items() if value is not None}


def test_a_created_method_s_issuer_and_issuer_code_are_listed_on_its_customer(api: Api) -> None:
    add_customer(api)
    issuer = {"payment_method_issuer": "HDFC Bank", "payment_method_issuer_code": "jp_hdfc"}

    created = ok(api.post("/payment_methods", {**FULL, **issuer}))

    assert methods_of(api) == saved_list(listed(created, billing=BILLING, **issuer))


def test_create_a_card_without_cvc_saves_it_the_same(api: Api, frozen: str) -> None:
    add_customer(api)
    card = {name: value for name, value in CARD.items() if name != "card_cvc"}

    response = api.post("/payment_methods", {**FULL, "card": card})

    assert response.status_code == 200
    assert response.json == payment_method(frozen)


def test_create_a_card_with_only_the_required_fields(api: Api, frozen: str) -> None:
    add_customer(api)
    card = {"card_number": "4242424242424242", "card_exp_month": "12", "card_exp_year": "2099"}

    response = api.post(
        "/payment_methods",
        {"payment_method": "card", "customer_id": "cus_1", "card": {**card, "card_holder_name": "Ada"}},
    )

    assert response.status_code == 200
    assert response.json == payment_method(
        frozen,
        payment_method_type=None,
        metadata=None,
        card=locker_card(month="12", year="2099", holder="Ada", nick_name=None, card_type=None),
    )


def test_create_a_debit_card_shows_its_type(api: Api, frozen: str) -> None:
    add_customer(api)

    response = api.post(
        "/payment_methods",
        {**FULL, "payment_method_type": "debit", "card": {**CARD, "card_number": "4000056655665556"}},
    )

    assert response.status_code == 200
    assert response.json == payment_method(
        frozen, payment_method_type="debit", card=locker_card("5556", isin="400005", card_type="debit")
    )


def test_create_a_bank_transfer_keeps_only_the_account_numbers_last_four(api: Api, frozen: str) -> None:
    add_customer(api)
    body = {
        "payment_method": "bank_transfer",
        "payment_method_type": "ach",
        "customer_id": "cus_1",
        "bank_transfer": {"bank_account_number": "000123456789", "bank_routing_number": "110000000"},
    }

    response = api.post("/payment_methods", body)

    assert response.status_code == 200
    expected = payment_method(
        frozen,
        payment_method="bank_transfer",
        payment_method_type="ach",
        card=None,
        metadata=None,
        bank_transfer={"bank_account_number": "****6789", "bank_routing_number": "110000000"},
    )
    assert response.json == expected
    assert ok(api.get(f"/payment_methods/{response.json['payment_method_id']}")) == expected
    assert methods_of(api) == saved_list(listed(expected))


@pytest.mark.parametrize(
    ("bank_transfer", "expected"),
    [
        ({"foo": "bar"}, error("IR_06", "Json deserialize error: unknown field `bank_transfer.foo`")),
        ({"bank_account_number": "000123456789"}, missing("bank_transfer.bank_routing_number")),
        ({"iban": "DE89370400440532013000"}, missing("bank_transfer.bic")),
        (
            {"bank_account_number": "12", "bank_routing_number": "110000000"},
            invalid_for_any_reason("bank_transfer.bank_account_number"),
        ),
    ],
    ids=case_id,
)
def test_a_bank_transfer_to_save_is_checked_as_the_real_services_bank(
    api: Api, bank_transfer: dict[str, Any], expected: dict[str, Any]
) -> None:
    add_customer(api)
    body = {"payment_method": "bank_transfer", "customer_id": "cus_1", "bank_transfer": bank_transfer}

    response = api.post("/payment_methods", body)

    assert (response.status_code, response.json) == (400, expected)
    assert methods_of(api) == saved_list()


def test_create_a_sepa_bank_transfer_cuts_the_iban(api: Api, frozen: str) -> None:
    add_customer(api)
    body = {
        "payment_method": "bank_transfer",
        "payment_method_type": "sepa",
        "customer_id": "cus_1",
        "bank_transfer": {"iban": "DE89370400440532013000", "bic": "DEUTDEFF"},
    }

    response = api.post("/payment_methods", body)

    assert response.status_code == 200
    assert response.json == payment_method(
        frozen,
        payment_method="bank_transfer",
        payment_method_type="sepa",
        card=None,
        metadata=None,
        bank_transfer={"iban": "****3000", "bic": "DEUTDEFF"},
    )


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ({}, missing("customer_id")),
        ({"customer_id": None}, invalid("customer_id", "field may not be null")),
    ],
    ids=["absent", "null"],
)
def test_create_without_a_customer_is_ir_04_and_saves_nothing(
    api: Api, sent: dict[str, Any], expected: dict[str, Any]
) -> None:
    add_customer(api)
    body = {**{k: v for k, v in FULL.items() if k != "customer_id"}, **sent}

    response = api.post("/payment_methods", body)

    assert response.status_code == 400
    assert response.json == expected
    assert methods_of(api) == saved_list()


def test_create_for_an_unknown_customer_is_ir_04_and_saves_nothing(api: Api) -> None:
    add_customer(api)

    response = api.post("/payment_methods", {**FULL, "customer_id": "cus_missing"})

    assert response.status_code == 400
    assert response.json == NO_SUCH_CUSTOMER
    assert methods_of(api) == saved_list()


def test_create_for_a_deleted_customer_is_ir_04(api: Api) -> None:
    add_customer(api)
    ok(api.delete("/customers/cus_1"))

    response = api.post("/payment_methods", FULL)

    assert response.status_code == 400
    assert response.json == NO_SUCH_CUSTOMER


@pytest.mark.parametrize(
    ("card", "expected"),
    [
        ({"card_number": "4242424242424241"}, invalid("card.card_number", "the card number is not valid")),
        ({"card_number": "42424242"}, invalid("card.card_number", "the card number is not valid")),
        ({"card_number": "4242abcd42424242"}, invalid("card.card_number", "the card number is not valid")),
        ({"card_exp_year": "2020"}, invalid("card.card_exp_year", "the card has expired")),
        ({"card_exp_year": "20"}, invalid("card.card_exp_year", "the card has expired")),
        ({"card_exp_year": "203"}, invalid("card.card_exp_year", "a year of two or four digits")),
        ({"card_exp_month": "13"}, invalid("card.card_exp_month", "a month from 01 to 12")),
        ({"card_exp_month": "00"}, invalid("card.card_exp_month", "a month from 01 to 12")),
        ({"card_cvc": "12"}, invalid("card.card_cvc", "three or four digits")),
        ({"card_cvc": "12a"}, invalid("card.card_cvc", "three or four digits")),
    ],
    ids=case_id,
)
def test_create_with_a_bad_card_is_ir_04_and_saves_nothing(
    api: Api, card: dict[str, str], expected: dict[str, Any]
) -> None:
    add_customer(api)

    response = api.post("/payment_methods", {**FULL, "card": {**CARD, **card}})

    assert response.status_code == 400
    assert response.json == expected
    assert methods_of(api) == saved_list()


@pytest.mark.parametrize("field", ["card_number", "card_exp_month", "card_exp_year", "card_holder_name"])
def test_create_without_a_required_card_field_is_ir_04(api: Api, field: str) -> None:
    add_customer(api)
    card = {name: value for name, value in CARD.items() if name != field}

    response = api.post("/payment_methods", {**FULL, "card": card})

    assert response.status_code == 400
    assert response.json == missing(f"card.{field}")
    assert methods_of(api) == saved_list()


def test_create_a_card_method_without_a_card_is_ir_04(api: Api) -> None:
    add_customer(api)
    body = {name: value for name, value in FULL.items() if name != "card"}

    response = api.post("/payment_methods", body)

    assert response.status_code == 400
    assert response.json == missing("card")
    assert methods_of(api) == saved_list()


def test_create_a_bank_transfer_without_its_details_is_ir_04(api: Api) -> None:
    add_customer(api)

    response = api.post("/payment_methods", {"payment_method": "bank_transfer", "customer_id": "cus_1"})

    assert response.status_code == 400
    assert response.json == error(
        "IR_04",
        "Missing required param: bank_transfer: the bank_transfer details of the payment method",
        "bank_transfer",
    )
    assert methods_of(api) == saved_list()


@pytest.mark.parametrize(
    "method",
    [m for m in real_values.PAYMENT_METHODS if m not in ("card", "bank_transfer", "bank_debit", "wallet")],
)
def test_create_a_method_that_cannot_be_saved_is_ir_04_naming_those_that_can(api: Api, method: str) -> None:
    add_customer(api)

    response = api.post("/payment_methods", {"payment_method": method, "customer_id": "cus_1"})

    assert response.status_code == 400
    assert response.json == invalid("payment_method", "card or one of bank_transfer, bank_debit, wallet")
    assert methods_of(api) == saved_list()


OTHER_CARD = {
    "card_number": "5555555555554444",
    "card_exp_month": "12",
    "card_exp_year": "2099",
    "card_holder_name": "Other",
}
BANK_ACCOUNT = {"bank_account_number": "000123456789", "bank_routing_number": "110000000"}


@pytest.mark.parametrize(
    ("sent", "second", "first"),
    [
        ({"payment_method_data": {"card": OTHER_CARD}}, "payment_method_data.card", "card"),
        ({"bank_transfer": BANK_ACCOUNT}, "bank_transfer", "card"),
        ({"wallet": {"paypal": {}}}, "wallet", "card"),
        ({"payment_method_data": {"wallet": {"paypal": {}}}}, "payment_method_data.wallet", "card"),
    ],
    ids=["the card inside too", "a bank transfer", "a wallet", "a wallet inside"],
)
def test_create_with_the_details_of_two_methods_is_ir_04_naming_the_second_and_saves_nothing(
    api: Api, sent: dict[str, Any], second: str, first: str
) -> None:
    add_customer(api)

    response = api.post("/payment_methods", {**FULL, **sent})

    assert response.status_code == 400
    assert response.json == invalid(second, f"{first} names the method to save already: send one of them")
    assert methods_of(api) == saved_list()


def test_create_with_a_card_inside_and_details_of_another_kind_inside_is_ir_04(api: Api) -> None:
    add_customer(api)
    body = {key: value for key, value in FULL.items() if key != "card"}
    inside = {"card": CARD, "bank_transfer": BANK_ACCOUNT}

    response = api.post("/payment_methods", {**body, "payment_method_data": inside})

    assert response.status_code == 400
    assert response.json == invalid(
        "payment_method_data.bank_transfer",
        "payment_method_data.card names the method to save already: send one of them",
    )
    assert methods_of(api) == saved_list()


def test_create_without_payment_method_is_ir_04(api: Api) -> None:
    response = api.post("/payment_methods", {"card": CARD})

    assert response.status_code == 400
    assert response.json == missing("payment_method")


# -- retrieve ---------------------------------------------------------------------------------


def test_retrieve_an_unknown_method_is_he_02(api: Api) -> None:
    response = api.get("/payment_methods/pm_missing")

    assert response.status_code == 404
    assert response.json == METHOD_NOT_FOUND


def test_another_merchant_cannot_see_the_method(api: Api, other_merchant: OtherMerchant) -> None:
    add_customer(api)
    created = save_card(api)

    response = other_merchant.api.get(f"/payment_methods/{created['payment_method_id']}")

    assert response.status_code == 404
    assert response.json == METHOD_NOT_FOUND


# -- update -----------------------------------------------------------------------------------


def test_update_sets_a_new_expiry_holder_and_nick_name(api: Api, frozen: str) -> None:
    add_customer(api)
    created = save_card(api)
    advance(api, 30)
    path = f"/payment_methods/{created['payment_method_id']}"

    response = api.post(
        f"{path}/update",
        {
            "card": {
                "card_exp_month": "7",
                "card_exp_year": "31",
                "card_holder_name": "A. King",
                "nick_name": "Old",
            }
        },
    )

    assert response.status_code == 200
    expected = payment_method(
        frozen,
        payment_method_id=created["payment_method_id"],
        metadata=None,
        card=locker_card(month="07", year="2031", holder="A. King", nick_name="Old"),
    )
    assert response.json == expected
    assert ok(api.get(path)) == expected
    assert methods_of(api) == saved_list(listed(expected))


def test_update_without_a_nick_name_keeps_the_one_saved(api: Api) -> None:
    add_customer(api)
    created = save_card(api)

    response = api.post(
        f"/payment_methods/{created['payment_method_id']}/update",
        {"card": {"card_exp_month": "01", "card_exp_year": "2040", "card_holder_name": "Ada Lovelace"}},
    )

    assert response.status_code == 200
    assert response.json == {**created, "card": locker_card(month="01", year="2040")}


def test_update_without_a_card_changes_nothing(api: Api) -> None:
    add_customer(api)
    created = save_card(api)

    response = api.post(f"/payment_methods/{created['payment_method_id']}/update", {})

    assert response.status_code == 200
    assert response.json == created


@pytest.mark.parametrize(
    ("card", "expected"),
    [
        (
            {"card_exp_month": "01", "card_exp_year": "2020", "card_holder_name": "Ada"},
            invalid("card.card_exp_year", "the card has expired"),
        ),
        (
            {"card_exp_month": "13", "card_exp_year": "2040", "card_holder_name": "Ada"},
            invalid("card.card_exp_month", "a month from 01 to 12"),
        ),
        ({"card_exp_month": "01", "card_exp_year": "2040"}, missing("card.card_holder_name")),
    ],
    ids=case_id,
)
def test_update_with_a_bad_card_changes_nothing(
    api: Api, card: dict[str, str], expected: dict[str, Any]
) -> None:
    add_customer(api)
    created = save_card(api)
    path = f"/payment_methods/{created['payment_method_id']}"

    response = api.post(f"{path}/update", {"card": card})

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get(path)) == created


def test_update_an_unknown_method_is_he_02(api: Api) -> None:
    response = api.post(
        "/payment_methods/pm_missing/update",
        {"card": {"card_exp_month": "01", "card_exp_year": "2040", "card_holder_name": "Ada"}},
    )

    assert response.status_code == 404
    assert response.json == METHOD_NOT_FOUND


def test_the_publishable_key_updates_a_method_with_its_client_secret(
    api: Api, browser: Api, frozen: str
) -> None:
    add_customer(api)
    created = save_card(api)
    path = f"/payment_methods/{created['payment_method_id']}"

    response = browser.post(
        f"{path}/update",
        {"card": {**CARD_UPDATE, "nick_name": "Old"}, "client_secret": created["client_secret"]},
    )

    assert response.status_code == 200
    expected = {**created, "card": locker_card(month="01", year="2040", nick_name="Old")}
    assert response.json == expected
    assert ok(api.get(path)) == expected


def test_a_method_saved_by_a_payment_is_updated_with_its_client_secret(api: Api, browser: Api) -> None:
    add_customer(api)
    paid = create(api, payment_id="pay_1", customer_id="cus_1", setup_future_usage="off_session")
    path = f"/payment_methods/{paid['payment_method_id']}"
    saved = ok(api.get(path))

    response = browser.post(f"{path}/update", {"card": CARD_UPDATE, "client_secret": saved["client_secret"]})

    assert response.status_code == 200
    expected = {**saved, "card": locker_card(month="01", year="2040", holder="Ada Lovelace", nick_name=None)}
    assert response.json == expected
    assert ok(api.get(path)) == expected


@pytest.mark.parametrize("client_secret", [None, "absent"])
def test_the_publishable_key_without_the_client_secret_is_ir_08(
    api: Api, browser: Api, client_secret: str | None
) -> None:
    add_customer(api)
    created = save_card(api)
    path = f"/payment_methods/{created['payment_method_id']}"
    body: dict[str, Any] = {"card": CARD_UPDATE}
    if client_secret != "absent":
        body["client_secret"] = client_secret

    response = browser.post(f"{path}/update", body)

    assert response.status_code == 400
    assert response.json == CLIENT_SECRET_MISSING
    assert ok(api.get(path)) == created


def test_another_methods_client_secret_is_ir_09_with_either_key(api: Api, browser: Api) -> None:
    add_customer(api)
    add_customer(api, "cus_2")
    created = save_card(api)
    sibling = save_bank_transfer(api)
    theirs = save_card(api, "cus_2")
    path = f"/payment_methods/{created['payment_method_id']}"

    answers = [
        browser.post(f"{path}/update", {"card": CARD_UPDATE, "client_secret": sibling["client_secret"]}),
        browser.post(f"{path}/update", {"card": CARD_UPDATE, "client_secret": theirs["client_secret"]}),
        browser.post(f"{path}/update", {"card": CARD_UPDATE, "client_secret": "secret_" + "0" * 23}),
        api.post(f"{path}/update", {"card": CARD_UPDATE, "client_secret": theirs["client_secret"]}),
    ]

    assert [(a.status_code, a.json) for a in answers] == [(400, METHOD_CLIENT_SECRET_WRONG)] * 4
    assert ok(api.get(path)) == created


@pytest.mark.parametrize("client_secret", ["short", "secret_" + "0" * 24, ""])
def test_a_client_secret_of_other_than_30_characters_is_ir_04(
    api: Api, browser: Api, client_secret: str
) -> None:
    add_customer(api)
    created = save_card(api)
    path = f"/payment_methods/{created['payment_method_id']}"
    body = {"card": CARD_UPDATE, "client_secret": client_secret}

    answers = [browser.post(f"{path}/update", body), api.post(f"{path}/update", body)]

    assert [(a.status_code, a.json) for a in answers] == [
        (400, invalid("client_secret", "length must be 30"))
    ] * 2
    assert ok(api.get(path)) == created


@pytest.mark.parametrize(("seconds", "status"), [(FIFTEEN_MINUTES - 1, 200), (FIFTEEN_MINUTES, 400)])
def test_a_methods_client_secret_lives_fifteen_minutes_after_it_was_saved(
    api: Api, browser: Api, seconds: int, status: int
) -> None:
    add_customer(api)
    created = save_card(api)
    path = f"/payment_methods/{created['payment_method_id']}"
    advance(api, seconds)
    body = {"card": CARD_UPDATE, "client_secret": created["client_secret"]}

    answers = [browser.post(f"{path}/update", body), api.post(f"{path}/update", body)]

    assert [a.status_code for a in answers] == [status, status]
    if status == 400:
        assert [a.json for a in answers] == [CLIENT_SECRET_EXPIRED] * 2
        assert ok(api.get(path)) == created
    else:
        assert ok(api.get(path))["card"] == locker_card(month="01", year="2040")


def test_another_merchants_publishable_key_finds_no_method(api: Api, other_merchant: OtherMerchant) -> None:
    add_customer(api)
    created = save_card(api)
    path = f"/payment_methods/{created['payment_method_id']}"
    theirs = api.as_key(other_merchant.credentials["publishable_key"])

    response = theirs.post(f"{path}/update", {"card": CARD_UPDATE, "client_secret": created["client_secret"]})

    assert response.status_code == 404
    assert response.json == METHOD_NOT_FOUND
    assert ok(api.get(path)) == created


def test_the_publishable_key_only_updates_a_method(api: Api, browser: Api) -> None:
    add_customer(api)
    created = save_card(api)
    path = f"/payment_methods/{created['payment_method_id']}"

    answers = [
        browser.get(path),
        browser.delete(path),
        browser.post("/payment_methods", {"payment_method": "card", "card": CARD, "customer_id": "cus_1"}),
    ]

    assert [(a.status_code, a.json) for a in answers] == [(401, REFUSED_KEY)] * 3
    assert methods_of(api) == saved_list(listed(created))


def test_update_a_card_of_a_method_that_is_no_card_is_ir_04(api: Api) -> None:
    add_customer(api)
    created = save_bank_transfer(api)
    path = f"/payment_methods/{created['payment_method_id']}"

    response = api.post(
        f"{path}/update",
        {"card": {"card_exp_month": "01", "card_exp_year": "2040", "card_holder_name": "Ada"}},
    )

    assert response.status_code == 400
    assert response.json == invalid("card", "the payment method is a bank_transfer, not a card")
    assert ok(api.get(path)) == created


@pytest.mark.parametrize("wallet", [{"paypal": {}}, {}], ids=["paypal", "empty"])
def test_update_a_wallet_of_a_method_that_is_no_wallet_is_ir_04(api: Api, wallet: dict[str, Any]) -> None:
    add_customer(api)
    created = save_card(api)
    path = f"/payment_methods/{created['payment_method_id']}"

    response = api.post(f"{path}/update", {"wallet": wallet})

    assert response.status_code == 400
    assert response.json == invalid("wallet", "the payment method is a card, not a wallet")
    assert ok(api.get(path)) == created


def test_update_a_card_with_a_wallet_beside_is_ir_04_and_changes_nothing(api: Api) -> None:
    add_customer(api)
    created = save_card(api)
    path = f"/payment_methods/{created['payment_method_id']}"

    response = api.post(f"{path}/update", {"card": CARD_UPDATE, "wallet": {"paypal": {}}})

    assert response.status_code == 400
    assert response.json == invalid("wallet", "the payment method is a card, not a wallet")
    assert ok(api.get(path)) == created


# -- delete -----------------------------------------------------------------------------------


def test_delete_answers_the_deleted_method(api: Api) -> None:
    add_customer(api)
    created = save_card(api)

    response = api.delete(f"/payment_methods/{created['payment_method_id']}")

    assert response.status_code == 200
    assert response.json == {"payment_method_id": created["payment_method_id"], "deleted": True}


def test_a_deleted_method_is_gone_from_its_customer(api: Api) -> None:
    add_customer(api)
    kept = save_card(api)
    advance(api, 1)
    deleted = save_card(api, card_number="5555555555554444")
    ok(api.delete(f"/payment_methods/{deleted['payment_method_id']}"))

    response = api.get(f"/payment_methods/{deleted['payment_method_id']}")

    assert response.status_code == 404
    assert response.json == METHOD_NOT_FOUND
    assert methods_of(api) == saved_list(listed(kept))


def test_delete_an_unknown_or_deleted_method_is_he_02(api: Api) -> None:
    add_customer(api)
    created = save_card(api)
    ok(api.delete(f"/payment_methods/{created['payment_method_id']}"))

    for payment_method_id in (created["payment_method_id"], "pm_missing"):
        response = api.delete(f"/payment_methods/{payment_method_id}")

        assert response.status_code == 404
        assert response.json == METHOD_NOT_FOUND


def test_a_deleted_default_method_is_no_longer_the_default(api: Api) -> None:
    add_customer(api)
    first = save_card(api)
    advance(api, 1)
    second = save_card(api, card_number="5555555555554444")
    ok(api.post(f"/cus_1/payment_methods/{second['payment_method_id']}/default"))
    assert ok(api.get("/customers/cus_1"))["default_payment_method_id"] == second["payment_method_id"]

    ok(api.delete(f"/payment_methods/{second['payment_method_id']}"))

    assert ok(api.get("/customers/cus_1"))["default_payment_method_id"] is None
    assert methods_of(api) == saved_list(listed(first, default=False))
    # The default can be set again, to the method that is left.
    ok(api.post(f"/cus_1/payment_methods/{first['payment_method_id']}/default"))
    assert methods_of(api) == saved_list(listed(first, default=True))


def test_a_deleted_customers_methods_are_deleted(api: Api) -> None:
    add_customer(api)
    created = save_card(api)

    ok(api.delete("/customers/cus_1"))

    assert api.get(f"/payment_methods/{created['payment_method_id']}").status_code == 404
    add_customer(api)
    assert methods_of(api) == saved_list()


# -- a customer's list ------------------------------------------------------------------------


def test_a_customer_without_methods_lists_none(api: Api) -> None:
    add_customer(api)

    response = api.get("/customers/cus_1/payment_methods")

    assert response.status_code == 200
    assert response.json == saved_list()


def test_the_list_of_an_unknown_customer_is_he_02(api: Api) -> None:
    response = api.get("/customers/cus_missing/payment_methods")

    assert response.status_code == 404
    assert response.json == CUSTOMER_NOT_FOUND


def test_the_list_is_latest_saved_first_and_only_the_customers(api: Api) -> None:
    add_customer(api)
    add_customer(api, "cus_2")
    first = save_card(api)
    advance(api, 1)
    save_card(api, "cus_2")
    advance(api, 1)
    second = save_bank_transfer(api)
    advance(api, 1)
    third = save_card(api, card_number="5555555555554444")

    response = api.get("/customers/cus_1/payment_methods")

    assert response.status_code == 200
    assert response.json == saved_list(listed(third), listed(second), listed(first))
    tokens = [m["payment_token"] for m in response.json["customer_payment_methods"]]
    assert len(set(tokens)) == 3


def test_a_method_used_by_a_payment_moves_first_with_last_used_at(api: Api, frozen: str) -> None:
    add_customer(api)
    first = save_card(api)
    advance(api, 1)
    second = save_card(api, card_number="5555555555554444")
    advance(api, 60)

    paid = pay_with_token(api, token_of(api, first["payment_method_id"]), "pay_1")

    assert (paid["status"], paid["payment_method_id"]) == ("succeeded", first["payment_method_id"])
    used = {**first, "last_used_at": later(frozen, 61)}
    assert methods_of(api) == saved_list(listed(used), listed(second))
    assert ok(api.get(f"/payment_methods/{first['payment_method_id']}")) == used


def test_the_list_shows_the_token_a_payment_pays_with(api: Api) -> None:
    add_customer(api)
    created = save_card(api)
    before = methods_of(api)
    token = token_of(api, created["payment_method_id"])

    paid = pay_with_token(api, token, "pay_1")

    assert paid["status"] == "succeeded"
    assert paid["payment_method_data"]["card"]["last4"] == "4242"
    assert (
        token_of(api, created["payment_method_id"])
        == token
        == before["customer_payment_methods"][0]["payment_token"]
    )


def test_the_list_ignores_the_real_services_filters(api: Api) -> None:
    add_customer(api)
    created = save_card(api)

    response = api.get(
        "/customers/cus_1/payment_methods?payment_method=wallet&installment_payment_enabled=true"
    )

    assert response.status_code == 200
    assert response.json == saved_list(listed(created))


def test_the_list_takes_a_limit_in_the_query(api: Api) -> None:
    add_customer(api)
    created = save_card(api)

    response = api.get("/customers/cus_1/payment_methods?limit=5")

    assert response.status_code == 200
    assert response.json == saved_list(listed(created))


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "limit=ten"])
def test_the_list_refuses_a_limit_that_is_no_number_from_1_to_100(api: Api, query: str) -> None:
    add_customer(api)

    response = api.get(f"/customers/cus_1/payment_methods?{query}")

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason("limit")


def test_the_list_takes_the_secret_key_only(api: Api, browser: Api) -> None:
    add_customer(api)

    response = browser.get("/customers/cus_1/payment_methods")

    assert response.status_code == 401


# -- default method ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["secret", "the customer's ephemeral key"])
def test_set_default_answers_the_method_and_the_list_shows_it(api: Api, key: str) -> None:
    add_customer(api)
    first = save_card(api)
    advance(api, 1)
    second = save_bank_transfer(api)
    setter = api if key == "secret" else ephemeral(api)

    response = setter.post(f"/cus_1/payment_methods/{first['payment_method_id']}/default")

    assert response.status_code == 200
    assert response.json == {
        "default_payment_method_id": first["payment_method_id"],
        "customer_id": "cus_1",
        "payment_method": "card",
        "payment_method_type": "credit",
    }
    assert methods_of(api) == saved_list(listed(second), listed(first, default=True))


def test_a_new_default_replaces_the_old_one(api: Api) -> None:
    add_customer(api)
    first = save_card(api)
    advance(api, 1)
    second = save_bank_transfer(api)
    ok(api.post(f"/cus_1/payment_methods/{first['payment_method_id']}/default"))

    response = api.post(f"/cus_1/payment_methods/{second['payment_method_id']}/default")

    assert response.status_code == 200
    assert response.json == {
        "default_payment_method_id": second["payment_method_id"],
        "customer_id": "cus_1",
        "payment_method": "bank_transfer",
        "payment_method_type": None,
    }
    assert methods_of(api) == saved_list(listed(second, default=True), listed(first))


def test_the_default_set_again_is_ir_16_and_changes_nothing(api: Api) -> None:
    # The real service's document: 400, "Payment Method has already been set as default for that customer".
    add_customer(api)
    first = save_card(api)
    advance(api, 1)
    second = save_bank_transfer(api)
    ok(api.post(f"/cus_1/payment_methods/{first['payment_method_id']}/default"))

    response = api.post(f"/cus_1/payment_methods/{first['payment_method_id']}/default")

    assert response.status_code == 400
    assert response.json == error("IR_16", "Payment Method is already set as default")
    assert methods_of(api) == saved_list(listed(second), listed(first, default=True))
    assert ok(api.get("/customers/cus_1"))["default_payment_method_id"] == first["payment_method_id"]


def test_another_customers_method_as_default_is_ir_04(api: Api) -> None:
    add_customer(api)
    add_customer(api, "cus_2")
    mine = save_card(api)
    theirs = save_card(api, "cus_2")
    ok(api.post(f"/cus_1/payment_methods/{mine['payment_method_id']}/default"))

    response = api.post(f"/cus_1/payment_methods/{theirs['payment_method_id']}/default")

    assert response.status_code == 400
    assert response.json == invalid("payment_method_id", "the payment method is not the customer's")
    assert methods_of(api) == saved_list(listed(mine, default=True))
    assert methods_of(api, "cus_2") == saved_list(listed(theirs))


def test_default_for_an_unknown_customer_is_he_02(api: Api) -> None:
    add_customer(api)
    created = save_card(api)

    response = api.post(f"/cus_missing/payment_methods/{created['payment_method_id']}/default")

    assert response.status_code == 404
    assert response.json == CUSTOMER_NOT_FOUND
    assert methods_of(api) == saved_list(listed(created))


def test_default_of_an_unknown_method_is_he_02(api: Api) -> None:
    add_customer(api)

    response = api.post("/cus_1/payment_methods/pm_missing/default")

    assert response.status_code == 404
    assert response.json == METHOD_NOT_FOUND


def test_another_customers_ephemeral_key_cannot_set_a_default(api: Api) -> None:
    add_customer(api)
    add_customer(api, "cus_2")
    mine = save_card(api)
    theirs = save_card(api, "cus_2")
    other = ephemeral(api, "cus_2")

    answers = [
        other.post(f"/cus_1/payment_methods/{mine['payment_method_id']}/default"),
        other.post(f"/cus_1/payment_methods/{theirs['payment_method_id']}/default"),
    ]

    assert [(a.status_code, a.json) for a in answers] == [(401, REFUSED_KEY), (401, REFUSED_KEY)]
    assert methods_of(api) == saved_list(listed(mine))
    assert methods_of(api, "cus_2") == saved_list(listed(theirs))


@pytest.mark.parametrize(("seconds", "status"), [(HOUR - 1, 200), (HOUR, 401)])
def test_an_ephemeral_key_sets_a_default_only_until_it_expires(api: Api, seconds: int, status: int) -> None:
    add_customer(api)
    created = save_card(api)
    customer = ephemeral(api)
    advance(api, seconds)

    response = customer.post(f"/cus_1/payment_methods/{created['payment_method_id']}/default")

    assert response.status_code == status
    assert methods_of(api) == saved_list(listed(created, default=status == 200))
    if status == 401:
        assert response.json == REFUSED_KEY


def test_a_deleted_ephemeral_key_cannot_set_a_default(api: Api) -> None:
    add_customer(api)
    created = save_card(api)
    key = ok(api.post("/ephemeral_keys", {"customer_id": "cus_1"}))
    ok(api.delete(f"/ephemeral_keys/{key['id']}"))

    response = api.as_key(key["secret"]).post(
        f"/cus_1/payment_methods/{created['payment_method_id']}/default"
    )

    assert response.status_code == 401
    assert response.json == REFUSED_KEY
    assert methods_of(api) == saved_list(listed(created))


@pytest.mark.parametrize(
    "gone", ["DELETE /customers/cus_1", "POST /__mock/reset"], ids=["customer deleted", "merchant reset"]
)
def test_an_ephemeral_key_of_a_customer_gone_cannot_act_for_a_new_one_of_the_same_id(
    api: Api, gone: str
) -> None:
    add_customer(api)
    old = ephemeral(api)
    method, route = gone.split()
    ok(api.delete(route) if method == "DELETE" else api.post(route))
    add_customer(api)
    created = save_card(api)

    response = old.post(f"/cus_1/payment_methods/{created['payment_method_id']}/default")

    assert (response.status_code, response.json) == (401, REFUSED_KEY)
    assert methods_of(api) == saved_list(listed(created))


def test_another_merchants_ephemeral_key_acts_on_its_own_merchant_only(
    api: Api, other_merchant: OtherMerchant
) -> None:
    add_customer(api)
    mine = save_card(api)
    add_customer(other_merchant.api)
    theirs = save_card(other_merchant.api)
    other = ephemeral(other_merchant.api)

    response = other.post(f"/cus_1/payment_methods/{mine['payment_method_id']}/default")

    assert response.status_code == 404
    assert response.json == METHOD_NOT_FOUND
    assert methods_of(api) == saved_list(listed(mine))
    assert methods_of(other_merchant.api) == saved_list(listed(theirs))


@pytest.mark.parametrize(
    "key",
    [
        "epk_" + "0" * 32 + MERCHANT_ID,  # the shape of an ephemeral key of this merchant, never issued
        "epk_" + "0" * 32 + "merchant_unknown",
        "epk_" + "0" * 32,
        "epk_not_hex_digits_at_all_here_but_long_enough" + MERCHANT_ID,
        "epk_",
        PUBLISHABLE_KEY,  # the real route takes no publishable key either
    ],
)
def test_no_other_key_sets_a_default(api: Api, key: str) -> None:
    add_customer(api)
    created = save_card(api)

    response = api.as_key(key).post(f"/cus_1/payment_methods/{created['payment_method_id']}/default")

    assert response.status_code == 401
    assert response.json == REFUSED_KEY
    assert methods_of(api) == saved_list(listed(created))


def test_an_ephemeral_key_opens_no_other_route(api: Api) -> None:
    add_customer(api)
    created = save_card(api)
    customer = ephemeral(api)
    path = f"/payment_methods/{created['payment_method_id']}"

    answers = [
        customer.get("/customers/cus_1/payment_methods"),
        customer.get(path),
        customer.post(f"{path}/update", {"card": {**CARD_UPDATE}}),
        customer.delete(path),
        customer.get("/customers/cus_1"),
        customer.post("/ephemeral_keys", {"customer_id": "cus_1"}),
    ]

    assert [(a.status_code, a.json) for a in answers] == [(401, REFUSED_KEY)] * len(answers)
    assert ok(api.get(path)) == created


# -- a card saved by a payment ----------------------------------------------------------------


@pytest.mark.parametrize(("usage", "off_session"), [("on_session", False), ("off_session", True)])
def test_a_card_saved_by_a_paid_payment_is_listed_with_last_used_at(
    api: Api, frozen: str, usage: str, off_session: bool
) -> None:
    add_customer(api)
    advance(api, 10)

    paid = create(api, payment_id="pay_1", customer_id="cus_1", setup_future_usage=usage)

    assert paid["status"] == "succeeded"
    assert paid["payment_method_id"] == GENERATED_PM_ID
    saved = payment_method(
        later(frozen, 10),
        payment_method_id=paid["payment_method_id"],
        card=locker_card(month="12", year="2099", holder=None, nick_name=None),
        recurring_enabled=off_session,
        metadata=None,
        last_used_at=later(frozen, 10),
    )
    assert ok(api.get(f"/payment_methods/{paid['payment_method_id']}")) == saved
    assert methods_of(api) == saved_list(listed(saved, billing=BILLING))


def test_a_card_saved_by_a_payment_is_used_again_later(api: Api, frozen: str) -> None:
    add_customer(api)
    first = create(api, payment_id="pay_1", customer_id="cus_1", setup_future_usage="on_session")
    pm_id = first["payment_method_id"]
    advance(api, 120)

    again = pay_with_token(api, token_of(api, pm_id), "pay_2")

    assert (again["status"], again["payment_method_id"]) == ("succeeded", pm_id)
    [entry] = methods_of(api)["customer_payment_methods"]
    assert (entry["payment_method_id"], entry["created"], entry["last_used_at"]) == (
        pm_id,
        frozen,
        later(frozen, 120),
    )


def test_a_declined_payment_saves_no_card(api: Api) -> None:
    add_customer(api)

    declined = create(
        api, DECLINE_CARD, payment_id="pay_1", customer_id="cus_1", setup_future_usage="on_session"
    )

    assert declined["status"] == "failed"
    assert methods_of(api) == saved_list()
    assert api.get(f"/payment_methods/{declined['payment_method_id']}").status_code == 404


def test_a_card_deleted_before_its_payment_is_captured_stays_deleted(api: Api) -> None:
    add_customer(api)
    authorized = create(
        api, payment_id="pay_1", customer_id="cus_1", setup_future_usage="on_session", capture_method="manual"
    )
    pm_id = authorized["payment_method_id"]
    ok(api.delete(f"/payment_methods/{pm_id}"))

    captured = ok(api.post("/payments/pay_1/capture", {}))

    assert captured["status"] == "succeeded"
    assert methods_of(api) == saved_list()
    assert api.get(f"/payment_methods/{pm_id}").status_code == 404


# -- the lists a checkout page reads ----------------------------------------------------------


def test_the_checkout_lists_the_payments_customers_methods(api: Api, browser: Api) -> None:
    add_customer(api)
    add_customer(api, "cus_2")
    first = save_card(api)
    advance(api, 1)
    second = save_bank_transfer(api)
    save_card(api, "cus_2")
    ok(api.post(f"/cus_1/payment_methods/{first['payment_method_id']}/default"))
    payment = create(api, None, payment_id="pay_1", customer_id="cus_1")

    response = browser.get(f"/customers/payment_methods?client_secret={payment['client_secret']}")

    assert response.status_code == 200
    assert response.json == saved_list(listed(second), listed(first, default=True))
    assert response.json == methods_of(api)


def test_the_checkout_of_a_payment_of_a_customer_without_methods_lists_none(api: Api, browser: Api) -> None:
    add_customer(api)
    payment = create(api, None, payment_id="pay_1", customer_id="cus_1")

    response = browser.get(f"/customers/payment_methods?client_secret={payment['client_secret']}")

    assert response.status_code == 200
    assert response.json == saved_list()


def test_the_checkout_of_a_payment_whose_customer_was_deleted_lists_none_and_the_card_still_pays(
    api: Api, browser: Api
) -> None:
    add_customer(api)
    save_card(api)
    payment = create(api, None, payment_id="pay_1", customer_id="cus_1")
    ok(api.delete("/customers/cus_1"))

    response = browser.get(f"/customers/payment_methods?client_secret={payment['client_secret']}")

    assert (response.status_code, response.json) == (200, saved_list())
    confirmation = payloads.confirmation(client_secret=payment["client_secret"])
    assert ok(browser.post("/payments/pay_1/confirm", confirmation))["status"] == "succeeded"


def test_the_checkout_of_a_guest_payment_lists_no_methods(api: Api, browser: Api) -> None:
    add_customer(api)
    save_card(api)
    payment = create(api, None, payment_id="pay_1")

    response = browser.get(f"/customers/payment_methods?client_secret={payment['client_secret']}")

    assert response.status_code == 200
    assert response.json == saved_list(guest=True)


@pytest.mark.parametrize("route", BROWSER_ROUTES)
def test_a_checkout_list_finds_a_payment_whose_id_holds_secret(api: Api, browser: Api, route: str) -> None:
    add_customer(api)
    payment = create(api, None, payment_id="order_secret_santa_7", customer_id="cus_1")

    response = browser.get(f"{route}?client_secret={payment['client_secret']}")

    assert response.status_code == 200
    assert response.json == (saved_list() if route == "/customers/payment_methods" else account_methods())


@pytest.mark.parametrize("route", BROWSER_ROUTES)
@pytest.mark.parametrize("query", ["", "?client_secret=", "?customer_id=cus_1"])
def test_a_checkout_list_without_a_client_secret_is_ir_08(
    api: Api, browser: Api, route: str, query: str
) -> None:
    create(api, None, payment_id="pay_1")

    response = browser.get(f"{route}{query}")

    assert response.status_code == 400
    assert response.json == CLIENT_SECRET_MISSING


@pytest.mark.parametrize("route", BROWSER_ROUTES)
def test_a_checkout_list_with_a_wrong_client_secret_is_ir_09(api: Api, browser: Api, route: str) -> None:
    add_customer(api)
    save_card(api)
    create(api, None, payment_id="pay_1", customer_id="cus_1")

    response = browser.get(f"{route}?client_secret=pay_1_secret_wrong")

    assert response.status_code == 400
    assert response.json == CLIENT_SECRET_WRONG


@pytest.mark.parametrize("route", BROWSER_ROUTES)
@pytest.mark.parametrize("secret", ["x", "_secret_abc", "pay_1secret"])
def test_a_checkout_list_with_what_is_no_client_secret_at_all_is_ir_09(
    api: Api, browser: Api, route: str, secret: str
) -> None:
    create(api, None, payment_id="pay_1")

    response = browser.get(f"{route}?client_secret={secret}")

    assert (response.status_code, response.json) == (400, CLIENT_SECRET_WRONG)


@pytest.mark.parametrize("route", BROWSER_ROUTES)
def test_a_checkout_list_with_the_secret_of_no_payment_is_ir_05(api: Api, browser: Api, route: str) -> None:
    response = browser.get(f"{route}?client_secret=pay_missing_secret_0123456789abcdef0123")

    assert response.status_code == 404
    assert response.json == error("IR_05", "Payment not found")


@pytest.mark.parametrize("route", BROWSER_ROUTES)
def test_a_checkout_list_of_another_merchants_payment_is_ir_05(
    browser: Api, other_merchant: OtherMerchant, route: str
) -> None:
    body = payloads.payment(None, payment_id="pay_1", profile_id=other_merchant.credentials["profile_id"])
    payment = ok(other_merchant.api.post("/payments", body))

    response = browser.get(f"{route}?client_secret={payment['client_secret']}")

    assert response.status_code == 404
    assert response.json == error("IR_05", "Payment not found")


def test_account_methods_of_a_plain_payment(api: Api, browser: Api) -> None:
    add_customer(api)
    payment = create(api, None, payment_id="pay_1", customer_id="cus_1")

    response = browser.get(f"/account/payment_methods?client_secret={payment['client_secret']}")

    assert response.status_code == 200
    assert response.json == account_methods()


def test_account_methods_of_a_guest_payment_in_euros(api: Api, browser: Api) -> None:
    payment = create(api, None, payment_id="pay_1", currency="EUR", return_url="https://shop.example/done")

    response = browser.get(f"/account/payment_methods?client_secret={payment['client_secret']}")

    assert response.status_code == 200
    assert response.json == account_methods(
        currency="EUR", redirect_url="https://shop.example/done", is_guest_customer=True
    )


@pytest.mark.parametrize(
    ("allowed", "methods"),
    [
        (
            ["debit", "sepa", "google_pay"],
            [offered("card", "debit"), offered("wallet", "google_pay"), offered("bank_transfer", "sepa")],
        ),
        (["crypto_currency"], [offered("crypto", "crypto_currency")]),
        (
            ["credit", "debit", "apple_pay"],
            [offered("card", "credit", "debit"), offered("wallet", "apple_pay")],
        ),
        (["paypal", "klarna"], [offered("pay_later", "klarna"), offered("wallet", "paypal")]),
        (["pix"], []),
    ],
    ids=case_id,
)
def test_account_methods_are_filtered_by_the_allowed_types(
    api: Api, browser: Api, allowed: list[str], methods: list[dict[str, Any]]
) -> None:
    add_customer(api)
    payment = create(api, None, payment_id="pay_1", customer_id="cus_1", allowed_payment_method_types=allowed)

    response = browser.get(f"/account/payment_methods?client_secret={payment['client_secret']}")

    assert response.status_code == 200
    assert response.json == account_methods(payment_methods=methods)


@pytest.mark.parametrize(
    ("fields", "payment_type", "mandate_payment"),
    [
        ({"mandate_data": MANDATE_DATA}, "new_mandate", MANDATE_DATA["mandate_type"]),
        ({"mandate_data": MANDATE_DATA, "amount": 0}, "setup_mandate", MANDATE_DATA["mandate_type"]),
        ({"setup_future_usage": "off_session"}, "new_mandate", None),
        ({"setup_future_usage": "off_session", "amount": 0}, "setup_mandate", None),
        ({"setup_future_usage": "on_session"}, "normal", None),
        ({"off_session": True}, "recurring_mandate", None),
    ],
    ids=case_id,
)
def test_account_methods_show_the_payment_type_and_mandate(
    api: Api, browser: Api, fields: dict[str, Any], payment_type: str, mandate_payment: Any
) -> None:
    add_customer(api)
    payment = create(api, None, payment_id="pay_1", customer_id="cus_1", **fields)

    response = browser.get(f"/account/payment_methods?client_secret={payment['client_secret']}")

    assert response.status_code == 200
    assert response.json == account_methods(payment_type=payment_type, mandate_payment=mandate_payment)


# The real service's answer for no payment: null for what only a payment has.
NO_PAYMENT = {"redirect_url": None, "currency": None, "payment_type": None, "is_guest_customer": False}


@pytest.mark.parametrize(
    "query",
    ["", "?accepted_countries=US&accepted_countries=DE&amount=100&recurring_enabled=true", "?limit=5"],
)
def test_account_methods_with_the_secret_key_and_no_client_secret_are_the_merchants(
    api: Api, query: str
) -> None:
    add_customer(api)
    create(api, None, payment_id="pay_1", customer_id="cus_1", allowed_payment_method_types=["credit"])

    response = api.get(f"/account/payment_methods{query}")

    assert response.status_code == 200
    assert response.json == account_methods(**NO_PAYMENT)


def test_account_methods_for_no_payment_show_the_default_profile(
    api: Api, other_merchant: OtherMerchant
) -> None:
    profile = f"/account/{MERCHANT_ID}/business_profile/{PROFILE_ID}"
    ok(api.post(profile, {"return_url": "https://shop.example/done", "profile_name": "shop"}))

    mine = api.get("/account/payment_methods")
    theirs = other_merchant.api.get("/account/payment_methods")

    assert (mine.status_code, theirs.status_code) == (200, 200)
    assert mine.json == account_methods(
        **{**NO_PAYMENT, "redirect_url": "https://shop.example/done", "merchant_name": "shop"}
    )
    assert theirs.json == account_methods(**NO_PAYMENT)


def test_a_checkout_list_changes_nothing(api: Api, browser: Api) -> None:
    add_customer(api)
    save_card(api)
    payment = create(api, None, payment_id="pay_1", customer_id="cus_1")
    before = methods_of(api)

    for route in BROWSER_ROUTES:
        ok(browser.get(f"{route}?client_secret={payment['client_secret']}"))

    assert retrieve(api, "pay_1") == payment
    assert methods_of(api) == before


@pytest.mark.parametrize("route", BROWSER_ROUTES)
def test_a_checkout_list_answers_the_same_with_the_secret_key(api: Api, browser: Api, route: str) -> None:
    add_customer(api)
    save_card(api)
    payment = create(api, None, payment_id="pay_1", customer_id="cus_1")
    path = f"{route}?client_secret={payment['client_secret']}"

    response = api.get(path)

    assert response.status_code == 200
    assert response.json == ok(browser.get(path))


@pytest.mark.parametrize(
    ("changes", "param"),
    [
        ({"card": {**CARD, "card_network": "Bogus"}}, "card.card_network"),
        ({"payment_method_issuer_code": "hdfc"}, "payment_method_issuer_code"),
    ],
)
def test_a_saved_card_s_network_and_issuer_code_are_the_real_service_s_values(
    api: Api, changes: dict[str, Any], param: str
) -> None:
    add_customer(api)

    assert api.post("/payment_methods", {**FULL, **changes}).json == invalid_for_any_reason(param)
    assert methods_of(api) == saved_list()
    accepted = {"card": {**CARD, "card_network": "Visa"}, "payment_method_issuer_code": "jp_hdfc"}
    ok(api.post("/payment_methods", {**FULL, **accepted}))
