"""What /payment_link answers, and what a payment shows of its link."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.contract import AnswerSchema, one_of
from mocksrv.domain.links.records import LinkType, PaymentLinkStatus


class PaymentLinkRefAnswerSchema(AnswerSchema):
    link = fields.String()
    secure_link = fields.String(allow_none=True)
    payment_link_id = fields.String()


class PaymentLinkAnswerSchema(PaymentLinkRefAnswerSchema):
    link_to_pay = fields.String()
    merchant_id = fields.String()
    profile_id = fields.String()
    payment_id = fields.String()
    status = one_of(PaymentLinkStatus)
    amount = fields.Integer()
    currency = fields.String()
    description = fields.String(allow_none=True)
    link_type = one_of(LinkType)
    expiry = fields.String()
    created_at = fields.String()
    updated_at = fields.String()
    customer_id = fields.String(allow_none=True)
    email = fields.String(allow_none=True)
    send_email = fields.Boolean()
    capture_method = fields.String()
    authentication_type = fields.String(allow_none=True)
    require_customer_info = fields.Boolean()
    payment_link_config = fields.Dict(allow_none=True)
    return_url = fields.String(allow_none=True)
    metadata = fields.Dict(allow_none=True)


class PaymentLinkListAnswerSchema(AnswerSchema):
    """The payments-style envelope, and the spec's general one (`has_more`): the real service
    documents none for links."""

    count = fields.Integer()
    total_count = fields.Integer()
    data = fields.List(fields.Nested(PaymentLinkAnswerSchema))
    has_more = fields.Boolean()
