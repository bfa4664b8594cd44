"""The tagged codec of snapshots: domain records as JSON and back.

JSON's own types are written as they are; any other value as an object of one key naming its type,
`{"$Payment": {...}}`, `{"$PaymentStatus": "succeeded"}`, `{"$datetime": "..."}`,
`{"$tuple": [...]}`. The types it knows are those it is given and those their fields name; nothing
else is ever built from a document. A record's fields that hold their default are left out.

Each field read back is checked against its annotation before a record is made, so that a document
cannot store what mocksrv could not serve again: a `str` where a status belongs, a `null` amount, a
time without a zone. Free-form values (`dict[str, Any]`) hold JSON's types only, at most
FREE_FORM_DEPTH levels deep, and every whole number fits in 64 bits, as JSON answers can carry.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
import re
import types
import typing
from collections.abc import Callable, Iterable
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from operator import attrgetter
from typing import Any

from mocksrv.domain.bounds import Within
from mocksrv.domain.clock import held_time
from mocksrv.domain.models import build
from mocksrv.domain.payments.outcomes import OutcomeRule, OutcomeTable
from mocksrv.domain.payouts import Payout

# Fields worked out from others when a record is made, never written: a rule's card keys are
# digests with a key of this process alone (cards.card_key), remade from the card numbers.
_DERIVED: dict[type, frozenset[str]] = {OutcomeRule: frozenset({"card_keys"})}
# Fields a record no longer has, which documents written before may hold: read and left out.
# A payout's `customer` (the details sent; the answer now shows the customer's own).
_RETIRED: dict[type, frozenset[str]] = {Payout: frozenset({"customer"})}
# Classes that are not dataclasses, written as the attributes their constructor takes.
_PLAIN_CLASSES: dict[type, tuple[str, ...]] = {OutcomeTable: ("rules",)}

_SCALARS = frozenset({str, int, float, bool, type(None)})
_MISSING = object()
FREE_FORM_DEPTH = 64  # levels of a free-form value (the API takes 16; JSON answers fail past 255)
_SMALLEST_INT, _LARGEST_INT = -(2**63), 2**64 - 1  # what orjson writes

Encode = Callable[[Any], Any]
Decode = Callable[[Any], Any]
Check = Callable[[Any], bool]


class Unreadable(ValueError):
    """A value of a document that does not decode; the caller says where it was."""


def reachable_types(roots: Iterable[type]) -> list[type]:
    """The roots and every dataclass, enum and plain class their fields name, in the order found."""
    found: list[type] = []
    pending = list(roots)
    while pending:
        kind = pending.pop(0)
        if kind in found:
            continue
        found.append(kind)
        if dataclasses.is_dataclass(kind):
            hints = typing.get_type_hints(kind)
            names = [f.name for f in dataclasses.fields(kind)]
        elif kind in _PLAIN_CLASSES:
            hints = typing.get_type_hints(vars(kind)["__init__"])
            names = list(_PLAIN_CLASSES[kind])
        else:
            continue
        for name in names:
            pending.extend(t for t in _named_types(hints[name]) if t not in found)
    return found


def _named_types(hint: Any) -> list[type]:
    """The record, enum and plain-class types inside a field's annotation."""
    if isinstance(hint, type) and not isinstance(hint, types.GenericAlias):
        wanted = dataclasses.is_dataclass(hint) or issubclass(hint, enum.Enum) or hint in _PLAIN_CLASSES
        return [hint] if wanted else []
    return [kind for arg in typing.get_args(hint) for kind in _named_types(arg)]


class Codec:
    """Tagged JSON values of the domain's types, and back."""

    def __init__(self, roots: Iterable[type]) -> None:
        self._encoders: dict[type, Encode] = {
            list: self._encode_list,
            dict: self._encode_dict,
            tuple: lambda value: {"$tuple": self._encode_list(value)},
            frozenset: lambda value: {"$frozenset": self._encode_set(value)},
            set: lambda value: {"$set": self._encode_set(value)},
            datetime: lambda value: {"$datetime": value.isoformat()},
            date: lambda value: {"$date": value.isoformat()},
            Decimal: lambda value: {"$decimal": str(value)},
            bytes: lambda value: {"$bytes": base64.b64encode(value).decode()},
        }
        self._decoders: dict[str, Decode] = {
            "$tuple": lambda raw: tuple(self._decode_list(raw)),
            "$frozenset": lambda raw: frozenset(self._decode_list(raw)),
            "$set": lambda raw: set(self._decode_list(raw)),
            "$datetime": _moment,
            "$date": lambda raw: date.fromisoformat(_text(raw)),
            "$decimal": _decimal,
            "$bytes": lambda raw: base64.b64decode(_text(raw), validate=True),
            "$dict": self._decode_pairs,
        }
        self.types = reachable_types(roots)
        for kind in self.types:
            tag = "$" + kind.__name__
            if tag in self._decoders:
                raise TypeError(f"two types are named {kind.__name__}")
            if issubclass(kind, enum.Enum):
                self._encoders[kind] = _enum_encoder(tag)
                self._decoders[tag] = _enum_decoder(kind)
            else:
                self._encoders[kind], self._decoders[tag] = self._record_codec(kind, tag)

    # -- encoding -----------------------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        """A JSON-ready value (for orjson) of a domain value; an unknown type raises TypeError."""
        kind = type(value)
        if kind in _SCALARS:
            return value
        encoder = self._encoders.get(kind)
        if encoder is None:
            # A time-freezing library's subclass of datetime or date (or the class it replaced, when
            # this module was imported during a freeze) is written as the standard one.
            if isinstance(value, datetime):
                return {"$datetime": value.isoformat()}
            if isinstance(value, date):
                return {"$date": value.isoformat()}
            raise TypeError(f"a snapshot cannot hold a value of type {kind.__name__}")
        return encoder(value)

    def _encode_list(self, values: Iterable[Any]) -> list[Any]:
        encode = self.encode
        return [value if type(value) in _SCALARS else encode(value) for value in values]

    def _encode_set(self, values: Iterable[Any]) -> list[Any]:
        # In a fixed order, so that equal sets are written alike.
        return sorted(self._encode_list(values), key=lambda item: json.dumps(item, sort_keys=True))

    def _encode_dict(self, value: dict[Any, Any]) -> Any:
        encode = self.encode
        out = {}
        for key, item in value.items():
            if type(key) is not str or key[:1] == "$":  # not a JSON object's key, or a tag's
                return {"$dict": [[encode(key), encode(item)] for key, item in value.items()]}
            out[key] = item if type(item) in _SCALARS else encode(item)
        return out

    def _record_codec(self, kind: type, tag: str) -> tuple[Encode, Decode]:
        if dataclasses.is_dataclass(kind):
            skipped = _DERIVED.get(kind, frozenset())
            written = [f for f in dataclasses.fields(kind) if f.name not in skipped]
            names = tuple(f.name for f in written)
            defaults = tuple(_default(f) for f in written)
            hints = typing.get_type_hints(kind)
            make: Callable[..., Any] = kind
            if len(names) >= 2 and all(f.init for f in dataclasses.fields(kind)) and not skipped:
                make = lambda **values: build(kind, **values)  # noqa: E731 -- a third as dear as kind(...)
        else:
            names = _PLAIN_CLASSES[kind]
            hints = typing.get_type_hints(vars(kind)["__init__"])
            defaults = tuple(_MISSING for _ in names)
            make = kind
        checks = {name: _type_check(hints[name]) for name in names}
        bounds = _bounds(kind if dataclasses.is_dataclass(kind) else vars(kind)["__init__"], names)
        read = attrgetter(*names) if len(names) > 1 else lambda record: (getattr(record, names[0]),)
        encode_value = self.encode
        decode_value = self.decode
        known = frozenset(names)
        retired = _RETIRED.get(kind, frozenset())

        def encode(record: Any) -> Any:
            out: dict[str, Any] = {}
            for name, value, default in zip(names, read(record), defaults, strict=True):
                if value is default or (type(value) is type(default) and value == default):
                    continue
                out[name] = value if type(value) in _SCALARS else encode_value(value)
            return {tag: out}

        def decode(raw: Any) -> Any:
            if type(raw) is not dict:
                raise Unreadable(f"{tag[1:]}: expected an object of fields")
            unknown = raw.keys() - known
            if unknown:
                if unknown - retired:
                    raise Unreadable(f"{tag[1:]} has no field {sorted(unknown - retired)[0]!r}")
                raw = {name: value for name, value in raw.items() if name not in retired}
            values = {name: decode_value(value) for name, value in raw.items()}
            for name, value in values.items():
                if not checks[name](value):
                    raise Unreadable(f"{tag[1:]}.{name}: expected {_described(hints[name])}")
            for name, (lowest, highest) in bounds.items():  # the few fields that have bounds
                value = values.get(name)
                if value is not None and not lowest <= value <= highest:
                    raise Unreadable(f"{tag[1:]}.{name}: expected from {lowest} to {highest}")
            try:
                return make(**values)
            except (TypeError, ValueError) as error:
                raise Unreadable(f"{tag[1:]}: {error}") from None

        return encode, decode

    # -- decoding -----------------------------------------------------------------------------

    def decode(self, raw: Any) -> Any:
        """The domain value a JSON value of `encode` stands for; anything else raises Unreadable."""
        kind = type(raw)
        if kind is dict:
            if len(raw) == 1:
                ((key, inner),) = raw.items()
                if key[:1] == "$":
                    decoder = self._decoders.get(key)
                    if decoder is None:
                        raise Unreadable(f"unknown type {key[1:]!r}")
                    try:
                        return decoder(inner)
                    except Unreadable:
                        raise
                    except (TypeError, ValueError) as error:
                        raise Unreadable(f"{key[1:]}: {error}") from None
            decode = self.decode
            out = {}
            for key, value in raw.items():
                if key[:1] == "$":
                    raise Unreadable(f"an object with a key {key!r} beside others")
                out[key] = value if type(value) in _SCALARS else decode(value)
            return out
        if kind is list:
            return self._decode_list(raw)
        return raw

    def _decode_list(self, raw: Any) -> list[Any]:
        if type(raw) is not list:
            raise Unreadable("expected a list")
        decode = self.decode
        return [value if type(value) in _SCALARS else decode(value) for value in raw]

    def _decode_pairs(self, raw: Any) -> dict[Any, Any]:
        pairs = self._decode_list(raw)
        if not all(type(pair) is list and len(pair) == 2 for pair in pairs):
            raise Unreadable("dict: expected a list of [key, value] pairs")
        return {_hashable(key): value for key, value in pairs}


def _bounds(annotated: Any, names: Iterable[str]) -> dict[str, Within]:
    """The bounds the annotations of `names` give (`Annotated[int, Within(...)]`), by name."""
    hints = typing.get_type_hints(annotated, include_extras=True)
    found: dict[str, Within] = {}
    for name in names:
        for extra in getattr(hints[name], "__metadata__", ()):
            if isinstance(extra, Within):
                found[name] = extra
    return found


def _type_check(hint: Any) -> Check:
    """Whether a value read back is of the type an annotation names."""
    if hint is Any or hint is object:
        return lambda value: True
    if hint is type(None):
        return lambda value: value is None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        others = [arg for arg in args if arg is not type(None)]
        if len(others) == 1 < len(args):  # `T | None`, the most frequent by far
            other = _type_check(others[0])
            return lambda value: value is None or other(value)
        checks = [_type_check(arg) for arg in args]
        return lambda value: any(check(value) for check in checks)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _type_check(args[0])
        return lambda value: type(value) is tuple and all(map(item, value))
    if origin is tuple:
        items = [_type_check(arg) for arg in args]
        return lambda value: (
            type(value) is tuple
            and len(value) == len(items)
            and all(check(item) for check, item in zip(items, value, strict=True))
        )
    if origin in (list, set, frozenset):
        item = _type_check(args[0])
        return lambda value: type(value) is origin and all(map(item, value))
    if origin is dict:
        key, item = _type_check(args[0]), _free_form if args[1] is Any else _type_check(args[1])
        return lambda value: type(value) is dict and all(key(k) and item(v) for k, v in value.items())
    if hint is int:
        return _whole
    if hint is float:
        return lambda value: type(value) is float or _whole(value)
    if hint is datetime:
        return lambda value: isinstance(value, datetime) and value.tzinfo is not None
    if isinstance(hint, type):
        return lambda value: type(value) is hint or isinstance(value, hint)
    raise TypeError(f"no check for the annotation {hint!r}")


def _whole(value: Any) -> bool:
    return type(value) is int and _SMALLEST_INT <= value <= _LARGEST_INT


def _free_form(value: Any, depth: int = 1) -> bool:
    """A JSON value of at most FREE_FORM_DEPTH levels, its whole numbers within 64 bits."""
    kind = type(value)
    if kind is dict:
        if not all(type(key) is str for key in value):
            return False
        items: Iterable[Any] = value.values()
    elif kind is list:
        items = value
    else:
        return kind in _SCALARS and (kind is not int or _whole(value))
    if depth > FREE_FORM_DEPTH:
        return False
    for item in items:  # the leaves here, without a call each: most of a record's free-form values
        inner = type(item)
        if inner in _SCALARS:
            if inner is int and not _whole(item):
                return False
        elif not _free_form(item, depth + 1):
            return False
    return True


def _described(hint: Any) -> str:
    """An annotation as a document's reader knows it: `str | None`, `PaymentStatus`."""
    if isinstance(hint, type) and not isinstance(hint, types.GenericAlias):
        return hint.__name__
    return re.sub(r"\b(?:[a-z_]\w*\.)+", "", str(hint)).replace("NoneType", "None")


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return _MISSING


def _enum_encoder(tag: str) -> Encode:
    return lambda value: {tag: value.value}


def _enum_decoder(kind: type[enum.Enum]) -> Decode:
    return lambda raw: kind(raw)


def _moment(raw: Any) -> datetime:
    """A time with its zone, between EARLIEST and LATEST_HELD: what a timer or a record can hold
    and still be compared, listed and moved by the intervals mocksrv adds to times (a clock is
    checked against its own end apart)."""
    value = datetime.fromisoformat(_text(raw))
    if value.tzinfo is None:
        raise ValueError(f"{raw} has no zone")
    try:
        return held_time(value)
    except ValueError as error:
        raise ValueError(f"{raw} is not {error}") from None


def _text(raw: Any) -> str:
    if type(raw) is not str:
        raise Unreadable("expected a string")
    return raw


def _decimal(raw: Any) -> Decimal:
    try:
        return Decimal(_text(raw))
    except InvalidOperation:
        raise Unreadable(f"not a decimal number: {raw!r}") from None


def _hashable(key: Any) -> Any:
    if type(key) is list:
        raise Unreadable("a dict key cannot be a list")
    return key
