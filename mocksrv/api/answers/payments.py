"""What /payments and /health answer.

A payment's fields as `payment_json` writes them. What a payment keeps as sent (its billing, order
lines, browser details, the method data whose answer is what was sent, and the real service's
fields in `ECHOED`) takes the types of the request schema that took it; an echoed field is
present only once a create or update has sent it. Other method data is answered as a summary
(`mocksrv/representations/method_data.py`).
"""

from __future__ import annotations

import copy
from typing import Any

from marshmallow import Schema, fields

from mocksrv.api import real_values, schemas
from mocksrv.api.answers.customers import CustomerDetailsAnswerSchema
from mocksrv.api.answers.links import PaymentLinkRefAnswerSchema
from mocksrv.api.schemas import splits
from mocksrv.contract import AnswerSchema, one_of
from mocksrv.domain.models import CaptureMethod
from mocksrv.domain.payments.cards import CARD_TYPES
from mocksrv.domain.payments.outcomes import CHECK_RESULTS
from mocksrv.domain.payments.states import PaymentStatus

# The kinds of method data a payment keeps; its `payment_method` is the kind sent.
METHOD_KINDS = [
    *(name for name in schemas.PaymentMethodDataSchema().fields if name != "billing"),
    *schemas.BARE_METHOD_DATA,
]
# A card's brand as `brand_of` reads it from the number; `card_network` is the brand when known.
CARD_NETWORKS = ["AmericanExpress", "Visa", "Mastercard", "Discover", "JCB", "DinersClub", "UnionPay"]
AUTHENTICATION_TYPES = ["three_ds", "no_three_ds"]
ATTEMPT_STATUSES = [
    "started",
    "authentication_pending",
    "authentication_failed",
    "authorization_failed",
    "authorized",
    "charged",
    "partial_charged",
    "partial_charged_and_chargeable",
    "pending",
    "unresolved",
    "voided",
    "expired",
]
NEXT_ACTION_TYPES = ["redirect_to_url", "qr_code_information", "display_bank_transfer_information"]


def _sent(schema: type[Schema], name: str) -> Any:
    """The request field `name` of `schema`, as an answer shows it back: present only when sent."""
    # The class's declared field, not an instance's: a field bound to the request schema would be
    # documented as a request field (optional, so also null). marshmallow keeps a class's fields,
    # unbound, in `_declared_fields`, which its metaclass fills; no public name reads them without
    # binding them (tests/api/test_openapi_document.py pins it).
    field = copy.deepcopy(schema._declared_fields[name])
    field.metadata = {**field.metadata, "optional": True}
    return field


def _echoed(name: str) -> Any:
    """A real-service field of a payment's create or update, shown back as sent (`ECHOED`)."""
    return _sent(schemas.PaymentFieldsSchema, name)


def _method(name: str) -> Any:
    return _sent(schemas.PaymentMethodDataSchema, name)


class HealthAnswerSchema(AnswerSchema):
    status = one_of(["healthy"])


class PaymentCardChecksAnswerSchema(AnswerSchema):
    cvc_check = one_of(CHECK_RESULTS)
    address_line1_check = one_of(CHECK_RESULTS)
    address_postal_code_check = one_of(CHECK_RESULTS)


class PaymentCardAnswerSchema(AnswerSchema):
    """What is kept of a card: of its number, the first six and the last four digits; no CVC."""

    last4 = fields.String()
    brand = one_of([*CARD_NETWORKS, "Unknown"])
    exp_month = fields.String()
    exp_year = fields.String()
    card_holder_name = fields.String(allow_none=True)
    card_network = one_of(CARD_NETWORKS, allow_none=True)
    card_type = one_of(CARD_TYPES, allow_none=True)
    card_issuer = fields.String()
    card_issuing_country = fields.String()
    card_isin = fields.String()
    card_exp_month = fields.String()
    card_exp_year = fields.String()
    payment_checks = fields.Nested(PaymentCardChecksAnswerSchema)


class CryptoAnswerSchema(AnswerSchema):
    pay_currency = fields.String(allow_none=True)
    network = fields.String(allow_none=True)


class NetworkTokenAnswerSchema(AnswerSchema):
    """A network token as kept: its last four digits, and the card's details as sent."""

    last4 = fields.String(allow_none=True)
    card_type = fields.String(allow_none=True)
    card_network = fields.String(allow_none=True)
    token_isin = fields.String(allow_none=True)
    card_issuer = fields.String(allow_none=True)
    card_issuing_country = fields.String(allow_none=True)
    token_exp_month = fields.String(allow_none=True)
    token_exp_year = fields.String(allow_none=True)
    card_holder_name = fields.String(allow_none=True)


def _summary(description: str) -> Any:
    return fields.Dict(metadata={"optional": True, "description": description})


class PaymentMethodDataAnswerSchema(AnswerSchema):
    """The one kind of method data the payment holds, under the kind's name, as the real service
    answers it (a summary); details of a shape not the real service's are shown as kept, with every
    card or account number cut to its last four digits (`****6789`) and no CVC."""

    card = fields.Nested(PaymentCardAnswerSchema, metadata={"optional": True})
    bank_transfer = _summary(
        "The kind (`{\"sepa\": {}}`); a Pix transfer's keys; a local transfer's bank code."
    )
    crypto = fields.Nested(CryptoAnswerSchema, metadata={"optional": True})
    wallet = _summary(
        'The card behind an Apple Pay, Google Pay or Samsung Pay token (`{"apple_pay": {"last4": ...,'
        ' "card_network": ..., "type": ...}}`); nothing for another wallet.'
    )
    card_redirect = _method("card_redirect")
    pay_later = _summary('`{"klarna_sdk": null}` unless paid with Klarna\'s SDK.')
    bank_redirect = _summary(
        "The bank (`bank_name`), and a Bancontact card's last four (`BancontactCard`), a BLIK code"
        " (`Blik`) or a Giropay account (`Giropay`)."
    )
    bank_debit = _summary(
        "The account by kind (`ach`, `sepa`, `bacs`, `becs`), its number cut to the last four."
    )
    real_time_payment = _method("real_time_payment")
    upi = _summary('The kind; a collect request\'s VPA (`{"upi_collect": {"vpa_id": ...}}`).')
    voucher = _method("voucher")
    gift_card = _summary('The kind; a Givex card\'s last four (`{"givex": {"last4": ...}}`).')
    card_token = _method("card_token")
    open_banking = _method("open_banking")
    mobile_payment = _method("mobile_payment")
    network_token = fields.Nested(NetworkTokenAnswerSchema, metadata={"optional": True})
    # Sent as the bare name "reward": the kind, with nothing in it.
    reward = fields.Dict(metadata={"optional": True})


class PaymentBillingAddressAnswerSchema(AnswerSchema):
    line1 = fields.String()
    line2 = fields.String(metadata={"optional": True})
    line3 = fields.String(metadata={"optional": True})
    city = fields.String()
    state = fields.String()
    zip = fields.String()
    country = fields.String()
    first_name = fields.String()
    last_name = fields.String()
    origin_zip = fields.String(metadata={"optional": True})


class PaymentBillingPhoneAnswerSchema(AnswerSchema):
    number = fields.String()
    country_code = fields.String()


class PaymentBillingAnswerSchema(AnswerSchema):
    """The billing as sent, beside the method data or in it (`BillingSchema`)."""

    address = fields.Nested(PaymentBillingAddressAnswerSchema)
    phone = fields.Nested(PaymentBillingPhoneAnswerSchema)
    email = fields.String(metadata={"optional": True})


class PaymentNextActionAnswerSchema(AnswerSchema):
    """Where to send the customer: the hosted authorization page, with the client secret; as a link
    (`redirect_to_url`), or as a QR code of the link for the methods paid by phone."""

    type = one_of(NEXT_ACTION_TYPES)
    redirect_to_url = fields.String(metadata={"optional": True})
    image_data_url = fields.String(metadata={"optional": True})
    qr_code_url = fields.String(metadata={"optional": True})
    display_to_timestamp = fields.Integer(allow_none=True, metadata={"optional": True})
    display_text = fields.String(allow_none=True, metadata={"optional": True})
    border_color = fields.String(allow_none=True, metadata={"optional": True})
    bank_transfer_steps_and_charges_details = fields.Dict(metadata={"optional": True})


class PaymentAttemptAnswerSchema(AnswerSchema):
    """The payment's attempt at the processor, with `expand_attempts`."""

    attempt_id = fields.String()
    status = one_of(ATTEMPT_STATUSES)
    amount = fields.Integer()
    currency = fields.String()
    connector = fields.String()
    connector_transaction_id = fields.String()
    payment_method = fields.String(allow_none=True)
    payment_method_type = one_of(real_values.PAYMENT_METHOD_TYPES, allow_none=True)
    capture_method = one_of(CaptureMethod)
    authentication_type = one_of(AUTHENTICATION_TYPES, allow_none=True)
    error_code = fields.String(allow_none=True)
    error_message = fields.String(allow_none=True)
    unified_code = fields.String(allow_none=True)
    unified_message = fields.String(allow_none=True)
    cancellation_reason = fields.String(allow_none=True)
    created_at = fields.String()
    modified_at = fields.String()


class PaymentCaptureAnswerSchema(AnswerSchema):
    """A capture of the payment's authorization, with `expand_captures`."""

    capture_id = fields.String()
    status = one_of(["charged"])
    amount = fields.Integer()
    currency = fields.String()
    connector = fields.String()
    authorized_attempt_id = fields.String()
    connector_capture_id = fields.String()
    capture_sequence = fields.Integer()
    error_message = fields.String(allow_none=True)
    error_code = fields.String(allow_none=True)
    error_reason = fields.String(allow_none=True)
    reference_id = fields.String(allow_none=True)
    created_at = fields.String()


class XenditSplitRuleAnswerSchema(AnswerSchema):
    """A Xendit split among accounts as sent, with the id of the split rule made for the payment."""

    split_rule_id = fields.String()
    name = fields.String()
    description = fields.String()
    for_user_id = _sent(splits.XenditMultipleSplitsSchema, "for_user_id")
    routes = fields.List(fields.Nested(splits.XenditRouteSchema))


class XenditSplitAnswerSchema(AnswerSchema):
    multiple_splits = fields.Nested(XenditSplitRuleAnswerSchema, metadata={"optional": True})
    single_split = _sent(splits.XenditSplitSchema, "single_split")


class SplitPaymentAnswerSchema(AnswerSchema):
    """The payment's split, one processor's kind, as sent (`splits.SplitPaymentSchema`)."""

    stripe_split_payment = _sent(splits.SplitPaymentSchema, "stripe_split_payment")
    adyen_split_payment = _sent(splits.SplitPaymentSchema, "adyen_split_payment")
    xendit_split_payment = fields.Nested(XenditSplitAnswerSchema, metadata={"optional": True})


class PaymentAnswerSchema(AnswerSchema):
    """A payment, with its disputes, refunds and customer.

    Null until the payment has them: the method fields until a method is attached, `next_action`
    outside requires_customer_action, `captured_at` before a capture, `cancelled_at` before a
    cancellation, the error fields (and `unified_*`) unless a decline or rejection set them,
    `connector_transaction_id` before the first confirmation, `customer` without a customer.
    """

    payment_id = fields.String()
    merchant_id = fields.String()
    profile_id = fields.String()
    status = one_of(PaymentStatus)
    amount = fields.Integer()
    amount_received = fields.Integer()
    amount_capturable = fields.Integer()
    amount_refunded = fields.Integer()
    currency = fields.String()
    capture_method = one_of(CaptureMethod)
    payment_method = one_of(METHOD_KINDS, allow_none=True)
    payment_method_type = one_of(real_values.PAYMENT_METHOD_TYPES, allow_none=True)
    payment_method_data = fields.Nested(PaymentMethodDataAnswerSchema, allow_none=True)
    authentication_type = one_of(AUTHENTICATION_TYPES, allow_none=True)
    client_secret = fields.String()
    expires_on = fields.String()
    customer_id = fields.String(allow_none=True)
    email = fields.String(allow_none=True)
    name = fields.String(allow_none=True)
    phone = fields.String(allow_none=True)
    phone_country_code = fields.String(allow_none=True)
    description = fields.String(allow_none=True)
    statement_descriptor = fields.String(allow_none=True)
    metadata = fields.Dict(allow_none=True)
    billing = fields.Nested(PaymentBillingAnswerSchema, allow_none=True)
    return_url = fields.String(allow_none=True)
    order_details = fields.List(fields.Nested(schemas.OrderLineSchema), allow_none=True)
    browser_info = fields.Nested(schemas.BrowserInfoSchema, allow_none=True)
    next_action = fields.Nested(PaymentNextActionAnswerSchema, allow_none=True)
    created = fields.String()
    modified_at = fields.String()
    captured_at = fields.String(allow_none=True)
    cancelled_at = fields.String(allow_none=True)
    cancellation_reason = fields.String(allow_none=True)
    error_code = fields.String(allow_none=True)
    error_message = fields.String(allow_none=True)
    disputes = fields.List(fields.Nested("DisputeAnswerSchema"))
    refunds = fields.List(fields.Nested("RefundAnswerSchema"))
    # The real service's names and fields, beside the spec's.
    net_amount = fields.Integer()
    attempt_count = fields.Integer()
    processor_merchant_id = fields.String()
    connector = fields.String()
    connector_transaction_id = fields.String(allow_none=True)
    unified_code = fields.String(allow_none=True)
    unified_message = fields.String(allow_none=True)
    customer = fields.Nested(CustomerDetailsAnswerSchema, allow_none=True)
    attempts = fields.List(fields.Nested(PaymentAttemptAnswerSchema), metadata={"optional": True})
    captures = fields.List(fields.Nested(PaymentCaptureAnswerSchema), metadata={"optional": True})
    # The real service's fields kept as sent (ECHOED in mocksrv/domain/payments/service.py).
    shipping = _echoed("shipping")
    setup_future_usage = _echoed("setup_future_usage")
    off_session = _echoed("off_session")
    mandate_data = _echoed("mandate_data")
    mandate_id = fields.String(allow_none=True)
    payment_method_id = fields.String(allow_none=True)
    payment_link = fields.Nested(PaymentLinkRefAnswerSchema, allow_none=True)
    statement_descriptor_name = _echoed("statement_descriptor_name")
    statement_descriptor_suffix = _echoed("statement_descriptor_suffix")
    payment_experience = _echoed("payment_experience")
    business_country = _echoed("business_country")
    business_label = _echoed("business_label")
    allowed_payment_method_types = _echoed("allowed_payment_method_types")
    connector_metadata = _echoed("connector_metadata")
    surcharge_details = _echoed("surcharge_details")
    frm_metadata = _echoed("frm_metadata")
    request_extended_authorization = _echoed("request_extended_authorization")
    merchant_order_reference_id = _echoed("merchant_order_reference_id")
    order_tax_amount = _echoed("order_tax_amount")
    shipping_cost = _echoed("shipping_cost")
    force_3ds_challenge = _echoed("force_3ds_challenge")
    is_iframe_redirection_enabled = _echoed("is_iframe_redirection_enabled")
    payment_channel = _echoed("payment_channel")
    enable_partial_authorization = _echoed("enable_partial_authorization")
    enable_overcapture = _echoed("enable_overcapture")
    is_stored_credential = _echoed("is_stored_credential")
    mit_category = _echoed("mit_category")
    billing_descriptor = _echoed("billing_descriptor")
    tokenization = _echoed("tokenization")
    partner_merchant_identifier_details = _echoed("partner_merchant_identifier_details")
    payment_token = _echoed("payment_token")
    split_payments = fields.Nested(SplitPaymentAnswerSchema, metadata={"optional": True})


class PaymentSummaryAnswerSchema(AnswerSchema):
    payment_id = fields.String()
    status = one_of(PaymentStatus)
    amount = fields.Integer()
    currency = fields.String()
    created = fields.String()


class PaymentListAnswerSchema(AnswerSchema):
    """The spec's list: a page of payment summaries."""

    count = fields.Integer()
    total_count = fields.Integer()
    data = fields.List(fields.Nested(PaymentSummaryAnswerSchema))


class PaymentPageAnswerSchema(AnswerSchema):
    """The real service's list: a page of whole payments."""

    size = fields.Integer()
    data = fields.List(fields.Nested(PaymentAnswerSchema))
