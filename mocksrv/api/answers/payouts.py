"""What /payouts answers."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.api import real_values
from mocksrv.api.answers.customers import CustomerDetailsAnswerSchema
from mocksrv.contract import AnswerSchema, one_of
from mocksrv.domain.payouts import PAYOUT_TYPES, PayoutStatus


class PayoutCardAnswerSchema(AnswerSchema):
    """The card paid out to; its number cut to the last four digits."""

    card_number = fields.String()
    expiry_month = fields.String()
    expiry_year = fields.String()
    card_holder_name = fields.String()
    card_network = fields.String(allow_none=True, metadata={"optional": True})
    last4 = fields.String()  # the real service's names, beside the ones the card was sent with
    card_exp_month = fields.String()
    card_exp_year = fields.String()


class PayoutMethodAnswerSchema(AnswerSchema):
    """The payout method, under its payout type; an account number is cut to its last four digits."""

    card = fields.Nested(PayoutCardAnswerSchema, metadata={"optional": True})
    bank = fields.Dict(metadata={"optional": True})
    wallet = fields.Dict(metadata={"optional": True})
    bank_redirect = fields.Dict(metadata={"optional": True})
    passthrough = fields.Dict(metadata={"optional": True})


class PayoutAnswerSchema(AnswerSchema):
    """A payout, with the fields of the real `PayoutCreateResponse` and no others: when it last
    changed is not one of them (the `timestamp` of its latest event says it)."""

    payout_id = fields.String()
    merchant_id = fields.String()
    profile_id = fields.String()
    amount = fields.Integer()
    currency = fields.String()
    payout_type = one_of(PAYOUT_TYPES, allow_none=True)
    payout_method_data = fields.Nested(PayoutMethodAnswerSchema, allow_none=True)
    customer_id = fields.String(allow_none=True)
    description = fields.String(allow_none=True)
    metadata = fields.Dict(allow_none=True)
    auto_fulfill = fields.Boolean()
    status = one_of(PayoutStatus)
    error_code = fields.String(allow_none=True)
    error_message = fields.String(allow_none=True)
    created = fields.String()
    client_secret = fields.String()
    connector = fields.String()
    merchant_order_reference_id = fields.String(allow_none=True)
    billing = fields.Dict(allow_none=True)
    customer = fields.Nested(CustomerDetailsAnswerSchema, allow_none=True)
    return_url = fields.String(allow_none=True)
    business_country = fields.String(allow_none=True)
    business_label = fields.String(allow_none=True)
    entity_type = one_of(real_values.PAYOUT_ENTITY_TYPES)
    recurring = fields.Boolean()
    priority = one_of(real_values.PAYOUT_PRIORITIES, allow_none=True)
    email = fields.String(allow_none=True)
    name = fields.String(allow_none=True)
    phone = fields.String(allow_none=True)
    phone_country_code = fields.String(allow_none=True)
    payout_method_id = fields.String(allow_none=True)


class PayoutListAnswerSchema(AnswerSchema):
    size = fields.Integer()
    count = fields.Integer()
    total_count = fields.Integer()
    has_more = fields.Boolean()
    data = fields.List(fields.Nested(PayoutAnswerSchema))


class PayoutFiltersAnswerSchema(AnswerSchema):
    """The values each list filter may take among the payouts of a time range."""

    connector = fields.List(fields.String(), required=True)
    currency = fields.List(fields.String(), required=True)
    status = fields.List(fields.String(), required=True)
    payout_method = fields.List(fields.String(), required=True)
