"""What a request to a payment sends: the checks it must pass and the changes it makes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from mocksrv.domain.customers import CUSTOMERS
from mocksrv.domain.errors import ClientSecretInvalid, ClientSecretMissing, InvalidField
from mocksrv.domain.ids import new_id, same_secret
from mocksrv.domain.models import CaptureMethod, Payment
from mocksrv.domain.payments.fields import described_fields, makes_split_rule
from mocksrv.domain.payments.method_data import Paying
from mocksrv.domain.payments.outcomes import outcome_context
from mocksrv.domain.recurring.setup import sets_up
from mocksrv.domain.store import MemoryStore


def sent_changes(
    store: MemoryStore, payment: Payment, fields: Mapping[str, Any], now: datetime
) -> dict[str, Any]:
    """The changes an update or a confirmation sends, but for what it pays with."""
    if fields.get("payment_id", payment.payment_id) != payment.payment_id:
        raise InvalidField("payment_id", "names another payment than the path does")
    check_customer(store, payment.merchant_id, fields)
    changes = described_fields(fields, payment.echoed)
    changes.update({name: fields[name] for name in ("amount", "currency") if name in fields})
    if "capture_method" in fields:
        changes["capture_method"] = CaptureMethod(fields["capture_method"])
    if "session_expiry" in fields:
        if payment.payment_link_id is not None:  # its page would go on showing a checkout it refuses
            raise InvalidField(
                "session_expiry", "the client secret of a link's payment lives as long as the link"
            )
        changes["client_secret_expires_at"] = now + timedelta(seconds=fields["session_expiry"])
    return changes


def split_rule_change(store: MemoryStore, payment: Payment, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The payment's split rule id as the changes make it, if they make one: `{}` otherwise."""
    made = split_rule_id(store, payment.merchant_id, payment.split_rule_id, changes.get("echoed"))
    return {} if made == payment.split_rule_id else {"split_rule_id": made}


def split_rule_id(
    store: MemoryStore, merchant_id: str, made: str | None, echoed: Mapping[str, Any] | None
) -> str | None:
    """The id of the payment's split rule: made once, when the payment first holds a split that
    makes one (`makes_split_rule`), and kept from then on, whatever split an update sends."""
    if made is None and makes_split_rule(echoed):
        return new_id("splitru", entropy=store.ids(merchant_id))  # as Xendit names its rules
    return made


def paying_for(
    payment: Payment, fields: Mapping[str, Any], changes: Mapping[str, Any], *, by_customer: bool = False
) -> Paying:
    """What an update or a confirmation pays with, as the payment stands with its changes;
    `by_customer` for a confirmation from the customer's browser (the publishable key)."""
    echoed = changes.get("echoed", payment.echoed)
    return Paying(
        payment.merchant_id,
        fields,
        changes.get("customer_id", payment.customer_id),
        changes.get("billing", payment.billing),
        outcome_context(echoed, changes.get("authentication_type", payment.authentication_type)),
        saves=sets_up(echoed or {}),
        by_customer=by_customer,
    )


def check_customer(store: MemoryStore, merchant_id: str, fields: Mapping[str, Any]) -> None:
    """Refuse a `customer_id` (or `customer.id`) that names none of the merchant's customers (IR_04)."""
    customer_id, path = fields.get("customer_id"), "customer_id"
    customer = fields.get("customer")
    if customer_id is None and customer is not None:
        customer_id, path = customer.get("id"), "customer.id"
    if customer_id is not None and store.get(CUSTOMERS, merchant_id, customer_id) is None:
        raise InvalidField(path, "no such customer; create it with POST /customers first")


def check_client_secret(payment: Payment, client_secret: str | None, required: bool) -> None:
    if client_secret is None:
        if required:
            raise ClientSecretMissing()
        return
    if not same_secret(client_secret, payment.client_secret):
        raise ClientSecretInvalid()
