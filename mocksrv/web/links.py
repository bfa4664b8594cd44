"""The hosted page of a payment link: the seller, the amount, the SDK's payment element, and then
the payment's status. An expired or used link says so; it never shows the API's JSON."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from flask import Blueprint, render_template, request
from werkzeug.wrappers import Response

from mocksrv.contract import Auth, documented
from mocksrv.domain.errors import ResourceNotFound
from mocksrv.domain.links.records import PaymentLink, PaymentLinkStatus
from mocksrv.domain.models import Payment
from mocksrv.domain.payments.cards import CARD_TYPES
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.representations import challenge_path, payment_link_path
from mocksrv.rest import base_url, sandbox
from mocksrv.web.pages import ErrorText, format_amount, link_back_to, serve_errors_as_pages, shop_link

link_pages = Blueprint("link_pages", __name__, template_folder="templates")
serve_errors_as_pages(
    link_pages,
    {
        ResourceNotFound: ErrorText(
            "Payment link not found",
            "There is no such link: it may be mistyped. Ask the seller for the link to pay.",
        )
    },
)

_T = TypeVar("_T")
SDK_VERSION = "0.1"
_PAYABLE = frozenset({PaymentStatus.REQUIRES_PAYMENT_METHOD, PaymentStatus.REQUIRES_CONFIRMATION})
# What the page says of a payment that no longer waits for a method, by its status.
_OUTCOMES = {
    PaymentStatus.SUCCEEDED: ErrorText("Payment complete", "Thank you: the payment has been received."),
    PaymentStatus.REQUIRES_CAPTURE: ErrorText(
        "Payment authorized", "Thank you: the payment is authorized and will be taken when the order ships."
    ),
    PaymentStatus.PROCESSING: ErrorText(
        "Payment processing", "The payment is on its way; the seller is told when it arrives."
    ),
    PaymentStatus.FAILED: ErrorText("Payment failed", "The payment was declined; nothing was taken."),
    PaymentStatus.CANCELLED: ErrorText("Payment cancelled", "The payment was cancelled; nothing was taken."),
    PaymentStatus.REQUIRES_CUSTOMER_ACTION: ErrorText(
        "Payment waiting for you", "The payment waits for you to authorize it."
    ),
}
_OTHER = ErrorText("Payment in progress", "The seller is handling this payment.")
_EXPIRED = ErrorText("This link has expired", "Ask the seller for a new link to pay.")


@link_pages.get(payment_link_path("<id:merchant_id>", "<id:payment_link_id>"))
@documented(auth=Auth.NONE, content_type="text/html", errors=(404, 410))
def payment_link_page(merchant_id: str, payment_link_id: str) -> str | Response:
    """The link's checkout while it takes its payment; afterwards the payment's status."""
    link, payment = sandbox().payment_links.for_page(merchant_id, payment_link_id)
    profile = sandbox().merchants.profile_or_default(merchant_id, link.profile_id)
    shop = link.return_url  # never the payment's: the payer may name it, with the public key and secret
    # What the payment charges, as it stands: the merchant may have updated it since the link was made.
    context = {
        "link": link,
        "seller": _configured(link, "seller_name", str) or profile.profile_name,
        "amount": format_amount(payment.amount, payment.currency),
        "description": payment.description,
        "details": _configured(link, "transaction_details", list) or [],
    }
    if link.status is PaymentLinkStatus.ACTIVE and payment.status in _PAYABLE:
        return render_template("payment_link.html", **context, checkout=_checkout(link, payment))
    if link.status is PaymentLinkStatus.EXPIRED and payment.status in _PAYABLE:
        html = render_template("payment_link_status.html", **context, text=_EXPIRED, status="expired")
        return Response(html, status=410, mimetype="text/html")
    link_back_to(shop)
    action = None
    if payment.status is PaymentStatus.REQUIRES_CUSTOMER_ACTION and payment.payment_method != "bank_transfer":
        action = f"{challenge_path(merchant_id, payment.payment_id)}?client_secret={payment.client_secret}"
    return render_template(
        "payment_link_status.html",
        **context,
        text=_OUTCOMES.get(payment.status, _OTHER),
        status=payment.status.value,
        payment=payment,
        error_message=payment.error_message,
        action=action,
        back=shop_link(shop),
    )


def _checkout(link: PaymentLink, payment: Payment) -> dict[str, object]:
    """What the page's script needs: the keys and options of the SDK, and where to come back."""
    merchant = sandbox().merchants.merchant(link.merchant_id)
    layout = _configured(link, "sdk_layout", str) or ""
    return {
        "publishableKey": merchant.publishable_key,
        "clientSecret": payment.client_secret,
        "layout": "accordion" if "accordion" in layout else "tabs",
        "allowedPaymentMethodTypes": link.allowed_payment_method_types,
        "requireCustomerInfo": link.require_customer_info,
        "customerInfoUrl": f"/payment_link/{link.payment_link_id}/customer_info",
        "returnUrl": base_url().rstrip("/") + request.path,
        "sdkUrl": f"/web/{SDK_VERSION}/v1/HyperLoader.js",
        "terms": _terms(link),
    }


def _configured(link: PaymentLink, key: str, kind: type[_T]) -> _T | None:
    """A value of the link's config, if it has the type the API takes: a config restored from a
    snapshot written by hand may hold any JSON, which the page shows as if absent."""
    value = (link.config or {}).get(key)
    return value if isinstance(value, kind) else None


def _custom_messages(config: Mapping[str, Any]) -> Iterator[tuple[Any, Any, Mapping[str, Any]]]:
    """(payment method, method type, message) of each custom message of the config, in the real
    service's list shape; a config kept in another (by a version before it checked the shape, in a
    state file or snapshot) shows none of it."""
    methods = config.get("custom_message_for_payment_method_types")
    for method in methods if isinstance(methods, list) else ():
        types = method.get("payment_method_types") if isinstance(method, Mapping) else None
        for terms in types if isinstance(types, list) else ():
            message = terms.get("message") if isinstance(terms, Mapping) else None
            if isinstance(message, Mapping) and isinstance(message.get("value"), str):
                yield method.get("payment_method"), terms.get("payment_method_type"), message


def _terms(link: PaymentLink) -> dict[str, str]:
    """The message to show under the payment form while a method is chosen, by the element's name of
    the method (`card`, `klarna`, ...): the link's custom message for the method type it pays with.

    The element pays a card as the first card type the link allows (credit, unless it allows debit
    only); a message whose display mode is `hidden`, or the SDK's default (which has none), is not
    shown."""
    allowed = link.allowed_payment_method_types
    card_type = next((kind for kind in CARD_TYPES if not allowed or kind in allowed), None)
    shown: dict[str, str] = {}
    for method, method_type, message in _custom_messages(link.config or {}):
        if message.get("display_mode", "custom_message") != "custom_message":
            continue
        if method != "card":
            shown[method_type] = message["value"]
        elif method_type == card_type:
            shown["card"] = message["value"]
    return shown
