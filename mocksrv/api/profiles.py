"""Routes of /account/:merchant_id/business_profile: a merchant's profiles, each with its own webhook
URL, signing key and return URL."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify
from marshmallow import fields, validate

from mocksrv.api import real_values
from mocksrv.api.answers.profiles import ProfileAnswerSchema
from mocksrv.api.schemas.common import Country, NoFieldsSchema, OneOf
from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.domain.merchants import MAX_PROFILE_NAME_LENGTH, MAX_RETURN_URL_LENGTH
from mocksrv.domain.models import MAX_SESSION_EXPIRY
from mocksrv.fieldtypes import FreeForm, HttpUrl, StrictBoolean, StrictInteger
from mocksrv.representations import profile_json
from mocksrv.rest import authenticate_for_merchant, sandbox
from mocksrv.schema import RequestSchema

profiles = Blueprint("profiles", __name__)


class WebhookDetailsSchema(RequestSchema):
    """The real webhook settings. `webhook_url` says where events go; the others are stored and shown,
    and change no delivery. The two status lists the real type requires may be left out: a profile
    that never had them set shows the statuses whose events mocksrv sends. A null is not sent
    (decisions section 10), as everywhere: `PUT /__mock/webhook_url` removes the URL."""

    webhook_url = HttpUrl()
    webhook_version = fields.String(validate=validate.Length(max=255))
    webhook_username = fields.String(validate=validate.Length(max=255))
    webhook_password = fields.String(validate=validate.Length(max=255))
    payment_created_enabled = StrictBoolean()
    payment_succeeded_enabled = StrictBoolean()
    payment_failed_enabled = StrictBoolean()
    payment_statuses_enabled = fields.List(OneOf(real_values.INTENT_STATUSES))
    refund_statuses_enabled = fields.List(OneOf(real_values.INTENT_STATUSES))
    payout_statuses_enabled = fields.List(OneOf(real_values.PAYOUT_STATUSES))


class ProfileUpdateSchema(RequestSchema):
    """The real profile update. The fields mocksrv keeps come first; the rest are checked by type and
    ignored, the flags among them being shown as the constants of PROFILE_CONSTANT_SETTINGS."""

    # An empty name too: the real one sets no minimum.
    profile_name = fields.String(validate=validate.Length(max=MAX_PROFILE_NAME_LENGTH))
    return_url = HttpUrl(validate=validate.Length(max=MAX_RETURN_URL_LENGTH))
    webhook_details = fields.Nested(WebhookDetailsSchema)
    # An empty key is taken, as the real service takes it: HMAC-SHA512 with an empty key is defined
    # (RFC 2104 pads the key with zeros), so every signature is made and checks, though anyone can
    # make it. A create that sends none gets a random one.
    payment_response_hash_key = fields.String(validate=validate.Length(max=256))
    # 0, the real minimum: the client secret of a payment made under the profile expires as it is made.
    session_expiry = StrictInteger(validate=validate.Range(0, MAX_SESSION_EXPIRY))

    enable_payment_response_hash = StrictBoolean()
    redirect_to_merchant_with_http_post = StrictBoolean()
    metadata = FreeForm()
    routing_algorithm = FreeForm()
    intent_fulfillment_time = StrictInteger(validate=validate.Range(min=0))
    frm_routing_algorithm = FreeForm()
    payout_routing_algorithm = FreeForm()
    applepay_verified_domains = fields.List(fields.String())
    payment_link_config = FreeForm()
    authentication_connector_details = FreeForm()
    use_billing_as_payment_method_billing = StrictBoolean()
    collect_shipping_details_from_wallet_connector = StrictBoolean()
    collect_billing_details_from_wallet_connector = StrictBoolean()
    always_collect_shipping_details_from_wallet_connector = StrictBoolean()
    always_collect_billing_details_from_wallet_connector = StrictBoolean()
    is_connector_agnostic_mit_enabled = StrictBoolean()
    payout_link_config = FreeForm()
    outgoing_webhook_custom_http_headers = FreeForm()
    tax_connector_id = fields.String()
    is_tax_connector_enabled = StrictBoolean()
    is_network_tokenization_enabled = StrictBoolean()
    is_auto_retries_enabled = StrictBoolean()
    max_auto_retries_enabled = StrictInteger(validate=validate.Range(min=0))
    always_request_extended_authorization = StrictBoolean()
    is_click_to_pay_enabled = StrictBoolean()
    authentication_product_ids = FreeForm()
    card_testing_guard_config = FreeForm()
    is_clear_pan_retries_enabled = StrictBoolean()
    force_3ds_challenge = StrictBoolean()
    is_debit_routing_enabled = StrictBoolean()
    merchant_business_country = Country()
    is_iframe_redirection_enabled = StrictBoolean()
    is_pre_network_tokenization_enabled = StrictBoolean()
    merchant_category_code = fields.String()
    merchant_country_code = fields.String()
    dispute_polling_interval = StrictInteger()
    is_manual_retry_enabled = StrictBoolean()
    always_enable_overcapture = StrictBoolean()
    is_external_vault_enabled = fields.String(validate=validate.OneOf(("enable", "skip")))
    external_vault_connector_details = FreeForm()
    billing_processor_id = fields.String()
    is_l2_l3_enabled = StrictBoolean()


# The update fields the profile record keeps; the others are accepted and ignored.
KEPT = frozenset({"profile_name", "return_url", "payment_response_hash_key", "session_expiry"})


_update = ProfileUpdateSchema()  # the real create takes the same fields
_no_fields = NoFieldsSchema()


def _kept(fields_: dict[str, Any]) -> dict[str, Any]:
    """The fields of a create or update that the profile record keeps, under the record's names."""
    kept = {name: value for name, value in fields_.items() if name in KEPT}
    settings = dict(fields_.get("webhook_details") or {})
    if "webhook_url" in settings:
        kept["webhook_url"] = settings.pop("webhook_url")
    if settings:
        kept["webhook_settings"] = settings
    return kept


@profiles.post("/account/<id:merchant_id>/business_profile")
@documented(ProfileAnswerSchema, body=_update, auth=Auth.CONTROL, errors=(429,))
def create_profile(merchant_id: str) -> dict[str, Any]:
    """Create a further profile; what is not sent is generated (signing key) or defaulted."""
    authenticate_for_merchant(merchant_id)
    fields_ = _kept(load(_update, json_body()))
    return profile_json(sandbox().merchants.create_profile(merchant_id, fields_))


@profiles.get("/account/<id:merchant_id>/business_profile")
@documented(ProfileAnswerSchema(many=True), auth=Auth.CONTROL, errors=(429,))
def list_profiles(merchant_id: str) -> list[dict[str, Any]]:
    authenticate_for_merchant(merchant_id)
    return [profile_json(profile) for profile in sandbox().merchants.profiles(merchant_id)]


@profiles.get("/account/<id:merchant_id>/business_profile/<id:profile_id>")
@documented(ProfileAnswerSchema, auth=Auth.CONTROL, errors=(429,))
def retrieve_profile(merchant_id: str, profile_id: str) -> dict[str, Any]:
    authenticate_for_merchant(merchant_id)
    return profile_json(sandbox().merchants.retrieve_profile(merchant_id, profile_id))


@profiles.post("/account/<id:merchant_id>/business_profile/<id:profile_id>")
@documented(ProfileAnswerSchema, body=_update, auth=Auth.CONTROL, errors=(429,))
def update_profile(merchant_id: str, profile_id: str) -> dict[str, Any]:
    authenticate_for_merchant(merchant_id)
    changes = _kept(load(_update, json_body()))
    return profile_json(sandbox().merchants.update_profile(merchant_id, profile_id, changes))


@profiles.delete("/account/<id:merchant_id>/business_profile/<id:profile_id>")
@documented(body=_no_fields, auth=Auth.CONTROL, errors=(400, 429))
def delete_profile(merchant_id: str, profile_id: str) -> Response:
    """Delete a profile, answering `true`; the merchant's default profile cannot be deleted."""
    authenticate_for_merchant(merchant_id)
    load(_no_fields, json_body())
    sandbox().merchants.delete_profile(merchant_id, profile_id)
    return jsonify(True)
