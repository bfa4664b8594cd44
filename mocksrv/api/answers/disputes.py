"""What /disputes answers."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.contract import AnswerSchema, one_of
from mocksrv.domain.disputes import EVIDENCE_FIELDS, DisputeStatus
from mocksrv.representations import CONNECTOR_DISPUTE_STATUS

DISPUTE_STATUSES = DisputeStatus


class DisputeAnswerSchema(AnswerSchema):
    dispute_id = fields.String()
    payment_id = fields.String()
    merchant_id = fields.String()
    profile_id = fields.String()
    amount = fields.String(metadata={"description": "minor units, as a string"})
    currency = fields.String()
    dispute_stage = one_of(["dispute"])
    dispute_status = one_of(DISPUTE_STATUSES)
    attempt_id = fields.String(allow_none=True)
    connector = fields.String()
    connector_status = one_of(sorted(set(CONNECTOR_DISPUTE_STATUS.values())))
    connector_dispute_id = fields.String()
    connector_created_at = fields.String()
    connector_updated_at = fields.String()
    connector_reason = fields.String()
    challenge_required_by = fields.String()
    evidence_submitted_at = fields.String(allow_none=True)
    created_at = fields.String()
    modified_at = fields.String()


class DisputeListAnswerSchema(AnswerSchema):
    data = fields.List(fields.Nested(DisputeAnswerSchema))
    total_count = fields.Integer()
    has_more = fields.Boolean()


# The evidence submitted so far: the texts of the evidence fields sent, each under its name.
DisputeEvidenceItemsAnswerSchema = AnswerSchema.from_dict(
    {name: fields.String(metadata={"optional": True}) for name in EVIDENCE_FIELDS},
    name="DisputeEvidenceItemsAnswerSchema",
)


class DisputeEvidenceAnswerSchema(AnswerSchema):
    dispute_id = fields.String()
    dispute_status = one_of(DISPUTE_STATUSES)
    evidence = fields.Nested(DisputeEvidenceItemsAnswerSchema)
    evidence_submitted_at = fields.String(allow_none=True)
