"""The request journal's routes: what a merchant's backend sent, for checking afterwards."""

from __future__ import annotations

from typing import Any

from flask import request
from marshmallow import fields, validate

from mocksrv.bodies import load
from mocksrv.contract import AnswerSchema, Auth, documented, one_of
from mocksrv.control.blueprint import acting_merchant, control, merchant_only
from mocksrv.domain.controls.faults import AppliedFault, FaultEffect, FaultTiming
from mocksrv.domain.controls.journal import JournalEntry, JournalFilter
from mocksrv.fieldtypes import Timestamp
from mocksrv.representations import general_list_json, timestamp
from mocksrv.rest import sandbox
from mocksrv.schema import RequestSchema

Json = dict[str, Any]


class ControlFaultAppliedAnswerSchema(AnswerSchema):
    """The fault a request got."""

    fault_id = fields.String()
    effect = one_of(FaultEffect)
    timing = one_of(FaultTiming)
    status = fields.Integer(allow_none=True, metadata={"description": "the status it answered, if any"})


class ControlRequestAnswerSchema(AnswerSchema):
    """A request of the merchant as the journal recorded it, bodies masked."""

    request_id = fields.String()
    at = fields.String(metadata={"description": "when it came, on the merchant's clock"})
    method = fields.String()
    path = fields.String()
    query = fields.String()
    status = fields.Integer(allow_none=True, metadata={"description": "null: the client got no answer"})
    latency_ms = fields.Float()
    key_kind = one_of(["secret", "publishable", "ephemeral", "admin"], allow_none=True)
    request_body = fields.Raw(allow_none=True, metadata={"description": "the masked JSON, or text"})
    response_body = fields.Raw(allow_none=True, metadata={"description": "the masked JSON, or text"})
    fault = fields.Nested(ControlFaultAppliedAnswerSchema, allow_none=True)


class ControlRequestListAnswerSchema(AnswerSchema):
    data = fields.List(fields.Nested(ControlRequestAnswerSchema))
    total_count = fields.Integer()
    has_more = fields.Boolean()


class ControlRequestCountAnswerSchema(AnswerSchema):
    count = fields.Integer()
    recording = fields.Boolean(metadata={"description": "false when the server keeps no journal (size 0)"})


class ControlRequestsDeletedAnswerSchema(AnswerSchema):
    deleted = fields.Integer()


def fault_applied_json(fault: AppliedFault) -> Json:
    return {
        "fault_id": fault.fault_id,
        "effect": fault.effect.value,
        "timing": fault.timing.value,
        "status": fault.status,
    }


class RequestFilterSchema(RequestSchema):
    """Which of the merchant's recorded requests a query wants."""

    merchant_id = fields.String()
    method = fields.String(validate=validate.Length(1, 16))
    path = fields.String(validate=validate.Length(1, 2048), metadata={"description": "a glob pattern"})
    status = fields.Integer(validate=validate.Range(100, 599))
    since = Timestamp(metadata={"description": "at or after, on the merchant's clock"})


class RequestPageSchema(RequestFilterSchema):
    limit = fields.Integer(validate=validate.Range(1, 100), load_default=100)
    offset = fields.Integer(validate=validate.Range(min=0), load_default=0)


_request_filter, _request_page = RequestFilterSchema(), RequestPageSchema()


def _journal_filter(query: Json) -> JournalFilter:
    return JournalFilter(query.get("method"), query.get("path"), query.get("status"), query.get("since"))


def _request_json(entry: JournalEntry) -> Json:
    return {
        "request_id": entry.request_id,
        "at": timestamp(entry.at),
        "method": entry.method,
        "path": entry.path,
        "query": entry.query,
        "status": entry.status,
        "latency_ms": entry.latency_ms,
        "key_kind": entry.key_kind,
        "request_body": entry.request_body,
        "response_body": entry.response_body,
        "fault": None if entry.fault is None else fault_applied_json(entry.fault),
    }


@control.get("/requests")
@documented(ControlRequestListAnswerSchema, query=_request_page, auth=Auth.CONTROL, errors=(400, 404))
def list_requests() -> Json:
    """The merchant's recorded API requests, newest first."""
    query = load(_request_page, request.args.to_dict())
    merchant_id = acting_merchant(query)
    entries, total = sandbox().journal.entries(
        merchant_id, _journal_filter(query), query["limit"], query["offset"]
    )
    return general_list_json([_request_json(entry) for entry in entries], total, query["offset"])


@control.get("/requests/count")
@documented(ControlRequestCountAnswerSchema, query=_request_filter, auth=Auth.CONTROL, errors=(400, 404))
def count_requests() -> Json:
    """How many of the merchant's recorded requests match: "exactly one capture was sent"."""
    query = load(_request_filter, request.args.to_dict())
    journal = sandbox().journal
    return {
        "count": journal.count(acting_merchant(query), _journal_filter(query)),
        "recording": journal.enabled,
    }


@control.delete("/requests")
@documented(ControlRequestsDeletedAnswerSchema, query=merchant_only, auth=Auth.CONTROL, errors=(404,))
def delete_requests() -> Json:
    """Forget the merchant's recorded requests."""
    merchant_id = acting_merchant(load(merchant_only, request.args.to_dict()))
    return {"deleted": sandbox().journal.clear(merchant_id)}
