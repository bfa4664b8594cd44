"""The 3D Secure challenge page that a payment's next_action sends the customer to."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request
from werkzeug.wrappers import Response

from mocksrv.contract import Auth, documented
from mocksrv.domain.errors import ClientSecretMissing, InvalidField
from mocksrv.domain.payment_states import PAYMENT_TRANSITIONS
from mocksrv.domain.signing import signed_redirect
from mocksrv.representations import challenge_path
from mocksrv.rest import sandbox

threeds = Blueprint("threeds", __name__, template_folder="templates")


def _client_secret() -> str:
    secret = request.values.get("client_secret")
    if not secret:
        raise ClientSecretMissing()
    return secret


@threeds.get(challenge_path("<merchant_id>", "<payment_id>"))
@documented(auth=Auth.NONE, content_type="text/html", errors=(400,))
def challenge(merchant_id: str, payment_id: str) -> str:
    """The challenge page: the customer completes or fails the authentication."""
    client_secret = _client_secret()
    payment = sandbox().payments.retrieve(merchant_id, payment_id, client_secret, secret_required=True)
    PAYMENT_TRANSITIONS.check_action(payment.status, "authenticate")
    return render_template("threeds.html", payment=payment, client_secret=client_secret)


@threeds.post(challenge_path("<merchant_id>", "<payment_id>"))
@documented(auth=Auth.NONE, status=302, content_type="text/html", errors=(400, 413))
def finish(merchant_id: str, payment_id: str) -> Response:
    """Finish the challenge from its form, and redirect to the payment's return_url, signed."""
    client_secret = _client_secret()
    payments = sandbox().payments
    payments.retrieve(merchant_id, payment_id, client_secret, secret_required=True)
    action = request.form.get("action")
    if action not in ("complete", "fail"):
        raise InvalidField("action", "complete or fail", missing=action is None)
    payment = payments.authenticate(merchant_id, payment_id, completed=action == "complete")
    profile = sandbox().merchants.default_profile(merchant_id)
    params = {
        "status": payment.status.value,
        "payment_id": payment.payment_id,
        "payment_intent_client_secret": payment.client_secret,
        "amount": str(payment.amount),
    }
    # The challenge is only offered to payments with a return_url, so it is always there.
    location = signed_redirect(payment.return_url or "", params, profile.payment_response_hash_key)
    return redirect(location, code=302)
