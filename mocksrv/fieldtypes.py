"""Field types shared by the request schemas of the API and the control plane."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, overload

import orjson
from marshmallow import ValidationError, fields, validate

from mocksrv.domain.clock import held_time, parse_timestamp
from mocksrv.domain.money import is_currency
from mocksrv.values import http_url

# Ids name resources in paths, where these words are routes of their own beside an id's place
# (`/payouts/create` beside `/payouts/<id>`): an id is never one of them, so a route's methods are
# those of its own rule only.
RESERVED_IDS = ("list", "create", "filter", "evidence", "payment_methods", "session_tokens", "customer_info")


class _ResourceId(validate.Regexp):
    """1-64 letters, digits, _ or -, and none of the words that are routes: each refusal says which."""

    @overload
    def __call__(self, value: str) -> str: ...

    @overload
    def __call__(self, value: bytes) -> bytes: ...

    def __call__(self, value: str | bytes) -> str | bytes:
        if value in RESERVED_IDS:
            raise ValidationError(f"{value!r} names a route of its own: choose another id")
        return super().__call__(value)


RESOURCE_ID = _ResourceId(
    rf"^(?!(?:{'|'.join(RESERVED_IDS)})\Z)[A-Za-z0-9_-]{{1,64}}\Z", error="1-64 letters, digits, _ or -"
)
PHONE_NUMBER = validate.Regexp(r"^[0-9 ()-]{4,20}\Z", error="4-20 digits, spaces, brackets or -")
PHONE_COUNTRY_CODE = validate.Regexp(r"^\+[0-9]{1,4}\Z", error="a plus sign and 1-4 digits")


def currency_code(value: str) -> None:
    """Validate a currency code: ISO 4217 money the real service takes."""
    if not is_currency(value):
        raise ValidationError("Not an ISO 4217 currency code of money the service takes.")


def HttpUrl(**kwargs: Any) -> fields.Url:  # noqa: N802 - reads as a field type
    """An http(s) URL that a browser or a delivery can reach, checked as the settings and the fixtures
    check one: a host without a dot (localhost) or with an underscore (a compose service name) is
    fine, another scheme or a port outside 1-65535 is not."""
    field = fields.Url(**kwargs)
    # Instead of marshmallow's own URL check, which refuses a host named with an underscore.
    field.validators = [_reachable, *(v for v in field.validators if not isinstance(v, validate.URL))]
    return field


def _reachable(url: str) -> None:
    try:
        http_url(url)
    except ValueError as error:
        reason = str(error)
        raise ValidationError(f"{reason[:1].upper()}{reason[1:]}.") from None


class StrictInteger(fields.Integer):
    """An integer that must arrive as a JSON number without a fraction, never as a bool."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._validated(value)


class QueryInteger(fields.Integer):
    """A whole number in a query string: ASCII digits (a sign allowed), nothing around them, as
    the real service parses one; `int()` alone would also take other scripts' digits or spaces."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, str) and not (value.isascii() and value.lstrip("+-").isdigit()):
            raise self.make_error("invalid")
        return super()._validated(value)


class StrictBoolean(fields.Boolean):
    """A JSON true or false; no strings or numbers."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class Timestamp(fields.Field[Any]):
    """An ISO 8601 time; one without an offset is UTC. A time a record `kept` lies where a record's
    times may (`held_time`), so that every snapshot taken can be restored: a list's bound may not."""

    def __init__(self, *, kept: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kept = kept

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str):
            try:
                moment = parse_timestamp(value)
            except ValueError:
                pass
            else:
                return _held(moment) if self.kept else moment
        raise ValidationError("Not a valid ISO 8601 timestamp.")


def _held(moment: datetime) -> datetime:
    try:
        return held_time(moment)
    except ValueError as error:
        raise ValidationError(f"a time {error}, as a record may hold") from None


class OneOrMany(fields.Field[Any]):
    """A list filter's value: one of `choices`, or a list of them (as the real service sends one);
    loaded as the set of values a record may have."""

    def __init__(self, choices: Iterable[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices = tuple(choices)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> frozenset[str]:
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(item, str) for item in values):
            raise ValidationError("Not a valid string or list of strings.")
        unknown = sorted({item for item in values if item not in self.choices})
        if unknown:
            raise ValidationError(f"{', '.join(unknown)}: must be one of: {', '.join(self.choices)}.")
        return frozenset(values)


def TimestampText(**kwargs: Any) -> fields.String:  # noqa: N802 - reads as a field type
    """An ISO 8601 time, kept as the text sent, within the times a record may hold (`held_time`)."""
    return fields.String(validate=_iso_8601, **kwargs)


def _iso_8601(value: str) -> None:
    try:
        moment = parse_timestamp(value)
    except ValueError:
        raise ValidationError("Not a valid ISO 8601 timestamp.") from None
    _held(moment)


class Number(fields.Field[Any]):
    """A JSON number, integer or not, kept as sent; never a string or a bool."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if type(value) not in (int, float):
            raise ValidationError("Not a valid number.")
        return value


class StrictNumber(fields.Float):
    """A JSON number, never a string or a bool."""

    def _validated(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid")
        return super()._validated(value)


class FreeFormLimits(validate.Validator):
    """The limits of a free-form object (metadata and the like), so that all it stores can be served.

    The real service's documented limits: at most 50 keys, key names of at most 40 characters and
    values of at most 500; and ours: nested at most 16 levels deep, at most 32 KiB as JSON.
    """

    MAX_DEPTH = 16
    MAX_KEYS = 50
    MAX_KEY_LENGTH = 40
    MAX_TEXT_LENGTH = 500
    MAX_BYTES = 32 * 1024

    def __call__(self, value: Any) -> Any:
        if isinstance(value, dict) and len(value) > self.MAX_KEYS:
            raise ValidationError(f"Has more than {self.MAX_KEYS} keys.")
        stack: list[tuple[Any, int]] = [(value, 1)]
        while stack:  # a walk without recursion: a deep value must not exhaust the stack
            item, depth = stack.pop()
            if isinstance(item, dict | list) and depth > self.MAX_DEPTH:
                raise ValidationError(f"Is nested more than {self.MAX_DEPTH} levels deep.")
            if isinstance(item, dict):
                for key, inner in item.items():
                    if len(key) > self.MAX_KEY_LENGTH:
                        raise ValidationError(f"Has a key longer than {self.MAX_KEY_LENGTH} characters.")
                    stack.append((inner, depth + 1))
            elif isinstance(item, list):
                stack.extend((inner, depth + 1) for inner in item)
            elif isinstance(item, str) and len(item) > self.MAX_TEXT_LENGTH:
                raise ValidationError(f"Has a value longer than {self.MAX_TEXT_LENGTH} characters.")
        try:
            size = len(orjson.dumps(value))
        except orjson.JSONEncodeError:  # an integer past 64 bits, which no answer could carry
            raise ValidationError("Has a number out of the 64-bit range.") from None
        if size > self.MAX_BYTES:
            raise ValidationError(f"Is larger than {self.MAX_BYTES} bytes as JSON.")
        return value


class Entries(fields.Dict):
    """A JSON object of named entries, each checked as `values`: an entry's error names its path
    (`filters.currency.1`), without the `value` (or `key`) level marshmallow puts between."""

    def deserialize(
        self, value: Any, attr: str | None = None, data: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        try:
            return super().deserialize(value, attr, data, **kwargs)
        except ValidationError as error:
            if not isinstance(error.messages, dict):
                raise
            messages = {
                name: entry.get("value", entry.get("key", entry)) if isinstance(entry, dict) else entry
                for name, entry in error.messages.items()
            }
            raise ValidationError(messages, valid_data=error.valid_data) from None


def FreeForm(**kwargs: Any) -> fields.Dict:  # noqa: N802 - reads as a field type
    """A JSON object of the client's own (metadata and the like), within FreeFormLimits."""
    return fields.Dict(keys=fields.String(), validate=FreeFormLimits(), **kwargs)


def Text(**kwargs: Any) -> fields.String:  # noqa: N802 - reads as a field type
    """A description's text: up to 1,000 characters, as the real service takes one."""
    return fields.String(validate=validate.Length(max=1000), **kwargs)
