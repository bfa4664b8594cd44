"""Request schemas and field types shared by the API's resources: addresses, phones, contacts."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from marshmallow import ValidationError, fields, post_load, validate, validates_schema

from mocksrv.domain.money import MAX_AMOUNT, MIN_AMOUNT, is_country
from mocksrv.domain.store import Query
from mocksrv.fieldtypes import (
    PHONE_COUNTRY_CODE,
    PHONE_NUMBER,
    RESOURCE_ID,
    QueryInteger,
    StrictBoolean,
    StrictInteger,
    Timestamp,
    currency_code,
)
from mocksrv.schema import QuerySchema, RequestSchema


def _country(value: str) -> None:
    if not is_country(value):
        raise ValidationError("Not an ISO 3166 alpha-2 country code.")


def Amount(**kwargs: Any) -> StrictInteger:  # noqa: N802 - reads as a field type
    return StrictInteger(validate=validate.Range(MIN_AMOUNT, MAX_AMOUNT), **kwargs)


def Currency(**kwargs: Any) -> fields.String:  # noqa: N802
    return fields.String(validate=currency_code, **kwargs)


def Limited(longest: int = 255, **kwargs: Any) -> fields.String:  # noqa: N802
    return fields.String(validate=validate.Length(max=longest), **kwargs)


def _filled(value: str) -> None:
    if not value.strip():
        raise ValidationError("Empty or blank: the field is required.")


def Filled(longest: int | None = None, **kwargs: Any) -> fields.String:  # noqa: N802
    """A string the spec requires: present, and not empty or only blanks, which a form's untouched
    field would send."""
    checks: list[Callable[[str], object]] = [_filled]
    if longest is not None:
        checks.insert(0, validate.Length(max=longest))
    return fields.String(required=True, validate=checks, **kwargs)


class AddressSchema(RequestSchema):
    """The spec's billing address: every part but the extra lines required, with the real service's
    lengths (a street line 200 characters, the others 50, a name 255). A customer's address takes
    it with every part optional (`partial`)."""

    line1 = Limited(200, required=True)
    line2 = Limited(50)
    line3 = Limited(50)
    city = Limited(50, required=True)
    state = fields.String(required=True)
    zip = Limited(50, required=True)
    country = fields.String(required=True, validate=_country)
    first_name = fields.String(required=True)
    last_name = fields.String(required=True)
    origin_zip = Limited(50)


class BillingAddressSchema(AddressSchema):
    """A payment's billing address, whose required parts are not blank either."""

    line1 = Filled(200)
    city = Filled(50)
    state = Filled()
    zip = Filled(50)
    first_name = Filled()
    last_name = Filled()


def Country(**kwargs: Any) -> fields.String:  # noqa: N802 - reads as a field type
    return fields.String(validate=_country, **kwargs)


class AddressDetailsSchema(RequestSchema):
    """An address as the real service takes it where the spec asks for none: every part optional,
    with the real service's lengths."""

    city = Limited(50)
    country = Country()
    line1 = Limited(200)
    line2 = Limited(50)
    line3 = Limited(50)
    zip = Limited(50)
    state = Limited()
    first_name = Limited()
    last_name = Limited()
    origin_zip = Limited(50)


class PhoneDetailsSchema(RequestSchema):
    number = Limited()
    country_code = Limited()


class ContactSchema(RequestSchema):
    """The real service's address object (an address, a phone, an e-mail), every part optional:
    a shipping address, and a billing address where the spec asks for none."""

    address = fields.Nested(AddressDetailsSchema)
    phone = fields.Nested(PhoneDetailsSchema)
    email = fields.Email()


class CustomerDetailsSchema(RequestSchema):
    """The customer a payment or payout names by `id`, with the details sent along."""

    id = fields.String(required=True, validate=RESOURCE_ID)
    name = Limited()
    email = fields.Email()
    phone = Limited(10)
    phone_country_code = Limited(2)
    tax_registration_id = Limited()


class PhoneSchema(RequestSchema):
    number = fields.String(required=True, validate=PHONE_NUMBER)
    country_code = fields.String(required=True, validate=PHONE_COUNTRY_CODE)


class BillingSchema(RequestSchema):
    address = fields.Nested(BillingAddressSchema, required=True)
    phone = fields.Nested(PhoneSchema, required=True)
    email = fields.Email()


class NoFieldsSchema(RequestSchema):
    """A body with no fields of its own: an empty object, or none.

    A route that reads no body loads one with it all the same, so that a body sent anyway is
    refused as anywhere when it is not JSON or names a field (IR_06)."""


def OneOf(values: tuple[str, ...], **kwargs: Any) -> fields.String:  # noqa: N802
    return fields.String(validate=validate.OneOf(values), **kwargs)


class OneKind(RequestSchema):
    """An object that holds exactly one of `kinds`: a split's kind, a mandate's type, a size's unit."""

    kinds: tuple[str, ...] = ()

    @validates_schema
    def one_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        if len(data) != 1:
            raise ValidationError(f"Must hold exactly one of: {', '.join(self.kinds)}.")


class ObjectOrName(fields.Dict):
    """An object, or one of `names` sent bare, as the real service takes both. A bare name loads as
    itself (`"ecommerce"`), or, with `as_kind`, as a kind of method data with no details (`"oxxo"`
    is `{"oxxo": {}}`); an object must pass `validate`."""

    loads_objects_as_dict = True  # the fast path of RequestSchema checks objects as Dict's

    def __init__(self, names: Sequence[str], *, as_kind: bool = False, **kwargs: Any) -> None:
        super().__init__(keys=fields.String(), metadata={"names": list(names)}, **kwargs)
        self.names = tuple(names)
        self.as_kind = as_kind

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str):
            if value not in self.names:
                raise ValidationError(f"Must be an object or one of: {', '.join(self.names)}.")
            return {value: {}} if self.as_kind else value
        return super()._deserialize(value, attr, data, **kwargs)  # type: ignore[no-untyped-call]


def Minor(**kwargs: Any) -> StrictInteger:  # noqa: N802 - an amount that may be 0
    return StrictInteger(validate=validate.Range(0, MAX_AMOUNT), **kwargs)


INT32_MAX = 2**31 - 1  # the largest integer the real service reads into 32 bits


class BrowserInfoSchema(RequestSchema):
    ip_address = fields.String()
    user_agent = fields.String()
    accept_header = fields.String()
    accept_language = fields.String()
    language = fields.String()
    # 32-bit integers, as the real service reads them; the sizes not negative.
    color_depth = StrictInteger(validate=validate.Range(0, INT32_MAX))
    screen_height = StrictInteger(validate=validate.Range(0, INT32_MAX))
    screen_width = StrictInteger(validate=validate.Range(0, INT32_MAX))
    time_zone = StrictInteger(validate=validate.Range(-INT32_MAX - 1, INT32_MAX))
    java_enabled = StrictBoolean()
    java_script_enabled = StrictBoolean()
    os_type = fields.String()
    os_version = fields.String()
    device_model = fields.String()
    referer = fields.String()


_MS = timedelta(milliseconds=1)
_UPPER = (("created", timedelta(0)), ("created_lte", timedelta(0)), ("created_lt", _MS))
_LOWER = (("created", timedelta(0)), ("created_gte", timedelta(0)), ("created_gt", _MS))


def created_range(data: Mapping[str, Any]) -> dict[str, Any]:
    """A list query's fields with its bounds on the creation time (`created`, `created_lt`,
    `created_gt`, `created_lte`, `created_gte`) made into the one range they bound together, to
    the millisecond, as answers show times: `created_gte` and `created_lte`."""
    lte = [_moved(data[name], -offset) for name, offset in _UPPER if name in data]
    gte = [_moved(data[name], offset) for name, offset in _LOWER if name in data]
    kept = {name: value for name, value in data.items() if not name.startswith("created")}
    return {**kept, "created_lte": min(lte, default=None), "created_gte": max(gte, default=None)}


def _moved(moment: datetime, offset: timedelta) -> datetime:
    """`moment + offset`, or the first or last moment there is when that is past it: before
    0001-01-01 nothing was created, and after 9999-12-31 nothing will be."""
    try:
        return moment + offset
    except OverflowError:
        return (datetime.min if offset < timedelta(0) else datetime.max).replace(tzinfo=moment.tzinfo)


def within_time_range(data: dict[str, Any]) -> dict[str, Any]:
    """A list query's fields with the real service's `start_time` and `end_time` (a TimeRange)
    taken into its creation range, `created_gte` and `created_lte`: both bound it."""
    start, end = data.pop("start_time", None), data.pop("end_time", None)
    if start is not None:
        data["created_gte"] = max(start, data.get("created_gte") or start)
    if end is not None:
        data["created_lte"] = min(end, data.get("created_lte") or end)
    return data


def any_of(data: dict[str, Any], name: str, attribute: str | None = None) -> None:
    """Take a list query's field `name` as the values the records' `attribute` (by default of the
    same name) may have: any of them; an empty list keeps all."""
    values = data.pop(name, None)
    data[attribute or name] = frozenset(values) if values else None


class PageSchema(RequestSchema):
    """A list's body: the spec's pagination and creation bounds (section 8)."""

    limit = StrictInteger(validate=validate.Range(1, 100), load_default=10)
    offset = StrictInteger(validate=validate.Range(min=0), load_default=0)
    created_gte = Timestamp()
    created_lte = Timestamp()


class TimeRangePageSchema(PageSchema):
    """A list's body with the real service's time range too (`start_time`, `end_time`), which bounds
    the same creation time (`within_time_range`)."""

    start_time = Timestamp()
    end_time = Timestamp()


class ListQuerySchema(QuerySchema):
    """The query of the real service's `GET /payments/list` and `GET /payouts/list`. Parameters arrive
    as text; ones it does not know are ignored, as on any GET. Times compare to the millisecond, as
    answers show them."""

    customer_id = fields.String()
    starting_after = fields.String()
    ending_before = fields.String()
    limit = QueryInteger(validate=validate.Range(1, 100), load_default=10)
    offset = QueryInteger(validate=validate.Range(min=0), load_default=0)
    created = Timestamp()
    created_lt = Timestamp()
    created_gt = Timestamp()
    created_lte = Timestamp()
    created_gte = Timestamp()

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        return Query.of(**created_range(data))
