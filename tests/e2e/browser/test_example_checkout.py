"""The example shop of examples/checkout: its plain JavaScript page and its React page (the real
SDK's React wrapper, handed mocksrv's Hyper) each take a card payment in Chromium."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Page, expect
from werkzeug.serving import make_server

from tests.e2e.browser.element import fill_billing, fill_card
from tests.e2e.harness import Merchant

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "checkout"


def example_app(base_url: str, merchant: Merchant) -> Flask:
    spec = importlib.util.spec_from_file_location("example_checkout", EXAMPLE / "app.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    keys = (merchant.secret_key, merchant.publishable_key, merchant.profile_id)
    app: Flask = module.create_app(base_url, *keys)
    return app


@pytest.fixture
def shop(base_url: str, merchant: Merchant) -> Iterator[str]:
    """The example shop, served on a free loopback port for the test; answers its address."""
    server = make_server("127.0.0.1", 0, example_app(base_url, merchant), threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="example-shop", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


def only_payment(merchant: Merchant) -> dict[str, Any]:
    response = merchant.get("/payments/list?limit=10")
    assert response.status_code == 200, response.text
    payments: list[dict[str, Any]] = response.json()["data"]
    assert len(payments) == 1
    return payments[0]


@pytest.mark.parametrize("path", ["/", "/react"], ids=["plain", "react"])
def test_the_example_shop_takes_a_card(page: Page, shop: str, merchant: Merchant, path: str) -> None:
    page.goto(shop + path)
    frame = page.frame_locator("iframe")  # the payment element, the only frame of the page
    fill_card(frame, "4242424242424242")
    fill_billing(frame)
    pay = page.get_by_role("button", name="Pay $25.99")
    expect(pay).to_be_enabled()

    pay.click()

    expect(page.locator("#message")).to_have_text("Payment succeeded")
    payment = only_payment(merchant)
    assert (payment["status"], payment["amount"], payment["description"]) == ("succeeded", 2599, "Red shoes")
    assert payment["payment_method_data"]["card"]["last4"] == "4242"


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?payment_intent_client_secret=pay_nothing_secret_x",
        "?payment_intent_client_secret=a/b_secret_c",
        "?payment_intent_client_secret=../__mock/merchants_secret_c",
        "?payment_intent_client_secret=pay_x/confirm_secret_c",
    ],
    ids=["no secret", "no such payment", "not an id", "another route", "an action"],
)
def test_the_shop_s_return_page_names_no_payment_for_an_address_edited_by_hand(
    page: Page, shop: str, query: str
) -> None:
    response = page.goto(shop + "/complete" + query)

    assert response is not None
    assert response.status == 200
    expect(page.locator("#status")).to_have_text("No payment to show.")
