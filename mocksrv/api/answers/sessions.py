"""What /payments/session_tokens and /ephemeral_keys answer."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.contract import AnswerSchema


class SessionTokensAnswerSchema(AnswerSchema):
    """The payment's id and client secret, and a wallet session per configured wallet: none here."""

    payment_id = fields.String()
    client_secret = fields.String()
    session_token = fields.List(fields.Dict())


class EphemeralKeyAnswerSchema(AnswerSchema):
    """An ephemeral key; its times in ISO 8601."""

    id = fields.String()
    merchant_id = fields.String()
    customer_id = fields.String()
    created_at = fields.String()
    expires = fields.String()
    secret = fields.String()
