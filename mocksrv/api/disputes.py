"""Routes of /disputes: list, retrieve, accept, and evidence."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request
from marshmallow import fields, post_load, validate

from mocksrv.api.answers.disputes import (
    DisputeAnswerSchema,
    DisputeEvidenceAnswerSchema,
    DisputeListAnswerSchema,
)
from mocksrv.api.schemas import NoFieldsSchema
from mocksrv.api.schemas.common import created_range, within_time_range
from mocksrv.bodies import json_body, load
from mocksrv.contract import documented
from mocksrv.domain.disputes import DISPUTE_STAGES, EVIDENCE_FIELDS, MODELLED_STAGE, DisputeStatus
from mocksrv.domain.store import Query
from mocksrv.fieldtypes import QueryInteger, Timestamp
from mocksrv.representations import dispute_json, evidence_json, general_list_json
from mocksrv.rest import authenticate, sandbox
from mocksrv.schema import QuerySchema, RequestSchema

disputes = Blueprint("disputes", __name__)
_no_fields = NoFieldsSchema()

Json = dict[str, Any]


class DisputeListSchema(QuerySchema):
    """Query parameters; ones it does not know are ignored, as on any GET."""

    limit = QueryInteger(validate=validate.Range(1, 100), load_default=10)
    offset = QueryInteger(validate=validate.Range(min=0), load_default=0)
    dispute_status = fields.String(
        validate=validate.OneOf([s.value for s in DisputeStatus]),
        data_key="dispute_status",
        attribute="status",
    )
    dispute_stage = fields.String(validate=validate.OneOf(sorted(DISPUTE_STAGES)))
    payment_id = fields.String()
    reason = fields.String()
    connector = fields.String()
    # The real service's bounds on the time a dispute was received: its creation here.
    received_time = Timestamp(attribute="created")
    received_time_lt = Timestamp(data_key="received_time.lt", attribute="created_lt")
    received_time_gt = Timestamp(data_key="received_time.gt", attribute="created_gt")
    received_time_lte = Timestamp(data_key="received_time.lte", attribute="created_lte")
    received_time_gte = Timestamp(data_key="received_time.gte", attribute="created_gte")
    # The spec's bounds on every list (section 8): they bound the same range.
    created_gte = Timestamp(attribute="start_time")
    created_lte = Timestamp(attribute="end_time")

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        if data.pop("dispute_stage", MODELLED_STAGE) != MODELLED_STAGE:
            data["dispute_id"] = frozenset()  # every dispute is at the one stage modelled: none match
        return Query.of(**within_time_range(created_range(data)))


EvidenceSchema = RequestSchema.from_dict(
    {
        "dispute_id": fields.String(required=True),
        **{name: fields.String(validate=validate.Length(max=5000)) for name in EVIDENCE_FIELDS},
    },
    name="EvidenceSchema",
)


class DeleteEvidenceSchema(RequestSchema):
    dispute_id = fields.String(required=True)
    evidence_type = fields.String(required=True, validate=validate.OneOf(EVIDENCE_FIELDS))


_list, _evidence, _delete = DisputeListSchema(), EvidenceSchema(), DeleteEvidenceSchema()


@disputes.get("/disputes/list")
@documented(DisputeListAnswerSchema, query=_list)
def list_disputes() -> Json:
    principal = authenticate()
    dispute_filter = load(_list, request.args.to_dict())
    page = sandbox().disputes.list(principal.merchant_id, dispute_filter)
    return general_list_json([dispute_json(d) for d in page.items], page.total_count, dispute_filter.offset)


@disputes.get("/disputes/<id:dispute_id>")
@documented(DisputeAnswerSchema)
def retrieve_dispute(dispute_id: str) -> Json:
    principal = authenticate()
    return dispute_json(sandbox().disputes.retrieve(principal.merchant_id, dispute_id))


@disputes.post("/disputes/accept/<id:dispute_id>")
@documented(DisputeAnswerSchema, body=_no_fields, errors=(400,))
def accept_dispute(dispute_id: str) -> Json:
    principal = authenticate()
    load(_no_fields, json_body())
    return dispute_json(sandbox().disputes.accept(principal.merchant_id, dispute_id))


@disputes.post("/disputes/evidence")
@documented(DisputeAnswerSchema, body=_evidence, errors=(404,))
def submit_evidence() -> Json:
    principal = authenticate()
    body = load(_evidence, json_body())
    dispute_id = body.pop("dispute_id")
    return dispute_json(sandbox().disputes.submit_evidence(principal.merchant_id, dispute_id, body))


@disputes.get("/disputes/evidence/<id:dispute_id>")
@documented(DisputeEvidenceAnswerSchema)
def retrieve_evidence(dispute_id: str) -> Json:
    principal = authenticate()
    return evidence_json(sandbox().disputes.evidence(principal.merchant_id, dispute_id))


@disputes.delete("/disputes/evidence")
@documented(DisputeEvidenceAnswerSchema, body=_delete, errors=(404,))
def delete_evidence() -> Json:
    principal = authenticate()
    body = load(_delete, json_body())
    dispute = sandbox().disputes.delete_evidence(
        principal.merchant_id, body["dispute_id"], body["evidence_type"]
    )
    return evidence_json(dispute)
