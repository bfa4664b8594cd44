"""LegacyCardService: the legacy card API's transactions, which are ordinary payments.

`initiate` creates a payment from a decimal amount, and with a card processes it at once; `unified`
processes a card through the same endpoint whether it ends at once (2D Secure) or waits for the
customer's 3D Secure challenge. Both go through PaymentService, so a transaction has the payment
state machine, the magic values, the 3DS page and the webhooks of the main API, and is visible as a
payment (its `transaction_id` is the `payment_id`). Errors name the legacy fields.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from mocksrv.domain.errors import DomainError, ResourceNotFound
from mocksrv.domain.legacy.amounts import minor_units
from mocksrv.domain.merchants import MerchantService
from mocksrv.domain.models import Payment
from mocksrv.domain.payments.service import PaymentService

# A legacy card's fields, by the names of the payments API's card.
CARD_FIELDS = {
    "card_number": "number",
    "card_exp_month": "expiry_month",
    "card_exp_year": "expiry_year",
    "card_cvc": "cvv",
    "card_holder_name": "holder_name",
}
# The payments API's name of a field in an error, and the legacy API's.
_LEGACY_PATHS = {
    **{f"payment_method_data.card.{ours}": f"card.{theirs}" for ours, theirs in CARD_FIELDS.items()},
    "payment_id": "transaction_id",
}
# Fields sent as they are to the payment.
_AS_SENT = ("description", "return_url", "capture_method", "email")


class LegacyCardService:
    def __init__(self, merchants: MerchantService, payments: PaymentService) -> None:
        self._merchants = merchants
        self._payments = payments

    def initiate(self, merchant_id: str, fields: Mapping[str, Any], gateway: str | None = None) -> Payment:
        """Create a payment; process it at once when a card is sent.

        The gateway, when named, must be the merchant's connector (HE_02 otherwise): the processor
        that its payments name.
        """
        merchant = self._merchants.merchant(merchant_id)
        if gateway is not None and gateway != merchant.connector:
            raise ResourceNotFound("Gateway")
        currency = fields["currency"]
        payment: dict[str, Any] = {
            "amount": minor_units(fields["amount"], currency),
            "currency": currency,
            "profile_id": merchant.profile_id,
            **{name: fields[name] for name in _AS_SENT if name in fields},
        }
        if "transaction_id" in fields:
            payment["payment_id"] = fields["transaction_id"]
        metadata = dict(fields.get("metadata") or {})
        if "order_id" in fields:  # where a webhook receiver looks for its order (spec section 6)
            metadata["order_id"] = fields["order_id"]
        if metadata:
            payment["metadata"] = metadata
        if "card" in fields:
            payment.update(_card_payment(fields), confirm=True)
        elif "three_ds" in fields:  # kept for the card `unified` sends later
            payment["authentication_type"] = _authentication_type(fields["three_ds"])
        with _legacy_names():
            return self._payments.create(merchant_id, payment)

    def unified(self, merchant_id: str, fields: Mapping[str, Any]) -> Payment:
        """Process a card: of an initiated transaction (`transaction_id`), or of a new one."""
        if "amount" in fields:
            return self.initiate(merchant_id, fields)
        changes = _card_payment(fields)
        if "return_url" in fields:
            changes["return_url"] = fields["return_url"]
        with _legacy_names():
            return self._payments.confirm(merchant_id, fields["transaction_id"], changes)


def _card_payment(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The payment fields of a legacy card, and of whether to ask for 3D Secure."""
    card = {ours: fields["card"][name] for ours, name in CARD_FIELDS.items() if name in fields["card"]}
    sent: dict[str, Any] = {
        "payment_method": "card",
        "payment_method_type": "credit",
        "payment_method_data": {"card": card},
    }
    if "three_ds" in fields:
        sent["authentication_type"] = _authentication_type(fields["three_ds"])
    return sent


def _authentication_type(three_ds: bool) -> str:
    return "three_ds" if three_ds else "no_three_ds"


@contextmanager
def _legacy_names() -> Iterator[None]:
    """Have an error of the payments API name the field as the legacy API calls it."""
    try:
        yield
    except DomainError as error:
        legacy = _LEGACY_PATHS.get(error.param or "")
        if legacy is not None and error.param is not None:
            error.message = error.message.replace(error.param, legacy)
            error.args = (error.message,)
            error.param = legacy
        raise
