"""The hosted 3D Secure page in Chromium: answered by clicking and by keyboard, on a phone, and its
error pages, each leading back to the merchant's own site where the payment says where that is."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import Page, expect

from tests.e2e.harness import Merchant
from tests.payloads import BILLING, payment

MerchantSite = Callable[[str, str], str]

THREE_DS = "4000000000003063"  # challenged when the payment asks for three_ds (README)
RETURN_PAGE = "<!doctype html><title>Order status</title><h1>Back at the shop</h1>"
PHONE_WIDTH = 360  # the `phone` fixture's
LONG_ID = "pay_" + "0123456789" * 6  # 64 characters, the longest id there is, with no place to break


def challenged(merchant: Merchant, return_url: str, **fields: Any) -> dict[str, Any]:
    """A card payment waiting on its 3D Secure challenge, on its way back to `return_url`."""
    body = payment(
        THREE_DS,
        amount=2599,
        profile_id=merchant.profile_id,
        authentication_type="three_ds",
        return_url=return_url,
        **fields,
    )
    response = merchant.post("/payments", body)
    assert response.status_code == 200, response.text
    created: dict[str, Any] = response.json()
    assert created["status"] == "requires_customer_action"
    return created


def status_of(merchant: Merchant, payment_id: str) -> str:
    response = merchant.get(f"/payments/{payment_id}")
    assert response.status_code == 200, response.text
    status: str = response.json()["status"]
    return status


def back_at_the_shop(page: Page, return_url: str) -> dict[str, str]:
    """Wait for the browser to arrive at the shop's return page; the query it arrived with."""
    page.wait_for_url(lambda url: url.split("?", 1)[0] == return_url)
    expect(page.get_by_role("heading", level=1)).to_have_text("Back at the shop")
    return dict(parse_qsl(urlsplit(page.url).query))


def opened(page: Page, url: str) -> int:
    """Open `url` in the page; the status it was answered with."""
    response = page.goto(url)
    assert response is not None
    return response.status


def fits_the_width(page: Page) -> bool:
    fits: bool = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    return fits


# -- answering the challenge ---------------------------------------------------------------------


def test_complete_clicked_succeeds_the_payment_and_returns_to_the_shop(
    page: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    return_url = merchant_site("/return", RETURN_PAGE)
    created = challenged(merchant, return_url)
    page.goto(created["next_action"]["redirect_to_url"])
    expect(page.get_by_role("heading", level=1)).to_have_text("3D Secure authentication")
    expect(page.locator("#amount")).to_have_text("$25.99")
    expect(page.locator("#card")).to_have_text("Visa ending in 3063")

    page.get_by_role("button", name="Complete").click()

    query = back_at_the_shop(page, return_url)
    assert (query["status"], query["payment_id"], query["amount"]) == (
        "succeeded",
        created["payment_id"],
        "2599",
    )
    assert status_of(merchant, created["payment_id"]) == "succeeded"


def test_fail_clicked_fails_the_payment_and_returns_to_the_shop(
    page: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    return_url = merchant_site("/return", RETURN_PAGE)
    created = challenged(merchant, return_url)
    page.goto(created["next_action"]["redirect_to_url"])

    page.get_by_role("button", name="Fail").click()

    assert back_at_the_shop(page, return_url)["status"] == "failed"
    assert status_of(merchant, created["payment_id"]) == "failed"


# -- keyboard ----------------------------------------------------------------------------------------


def test_the_heading_is_announced_first_then_the_payment_then_the_buttons(
    page: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    created = challenged(merchant, merchant_site("/return", RETURN_PAGE), description="Order 42")

    page.goto(created["next_action"]["redirect_to_url"])

    # What a screen reader walks through, in order, and nothing else.
    assert page.locator("body").aria_snapshot() == "\n".join(
        [
            '- main "3D Secure authentication":',
            '  - heading "3D Secure authentication" [level=1]',
            "  - paragraph: Your bank asks you to confirm this payment.",
            "  - term: Payment",
            f"  - definition: {created['payment_id']}",
            "  - term: Amount",
            "  - definition: $25.99",
            "  - term: Method",
            "  - definition: Card",
            "  - term: Card",
            "  - definition: Visa ending in 3063",
            "  - term: For",
            "  - definition: Order 42",
            '  - form "3D Secure authentication":',
            '    - button "Complete"',
            '    - button "Fail"',
            '  - paragraph: "mocksrv sandbox: no real bank or provider is involved."',
        ]
    )


def test_tab_reaches_the_buttons_in_order_with_a_visible_focus(
    page: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    created = challenged(merchant, merchant_site("/return", RETURN_PAGE))
    page.goto(created["next_action"]["redirect_to_url"])
    complete = page.get_by_role("button", name="Complete")
    fail = page.get_by_role("button", name="Fail")

    page.keyboard.press("Tab")
    expect(complete).to_be_focused()
    expect(complete).to_have_css("outline-style", "solid")
    expect(complete).to_have_css("outline-width", "3px")
    page.keyboard.press("Tab")
    expect(fail).to_be_focused()
    expect(fail).to_have_css("outline-style", "solid")
    page.keyboard.press("Shift+Tab")
    expect(complete).to_be_focused()


def test_enter_on_complete_completes(page: Page, merchant: Merchant, merchant_site: MerchantSite) -> None:
    return_url = merchant_site("/return", RETURN_PAGE)
    created = challenged(merchant, return_url)
    page.goto(created["next_action"]["redirect_to_url"])

    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Complete")).to_be_focused()
    page.keyboard.press("Enter")

    assert back_at_the_shop(page, return_url)["status"] == "succeeded"
    assert status_of(merchant, created["payment_id"]) == "succeeded"


# -- a phone -----------------------------------------------------------------------------------------


def test_the_page_fits_a_phone_with_a_long_payment_id_wrapped(
    phone: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    created = challenged(
        merchant, merchant_site("/return", RETURN_PAGE), payment_id=LONG_ID, description="x" * 120
    )

    phone.goto(created["next_action"]["redirect_to_url"])

    expect(phone.locator("#payment-id")).to_have_text(LONG_ID)
    assert fits_the_width(phone)
    wrapped, one_line = phone.locator("#payment-id").bounding_box(), phone.locator("#amount").bounding_box()
    assert wrapped is not None
    assert one_line is not None
    assert wrapped["x"] + wrapped["width"] <= PHONE_WIDTH
    assert wrapped["height"] > one_line["height"]  # the id wraps onto more lines than the amount
    for name in ("Complete", "Fail"):
        expect(phone.get_by_role("button", name=name)).to_be_in_viewport(ratio=1)


def test_a_redirect_methods_three_buttons_fit_a_phone(
    phone: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    body = {
        **payment(None, amount=2599, currency="EUR", profile_id=merchant.profile_id, confirm=True),
        "return_url": merchant_site("/return", RETURN_PAGE),
        "payment_method": "pay_later",
        "payment_method_type": "afterpay_clearpay",
        "payment_method_data": {"pay_later": {"afterpay_clearpay_redirect": {}}},
        "billing": BILLING,
    }
    response = merchant.post("/payments", body)
    assert response.status_code == 200, response.text

    phone.goto(response.json()["next_action"]["redirect_to_url"])

    expect(phone.get_by_role("heading", level=1)).to_have_text("Pay with Afterpay / Clearpay")
    expect(phone.locator("#amount")).to_have_text("€25.99")
    assert fits_the_width(phone)
    for name in ("Authorize", "Fail", "Cancel"):
        expect(phone.get_by_role("button", name=name)).to_be_in_viewport(ratio=1)


# -- error pages -------------------------------------------------------------------------------------


def test_a_finished_challenge_reopened_leads_back_to_the_shop(
    page: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    return_url = merchant_site("/return", RETURN_PAGE)
    created = challenged(merchant, return_url)
    page.goto(created["next_action"]["redirect_to_url"])
    page.get_by_role("button", name="Complete").click()
    back_at_the_shop(page, return_url)

    status = opened(page, created["next_action"]["redirect_to_url"])

    assert status == 400
    expect(page.get_by_role("heading", level=1)).to_have_text("This payment is already finished")
    expect(page.locator("#message")).to_have_text(
        "The customer's part of this payment is done, so there is nothing left to do here. "
        "Return to the shop to see the result."
    )
    page.keyboard.press("Tab")
    back = page.get_by_role("link", name="Return to the shop")
    expect(back).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url == return_url)
    expect(page.get_by_role("heading", level=1)).to_have_text("Back at the shop")


def test_a_finished_challenge_reopened_on_a_phone_fits(
    phone: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    created = challenged(merchant, merchant_site("/return", RETURN_PAGE))
    merchant.authenticate(created["payment_id"])

    phone.goto(created["next_action"]["redirect_to_url"])

    expect(phone.get_by_role("heading", level=1)).to_have_text("This payment is already finished")
    assert fits_the_width(phone)
    expect(phone.get_by_role("link", name="Return to the shop")).to_be_in_viewport(ratio=1)


def test_a_wrong_client_secret_is_a_page_with_no_link_elsewhere(
    page: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    created = challenged(merchant, merchant_site("/return", RETURN_PAGE))
    url = created["next_action"]["redirect_to_url"].replace(created["client_secret"], "pay_secret_wrong")

    status = opened(page, url)

    assert status == 400
    expect(page.get_by_role("heading", level=1)).to_have_text("This link does not match the payment")
    expect(page.locator("#message")).to_have_text(
        "The client secret in the address of this page is not this payment's. "
        "Go back to the shop and start the payment again."
    )
    expect(page.get_by_role("link")).to_have_count(0)
    assert status_of(merchant, created["payment_id"]) == "requires_customer_action"


def test_an_unknown_payment_is_a_404_page(
    page: Page, merchant: Merchant, merchant_site: MerchantSite, base_url: str
) -> None:
    created = challenged(merchant, merchant_site("/return", RETURN_PAGE))

    status = opened(
        page,
        f"{base_url}/web/3ds/{merchant.merchant_id}/pay_missing?client_secret={created['client_secret']}",
    )

    assert status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Payment not found")
    expect(page.locator("#message")).to_have_text(
        "There is no such payment: the link may be mistyped or out of date. "
        "Go back to the shop and start the payment again."
    )
    expect(page.get_by_role("link")).to_have_count(0)


def test_what_the_merchant_sent_is_shown_as_text_never_run(
    page: Page, merchant: Merchant, merchant_site: MerchantSite
) -> None:
    hostile = "<script>window.ran = true</script>\"quoted\" & 'single'"
    return_url = merchant_site("/return", RETURN_PAGE) + "?next=\"<script>window.ran=true</script>'"
    created = challenged(merchant, return_url, description=hostile, metadata={"note": hostile})

    page.goto(created["next_action"]["redirect_to_url"])
    expect(page.locator("#description")).to_have_text(hostile)
    assert page.evaluate("window.ran === undefined")
    page.get_by_role("button", name="Complete").click()
    page.wait_for_url(lambda url: url.startswith(return_url.split("?", 1)[0] + "?"))
    page.goto(created["next_action"]["redirect_to_url"])

    expect(page.get_by_role("link", name="Return to the shop")).to_have_attribute("href", return_url)
    assert page.evaluate("window.ran === undefined")
