"""Request schemas of /payments: every field table of the spec, checked field by field."""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, ValidationError, fields, post_load, validate, validates_schema

from mocksrv.api import real_values
from mocksrv.api.real_connectors import CONNECTORS
from mocksrv.api.schemas.common import (
    INT32_MAX,
    Amount,
    BillingSchema,
    BrowserInfoSchema,
    ContactSchema,
    Country,
    Currency,
    CustomerDetailsSchema,
    Minor,
    ObjectOrName,
    OneOf,
    PageSchema,
)
from mocksrv.api.schemas.links import PaymentLinkConfigSchema
from mocksrv.api.schemas.method_data import (
    CustomerAcceptanceSchema,
    MandateDataSchema,
    MethodData,
    RecurringDetailsSchema,
)
from mocksrv.api.schemas.splits import SplitPaymentSchema
from mocksrv.domain.models import MAX_SESSION_EXPIRY
from mocksrv.domain.money import MAX_AMOUNT
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.domain.store import Query
from mocksrv.fieldtypes import (
    PHONE_COUNTRY_CODE,
    PHONE_NUMBER,
    RESOURCE_ID,
    FreeForm,
    HttpUrl,
    Number,
    StrictBoolean,
    StrictInteger,
    Text,
    TimestampText,
)
from mocksrv.schema import QuerySchema, RequestSchema

DESCRIPTOR_LIMIT = 22
PAYMENT_METHODS = real_values.PAYMENT_METHODS


PAYMENT_CHANNELS = ("ecommerce", "mail_order", "telephone_order")


def _names_another_channel(value: Any) -> None:
    if isinstance(value, dict) and (set(value) != {"other"} or not isinstance(value["other"], str)):
        raise ValidationError('An object names another channel, as {"other": "kiosk"}.')


class OrderLineSchema(RequestSchema):
    """A line of `order_details`: named by the spec's `name` or the real service's `product_name`."""

    name = fields.String()
    product_name = fields.String()
    # 0 to a 32-bit integer, as the real service takes it (a line of no items, a free gift's).
    quantity = StrictInteger(required=True, validate=validate.Range(0, INT32_MAX))
    amount = StrictInteger(required=True, validate=validate.Range(min=0, max=MAX_AMOUNT))
    currency = Currency()
    tax_rate = Number()
    total_tax_amount = StrictInteger(validate=validate.Range(min=0, max=MAX_AMOUNT))
    requires_shipping = StrictBoolean()
    product_img_link = fields.String()
    product_id = fields.String()
    category = fields.String()
    sub_category = fields.String()
    brand = fields.String()
    product_type = OneOf(real_values.PRODUCT_TYPES)
    product_tax_code = fields.String()
    description = fields.String()
    sku = fields.String()
    upc = fields.String()
    commodity_code = fields.String()
    unit_of_measure = fields.String()
    total_amount = StrictInteger(validate=validate.Range(min=0, max=MAX_AMOUNT))
    unit_discount_amount = StrictInteger(validate=validate.Range(min=0, max=MAX_AMOUNT))

    @validates_schema
    def named(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "name" not in data and "product_name" not in data:
            raise ValidationError("Missing data for required field.", "name")


class CavvSchema(RequestSchema):
    authentication_cryptogram = fields.String()


class CryptogramSchema(RequestSchema):
    cavv = fields.Nested(CavvSchema, required=True)


class CartesBancairesSchema(RequestSchema):
    cavv_algorithm = OneOf(real_values.CAVV_ALGORITHMS)
    cb_exemption = fields.String(required=True)
    cb_score = StrictInteger(required=True, validate=validate.Range(-(2**31), 2**31 - 1))


class NetworkParamsSchema(RequestSchema):
    cartes_bancaires = fields.Nested(CartesBancairesSchema)


class ThreeDsDataSchema(RequestSchema):
    """The result of a 3D Secure authentication made outside the payment (`three_ds_data`)."""

    authentication_cryptogram = fields.Nested(CryptogramSchema, required=True)
    ds_trans_id = fields.String(required=True)
    version = fields.String(required=True)
    eci = fields.String(required=True)
    transaction_status = OneOf(real_values.THREE_DS_TRANSACTION_STATUSES, required=True)
    exemption_indicator = OneOf(real_values.EXEMPTION_INDICATORS)
    network_params = fields.Nested(NetworkParamsSchema)


class SurchargeSchema(RequestSchema):
    surcharge_amount = StrictInteger(required=True, validate=validate.Range(min=0, max=MAX_AMOUNT))
    tax_amount = StrictInteger(validate=validate.Range(min=0, max=MAX_AMOUNT))


class BillingDescriptorSchema(RequestSchema):
    name = fields.String()
    city = fields.String()
    phone = fields.String()
    statement_descriptor = fields.String()
    statement_descriptor_suffix = fields.String()
    reference = fields.String()


class BillingRule(RequestSchema):
    @validates_schema
    def billing_goes_with_method(self, data: dict[str, Any], **kwargs: Any) -> None:
        method_data = data.get("payment_method_data")
        # A mandate to charge, or a saved card's CVC, names no new method to bill.
        names_no_method = method_data is not None and set(method_data) <= {"mandate_payment", "card_token"}
        if (
            method_data is not None
            and not names_no_method
            and "billing" not in data
            and "billing" not in method_data
        ):
            raise ValidationError("Missing data for required field.", "billing")


class PaymentFieldsSchema(BillingRule):
    """Fields a payment takes on create and update."""

    customer_id = fields.String(validate=RESOURCE_ID)
    capture_method = OneOf(real_values.CAPTURE_METHODS)
    authentication_type = fields.String(validate=validate.OneOf(["three_ds", "no_three_ds"]))
    description = Text()
    email = fields.Email()
    name = fields.String()
    phone = fields.String(validate=PHONE_NUMBER)
    phone_country_code = fields.String(validate=PHONE_COUNTRY_CODE)
    payment_method = fields.String(validate=validate.OneOf(PAYMENT_METHODS))
    payment_method_type = OneOf(real_values.PAYMENT_METHOD_TYPES)
    payment_method_data = MethodData()
    billing = fields.Nested(BillingSchema)
    return_url = HttpUrl()
    order_details = fields.List(fields.Nested(OrderLineSchema))
    browser_info = fields.Nested(BrowserInfoSchema)
    metadata = FreeForm()
    statement_descriptor = fields.String(validate=validate.Length(max=DESCRIPTOR_LIMIT))
    # The real service's fields, kept and shown back (ECHOED in domain/payments/service.py) ...
    shipping = fields.Nested(ContactSchema)
    customer = fields.Nested(CustomerDetailsSchema)
    setup_future_usage = OneOf(real_values.FUTURE_USAGES)
    off_session = StrictBoolean()
    mandate_data = fields.Nested(MandateDataSchema)
    mandate_id = fields.String(validate=validate.Length(max=64))
    statement_descriptor_name = fields.String()
    statement_descriptor_suffix = fields.String()
    payment_experience = OneOf(real_values.PAYMENT_EXPERIENCES)
    business_country = Country()
    business_label = fields.String()
    allowed_payment_method_types = fields.List(OneOf(real_values.PAYMENT_METHOD_TYPES))
    connector_metadata = FreeForm()
    surcharge_details = fields.Nested(SurchargeSchema)
    frm_metadata = FreeForm()
    request_extended_authorization = StrictBoolean()
    merchant_order_reference_id = fields.String()
    order_tax_amount = Minor()
    shipping_cost = Minor()
    force_3ds_challenge = StrictBoolean()
    is_iframe_redirection_enabled = StrictBoolean()
    payment_channel = ObjectOrName(PAYMENT_CHANNELS, validate=_names_another_channel)
    enable_partial_authorization = StrictBoolean()
    enable_overcapture = StrictBoolean()
    is_stored_credential = StrictBoolean()
    mit_category = OneOf(real_values.MIT_CATEGORIES)
    billing_descriptor = fields.Nested(BillingDescriptorSchema)
    tokenization = OneOf(real_values.TOKENIZATIONS)
    partner_merchant_identifier_details = FreeForm()
    payment_token = fields.String()
    split_payments = fields.Nested(SplitPaymentSchema)
    # ... and those it checks and otherwise ignores.
    amount_to_capture = Minor()
    routing = FreeForm()
    connector = fields.List(OneOf(CONNECTORS))
    customer_acceptance = fields.Nested(CustomerAcceptanceSchema)
    card_cvc = fields.String()
    merchant_connector_details = FreeForm()
    payment_link = StrictBoolean()  # both act on create (mocksrv.domain.links)
    payment_link_config = fields.Nested(PaymentLinkConfigSchema)
    payment_link_config_id = fields.String()
    payment_type = OneOf(real_values.PAYMENT_TYPES)
    request_incremental_authorization = StrictBoolean()
    request_external_three_ds_authentication = StrictBoolean()
    three_ds_data = fields.Nested(ThreeDsDataSchema)
    recurring_details = fields.Nested(RecurringDetailsSchema)
    skip_external_tax_calculation = StrictBoolean()
    psd2_sca_exemption_type = OneOf(real_values.SCA_EXEMPTIONS)
    ctp_service_details = FreeForm()
    threeds_method_comp_ind = OneOf(real_values.THREE_DS_COMPLETION)
    all_keys_required = StrictBoolean()
    tax_status = OneOf(real_values.TAX_STATUSES)
    discount_amount = Minor()
    shipping_amount_tax = Minor()
    duty_amount = Minor()
    order_date = TimestampText()
    frm_id = fields.String()

    @validates_schema
    def one_customer(self, data: dict[str, Any], **kwargs: Any) -> None:
        customer, customer_id = data.get("customer"), data.get("customer_id")
        if customer is not None and customer_id is not None and customer.get("id") != customer_id:
            raise ValidationError("Names another customer than customer_id.", "customer.id")


class PaymentCreateSchema(PaymentFieldsSchema):
    amount = Minor(required=True)  # 0 only for a setup payment, as the service checks
    currency = Currency(required=True)
    profile_id = fields.String(required=True)
    payment_id = fields.String(validate=RESOURCE_ID)
    confirm = StrictBoolean()
    session_expiry = StrictInteger(validate=validate.Range(0, MAX_SESSION_EXPIRY))  # 0: the real minimum


class PaymentUpdateSchema(PaymentFieldsSchema):
    amount = Amount()
    currency = Currency()
    session_expiry = StrictInteger(validate=validate.Range(0, MAX_SESSION_EXPIRY))  # 0: the real minimum
    payment_id = fields.String(validate=RESOURCE_ID)  # the path's, if sent
    confirm = StrictBoolean()  # true: confirmed once updated
    retry_action = OneOf(("manual_retry", "requeue"))  # checked and ignored: no processor to retry


class PaymentConfirmSchema(PaymentUpdateSchema):
    """A confirmation with the secret key: every field of the real service's, as an update takes
    them, applied in the same step."""

    client_secret = fields.String()


class BrowserConfirmSchema(BillingRule):
    """A confirmation from a checkout page (the publishable key and the client secret): what to pay
    with and where to come back, never the amount or anything else of the merchant's."""

    payment_method = fields.String(validate=validate.OneOf(PAYMENT_METHODS))
    payment_method_type = OneOf(real_values.PAYMENT_METHOD_TYPES)
    payment_method_data = MethodData()
    payment_token = fields.String()
    card_cvc = fields.String()
    recurring_details = fields.Nested(RecurringDetailsSchema)
    mandate_id = fields.String(validate=validate.Length(max=64))
    mandate_data = fields.Nested(MandateDataSchema)
    setup_future_usage = OneOf(real_values.FUTURE_USAGES)
    off_session = StrictBoolean()
    billing = fields.Nested(BillingSchema)
    customer_acceptance = fields.Nested(CustomerAcceptanceSchema)
    browser_info = fields.Nested(BrowserInfoSchema)
    return_url = HttpUrl()
    client_secret = fields.String()


class PaymentListSchema(PageSchema):
    status = fields.String(validate=validate.OneOf([s.value for s in PaymentStatus]))
    customer_id = fields.String()
    currency = Currency()
    payment_method = fields.String(validate=validate.OneOf(PAYMENT_METHODS))

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        return Query.of(**data)


class PaymentRetrieveQuerySchema(QuerySchema):
    """The query of `GET /payments/:id`: the client secret a publishable key needs, and what the
    answer is to add. `force_sync` is taken and ignored: there is no processor to ask again."""

    client_secret = fields.String()
    force_sync = fields.Boolean()
    expand_attempts = fields.Boolean()
    expand_captures = fields.Boolean()


class CaptureSchema(RequestSchema):
    amount_to_capture = Amount()
    statement_descriptor_prefix = fields.String()
    statement_descriptor_suffix = fields.String()
    # The real service's, checked and otherwise ignored (the merchant is the API key's, see the route).
    merchant_id = fields.String()
    refund_uncaptured_amount = StrictBoolean()
    merchant_connector_details = FreeForm()
    all_keys_required = StrictBoolean()

    @validates_schema
    def descriptor_fits(self, data: dict[str, Any], **kwargs: Any) -> None:
        prefix = data.get("statement_descriptor_prefix", "")
        suffix = data.get("statement_descriptor_suffix", "")
        if len(prefix) + len(suffix) > DESCRIPTOR_LIMIT:
            raise ValidationError(
                f"Prefix and suffix together exceed {DESCRIPTOR_LIMIT} characters.",
                "statement_descriptor_suffix" if suffix else "statement_descriptor_prefix",
            )


class CancelSchema(RequestSchema):
    cancellation_reason = Text()
    merchant_connector_details = FreeForm()  # the real service's, checked and ignored


class ReviewSchema(RequestSchema):
    """Approve and reject take no fields of their own; review notes sent along are ignored."""

    class Meta:
        unknown = EXCLUDE
