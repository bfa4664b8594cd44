"""The hosted pages as HTML: amounts as people read them, errors as readable pages, everything escaped.

The 3D Secure page (and the authorization page of the redirect methods, the same template) through
the test client: exact statuses and content types, the formatted amount, each error page's heading,
sentence and link back to the shop, and what the page echoes of the payment, escaped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from mocksrv.app import create_app
from mocksrv.contract.document import document
from mocksrv.domain.sandbox import Sandbox
from mocksrv.settings import Settings
from mocksrv.web.pages import format_amount
from tests import payloads
from tests.api.pages import parse_page
from tests.api.scenarios import ok, retrieve
from tests.conftest import Api, CheckedClient

THREE_DS_CARD = "4000000000003063"  # a challenge with authentication_type three_ds (README)
RETURN_URL = "https://shop.example/return"
PAGE = "/web/3ds/merchant_default/pay_1"
HTML = "text/html; charset=utf-8"
START_AGAIN = "Go back to the shop and start the payment again."

INCOMPLETE = (
    "This link is incomplete",
    "The address of this page lacks the payment's client secret, so the payment cannot be shown. "
    + START_AGAIN,
)
MISMATCHED = (
    "This link does not match the payment",
    "The client secret in the address of this page is not this payment's. " + START_AGAIN,
)
NOT_FOUND = (
    "Payment not found",
    "There is no such payment: the link may be mistyped or out of date. " + START_AGAIN,
)
FINISHED = (
    "This payment is already finished",
    "The customer's part of this payment is done, so there is nothing left to do here. "
    "Return to the shop to see the result.",
)
NO_SUCH_ANSWER = (
    "This answer is not one the page offers",
    "The form was sent without one of the page's buttons. Reload the page and press one of them.",
)
TOO_LARGE = (
    "This request is too large",
    "The form sent more than the sandbox accepts. Go back to the shop and try again.",
)
UNEXPECTED = (
    "Something went wrong",
    "The sandbox failed to show this page; its log says why. Reload the page, or go back to the shop.",
)
WRONG_SECRET_DETAIL = (
    "IR_09: The client_secret provided does not match the client_secret associated with the Payment"
)

pytestmark = pytest.mark.usefixtures("frozen")


def challenge(api: Api, **fields: Any) -> dict[str, Any]:
    """A card payment waiting on its 3D Secure challenge, `pay_1`."""
    body = payloads.payment(THREE_DS_CARD, payment_id="pay_1", authentication_type="three_ds", **fields)
    payment = ok(api.post("/payments", body))
    assert payment["status"] == "requires_customer_action"
    return payment


def finish(api: Api) -> None:
    ok(api.post("/__mock/payments/pay_1/authentication", {"result": "success"}))


def open_page(client: FlaskClient, method: str, fields: dict[str, str], path: str = PAGE) -> Any:
    """Open the page (GET, fields in the query) or send its form (POST)."""
    if method == "get":
        return client.get(path, query_string=fields)
    return client.post(path, data=fields)


def error_of(response: Any) -> tuple[int, str, str, str]:
    """What an error page shows: status, content type, heading, message."""
    page = parse_page(response)
    return response.status_code, response.content_type, page.text("heading"), page.text("message")


def back_links(response: Any) -> list[str]:
    """The addresses the page links to."""
    return [element.attributes["href"] for element in parse_page(response).tags("a")]


# -- the page --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "currency", "shown"),
    [
        (2599, "USD", "$25.99"),
        (2599, "EUR", "€25.99"),
        (2599, "GBP", "£25.99"),
        (500, "JPY", "¥500"),
        (1234, "KWD", "KWD1.234"),
        (123456789, "USD", "$1,234,567.89"),
        (5, "USD", "$0.05"),
    ],
)
def test_the_page_shows_the_amount_in_major_units_of_its_currency(
    api: Api, client: FlaskClient, amount: int, currency: str, shown: str
) -> None:
    payment = challenge(api, amount=amount, currency=currency)

    response = client.get(payment["next_action"]["redirect_to_url"])

    assert (response.status_code, response.content_type) == (200, HTML)
    assert parse_page(response).text("amount") == shown


def test_a_page_keeps_its_address_out_of_the_referer_and_every_answer_is_kept_to_its_type(
    api: Api, client: FlaskClient
) -> None:
    # The page's address holds the payment's client secret; the shop it leads back to must not see it.
    page = challenge(api, return_url=RETURN_URL)["next_action"]["redirect_to_url"]
    answers = {
        "page": client.get(page),
        "error page": client.get(PAGE),
        "element page": client.get("/web/0.1/v1/element"),
        "API answer": api.get("/payments/pay_1"),
        "SDK script": client.get("/web/0.1/v1/HyperLoader.js"),
    }

    headers = {
        name: (answer.headers.get("Referrer-Policy"), answer.headers.get_all("X-Content-Type-Options"))
        for name, answer in answers.items()
    }
    assert headers == {
        "page": ("no-referrer", ["nosniff"]),
        "error page": ("no-referrer", ["nosniff"]),
        "element page": ("no-referrer", ["nosniff"]),
        "API answer": (None, ["nosniff"]),
        "SDK script": (None, ["nosniff"]),
    }


def test_an_amount_is_formatted_for_the_locale_a_page_asks_for() -> None:
    assert format_amount(2599, "EUR", "de_DE") == "25,99\xa0€"
    assert format_amount(2599, "EUR") == "€25.99"
    # As many decimals as the real service counts, where CLDR's data would write IQD and RSD in whole units.
    assert format_amount(1234, "IQD") == "IQD1.234"
    assert format_amount(1200, "KWD") == "KWD1.200"
    assert format_amount(1234, "RSD", "sr_Latn_RS") == "12,34\xa0RSD"
    assert format_amount(500, "JPY") == "¥500"


def test_the_page_names_the_payment_the_method_and_the_card(api: Api, client: FlaskClient) -> None:
    payment = challenge(api, description="Order 42")

    page = parse_page(client.get(payment["next_action"]["redirect_to_url"]))

    assert [page.text(name) for name in ("payment-id", "amount", "method", "card", "description")] == [
        "pay_1",
        "$10.00",
        "Card",
        "Visa ending in 3063",
        "Order 42",
    ]
    assert page.text("prompt") == "Your bank asks you to confirm this payment."


def test_the_page_fits_a_phone_and_its_heading_comes_first(api: Api, client: FlaskClient) -> None:
    payment = challenge(api)

    page = parse_page(client.get(payment["next_action"]["redirect_to_url"]))

    viewport = [meta.attributes for meta in page.tags("meta") if meta.attributes.get("name") == "viewport"]
    assert viewport == [{"name": "viewport", "content": "width=device-width, initial-scale=1"}]
    assert page.tags("html")[0].attributes == {"lang": "en"}
    assert page.tags("title")[0].text == "3D Secure authentication"
    body = [element.tag for element in page.elements[page.elements.index(page.tags("body")[0]) :]]
    assert body[:3] == ["body", "main", "h1"]
    assert page.tags("main")[0].attributes == {"aria-labelledby": "heading"}
    assert page.text("heading") == "3D Secure authentication"
    # Its own icon, empty, so that the browser asks for no /favicon.ico (a 404 in the console).
    icons = [link.attributes for link in page.tags("link") if link.attributes.get("rel") == "icon"]
    assert icons == [{"rel": "icon", "href": "data:,"}]


def test_the_page_offers_real_buttons_in_order_and_no_script(api: Api, client: FlaskClient) -> None:
    payment = challenge(api)

    response = client.get(payment["next_action"]["redirect_to_url"])

    page = parse_page(response)
    assert [(b.attributes, b.text) for b in page.tags("button")] == [
        ({"class": "complete", "type": "submit", "name": "action", "value": "complete"}, "Complete"),
        ({"class": "fail", "type": "submit", "name": "action", "value": "fail"}, "Fail"),
    ]
    assert [element.attributes for element in page.tags("form")] == [
        {"method": "post", "class": "actions", "aria-labelledby": "heading"}
    ]
    assert [element.attributes for element in page.tags("input")] == [
        {"type": "hidden", "name": "client_secret", "value": payment["client_secret"]}
    ]
    assert page.tags("script") == []
    assert page.tags("a") == []


def test_a_redirect_method_offers_authorize_fail_and_cancel(api: Api, client: FlaskClient) -> None:
    body = {
        **payloads.payment(None, payment_id="pay_1", amount=2599, currency="EUR", confirm=True),
        "payment_method": "pay_later",
        "payment_method_type": "klarna",
        "payment_method_data": {"pay_later": {"klarna_redirect": {}}},
        "billing": payloads.BILLING,
    }
    payment = ok(api.post("/payments", body))

    page = parse_page(client.get(payment["next_action"]["redirect_to_url"]))

    assert page.text("heading") == "Pay with Klarna"
    assert page.text("prompt") == "Authorize this payment with Klarna."
    assert page.text("amount") == "€25.99"
    assert "card" not in page.ids()
    assert [button.text for button in page.tags("button")] == ["Authorize", "Fail", "Cancel"]


# -- errors as pages ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_page_without_client_secret_is_a_page_saying_the_link_is_incomplete(
    api: Api, client: FlaskClient, method: str
) -> None:
    challenge(api)

    response = open_page(client, method, {"action": "complete"})

    assert error_of(response) == (400, HTML, *INCOMPLETE)
    assert parse_page(response).text("detail") == "IR_08: Missing required param: client_secret"
    assert back_links(response) == []
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_wrong_client_secret_is_a_page_without_a_link_to_the_shop(
    api: Api, client: FlaskClient, method: str
) -> None:
    challenge(api)

    response = open_page(client, method, {"client_secret": "pay_1_secret_wrong", "action": "complete"})

    assert error_of(response) == (400, HTML, *MISMATCHED)
    assert parse_page(response).text("detail") == WRONG_SECRET_DETAIL
    assert back_links(response) == []
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("path", ["/web/3ds/merchant_default/pay_missing", "/web/3ds/merchant_other/pay_1"])
def test_an_unknown_payment_is_a_404_page(api: Api, client: FlaskClient, method: str, path: str) -> None:
    secret = challenge(api)["client_secret"]

    response = open_page(client, method, {"client_secret": secret, "action": "complete"}, path)

    assert error_of(response) == (404, HTML, *NOT_FOUND)
    assert parse_page(response).text("detail") == "IR_05: Payment not found"
    assert back_links(response) == []


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_finished_challenge_reopened_is_a_page_leading_back_to_the_shop(
    api: Api, client: FlaskClient, method: str
) -> None:
    secret = challenge(api)["client_secret"]
    finish(api)

    response = open_page(client, method, {"client_secret": secret, "action": "complete"})

    assert error_of(response) == (400, HTML, *FINISHED)
    assert back_links(response) == [RETURN_URL]
    assert parse_page(response).text("back") == "Return to the shop"
    assert parse_page(response).text("detail") == (
        "IR_14: This Payment could not be authenticated because it has a status of succeeded. "
        "The expected state is requires_customer_action"
    )
    assert retrieve(api, "pay_1")["status"] == "succeeded"


NOT_CONFIRMED = (
    "This payment is not ready to authorize",
    "The shop has not confirmed this payment yet, so there is nothing to authorize here. "
    "Return to the shop and pay from there.",
)


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("number", [None, THREE_DS_CARD])
def test_a_payment_not_confirmed_yet_has_nothing_to_authorize(
    api: Api, client: FlaskClient, method: str, number: str | None
) -> None:
    body = payloads.payment(number, payment_id="pay_1", confirm=False)
    secret = ok(api.post("/payments", body))["client_secret"]
    before = retrieve(api, "pay_1")

    response = open_page(client, method, {"client_secret": secret, "action": "complete"})

    assert error_of(response) == (400, HTML, *NOT_CONFIRMED)
    assert parse_page(response).text("detail") == (
        f"IR_14: This Payment could not be authenticated because it has a status of {before['status']}. "
        "The expected state is requires_customer_action"
    )
    assert retrieve(api, "pay_1") == before


def test_a_finished_challenge_sent_again_changes_nothing(api: Api, client: FlaskClient) -> None:
    secret = challenge(api)["client_secret"]
    assert open_page(client, "post", {"client_secret": secret, "action": "fail"}).status_code == 302

    response = open_page(client, "post", {"client_secret": secret, "action": "complete"})

    assert error_of(response) == (400, HTML, *FINISHED)
    assert retrieve(api, "pay_1")["status"] == "failed"


@pytest.mark.parametrize("fields", [{}, {"action": "cancel"}, {"action": "approve"}])
def test_a_form_without_one_of_its_answers_is_a_page_leading_back_to_the_shop(
    api: Api, client: FlaskClient, fields: dict[str, str]
) -> None:
    secret = challenge(api)["client_secret"]

    response = open_page(client, "post", {"client_secret": secret, **fields})

    assert error_of(response) == (400, HTML, *NO_SUCH_ANSWER)
    assert back_links(response) == [RETURN_URL]
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"


def test_the_link_back_is_the_payments_return_url_never_one_from_the_request(
    api: Api, client: FlaskClient
) -> None:
    secret = challenge(api, return_url="https://shop.example/orders/42?step=paid")["client_secret"]
    finish(api)

    finished = client.get(PAGE, query_string={"client_secret": secret, "return_url": "https://evil.example/"})
    mismatched = client.get(
        PAGE, query_string={"client_secret": "pay_1_secret_wrong", "return_url": "https://evil.example/"}
    )

    assert back_links(finished) == ["https://shop.example/orders/42?step=paid"]
    assert back_links(mismatched) == []


def test_a_form_over_the_size_limit_is_a_413_page() -> None:
    app = create_app(Settings(max_body_bytes=64))
    app.test_client_class = CheckedClient
    client = app.test_client()

    response = client.post(PAGE, data={"client_secret": "x" * 100, "action": "complete"})

    assert error_of(response) == (413, HTML, *TOO_LARGE)
    assert parse_page(response).text("detail") == "IR_06: Request body is larger than the limit of 64 bytes"
    assert back_links(response) == []


def test_an_unexpected_failure_is_a_500_page_with_the_link_back(
    api: Api, client: FlaskClient, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = challenge(api)["client_secret"]

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the store is gone")

    monkeypatch.setattr(sandbox.payments, "authenticate", broken)
    response = open_page(client, "post", {"client_secret": secret, "action": "complete"})

    assert error_of(response) == (500, HTML, *UNEXPECTED)
    assert back_links(response) == [RETURN_URL]
    assert "the store is gone" not in response.get_data(as_text=True)


def test_an_unknown_address_under_the_pages_is_still_the_apis_404(client: FlaskClient) -> None:
    response = client.get("/web/3ds/merchant_default")

    assert (response.status_code, response.content_type) == (404, "application/json")
    assert json.loads(response.get_data())["error"]["code"] == "IR_02"


def test_the_document_says_the_pages_refuse_with_html(app: Any) -> None:
    doc = document(app)

    page = {"$ref": "#/components/responses/PageError"}
    operations = doc["paths"]["/web/3ds/{merchant_id}/{payment_id}"]
    assert {status: operations["get"]["responses"][status] for status in ("400", "404")} == {
        "400": page,
        "404": page,
    }
    assert {status: operations["post"]["responses"][status] for status in ("400", "404", "413")} == {
        "400": page,
        "404": page,
        "413": page,
    }
    assert doc["components"]["responses"]["PageError"] == {
        "description": "Refused, with a page",
        "content": {"text/html": {"schema": {"type": "string"}}},
    }


# -- escaping ----------------------------------------------------------------------------------

HOSTILE = "<script>alert(\"x\")</script> & 'quoted'"
HOSTILE_URL = "https://shop.example/return?next=\"<script>alert('r')</script>\"&a='b'"


def test_the_page_escapes_the_description_it_shows(api: Api, client: FlaskClient) -> None:
    payment = challenge(api, description=HOSTILE, metadata={"note": HOSTILE}, return_url=HOSTILE_URL)

    response = client.get(payment["next_action"]["redirect_to_url"])

    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert (
        '<dd id="description">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;quoted&#39;</dd>'
        in html
    )
    assert "<script" not in html
    assert "'quoted'" not in html
    assert parse_page(response).text("description") == HOSTILE


def test_the_error_page_escapes_the_return_url_it_links_to(api: Api, client: FlaskClient) -> None:
    secret = challenge(api, description=HOSTILE, metadata={"note": HOSTILE}, return_url=HOSTILE_URL)[
        "client_secret"
    ]
    finish(api)

    response = client.get(PAGE, query_string={"client_secret": secret})

    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert (
        '<a id="back" class="button" href="https://shop.example/return?next=&#34;&lt;script&gt;'
        'alert(&#39;r&#39;)&lt;/script&gt;&#34;&amp;a=&#39;b&#39;">Return to the shop</a>'
    ) in html
    assert "<script" not in html
    assert back_links(response) == [HOSTILE_URL]


def test_the_error_page_escapes_what_the_request_sent(api: Api, client: FlaskClient) -> None:
    challenge(api)

    response = client.get(f"{PAGE}<script>", query_string={"client_secret": "<script>'x'"})

    html = response.get_data(as_text=True)
    assert error_of(response) == (404, HTML, *NOT_FOUND)
    assert "<script" not in html


UNKNOWN_MERCHANT_PAGES = [
    ("get", "/web/3ds/merchant_ghost_{n}/pay_x?client_secret=x"),
    ("post", "/web/3ds/merchant_ghost_{n}/pay_x?client_secret=x"),
    ("get", "/payment_link/merchant_ghost_{n}/plink_x"),
]


@pytest.mark.parametrize(("method", "path"), UNKNOWN_MERCHANT_PAGES, ids=["3ds", "3ds form", "link"])
def test_a_page_of_an_unknown_merchant_is_not_found_and_leaves_nothing_behind(
    client: FlaskClient, sandbox: Sandbox, method: str, path: str
) -> None:
    before = sorted(sandbox.store.merchant_ids())

    statuses = {getattr(client, method)(path.format(n=n)).status_code for n in range(20)}

    assert statuses == {404}
    assert sorted(sandbox.store.merchant_ids()) == before


def restored_with_return_url(api: Api, return_url: str) -> str:
    """The client secret of `pay_1`, a challenge whose return_url a snapshot written by hand set."""
    secret: str = challenge(api)["client_secret"]
    document = json.loads(json.dumps(ok(api.get("/__mock/snapshot"))).replace(RETURN_URL, return_url))
    ok(api.post("/__mock/restore", document))
    assert retrieve(api, "pay_1")["return_url"] == return_url
    return secret


@pytest.mark.parametrize("return_url", ["javascript:alert(document.domain)//", "http://[::1"])
def test_a_return_url_restored_that_leads_nowhere_is_refused_before_the_payment_moves(
    api: Api, client: FlaskClient, return_url: str
) -> None:
    secret = restored_with_return_url(api, return_url)

    response = open_page(client, "post", {"client_secret": secret, "action": "complete"})

    assert error_of(response) == (
        400,
        HTML,
        "This payment cannot send you back to the shop",
        "Its return address is not a web page, so nothing was done. Go back to the shop and start the "
        "payment again.",
    )
    assert back_links(response) == []
    assert retrieve(api, "pay_1")["status"] == "requires_customer_action"
