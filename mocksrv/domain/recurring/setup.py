"""What a confirmation sets up for paying again: the saved method's id, and a pending mandate."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from mocksrv.domain.clock import parse_timestamp
from mocksrv.domain.errors import InvalidField
from mocksrv.domain.ids import SYSTEM, Entropy, new_id
from mocksrv.domain.models import Payment, build
from mocksrv.domain.recurring.records import Mandate, MandateStatus, MandateType


def set_up(
    payment: Payment,
    changes: dict[str, Any],
    now: datetime,
    has_customer: Callable[[str], bool],
    entropy: Entropy = SYSTEM,
    saved_card: str | None = None,
) -> Mandate | None:
    """At the confirmation of a payment that saves its method or sets up a mandate: name the method
    it saves in `changes`, with the mandate; returns the mandate to store (pending), if any.
    `has_customer` says whether the payment's customer is still there (it may be deleted since);
    `saved_card` is the id of the method its customer saved before with the card it sends, if any
    (`MethodResolver.saved_card`), which it names rather than a new one."""
    merchant_id = payment.merchant_id
    echoed = payment.echoed or {}
    mandate_data = echoed.get("mandate_data")
    if mandate_data is None and echoed.get("setup_future_usage") is None:
        return None
    if payment.customer_id is None:
        raise InvalidField(
            "customer_id",
            "a payment that saves its method or sets up a mandate needs a customer",
            missing=True,
        )
    if not has_customer(payment.customer_id):
        raise InvalidField("customer_id", "no such customer: it was deleted after the payment named it")
    if saved_card is not None:
        changes["method_saved_before"] = True
    method_id = payment.payment_method_id or saved_card or new_id("pm", entropy=entropy)
    changes["payment_method_id"] = method_id
    if mandate_data is None:
        return None
    acceptance = mandate_data.get("customer_acceptance") or payment.customer_acceptance
    if acceptance is None:
        raise InvalidField("mandate_data.customer_acceptance", missing=True)
    changes["mandate_id"] = mandate_id = new_id("man", entropy=entropy)
    kind, limits = _mandate_type(mandate_data)
    card = (payment.payment_method_data or {}).get("card")
    return build(
        Mandate,
        mandate_id=mandate_id,
        merchant_id=merchant_id,
        status=MandateStatus.PENDING,
        created=now,
        updated_at=now,
        payment_id=payment.payment_id,
        payment_method_id=method_id,
        payment_method=payment.payment_method or "card",
        customer_id=payment.customer_id,
        payment_method_type=payment.payment_method_type,
        card=card,
        customer_acceptance=acceptance,
        mandate_type=kind,
        amount=limits.get("amount"),
        currency=limits.get("currency"),
        start_date=_moment(limits.get("start_date")),
        end_date=_moment(limits.get("end_date")),
        metadata=limits.get("metadata"),
    )


def sets_up(fields: Mapping[str, Any]) -> bool:
    """Whether a payment sets up a mandate or saves its method: one that may be for 0."""
    return fields.get("mandate_data") is not None or fields.get("setup_future_usage") is not None


def _mandate_type(mandate_data: Mapping[str, Any]) -> tuple[MandateType, Mapping[str, Any]]:
    """Single or multi use, and its limits; a mandate without a type is multi use, without limits."""
    mandate_type = mandate_data.get("mandate_type") or {}
    if mandate_type.get("single_use") is not None:
        return MandateType.SINGLE_USE, mandate_type["single_use"]
    return MandateType.MULTI_USE, mandate_type.get("multi_use") or {}


def _moment(text: str | None) -> datetime | None:
    """A mandate's date, as sent (checked as ISO 8601 by the request schema); without an offset, UTC."""
    return None if text is None else parse_timestamp(text)
