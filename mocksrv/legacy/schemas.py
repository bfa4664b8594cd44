"""Request schemas of the legacy card API: a transaction's fields and a card's."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from mocksrv.fieldtypes import (
    RESOURCE_ID,
    FreeForm,
    FreeFormLimits,
    HttpUrl,
    StrictBoolean,
    Text,
    currency_code,
)
from mocksrv.schema import RequestSchema

# Said for an amount that is not a string, as the domain says it for one that is not a decimal.
_DECIMAL_STRING = 'A decimal string in major units, such as "10.50".'


class LegacyCardSchema(RequestSchema):
    number = fields.String(required=True)
    expiry_month = fields.String(required=True)
    expiry_year = fields.String(required=True)
    cvv = fields.String(required=True)
    holder_name = fields.String()


class TransactionSchema(RequestSchema):
    """A new transaction: its amount in major units, and optionally a card to process at once."""

    amount = fields.String(required=True, error_messages={"invalid": _DECIMAL_STRING})
    currency = fields.String(required=True, validate=currency_code)
    transaction_id = fields.String(validate=RESOURCE_ID)
    order_id = fields.String(validate=validate.Length(min=1, max=64))
    description = Text()  # the payment's description
    email = fields.Email()
    return_url = HttpUrl()
    capture_method = fields.String(validate=validate.OneOf(["automatic", "manual"]))
    three_ds = StrictBoolean()
    metadata = FreeForm()
    card = fields.Nested(LegacyCardSchema)

    @validates_schema
    def order_in_metadata(self, data: dict[str, Any], **kwargs: Any) -> None:
        """The payment's metadata holds `order_id` too: within the limits with it, as an update of
        the payment would take it back."""
        if "order_id" not in data or "metadata" not in data:
            return
        try:
            FreeFormLimits()({**data["metadata"], "order_id": data["order_id"]})
        except ValidationError as error:
            [message] = error.messages
            raise ValidationError(
                f"{str(message).rstrip('.')}, counting order_id, which it holds too.", "metadata"
            ) from None


# What `unified` takes to process a transaction made by `initiate`; the rest is for a new one.
_PROCESSING_FIELDS = frozenset({"transaction_id", "card", "three_ds", "return_url"})


class UnifiedSchema(TransactionSchema):
    """A card to process: of the transaction `transaction_id` names, or of a new one (`amount`)."""

    amount = fields.String(error_messages={"invalid": _DECIMAL_STRING})
    currency = fields.String(validate=currency_code)
    card = fields.Nested(LegacyCardSchema, required=True)

    @validates_schema
    def one_transaction(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "amount" in data:
            if "currency" not in data:
                raise ValidationError("Missing data for required field.", "currency")
            return
        if "transaction_id" not in data:
            raise ValidationError("Missing data for required field.", "transaction_id")
        extra = sorted(set(data) - _PROCESSING_FIELDS)
        if extra:
            raise ValidationError("Only for a new transaction, with its amount and currency.", extra[0])
