"""Request schemas of /customers."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, post_load, validate

from mocksrv.api.schemas.common import AddressSchema, created_range
from mocksrv.domain.store import Query
from mocksrv.fieldtypes import RESOURCE_ID, FreeForm, QueryInteger, Timestamp
from mocksrv.schema import QuerySchema, RequestSchema


class CustomerFieldsSchema(RequestSchema):
    email = fields.Email()
    name = fields.String()
    # Any text of up to 255 characters, as the real service takes them: the spec gives a customer's
    # phone no form (a payment's own phone, which the spec says is sent without country code, keeps
    # its patterns).
    phone = fields.String()
    phone_country_code = fields.String()
    description = fields.String()  # 255 characters, as the real service takes it
    address = fields.Nested(AddressSchema(partial=True))
    metadata = FreeForm()
    tax_registration_id = fields.String()


class CustomerCreateSchema(CustomerFieldsSchema):
    customer_id = fields.String(validate=RESOURCE_ID)


class CustomerListSchema(QuerySchema):
    """Query parameters arrive as text; ones it does not know are ignored, as on any GET. The
    creation bounds are the spec's (section 8), compared to the millisecond as answers show times."""

    limit = QueryInteger(validate=validate.Range(1, 100), load_default=10)
    offset = QueryInteger(validate=validate.Range(min=0), load_default=0)
    created_gte = Timestamp()
    created_lte = Timestamp()

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        return Query.of(**created_range(data))
