"""Request schemas of /payouts: the method data of each kind of payout, create, update, confirm, the
list's filters, and the time range of the filters."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, post_load, validate, validates_schema

from mocksrv.api import real_values
from mocksrv.api.schemas.banks import BankAccountSchema
from mocksrv.api.schemas.common import (
    INT32_MAX,
    BrowserInfoSchema,
    ContactSchema,
    Country,
    CustomerDetailsSchema,
    Limited,
    OneKind,
    TimeRangePageSchema,
    any_of,
    within_time_range,
)
from mocksrv.domain.money import MAX_AMOUNT, MIN_AMOUNT
from mocksrv.domain.payouts import PAYOUT_TYPES
from mocksrv.domain.store import Query
from mocksrv.fieldtypes import (
    RESOURCE_ID,
    FreeForm,
    HttpUrl,
    OneOrMany,
    StrictBoolean,
    StrictInteger,
    Timestamp,
    currency_code,
)
from mocksrv.schema import RequestSchema

# The enumerations of the real API's payout fields.
PAYOUT_CONNECTORS = (
    "adyen",
    "adyenplatform",
    "cybersource",
    "ebanx",
    "gigadat",
    "loonio",
    "nomupay",
    "nuvei",
    "payone",
    "paypal",
    "stripe",
    "wise",
    "worldpay",
    "worldpayxml",
)


_CARD_NUMBER = validate.Regexp(r"^[0-9]{12,19}\Z")
_EXPIRY_MONTH = validate.Regexp(r"^(0?[1-9]|1[0-2])\Z")
_EXPIRY_YEAR = validate.Regexp(r"^([0-9]{2}|[0-9]{4})\Z")


class _CardDetailsSchema(RequestSchema):
    """A card's details beside its number: the expiry, the holder, the network."""

    expiry_month = fields.String(required=True, validate=_EXPIRY_MONTH)
    expiry_year = fields.String(required=True, validate=_EXPIRY_YEAR)
    card_holder_name = fields.String(required=True)
    card_network = fields.String(validate=validate.OneOf(real_values.CARD_NETWORKS))


class CardPayoutSchema(_CardDetailsSchema):
    card_number = fields.String(required=True, validate=_CARD_NUMBER)


class PassthroughSchema(RequestSchema):
    """A payout method the processor holds already: its token, and the kind of method it stands for."""

    psp_token = fields.String(required=True, validate=validate.Length(min=1))
    token_type = fields.String(required=True, validate=validate.OneOf(real_values.PAYMENT_METHOD_TYPES))


class ApplePayDecryptSchema(_CardDetailsSchema):
    """An Apple Pay token already decrypted: the device's card number and its expiry."""

    dpan = fields.String(required=True, validate=_CARD_NUMBER)


class PaypalPayoutSchema(RequestSchema):
    email = fields.Email(required=True)
    telephone_number = fields.String(required=True)
    paypal_id = fields.String(required=True)


class VenmoPayoutSchema(RequestSchema):
    telephone_number = fields.String(required=True)


class PayoutWalletSchema(OneKind):
    kinds = ("apple_pay_decrypt", "paypal", "venmo")
    apple_pay_decrypt = fields.Nested(ApplePayDecryptSchema)
    paypal = fields.Nested(PaypalPayoutSchema)
    venmo = fields.Nested(VenmoPayoutSchema)


class InteracSchema(RequestSchema):
    email = fields.Email(required=True)


class PayoutBankRedirectSchema(OneKind):
    kinds = ("interac",)
    interac = fields.Nested(InteracSchema)


class PayoutMethodDataSchema(RequestSchema):
    """One payout method: a card, a bank transfer, a wallet, a bank redirect or a passthrough token,
    each with the fields the real service requires of it."""

    card = fields.Nested(CardPayoutSchema)
    bank = fields.Nested(BankAccountSchema)
    wallet = fields.Nested(PayoutWalletSchema)
    bank_redirect = fields.Nested(PayoutBankRedirectSchema)
    passthrough = fields.Nested(PassthroughSchema)

    @validates_schema
    def one_method(self, data: dict[str, Any], **kwargs: Any) -> None:
        if len(data) > 1:
            raise ValidationError("Takes one payout method, not several.")


class PayoutFieldsSchema(RequestSchema):
    """The fields of the real API's payout create, update and confirm bodies."""

    merchant_order_reference_id = Limited()
    amount = StrictInteger(validate=validate.Range(MIN_AMOUNT, MAX_AMOUNT))
    currency = fields.String(validate=currency_code)
    routing = FreeForm()  # accepted, not used: every payout goes through the one connector
    connector = fields.List(fields.String(validate=validate.OneOf(PAYOUT_CONNECTORS)))
    payout_type = fields.String(validate=validate.OneOf(PAYOUT_TYPES))
    payout_method_data = fields.Nested(PayoutMethodDataSchema)
    billing = fields.Nested(ContactSchema)
    auto_fulfill = StrictBoolean()
    customer_id = fields.String(validate=RESOURCE_ID)
    customer = fields.Nested(CustomerDetailsSchema)
    client_secret = fields.String()
    return_url = HttpUrl()
    business_country = Country()
    business_label = fields.String()
    entity_type = fields.String(validate=validate.OneOf(real_values.PAYOUT_ENTITY_TYPES))
    recurring = StrictBoolean()
    description = fields.String(validate=validate.Length(max=1000))
    metadata = FreeForm()
    payout_token = fields.String()
    profile_id = fields.String()
    priority = fields.String(validate=validate.OneOf(real_values.PAYOUT_PRIORITIES))
    payout_link = StrictBoolean()
    payout_link_config = FreeForm()
    session_expiry = StrictInteger(validate=validate.Range(0, INT32_MAX))
    email = fields.Email(validate=validate.Length(max=255))
    name = Limited()
    phone = Limited()
    phone_country_code = Limited()
    payout_method_id = fields.String()
    browser_info = fields.Nested(BrowserInfoSchema)


class PayoutCreateSchema(PayoutFieldsSchema):
    payout_id = fields.String(validate=RESOURCE_ID)
    amount = StrictInteger(required=True, validate=validate.Range(MIN_AMOUNT, MAX_AMOUNT))
    currency = fields.String(required=True, validate=currency_code)
    confirm = StrictBoolean()


class PayoutUpdateSchema(PayoutFieldsSchema):
    confirm = StrictBoolean()


class PayoutConfirmSchema(PayoutFieldsSchema):
    client_secret = fields.String(required=True)


class PayoutListSchema(TimeRangePageSchema):
    """The spec's filters, and the real service's (`PayoutListFilterConstraints`): a status or a
    list of them, a time range, the methods and connectors to keep. An empty list keeps all."""

    status = OneOrMany(real_values.PAYOUT_STATUSES)
    customer_id = fields.String()
    currency = fields.String(validate=currency_code)
    payout_id = fields.String()
    merchant_order_reference_id = fields.String()
    profile_id = fields.String()
    entity_type = fields.String(validate=validate.OneOf(real_values.PAYOUT_ENTITY_TYPES))
    payout_method = fields.List(fields.String(validate=validate.OneOf(PAYOUT_TYPES)))
    connector = fields.List(fields.String())

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        within_time_range(data)
        any_of(data, "payout_method", "payout_type")
        any_of(data, "connector")
        any_of(data, "status")
        return Query.of(**data)


class PayoutTimeRangeSchema(RequestSchema):
    """The real service's TimeRange of the payout filters: from `start_time`, to `end_time` or now."""

    start_time = Timestamp(required=True)
    end_time = Timestamp(allow_none=True)


class PayoutIdSchema(RequestSchema):
    """Cancel and fulfil: the payout's id may be repeated in the body."""

    payout_id = fields.String()
