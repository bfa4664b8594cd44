"""A payment's split among accounts (`split_payments`) and a refund's (`split_refunds`), as the
real service takes them: one processor's kind of split each, with that processor's fields."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate

from mocksrv.api import real_values
from mocksrv.api.schemas.common import Currency, Minor, ObjectOrName, OneKind, OneOf
from mocksrv.fieldtypes import StrictBoolean, StrictInteger
from mocksrv.schema import RequestSchema

PAYMENT_SPLITS = ("stripe_split_payment", "adyen_split_payment", "xendit_split_payment")
REFUND_SPLITS = ("stripe_split_refund", "adyen_split_refund", "xendit_split_refund")
XENDIT_SPLITS = ("multiple_splits", "single_split")


def _names_a_stripe_charge_type(value: Any) -> None:
    # The real document writes the charge type as {"Stripe": "direct"}; its clients send "direct".
    if isinstance(value, dict) and (
        set(value) != {"Stripe"} or value["Stripe"] not in real_values.STRIPE_CHARGE_TYPES
    ):
        raise ValidationError(
            f"An object names a Stripe charge type ({', '.join(real_values.STRIPE_CHARGE_TYPES)}), "
            'as {"Stripe": "direct"}.'
        )


class StripeSplitPaymentSchema(RequestSchema):
    charge_type = ObjectOrName(
        real_values.STRIPE_CHARGE_TYPES, required=True, validate=_names_a_stripe_charge_type
    )
    application_fees = Minor(required=True)
    transfer_account_id = fields.String(required=True)


class AdyenSplitItemSchema(RequestSchema):
    amount = Minor(required=True)
    split_type = OneOf(real_values.ADYEN_SPLIT_TYPES, required=True)
    account = fields.String()
    reference = fields.String(required=True)
    description = fields.String()


class AdyenSplitSchema(RequestSchema):
    """Adyen's split, of a payment or of its refund."""

    store = fields.String()
    split_items = fields.List(fields.Nested(AdyenSplitItemSchema), required=True)


class XenditRouteSchema(RequestSchema):
    """Where a share of the payment goes: a flat amount or a percentage of it."""

    flat_amount = Minor()
    percent_amount = StrictInteger(validate=validate.Range(0, 100))
    currency = Currency(required=True)
    destination_account_id = fields.String(required=True)
    reference_id = fields.String(required=True)


class XenditMultipleSplitsSchema(RequestSchema):
    name = fields.String(required=True)
    description = fields.String(required=True)
    for_user_id = fields.String()
    routes = fields.List(fields.Nested(XenditRouteSchema), required=True)


class XenditSubMerchantSchema(RequestSchema):
    """Xendit's split for one sub-account, of a payment or of its refund."""

    for_user_id = fields.String(required=True)


class XenditSplitSchema(OneKind):
    kinds = XENDIT_SPLITS
    multiple_splits = fields.Nested(XenditMultipleSplitsSchema)
    single_split = fields.Nested(XenditSubMerchantSchema)


class SplitPaymentSchema(OneKind):
    """A payment's split: exactly one processor's."""

    kinds = PAYMENT_SPLITS

    stripe_split_payment = fields.Nested(StripeSplitPaymentSchema)
    adyen_split_payment = fields.Nested(AdyenSplitSchema)
    xendit_split_payment = fields.Nested(XenditSplitSchema)


class StripeSplitRefundSchema(RequestSchema):
    revert_platform_fee = StrictBoolean()
    revert_transfer = StrictBoolean()


class SplitRefundSchema(OneKind):
    """A refund's split: exactly one processor's."""

    kinds = REFUND_SPLITS

    stripe_split_refund = fields.Nested(StripeSplitRefundSchema)
    adyen_split_refund = fields.Nested(AdyenSplitSchema)
    xendit_split_refund = fields.Nested(XenditSubMerchantSchema)
