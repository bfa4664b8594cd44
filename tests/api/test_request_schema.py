"""Request schemas load exactly what marshmallow alone loads: their fast path changes no answer.

Every body here, valid or broken in one place, is loaded twice: by the schema as the app uses it,
and by marshmallow alone. Both must give the same data, or the same error messages.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from marshmallow import (
    EXCLUDE,
    Schema,
    ValidationError,
    fields,
    post_load,
    validate,
    validates,
    validates_schema,
)

from mocksrv.api import schemas
from mocksrv.api.profiles import ProfileUpdateSchema
from mocksrv.api.refunds import RefundCreateSchema
from mocksrv.api.schemas.payouts import PayoutCreateSchema, PayoutUpdateSchema
from mocksrv.control.routes import AdvanceSchema, NewMerchantSchema
from mocksrv.control.settlement import OpenDisputeSchema
from mocksrv.schema import RequestSchema
from tests import payloads

ORDER_LINE = {"name": "Tea", "quantity": 2, "amount": 500, "currency": "USD"}
BROWSER_INFO = {"user_agent": "Mozilla/5.0", "color_depth": 24, "java_enabled": False}
ADDRESS = payloads.BILLING["address"]
BANK = {"bank": {"bank_account_number": "000123456789", "bank_routing_number": "110000000"}}
# Values of every JSON kind, and numbers at the edges of the field ranges.
REPLACEMENTS: list[Any] = [None, True, False, 0, -1, 1.5, 10**30, "", "x", "US", [], [None], {}, {"k": 1}]

FULL_CREATE = payloads.payment(
    payment_id="pay_fast_1",
    customer_id="cus_1",
    authentication_type="no_three_ds",
    description="Tea for two",
    email="ada@example.com",
    name="Ada",
    phone="4155550100",
    phone_country_code="+1",
    statement_descriptor="TEA SHOP",
    metadata={"order": "42"},
    order_details=[ORDER_LINE, ORDER_LINE],
    browser_info=BROWSER_INFO,
)

# Each schema the app loads with, and a body it takes.
SAMPLES: dict[str, tuple[Schema, dict[str, Any]]] = {
    "payment create": (schemas.PaymentCreateSchema(), FULL_CREATE),
    "payment create, crypto": (
        schemas.PaymentCreateSchema(),
        payloads.payment(
            payment_method="crypto",
            payment_method_data={"crypto": {"pay_currency": "BTC", "wallet_address": "bc1q"}},
        ),
    ),
    "payment update": (schemas.PaymentUpdateSchema(), {"amount": 500, "currency": "EUR", "name": "Ada"}),
    "payment confirm": (
        schemas.PaymentConfirmSchema(),
        payloads.confirmation(client_secret="pay_1_secret_2", return_url="http://localhost/back"),
    ),
    "capture": (
        schemas.CaptureSchema(),
        {"amount_to_capture": 100, "statement_descriptor_prefix": "TEA", "statement_descriptor_suffix": "42"},
    ),
    "cancel": (schemas.CancelSchema(), {"cancellation_reason": "requested_by_customer"}),
    "payment list": (
        schemas.PaymentListSchema(),
        {"limit": 5, "status": "succeeded", "created_gte": "2026-01-01"},
    ),
    "customer": (
        schemas.CustomerCreateSchema(),
        {"customer_id": "cus_1", "email": "a@b.co", "address": ADDRESS},
    ),
    "refund": (RefundCreateSchema(), {"payment_id": "pay_1", "amount": 100, "metadata": {"a": "b"}}),
    "payout create": (
        PayoutCreateSchema(),
        {
            "amount": 100,
            "currency": "USD",
            "payout_type": "bank",
            "payout_method_data": BANK,
            "auto_fulfill": True,
        },
    ),
    "payout update": (PayoutUpdateSchema(), {"description": "rent", "payout_method_data": BANK}),
    "profile": (ProfileUpdateSchema(), {"return_url": None, "webhook_details": {"webhook_url": None}}),
    "clock advance": (AdvanceSchema(), {"seconds": 1.5}),
    "new merchant": (NewMerchantSchema(), {"merchant_id": "mer_2", "rate_limit": 10}),
    "open dispute": (OpenDisputeSchema(), {"payment_id": "pay_1"}),
}


def marshmallow_alone(schema: Schema, body: Any) -> Any:
    """Load as marshmallow does, with no fast path at any depth (nulls still taken as absent)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RequestSchema, "_settled", lambda self, data: False)
        return schema.load(body)


def outcome(load: Callable[[Any], Any], body: Any) -> tuple[str, Any]:
    try:
        return "loaded", load(copy.deepcopy(body))
    except ValidationError as error:
        return "refused", error.messages


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON body that holds a value."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield (*prefix, key)
        yield from paths(value, (*prefix, key))


def changed(body: dict[str, Any], path: tuple[Any, ...], value: Any, *, remove: bool = False) -> Any:
    copied = copy.deepcopy(body)
    node = copied
    for key in path[:-1]:
        node = node[key]
    if remove:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return copied


def variants(body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """The body as it is, and broken in one place at a time, in every way JSON allows."""
    yield "as sent", body
    for whole in ([], "x", None, {"unknown_field": 1}):
        yield f"body {whole!r}", whole
    for path in paths(body):
        name = ".".join(map(str, path))
        if isinstance(path[-1], str):
            yield f"{name} left out", changed(body, path, None, remove=True)
        for value in REPLACEMENTS:
            yield f"{name} = {value!r}", changed(body, path, value)
    for path in [(), *paths(body)]:
        node = body
        for key in path:
            node = node[key]
        if isinstance(node, dict):
            yield (
                f"{'.'.join(map(str, path)) or 'body'} + unknown",
                changed(body, (*path, "unknown_field"), 1),
            )


@pytest.mark.parametrize("name", SAMPLES)
def test_every_variant_of_a_body_loads_as_marshmallow_alone_loads_it(name: str) -> None:
    schema, body = SAMPLES[name]
    differences = [
        (label, ours, theirs)
        for label, variant in variants(body)
        if (ours := outcome(schema.load, variant))
        != (theirs := outcome(lambda b: marshmallow_alone(schema, b), variant))
    ]
    assert differences == []


@pytest.mark.parametrize(
    "name",
    ["payment create", "payment create, crypto", "payment confirm", "capture", "refund", "payout create"],
)
def test_a_valid_body_of_the_hot_routes_takes_the_fast_path(name: str) -> None:
    schema, body = SAMPLES[name]
    assert isinstance(schema, RequestSchema)
    assert schema.fast_check()(body) is True
    assert schema.load(body) is body


def test_the_fast_path_takes_no_body_with_a_missing_or_broken_field() -> None:
    schema = schemas.PaymentCreateSchema()
    assert isinstance(schema, RequestSchema)
    check = schema.fast_check()
    assert check(payloads.payment()) is True
    assert (
        check(changed(payloads.payment(), ("billing",), None, remove=True)) is False
    )  # the schema's own rule
    assert check(changed(payloads.payment(), ("billing", "address", "zip"), None, remove=True)) is False
    assert check(changed(payloads.payment(), ("billing", "address", "country"), "ZZ")) is False
    assert check(changed(payloads.payment(), ("amount",), True)) is False
    assert check(changed(payloads.payment(), ("confirm",), 1)) is False
    assert check(changed(payloads.payment(), ("return_url",), "not a url")) is False


class Converting(RequestSchema):
    """Fields whose loaded value is not the value sent, or that fill in what is not sent."""

    ratio = fields.Float()
    count = fields.Integer(load_default=1)


class Hooked(RequestSchema):
    name = fields.String()

    @post_load
    def shout(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {"name": data["name"].upper()}


class FieldValidated(RequestSchema):
    name = fields.String()

    @validates("name")
    def not_bob(self, value: str, **kwargs: Any) -> None:
        if value == "bob":
            raise ValidationError("Not bob.")


class Excluding(RequestSchema):
    class Meta:
        unknown = EXCLUDE

    name = fields.String()


class Renamed(RequestSchema):
    name = fields.String(data_key="fullName")


class Moved(RequestSchema):
    name = fields.String(attribute="full_name")


class PlainRule(RequestSchema):
    """A field validator and a schema rule."""

    code = fields.String(validate=validate.Equal("ok"))
    first = fields.String()
    second = fields.String()

    @validates_schema
    def both_or_neither(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("first" in data) != ("second" in data):
            raise ValidationError("Send both or neither.", "second")


@pytest.mark.parametrize(
    ("schema", "body", "loaded"),
    [
        (Converting(), {"ratio": 1}, {"ratio": 1.0, "count": 1}),
        (Hooked(), {"name": "ada"}, {"name": "ADA"}),
        (FieldValidated(), {"name": "ada"}, {"name": "ada"}),
        (Excluding(), {"name": "ada", "other": 1}, {"name": "ada"}),
        (Moved(), {"name": "ada"}, {"full_name": "ada"}),
    ],
    ids=["converting fields", "post_load", "validates", "unknown EXCLUDE", "attribute"],
)
def test_a_schema_the_fast_path_cannot_vouch_for_is_loaded_by_marshmallow(
    schema: RequestSchema, body: dict[str, Any], loaded: dict[str, Any]
) -> None:
    assert schema.fast_check()(body) is False
    assert schema.load(body) == loaded


def test_a_field_sent_under_another_name_is_loaded_by_marshmallow_which_renames_it() -> None:
    schema = Renamed()
    assert schema.fast_check()({"fullName": "Ada"}) is False
    assert schema.load({"fullName": "Ada"}) == {"name": "Ada"}
    assert outcome(schema.load, {"name": "Ada"}) == ("refused", {"name": ["Unknown field."]})


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"code": "ok", "first": "a", "second": "b"},
            ("loaded", {"code": "ok", "first": "a", "second": "b"}),
        ),
        ({"code": "no"}, ("refused", {"code": ["Must be equal to ok."]})),
        ({"first": "a"}, ("refused", {"second": ["Send both or neither."]})),
    ],
)
def test_plain_validators_and_schema_rules_decide_on_the_fast_path_as_in_marshmallow(
    body: dict[str, Any], expected: tuple[str, Any]
) -> None:
    schema = PlainRule()
    assert outcome(schema.load, body) == expected == outcome(lambda b: marshmallow_alone(schema, b), body)
    assert schema.fast_check()(body) is (expected[0] == "loaded")
