"""Routes of /account/:merchant_id/business_profile: where a merchant registers its webhook URL."""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from marshmallow import fields, validate

from mocksrv.domain.merchants import MAX_SESSION_EXPIRY
from mocksrv.fieldtypes import StrictInteger, WebhookUrl
from mocksrv.representations import profile_json
from mocksrv.rest import authenticate_for_merchant, json_body, load, sandbox
from mocksrv.schema import RequestSchema

profiles = Blueprint("profiles", __name__)


class WebhookDetailsSchema(RequestSchema):
    webhook_url = WebhookUrl(allow_none=True)


class ProfileUpdateSchema(RequestSchema):
    profile_name = fields.String(validate=validate.Length(1, 64))
    return_url = fields.Url(allow_none=True, require_tld=False)
    webhook_details = fields.Nested(WebhookDetailsSchema)
    payment_response_hash_key = fields.String(allow_none=True, validate=validate.Length(1, 256))
    session_expiry = StrictInteger(validate=validate.Range(1, MAX_SESSION_EXPIRY))


_update = ProfileUpdateSchema()


@profiles.get("/account/<id:merchant_id>/business_profile")
def list_profiles(merchant_id: str) -> list[dict[str, Any]]:
    authenticate_for_merchant(merchant_id)
    return [profile_json(profile) for profile in sandbox().merchants.profiles(merchant_id)]


@profiles.post("/account/<id:merchant_id>/business_profile/<id:profile_id>")
def update_profile(merchant_id: str, profile_id: str) -> dict[str, Any]:
    authenticate_for_merchant(merchant_id)
    fields_ = load(_update, json_body())
    changes = {name: value for name, value in fields_.items() if name != "webhook_details"}
    if "webhook_url" in fields_.get("webhook_details", {}):
        changes["webhook_url"] = fields_["webhook_details"]["webhook_url"]
    return profile_json(sandbox().merchants.update_profile(merchant_id, profile_id, changes))
