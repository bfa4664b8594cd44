"""Routes of /refunds."""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from marshmallow import fields, post_load, validate

from mocksrv.domain.money import MAX_AMOUNT
from mocksrv.domain.refunds import RefundStatus
from mocksrv.domain.store import Query
from mocksrv.fieldtypes import RESOURCE_ID, FreeForm, StrictInteger, Timestamp
from mocksrv.representations import list_json, refund_json
from mocksrv.rest import authenticate, json_body, load, sandbox
from mocksrv.schema import RequestSchema

refunds = Blueprint("refunds", __name__)

Json = dict[str, Any]


class RefundCreateSchema(RequestSchema):
    payment_id = fields.String(required=True)
    refund_id = fields.String(validate=RESOURCE_ID)
    amount = StrictInteger(validate=validate.Range(1, MAX_AMOUNT))
    reason = fields.String(validate=validate.Length(max=255))
    refund_type = fields.String(validate=validate.OneOf(["Instant", "Regular"]))
    metadata = FreeForm()


class RefundUpdateSchema(RequestSchema):
    reason = fields.String(validate=validate.Length(max=255))
    metadata = FreeForm()


class RefundListSchema(RequestSchema):
    payment_id = fields.String()
    status = fields.String(validate=validate.OneOf([s.value for s in RefundStatus]))
    created_gte = Timestamp()
    created_lte = Timestamp()
    limit = StrictInteger(validate=validate.Range(1, 100), load_default=10)
    offset = StrictInteger(validate=validate.Range(min=0), load_default=0)

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        return Query.of(**data)


_create, _update, _list = RefundCreateSchema(), RefundUpdateSchema(), RefundListSchema()


@refunds.post("/refunds")
def create_refund() -> Json:
    principal = authenticate()
    return refund_json(sandbox().refunds.create(principal.merchant_id, load(_create, json_body())))


@refunds.post("/refunds/list")
def list_refunds() -> Json:
    principal = authenticate()
    page = sandbox().refunds.list(principal.merchant_id, load(_list, json_body()))
    return list_json([refund_json(r) for r in page.items], page.total_count)


@refunds.get("/refunds/<id:refund_id>")
def retrieve_refund(refund_id: str) -> Json:
    principal = authenticate()
    return refund_json(sandbox().refunds.retrieve(principal.merchant_id, refund_id))


@refunds.post("/refunds/<id:refund_id>")
def update_refund(refund_id: str) -> Json:
    principal = authenticate()
    fields_ = load(_update, json_body())
    return refund_json(sandbox().refunds.update(principal.merchant_id, refund_id, fields_))
