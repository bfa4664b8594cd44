"""How the legacy card API writes its token and its transactions (payments) in JSON."""

from __future__ import annotations

from typing import Any

from mocksrv.domain.legacy.amounts import major_units
from mocksrv.domain.legacy.tokens import IssuedToken
from mocksrv.domain.models import Payment
from mocksrv.representations import next_action, timestamp

Json = dict[str, Any]


def token_json(issued: IssuedToken) -> Json:
    return {"access_token": issued.access_token, "token_type": "Bearer", "expires_in": issued.expires_in}


def transaction_json(payment: Payment, base_url: str) -> Json:
    action = next_action(payment, base_url)
    return {
        "transaction_id": payment.payment_id,
        "status": payment.status.value,
        "amount": major_units(payment.amount, payment.currency),
        "currency": payment.currency,
        "amount_minor_units": payment.amount,
        "order_id": _order_id(payment),
        "card": _card_json(payment),
        "redirect_url": None if action is None else action.get("redirect_to_url"),
        "error_code": payment.error_code,
        "error_message": payment.error_message,
        "created": timestamp(payment.created),
    }


def _order_id(payment: Payment) -> str | None:
    order_id = (payment.metadata or {}).get("order_id")
    return order_id if isinstance(order_id, str) else None


def _card_json(payment: Payment) -> Json | None:
    card = (payment.payment_method_data or {}).get("card")
    if card is None:
        return None
    return {
        "last4": card["last4"],
        "brand": card["brand"],
        "expiry_month": card["exp_month"],
        "expiry_year": card["exp_year"],
        "holder_name": card.get("card_holder_name"),
    }
