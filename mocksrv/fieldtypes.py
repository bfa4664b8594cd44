"""Field types shared by the request schemas of the API and the control plane."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields

from mocksrv.domain.clock import parse_timestamp


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
