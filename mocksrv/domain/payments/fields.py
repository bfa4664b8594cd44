"""The fields of a payment's create, update and confirm that are copied onto it as sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Fields copied as given from a create or update body onto the payment.
_DESCRIPTIVE = (
    "customer_id",
    "email",
    "name",
    "phone",
    "phone_country_code",
    "description",
    "statement_descriptor",
    "metadata",
    "billing",
    "return_url",
    "order_details",
    "browser_info",
    "authentication_type",
    "customer_acceptance",
)

# Fields of the real service's payment request that mocksrv does not act on but keeps as sent and
# shows in every answer about the payment, as the real service's payment response does.
ECHOED = (
    "shipping",
    "setup_future_usage",
    "off_session",
    "mandate_data",
    "statement_descriptor_name",
    "statement_descriptor_suffix",
    "payment_experience",
    "business_country",
    "business_label",
    "allowed_payment_method_types",
    "connector_metadata",
    "surcharge_details",
    "frm_metadata",
    "request_extended_authorization",
    "merchant_order_reference_id",
    "order_tax_amount",
    "shipping_cost",
    "force_3ds_challenge",
    "is_iframe_redirection_enabled",
    "payment_channel",
    "enable_partial_authorization",
    "enable_overcapture",
    "is_stored_credential",
    "mit_category",
    "billing_descriptor",
    "tokenization",
    "partner_merchant_identifier_details",
    "payment_token",
    "split_payments",
)


def described_fields(fields: Mapping[str, Any], echoed: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a create or update body sets of the payment's descriptive and echoed fields.

    `customer.id` names the customer as `customer_id` does, and the billing sent inside
    `payment_method_data` is the payment's billing when none is sent beside it.
    """
    described = {name: fields[name] for name in _DESCRIPTIVE if name in fields}
    customer = fields.get("customer")
    if customer is not None and "customer_id" not in described and customer.get("id") is not None:
        described["customer_id"] = customer["id"]
    billing = method_billing(fields)
    if "billing" not in described and billing is not None:
        described["billing"] = billing
    sent = {name: fields[name] for name in ECHOED if name in fields}
    if sent:
        described["echoed"] = {**(echoed or {}), **sent}
    return described


def method_billing(fields: Mapping[str, Any]) -> Any:
    """The billing sent inside `payment_method_data`, if any: the payment's when none is beside it."""
    method_data = fields.get("payment_method_data")
    return None if method_data is None else method_data.get("billing")


def makes_split_rule(echoed: Mapping[str, Any] | None) -> bool:
    """Whether the payment's split is a Xendit split among several accounts: a split rule, which
    the processor makes for the payment and names by an id of its own."""
    split = (echoed or {}).get("split_payments")
    xendit = split.get("xendit_split_payment") if isinstance(split, Mapping) else None
    # As the schema takes it, an object of accounts; kept otherwise by a version before it checked
    # splits (a state file, a snapshot), and shown as kept.
    return isinstance(xendit, Mapping) and isinstance(xendit.get("multiple_splits"), Mapping)
