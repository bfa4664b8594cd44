"""The control plane's blueprint, and what every one of its routes starts with: who acts, and for
which merchant."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, request
from marshmallow import fields

from mocksrv.domain.errors import ResourceNotFound, Unauthorized
from mocksrv.domain.models import KeyKind
from mocksrv.rest import is_admin, sandbox
from mocksrv.schema import RequestSchema

control = Blueprint("control", __name__, url_prefix="/__mock")

Json = dict[str, Any]


class MerchantOnlySchema(RequestSchema):
    merchant_id = fields.String()


merchant_only = MerchantOnlySchema()


@control.before_request
def _authenticate() -> None:
    """Admit the admin key or a merchant's secret key, before anything of the request is read."""
    if is_admin():
        return
    principal = sandbox().merchants.authenticate(request.headers.get("api-key"))
    if principal.kind is not KeyKind.SECRET:
        raise Unauthorized()
    g.control_merchant = g.merchant_id = principal.merchant_id


def acting_merchant(body: Json | None = None) -> str:
    """The merchant a request acts on: named by the admin, or the one whose secret key it is."""
    named = request.args.get("merchant_id") or (body or {}).get("merchant_id")
    if is_admin():
        g.merchant_id = merchant_id = sandbox().merchants.require_merchant_id(named)
        return merchant_id
    own: str = g.control_merchant
    if named is not None and named != own:
        raise ResourceNotFound("Merchant")
    return own
