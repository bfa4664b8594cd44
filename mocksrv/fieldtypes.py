"""Field types shared by the request schemas of the API and the control plane."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate

from mocksrv.domain.clock import parse_timestamp
from mocksrv.domain.money import is_currency

# Ids name resources in paths, where "list" is a route of its own.
RESOURCE_ID = validate.Regexp(r"^(?!list\Z)[A-Za-z0-9_-]{1,64}\Z", error="1-64 letters, digits, _ or -")
PHONE_NUMBER = validate.Regexp(r"^[0-9 ()-]{4,20}\Z", error="4-20 digits, spaces, brackets or -")
PHONE_COUNTRY_CODE = validate.Regexp(r"^\+[0-9]{1,4}\Z", error="a plus sign and 1-4 digits")


def currency_code(value: str) -> None:
    """Validate an ISO 4217 currency code."""
    if not is_currency(value):
        raise ValidationError("Not an ISO 4217 currency code.")


def WebhookUrl(**kwargs: Any) -> fields.Url:  # noqa: N802 - reads as a field type
    """An http(s) URL; a host without a dot (localhost, a container name) is fine."""
    return fields.Url(schemes={"http", "https"}, require_tld=False, **kwargs)


class StrictInteger(fields.Integer):
    """An integer that must arrive as a JSON number without a fraction, never as a bool."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._validated(value)


class StrictBoolean(fields.Boolean):
    """A JSON true or false; no strings or numbers."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class Timestamp(fields.Field[Any]):
    """An ISO 8601 time; one without an offset is UTC."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str):
            try:
                return parse_timestamp(value)
            except ValueError:
                pass
        raise ValidationError("Not a valid ISO 8601 timestamp.")


class StrictNumber(fields.Float):
    """A JSON number, never a string or a bool."""

    def _validated(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid")
        return super()._validated(value)
