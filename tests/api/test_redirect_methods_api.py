"""Methods that send the customer elsewhere, through the one hosted authorization page (pay later,
bank redirects, wallet redirects and QR codes), and bank debits that settle days later."""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from flask.testing import FlaskClient

from mocksrv import verify_redirect
from mocksrv.domain.sandbox import Sandbox
from tests.api.expected import challenge_url, invalid, later
from tests.api.pages import parse_page
from tests.api.scenarios import advance, ok, pay, payment_count, retrieve
from tests.conftest import Api
from tests.payloads import BILLING, MERCHANT_ID, PROFILE_ID, SIGNING_KEY

pytestmark = pytest.mark.usefixtures("frozen")

RETURN_URL = "https://shop.example/return"
PAGE = "/web/3ds/merchant_default/pay_1"
THREE_DAYS = 3 * 24 * 3600

# (payment_method, payment_method_type, method data, the name the page shows)
REDIRECTS = [
    ("pay_later", "klarna", {"klarna_redirect": {}}, "Klarna"),
    ("pay_later", "affirm", {"affirm_redirect": {}}, "Affirm"),
    ("pay_later", "afterpay_clearpay", {"afterpay_clearpay_redirect": {}}, "Afterpay / Clearpay"),
    ("bank_redirect", "ideal", {"ideal": {"bank_name": "ing"}}, "iDEAL"),
    ("bank_redirect", "eps", {"eps": {"bank_name": "bank_austria"}}, "EPS"),
    ("bank_redirect", "giropay", {"giropay": {}}, "giropay"),
    ("bank_redirect", "sofort", {"sofort": {"country": "DE"}}, "Sofort"),
    ("bank_redirect", "przelewy24", {"przelewy24": {}}, "Przelewy24"),
    ("wallet", "paypal", {"paypal_redirect": {}}, "PayPal"),
]
PHONE_WALLETS = [("we_chat_pay", "WeChat Pay"), ("ali_pay", "Alipay")]  # (type, the name the page shows)


def klarna(api: Api, **fields: Any) -> dict[str, Any]:
    return pay(api, "pay_later", "klarna", {"klarna_redirect": {}}, **fields)


def event_types(api: Api) -> list[str]:
    """The merchant's event types, oldest first."""
    return [event["event_type"] for event in reversed(ok(api.get("/__mock/events?limit=100"))["data"])]


def press(client: FlaskClient, secret: str, action: str) -> Any:
    return client.post(PAGE, data={"client_secret": secret, "action": action})


def returned(location: str) -> dict[str, str]:
    """The query the customer's browser comes back to the shop with, once its signature is checked."""
    assert verify_redirect(location, SIGNING_KEY)
    assert location.startswith(f"{RETURN_URL}?")
    return dict(parse_qsl(urlsplit(location).query))


@pytest.mark.parametrize(("method", "method_type", "data", "name"), REDIRECTS)
def test_a_redirect_method_waits_for_the_customer_on_the_authorization_page(
    api: Api, client: FlaskClient, method: str, method_type: str, data: dict[str, Any], name: str
) -> None:
    payment = pay(api, method, method_type, data)

    assert (payment["status"], payment["next_action"]) == (
        "requires_customer_action",
        {"type": "redirect_to_url", "redirect_to_url": challenge_url("pay_1", payment["client_secret"])},
    )
    page = client.get(payment["next_action"]["redirect_to_url"])
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert f"<title>Pay with {name}</title>" in html
    assert f'<dd id="method">{name}</dd>' in html
    assert '<dd id="amount">€25.99</dd>' in html
    assert [line.strip() for line in html.splitlines() if line.strip().startswith("<button")] == [
        '<button class="complete" type="submit" name="action" value="complete">Authorize</button>',
        '<button class="fail" type="submit" name="action" value="fail">Fail</button>',
        '<button class="cancel" type="submit" name="action" value="cancel">Cancel</button>',
    ]


@pytest.mark.parametrize(
    ("action", "status", "error"),
    [
        ("complete", "succeeded", None),
        ("fail", "failed", ("authentication_failed", "The customer did not authorize the payment")),
        ("cancel", "cancelled", None),
    ],
)
def test_each_button_finishes_the_payment_and_returns_to_the_shop_signed(
    api: Api, client: FlaskClient, frozen: str, action: str, status: str, error: tuple[str, str] | None
) -> None:
    secret = klarna(api)["client_secret"]

    response = press(client, secret, action)

    assert response.status_code == 302
    assert returned(response.headers["Location"]) == {
        "status": status,
        "payment_id": "pay_1",
        "payment_intent_client_secret": secret,
        "amount": "2599",
        "signature": returned(response.headers["Location"])["signature"],
        "signature_algorithm": "HMAC-SHA512",
    }
    payment = retrieve(api, "pay_1")
    assert (payment["status"], payment["next_action"]) == (status, None)
    assert (payment["error_code"], payment["error_message"]) == (error or (None, None))
    assert payment["amount_received"] == (2599 if status == "succeeded" else 0)
    assert payment["cancellation_reason"] == (
        "cancelled by the customer on the authorization page" if status == "cancelled" else None
    )


def test_the_page_reports_each_outcome_as_a_webhook_event(api: Api, client: FlaskClient) -> None:
    secret = klarna(api)["client_secret"]

    press(client, secret, "complete")

    assert event_types(api) == ["action_required", "payment_succeeded"]


def test_cancel_pressed_as_another_tab_authorizes_leaves_the_authorization(
    api: Api, client: FlaskClient, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page reads the payment before it acts: a Complete that lands in between must win."""
    secret = klarna(api, capture_method="manual")["client_secret"]
    seen_by_the_page = sandbox.payments.retrieve(MERCHANT_ID, "pay_1")
    assert press(client, secret, "complete").status_code == 302
    monkeypatch.setattr(sandbox.payments, "retrieve", lambda *args, **kwargs: seen_by_the_page)

    response = press(client, secret, "cancel")

    assert (response.status_code, response.content_type) == (400, "text/html; charset=utf-8")
    assert "<title>This payment is already finished</title>" in response.get_data(as_text=True)
    monkeypatch.undo()
    assert retrieve(api, "pay_1")["status"] == "requires_capture"
    assert event_types(api) == ["action_required", "payment_authorized"]


def test_a_card_challenge_offers_no_cancel(api: Api, client: FlaskClient) -> None:
    card = {
        "card_number": "4000003800000446",
        "card_exp_month": "12",
        "card_exp_year": "2099",
        "card_cvc": "123",
    }
    secret = pay(api, "card", "credit", card)["client_secret"]

    html = client.get(f"{PAGE}?client_secret={secret}").get_data(as_text=True)
    response = press(client, secret, "cancel")

    assert "<title>3D Secure authentication</title>" in html
    assert 'value="cancel"' not in html
    assert (response.status_code, response.content_type) == (400, "text/html; charset=utf-8")
    assert (
        '<p class="note" id="detail">IR_04: Invalid value provided: action: complete or fail</p>'
        in response.get_data(as_text=True)
    )
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"


def without_return_url(method: str, method_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """A one-step payment with `{method: data}`, no return_url, on a profile that has none."""
    return {
        "amount": 2599,
        "currency": "EUR",
        "profile_id": PROFILE_ID,
        "confirm": True,
        "payment_method": method,
        "payment_method_type": method_type,
        "payment_method_data": {method: data},
        "billing": copy.deepcopy(BILLING),
    }


# Every method that sends its customer to the authorization page: the redirects, and the wallets
# paid by phone from its QR code.
AWAY = [*REDIRECTS, *(("wallet", kind, {f"{kind}_qr": {}}, name) for kind, name in PHONE_WALLETS)]


@pytest.mark.parametrize(("method", "method_type", "data", "name"), AWAY, ids=[r[1] for r in AWAY])
def test_a_redirect_method_needs_a_return_url(
    api: Api, method: str, method_type: str, data: dict[str, Any], name: str
) -> None:
    count = payment_count(api)

    response = api.post("/payments", without_return_url(method, method_type, data))

    assert (response.status_code, response.json["error"]["message"]) == (
        400,
        "Missing required param: return_url",
    )
    assert payment_count(api) == count


@pytest.mark.parametrize("method_type", ["google_pay", "apple_pay"])
def test_a_wallet_paid_in_the_page_needs_no_return_url(api: Api, method_type: str) -> None:
    paid = ok(api.post("/payments", without_return_url("wallet", method_type, {method_type: {}})))

    assert (paid["status"], paid["return_url"]) == ("succeeded", None)


@pytest.mark.parametrize(("method_type", "name"), PHONE_WALLETS)
def test_a_phone_wallet_shows_a_qr_code_of_the_page(
    api: Api, client: FlaskClient, method_type: str, name: str
) -> None:
    payment = pay(api, "wallet", method_type, {f"{method_type}_qr": {}})

    action = payment["next_action"]
    url = challenge_url("pay_1", payment["client_secret"])
    assert payment["status"] == "requires_customer_action"
    assert {key: value for key, value in action.items() if key != "image_data_url"} == {
        "type": "qr_code_information",
        "display_to_timestamp": None,
        "qr_code_url": url,
        "display_text": None,
        "border_color": None,
    }
    assert action["image_data_url"].startswith("data:image/svg+xml;charset=utf-8,%3Csvg")
    assert f"<title>Pay with {name}</title>" in client.get(url).get_data(as_text=True)


def test_apple_pay_still_succeeds_at_once(api: Api) -> None:
    payment = pay(api, "wallet", "apple_pay", {"apple_pay": {"payment_data": "eyJ0b2tlbiI6IjEifQ=="}})

    assert (payment["status"], payment["next_action"]) == ("succeeded", None)


# -- bank debits ------------------------------------------------------------------------------------

ACH = {"ach_bank_debit": {"account_number": "000123456789", "routing_number": "110000000"}}


def debit(api: Api, data: dict[str, Any], method_type: str = "ach") -> dict[str, Any]:
    return pay(api, "bank_debit", method_type, data, currency="USD")


@pytest.mark.parametrize(
    ("method_type", "data", "kept"),
    [
        (
            "ach",
            ACH,
            {
                "ach": {
                    "account_number": "****6789",
                    "routing_number": "110000000",
                    "card_holder_name": None,
                    "bank_account_holder_name": None,
                    "bank_name": None,
                    "bank_type": None,
                    "bank_holder_type": None,
                }
            },
        ),
        (
            "sepa",
            {"sepa_bank_debit": {"iban": "DE89370400440532013000"}},
            {"sepa": {"iban": "****3000", "bank_account_holder_name": None}},
        ),
        (
            "bacs",
            {"bacs_bank_debit": {"account_number": "00012345", "sort_code": "108800"}},
            {"bacs": {"account_number": "****2345", "sort_code": "108800", "bank_account_holder_name": None}},
        ),
        (
            "becs",
            {"becs_bank_debit": {"account_number": "000123456", "bsb_number": "000000"}},
            {
                "becs": {
                    "account_number": "****3456",
                    "bsb_number": "000000",
                    "bank_account_holder_name": None,
                }
            },
        ),
    ],
)
def test_a_bank_debit_is_processing_then_settles_three_days_later(
    api: Api, frozen: str, method_type: str, data: dict[str, Any], kept: dict[str, Any]
) -> None:
    payment = debit(api, data, method_type)
    assert (payment["status"], payment["payment_method_data"]) == ("processing", {"bank_debit": kept})

    advance(api, THREE_DAYS - 1)
    assert retrieve(api, "pay_1")["status"] == "processing"
    advance(api, 1)

    settled = retrieve(api, "pay_1")
    assert (settled["status"], settled["amount_received"], settled["modified_at"]) == (
        "succeeded",
        2599,
        later(frozen, THREE_DAYS),
    )


@pytest.mark.parametrize(
    ("account", "code", "message"),
    [
        ("000111111113", "insufficient_funds", "The bank returned the debit: insufficient funds."),
        ("000111111116", "account_closed", "The bank returned the debit: the account is closed."),
    ],
)
def test_a_magic_account_is_returned_after_the_settlement_delay(
    api: Api, account: str, code: str, message: str
) -> None:
    debit(api, {"ach_bank_debit": {"account_number": account, "routing_number": "110000000"}})

    advance(api, THREE_DAYS)

    returned_payment = retrieve(api, "pay_1")
    assert (
        returned_payment["status"],
        returned_payment["error_code"],
        returned_payment["error_message"],
    ) == (
        "failed",
        code,
        message,
    )
    assert returned_payment["payment_method_data"]["bank_debit"]["ach"]["account_number"] == (
        f"****{account[-4:]}"
    )
    assert event_types(api) == ["payment_processing", "payment_failed"]


def test_no_account_number_is_kept_whole(api: Api) -> None:
    debit(api, {"ach_bank_debit": {"account_number": "000111111116", "routing_number": "110000000"}})
    advance(api, THREE_DAYS)

    shown = api.get("/payments/pay_1").get_data(as_text=True)
    events = api.get("/__mock/events?limit=100").get_data(as_text=True)

    assert "000111111116" not in shown
    assert "000111111116" not in events


@pytest.mark.parametrize(
    ("method", "method_type", "data", "kept"),
    [
        (
            "bank_redirect",
            "bancontact_card",
            {"bancontact_card": {"card_number": "4917123412341234", "card_holder_name": "A B"}},
            {
                "bank_name": None,
                "BancontactCard": {
                    "last4": "1234",
                    "card_exp_month": None,
                    "card_exp_year": None,
                    "card_holder_name": "A B",
                },
            },
        ),
        (
            "bank_redirect",
            "ideal",
            {
                "ideal": {
                    "bank_name": "ing",
                    "bank_account_number": "000111111116",
                    "iban": "GB33BUKB20201555555555",
                }
            },
            {"bank_name": "ing"},
        ),
        (
            "gift_card",
            "givex",
            {"givex": {"number": "6036280000000000", "cvc": "8642"}},
            {"givex": {"last4": "0000"}},
        ),
        (
            "wallet",
            "google_pay",
            {
                "google_pay": {
                    "type": "CARD",
                    "info": {"card_network": "VISA", "card_details": "2460"},
                    "Card_Number": "4917000013572460",
                    "CARD_CVC": "8642",
                }
            },
            {
                "google_pay": {
                    "last4": "2460",
                    "card_network": "VISA",
                    "type": "CARD",
                    "card_exp_month": None,
                    "card_exp_year": None,
                }
            },
        ),
        (
            "pay_later",
            "klarna",
            {"klarna_redirect": {"cards": [{"card_number": "4917000013572460", "cvv": "8642"}]}},
            {"klarna_sdk": None},
        ),
    ],
)
def test_no_card_number_or_cvc_of_any_method_kind_is_kept(
    api: Api, method: str, method_type: str, data: dict[str, Any], kept: dict[str, Any]
) -> None:
    created = pay(api, method, method_type, data)

    assert created["payment_method_data"] == {method: kept}
    assert ok(api.get(f"/payments/{created['payment_id']}"))["payment_method_data"] == {method: kept}
    events = api.get("/__mock/events?limit=100").get_data(as_text=True)
    listed = api.get("/payments/list").get_data(as_text=True)
    stored = api.get("/__mock/snapshot").get_data(as_text=True)
    for secret in ("4917123412341234", "4917000013572460", "6036280000000000", "8642", "GB33BUKB2020"):
        assert secret not in events
        assert secret not in listed
        assert secret not in stored


# -- bank transfers ---------------------------------------------------------------------------------

WEEK = 7 * 24 * 3600
SEPA_INSTRUCTIONS = {
    "sepa_bank_instructions": {
        "account_holder_name": "mocksrv sandbox",
        "bic": "MOCKDEFFXXX",
        "country": "DE",
        "iban": "DE89370400440532013000",
        "reference": "pay_1",
    }
}


def transfer(api: Api, method_type: str = "sepa", account: str = "DE00123") -> dict[str, Any]:
    return pay(api, "bank_transfer", method_type, {"account_number": account}, return_url=None)


@pytest.mark.parametrize(
    ("method_type", "instructions"),
    [
        ("sepa", SEPA_INSTRUCTIONS),
        (
            "ach",
            {
                "ach_credit_transfer": {
                    "account_number": "000123456789",
                    "bank_name": "mocksrv test bank",
                    "routing_number": "110000000",
                    "swift_code": "MOCKUS00",
                }
            },
        ),
        (
            "bacs",
            {
                "bacs_bank_instructions": {
                    "account_holder_name": "mocksrv sandbox",
                    "account_number": "00012345",
                    "sort_code": "108800",
                }
            },
        ),
        ("multibanco", {"multibanco": {"reference": "pay_1", "entity": "12345"}}),
        ("pix", SEPA_INSTRUCTIONS),
    ],
)
def test_a_bank_transfer_waits_with_the_transfer_instructions(
    api: Api, method_type: str, instructions: dict[str, Any]
) -> None:
    payment = transfer(api, method_type)

    assert (payment["status"], payment["next_action"]) == (
        "requires_customer_action",
        {
            "type": "display_bank_transfer_information",
            "bank_transfer_steps_and_charges_details": {
                **instructions,
                "receiver": {"amount_received": 0, "amount_charged": None, "amount_remaining": 2599},
            },
        },
    )
    assert payment["payment_method_data"] == {"bank_transfer": {"account_number": "****0123"}}


def test_the_control_plane_says_the_transfer_arrived(api: Api, frozen: str) -> None:
    transfer(api)
    advance(api, WEEK - 1)

    arrived = ok(api.post("/__mock/payments/pay_1/transfer", {}))

    assert (arrived["status"], arrived["amount_received"], arrived["next_action"]) == (
        "succeeded",
        2599,
        None,
    )
    assert arrived["modified_at"] == later(frozen, WEEK - 1)
    assert retrieve(api, "pay_1") == arrived
    assert event_types(api) == ["action_required", "payment_succeeded"]


def test_a_transfer_to_a_decline_account_fails_when_it_arrives(api: Api) -> None:
    transfer(api, account="decline-1")

    arrived = ok(api.post("/__mock/payments/pay_1/transfer", {}))

    assert (arrived["status"], arrived["error_code"], arrived["error_message"]) == (
        "failed",
        "transfer_failed",
        "The bank transfer failed.",
    )


def test_a_transfer_that_never_arrives_fails_when_the_window_passes(api: Api) -> None:
    transfer(api)

    advance(api, WEEK)
    late = api.post("/__mock/payments/pay_1/transfer", {})

    payment = retrieve(api, "pay_1")
    assert (payment["status"], payment["error_code"], payment["error_message"]) == (
        "failed",
        "transfer_expired",
        "The bank transfer did not arrive before the transfer window closed",
    )
    assert event_types(api) == ["action_required", "payment_failed"]
    assert late.status_code == 400
    assert late.json["error"]["code"] == "IR_14"


def test_only_a_bank_transfer_waits_for_a_transfer(api: Api) -> None:
    klarna(api)

    response = api.post("/__mock/payments/pay_1/transfer", {})

    assert (response.status_code, response.json) == (
        400,
        invalid("payment_id", "the payment does not wait for a bank transfer"),
    )
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"


@pytest.mark.parametrize("result", ["success", "failure"])
def test_a_bank_transfer_is_not_finished_by_the_control_planes_authentication(api: Api, result: str) -> None:
    transfer(api)

    response = api.post("/__mock/payments/pay_1/authentication", {"result": result})

    assert (response.status_code, response.json) == (
        400,
        invalid("payment_id", "a bank transfer is paid when its transfer arrives"),
    )
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"
    assert event_types(api) == ["action_required"]


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_bank_transfer_has_no_authorization_page(api: Api, client: FlaskClient, method: str) -> None:
    payment = pay(api, "bank_transfer", "ach", {"ach_bank_transfer": {}})
    page = f"/web/3ds/merchant_default/{payment['payment_id']}"
    fields = {"client_secret": payment["client_secret"], "action": "complete"}

    response = client.get(page, query_string=fields) if method == "get" else client.post(page, data=fields)

    assert (response.status_code, response.content_type) == (404, "text/html; charset=utf-8")
    assert parse_page(response).text("detail") == (
        "A bank transfer is paid from the customer's bank, not on an authorization page."
    )
    assert retrieve(api, "pay_1") == payment
    assert event_types(api) == ["action_required"]
