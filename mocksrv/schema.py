"""The base of every request schema: marshmallow, with a fast path for bodies valid as sent.

`Schema.load` takes each field through marshmallow's general machinery, a few microseconds a
field; a payment create has some 25 fields, which made validation the largest part of its cost.
For the field types these schemas use, a valid value loads as itself. So `RequestSchema.load`
first checks the body in one plain pass, with the schema's own fields, `required` and
`allow_none` flags, validator objects and schema validators, and returns the body as it is when
every check passes. Whatever that pass does not settle (a failed check; a field type, option or
hook it does not know) goes to marshmallow's `load`, so every error message and every conversion
still comes from marshmallow itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, missing, types, validate
from marshmallow.decorators import VALIDATES_SCHEMA

from mocksrv.fieldtypes import StrictBoolean, StrictInteger

Check = Callable[[Any], bool]

_UNCOMPILED: Any = object()


# The longest text a field takes unless it says otherwise: the real service's limit for free text
# (names, descriptions, reasons), and for URLs. Nothing longer is stored, so nothing longer is served.
MAX_TEXT_LENGTH = 255
MAX_URL_LENGTH = 2048
# Validators that already bound a text's length or its form.
_BOUNDING = (validate.Length, validate.Regexp, validate.OneOf, validate.Equal)


class RequestSchema(Schema):
    """A marshmallow schema whose `load` returns a body valid as sent without converting it.

    Every text field without a bound of its own takes at most MAX_TEXT_LENGTH characters
    (MAX_URL_LENGTH for a URL).
    """

    _check: Check | None = _UNCOMPILED

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            _bound_text(field)

    def load(
        self,
        data: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        many: bool | None = None,
        partial: bool | types.StrSequenceOrSet | None = None,
        unknown: types.UnknownOption | None = None,
    ) -> Any:
        if many is None and partial is None and unknown is None and self.fast_check()(data):
            return data
        return super().load(data, many=many, partial=partial, unknown=unknown)

    def fast_check(self) -> Check:
        """The compiled check of this schema; one that settles nothing if it cannot be compiled."""
        if self._check is _UNCOMPILED:
            self._check = _compile_schema(self)
        return self._check or _unsettled


def _bound_text(field: fields.Field[Any]) -> None:
    """Give a text field (or a list's text items) a maximum length, unless it has a bound already."""
    if isinstance(field, fields.List):
        _bound_text(field.inner)
    elif isinstance(field, fields.String) and not any(isinstance(v, _BOUNDING) for v in field.validators):
        longest = MAX_URL_LENGTH if isinstance(field, fields.Url) else MAX_TEXT_LENGTH
        field.validators.append(validate.Length(max=longest))


def _unsettled(value: Any) -> bool:
    return False


def _compile_schema(schema: Schema) -> Check | None:
    if schema.many or schema.partial or schema.unknown != RAISE:
        return None
    validators = _schema_validators(schema)
    if validators is None:
        return None
    checks: dict[str, tuple[Check, bool]] = {}
    required: list[str] = []
    for name, field in schema.load_fields.items():
        check = _compile_field(field)
        # A field sent or kept under another name loads renamed: not as sent.
        if check is None or field.data_key not in (None, name) or field.attribute not in (None, name):
            return None
        checks[name] = (check, field.allow_none)
        if field.required:
            required.append(name)

    def check_schema(data: Any) -> bool:
        if type(data) is not dict:
            return False
        for key, value in data.items():
            if key not in checks:
                return False
            check, allow_none = checks[key]
            if not (allow_none if value is None else check(value)):
                return False
        for key in required:
            if key not in data:
                return False
        try:
            for validator in validators:
                validator(data, partial=None, many=False, unknown=RAISE)
        except ValidationError:
            return False
        return True

    return check_schema


def _schema_validators(schema: Schema) -> list[Callable[..., Any]] | None:
    """The schema's own validators, when it has no hooks but plain ones; None if it has others."""
    hooks: Mapping[str, Any] = getattr(schema, "_hooks", None) or {}
    validators = []
    for tag, entries in hooks.items():
        for entry in entries:
            if tag != VALIDATES_SCHEMA:
                return None
            name, pass_collection, options = entry
            if pass_collection or options.get("pass_original"):
                return None
            validators.append(getattr(schema, name))
    return validators


def _compile_field(field: fields.Field[Any]) -> Check | None:
    """A check of a present, non-null value that passes only what the field loads as itself."""
    if field.pre_load or field.post_load or field.load_default is not missing:
        return None
    kind = type(field)
    accepts = _VALUE_CHECKS.get(kind) or (_COMPILERS[kind](field) if kind in _COMPILERS else None)
    if accepts is None:
        return None
    return _with_validators(accepts, field.validators)


def _with_validators(accepts: Check, validators: list[Callable[[Any], Any]]) -> Check:
    if not validators:
        return accepts

    def check(value: Any) -> bool:
        if not accepts(value):
            return False
        try:
            for validator in validators:  # as in marshmallow 4, only what a validator raises counts
                validator(value)
        except ValidationError:
            return False
        return True

    return check


def _is_text(value: Any) -> bool:
    return type(value) is str


def _is_integer(value: Any) -> bool:
    return type(value) is int


def _is_boolean(value: Any) -> bool:
    return type(value) is bool


def _compile_nested(field: fields.Nested) -> Check | None:
    if field.many or field.unknown is not None:
        return None
    schema = field.schema
    if not isinstance(schema, RequestSchema):
        return None
    return lambda value: schema.fast_check()(value)


def _compile_list(field: fields.List[Any]) -> Check | None:
    inner = _compile_field(field.inner)
    if inner is None:
        return None
    allow_none = field.inner.allow_none

    def check(value: Any) -> bool:
        if type(value) is not list:
            return False
        for item in value:
            if item is None:
                if not allow_none:
                    return False
            elif not inner(item):
                return False
        return True

    return check


def _compile_dict(field: fields.Dict) -> Check | None:
    if field.value_field is not None:
        return None
    keys = _compile_field(field.key_field) if field.key_field is not None else _anything
    if keys is None:
        return None
    return lambda value: type(value) is dict and all(keys(key) for key in value)


def _anything(value: Any) -> bool:
    return True


# Each type here is matched exactly: a subclass may load differently, and is left to marshmallow.
_VALUE_CHECKS: dict[type, Check] = {
    fields.String: _is_text,
    fields.Email: _is_text,  # the Email and Url checks are among the field's validators
    fields.Url: _is_text,
    StrictInteger: _is_integer,
    StrictBoolean: _is_boolean,
}
_COMPILERS: dict[type, Callable[[Any], Check | None]] = {
    fields.Nested: _compile_nested,
    fields.List: _compile_list,
    fields.Dict: _compile_dict,
}
