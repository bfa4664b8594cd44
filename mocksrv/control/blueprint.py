"""The control plane's blueprint, and what every one of its routes starts with: who acts, and for
which merchant."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, g, request
from marshmallow import fields

from mocksrv.bodies import load
from mocksrv.contract import operation_of
from mocksrv.domain.errors import InvalidField, ResourceNotFound, Unauthorized
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


@control.before_request
def _check_query() -> None:
    """A route that reads no query of its own takes `merchant_id` there, and nothing else: a
    parameter it does not know is IR_06, so that a mistyped `merchant_id` (which, from the admin,
    would name every merchant) is never taken for none. A route with a query schema loads its own."""
    view = current_app.view_functions.get(request.endpoint or "")
    operation = None if view is None else operation_of(view)
    if operation is not None and operation.query is None:
        load(merchant_only, request.args.to_dict())


def named_merchant(body: Json | None = None) -> str | None:
    """The merchant a request names (`merchant_id` in its query, else in its body), None if none;
    an empty name (an unset variable) is IR_04, never taken for none."""
    args = request.args
    named = args["merchant_id"] if "merchant_id" in args else (body or {}).get("merchant_id")
    if named == "":
        raise InvalidField("merchant_id")
    return named


def acting_merchant(body: Json | None = None) -> str:
    """The merchant a request acts on: named by the admin, or the one whose secret key it is."""
    named = named_merchant(body)
    if is_admin():
        g.merchant_id = merchant_id = sandbox().merchants.require_merchant_id(named)
        return merchant_id
    own: str = g.control_merchant
    if named is not None and named != own:
        raise ResourceNotFound("Merchant")
    return own
