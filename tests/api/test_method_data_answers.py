"""A payment's `payment_method_data` as the real service answers it: a summary of each kind, the same
in the create's answer, a retrieval and the webhook event, with no token, card or account number."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mocksrv.domain.sandbox import Sandbox
from tests.api.scenarios import ok, pay, sent_webhook
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

APPLE_PAY_TOKEN = "eyJkYXRhIjoiYXBwbGUtcGF5LXRva2VuIn0="
GOOGLE_PAY_TOKEN = '{"signature":"MEUCIQ","protocolVersion":"ECv2"}'


def paid(api: Api, method: str, method_type: str, data: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = pay(api, method, method_type, data)["payment_method_data"]
    return answer


def shown_everywhere(api: Api, answer: dict[str, Any]) -> None:
    """The retrieval and the webhook of every event of the payment show what the create answered."""
    assert ok(api.get("/payments/pay_1"))["payment_method_data"] == answer
    events = ok(api.get("/__mock/events?limit=100"))["data"]
    assert events
    for event in events:
        assert sent_webhook(api, event["event_id"])["content"]["object"]["payment_method_data"] == answer


CARD_WALLETS = [
    (
        "apple_pay",
        {
            "payment_data": APPLE_PAY_TOKEN,
            "payment_method": {"display_name": "Visa 0224", "network": "Visa", "type": "debit"},
            "transaction_identifier": "c635c5b3af900d7bd81fecd7028f1262",
        },
        {
            "last4": "0224",
            "card_network": "Visa",
            "type": "debit",
            "card_exp_month": None,
            "card_exp_year": None,
        },
    ),
    (
        "google_pay",
        {
            "type": "CARD",
            "description": "Visa •••• 1111",
            "info": {"card_network": "VISA", "card_details": "1111"},
            "tokenization_data": {"type": "PAYMENT_GATEWAY", "token": GOOGLE_PAY_TOKEN},
        },
        {
            "last4": "1111",
            "card_network": "VISA",
            "type": "CARD",
            "card_exp_month": None,
            "card_exp_year": None,
        },
    ),
    (
        "samsung_pay",
        {
            "payment_credential": {
                "card_brand": "visa",
                "card_last4digits": "1661",
                "3_d_s": {"data": "eyJhbGci"},
            }
        },
        {
            "last4": "1661",
            "card_network": "visa",
            "type": None,
            "card_exp_month": None,
            "card_exp_year": None,
        },
    ),
    (
        "samsung_pay",
        {
            "payment_credential": {
                "payment_card_brand": "MC",
                "payment_currency_type": "USD",
                "payment_last4_fpan": "4444",
                "3_d_s": {"data": "eyJhbGci"},
            }
        },
        {"last4": "4444", "card_network": "MC", "type": None, "card_exp_month": None, "card_exp_year": None},
    ),
]


@pytest.mark.parametrize(("wallet", "data", "card"), CARD_WALLETS)
def test_a_card_wallet_is_answered_as_the_card_behind_it_never_its_token(
    api: Api, wallet: str, data: dict[str, Any], card: dict[str, Any]
) -> None:
    answer = paid(api, "wallet", wallet, {wallet: data})

    assert answer == {"wallet": {wallet: card}}
    shown_everywhere(api, answer)
    listed = api.get("/payments/list").get_data(as_text=True)
    assert "eyJkYXRhIjoi" not in listed
    assert "MEUCIQ" not in listed
    assert "eyJhbGci" not in listed


def test_a_card_wallet_that_does_not_say_which_card_shows_no_details(api: Api) -> None:
    answer = paid(api, "wallet", "apple_pay", {"apple_pay": {"payment_data": APPLE_PAY_TOKEN}})

    assert answer == {"wallet": {}}


def test_a_redirect_wallet_shows_no_details(api: Api) -> None:
    assert paid(api, "wallet", "paypal", {"paypal_redirect": {}}) == {"wallet": {}}
    shown_everywhere(api, {"wallet": {}})


@pytest.mark.parametrize(
    ("method_type", "data", "answer"),
    [
        ("ach", {"ach_bank_transfer": {"billing_details": {"bank_name": "x"}}}, {"ach": {}}),
        ("sepa", {"sepa_bank_transfer": {"country": "DE"}}, {"sepa": {}}),
        ("multibanco", {"multibanco_bank_transfer": {}}, {"multibanco": {}}),
        ("pse", {"pse": {}}, {"pse": {}}),
        (
            "pix",
            {"pix": {"pix_key": "k1", "cpf": "12345678909", "source_bank_account_id": "acc_1"}},
            {
                "pix": {
                    "pix_key": "k1",
                    "cpf": "12345678909",
                    "cnpj": None,
                    "source_bank_account_id": "acc_1",
                    "destination_bank_account_id": None,
                    "expiry_date": None,
                }
            },
        ),
        (
            "local_bank_transfer",
            {"local_bank_transfer": {"bank_code": "BC1"}},
            {"local_bank_transfer": {"bank_code": "BC1"}},
        ),
    ],
)
def test_a_bank_transfer_is_answered_by_its_kind(
    api: Api, method_type: str, data: dict[str, Any], answer: dict[str, Any]
) -> None:
    assert paid(api, "bank_transfer", method_type, data) == {"bank_transfer": answer}
    shown_everywhere(api, {"bank_transfer": answer})


@pytest.mark.parametrize(
    ("method_type", "data", "answer"),
    [
        ("ideal", {"ideal": {"bank_name": "ing", "country": "NL"}}, {"bank_name": "ing"}),
        ("eps", {"eps": {"bank_name": "bank_austria", "country": "AT"}}, {"bank_name": "bank_austria"}),
        (
            "online_banking_czech_republic",
            {"online_banking_czech_republic": {"issuer": "ceska_sporitelna"}},
            {"bank_name": "ceska_sporitelna"},
        ),
        ("sofort", {"sofort": {"country": "DE"}}, {"bank_name": None}),
        ("blik", {"blik": {"blik_code": "777987"}}, {"bank_name": None, "Blik": {"blik_code": "777987"}}),
        (
            "giropay",
            {
                "giropay": {
                    "bank_account_bic": "DEUTDEFF",
                    "bank_account_iban": "DE89370400440532013000",
                    "country": "DE",
                }
            },
            {"bank_name": None, "Giropay": {"bic": "DEUTDEFF", "iban": "****3000", "country": "DE"}},
        ),
        (
            "bancontact_card",
            {
                "bancontact_card": {
                    "card_number": "4871049999999910",
                    "card_exp_month": "12",
                    "card_exp_year": "2030",
                    "card_holder_name": "Ada Lovelace",
                }
            },
            {
                "bank_name": None,
                "BancontactCard": {
                    "last4": "9910",
                    "card_exp_month": "12",
                    "card_exp_year": "2030",
                    "card_holder_name": "Ada Lovelace",
                },
            },
        ),
    ],
)
def test_a_bank_redirect_is_answered_by_its_bank(
    api: Api, method_type: str, data: dict[str, Any], answer: dict[str, Any]
) -> None:
    assert paid(api, "bank_redirect", method_type, data) == {"bank_redirect": answer}
    shown_everywhere(api, {"bank_redirect": answer})


def test_a_giropay_iban_is_kept_to_its_last_four(api: Api, sandbox: Sandbox) -> None:
    giropay = {"bank_account_bic": "DEUTDEFF", "bank_account_iban": "DE89370400440532013000", "country": "DE"}
    paid(api, "bank_redirect", "giropay", {"giropay": giropay})

    stored = sandbox.payments.retrieve(MERCHANT_ID, "pay_1").payment_method_data
    assert stored == {"bank_redirect": {"giropay": {**giropay, "bank_account_iban": "****3000"}}}
    journal = json.dumps(ok(api.get("/__mock/requests?limit=1")))
    assert "DE89370400440532013000" not in journal


@pytest.mark.parametrize(
    ("method_type", "data", "answer"),
    [
        ("klarna", {"klarna_redirect": {"billing_email": "a@b.example"}}, {"klarna_sdk": None}),
        ("klarna", {"klarna_sdk": {"token": "klarna-token-1"}}, {"klarna_sdk": {"payment_type": None}}),
        ("affirm", {"affirm_redirect": {}}, {"klarna_sdk": None}),
    ],
)
def test_a_pay_later_method_is_answered_as_the_real_service_does(
    api: Api, method_type: str, data: dict[str, Any], answer: dict[str, Any]
) -> None:
    assert paid(api, "pay_later", method_type, data) == {"pay_later": answer}


@pytest.mark.parametrize(
    ("method", "method_type", "data", "answer"),
    [
        (
            "upi",
            "upi_collect",
            {"upi_collect": {"vpa_id": "ada@okbank"}},
            {"upi_collect": {"vpa_id": "ada@okbank"}},
        ),
        ("upi", "upi_intent", {"upi_intent": {}}, {"upi_intent": {}}),
        (
            "gift_card",
            "givex",
            {"givex": {"number": "6036280000000000", "cvc": "123"}},
            {"givex": {"last4": "0000"}},
        ),
        ("gift_card", "pay_safe_card", {"pay_safe_card": {}}, {"pay_safe_card": {}}),
        (
            "crypto",
            "crypto_currency",
            {
                "pay_currency": "BTC",
                "network": "bitcoin",
                "wallet_address": "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkf",
            },
            {"pay_currency": "BTC", "network": "bitcoin"},
        ),
    ],
)
def test_other_kinds_are_answered_with_the_fields_the_real_service_shows(
    api: Api, method: str, method_type: str, data: dict[str, Any], answer: dict[str, Any]
) -> None:
    assert paid(api, method, method_type, data) == {method: answer}


def test_a_network_token_is_answered_and_kept_to_its_last_four(api: Api, sandbox: Sandbox) -> None:
    token = {
        "network_token": "4604000460040787",
        "token_exp_month": "05",
        "token_exp_year": "2030",
        "token_cryptogram": "AgAAAAAABk4DWZ4C28yUQAAAAAA=",
        "card_network": "Visa",
        "card_holder_name": "Ada Lovelace",
    }

    answer = paid(api, "network_token", "network_token", token)

    assert answer == {
        "network_token": {
            "last4": "0787",
            "card_type": None,
            "card_network": "Visa",
            "token_isin": None,
            "card_issuer": None,
            "card_issuing_country": None,
            "token_exp_month": "05",
            "token_exp_year": "2030",
            "card_holder_name": "Ada Lovelace",
        }
    }
    stored = sandbox.payments.retrieve(MERCHANT_ID, "pay_1").payment_method_data
    assert stored is not None
    assert stored["network_token"]["network_token"] == "****0787"
