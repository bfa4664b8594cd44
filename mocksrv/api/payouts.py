"""Routes of /payouts."""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from marshmallow import fields, post_load, validate

from mocksrv.domain.money import MAX_AMOUNT, MIN_AMOUNT
from mocksrv.domain.payouts import PayoutStatus
from mocksrv.domain.store import Query
from mocksrv.fieldtypes import RESOURCE_ID, FreeForm, StrictBoolean, StrictInteger, Timestamp, currency_code
from mocksrv.representations import list_json, payout_json
from mocksrv.rest import authenticate, json_body, load, sandbox
from mocksrv.schema import RequestSchema

payouts = Blueprint("payouts", __name__)

Json = dict[str, Any]
PAYOUT_TYPES = ("bank",)


class BankAccountSchema(RequestSchema):
    bank_account_number = fields.String(required=True, validate=validate.Regexp(r"^[0-9]{4,17}\Z"))
    bank_routing_number = fields.String(required=True, validate=validate.Regexp(r"^[0-9]{9}\Z"))
    bank_name = fields.String()
    bank_country_code = fields.String(validate=validate.Length(equal=2))
    bank_city = fields.String()


class PayoutMethodDataSchema(RequestSchema):
    bank = fields.Nested(BankAccountSchema)


class PayoutFieldsSchema(RequestSchema):
    customer_id = fields.String(validate=RESOURCE_ID)
    description = fields.String(validate=validate.Length(max=1000))
    metadata = FreeForm()
    payout_method_data = fields.Nested(PayoutMethodDataSchema)


class PayoutCreateSchema(PayoutFieldsSchema):
    payout_id = fields.String(validate=RESOURCE_ID)
    amount = StrictInteger(required=True, validate=validate.Range(MIN_AMOUNT, MAX_AMOUNT))
    currency = fields.String(required=True, validate=currency_code)
    payout_type = fields.String(required=True, validate=validate.OneOf(PAYOUT_TYPES))
    payout_method_data = fields.Nested(PayoutMethodDataSchema, required=True)
    auto_fulfill = StrictBoolean()


class PayoutUpdateSchema(PayoutFieldsSchema):
    amount = StrictInteger(validate=validate.Range(MIN_AMOUNT, MAX_AMOUNT))
    currency = fields.String(validate=currency_code)


class PayoutListSchema(RequestSchema):
    status = fields.String(validate=validate.OneOf([s.value for s in PayoutStatus]))
    customer_id = fields.String()
    currency = fields.String(validate=currency_code)
    created_gte = Timestamp()
    created_lte = Timestamp()
    limit = StrictInteger(validate=validate.Range(1, 100), load_default=10)
    offset = StrictInteger(validate=validate.Range(min=0), load_default=0)

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        return Query.of(**data)


class EmptySchema(RequestSchema):
    """Cancel and fulfil take no fields."""


_create, _update, _list = PayoutCreateSchema(), PayoutUpdateSchema(), PayoutListSchema()
_empty = EmptySchema()


@payouts.post("/payouts/create")
def create_payout() -> Json:
    principal = authenticate()
    return payout_json(sandbox().payouts.create(principal.merchant_id, load(_create, json_body())))


@payouts.post("/payouts/list")
def list_payouts() -> Json:
    principal = authenticate()
    page = sandbox().payouts.list(principal.merchant_id, load(_list, json_body()))
    return list_json([payout_json(p) for p in page.items], page.total_count)


@payouts.get("/payouts/<id:payout_id>")
def retrieve_payout(payout_id: str) -> Json:
    principal = authenticate()
    return payout_json(sandbox().payouts.retrieve(principal.merchant_id, payout_id))


@payouts.put("/payouts/<id:payout_id>")
def update_payout(payout_id: str) -> Json:
    principal = authenticate()
    fields_ = load(_update, json_body())
    return payout_json(sandbox().payouts.update(principal.merchant_id, payout_id, fields_))


@payouts.post("/payouts/<id:payout_id>/cancel")
def cancel_payout(payout_id: str) -> Json:
    principal = authenticate()
    load(_empty, json_body())
    return payout_json(sandbox().payouts.cancel(principal.merchant_id, payout_id))


@payouts.post("/payouts/<id:payout_id>/fulfill")
def fulfill_payout(payout_id: str) -> Json:
    principal = authenticate()
    load(_empty, json_body())
    return payout_json(sandbox().payouts.fulfill(principal.merchant_id, payout_id))
