"""The browser SDK in Chromium: a merchant's checkout page, written as for the real service's vanilla
integration, loads HyperLoader.js from mocksrv and pays through the payment element."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import FrameLocator, Page, expect

from tests.e2e.browser.element import fill_billing, fill_card
from tests.e2e.harness import Merchant, TimeoutSession
from tests.payloads import BILLING, card

MerchantSite = Callable[[str, str], str]

RETURN_PAGE = "<!doctype html><title>Order complete</title><h1>Thank you</h1>"
DECLINED = "4000000000000002"
THREE_DS = "4000000000003063"  # challenged when the payment asks for three_ds
NO_METHOD = "No payment method can be used for this payment here."


def checkout_page(
    base_url: str,
    publishable_key: str,
    client_secret: str,
    return_url: str,
    after_mount: str = "",
    **options: Any,
) -> str:
    """The merchant's page, as the real integration guide writes it, with the script from mocksrv;
    `after_mount`, script run right after the element is mounted."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Checkout</title></head>
<body>
<form id="payment-form">
  <div id="unified-checkout"></div>
  <button id="submit" type="submit">Pay now</button>
  <pre id="result"></pre>
</form>
<script src="{base_url}/web/0.1/v1/HyperLoader.js"></script>
<script>
  const hyper = Hyper({json.dumps(publishable_key)});
  const widgets = hyper.widgets({{ clientSecret: {json.dumps(client_secret)} }});
  const paymentElement = widgets.create("payment", {json.dumps(options)});
  paymentElement.mount("#unified-checkout");
  {after_mount}
  paymentElement.on("ready", () => {{ window.elementReady = true; }});
  paymentElement.on("change", (event) => {{ window.lastChange = event; }});
  document.getElementById("payment-form").addEventListener("submit", async (event) => {{
    event.preventDefault();
    const result = await hyper.confirmPayment({{
      widgets, confirmParams: {{ return_url: {json.dumps(return_url)} }}, redirect: "if_required",
    }});
    window.confirmResult = result;
    (window.confirmResults = window.confirmResults || []).push(result);
    document.getElementById("result").textContent = result.error ? result.error.message : result.status;
  }});
</script>
</body></html>"""


def create_payment(merchant: Merchant, **fields: Any) -> dict[str, Any]:
    """A payment as a merchant's backend creates it for its checkout page: no method yet."""
    body = {
        "amount": 2599,
        "currency": "USD",
        "profile_id": merchant.profile_id,
        "confirm": False,
        "return_url": "https://shop.example/return",
        **fields,
    }
    response = merchant.post("/payments", body)
    assert response.status_code == 200, response.text
    payment: dict[str, Any] = response.json()
    return payment


def stored(merchant: Merchant, payment_id: str) -> dict[str, Any]:
    response = merchant.get(f"/payments/{payment_id}")
    assert response.status_code == 200, response.text
    payment: dict[str, Any] = response.json()
    return payment


def open_checkout(
    page: Page,
    merchant_site: MerchantSite,
    base_url: str,
    client_secret: str,
    publishable_key: str,
    after_mount: str = "",
    **options: Any,
) -> FrameLocator:
    """Open the merchant's checkout page; answers the payment element once it is ready."""
    return_url = merchant_site("/return", RETURN_PAGE)
    html = checkout_page(base_url, publishable_key, client_secret, return_url, after_mount, **options)
    page.goto(merchant_site("/checkout", html))
    page.wait_for_function("window.elementReady === true")
    return page.frame_locator("#unified-checkout iframe")


def pay(page: Page) -> Any:
    """Press the merchant's Pay button; answers what confirmPayment resolved to."""
    page.get_by_role("button", name="Pay now").click()
    page.wait_for_function("window.confirmResult !== undefined")
    return page.evaluate("window.confirmResult")


def returned_query(page: Page, return_url_prefix: str) -> dict[str, str]:
    page.wait_for_url(f"{return_url_prefix}?**")
    return dict(parse_qsl(urlsplit(page.url).query))


@pytest.fixture
def checkout(
    page: Page, merchant: Merchant, merchant_site: MerchantSite, base_url: str
) -> Callable[..., FrameLocator]:
    """Open the checkout page for a client secret, with the merchant's publishable key by default."""

    def open_(
        client_secret: str, publishable_key: str | None = None, after_mount: str = "", **options: Any
    ) -> FrameLocator:
        key = publishable_key or merchant.publishable_key
        return open_checkout(page, merchant_site, base_url, client_secret, key, after_mount, **options)

    return open_


def filled_checkout(
    merchant: Merchant, checkout: Callable[..., FrameLocator], **fields: Any
) -> tuple[dict[str, Any], FrameLocator]:
    """A payment's checkout, opened, with a card that pays and the billing filled in."""
    payment = create_payment(merchant, **fields)
    frame = checkout(payment["client_secret"])
    fill_card(frame, "4242 4242 4242 4242")
    fill_billing(frame)
    return payment, frame


# The second: a payment id may hold "_secret_", which the client secret's own then follows.
@pytest.mark.parametrize(
    "fields", [{}, {"payment_id": "order_secret_santa_7"}], ids=["", "id holding secret"]
)
def test_a_card_payment_through_the_sdk_succeeds(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator], fields: dict[str, str]
) -> None:
    payment = create_payment(merchant, **fields)
    frame = checkout(payment["client_secret"])

    fill_card(frame, "4242 4242 4242 4242")
    fill_billing(frame)
    page.wait_for_function("window.lastChange && window.lastChange.complete")
    change = page.evaluate("window.lastChange")
    result = pay(page)

    assert change == {"elementType": "payment", "complete": True, "empty": False, "value": {"type": "card"}}
    assert (result["status"], result["payment_id"]) == ("succeeded", payment["payment_id"])
    expect(page.locator("#result")).to_have_text("succeeded")
    expect(frame.locator("#status")).to_have_text("Payment complete.")
    paid = stored(merchant, payment["payment_id"])
    assert (paid["status"], paid["payment_method"], paid["payment_method_data"]["card"]["last4"]) == (
        "succeeded",
        "card",
        "4242",
    )
    assert paid["billing"] == BILLING


@pytest.mark.parametrize(("button", "status"), [("Complete", "succeeded"), ("Fail", "failed")])
def test_a_3ds_card_goes_to_the_challenge_and_returns_to_the_shop(
    page: Page,
    merchant: Merchant,
    merchant_site: MerchantSite,
    checkout: Callable[..., FrameLocator],
    button: str,
    status: str,
) -> None:
    payment = create_payment(merchant, authentication_type="three_ds")
    frame = checkout(payment["client_secret"])
    fill_card(frame, THREE_DS)
    fill_billing(frame)

    page.get_by_role("button", name="Pay now").click()
    expect(page.get_by_role("heading", name="3D Secure authentication")).to_be_visible()
    page.get_by_role("button", name=button).click()
    query = returned_query(page, merchant_site("/return", RETURN_PAGE))

    assert (query["status"], query["payment_id"], query["payment_intent_client_secret"]) == (
        status,
        payment["payment_id"],
        payment["client_secret"],
    )
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    assert stored(merchant, payment["payment_id"])["status"] == status


def test_a_declined_card_is_shown_in_the_element(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment = create_payment(merchant)
    frame = checkout(payment["client_secret"])
    fill_card(frame, DECLINED)
    fill_billing(frame)

    result = pay(page)

    expect(frame.get_by_role("alert")).to_have_text("Your card was declined.")
    assert (result["status"], result["error_code"], result["error_message"]) == (
        "failed",
        "card_declined",
        "Your card was declined.",
    )
    assert stored(merchant, payment["payment_id"])["status"] == "failed"


def test_a_saved_card_pays_a_second_payment_of_its_customer(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    assert merchant.post("/customers", {"customer_id": "cus_sdk"}).status_code == 200
    first = create_payment(
        merchant,
        confirm=True,
        customer_id="cus_sdk",
        setup_future_usage="on_session",
        payment_method="card",
        payment_method_type="credit",
        payment_method_data=card(),
        billing=BILLING,
    )
    saved = merchant.get("/customers/cus_sdk/payment_methods").json()["customer_payment_methods"]
    second = create_payment(merchant, customer_id="cus_sdk")
    frame = checkout(second["client_secret"])

    expect(frame.get_by_role("tab", name="Saved cards")).to_have_attribute("aria-selected", "true")
    expect(frame.get_by_label("Visa ending in 4242 (expires 12/2099)")).to_be_checked()
    frame.get_by_label("CVC of the saved card").fill("123")
    result = pay(page)

    assert first["status"] == "succeeded"
    assert result["status"] == "succeeded"
    paid = stored(merchant, second["payment_id"])
    assert (paid["status"], paid["payment_method_id"]) == ("succeeded", saved[0]["payment_method_id"])


def test_a_saved_card_is_named_by_its_brand_as_the_customer_reads_it(
    merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    assert merchant.post("/customers", {"customer_id": "cus_amex"}).status_code == 200
    create_payment(
        merchant,
        confirm=True,
        customer_id="cus_amex",
        setup_future_usage="on_session",
        payment_method="card",
        payment_method_type="credit",
        payment_method_data=card("378282246310005", card_cvc="1234"),
        billing=BILLING,
    )

    frame = checkout(create_payment(merchant, customer_id="cus_amex")["client_secret"])

    expect(frame.get_by_label("American Express ending in 0005 (expires 12/2099)")).to_be_checked()


def test_klarna_is_authorized_on_the_hosted_page_and_returns_to_the_shop(
    page: Page, merchant: Merchant, merchant_site: MerchantSite, checkout: Callable[..., FrameLocator]
) -> None:
    payment = create_payment(merchant, currency="EUR")
    frame = checkout(payment["client_secret"])

    frame.get_by_role("tab", name="Klarna").click()
    expect(frame.locator("#redirect-note")).to_have_text("You will be sent to Klarna to finish the payment.")
    fill_billing(frame)
    page.get_by_role("button", name="Pay now").click()
    expect(page.get_by_role("heading", name="Pay with Klarna")).to_be_visible()
    page.get_by_role("button", name="Authorize").click()
    query = returned_query(page, merchant_site("/return", RETURN_PAGE))

    assert (query["status"], query["payment_id"]) == ("succeeded", payment["payment_id"])
    paid = stored(merchant, payment["payment_id"])
    assert (paid["status"], paid["payment_method"], paid["payment_method_type"]) == (
        "succeeded",
        "pay_later",
        "klarna",
    )


def another_merchants_secret(merchant: Merchant, new_merchant: Callable[..., Merchant]) -> str:
    secret: str = create_payment(new_merchant())["client_secret"]
    return secret


def another_payments_secret(merchant: Merchant, new_merchant: Callable[..., Merchant]) -> str:
    """The first payment's id with the secret part of the second's."""
    first, second = create_payment(merchant), create_payment(merchant)
    return f"{first['payment_id']}_secret_{second['client_secret'].split('_secret_')[1]}"


def paid_payments_secret(merchant: Merchant, new_merchant: Callable[..., Merchant]) -> str:
    paid = create_payment(
        merchant,
        confirm=True,
        payment_method="card",
        payment_method_type="credit",
        payment_method_data=card(),
        billing=BILLING,
    )
    secret: str = paid["client_secret"]
    return secret


@pytest.mark.parametrize(
    ("make_secret", "key", "notice", "error"),
    [
        (
            paid_payments_secret,
            None,
            "This payment has already been paid.",
            "This Payment could not be confirmed because it has a status of succeeded. "
            "The expected state is requires_payment_method, requires_confirmation",
        ),
        (
            paid_payments_secret,
            "pk_snd_not_a_key_of_this_sandbox",
            "This checkout cannot take payments: the shop's key was not accepted.",
            "API key not provided or invalid API key used",
        ),
        (
            another_merchants_secret,
            None,
            "This checkout cannot take payments: the payment was not found.",
            "Payment not found",
        ),
        (
            another_payments_secret,
            None,
            "This checkout cannot take payments: the payment was not found.",
            "The client_secret provided does not match the client_secret associated with the Payment",
        ),
    ],
    ids=[
        "finished payment",
        "wrong publishable key",
        "another merchant's payment",
        "another payment's secret",
    ],
)
def test_a_checkout_that_cannot_pay_tells_the_page_and_the_customer(
    page: Page,
    merchant: Merchant,
    new_merchant: Callable[..., Merchant],
    checkout: Callable[..., FrameLocator],
    make_secret: Callable[[Merchant, Callable[..., Merchant]], str],
    key: str | None,
    notice: str,
    error: str,
) -> None:
    frame = checkout(make_secret(merchant, new_merchant), key)

    expect(frame.get_by_role("alert")).to_have_text(notice)
    result = pay(page)

    assert result == {"error": {"type": "invalid_request", "message": error}}
    expect(frame.get_by_role("tab")).to_have_count(0)


def test_back_to_a_paid_checkout_shows_it_paid_not_a_form_kept_in_the_cache(
    page: Page, merchant: Merchant, merchant_site: MerchantSite, checkout: Callable[..., FrameLocator]
) -> None:
    _, frame = filled_checkout(merchant, checkout)
    assert pay(page)["status"] == "succeeded"
    page.goto(merchant_site("/orders", RETURN_PAGE))

    page.go_back()
    page.wait_for_function("window.elementReady === true")

    frame = page.frame_locator("#unified-checkout iframe")
    expect(frame.get_by_role("alert")).to_have_text("This payment has already been paid.")
    expect(frame.get_by_role("tab")).to_have_count(0)


def test_a_double_click_on_pay_confirms_once_and_both_clicks_hear_of_the_payment(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment, frame = filled_checkout(merchant, checkout)

    page.get_by_role("button", name="Pay now").dblclick()
    page.wait_for_function("window.confirmResults && window.confirmResults.length === 2")

    results = page.evaluate("window.confirmResults")
    assert [(r["status"], r["payment_id"]) for r in results] == [("succeeded", payment["payment_id"])] * 2
    assert merchant.request_count(method="POST", path=f"/payments/{payment['payment_id']}/confirm") == 1
    expect(frame.locator("#status")).to_have_text("Payment complete.")
    expect(frame.get_by_role("alert")).to_be_hidden()


def test_a_checkout_page_opened_from_a_file_pays(
    page: Page, merchant: Merchant, base_url: str, tmp_path: Path
) -> None:
    # A file:// page has no origin of its own: the element must still answer it.
    payment = create_payment(merchant)
    html = checkout_page(
        base_url, merchant.publishable_key, payment["client_secret"], "https://shop.example/return"
    )
    checkout_file = tmp_path / "checkout.html"
    checkout_file.write_text(html)

    page.goto(checkout_file.as_uri())
    page.wait_for_function("window.elementReady === true")
    frame = page.frame_locator("#unified-checkout iframe")
    fill_card(frame, "4242 4242 4242 4242")
    fill_billing(frame)
    # The form is submitted as its Pay button would submit it: Playwright's click on a file:// page
    # lands on no element once an iframe of another origin has held the focus.
    page.evaluate("document.getElementById('payment-form').requestSubmit()")
    page.wait_for_function("window.confirmResult !== undefined")
    result = page.evaluate("window.confirmResult")

    assert (result["status"], result["payment_id"]) == ("succeeded", payment["payment_id"])
    assert stored(merchant, payment["payment_id"])["status"] == "succeeded"


def test_a_confirmation_whose_element_never_loads_ends_in_an_error(
    page: Page, merchant: Merchant, merchant_site: MerchantSite, base_url: str
) -> None:
    # Not left waiting for ever: the shop's Pay button hears back after 15 s (of the page's clock).
    page.clock.install()
    page.route(lambda url: urlsplit(url).path.endswith("/v1/element"), lambda route: route.abort())
    payment = create_payment(merchant)
    html = checkout_page(
        base_url, merchant.publishable_key, payment["client_secret"], "https://shop.example/r"
    )
    page.goto(merchant_site("/checkout", html))

    page.get_by_role("button", name="Pay now").click()
    page.clock.run_for(14_000)
    assert page.evaluate("window.confirmResult") is None
    page.clock.run_for(1_000)
    page.wait_for_function("window.confirmResult !== undefined")

    assert page.evaluate("window.confirmResult") == {
        "error": {"type": "validation_error", "message": "The payment element did not load"}
    }
    assert stored(merchant, payment["payment_id"])["status"] == "requires_payment_method"


def test_a_checkout_whose_secret_expired_tells_the_customer_to_start_again(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment, frame = filled_checkout(merchant, checkout)
    merchant.advance(seconds=901)  # past the default session expiry of 900 s

    result = pay(page)

    expired = "The provided client_secret has expired"
    assert result == {"error": {"type": "invalid_request", "message": expired}}
    expect(frame.get_by_role("alert")).to_have_text("This checkout has expired: start again from the shop.")
    expect(frame.get_by_role("tab")).to_have_count(0)
    assert stored(merchant, payment["payment_id"])["status"] == "requires_payment_method"


def test_a_checkout_paid_meanwhile_elsewhere_shows_the_payment_as_it_stands(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment, frame = filled_checkout(merchant, checkout)
    body = {"payment_method": "card", "payment_method_type": "credit", "payment_method_data": card()}
    paid = merchant.post(f"/payments/{payment['payment_id']}/confirm", {**body, "billing": BILLING})
    assert paid.json()["status"] == "succeeded"

    result = pay(page)

    assert result["error"]["type"] == "invalid_request"
    expect(frame.get_by_role("alert")).to_have_text("This payment has already been paid.")
    expect(frame.get_by_role("tab")).to_have_count(0)


def test_a_payment_authorized_for_a_later_capture_says_so(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    _, frame = filled_checkout(merchant, checkout, capture_method="manual")

    assert pay(page)["status"] == "requires_capture"
    expect(frame.locator("#status")).to_have_text("Payment authorized.")


def test_an_incomplete_form_is_refused_before_the_api_is_called(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment = create_payment(merchant)
    frame = checkout(payment["client_secret"])
    frame.get_by_label("Card number").fill("4242 4242 4242 4241")

    result = pay(page)

    assert result == {"error": {"type": "validation_error", "message": "Please enter all fields"}}
    expect(frame.locator("#card-number-error")).to_have_text("Card number is invalid.")
    expect(frame.locator("#card-exp-error")).to_have_text("Expiry date is required.")
    expect(frame.locator("#first-name-error")).to_have_text("First name is required.")
    assert stored(merchant, payment["payment_id"])["status"] == "requires_payment_method"


@pytest.mark.parametrize(
    ("number", "brand"),
    [
        ("2221000000000009", "Mastercard"),
        ("2720990000000007", "Mastercard"),
        ("2200000000000004", ""),
        ("3530111333300000", "JCB"),
        ("3500000000000000", ""),
    ],
    ids=["first 2-series", "last 2-series", "Mir", "JCB", "35 outside JCB's range"],
)
def test_the_card_brand_shown_is_the_numbers_own(
    merchant: Merchant, checkout: Callable[..., FrameLocator], number: str, brand: str
) -> None:
    frame = checkout(create_payment(merchant)["client_secret"])

    frame.get_by_label("Card number").press_sequentially(number)

    badge = frame.locator("#card-brand")
    expect(badge).to_have_text(brand)
    if brand:
        expect(badge).to_be_visible()
    else:
        expect(badge).to_be_hidden()


def test_card_input_is_checked_as_it_is_typed(
    merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    frame = checkout(create_payment(merchant)["client_secret"])
    number = frame.get_by_label("Card number")

    number.press_sequentially("378282246310005")
    expect(number).to_have_value("3782 822463 10005")
    expect(frame.locator("#card-brand")).to_have_text("American Express")
    frame.get_by_label("CVC", exact=True).fill("123")
    frame.get_by_label("Expiry date").fill("13")
    frame.get_by_label("Card number").fill("4000 0000 0000 0001")

    expect(frame.locator("#card-number-error")).to_have_text("Card number is invalid.")
    expect(frame.locator("#card-exp-error")).to_have_text("Expiry date is invalid.")
    frame.get_by_label("Expiry date").fill("01 / 20")
    expect(frame.locator("#card-exp-error")).to_have_text("Your card has expired.")


def test_a_payment_with_billing_asks_for_no_address(
    merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    frame = checkout(create_payment(merchant, billing=BILLING)["client_secret"])

    expect(frame.get_by_label("Card number")).to_be_visible()
    expect(frame.get_by_role("group", name="Billing address")).to_be_hidden()


def test_every_input_of_the_element_has_a_label_and_its_autocomplete_attribute(
    merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    frame = checkout(create_payment(merchant)["client_secret"])
    expected = {
        "Card number": "cc-number",
        "Expiry date": "cc-exp",
        "CVC": "cc-csc",
        "Name on card (optional)": "cc-name",
        "First name": "given-name",
        "Last name": "family-name",
        "Address": "address-line1",
        "Address line 2 (optional)": "address-line2",
        "City": "address-level2",
        "State or region": "address-level1",
        "Postal code": "postal-code",
        "Country": "country",
        "Phone code": "tel-country-code",
        "Phone number": "tel-national",
    }

    for label, autocomplete in expected.items():
        field = frame.get_by_label(label, exact=True)
        expect(field).to_be_visible()
        expect(field).to_have_attribute("autocomplete", autocomplete)


@pytest.mark.parametrize(
    ("layout", "role", "attribute"),
    [("tabs", "tab", "aria-selected"), ({"type": "accordion"}, "button", "aria-expanded")],
)
def test_the_layout_option_draws_tabs_or_an_accordion(
    merchant: Merchant,
    checkout: Callable[..., FrameLocator],
    layout: str | dict[str, str],
    role: Literal["tab", "button"],
    attribute: str,
) -> None:
    frame = checkout(create_payment(merchant, currency="EUR")["client_secret"], layout=layout)

    frame.get_by_role(role, name="iDEAL").click()

    expect(frame.get_by_role(role, name="iDEAL")).to_have_attribute(attribute, "true")
    expect(frame.get_by_role(role, name="Card")).to_have_attribute(attribute, "false")
    expect(frame.locator("#redirect-note")).to_have_text("You will be sent to iDEAL to finish the payment.")


def test_the_tabs_are_one_tab_stop_and_the_arrow_keys_move_along_them(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment = create_payment(merchant, currency="EUR")
    frame = checkout(payment["client_secret"], allowedPaymentMethodTypes=["credit", "klarna", "ideal"])
    tabs = frame.get_by_role("tab")
    expect(tabs).to_have_text(["Card", "Klarna", "iDEAL"])
    assert [tabs.nth(i).get_attribute("tabindex") for i in range(3)] == ["0", "-1", "-1"]
    frame.get_by_role("tab", name="Card").focus()

    page.keyboard.press("ArrowRight")
    expect(frame.get_by_role("tab", name="Klarna")).to_be_focused()
    expect(frame.get_by_role("tab", name="Klarna")).to_have_attribute("aria-selected", "true")
    page.keyboard.press("End")
    expect(frame.get_by_role("tab", name="iDEAL")).to_be_focused()
    page.keyboard.press("ArrowRight")  # past the last: the first
    expect(frame.get_by_role("tab", name="Card")).to_be_focused()
    page.keyboard.press("ArrowLeft")  # before the first: the last

    expect(frame.get_by_role("tab", name="iDEAL")).to_have_attribute("aria-selected", "true")
    expect(frame.get_by_role("tab", name="iDEAL")).to_be_focused()
    assert [tabs.nth(i).get_attribute("tabindex") for i in range(3)] == ["-1", "-1", "0"]
    expect(frame.locator("#redirect-note")).to_have_text("You will be sent to iDEAL to finish the payment.")
    page.keyboard.press("Control+ArrowRight")  # a key with a modifier is the browser's, not the list's
    expect(frame.get_by_role("tab", name="iDEAL")).to_have_attribute("aria-selected", "true")


def test_the_element_lists_only_the_method_types_it_is_given(
    merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment = create_payment(merchant, currency="EUR")
    frame = checkout(payment["client_secret"], allowedPaymentMethodTypes=["klarna", "ideal"])

    expect(frame.get_by_role("tab")).to_have_text(["Klarna", "iDEAL"])


# (the payment's allowed types, the option's, the type the card is charged as): the first card type
# the payment lists (credit, then debit) that the option names, as the payment's own list decides it.
CARD_TYPE_CASES = [
    (None, ["debit"], "debit"),
    (None, ["credit"], "credit"),
    (None, ["credit", "debit"], "credit"),
    (None, ["debit", "credit"], "credit"),
    (None, ["card"], "credit"),
    (["debit", "klarna"], ["credit", "debit", "klarna"], "debit"),
]


@pytest.mark.parametrize(("payment_allows", "option", "charged_as"), CARD_TYPE_CASES)
def test_the_allowed_types_option_decides_the_type_a_card_is_charged_as(
    page: Page,
    merchant: Merchant,
    checkout: Callable[..., FrameLocator],
    payment_allows: list[str] | None,
    option: list[str],
    charged_as: str,
) -> None:
    fields = {} if payment_allows is None else {"allowed_payment_method_types": payment_allows}
    payment = create_payment(merchant, **fields)
    frame = checkout(payment["client_secret"], allowedPaymentMethodTypes=option)

    expect(frame.get_by_role("tab", name="Card")).to_have_attribute("aria-selected", "true")
    fill_card(frame, "4242424242424242")
    fill_billing(frame)
    result = pay(page)

    assert result["status"] == "succeeded", result
    paid = stored(merchant, payment["payment_id"])
    assert (paid["payment_method"], paid["payment_method_type"]) == ("card", charged_as)


def test_an_allowed_types_option_naming_no_card_type_of_the_payment_offers_no_card(
    merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment = create_payment(merchant, currency="EUR", allowed_payment_method_types=["debit", "klarna"])
    frame = checkout(payment["client_secret"], allowedPaymentMethodTypes=["credit", "klarna"])

    expect(frame.get_by_role("tab")).to_have_text(["Klarna"])


def test_options_updated_before_the_element_is_ready_are_applied_once_it_is(
    merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment = create_payment(merchant, currency="EUR")
    update = 'paymentElement.update({layout: "accordion", allowedPaymentMethodTypes: ["klarna", "ideal"]});'

    frame = checkout(payment["client_secret"], after_mount=update)

    expect(frame.get_by_role("button", name="Klarna")).to_have_attribute("aria-expanded", "true")
    expect(frame.get_by_role("button", name="iDEAL")).to_have_attribute("aria-expanded", "false")
    expect(frame.get_by_role("tab")).to_have_count(0)


def test_an_update_that_changes_the_methods_offered_tells_the_page(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    frame = checkout(create_payment(merchant)["client_secret"])
    page.wait_for_function("window.lastChange && window.lastChange.value.type === 'card'")

    page.evaluate('paymentElement.update({allowedPaymentMethodTypes: ["google_pay"]})')

    expect(frame.get_by_role("alert")).to_have_text(NO_METHOD)
    page.wait_for_function("window.lastChange.value.type === null")
    assert page.evaluate("window.lastChange.complete") is False


def test_pay_with_no_method_the_element_may_offer_is_a_validation_error(
    page: Page, merchant: Merchant, checkout: Callable[..., FrameLocator]
) -> None:
    payment = create_payment(merchant)
    frame = checkout(payment["client_secret"], allowedPaymentMethodTypes=["google_pay"])
    expect(frame.get_by_role("alert")).to_have_text(NO_METHOD)

    result = pay(page)

    assert result == {"error": {"type": "validation_error", "message": NO_METHOD}}
    assert merchant.request_count(path=f"/payments/{payment['payment_id']}/confirm") == 0
    assert stored(merchant, payment["payment_id"])["status"] == "requires_payment_method"


def test_the_element_fits_a_phone_without_scrolling_sideways(
    phone: Page, merchant: Merchant, merchant_site: MerchantSite, base_url: str
) -> None:
    payment = create_payment(merchant, currency="EUR")
    frame = open_checkout(phone, merchant_site, base_url, payment["client_secret"], merchant.publishable_key)
    expect(frame.get_by_label("Card number")).to_be_visible()

    inner = frame.locator("html").evaluate("root => [root.scrollWidth, root.clientWidth]")
    outer = phone.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")

    assert inner[0] == inner[1]
    assert outer == [360, 360]
    height = frame.locator("#element").evaluate("form => Math.ceil(form.getBoundingClientRect().height)")
    expect(phone.locator("#unified-checkout iframe")).to_have_css("height", f"{height}px")


def test_a_browser_revalidates_the_script_with_its_etag(base_url: str) -> None:
    with TimeoutSession() as browser:
        first = browser.get(f"{base_url}/web/0.1/v1/HyperLoader.js")
        again = browser.get(
            f"{base_url}/web/0.1/v1/HyperLoader.js", headers={"If-None-Match": first.headers["ETag"]}
        )

    assert (first.status_code, first.headers["Cache-Control"]) == (200, "public, max-age=300")
    assert (again.status_code, again.content, again.headers["ETag"]) == (304, b"", first.headers["ETag"])


def test_the_instance_works_as_the_react_wrapper_calls_it(
    page: Page, merchant: Merchant, merchant_site: MerchantSite, checkout: Callable[..., FrameLocator]
) -> None:
    payment = create_payment(merchant)
    frame = checkout(payment["client_secret"])
    missing = page.evaluate(
        """() => {
        const group = hyper.elements({clientSecret: "unused"});
        const session = hyper.initPaymentSession({clientSecret: "unused"});
        const element = group.create("payment");
        const lacking = (object, names) => names.filter((name) => typeof object[name] !== "function");
        return {
          instance: lacking(hyper, ["confirmPayment", "confirmCardPayment", "retrievePaymentIntent",
            "paymentRequest", "initPaymentSession", "completeUpdateIntent", "initiateUpdateIntent",
            "confirmTokenization"]),
          group: lacking(group, ["update", "getElement", "fetchUpdates", "create", "updateIntent",
            "createCardForm"]),
          session: lacking(session, ["getCustomerSavedPaymentMethods", "updateIntent"]),
          element: lacking(element, ["mount", "unmount", "update", "on", "onSDKHandleClick"]),
          sameElement: element === group.create("payment"),
        };
      }"""
    )
    fill_card(frame, "4242424242424242")
    fill_billing(frame)

    # Detached from the instance, with the wrapper's own elements object, as useHyper() hands them.
    statuses = page.evaluate(
        """async ([clientSecret, returnUrl]) => {
        const {confirmPayment, retrievePaymentIntent} = hyper;
        const context = {options: {clientSecret}, getElement: widgets.getElement};
        const result = await confirmPayment({elements: context, confirmParams: {return_url: returnUrl}});
        const retrieved = await retrievePaymentIntent(clientSecret);
        return [result.status, retrieved.paymentIntent.status, await retrievePaymentIntent("pay_x_secret_y")];
      }""",
        [payment["client_secret"], merchant_site("/return", RETURN_PAGE)],
    )

    assert missing == {"instance": [], "group": [], "session": [], "element": [], "sameElement": True}
    assert statuses == ["succeeded", "succeeded", None]
