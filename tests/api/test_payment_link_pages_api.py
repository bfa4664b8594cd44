"""A payment link's hosted page as HTML, and the route its script sends the customer's details to."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests import payloads
from tests.api.expected import UNAUTHORIZED, error
from tests.api.pages import parse_page
from tests.api.scenarios import DECLINE_CARD, advance, ok, retrieve
from tests.conftest import Api
from tests.payloads import MERCHANT_ID, PUBLISHABLE_KEY

pytestmark = pytest.mark.usefixtures("frozen")

HTML = "text/html; charset=utf-8"
CONFIG = {
    "seller_name": "Acme <Shoes>",
    "sdk_layout": "accordion",
    "allowed_payment_method_types": ["credit", "klarna"],
    "transaction_details": [{"key": "Order", "value": "#42"}],
}


def make_link(api: Api, **fields: Any) -> dict[str, Any]:
    return ok(api.post("/payment_link", {"amount": 2599, "currency": "USD", **fields}))


def page_path(link: dict[str, Any]) -> str:
    return f"/payment_link/{MERCHANT_ID}/{link['payment_link_id']}"


def checkout_data(response: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(parse_page(response).text("checkout"))
    return data


def test_the_page_shows_the_seller_the_amount_and_the_details(api: Api, client: FlaskClient) -> None:
    link = make_link(api, description="Red <shoes>", payment_link_config=CONFIG)

    response = client.get(page_path(link))

    assert (response.status_code, response.content_type) == (200, HTML)
    page = parse_page(response)
    assert page.text("heading") == "Pay Acme <Shoes>"
    assert (page.text("amount"), page.text("description")) == ("$25.99", "Red <shoes>")
    assert [e.text for e in page.tags("dt")] == ["Amount", "For", "Order"]
    assert page.text("pay") == "Pay $25.99"
    assert "<shoes>" not in response.get_data(as_text=True)  # escaped, never markup


def test_the_page_hands_the_sdk_the_link_s_payment_and_layout(api: Api, client: FlaskClient) -> None:
    link = make_link(api, payment_link_config=CONFIG, require_customer_info=True)
    payment = retrieve(api, link["payment_id"])

    data = checkout_data(client.get(page_path(link)))

    assert data == {
        "publishableKey": PUBLISHABLE_KEY,
        "clientSecret": payment["client_secret"],
        "layout": "accordion",
        "allowedPaymentMethodTypes": ["credit", "klarna"],
        "requireCustomerInfo": True,
        "customerInfoUrl": f"/payment_link/{link['payment_link_id']}/customer_info",
        "returnUrl": f"http://localhost{page_path(link)}",
        "sdkUrl": "/web/0.1/v1/HyperLoader.js",
        "terms": {},
    }


def _terms(method: str, method_type: str, value: str, display_mode: str | None = None) -> dict[str, Any]:
    message = {"value": value} if display_mode is None else {"value": value, "display_mode": display_mode}
    return {
        "payment_method": method,
        "payment_method_types": [{"payment_method_type": method_type, "message": message}],
    }


MESSAGES = [
    _terms("card", "debit", "Debited at once."),
    _terms("card", "credit", "Charged as ACME*SHOES.", "custom_message"),
    _terms("pay_later", "klarna", "Pay in 3 with Klarna."),
    _terms("bank_redirect", "ideal", "Hidden.", "hidden"),
    _terms("bank_redirect", "eps", "The SDK's own.", "default_sdk_message"),
]


@pytest.mark.parametrize(
    ("allowed", "terms"),
    [
        (None, {"card": "Charged as ACME*SHOES.", "klarna": "Pay in 3 with Klarna."}),
        (["debit", "klarna"], {"card": "Debited at once.", "klarna": "Pay in 3 with Klarna."}),
        (["card", "klarna"], {"card": "Charged as ACME*SHOES.", "klarna": "Pay in 3 with Klarna."}),
    ],
    ids=["cards paid as credit", "cards paid as debit", "the spec's card, paid as credit"],
)
def test_the_page_shows_the_link_s_message_for_the_method_type_paid_with(
    api: Api, client: FlaskClient, allowed: list[str] | None, terms: dict[str, str]
) -> None:
    config: dict[str, Any] = {"custom_message_for_payment_method_types": MESSAGES}
    if allowed is not None:
        config["allowed_payment_method_types"] = allowed
    link = make_link(api, payment_link_config=config)

    page = client.get(page_path(link))

    # By the payment element's name of the method chosen; hidden ones and the SDK's default are not shown.
    assert checkout_data(page)["terms"] == terms
    assert parse_page(page).by_id("terms").attributes == {"id": "terms", "class": "note", "hidden": ""}


def test_the_page_asks_for_the_customer_only_when_the_link_says_so(api: Api, client: FlaskClient) -> None:
    asking = parse_page(client.get(page_path(make_link(api, require_customer_info=True))))
    silent = parse_page(client.get(page_path(make_link(api))))

    assert [(e.attributes["id"], e.attributes["autocomplete"]) for e in asking.tags("input")] == [
        ("customer-name", "name"),
        ("customer-email", "email"),
    ]
    assert silent.tags("input") == []


def test_a_paid_link_shows_the_payment_s_status(api: Api, browser: Api, client: FlaskClient) -> None:
    link = make_link(api, return_url="https://shop.example/after")
    payment = retrieve(api, link["payment_id"])
    body = payloads.confirmation(client_secret=payment["client_secret"])
    ok(browser.post(f"/payments/{payment['payment_id']}/confirm", body))

    response = client.get(page_path(link))

    assert (response.status_code, response.content_type) == (200, HTML)
    page = parse_page(response)
    assert (page.text("heading"), page.text("status-message")) == (
        "Payment complete",
        "Thank you: the payment has been received.",
    )
    assert page.text("payment-id") == payment["payment_id"]
    assert page.by_id("back").attributes["href"] == "https://shop.example/after"
    assert page.tags("iframe") == page.tags("script") == []


def test_a_link_paid_through_its_own_page_leads_back_to_the_shop(
    api: Api, browser: Api, client: FlaskClient
) -> None:
    link = make_link(api, return_url="https://shop.example/orders/42")
    payment = retrieve(api, link["payment_id"])
    page_url = checkout_data(client.get(page_path(link)))["returnUrl"]
    body = payloads.confirmation(client_secret=payment["client_secret"], return_url=page_url)
    ok(browser.post(f"/payments/{payment['payment_id']}/confirm", body))  # as the page's script does

    page = parse_page(client.get(page_path(link)))

    assert page.by_id("back").attributes["href"] == "https://shop.example/orders/42"
    assert page.text("back") == "Back to default"


def test_a_link_made_without_a_return_url_leads_nowhere_the_payer_named(
    api: Api, browser: Api, client: FlaskClient
) -> None:
    link = make_link(api)
    payment = retrieve(api, link["payment_id"])
    body = payloads.confirmation(client_secret=payment["client_secret"], return_url="https://evil.example/")
    ok(browser.post(f"/payments/{payment['payment_id']}/confirm", body))  # the key and secret are public

    page = parse_page(client.get(page_path(link)))

    assert page.text("heading") == "Payment complete"
    assert page.tags("a") == []  # no "Back to" link


def test_the_page_shows_what_the_payment_charges_once_the_merchant_changed_it(
    api: Api, client: FlaskClient
) -> None:
    link = make_link(api, description="One pair")
    ok(api.post(f"/payments/{link['payment_id']}", {"amount": 99999, "description": "Two pairs"}))

    page = parse_page(client.get(page_path(link)))

    assert (page.text("amount"), page.text("description"), page.text("pay")) == (
        "$999.99",
        "Two pairs",
        "Pay $999.99",
    )


def test_the_page_names_the_links_own_profile_as_the_seller(api: Api, client: FlaskClient) -> None:
    profile = ok(api.post(f"/account/{MERCHANT_ID}/business_profile", {"profile_name": "Second Shop"}))
    link = make_link(api, profile_id=profile["profile_id"])

    assert parse_page(client.get(page_path(link))).text("heading") == "Pay Second Shop"


def test_a_declined_link_payment_shows_its_decline(api: Api, browser: Api, client: FlaskClient) -> None:
    link = make_link(api)
    payment = retrieve(api, link["payment_id"])
    body = payloads.confirmation(DECLINE_CARD, client_secret=payment["client_secret"])
    declined = ok(browser.post(f"/payments/{payment['payment_id']}/confirm", body))

    page = parse_page(client.get(page_path(link)))

    assert (page.text("heading"), page.text("error-message")) == ("Payment failed", declined["error_message"])


def test_an_expired_link_is_a_410_page(api: Api, client: FlaskClient) -> None:
    link = make_link(api)
    advance(api, 15 * 60)

    response = client.get(page_path(link))

    assert (response.status_code, response.content_type) == (410, HTML)
    page = parse_page(response)
    assert (page.text("heading"), page.text("status-message")) == (
        "This link has expired",
        "Ask the seller for a new link to pay.",
    )


def test_an_unknown_link_is_a_404_page(client: FlaskClient) -> None:
    response = client.get(f"/payment_link/{MERCHANT_ID}/plink_missing")

    assert (response.status_code, response.content_type) == (404, HTML)
    page = parse_page(response)
    assert (page.text("heading"), page.text("message")) == (
        "Payment link not found",
        "There is no such link: it may be mistyped. Ask the seller for the link to pay.",
    )


def test_a_link_of_another_merchant_is_not_found(api: Api, client: FlaskClient) -> None:
    link = make_link(api)

    response = client.get(f"/payment_link/merchant_other/{link['payment_link_id']}")

    assert response.status_code == 404


# -- the customer's details -------------------------------------------------------------------


def test_the_customer_s_details_are_kept_on_the_payment(api: Api, browser: Api, frozen: str) -> None:
    link = make_link(api, require_customer_info=True)
    payment = retrieve(api, link["payment_id"])
    body = {"client_secret": payment["client_secret"], "name": "Ada Lovelace", "email": "ada@example.com"}

    response = browser.post(f"/payment_link/{link['payment_link_id']}/customer_info", body)

    assert response.status_code == 200
    assert (response.json["name"], response.json["email"]) == ("Ada Lovelace", "ada@example.com")
    assert retrieve(api, link["payment_id"]) == {
        **payment,
        "name": "Ada Lovelace",
        "email": "ada@example.com",
    }


def test_the_customer_s_details_need_the_link_s_client_secret(api: Api, browser: Api) -> None:
    link = make_link(api)
    other = retrieve(api, make_link(api)["payment_id"])
    body = {"client_secret": other["client_secret"], "name": "Ada", "email": "ada@example.com"}

    response = browser.post(f"/payment_link/{link['payment_link_id']}/customer_info", body)

    assert (response.status_code, response.json) == (
        400,
        error(
            "IR_09",
            "The client_secret provided does not match the client_secret associated with the Payment",
            "client_secret",
        ),
    )
    assert retrieve(api, link["payment_id"])["name"] is None


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"name": "Ada", "email": "ada@example.com"}, "client_secret"),
        ({"client_secret": "x", "email": "ada@example.com"}, "name"),
        ({"client_secret": "x", "name": "Ada", "email": "not an address"}, "email"),
    ],
)
def test_bad_customer_details_are_refused(
    api: Api, browser: Api, body: dict[str, str], expected: str
) -> None:
    link = make_link(api)

    response = browser.post(f"/payment_link/{link['payment_link_id']}/customer_info", body)

    assert response.status_code == 400
    assert response.json["error"]["param"] == expected


def _expire(api: Api, browser: Api, payment: dict[str, Any]) -> None:
    advance(api, 15 * 60)


def _pay(api: Api, browser: Api, payment: dict[str, Any]) -> None:
    body = payloads.confirmation(client_secret=payment["client_secret"])
    ok(browser.post(f"/payments/{payment['payment_id']}/confirm", body))


@pytest.mark.parametrize(("finish", "status"), [(_expire, "expired"), (_pay, "completed")])
def test_the_customer_s_details_of_a_finished_link_are_refused(
    api: Api, browser: Api, finish: Any, status: str
) -> None:
    link = make_link(api)
    payment = retrieve(api, link["payment_id"])
    finish(api, browser, payment)
    body = {"client_secret": payment["client_secret"], "name": "Ada", "email": "ada@example.com"}

    response = browser.post(f"/payment_link/{link['payment_link_id']}/customer_info", body)

    assert (response.status_code, response.json) == (
        400,
        error(
            "IR_14",
            f"This Payment link could not be completed because it has a status of {status}. "
            "The expected state is active",
        ),
    )
    assert retrieve(api, link["payment_id"])["name"] is None


def test_the_customer_s_details_without_the_client_secret_are_ir_08(api: Api, browser: Api) -> None:
    link = make_link(api)

    response = browser.post(
        f"/payment_link/{link['payment_link_id']}/customer_info", {"name": "Ada", "email": "ada@example.com"}
    )

    assert (response.status_code, response.json) == (
        400,
        error("IR_08", "Missing required param: client_secret", "client_secret"),
    )
    assert retrieve(api, link["payment_id"])["name"] is None


def test_the_customer_s_details_of_an_unknown_link_are_not_found(browser: Api) -> None:
    body = {"client_secret": "pay_x_secret_y", "name": "Ada", "email": "ada@example.com"}

    response = browser.post("/payment_link/plink_missing/customer_info", body)

    assert (response.status_code, response.json) == (
        404,
        error("HE_02", "Payment Link does not exist in our records"),
    )


def test_the_customer_s_details_need_a_key(client: FlaskClient) -> None:
    response = client.post("/payment_link/plink_x/customer_info", json={})

    assert (response.status_code, response.json) == (401, error("IR_01", UNAUTHORIZED))


def test_no_answer_is_kept_in_the_browser_s_cache_but_the_sdk_s_files(
    api: Api, browser: Api, client: FlaskClient
) -> None:
    # Back to a checkout must ask for the payment's state again, not show a payable form it kept.
    link = make_link(api)
    payment_id = link["payment_id"]
    secret = retrieve(api, payment_id)["client_secret"]
    answers = {
        "link page": client.get(page_path(link)),
        "API answer": browser.get(f"/payments/{payment_id}?client_secret={secret}"),
        "error": client.get("/no/such/route"),
    }

    assert {name: answer.headers.get_all("Cache-Control") for name, answer in answers.items()} == {
        "link page": ["no-store"],
        "API answer": ["no-store"],
        "error": ["no-store"],
    }
    sdk_script = client.get("/web/0.1/v1/HyperLoader.js")
    assert sdk_script.headers.get_all("Cache-Control") == ["public, max-age=300"]


def restored(api: Api, document: dict[str, Any], replaced: dict[str, str]) -> None:
    """Restore `document` with each text of `replaced` written over, as a snapshot edited by hand."""
    text = json.dumps(document)
    for old, new in replaced.items():
        text = text.replace(old, new)
    ok(api.post("/__mock/restore", json.loads(text)))


def test_a_link_whose_config_was_restored_in_other_shapes_shows_it_as_absent(
    api: Api, client: FlaskClient
) -> None:
    link = make_link(api, payment_link_config=CONFIG)
    restored(
        api,
        ok(api.get("/__mock/snapshot")),
        {'"accordion"': "5", '"Acme <Shoes>"': "7", '[{"key": "Order", "value": "#42"}]': "5"},
    )

    response = client.get(page_path(link))

    assert (response.status_code, response.content_type) == (200, HTML)
    page = parse_page(response)
    assert page.text("heading") == "Pay default"
    assert [e.text for e in page.tags("dt")] == ["Amount"]
    assert checkout_data(response)["layout"] == "tabs"


def test_a_paid_link_whose_return_url_was_restored_unreadable_shows_no_link_back(
    api: Api, browser: Api, client: FlaskClient
) -> None:
    link = make_link(api, return_url="https://shop.example/after")
    payment = retrieve(api, link["payment_id"])
    ok(
        browser.post(
            f"/payments/{payment['payment_id']}/confirm",
            payloads.confirmation(client_secret=payment["client_secret"]),
        )
    )
    restored(api, ok(api.get("/__mock/snapshot")), {"https://shop.example/after": "http://[::1"})

    response = client.get(page_path(link))

    assert (response.status_code, response.content_type) == (200, HTML)
    page = parse_page(response)
    assert page.text("heading") == "Payment complete"
    assert page.tags("a") == []
