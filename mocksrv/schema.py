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

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, missing, types, validate
from marshmallow.decorators import VALIDATES_SCHEMA

from mocksrv.fieldtypes import Number, StrictBoolean, StrictInteger

Check = Callable[[Any], bool]


# The longest text a field takes unless it says otherwise: the real service's limit for free text
# (names, descriptions, reasons), and for URLs. Nothing longer is stored, so nothing longer is served.
MAX_TEXT_LENGTH = 255
MAX_URL_LENGTH = 2048
# Validators that already bound a text's length or its form.
_BOUNDING = (validate.Length, validate.Regexp, validate.OneOf, validate.Equal)


class RequestSchema(Schema):
    """A marshmallow schema whose `load` returns a body valid as sent without converting it.

    Every text field without a bound of its own takes at most MAX_TEXT_LENGTH characters
    (MAX_URL_LENGTH for a URL). A `null` sent for an optional field is as if the field were not
    sent, as client libraries write every unset field as null; a field that gives null a meaning of
    its own says so with `allow_none`, and a required field still refuses it.
    """

    _check: Check | None = None
    _null_is_absent: frozenset[str] | None = None

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
        if type(data) is dict and None in data.values():
            data = self._without_absent_nulls(data)
        if many is None and partial is None and unknown is None and self._settled(data):
            return data
        return super().load(data, many=many, partial=partial, unknown=unknown)

    def _settled(self, data: Any) -> bool:
        """Whether `data` loads as itself, by the compiled check: the fast path."""
        return (self._check or self.fast_check())(data)

    def _without_absent_nulls(self, data: dict[str, Any]) -> dict[str, Any]:
        absent = self._null_is_absent
        if absent is None:
            # A schema made partial (an update's address) takes its required fields as optional too.
            partial = self.partial
            optional = set(self.load_fields) if partial is True else set(partial or ())
            absent = self._null_is_absent = frozenset(
                field.data_key or name
                for name, field in self.load_fields.items()
                if (not field.required or name in optional) and not field.allow_none
            )
        return {key: value for key, value in data.items() if value is not None or key not in absent}

    def fast_check(self) -> Check:
        """The compiled check of this schema; one that settles nothing if it cannot be compiled."""
        return self._compiled(frozenset())

    def _compiled(self, compiling: frozenset[type]) -> Check:
        """The compiled check; `compiling` holds the schema classes whose compilation is under way."""
        if self._check is None:
            self._check = _compile_schema(self, compiling | {type(self)}) or _unsettled
        return self._check


class QuerySchema(RequestSchema):
    """A GET's query: its parameters arrive as text, and one it does not know is ignored, as on any
    GET (a cache-busting `_=`, a tracking parameter)."""

    class Meta:
        unknown = EXCLUDE


def _bound_text(field: fields.Field[Any]) -> None:
    """Give a text field (or a list's text items) a maximum length, unless it has a bound already."""
    if isinstance(field, fields.List):
        _bound_text(field.inner)
    elif isinstance(field, fields.String) and not any(isinstance(v, _BOUNDING) for v in field.validators):
        longest = MAX_URL_LENGTH if isinstance(field, fields.Url) else MAX_TEXT_LENGTH
        # A new list: a field copied from another schema (an answer's `_sent`) shares the old one.
        field.validators = [*field.validators, validate.Length(max=longest)]


def _unsettled(value: Any) -> bool:
    return False


def _compile_schema(schema: Schema, compiling: frozenset[type]) -> Check | None:
    if schema.many or schema.partial or schema.unknown != RAISE:
        return None
    validators = _schema_validators(schema)
    if validators is None:
        return None
    texts: dict[str, int] = {}
    checks: dict[str, Check] = {}
    required: list[str] = []
    for name, field in schema.load_fields.items():
        check = _compile_field(field, compiling)
        # A field sent or kept under another name loads renamed: not as sent.
        if check is None or field.data_key not in (None, name) or field.attribute not in (None, name):
            return None
        longest = _plain_text_limit(field)
        if longest is not None and not field.allow_none:
            texts[name] = longest
        else:
            # Every compiled check refuses None, which loads as itself only where the field allows it.
            checks[name] = _or_none(check) if field.allow_none else check
        if field.required:
            required.append(name)
    return _schema_check(texts, checks, frozenset(required), validators)


def _schema_check(
    texts: dict[str, int],
    checks: dict[str, Check],
    required: frozenset[str],
    validators: list[Callable[..., Any]],
) -> Check:
    def check_fields(data: Any) -> bool:
        if type(data) is not dict:
            return False
        for key, value in data.items():
            # Most fields are plain text of a bounded length, checked here rather than by a call.
            longest = texts.get(key)
            if longest is not None:
                if type(value) is not str or len(value) > longest:
                    return False
                continue
            check = checks.get(key)
            if check is None or not check(value):
                return False
        return data.keys() >= required

    if not validators:
        return check_fields

    def check_schema(data: Any) -> bool:
        if not check_fields(data):
            return False
        try:
            for validator in validators:
                validator(data, partial=None, many=False, unknown=RAISE)
        except ValidationError:
            return False
        return True

    return check_schema


def _plain_text_limit(field: fields.Field[Any]) -> int | None:
    """The most characters a text field takes, if that is all its validators ask; else None."""
    if type(field) is not fields.String or not field.validators:
        return None
    longest = sys.maxsize
    for validator in field.validators:
        if not (type(validator) is validate.Length and validator.equal is None and not validator.min):
            return None
        if validator.max is not None:
            longest = min(longest, validator.max)
    return longest


def _or_none(check: Check) -> Check:
    return lambda value: value is None or check(value)


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


def _compile_field(field: fields.Field[Any], compiling: frozenset[type]) -> Check | None:
    """A check of a present value that passes only what the field loads as itself; never None."""
    if field.pre_load or field.post_load or field.load_default is not missing:
        return None
    if type(field) in _SCALARS:
        return _scalar_check(_SCALARS[type(field)], field.validators)
    if type(field) is Number:
        return _with_validators(_is_number, [_passes(validator) for validator in field.validators])
    if type(field) is fields.Nested or getattr(field, "loads_objects_as_nested", False):
        # A field that loads an object as Nested does, and any other value its own way: the check
        # passes objects only, and leaves the other values to the full load.
        assert isinstance(field, fields.Nested)
        accepts = _compile_nested(field, compiling)
    elif type(field) is fields.List:
        accepts = _compile_list(field, compiling)
    elif type(field) is fields.Dict or getattr(field, "loads_objects_as_dict", False):
        assert isinstance(field, fields.Dict)  # as for Nested above: objects here, the rest in full
        accepts = _compile_dict(field, compiling)
    else:
        return None
    if accepts is None:
        return None
    return _with_validators(accepts, [_passes(validator) for validator in field.validators])


def _scalar_check(kind: type, validators: list[Callable[[Any], Any]]) -> Check:
    """A check that the value is of exactly this JSON type and passes every validator.

    The validators marshmallow itself provides become plain tests here, which give the same answer
    as the validator on a value of this type; any other validator is called as it is.
    """
    shortest, longest = 0, sys.maxsize
    tests: list[Check] = []
    for validator in validators:
        if kind is str and type(validator) is validate.Length and validator.equal is None:
            shortest = max(shortest, validator.min or 0)
            longest = min(longest, sys.maxsize if validator.max is None else validator.max)
        else:
            tests.append(_test(kind, validator))
    if (shortest, longest) != (0, sys.maxsize):  # only a text has a length bound here
        if not tests:
            return lambda value: type(value) is str and shortest <= len(value) <= longest
        if len(tests) == 1:
            test = tests[0]
            return lambda value: type(value) is str and shortest <= len(value) <= longest and test(value)
        return lambda value: (
            type(value) is str and shortest <= len(value) <= longest and all(test(value) for test in tests)
        )
    if not tests:
        return lambda value: type(value) is kind
    if len(tests) == 1:
        test = tests[0]
        return lambda value: type(value) is kind and test(value)
    return lambda value: type(value) is kind and all(test(value) for test in tests)


def _test(kind: type, validator: Callable[[Any], Any]) -> Check:
    """Whether a value of type `kind` passes `validator`, as a test that raises nothing new."""
    if type(validator) is validate.Range and kind is int:
        return _in_range(validator)
    if type(validator) is validate.OneOf and all(type(choice) is str for choice in validator.choices):
        # For a text, a number or a bool, membership in a set of texts is membership in the list.
        return frozenset(validator.choices).__contains__
    if type(validator) is validate.Regexp and kind is str:
        match = validator.regex.match
        return lambda value: match(value) is not None
    if type(validator) is validate.Equal:
        comparable = validator.comparable
        return lambda value: value == comparable
    return _passes(validator)


def _in_range(validator: validate.Range) -> Check:
    low, high = validator.min, validator.max
    low_inclusive, high_inclusive = validator.min_inclusive, validator.max_inclusive

    def test(value: Any) -> bool:
        if low is not None and (value < low if low_inclusive else value <= low):
            return False
        return high is None or not (value > high if high_inclusive else value >= high)

    return test


def _passes(validator: Callable[[Any], Any]) -> Check:
    def test(value: Any) -> bool:
        try:  # as in marshmallow 4, only what a validator raises counts
            validator(value)
        except ValidationError:
            return False
        return True

    return test


def _with_validators(accepts: Check, tests: list[Check]) -> Check:
    if not tests:
        return accepts
    return lambda value: accepts(value) and all(test(value) for test in tests)


def _compile_nested(field: fields.Nested, compiling: frozenset[type]) -> Check | None:
    if field.many or field.unknown is not None:
        return None
    schema = field.schema
    if not isinstance(schema, RequestSchema):
        return None
    if type(schema) in compiling:  # a schema nested in itself: compiled when first needed
        return lambda value: schema.fast_check()(value)
    return schema._compiled(compiling)


def _compile_list(field: fields.List[Any], compiling: frozenset[type]) -> Check | None:
    inner = _compile_field(field.inner, compiling)
    if inner is None:
        return None
    if field.inner.allow_none:
        inner = _or_none(inner)

    return lambda value: type(value) is list and all(map(inner, value))


def _compile_dict(field: fields.Dict, compiling: frozenset[type]) -> Check | None:
    if field.value_field is not None:
        return None
    keys = _compile_field(field.key_field, compiling) if field.key_field is not None else _anything
    if keys is None:
        return None
    return lambda value: type(value) is dict and all(keys(key) for key in value)


def _anything(value: Any) -> bool:
    return True


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


# Each type here is matched exactly: a subclass may load differently, and is left to marshmallow.
_SCALARS: dict[type, type] = {
    fields.String: str,
    fields.Email: str,  # the Email and Url checks are among the field's validators
    fields.Url: str,
    StrictInteger: int,
    StrictBoolean: bool,
}
