"""Routes of the browser SDK's sessions: /payments/session_tokens and /ephemeral_keys.

`POST /payments/session_tokens` takes the publishable key only, as the real service does, and
checks the payment and its `client_secret` exactly as retrieving a payment with that key does
(IR_05, IR_08, IR_09). It answers the payment's id and client secret with an empty
`session_token` list: the sandbox configures no wallet connector (Apple Pay, Google Pay, PayPal,
...), so there is no wallet session to hand out; the list is well formed and simply empty.

`POST /ephemeral_keys` (secret key) creates a key for an existing customer of the merchant; it
expires one hour later on the mock clock. `DELETE /ephemeral_keys/:id` deletes it and answers the
deleted key. Their `created_at` and `expires` are ISO 8601 times, as every time the server writes.
The key's secret is the `api-key` of a route that acts for that customer (`authenticate(customer_id=)`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from marshmallow import fields

from mocksrv.api import real_values
from mocksrv.api.answers.sessions import EphemeralKeyAnswerSchema, SessionTokensAnswerSchema
from mocksrv.api.schemas import NoFieldsSchema, OneOf
from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.domain.errors import Unauthorized
from mocksrv.domain.models import KeyKind
from mocksrv.fieldtypes import RESOURCE_ID, FreeForm
from mocksrv.representations import ephemeral_key_json, session_tokens_json
from mocksrv.rest import authenticate, sandbox
from mocksrv.schema import RequestSchema

sessions = Blueprint("sessions", __name__)

Json = dict[str, Any]


class MerchantConnectorDetailsSchema(RequestSchema):
    connector_account_details = FreeForm()
    metadata = FreeForm()


class MerchantConnectorDetailsWrapSchema(RequestSchema):
    creds_identifier = fields.String(required=True)
    encoded_data = fields.Nested(MerchantConnectorDetailsSchema)


class SessionTokensSchema(RequestSchema):
    payment_id = fields.String(required=True)
    # Required by the real service; checked by the payment's retrieve, so that it answers as
    # retrieving with the publishable key does: IR_08 when missing, IR_09 when wrong.
    client_secret = fields.String()
    wallets = fields.List(OneOf(real_values.PAYMENT_METHOD_TYPES), required=True)
    merchant_connector_details = fields.Nested(MerchantConnectorDetailsWrapSchema)


class EphemeralKeyCreateSchema(RequestSchema):
    customer_id = fields.String(required=True, validate=RESOURCE_ID)


_session_tokens = SessionTokensSchema()
_ephemeral_key_create = EphemeralKeyCreateSchema()
_no_fields = NoFieldsSchema()


@sessions.post("/payments/session_tokens")
@documented(SessionTokensAnswerSchema, body=_session_tokens, errors=(404,), auth=Auth.PUBLISHABLE_ONLY)
def create_session_tokens() -> Json:
    principal = authenticate(publishable=True)
    if principal.kind is not KeyKind.PUBLISHABLE:
        raise Unauthorized()
    fields_ = load(_session_tokens, json_body())
    payment = sandbox().payments.retrieve(
        principal.merchant_id, fields_["payment_id"], fields_.get("client_secret"), secret_required=True
    )
    return session_tokens_json(payment)


@sessions.post("/ephemeral_keys")
@documented(EphemeralKeyAnswerSchema, body=_ephemeral_key_create)
def create_ephemeral_key() -> Json:
    principal = authenticate()
    fields_ = load(_ephemeral_key_create, json_body())
    return ephemeral_key_json(sandbox().ephemeral_keys.create(principal.merchant_id, fields_["customer_id"]))


@sessions.delete("/ephemeral_keys/<id:key_id>")
@documented(EphemeralKeyAnswerSchema, body=_no_fields)
def delete_ephemeral_key(key_id: str) -> Json:
    principal = authenticate()
    load(_no_fields, json_body())
    return ephemeral_key_json(sandbox().ephemeral_keys.delete(principal.merchant_id, key_id))
