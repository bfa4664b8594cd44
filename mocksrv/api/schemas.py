"""Request schemas of the payments API: every field table of the spec, checked field by field."""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, ValidationError, fields, post_load, validate, validates_schema

from mocksrv.domain.money import MAX_AMOUNT, MIN_AMOUNT, is_country
from mocksrv.domain.payment_states import PaymentStatus
from mocksrv.domain.store import Query
from mocksrv.fieldtypes import (
    PHONE_COUNTRY_CODE,
    PHONE_NUMBER,
    RESOURCE_ID,
    FreeForm,
    StrictBoolean,
    StrictInteger,
    Timestamp,
    currency_code,
)
from mocksrv.schema import RequestSchema

DESCRIPTOR_LIMIT = 22
PAYMENT_METHODS = ("card", "wallet", "bank_transfer", "crypto")


def _country(value: str) -> None:
    if not is_country(value):
        raise ValidationError("Not an ISO 3166 alpha-2 country code.")


def Amount(**kwargs: Any) -> StrictInteger:  # noqa: N802 - reads as a field type
    return StrictInteger(validate=validate.Range(MIN_AMOUNT, MAX_AMOUNT), **kwargs)


def Currency(**kwargs: Any) -> fields.String:  # noqa: N802
    return fields.String(validate=currency_code, **kwargs)


def Text(**kwargs: Any) -> fields.String:  # noqa: N802
    return fields.String(validate=validate.Length(max=1000), **kwargs)


class AddressSchema(RequestSchema):
    line1 = fields.String(required=True)
    line2 = fields.String()
    line3 = fields.String()
    city = fields.String(required=True)
    state = fields.String(required=True)
    zip = fields.String(required=True)
    country = fields.String(required=True, validate=_country)
    first_name = fields.String(required=True)
    last_name = fields.String(required=True)


class PhoneSchema(RequestSchema):
    number = fields.String(required=True, validate=PHONE_NUMBER)
    country_code = fields.String(required=True, validate=PHONE_COUNTRY_CODE)


class BillingSchema(RequestSchema):
    address = fields.Nested(AddressSchema, required=True)
    phone = fields.Nested(PhoneSchema, required=True)
    email = fields.Email()


class CardSchema(RequestSchema):
    card_number = fields.String(required=True)
    card_exp_month = fields.String(required=True)
    card_exp_year = fields.String(required=True)
    card_cvc = fields.String(required=True)
    card_holder_name = fields.String()


class CryptoSchema(RequestSchema):
    pay_currency = fields.String(required=True)
    network = fields.String()
    wallet_address = fields.String(required=True)
    wallet_address_tag = fields.String()
    payment_method_id = fields.String()
    external_customer_id = fields.String()


class PaymentMethodDataSchema(RequestSchema):
    card = fields.Nested(CardSchema)
    crypto = fields.Nested(CryptoSchema)
    wallet = FreeForm()
    bank_transfer = FreeForm()


class BrowserInfoSchema(RequestSchema):
    ip_address = fields.String()
    user_agent = fields.String()
    accept_header = fields.String()
    accept_language = fields.String()
    language = fields.String()
    color_depth = StrictInteger()
    screen_height = StrictInteger()
    screen_width = StrictInteger()
    time_zone = StrictInteger()
    java_enabled = StrictBoolean()
    java_script_enabled = StrictBoolean()
    os_type = fields.String()
    os_version = fields.String()
    device_model = fields.String()
    referer = fields.String()


class OrderLineSchema(RequestSchema):
    name = fields.String(required=True)
    quantity = StrictInteger(required=True, validate=validate.Range(min=1))
    amount = StrictInteger(required=True, validate=validate.Range(min=0, max=MAX_AMOUNT))
    currency = Currency(required=True)


class BillingRule(RequestSchema):
    @validates_schema
    def billing_goes_with_method(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "payment_method_data" in data and "billing" not in data:
            raise ValidationError("Missing data for required field.", "billing")


class PaymentFieldsSchema(BillingRule):
    """Fields a payment takes on create and update."""

    customer_id = fields.String(validate=RESOURCE_ID)
    capture_method = fields.String(validate=validate.OneOf(["automatic", "manual", "manual_multiple"]))
    authentication_type = fields.String(validate=validate.OneOf(["three_ds", "no_three_ds"]))
    description = Text()
    email = fields.Email()
    name = fields.String()
    phone = fields.String(validate=PHONE_NUMBER)
    phone_country_code = fields.String(validate=PHONE_COUNTRY_CODE)
    payment_method = fields.String(validate=validate.OneOf(PAYMENT_METHODS))
    payment_method_type = fields.String()
    payment_method_data = fields.Nested(PaymentMethodDataSchema)
    billing = fields.Nested(BillingSchema)
    return_url = fields.Url(require_tld=False)
    order_details = fields.List(fields.Nested(OrderLineSchema))
    browser_info = fields.Nested(BrowserInfoSchema)
    metadata = FreeForm()
    statement_descriptor = fields.String(validate=validate.Length(max=DESCRIPTOR_LIMIT))


class PaymentCreateSchema(PaymentFieldsSchema):
    amount = Amount(required=True)
    currency = Currency(required=True)
    profile_id = fields.String(required=True)
    payment_id = fields.String(validate=RESOURCE_ID)
    confirm = StrictBoolean()


class PaymentUpdateSchema(PaymentFieldsSchema):
    amount = Amount()
    currency = Currency()


class PaymentConfirmSchema(BillingRule):
    payment_method = fields.String(validate=validate.OneOf(PAYMENT_METHODS))
    payment_method_type = fields.String()
    payment_method_data = fields.Nested(PaymentMethodDataSchema)
    billing = fields.Nested(BillingSchema)
    customer_acceptance = FreeForm()
    browser_info = fields.Nested(BrowserInfoSchema)
    return_url = fields.Url(require_tld=False)
    client_secret = fields.String()


class PaymentListSchema(RequestSchema):
    limit = StrictInteger(validate=validate.Range(1, 100), load_default=10)
    offset = StrictInteger(validate=validate.Range(min=0), load_default=0)
    status = fields.String(validate=validate.OneOf([s.value for s in PaymentStatus]))
    customer_id = fields.String()
    currency = Currency()
    payment_method = fields.String(validate=validate.OneOf(PAYMENT_METHODS))
    created_gte = Timestamp()
    created_lte = Timestamp()

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        return Query.of(**data)


class CaptureSchema(RequestSchema):
    amount_to_capture = Amount()
    statement_descriptor_prefix = fields.String()
    statement_descriptor_suffix = fields.String()

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


class ReviewSchema(RequestSchema):
    """Approve and reject take no fields of their own; review notes sent along are ignored."""

    class Meta:
        unknown = EXCLUDE


class CustomerFieldsSchema(RequestSchema):
    email = fields.Email()
    name = fields.String()
    phone = fields.String(validate=PHONE_NUMBER)
    phone_country_code = fields.String(validate=PHONE_COUNTRY_CODE)
    description = Text()
    address = fields.Nested(AddressSchema(partial=True))
    metadata = FreeForm()


class CustomerCreateSchema(CustomerFieldsSchema):
    customer_id = fields.String(validate=RESOURCE_ID)


class CustomerListSchema(RequestSchema):
    """Query parameters arrive as text; ones it does not know are ignored, as on any GET."""

    class Meta:
        unknown = EXCLUDE

    limit = fields.Integer(validate=validate.Range(1, 100), load_default=10)
    offset = fields.Integer(validate=validate.Range(min=0), load_default=0)
