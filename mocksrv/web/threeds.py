"""The hosted authorization page that a payment's next_action sends the customer to.

One page for every method that sends the customer somewhere: 3D Secure for a card, the provider's
page for pay later, bank redirects and wallet redirects (the link of a QR code for the methods paid
by phone). It names the method and the amount, and offers Complete (Authorize) and Fail, and
Cancel for the methods other than cards; each returns to the payment's `return_url`, signed.
Whatever goes wrong is shown as a page too (`mocksrv.web.pages`), never as the API's JSON.
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request
from werkzeug.exceptions import NotFound
from werkzeug.wrappers import Response

from mocksrv.contract import Auth, documented
from mocksrv.domain.errors import ClientSecretMissing, InvalidField, InvalidState
from mocksrv.domain.models import Payment
from mocksrv.domain.payments.states import PAYMENT_TRANSITIONS, PaymentStatus
from mocksrv.domain.signing import signed_redirect
from mocksrv.representations import challenge_path
from mocksrv.rest import sandbox
from mocksrv.web.pages import ErrorText, format_amount, link_back_to, serve_errors_as_pages, shop_link


class NotYetConfirmed(InvalidState):
    """A payment its shop has not confirmed yet: nothing is asked of the customer so far."""


class NoWayBack(InvalidField):
    """A return_url no browser can be sent to: only a snapshot written by hand can have stored it."""

    def __init__(self) -> None:
        super().__init__("return_url", "an http or https URL to send the payer back to")


# The statuses of a payment before its confirmation, when its next_action can send no one here.
_NOT_CONFIRMED = (PaymentStatus.REQUIRES_PAYMENT_METHOD, PaymentStatus.REQUIRES_CONFIRMATION)

threeds = Blueprint("threeds", __name__, template_folder="templates")
serve_errors_as_pages(
    threeds,
    {
        # Opened from an address made by hand, or before the shop confirmed the payment.
        NotYetConfirmed: ErrorText(
            "This payment is not ready to authorize",
            "The shop has not confirmed this payment yet, so there is nothing to authorize here. "
            "Return to the shop and pay from there.",
        ),
        # Reopening the page (the back button, a second tab) once the customer has answered.
        InvalidState: ErrorText(
            "This payment is already finished",
            "The customer's part of this payment is done, so there is nothing left to do here. "
            "Return to the shop to see the result.",
        ),
        NoWayBack: ErrorText(
            "This payment cannot send you back to the shop",
            "Its return address is not a web page, so nothing was done. Go back to the shop and start "
            "the payment again.",
        ),
        # Only the form's `action` can be wrong once the secret has matched.
        InvalidField: ErrorText(
            "This answer is not one the page offers",
            "The form was sent without one of the page's buttons. Reload the page and press one of them.",
        ),
    },
)

# How the page names a method type; any other is named from its value ("bank_x" -> "Bank X").
METHOD_NAMES = {
    "klarna": "Klarna",
    "affirm": "Affirm",
    "afterpay_clearpay": "Afterpay / Clearpay",
    "ideal": "iDEAL",
    "eps": "EPS",
    "giropay": "giropay",
    "sofort": "Sofort",
    "przelewy24": "Przelewy24",
    "bancontact_card": "Bancontact",
    "blik": "BLIK",
    "paypal": "PayPal",
    "ali_pay": "Alipay",
    "we_chat_pay": "WeChat Pay",
}
_CANCELLED_REASON = "cancelled by the customer on the authorization page"


def method_name(payment: Payment) -> str:
    method_type = payment.payment_method_type or payment.payment_method or "card"
    if payment.payment_method == "card":
        return "Card"
    return METHOD_NAMES.get(method_type, method_type.replace("_", " ").capitalize())


def card_line(payment: Payment) -> str | None:
    """The card as the page names it ("Visa ending in 3063"); None for another method."""
    card = (payment.payment_method_data or {}).get("card") if payment.payment_method == "card" else None
    if not isinstance(card, dict):
        return None
    return f"{card.get('brand')} ending in {card.get('last4')}"


def _client_secret() -> str:
    secret = request.values.get("client_secret")
    if not secret:
        raise ClientSecretMissing()
    return secret


def _payment(merchant_id: str, payment_id: str, client_secret: str) -> Payment:
    """The payment whose secret the page was given; from here on, its errors link back to the shop.
    A bank transfer has no page: it is paid when the control plane says the transfer arrived."""
    payment = sandbox().payments.retrieve(merchant_id, payment_id, client_secret, secret_required=True)
    link_back_to(payment.return_url)
    if payment.payment_method == "bank_transfer":
        raise NotFound("A bank transfer is paid from the customer's bank, not on an authorization page.")
    if payment.status in _NOT_CONFIRMED:
        expected = [PaymentStatus.REQUIRES_CUSTOMER_ACTION.value]
        raise NotYetConfirmed("Payment", "authenticated", payment.status.value, expected)
    return payment


@threeds.get(challenge_path("<merchant_id>", "<payment_id>"))
@documented(auth=Auth.NONE, content_type="text/html", errors=(400, 404))
def challenge(merchant_id: str, payment_id: str) -> str:
    """The page: the customer authorizes the payment, fails it, or (not for a card) cancels it."""
    client_secret = _client_secret()
    payment = _payment(merchant_id, payment_id, client_secret)
    PAYMENT_TRANSITIONS.check_action(payment.status, "authenticate")
    card = payment.payment_method == "card"
    name = method_name(payment)
    return render_template(
        "threeds.html",
        payment=payment,
        client_secret=client_secret,
        amount=format_amount(payment.amount, payment.currency),
        card=card_line(payment),
        heading="3D Secure authentication" if card else f"Pay with {name}",
        prompt="Your bank asks you to confirm this payment."
        if card
        else f"Authorize this payment with {name}.",
        method=name,
        complete_label="Complete" if card else "Authorize",
        cancellable=not card,
    )


@threeds.post(challenge_path("<merchant_id>", "<payment_id>"))
@documented(auth=Auth.NONE, status=302, content_type="text/html", errors=(400, 404))
def finish(merchant_id: str, payment_id: str) -> Response:
    """Finish from the page's form, and redirect to the payment's return_url, signed."""
    client_secret = _client_secret()
    payments = sandbox().payments
    payment = _payment(merchant_id, payment_id, client_secret)
    action = request.form.get("action")
    allowed = ("complete", "fail") if payment.payment_method == "card" else ("complete", "fail", "cancel")
    if action not in allowed:
        raise InvalidField("action", " or ".join(allowed), missing=action is None)
    # The page is only offered to payments with a return_url; one restored from a snapshot written
    # by hand may not lead anywhere: refused before the payment moves, not after.
    return_url = shop_link(payment.return_url)
    if return_url is None:
        raise NoWayBack()
    if action == "cancel":
        payment = payments.cancel(merchant_id, payment_id, _CANCELLED_REASON, awaiting="authenticate")
    else:
        payment = payments.authenticate(merchant_id, payment_id, completed=action == "complete")
    # Signed with the key of the payment's profile, which the shop's return page checks it with.
    profile = sandbox().merchants.profile_or_default(merchant_id, payment.profile_id)
    params = {
        "status": payment.status.value,
        "payment_id": payment.payment_id,
        "payment_intent_client_secret": payment.client_secret,
        "amount": str(payment.amount),
    }
    location = signed_redirect(return_url, params, profile.payment_response_hash_key)
    return redirect(location, code=302)
