"""Payment links: create, list and retrieve, the payment each takes, expiry and completion."""

from __future__ import annotations

from typing import Any

import pytest

from tests import payloads
from tests.api.expected import (
    UNAUTHORIZED,
    Matches,
    case_id,
    client_secret_of,
    error,
    invalid,
    invalid_for_any_reason,
    later,
    missing,
    unconfirmed_payment,
)
from tests.api.scenarios import CHALLENGE_CARD, DECLINE_CARD, advance, ok, retrieve
from tests.conftest import Api
from tests.payloads import MERCHANT_ID, PROFILE_ID

pytestmark = pytest.mark.usefixtures("frozen")

LINK_ID = Matches(r"plink_[A-Za-z0-9]{20}")
PAYMENT_ID = Matches(r"pay_[A-Za-z0-9]{26}")
FIFTEEN_MINUTES = 15 * 60
LINK_NOT_FOUND = error("HE_02", "Payment Link does not exist in our records")
CLIENT_SECRET_WRONG = error(
    "IR_09",
    "The client_secret provided does not match the client_secret associated with the Payment",
    "client_secret",
)
CONFIG = {
    "seller_name": "Acme Shoes",
    "sdk_layout": "accordion",
    "allowed_payment_method_types": ["credit", "debit", "klarna"],
}


def link_url(payment_link_id: str) -> str:
    return f"http://localhost/payment_link/{MERCHANT_ID}/{payment_link_id}"


def make_link(api: Api, **fields: Any) -> dict[str, Any]:
    return ok(api.post("/payment_link", {"amount": 2599, "currency": "USD", **fields}))


def expected_link(now: str, **changes: Any) -> dict[str, Any]:
    """The answer of `make_link(api)` at the frozen time `now`; `changes` override."""
    body = {
        "payment_link_id": LINK_ID,
        "link": Matches(rf"http://localhost/payment_link/{MERCHANT_ID}/plink_[A-Za-z0-9]{{20}}"),
        "link_to_pay": Matches(rf"http://localhost/payment_link/{MERCHANT_ID}/plink_[A-Za-z0-9]{{20}}"),
        "secure_link": None,
        "merchant_id": MERCHANT_ID,
        "profile_id": PROFILE_ID,
        "payment_id": PAYMENT_ID,
        "status": "active",
        "amount": 2599,
        "currency": "USD",
        "description": None,
        "link_type": "one_time",
        "expiry": later(now, FIFTEEN_MINUTES),
        "created_at": now,
        "updated_at": now,
        "customer_id": None,
        "email": None,
        "send_email": False,
        "capture_method": "automatic",
        "authentication_type": None,
        "require_customer_info": False,
        "payment_link_config": None,
        "return_url": None,
        "metadata": None,
    }
    body.update(changes)
    return body


def test_a_link_is_created_active_for_fifteen_minutes(api: Api, frozen: str) -> None:
    response = api.post("/payment_link", {"amount": 2599, "currency": "USD"})

    assert response.status_code == 200
    link = response.json
    assert link == expected_link(frozen)
    assert link["link"] == link["link_to_pay"] == link_url(link["payment_link_id"])


def test_a_link_keeps_every_field_of_the_spec(api: Api, frozen: str) -> None:
    api.post("/customers", {"customer_id": "cus_1", "name": "Ada"})
    fields = {
        "description": "Red shoes, size 38",
        "link_type": "one_time",
        "expiry": later(frozen, 3600),
        "customer_id": "cus_1",
        "send_email": True,
        "email": "ada@example.com",
        "capture_method": "manual",
        "authentication_type": "three_ds",
        "require_customer_info": True,
        "payment_link_config": CONFIG,
        "return_url": "https://shop.example/return",
        "metadata": {"order": "42"},
    }

    link = make_link(api, **fields)

    assert link == expected_link(frozen, **fields)
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}")) == link


# The real service's shape: a list of methods, each with a message per method type.
MESSAGES = [
    {
        "payment_method": "card",
        "payment_method_types": [
            {"payment_method_type": "credit", "message": {"value": "Charged as ACME*SHOES."}},
            {
                "payment_method_type": "debit",
                "message": {"value": "Debited at once.", "display_mode": "custom_message"},
            },
        ],
    },
    {
        "payment_method": "pay_later",
        "payment_method_types": [
            {"payment_method_type": "klarna", "message": {"value": "Pay in 3.", "display_mode": "hidden"}}
        ],
    },
]


def test_a_link_keeps_its_custom_messages_for_method_types_as_sent(api: Api, frozen: str) -> None:
    config = {"seller_name": "Acme Shoes", "custom_message_for_payment_method_types": MESSAGES}

    link = make_link(api, payment_link_config=config)

    assert link == expected_link(frozen, payment_link_config=config)
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}"))["payment_link_config"] == config


def test_a_payment_with_a_link_takes_custom_messages_for_method_types(api: Api) -> None:
    config = {"custom_message_for_payment_method_types": MESSAGES}
    body = payloads.payment(None, payment_id="pay_1", payment_link=True, payment_link_config=config)

    payment = ok(api.post("/payments", body))

    link = ok(api.get(f"/payment_link/{payment['payment_link']['payment_link_id']}"))
    assert link["payment_link_config"] == config


def _messages(**changes: Any) -> dict[str, Any]:
    """A link whose one custom message for cards has `changes` (None: the field left out)."""
    terms: dict[str, Any] = {"payment_method_type": "credit", "message": {"value": "Charged as ACME."}}
    method: dict[str, Any] = {"payment_method": "card", "payment_method_types": [terms]}
    for name, value in changes.items():
        target = terms["message"] if name in ("value", "display_mode") else terms if name in terms else method
        if value is None:
            del target[name]
        else:
            target[name] = value
    return {
        "amount": 100,
        "currency": "USD",
        "payment_link_config": {"custom_message_for_payment_method_types": [method]},
    }


_AT = "payment_link_config.custom_message_for_payment_method_types"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {
                "amount": 100,
                "currency": "USD",
                "payment_link_config": {"custom_message_for_payment_method_types": {}},
            },
            invalid(_AT, "not a valid list"),
        ),
        (_messages(payment_method=None), missing(f"{_AT}.0.payment_method")),
        (
            _messages(payment_method="cash"),
            invalid(
                f"{_AT}.0.payment_method",
                "must be one of: card, card_redirect, pay_later, wallet, bank_redirect, bank_transfer, "
                "crypto, bank_debit, reward, real_time_payment, upi, voucher, gift_card, open_banking, "
                "mobile_payment, network_token",
            ),
        ),
        (_messages(payment_method_types=None), missing(f"{_AT}.0.payment_method_types")),
        (_messages(payment_method_type=None), missing(f"{_AT}.0.payment_method_types.0.payment_method_type")),
        (_messages(message=None), missing(f"{_AT}.0.payment_method_types.0.message")),
        (_messages(value=None), missing(f"{_AT}.0.payment_method_types.0.message.value")),
        (
            _messages(display_mode="bold"),
            invalid(
                f"{_AT}.0.payment_method_types.0.message.display_mode",
                "must be one of: default_sdk_message, custom_message, hidden",
            ),
        ),
    ],
    ids=[
        "an object",
        "no method",
        "an unknown method",
        "no types",
        "no type",
        "no message",
        "no text",
        "an unknown display mode",
    ],
)
def test_a_bad_custom_message_for_method_types_is_refused(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = api.post("/payment_link", body)

    assert (response.status_code, response.json) == (400, expected)
    assert ok(api.post("/payment_link/list", {}))["total_count"] == 0


def test_the_link_s_payment_waits_for_its_page(api: Api, frozen: str) -> None:
    link = make_link(api, description="Red shoes", expiry=later(frozen, 3600))

    payment = retrieve(api, link["payment_id"])

    assert payment == unconfirmed_payment(
        frozen,
        link["payment_id"],
        amount=2599,
        description="Red shoes",
        return_url=None,
        client_secret=client_secret_of(link["payment_id"]),
        expires_on=later(frozen, 3600),
        payment_link={
            "link": link["link"],
            "secure_link": None,
            "payment_link_id": link["payment_link_id"],
        },
    )


def test_a_payment_created_with_payment_link_shows_its_link(api: Api, frozen: str) -> None:
    body = payloads.payment(None, payment_id="pay_1", payment_link=True, payment_link_config=CONFIG)

    payment = ok(api.post("/payments", body))

    reference = payment["payment_link"]
    assert reference == {
        "link": Matches(r"http://localhost/payment_link/.+"),
        "secure_link": None,
        "payment_link_id": LINK_ID,
    }
    link = ok(api.get(f"/payment_link/{reference['payment_link_id']}"))
    assert link == expected_link(
        frozen,
        payment_id="pay_1",
        amount=payment["amount"],
        currency=payment["currency"],
        payment_link_config=CONFIG,
        return_url=payment["return_url"],
    )


def test_a_payment_with_a_link_is_not_confirmed_on_create(api: Api) -> None:
    response = api.post("/payments", payloads.payment(payment_id="pay_1", payment_link=True, confirm=True))

    assert response.status_code == 400
    assert response.json == invalid("payment_link", "a payment with a link is confirmed on the link's page")
    assert api.get("/payments/pay_1").status_code == 404


def test_links_are_listed_newest_first(api: Api) -> None:
    first = make_link(api, amount=100)
    advance(api, 1)
    second = make_link(api, amount=200)

    response = api.post("/payment_link/list", {})

    assert response.status_code == 200
    assert response.json == {"count": 2, "total_count": 2, "data": [second, first], "has_more": False}


def test_the_list_takes_a_status_limit_and_offset(api: Api) -> None:
    expired = make_link(api, amount=100)
    advance(api, FIFTEEN_MINUTES)
    active = []
    for amount in (200, 300, 400):
        advance(api, 1)
        active.append(make_link(api, amount=amount))

    assert ok(api.post("/payment_link/list", {"status": "expired"}))["data"] == [
        ok(api.get(f"/payment_link/{expired['payment_link_id']}"))
    ]
    page = ok(api.post("/payment_link/list", {"status": "active", "limit": 1, "offset": 1}))
    assert (page["count"], page["total_count"], page["has_more"], page["data"]) == (1, 3, True, [active[1]])
    last = ok(api.post("/payment_link/list", {"status": "active", "limit": 1, "offset": 2}))
    assert (last["count"], last["has_more"], last["data"]) == (1, False, [active[0]])


def test_a_link_expires_at_its_expiry_on_the_merchant_s_clock(api: Api, frozen: str) -> None:
    link = make_link(api, expiry=later(frozen, 60))
    path = f"/payment_link/{link['payment_link_id']}"

    advance(api, 59)
    assert ok(api.get(path))["status"] == "active"
    moved = advance(api, 1)

    assert moved["timers_fired"] == [
        {"due_at": later(frozen, 60), "kind": "payment_link.expire", "target_id": link["payment_link_id"]}
    ]
    assert ok(api.get(path)) == {**link, "status": "expired", "updated_at": later(frozen, 60)}


def test_paying_a_one_time_link_completes_it(api: Api, browser: Api, frozen: str) -> None:
    link = make_link(api)
    payment = retrieve(api, link["payment_id"])

    paid = ok(
        browser.post(
            f"/payments/{payment['payment_id']}/confirm",
            payloads.confirmation(client_secret=payment["client_secret"]),
        )
    )

    assert paid["status"] == "succeeded"
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}"))["status"] == "completed"
    advance(api, FIFTEEN_MINUTES)
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}"))["status"] == "completed"


def test_a_payment_begun_before_the_link_expired_and_paid_after_completes_it(
    api: Api, browser: Api, frozen: str
) -> None:
    link = make_link(api, return_url="https://shop.example/after")
    payment = retrieve(api, link["payment_id"])
    body = payloads.confirmation(CHALLENGE_CARD, client_secret=payment["client_secret"])
    assert ok(browser.post(f"/payments/{payment['payment_id']}/confirm", body))["status"] == (
        "requires_customer_action"
    )
    advance(api, FIFTEEN_MINUTES)  # the customer is still on the 3D Secure page
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}"))["status"] == "expired"

    ok(api.post(f"/__mock/payments/{payment['payment_id']}/authentication", {"result": "success"}))

    assert retrieve(api, payment["payment_id"])["status"] == "succeeded"
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}"))["status"] == "completed"


def test_a_declined_payment_leaves_the_link_active(api: Api, browser: Api) -> None:
    link = make_link(api)
    payment = retrieve(api, link["payment_id"])

    declined = ok(
        browser.post(
            f"/payments/{payment['payment_id']}/confirm",
            payloads.confirmation(DECLINE_CARD, client_secret=payment["client_secret"]),
        )
    )

    assert declined["status"] == "failed"
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}"))["status"] == "active"


def test_a_link_is_retrieved_whatever_query_parameters_it_does_not_know_come_with_it(api: Api) -> None:
    link = make_link(api)

    response = api.get(f"/payment_link/{link['payment_link_id']}?_=1700000000&utm_source=mail")

    assert (response.status_code, response.json["payment_link_id"]) == (200, link["payment_link_id"])


def test_the_client_secret_of_a_link_s_payment_keeps_the_link_s_life(api: Api) -> None:
    link = make_link(api)
    before = retrieve(api, link["payment_id"])

    response = api.post(f"/payments/{link['payment_id']}", {"session_expiry": 10})

    assert (response.status_code, response.json) == (
        400,
        invalid("session_expiry", "the client secret of a link's payment lives as long as the link"),
    )
    assert retrieve(api, link["payment_id"]) == before


def test_the_link_s_payment_cannot_be_confirmed_after_expiry(api: Api, browser: Api) -> None:
    link = make_link(api)
    payment = retrieve(api, link["payment_id"])
    advance(api, FIFTEEN_MINUTES)

    response = browser.post(
        f"/payments/{payment['payment_id']}/confirm",
        payloads.confirmation(client_secret=payment["client_secret"]),
    )

    assert (response.status_code, response.json) == (
        400,
        error("IR_08", "The provided client_secret has expired", "client_secret"),
    )
    assert retrieve(api, payment["payment_id"])["status"] == "requires_payment_method"


def test_the_secret_of_a_link_s_payment_expires_with_the_link_to_the_millisecond(
    api: Api, browser: Api, frozen: str
) -> None:
    link = make_link(api, expiry=later(frozen, 60.1))
    payment = retrieve(api, link["payment_id"])
    advance(api, 60.1)

    response = browser.post(
        f"/payments/{payment['payment_id']}/confirm",
        payloads.confirmation(client_secret=payment["client_secret"]),
    )

    assert payment["expires_on"] == link["expiry"] == later(frozen, 60.1)
    assert (response.status_code, response.json) == (
        400,
        error("IR_08", "The provided client_secret has expired", "client_secret"),
    )
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}"))["status"] == "expired"
    assert retrieve(api, payment["payment_id"])["status"] == "requires_payment_method"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"currency": "USD"}, missing("amount")),
        ({"amount": 100}, missing("currency")),
        ({"amount": 0, "currency": "USD"}, invalid("amount")),
        ({"amount": 100, "currency": "USD", "link_type": "reusable"}, invalid("link_type")),
        ({"amount": 100, "currency": "USD", "expiry": "tomorrow"}, invalid("expiry")),
        (
            {"amount": 100, "currency": "USD", "payment_link_config": {"seller_name": "x" * 256}},
            invalid("payment_link_config.seller_name"),
        ),
        (
            {
                "amount": 100,
                "currency": "USD",
                "payment_link_config": {"allowed_payment_method_types": ["cash"]},
            },
            invalid("payment_link_config.allowed_payment_method_types.0"),
        ),
        (
            {"amount": 100, "currency": "USD", "colour": "red"},
            error("IR_06", "Json deserialize error: unknown field `colour`"),
        ),
        *[
            (
                {"amount": 100, "currency": "USD", "payment_link_config": config},
                invalid_for_any_reason(f"payment_link_config.{path}"),
            )
            for config, path in [
                ({"details_layout": "bogus"}, "details_layout"),
                ({"payment_form_label_type": "sideways"}, "payment_form_label_type"),
                ({"show_card_terms": "sometimes"}, "show_card_terms"),
                (
                    {"background_image": {"url": "https://shop.example/a.png", "position": "middle"}},
                    "background_image.position",
                ),
                (
                    {"background_image": {"url": "https://shop.example/a.png", "size": {}}},
                    "background_image.size",
                ),
                (
                    {
                        "background_image": {
                            "url": "https://shop.example/a.png",
                            "size": {"Pixels": 1, "Percentage": 2},
                        }
                    },
                    "background_image.size",
                ),
                (
                    {"background_image": {"url": "https://shop.example/a.png", "size": {"Pixels": -1}}},
                    "background_image.size.Pixels",
                ),
                (
                    {
                        "transaction_details": [
                            {"key": "k", "value": "v", "ui_configuration": {"position": "1"}}
                        ]
                    },
                    "transaction_details.0.ui_configuration.position",
                ),
                ({"sdk_ui_rules": {".Label": {"color": 1}}}, "sdk_ui_rules..Label.color"),
            ]
        ],
        (
            {"amount": 100, "currency": "USD", "payment_link_config": {"background_image": {}}},
            missing("payment_link_config.background_image.url"),
        ),
    ],
    ids=case_id,
)
def test_a_bad_link_is_refused_and_nothing_is_stored(api: Api, body: dict[str, Any], expected: Any) -> None:
    response = api.post("/payment_link", body)

    assert response.status_code == 400
    assert response.json["error"]["code"] == expected["error"]["code"]
    assert response.json["error"].get("param") == expected["error"].get("param")
    assert ok(api.post("/payment_link/list", {}))["total_count"] == 0
    assert ok(api.post("/payments/list", {}))["total_count"] == 0


def test_a_link_keeps_the_real_services_page_looks_as_sent(api: Api) -> None:
    looks = {
        "details_layout": "layout2",
        "payment_form_label_type": "floating",
        "show_card_terms": "never",
        "background_image": {
            "url": "https://shop.example/a.png",
            "position": "top left",
            "size": {"Variants": "cover"},
        },
        "transaction_details": [
            {"key": "Policy", "value": "42", "ui_configuration": {"position": 1, "is_key_bold": True}}
        ],
        "sdk_ui_rules": {".Label": {"color": "#333"}},
    }

    link = make_link(api, payment_link_config=looks)

    assert {name: link["payment_link_config"][name] for name in looks} == looks


def test_an_expiry_in_the_past_is_refused(api: Api, frozen: str) -> None:
    response = api.post("/payment_link", {"amount": 100, "currency": "USD", "expiry": frozen})

    assert response.status_code == 400
    assert response.json == invalid("expiry", "a time after now, on the merchant's clock")
    assert ok(api.post("/payments/list", {}))["total_count"] == 0


@pytest.mark.parametrize("expiry", ["9000-01-01T00:00:00.001Z", "9999-12-31T23:59:59.999Z"])
def test_an_expiry_past_the_mock_clocks_end_is_refused(api: Api, expiry: str) -> None:
    response = api.post("/payment_link", {"amount": 100, "currency": "USD", "expiry": expiry})

    assert response.status_code == 400
    assert response.json == invalid(
        "expiry", "no later than 9000-01-01T00:00:00.000Z, where the mock clock ends"
    )
    assert ok(api.post("/payments/list", {}))["total_count"] == 0
    assert ok(api.post("/payment_link/list", {}))["total_count"] == 0


def test_an_unknown_customer_is_refused(api: Api) -> None:
    response = api.post("/payment_link", {"amount": 100, "currency": "USD", "customer_id": "cus_missing"})

    assert response.status_code == 400
    assert response.json == invalid("customer_id", "no such customer; create it with POST /customers first")
    assert ok(api.post("/payment_link/list", {}))["total_count"] == 0


def test_an_unknown_link_is_not_found(api: Api) -> None:
    response = api.get("/payment_link/plink_missing")

    assert (response.status_code, response.json) == (404, LINK_NOT_FOUND)


def test_another_merchant_s_link_is_not_found(api: Api, other_merchant: Any) -> None:
    link = make_link(api)

    response = other_merchant.api.get(f"/payment_link/{link['payment_link_id']}")

    assert (response.status_code, response.json) == (404, LINK_NOT_FOUND)
    assert ok(other_merchant.api.post("/payment_link/list", {}))["total_count"] == 0


@pytest.mark.parametrize("path", ["/payment_link", "/payment_link/list"])
def test_the_publishable_key_cannot_manage_links(browser: Api, path: str) -> None:
    response = browser.post(path, {})

    assert (response.status_code, response.json) == (401, error("IR_01", UNAUTHORIZED))


def test_the_publishable_key_retrieves_a_link_with_its_payments_client_secret(
    api: Api, browser: Api, frozen: str
) -> None:
    link = make_link(api, description="Red shoes")
    client_secret = retrieve(api, link["payment_id"])["client_secret"]

    response = browser.get(f"/payment_link/{link['payment_link_id']}?client_secret={client_secret}")

    assert response.status_code == 200
    assert response.json == link == expected_link(frozen, description="Red shoes")


def test_an_expired_link_is_read_with_its_client_secret_and_says_it_expired(api: Api, browser: Api) -> None:
    link = make_link(api)
    client_secret = retrieve(api, link["payment_id"])["client_secret"]
    advance(api, 15 * 60)  # the link's and its payment's secret's expiry

    shown = ok(browser.get(f"/payment_link/{link['payment_link_id']}?client_secret={client_secret}"))

    assert (shown["payment_link_id"], shown["status"]) == (link["payment_link_id"], "expired")


def test_the_publishable_key_without_the_client_secret_is_ir_08(api: Api, browser: Api) -> None:
    link = make_link(api)

    response = browser.get(f"/payment_link/{link['payment_link_id']}")

    assert response.status_code == 400
    assert response.json == error("IR_08", "Missing required param: client_secret", "client_secret")


def test_a_wrong_client_secret_is_ir_09_with_either_key(api: Api, browser: Api) -> None:
    link = make_link(api)
    other = make_link(api)
    others_secret = retrieve(api, other["payment_id"])["client_secret"]
    path = f"/payment_link/{link['payment_link_id']}"

    answers = [
        browser.get(f"{path}?client_secret={others_secret}"),
        browser.get(f"{path}?client_secret={link['payment_id']}_secret_wrong"),
        api.get(f"{path}?client_secret={others_secret}"),
    ]

    assert [(a.status_code, a.json) for a in answers] == [(400, CLIENT_SECRET_WRONG)] * 3


def test_the_secret_key_retrieves_a_link_with_or_without_its_client_secret(api: Api) -> None:
    link = make_link(api)
    client_secret = retrieve(api, link["payment_id"])["client_secret"]
    path = f"/payment_link/{link['payment_link_id']}"

    assert ok(api.get(path)) == ok(api.get(f"{path}?client_secret={client_secret}")) == link


def test_the_publishable_key_of_another_merchant_finds_no_link(api: Api, other_merchant: Any) -> None:
    link = make_link(api)
    client_secret = retrieve(api, link["payment_id"])["client_secret"]
    theirs = api.as_key(other_merchant.credentials["publishable_key"])

    response = theirs.get(f"/payment_link/{link['payment_link_id']}?client_secret={client_secret}")

    assert (response.status_code, response.json) == (404, LINK_NOT_FOUND)


def test_the_link_table_is_listed(api: Api) -> None:
    response = api.get("/__mock/transitions")

    assert response.json["payment_link"] == [
        {"from": "active", "event": "expire.past_expiry", "to": "expired", "emits": None},
        {"from": "active", "event": "complete.paid", "to": "completed", "emits": None},
        {"from": "expired", "event": "complete.paid", "to": "completed", "emits": None},
    ]


def test_a_reset_deletes_the_links(api: Api) -> None:
    make_link(api)

    ok(api.post("/__mock/reset", {}))

    assert ok(api.post("/payment_link/list", {}))["total_count"] == 0


def test_a_link_shows_what_its_payment_will_charge_as_the_payment_stands(api: Api) -> None:
    link = make_link(api, description="old")
    ok(api.post(f"/payments/{link['payment_id']}", {"amount": 1000, "description": "new"}))

    shown = ok(api.get(f"/payment_link/{link['payment_link_id']}"))
    listed = ok(api.post("/payment_link/list", {}))["data"]

    assert (shown["amount"], shown["description"]) == (1000, "new")
    assert listed == [shown]


def test_an_expired_link_is_not_completed_by_a_payment_begun_after_it_expired(api: Api) -> None:
    link = make_link(api)
    advance(api, FIFTEEN_MINUTES)
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}"))["status"] == "expired"

    paid = ok(api.post(f"/payments/{link['payment_id']}/confirm", payloads.confirmation()))

    assert paid["status"] == "succeeded"
    assert ok(api.get(f"/payment_link/{link['payment_link_id']}"))["status"] == "expired"


def test_the_spec_s_card_and_google_pay_are_allowed_and_the_page_s_payment_offers_them(
    api: Api, browser: Api
) -> None:
    config = {
        "seller_name": "Shop",
        "sdk_layout": "tabs",
        "allowed_payment_method_types": ["card", "google_pay"],
    }
    link = make_link(api, payment_link_config=config)

    assert link["payment_link_config"] == config
    payment = retrieve(api, link["payment_id"])
    assert payment["allowed_payment_method_types"] == ["credit", "debit", "google_pay"]
    secret = payment["client_secret"]
    offered = ok(browser.get(f"/account/payment_methods?client_secret={secret}"))["payment_methods"]
    assert [
        (m["payment_method"], [t["payment_method_type"] for t in m["payment_method_types"]]) for m in offered
    ] == [
        ("card", ["credit", "debit"]),
        ("wallet", ["google_pay"]),
    ]
