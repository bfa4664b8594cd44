"""What /api_keys/:merchant_id answers."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.contract import AnswerSchema


class ApiKeyAnswerSchema(AnswerSchema):
    """A key as retrieved, listed and updated: its prefix, never the key."""

    key_id = fields.String()
    merchant_id = fields.String()
    name = fields.String()
    description = fields.String(allow_none=True)
    prefix = fields.String()
    created = fields.String()
    expiration = fields.String()  # "never", or when it stops working on the merchant's clock


class CreatedApiKeyAnswerSchema(AnswerSchema):
    """A new key, with its plaintext: the only answer that shows it."""

    key_id = fields.String()
    merchant_id = fields.String()
    name = fields.String()
    description = fields.String(allow_none=True)
    api_key = fields.String()
    created = fields.String()
    expiration = fields.String()


class RevokedApiKeyAnswerSchema(AnswerSchema):
    merchant_id = fields.String()
    key_id = fields.String()
    revoked = fields.Boolean()
