"""What /account/:merchant_id/business_profile answers."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.api.real_values import INTENT_STATUSES, PAYOUT_STATUSES
from mocksrv.contract import AnswerSchema, one_of


class ProfileWebhookDetailsAnswerSchema(AnswerSchema):
    """The real WebhookDetails: each setting as sent, null if never sent; the status lists never null."""

    webhook_version = fields.String(allow_none=True)
    webhook_username = fields.String(allow_none=True)
    webhook_password = fields.String(allow_none=True)
    webhook_url = fields.String(allow_none=True)
    payment_created_enabled = fields.Boolean(allow_none=True)
    payment_succeeded_enabled = fields.Boolean(allow_none=True)
    payment_failed_enabled = fields.Boolean(allow_none=True)
    payment_statuses_enabled = fields.List(one_of(INTENT_STATUSES))
    refund_statuses_enabled = fields.List(one_of(INTENT_STATUSES))
    payout_statuses_enabled = fields.List(one_of(PAYOUT_STATUSES))


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
