"""What a payment pays with, as a request sends it: method data of each kind, a mandate to set up, and
what to charge again without the customer (`recurring_details`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from mocksrv.api import real_values
from mocksrv.api.schemas.common import (
    Amount,
    BillingSchema,
    Currency,
    Filled,
    ObjectOrName,
    OneOf,
)
from mocksrv.domain.clock import parse_timestamp
from mocksrv.fieldtypes import (
    FreeForm,
    FreeFormLimits,
    TimestampText,
)
from mocksrv.schema import MAX_TEXT_LENGTH, RequestSchema


class CardDetailsSchema(RequestSchema):
    """The real service's details of a card beside its number, checked and otherwise ignored: the
    card's details come from its number."""

    nick_name = fields.String()
    card_issuer = fields.String()
    card_network = OneOf(real_values.CARD_NETWORKS)
    card_type = fields.String()
    card_issuing_country = fields.String()
    bank_code = fields.String()


class CardSchema(CardDetailsSchema):
    card_number = fields.String(required=True)
    card_exp_month = fields.String(required=True)
    card_exp_year = fields.String(required=True)
    card_cvc = fields.String(required=True)
    card_holder_name = fields.String()
    card_issuing_country_code = fields.String()


class CryptoSchema(RequestSchema):
    pay_currency = Filled()
    network = fields.String()
    wallet_address = Filled()
    wallet_address_tag = fields.String()
    payment_method_id = fields.String()
    external_customer_id = fields.String()


# The vouchers the real service names with a bare string, having no details to send.
VOUCHERS_BY_NAME = ("efecty", "pago_efectivo", "red_compra", "red_pagos", "oxxo")


class PaymentMethodDataSchema(RequestSchema):
    """One kind of method data; the billing sent along is the payment's billing (spec 2.2)."""

    card = fields.Nested(CardSchema)
    crypto = fields.Nested(CryptoSchema)
    wallet = FreeForm()
    bank_transfer = FreeForm()
    # The real service's other kinds, accepted as objects; mocksrv does not model them yet.
    card_redirect = FreeForm()
    pay_later = FreeForm()
    bank_redirect = FreeForm()
    bank_debit = FreeForm()
    real_time_payment = FreeForm()
    upi = FreeForm()
    voucher = ObjectOrName(VOUCHERS_BY_NAME, as_kind=True, validate=FreeFormLimits())
    gift_card = FreeForm()
    card_token = FreeForm()
    open_banking = FreeForm()
    mobile_payment = FreeForm()
    network_token = FreeForm()
    billing = fields.Nested(lambda: BillingSchema())


# The kinds of method data the real service takes as a bare name, having no details to send
# ("mandate_payment": charge the mandate the payment names).
BARE_METHOD_DATA = ("reward", "mandate_payment")


class MethodData(fields.Nested):
    """`payment_method_data`: an object holding one kind of method data, or the bare name of a kind
    without details (`"reward"`), taken as that kind with nothing in it."""

    loads_objects_as_nested = True  # the fast path of RequestSchema checks objects as Nested's

    def __init__(self, **kwargs: Any) -> None:
        alternative = {"type": "string", "enum": list(BARE_METHOD_DATA)}
        super().__init__(PaymentMethodDataSchema, metadata={"or": alternative}, **kwargs)

    def _deserialize(
        self,
        value: Any,
        attr: str | None,
        data: Mapping[str, Any] | None,
        partial: bool | Sequence[str] | AbstractSet[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        if isinstance(value, str):
            if value not in BARE_METHOD_DATA:
                raise ValidationError(f"Must be an object or one of: {', '.join(BARE_METHOD_DATA)}.")
            return {value: {}}
        return super()._deserialize(value, attr, data, partial, **kwargs)


class OnlineAcceptanceSchema(RequestSchema):
    ip_address = fields.String(required=True, validate=validate.Length(max=64))
    user_agent = fields.String(required=True, validate=validate.Length(max=1000))


class CustomerAcceptanceSchema(RequestSchema):
    acceptance_type = fields.String(required=True, validate=validate.OneOf(real_values.ACCEPTANCE_TYPES))
    accepted_at = TimestampText()
    online = fields.Nested(OnlineAcceptanceSchema)


class MandateAmountSchema(RequestSchema):
    """A mandate's limit: the most a charge (single use) or all charges (multi use) may take."""

    amount = Amount(required=True)
    currency = Currency(required=True)
    start_date = TimestampText()
    end_date = TimestampText()
    metadata = FreeForm()

    @validates_schema
    def ends_after_start(self, data: dict[str, Any], **kwargs: Any) -> None:
        start, end = data.get("start_date"), data.get("end_date")
        if start is not None and end is not None and parse_timestamp(end) <= parse_timestamp(start):
            raise ValidationError("Must be after start_date.", "end_date")


class MandateTypeSchema(RequestSchema):
    single_use = fields.Nested(MandateAmountSchema)
    # null is not absent here: a multi-use mandate without a limit, as the real service takes it.
    multi_use = fields.Nested(MandateAmountSchema, allow_none=True)

    @validates_schema
    def one_type(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "single_use" in data and "multi_use" in data:
            raise ValidationError("Either single_use or multi_use, not both.", "single_use")
        if not data:  # the real MandateType is one of the two
            raise ValidationError("Must hold single_use or multi_use.")


class MandateDataSchema(RequestSchema):
    update_mandate_id = fields.String()
    customer_acceptance = fields.Nested(CustomerAcceptanceSchema)
    mandate_type = fields.Nested(MandateTypeSchema)


def _Required(**kwargs: Any) -> fields.String:  # noqa: N802 - reads as a field type
    """A text that must be sent, and not empty."""
    return fields.String(required=True, validate=validate.Length(1, MAX_TEXT_LENGTH), **kwargs)


class ProcessorPaymentTokenSchema(RequestSchema):
    """A processor's token of a payment method, for a merchant-initiated charge."""

    processor_payment_token = _Required()
    merchant_connector_id = fields.String()  # checked and ignored: one processor


class NetworkTransactionSchema(CardDetailsSchema):
    """What a merchant-initiated charge of a card or network token sends beside its number: the
    network's id of the customer-initiated payment it follows, and the holder's name."""

    network_transaction_id = _Required()
    card_holder_name = fields.String(required=True)


class NetworkTransactionCardSchema(NetworkTransactionSchema):
    card_number = fields.String(required=True)
    card_exp_month = fields.String(required=True)
    card_exp_year = fields.String(required=True)
    card_issuing_country_code = fields.String()


class NetworkTransactionTokenSchema(NetworkTransactionSchema):
    network_token = fields.String(required=True)
    token_exp_month = fields.String(required=True)
    token_exp_year = fields.String(required=True)
    eci = fields.String()


class RecurringData(fields.Field[Any]):
    """`recurring_details.data`, as its `type` says: the id of a mandate or saved method, or the
    object of the type's schema (`schemas`)."""

    def __init__(self, schemas: Mapping[str, type[RequestSchema]], **kwargs: Any) -> None:
        super().__init__(metadata={"alternatives": [{"type": "string"}, *schemas.values()]}, **kwargs)
        self.schemas = {kind: schema() for kind, schema in schemas.items()}

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> Any:
        kind = (data or {}).get("type")
        schema = self.schemas.get(kind) if isinstance(kind, str) else None
        if schema is not None:
            return schema.load(value)
        if not isinstance(value, str):
            raise ValidationError("Not a valid string.")
        return value


class RecurringDetailsSchema(RequestSchema):
    """What to charge again: a mandate or a saved method by its id (`{"type": "mandate_id", "data":
    "man_..."}`), or, without the customer, a processor's token, or a card or network token with the
    network's id of an earlier customer-initiated payment."""

    type = fields.String(required=True, validate=validate.OneOf(real_values.RECURRING_DETAIL_TYPES))
    data = RecurringData(
        {
            "processor_payment_token": ProcessorPaymentTokenSchema,
            "network_transaction_id_and_card_details": NetworkTransactionCardSchema,
            "network_transaction_id_and_network_token_details": NetworkTransactionTokenSchema,
        },
        required=True,
    )
