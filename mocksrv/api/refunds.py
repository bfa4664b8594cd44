"""Routes of /refunds.

A create takes every field of the real service's refund request. `payment_id`, `refund_id`,
`amount`, `reason`, `refund_type` and `metadata` act as the spec says; `merchant_id` may only name
the merchant of the API key; `split_refunds` is checked, kept and shown on the refund;
`merchant_connector_details` and `all_keys_required` are checked and then ignored (every answer
carries every key anyway). `refund_type` takes either spelling of REFUND_TYPES and is shown as sent.
Ids and amounts keep the sandbox's bounds (ids of 1-64 letters, digits, _ or -; amounts from 1),
which take the real service's 30-character ids and its amounts from 100.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from marshmallow import fields, post_load, validate

from mocksrv.api.answers.refunds import RefundAnswerSchema, RefundListAnswerSchema
from mocksrv.api.schemas.common import TimeRangePageSchema, any_of, within_time_range
from mocksrv.api.schemas.splits import SplitRefundSchema
from mocksrv.bodies import json_body, load
from mocksrv.contract import documented
from mocksrv.domain.money import MAX_AMOUNT
from mocksrv.domain.refunds import REFUND_TYPES, RefundStatus
from mocksrv.domain.store import Between, Query
from mocksrv.fieldtypes import RESOURCE_ID, FreeForm, StrictBoolean, StrictInteger, currency_code
from mocksrv.representations import paged_list_json, refund_json
from mocksrv.rest import authenticate, sandbox
from mocksrv.schema import RequestSchema

refunds = Blueprint("refunds", __name__)

Json = dict[str, Any]


class RefundEncodedConnectorDetailsSchema(RequestSchema):
    connector_account_details = FreeForm()
    metadata = FreeForm()


class RefundMerchantConnectorDetailsSchema(RequestSchema):
    creds_identifier = fields.String(required=True)
    encoded_data = fields.Nested(RefundEncodedConnectorDetailsSchema)


class RefundCreateSchema(RequestSchema):
    payment_id = fields.String(required=True, validate=RESOURCE_ID)
    refund_id = fields.String(validate=RESOURCE_ID)
    merchant_id = fields.String()
    amount = StrictInteger(validate=validate.Range(1, MAX_AMOUNT))
    reason = fields.String(validate=validate.Length(max=255))
    refund_type = fields.String(validate=validate.OneOf(list(REFUND_TYPES)))
    metadata = FreeForm()
    merchant_connector_details = fields.Nested(RefundMerchantConnectorDetailsSchema)
    split_refunds = fields.Nested(SplitRefundSchema)
    all_keys_required = StrictBoolean()


class RefundUpdateSchema(RequestSchema):
    reason = fields.String(validate=validate.Length(max=255))
    metadata = FreeForm()


class AmountFilterSchema(RequestSchema):
    start_amount = StrictInteger()
    end_amount = StrictInteger()


class RefundListSchema(TimeRangePageSchema):
    """The spec's filters, and the real service's (`RefundListRequest`): lists of statuses,
    currencies and connectors, a time range, an amount range. An empty list keeps all."""

    payment_id = fields.String()
    refund_id = fields.String()
    profile_id = fields.String()
    status = fields.String(validate=validate.OneOf([s.value for s in RefundStatus]))
    refund_status = fields.List(fields.String(validate=validate.OneOf([s.value for s in RefundStatus])))
    currency = fields.List(fields.String(validate=currency_code))
    connector = fields.List(fields.String())
    merchant_connector_id = fields.List(fields.String())  # checked and ignored: one processor
    amount_filter = fields.Nested(AmountFilterSchema)

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        data.pop("merchant_connector_id", None)
        within_time_range(data)
        statuses = frozenset(data.pop("refund_status", None) or ())
        if statuses:
            data["status"] = statuses & {data["status"]} if "status" in data else statuses
        any_of(data, "currency")
        any_of(data, "connector")
        amounts = data.pop("amount_filter", None)
        if amounts:
            data["amount"] = Between(amounts.get("start_amount"), amounts.get("end_amount"))
        return Query.of(**data)


_create, _update, _list = RefundCreateSchema(), RefundUpdateSchema(), RefundListSchema()


@refunds.post("/refunds")
@documented(RefundAnswerSchema, body=_create, errors=(404,))
def create_refund() -> Json:
    principal = authenticate()
    return refund_json(sandbox().refunds.create(principal.merchant_id, load(_create, json_body())))


@refunds.post("/refunds/list")
@documented(RefundListAnswerSchema, body=_list)
def list_refunds() -> Json:
    principal = authenticate()
    query = load(_list, json_body())
    page = sandbox().refunds.list(principal.merchant_id, query)
    return paged_list_json([refund_json(r) for r in page.items], page.total_count, query.offset)


@refunds.get("/refunds/<id:refund_id>")
@documented(RefundAnswerSchema)
def retrieve_refund(refund_id: str) -> Json:
    principal = authenticate()
    return refund_json(sandbox().refunds.retrieve(principal.merchant_id, refund_id))


@refunds.post("/refunds/<id:refund_id>")
@documented(RefundAnswerSchema, body=_update)
def update_refund(refund_id: str) -> Json:
    principal = authenticate()
    fields_ = load(_update, json_body())
    return refund_json(sandbox().refunds.update(principal.merchant_id, refund_id, fields_))
