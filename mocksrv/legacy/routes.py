"""Routes of the legacy card API, /api/v1: a token for client credentials, then card transactions.

Each transaction is an ordinary payment, made and processed by the payments API's own service: see
mocksrv.domain.legacy.cards. Its routes take no `api-key` header but an Authorization header:
Basic for the token, Bearer for the rest (`Auth.LEGACY_BASIC` and `Auth.LEGACY_BEARER`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from werkzeug.exceptions import MethodNotAllowed

from mocksrv.bodies import json_body, load, request_body
from mocksrv.contract import Auth, documented
from mocksrv.legacy import auth
from mocksrv.legacy.answers import LegacyTokenAnswerSchema, LegacyTransactionAnswerSchema
from mocksrv.legacy.schemas import TransactionSchema, UnifiedSchema
from mocksrv.legacy.transactions import token_json, transaction_json
from mocksrv.rest import base_url, current_request, sandbox

legacy = Blueprint("legacy", __name__, url_prefix="/api/v1")

_initiate = TransactionSchema()
_unified = UnifiedSchema()

Json = dict[str, Any]


@legacy.get("")
@documented(LegacyTokenAnswerSchema, auth=Auth.LEGACY_BASIC, errors=(405,))  # 405: a HEAD
def get_token() -> Json:
    """Get a bearer token for the client id and secret sent with HTTP Basic."""
    if current_request().method == "HEAD":  # a token it would store could never be read
        raise MethodNotAllowed(["GET"])
    return token_json(auth.issue_token())


@legacy.post("/<gateway>/card/initiate")
@documented(LegacyTransactionAnswerSchema, body=_initiate, auth=Auth.LEGACY_BEARER)
def initiate(gateway: str) -> Json:
    """Start a transaction; with a card, process it at once (2D or 3D Secure)."""
    request_body(current_request())  # a body over the size limit is refused (413) before the credentials
    merchant_id = auth.authenticate()
    fields = load(_initiate, json_body())
    return transaction_json(sandbox().legacy_cards.initiate(merchant_id, fields, gateway), base_url())


@legacy.post("/card/unified")
@documented(LegacyTransactionAnswerSchema, body=_unified, auth=Auth.LEGACY_BEARER, errors=(404,))
def unified() -> Json:
    """Process a card, 2D or 3D Secure: of an initiated transaction, or of a new one."""
    request_body(current_request())  # a body over the size limit is refused (413) before the credentials
    merchant_id = auth.authenticate()
    fields = load(_unified, json_body())
    return transaction_json(sandbox().legacy_cards.unified(merchant_id, fields), base_url())
