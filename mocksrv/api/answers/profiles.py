"""What /account/:merchant_id/business_profile answers."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.contract import AnswerSchema


class ProfileWebhookDetailsAnswerSchema(AnswerSchema):
    webhook_url = fields.String(allow_none=True)


class ProfileAnswerSchema(AnswerSchema):
    merchant_id = fields.String()
    profile_id = fields.String()
    profile_name = fields.String()
    return_url = fields.String(allow_none=True)
    webhook_details = fields.Nested(ProfileWebhookDetailsAnswerSchema)
    payment_response_hash_key = fields.String()  # a null sent is replaced by a new key
    session_expiry = fields.Integer()
    # The settings mocksrv does not model, each a constant (see PROFILE_CONSTANT_SETTINGS).
    enable_payment_response_hash = fields.Boolean()
    redirect_to_merchant_with_http_post = fields.Boolean()
    is_tax_connector_enabled = fields.Boolean()
    is_network_tokenization_enabled = fields.Boolean()
    is_auto_retries_enabled = fields.Boolean()
    is_click_to_pay_enabled = fields.Boolean()
    is_clear_pan_retries_enabled = fields.Boolean()
    force_3ds_challenge = fields.Boolean()
    is_pre_network_tokenization_enabled = fields.Boolean()
