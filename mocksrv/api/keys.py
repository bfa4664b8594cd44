"""Routes of /api_keys/:merchant_id: the merchant's secret keys (decisions section 4).

Each takes the admin key, or the merchant's own secret key for its own merchant_id.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request
from marshmallow import ValidationError, fields, post_load, validate

from mocksrv.api.answers.keys import ApiKeyAnswerSchema, CreatedApiKeyAnswerSchema, RevokedApiKeyAnswerSchema
from mocksrv.api.schemas import NoFieldsSchema
from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.domain.api_keys.service import NEVER
from mocksrv.domain.clock import parse_timestamp
from mocksrv.fieldtypes import QueryInteger, Timestamp
from mocksrv.representations import api_key_json, created_api_key_json, revoked_api_key_json
from mocksrv.rest import authenticate_for_merchant, sandbox
from mocksrv.schema import QuerySchema, RequestSchema

keys = Blueprint("keys", __name__)

Json = dict[str, Any]


def _expiration(value: str) -> None:
    """Validate `never` or an ISO 8601 time."""
    if value == NEVER:
        return
    try:
        parse_timestamp(value)
    except ValueError:
        raise ValidationError("Not `never` or an ISO 8601 timestamp.") from None


class ApiKeyCreateSchema(RequestSchema):
    name = fields.String(required=True, validate=validate.Length(max=64))  # empty too, as the real one
    description = fields.String(validate=validate.Length(max=256))
    expiration = fields.String(required=True, validate=_expiration)


class ApiKeyUpdateSchema(RequestSchema):
    """Each field sent replaces the key's; null or absent keeps it."""

    name = fields.String(validate=validate.Length(max=64))
    description = fields.String(validate=validate.Length(max=256))
    expiration = fields.String(validate=_expiration)


class ApiKeyListSchema(QuerySchema):
    """Query parameters arrive as text; ones it does not know are ignored, as on any GET. `offset`,
    the spec's name of a list's start (section 8), is taken for the real `skip` when that is not sent."""

    limit = QueryInteger(validate=validate.Range(1, 100))  # absent: every key
    skip = QueryInteger(validate=validate.Range(min=0))
    offset = QueryInteger(validate=validate.Range(min=0))
    created_gte = Timestamp()
    created_lte = Timestamp()

    @post_load
    def start(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        offset = data.pop("offset", 0)
        data.setdefault("skip", offset)
        return data


_create = ApiKeyCreateSchema()
_update = ApiKeyUpdateSchema()
_list = ApiKeyListSchema()
_no_fields = NoFieldsSchema()


@keys.post("/api_keys/<id:merchant_id>")
@documented(CreatedApiKeyAnswerSchema, body=_create, auth=Auth.CONTROL, errors=(429,))
def create_api_key(merchant_id: str) -> Json:
    """Create a secret key; the answer is the only one that shows it in full."""
    authenticate_for_merchant(merchant_id)
    key, plaintext = sandbox().api_keys.create(merchant_id, load(_create, json_body()))
    return created_api_key_json(key, plaintext)


@keys.get("/api_keys/<id:merchant_id>/list")
@documented(ApiKeyAnswerSchema(many=True), query=_list, auth=Auth.CONTROL, errors=(429,))
def list_api_keys(merchant_id: str) -> list[Json]:
    """The merchant's keys, newest first."""
    authenticate_for_merchant(merchant_id)
    query = load(_list, request.args.to_dict())
    found = sandbox().api_keys.list_keys(
        merchant_id, query.get("limit"), query["skip"], query.get("created_gte"), query.get("created_lte")
    )
    return [api_key_json(key) for key in found]


@keys.get("/api_keys/<id:merchant_id>/<id:key_id>")
@documented(ApiKeyAnswerSchema, auth=Auth.CONTROL, errors=(429,))
def retrieve_api_key(merchant_id: str, key_id: str) -> Json:
    authenticate_for_merchant(merchant_id)
    return api_key_json(sandbox().api_keys.retrieve(merchant_id, key_id))


@keys.post("/api_keys/<id:merchant_id>/<id:key_id>")
@documented(ApiKeyAnswerSchema, body=_update, auth=Auth.CONTROL, errors=(429,))
def update_api_key(merchant_id: str, key_id: str) -> Json:
    authenticate_for_merchant(merchant_id)
    fields_ = load(_update, json_body())
    return api_key_json(sandbox().api_keys.update(merchant_id, key_id, fields_))


@keys.delete("/api_keys/<id:merchant_id>/<id:key_id>")
@documented(RevokedApiKeyAnswerSchema, body=_no_fields, auth=Auth.CONTROL, errors=(429,))
def revoke_api_key(merchant_id: str, key_id: str) -> Json:
    """Revoke a key: it stops working at once."""
    authenticate_for_merchant(merchant_id)
    load(_no_fields, json_body())
    return revoked_api_key_json(sandbox().api_keys.revoke(merchant_id, key_id))
