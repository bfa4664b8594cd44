"""Request schemas of /payment_methods, the customers' saved methods and /mandates."""

from __future__ import annotations

from marshmallow import fields, validate

from mocksrv.api import real_values
from mocksrv.api.schemas.banks import BankAccountSchema
from mocksrv.api.schemas.common import ContactSchema, Limited, OneOf
from mocksrv.fieldtypes import RESOURCE_ID, FreeForm, QueryInteger
from mocksrv.schema import QuerySchema, RequestSchema


class SavedCardSchema(RequestSchema):
    """A card to save: its CVC may be sent, and is checked, never kept."""

    card_number = fields.String(required=True, validate=validate.Length(max=23))
    card_exp_month = fields.String(required=True)
    card_exp_year = fields.String(required=True)
    card_holder_name = Limited(required=True)
    card_cvc = fields.String()
    nick_name = Limited()
    card_issuing_country = Limited()
    card_issuing_country_code = Limited()
    card_network = OneOf(real_values.CARD_NETWORKS)
    card_issuer = Limited()
    card_type = Limited()


class SavedMethodDataSchema(RequestSchema):
    """`payment_method_data` of a method to save: the real service's card, or the details of one
    of the other kinds mocksrv saves (as their own fields beside it take them)."""

    card = fields.Nested(SavedCardSchema)
    bank_transfer = fields.Nested(BankAccountSchema)
    bank_debit = FreeForm()
    wallet = FreeForm()


class PaymentMethodCreateSchema(RequestSchema):
    payment_method = OneOf(real_values.PAYMENT_METHODS, required=True)
    payment_method_type = OneOf(real_values.PAYMENT_METHOD_TYPES)
    payment_method_issuer = Limited()
    payment_method_issuer_code = OneOf(real_values.PAYMENT_METHOD_ISSUER_CODES)
    card = fields.Nested(SavedCardSchema)
    metadata = FreeForm()
    # Optional in the real document, but the real service refuses a create without it.
    customer_id = fields.String(required=True, validate=RESOURCE_ID)
    card_network = Limited()
    bank_transfer = fields.Nested(BankAccountSchema)
    wallet = FreeForm()
    client_secret = Limited()
    payment_method_data = fields.Nested(SavedMethodDataSchema)
    # The real service's address object, every part optional: the spec's billing rule is a payment's.
    billing = fields.Nested(ContactSchema)


class CardUpdateSchema(RequestSchema):
    card_exp_month = fields.String(required=True)
    card_exp_year = fields.String(required=True)
    card_holder_name = Limited(required=True)
    nick_name = Limited()
    last4_digits = Limited()
    card_issuer = Limited()
    issuer_country = Limited()
    issuer_country_code = Limited()
    card_network = Limited()


class PaymentMethodUpdateSchema(RequestSchema):
    card = fields.Nested(CardUpdateSchema)
    wallet = FreeForm()
    # The method's own (the real service's 30 characters); the publishable key needs it.
    client_secret = fields.String(validate=validate.Length(equal=30))


class SavedMethodsQuerySchema(QuerySchema):
    """The query of the saved-method lists; the filters of the real service are taken and ignored
    (every saved method is listed), as on any GET."""

    client_secret = fields.String()
    limit = QueryInteger(validate=validate.Range(1, 100))
