"""A bank account to send money to or take it from, as the real service's `Bank` is: an ACH, BACS,
SEPA or PIX transfer. A payout's bank, and a saved bank transfer method's."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from mocksrv.api.schemas.common import Country
from mocksrv.schema import RequestSchema

# The bank transfers the real service takes (its `Bank`), each told by a field of its own; an ACH
# transfer otherwise.
_BANK_TRANSFERS = (
    ("iban", ("iban", "bic")),
    ("bic", ("iban", "bic")),
    ("pix_key", ("bank_account_number", "pix_key")),
    ("bank_sort_code", ("bank_account_number", "bank_sort_code")),
)
_ACH = ("bank_account_number", "bank_routing_number")


class BankAccountSchema(RequestSchema):
    """An ACH, BACS, SEPA or PIX transfer; the fields the transfer needs are required."""

    bank_account_number = fields.String(validate=validate.Regexp(r"^[0-9]{4,17}\Z"))
    bank_routing_number = fields.String(validate=validate.Regexp(r"^[0-9]{9}\Z"))
    bank_sort_code = fields.String(validate=validate.Regexp(r"^[0-9]{2}-?[0-9]{2}-?[0-9]{2}\Z"))
    iban = fields.String(validate=validate.Regexp(r"^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}\Z"))
    bic = fields.String(validate=validate.Regexp(r"^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?\Z"))
    pix_key = fields.String()
    tax_id = fields.String()
    bank_name = fields.String()
    bank_country_code = Country()
    bank_city = fields.String()
    bank_branch = fields.String()

    @validates_schema
    def transfer_is_complete(self, data: dict[str, Any], **kwargs: Any) -> None:
        needed = next((names for key, names in _BANK_TRANSFERS if key in data), _ACH)
        for name in needed:
            if name not in data:
                raise ValidationError("Missing data for required field.", name)
