"""Payment links in Chromium: the hosted page takes the payment through the SDK's element, then shows
the payment's status; an expired link, a used one and an unknown one each say so."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser.element import fill_billing, fill_card
from tests.e2e.harness import Merchant

THREE_DS = "4000000000003063"  # challenged when the payment asks for three_ds (README)
DECLINED = "4000000000000002"
CONFIG = {"seller_name": "Acme Shoes", "sdk_layout": "tabs"}
PHONE_WIDTH = 360  # the `phone` fixture's


def make_link(merchant: Merchant, **fields: Any) -> dict[str, Any]:
    body = {"amount": 2599, "currency": "USD", "description": "Red shoes", "payment_link_config": CONFIG}
    response = merchant.post("/payment_link", {**body, **fields})
    assert response.status_code == 200, response.text
    link: dict[str, Any] = response.json()
    return link


def stored(merchant: Merchant, path: str) -> dict[str, Any]:
    response = merchant.get(path)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def pay_with_card(page: Page, number: str) -> None:
    frame = page.frame_locator("#payment-element iframe")
    fill_card(frame, number)
    fill_billing(frame)
    button = page.get_by_role("button", name="Pay $25.99")
    expect(button).to_be_enabled()
    button.click()


def test_a_link_is_paid_and_then_shows_as_paid(page: Page, merchant: Merchant) -> None:
    failed: list[str] = []  # every request of the page's that failed (a favicon's 404 included)
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    page.on("requestfailed", lambda request: failed.append(request.url))
    link = make_link(merchant)
    page.goto(link["link"])
    expect(page.get_by_role("heading", level=1)).to_have_text("Pay Acme Shoes")
    expect(page.locator("#amount")).to_have_text("$25.99")
    expect(page.locator("#description")).to_have_text("Red shoes")

    pay_with_card(page, "4242424242424242")

    expect(page.get_by_role("heading", level=1)).to_have_text("Payment complete")
    expect(page.locator("#payment-id")).to_have_text(link["payment_id"])
    assert stored(merchant, f"/payment_link/{link['payment_link_id']}")["status"] == "completed"
    assert stored(merchant, f"/payments/{link['payment_id']}")["status"] == "succeeded"
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("Payment complete")
    assert failed == []


def test_a_link_asks_for_the_customer_s_name_and_e_mail(page: Page, merchant: Merchant) -> None:
    link = make_link(merchant, require_customer_info=True)
    page.goto(link["link"])
    page.get_by_label("Name", exact=True).fill("Ada Lovelace")
    page.get_by_label("E-mail").fill("ada@example.com")

    pay_with_card(page, "4242424242424242")

    expect(page.get_by_role("heading", level=1)).to_have_text("Payment complete")
    payment = stored(merchant, f"/payments/{link['payment_id']}")
    assert (payment["name"], payment["email"], payment["status"]) == (
        "Ada Lovelace",
        "ada@example.com",
        "succeeded",
    )


def test_a_link_without_the_customer_s_details_is_not_paid(page: Page, merchant: Merchant) -> None:
    link = make_link(merchant, require_customer_info=True)
    page.goto(link["link"])

    pay_with_card(page, "4242424242424242")

    expect(page.get_by_role("alert")).to_have_text("Enter your name and a valid e-mail address.")
    expect(page.get_by_label("Name", exact=True)).to_be_focused()
    assert stored(merchant, f"/payments/{link['payment_id']}")["status"] == "requires_payment_method"


def test_a_link_goes_through_3d_secure_and_back(page: Page, merchant: Merchant) -> None:
    link = make_link(merchant, authentication_type="three_ds")
    page.goto(link["link"])

    pay_with_card(page, THREE_DS)
    expect(page.get_by_role("heading", name="3D Secure authentication")).to_be_visible()
    page.get_by_role("button", name="Complete").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Payment complete")
    assert page.url.startswith(link["link"])
    assert stored(merchant, f"/payment_link/{link['payment_link_id']}")["status"] == "completed"


def test_a_declined_card_shows_the_payment_failed(page: Page, merchant: Merchant) -> None:
    link = make_link(merchant)
    page.goto(link["link"])

    pay_with_card(page, DECLINED)

    expect(page.get_by_role("heading", level=1)).to_have_text("Payment failed")
    payment = stored(merchant, f"/payments/{link['payment_id']}")
    expect(page.locator("#error-message")).to_have_text(payment["error_message"])
    assert stored(merchant, f"/payment_link/{link['payment_link_id']}")["status"] == "active"


def test_a_tab_that_pays_a_link_already_paid_in_another_shows_it_paid(page: Page, merchant: Merchant) -> None:
    link = make_link(merchant)
    page.goto(link["link"])
    expect(page.get_by_role("heading", level=1)).to_have_text("Pay Acme Shoes")
    other_tab = page.context.new_page()
    other_tab.goto(link["link"])
    pay_with_card(other_tab, "4242424242424242")
    expect(other_tab.get_by_role("heading", level=1)).to_have_text("Payment complete")

    pay_with_card(page, "4242424242424242")

    expect(page.get_by_role("heading", level=1)).to_have_text("Payment complete")
    expect(page.locator("#payment-id")).to_have_text(link["payment_id"])
    expect(page.get_by_text("could not be confirmed")).to_have_count(0)


def test_a_tab_left_open_past_the_link_s_expiry_shows_it_expired(page: Page, merchant: Merchant) -> None:
    link = make_link(merchant)
    page.goto(link["link"])
    expect(page.get_by_role("heading", level=1)).to_have_text("Pay Acme Shoes")
    merchant.advance(minutes=15)

    pay_with_card(page, "4242424242424242")

    expect(page.get_by_role("heading", level=1)).to_have_text("This link has expired")


def test_an_expired_link_says_so(page: Page, merchant: Merchant) -> None:
    link = make_link(merchant)
    merchant.advance(minutes=15)

    response = page.goto(link["link"])

    assert response is not None
    assert response.status == 410
    expect(page.get_by_role("heading", level=1)).to_have_text("This link has expired")
    expect(page.locator("#status-message")).to_have_text("Ask the seller for a new link to pay.")
    expect(page.locator("iframe")).to_have_count(0)


def test_an_unknown_link_is_a_readable_page(page: Page, merchant: Merchant, base_url: str) -> None:
    response = page.goto(f"{base_url}/payment_link/{merchant.merchant_id}/plink_missing")

    assert response is not None
    assert response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Payment link not found")


def test_the_link_lays_out_its_methods_as_configured(page: Page, merchant: Merchant) -> None:
    config = {**CONFIG, "sdk_layout": "accordion", "allowed_payment_method_types": ["credit", "klarna"]}
    link = make_link(merchant, payment_link_config=config)

    page.goto(link["link"])

    frame = page.frame_locator("#payment-element iframe")
    expect(frame.locator("form#element")).to_have_class("layout-accordion")
    expect(frame.get_by_role("button", name="Card")).to_be_visible()
    expect(frame.get_by_role("button", name="Klarna")).to_be_visible()
    expect(frame.get_by_role("button", name="iDEAL")).to_have_count(0)


# Every change of the Pay button's `disabled`, as the page makes it: "on" or "off", in order.
WATCH_PAY = """
new MutationObserver(() => {
  const pay = document.getElementById("pay");
  if (!pay || pay.dataset.watched) return;
  pay.dataset.watched = "1";
  window.payStates = [];
  new MutationObserver(() => window.payStates.push(pay.disabled ? "off" : "on"))
    .observe(pay, {attributes: true, attributeFilter: ["disabled"]});
}).observe(document, {childList: true, subtree: true});
"""


def test_a_link_whose_page_may_offer_no_method_keeps_pay_off(page: Page, merchant: Merchant) -> None:
    link = make_link(merchant, payment_link_config={**CONFIG, "allowed_payment_method_types": ["google_pay"]})
    page.add_init_script(WATCH_PAY)

    page.goto(link["link"])

    frame = page.frame_locator("#payment-element iframe")
    expect(frame.get_by_role("alert")).to_have_text("No payment method can be used for this payment here.")
    page.wait_for_function("window.payStates && window.payStates.length > 0")  # the element's change
    expect(page.get_by_role("button", name="Pay $25.99")).to_be_disabled()
    assert set(page.evaluate("window.payStates")) == {"off"}  # never on, not for an instant


def test_the_link_page_holds_at_360_px(phone: Page, merchant: Merchant) -> None:
    # A seller's name and a description may hold words wider than the phone.
    config = {**CONFIG, "seller_name": "Schuhmachermeisterbetriebsgesellschaft"}
    link = make_link(
        merchant, description="A very long description " * 8 + "x" * 80, payment_link_config=config
    )
    phone.goto(link["link"])
    expect(phone.frame_locator("#payment-element iframe").get_by_label("Card number")).to_be_visible()

    width = phone.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")

    assert width[0] <= width[1]
    box = phone.get_by_role("button", name="Pay $25.99").bounding_box()
    assert box is not None
    assert 0 <= box["x"] <= box["x"] + box["width"] <= width[1]


# Words wider than a phone in each text of the link's page that the merchant gives: (the link's
# fields, the locator of where the page shows it).
LONG_WORD = "Bestellreferenznummer_0123456789ABCDEFGH"
LONG_BUTTON = "Jetzt_kostenpflichtig_bestellen_und_bezahlen"
CARD_TERMS = [
    {
        "payment_method": "card",
        "payment_method_types": [{"payment_method_type": "credit", "message": {"value": LONG_WORD}}],
    }
]
MERCHANT_TEXTS = {
    "seller_name": ({"payment_link_config": {**CONFIG, "seller_name": LONG_WORD}}, "h1"),
    "description": ({"description": LONG_WORD}, "#description"),
    "detail key": (
        {"payment_link_config": {**CONFIG, "transaction_details": [{"key": LONG_WORD, "value": "42"}]}},
        f"dt:text-is('{LONG_WORD}')",
    ),
    "detail value": (
        {"payment_link_config": {**CONFIG, "transaction_details": [{"key": "Order", "value": LONG_WORD}]}},
        f"dd:text-is('{LONG_WORD}')",
    ),
    "payment_button_text": ({"payment_link_config": {**CONFIG, "payment_button_text": LONG_BUTTON}}, "#pay"),
    "card terms": (
        {"payment_link_config": {**CONFIG, "custom_message_for_payment_method_types": CARD_TERMS}},
        "#terms",
    ),
}


@pytest.mark.parametrize(("fields", "where"), MERCHANT_TEXTS.values(), ids=MERCHANT_TEXTS)
def test_a_merchant_s_word_wider_than_a_phone_wraps_on_the_link_page(
    phone: Page, merchant: Merchant, fields: dict[str, Any], where: str
) -> None:
    link = make_link(merchant, **fields)
    phone.goto(link["link"])
    expect(phone.frame_locator("#payment-element iframe").get_by_label("Card number")).to_be_visible()
    shown = phone.locator(where)
    expect(shown).to_be_visible()
    expect(shown).to_contain_text(LONG_BUTTON if where == "#pay" else LONG_WORD)

    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH
    box = shown.bounding_box()
    assert box is not None
    assert 0 <= box["x"] <= box["x"] + box["width"] <= PHONE_WIDTH


def test_a_merchant_s_words_wider_than_a_phone_wrap_on_the_expired_link_page(
    phone: Page, merchant: Merchant
) -> None:
    config = {**CONFIG, "seller_name": LONG_WORD}
    link = make_link(merchant, description=LONG_WORD, payment_link_config=config)
    merchant.advance(minutes=15)

    phone.goto(link["link"])

    expect(phone.locator("#seller")).to_have_text(LONG_WORD)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH


def test_the_link_shows_its_message_for_the_method_chosen(page: Page, merchant: Merchant) -> None:
    messages = [
        {
            "payment_method": "card",
            "payment_method_types": [
                {"payment_method_type": "credit", "message": {"value": "Charged as ACME*SHOES."}}
            ],
        },
        {
            "payment_method": "pay_later",
            "payment_method_types": [
                {"payment_method_type": "klarna", "message": {"value": "Pay in 3 with Klarna."}}
            ],
        },
    ]
    link = make_link(
        merchant, payment_link_config={**CONFIG, "custom_message_for_payment_method_types": messages}
    )

    page.goto(link["link"])

    terms = page.locator("#terms")
    expect(terms).to_have_text("Charged as ACME*SHOES.")
    frame = page.frame_locator("#payment-element iframe")
    frame.get_by_role("tab", name="Klarna").click()
    expect(terms).to_have_text("Pay in 3 with Klarna.")
    frame.get_by_role("tab", name="Affirm").click()
    expect(terms).to_be_hidden()
    frame.get_by_role("tab", name="Card").click()
    expect(terms).to_have_text("Charged as ACME*SHOES.")
