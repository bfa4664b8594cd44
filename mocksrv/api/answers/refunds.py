"""What /refunds answers."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.contract import AnswerSchema, one_of
from mocksrv.domain.refunds import REFUND_TYPES, RefundStatus


class RefundSplitAnswerSchema(AnswerSchema):
    """The split of the refund as sent: one processor's kind of split."""

    stripe_split_refund = fields.Dict(metadata={"optional": True})
    adyen_split_refund = fields.Dict(metadata={"optional": True})
    xendit_split_refund = fields.Dict(metadata={"optional": True})


class RefundAnswerSchema(AnswerSchema):
    refund_id = fields.String()
    payment_id = fields.String()
    merchant_id = fields.String()
    profile_id = fields.String()
    amount = fields.Integer()
    currency = fields.String()
    status = one_of(RefundStatus)
    reason = fields.String(allow_none=True)
    refund_type = one_of(list(REFUND_TYPES), allow_none=True)
    metadata = fields.Dict(allow_none=True)
    split_refunds = fields.Nested(RefundSplitAnswerSchema, allow_none=True)
    connector = fields.String()
    error_code = fields.String(allow_none=True)
    error_message = fields.String(allow_none=True)
    created_at = fields.String()
    updated_at = fields.String()


class RefundListAnswerSchema(AnswerSchema):
    count = fields.Integer()
    total_count = fields.Integer()
    data = fields.List(fields.Nested(RefundAnswerSchema))
    has_more = fields.Boolean()  # the spec's general envelope, beside the real service's
