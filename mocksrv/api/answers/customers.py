"""What /customers answers."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.contract import AnswerSchema


class CustomerAnswerSchema(AnswerSchema):
    customer_id = fields.String()
    name = fields.String(allow_none=True)
    email = fields.String(allow_none=True)
    phone = fields.String(allow_none=True)
    phone_country_code = fields.String(allow_none=True)
    description = fields.String(allow_none=True)
    address = fields.Dict(allow_none=True)
    metadata = fields.Dict(allow_none=True)
    tax_registration_id = fields.String(allow_none=True)
    default_payment_method_id = fields.String(allow_none=True)
    created_at = fields.String()


class CustomerListAnswerSchema(AnswerSchema):
    data = fields.List(fields.Nested(CustomerAnswerSchema))
    total_count = fields.Integer()
    has_more = fields.Boolean()


class CustomerDeletedAnswerSchema(AnswerSchema):
    customer_id = fields.String()
    customer_deleted = fields.Boolean()
    address_deleted = fields.Boolean()
    payment_methods_deleted = fields.Boolean()


class CustomerDetailsAnswerSchema(AnswerSchema):
    """The customer a payment or payout names, as the real service shows it inside them."""

    id = fields.String()
    name = fields.String(allow_none=True)
    email = fields.String(allow_none=True)
    phone = fields.String(allow_none=True)
    phone_country_code = fields.String(allow_none=True)
