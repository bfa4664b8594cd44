"""What the legacy card API answers: its token, and a transaction."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.contract import AnswerSchema, one_of
from mocksrv.domain.payments.states import PaymentStatus


class LegacyTokenAnswerSchema(AnswerSchema):
    access_token = fields.String()
    token_type = one_of(["Bearer"])
    expires_in = fields.Integer()  # seconds, on the merchant's mock clock


class LegacyCardAnswerSchema(AnswerSchema):
    last4 = fields.String()
    brand = fields.String()
    expiry_month = fields.String()
    expiry_year = fields.String()
    holder_name = fields.String(allow_none=True)


class LegacyTransactionAnswerSchema(AnswerSchema):
    transaction_id = fields.String()  # the payment's payment_id
    status = one_of(PaymentStatus)
    amount = fields.String()  # in major units, as sent
    currency = fields.String()
    amount_minor_units = fields.Integer()  # the payment's amount
    order_id = fields.String(allow_none=True)
    card = fields.Nested(LegacyCardAnswerSchema, allow_none=True)
    redirect_url = fields.String(allow_none=True)  # the 3D Secure page, while the customer is awaited
    error_code = fields.String(allow_none=True)
    error_message = fields.String(allow_none=True)
    created = fields.String()
