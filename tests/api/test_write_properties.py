"""Property: whatever body a write route gets, it never answers 5xx, every record it accepts can be
retrieved, listed and delivered as a webhook afterwards, and a body it refuses draws no id (the ids
of a seeded stream that come after are the ones they would have been).

The bodies come from the routes' own request schemas: each field drawn from what it accepts, now
and then from any JSON at all, so that valid, nearly valid and wrong bodies all occur.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from marshmallow import Schema, fields, validate

from mocksrv.api import schemas
from mocksrv.api.refunds import RefundCreateSchema
from mocksrv.api.schemas.payouts import PayoutCreateSchema
from mocksrv.app import create_app, create_sandbox
from mocksrv.domain.ids import IdState
from mocksrv.domain.sandbox import Sandbox
from mocksrv.fieldtypes import StrictBoolean, StrictInteger, StrictNumber, Timestamp
from mocksrv.representations import event_json
from mocksrv.settings import Settings
from tests.payloads import MERCHANT_ID, PAYOUT, SECRET_KEY, payment

EXAMPLES = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

JSON_SCALARS = (
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text()
)
ANY_JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=45), inner, max_size=4),
    max_leaves=30,
)
# Deep objects on purpose: around the limit of 16 levels, and around 255, where JSON encoders stop.
DEEP = (st.sampled_from([16, 17, 252, 253, 254, 255, 300]) | st.integers(1, 300)).map(
    lambda depth: _nested(depth)
)


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def _text(field: fields.String) -> st.SearchStrategy[str]:
    for validator in field.validators:
        if isinstance(validator, validate.OneOf):
            return st.sampled_from([str(choice) for choice in validator.choices])
        if isinstance(validator, validate.Regexp):
            return st.from_regex(validator.regex, fullmatch=True)
    if isinstance(field, fields.Email):
        return st.emails()
    if isinstance(field, fields.Url):
        return st.sampled_from(["https://shop.example/return", "http://localhost:9/x"])
    return st.text(max_size=300)


def _number(field: fields.Field[Any], integers: bool) -> st.SearchStrategy[Any]:
    low, high = -(2**40), 2**40
    for validator in field.validators:
        if isinstance(validator, validate.Range):
            low = validator.min if validator.min is not None else low
            high = validator.max if validator.max is not None else high
    if integers:
        return st.integers(int(low), int(high))
    return st.floats(low, high, allow_nan=False)


def field_strategy(field: fields.Field[Any]) -> st.SearchStrategy[Any]:
    """What the field accepts, and now and then anything at all."""
    accepted: st.SearchStrategy[Any]
    if isinstance(field, fields.Nested) and isinstance(field.schema, Schema):
        accepted = body_strategy(field.schema)
    elif isinstance(field, fields.List):
        accepted = st.lists(field_strategy(field.inner), max_size=3)
    elif isinstance(field, fields.Dict):
        accepted = ANY_JSON.filter(lambda value: isinstance(value, dict)) | DEEP
    elif isinstance(field, StrictBoolean | fields.Boolean):
        accepted = st.booleans()
    elif isinstance(field, StrictInteger | fields.Integer):
        accepted = _number(field, integers=True)
    elif isinstance(field, StrictNumber | fields.Float):
        accepted = _number(field, integers=False)
    elif isinstance(field, Timestamp):
        accepted = st.datetimes().map(lambda moment: moment.isoformat() + "Z")
    elif isinstance(field, fields.String):
        accepted = _text(field)
    else:
        accepted = ANY_JSON
    return st.one_of(accepted, accepted, accepted, ANY_JSON)


def body_strategy(schema: Schema) -> st.SearchStrategy[dict[str, Any]]:
    """A body of the schema's fields: the required ones mostly there, the others now and then."""
    drawn: dict[str, st.SearchStrategy[Any]] = {}
    for name, field in schema.load_fields.items():
        value = field_strategy(field) | st.none() if field.allow_none else field_strategy(field)
        drawn[name] = value
    required = [name for name, field in schema.load_fields.items() if field.required]
    return st.fixed_dictionaries(
        {name: drawn[name] for name in required},
        optional={name: strategy for name, strategy in drawn.items() if name not in required},
    )


def changes_to(base: dict[str, Any], schema: Schema, most: int = 3) -> st.SearchStrategy[dict[str, Any]]:
    """A valid body with up to `most` of its schema's fields drawn anew: mostly accepted bodies."""
    named = schema.load_fields
    pair = st.sampled_from(sorted(named)).flatmap(
        lambda name: field_strategy(named[name]).map(lambda v: (name, v))
    )
    return st.lists(pair, max_size=most).map(lambda pairs: {**base, **dict(pairs)})


CREATE, UPDATE, CUSTOMER = (
    schemas.PaymentCreateSchema(),
    schemas.PaymentUpdateSchema(),
    schemas.CustomerCreateSchema(),
)
REFUND, PAYOUT_CREATE = RefundCreateSchema(), PayoutCreateSchema()


class Routes:
    """The app and the checks made after each accepted write."""

    def __init__(self) -> None:
        settings_ = Settings(rate_limit=0)
        self.sandbox: Sandbox = create_sandbox(settings_)
        self.client: FlaskClient = create_app(settings_, self.sandbox).test_client()
        self.headers = {"api-key": SECRET_KEY}
        self.sandbox.store.seed_ids(MERCHANT_ID, IdState(7, MERCHANT_ID))

    def post(self, path: str, body: Any) -> Any:
        ids = self.sandbox.store.ids(MERCHANT_ID)
        before = ids.state()
        # The standard library writes any integer and any depth, as a client might send them.
        response = self.client.post(
            path, data=json.dumps(body), content_type="application/json", headers=self.headers
        )
        if response.status_code >= 400:
            assert ids.state() == before, response.get_data(as_text=True)
        return response

    def served(self, retrieve: str, listing: Callable[[], Any]) -> None:
        """The record is retrieved, the list answers, and every event renders as a webhook."""
        assert self.client.get(retrieve, headers=self.headers).status_code == 200
        assert listing().status_code == 200
        for event in self.sandbox.store.events(MERCHANT_ID):
            orjson.dumps(event_json(event, "http://127.0.0.1/", self.sandbox))


@pytest.fixture(scope="module")
def routes() -> Routes:
    return Routes()


def answered(response: Any) -> dict[str, Any]:
    assert response.status_code < 500, response.get_data(as_text=True)
    body: dict[str, Any] = response.json
    return body


@EXAMPLES
@given(body=body_strategy(CREATE) | changes_to(payment(), CREATE))
@example(body=payment(metadata=_nested(252)))
@example(body=payment(metadata=_nested(254)))
def test_payment_create_never_fails_and_serves_what_it_stores(routes: Routes, body: dict[str, Any]) -> None:
    response = routes.post("/payments", body)
    created = answered(response)
    if response.status_code == 200:
        routes.served(f"/payments/{created['payment_id']}", lambda: routes.post("/payments/list", {}))


@EXAMPLES
@given(body=body_strategy(UPDATE) | changes_to({}, UPDATE))
@example(body={"metadata": _nested(252)})
def test_payment_update_never_fails_and_serves_what_it_stores(routes: Routes, body: dict[str, Any]) -> None:
    created = answered(routes.post("/payments", payment(None)))
    response = routes.post(f"/payments/{created['payment_id']}", body)
    answered(response)
    routes.served(f"/payments/{created['payment_id']}", lambda: routes.post("/payments/list", {}))


@EXAMPLES
@given(body=body_strategy(CUSTOMER) | changes_to({"name": "Ada"}, CUSTOMER))
@example(body={"name": "Ada", "metadata": _nested(252)})
@example(body={"name": "x" * 1024 * 1024})
def test_customer_create_never_fails_and_serves_what_it_stores(routes: Routes, body: dict[str, Any]) -> None:
    response = routes.post("/customers", body)
    created = answered(response)
    if response.status_code == 200:
        routes.served(
            f"/customers/{created['customer_id']}",
            lambda: routes.client.get("/customers/list", headers=routes.headers),
        )


@EXAMPLES
@given(body=body_strategy(REFUND) | changes_to({}, REFUND))
@example(body={"metadata": _nested(252)})
def test_refund_create_never_fails_and_serves_what_it_stores(routes: Routes, body: dict[str, Any]) -> None:
    paid = answered(routes.post("/payments", payment()))
    response = routes.post("/refunds", {**body, "payment_id": paid["payment_id"]})
    created = answered(response)
    if response.status_code == 200:
        routes.served(f"/refunds/{created['refund_id']}", lambda: routes.post("/refunds/list", {}))


@EXAMPLES
@given(body=body_strategy(PAYOUT_CREATE) | changes_to(PAYOUT, PAYOUT_CREATE))
@example(body={**PAYOUT, "metadata": _nested(252)})
def test_payout_create_never_fails_and_serves_what_it_stores(routes: Routes, body: dict[str, Any]) -> None:
    response = routes.post("/payouts/create", body)
    created = answered(response)
    if response.status_code == 200:
        routes.served(f"/payouts/{created['payout_id']}", lambda: routes.post("/payouts/list", {}))
