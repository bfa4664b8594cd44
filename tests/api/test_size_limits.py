"""Size limits: free-form objects (metadata and the like) and text fields. What passes them is
stored and served again; what does not is refused with IR_04 naming the field, leaving nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from marshmallow import ValidationError

from mocksrv.fieldtypes import FreeFormLimits
from mocksrv.schema import MAX_TEXT_LENGTH, MAX_URL_LENGTH
from tests.api.expected import invalid
from tests.api.scenarios import create, ok
from tests.conftest import Api
from tests.payloads import BILLING, PAYOUT, payment

LIMITS = FreeFormLimits


def nested(depth: int) -> dict[str, Any]:
    """An object nested `depth` levels deep, counting itself: {"a": {"a": ... {}}}."""
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def wallet_payment(wallet: Any) -> dict[str, Any]:
    return {
        **payment(None),
        "confirm": True,
        "payment_method": "wallet",
        "payment_method_type": "apple_pay",
        "payment_method_data": {"wallet": wallet},
        "billing": BILLING,
    }


def post(api: Api, path: str, body: dict[str, Any]) -> Any:
    """Send `body` as JSON written by the standard library, which nests as deep as asked."""
    return api.client.post(
        path, data=json.dumps(body), content_type="application/json", headers={"api-key": api.key}
    )


def _payment_ids(api: Api) -> list[str]:
    return [p["payment_id"] for p in ok(api.post("/payments/list", {"limit": 100}))["data"]]


def _metadata_of_payments(api: Api) -> list[Any]:
    return [ok(api.get(f"/payments/{payment_id}"))["metadata"] for payment_id in _payment_ids(api)]


def _customer_ids(api: Api) -> list[str]:
    return [c["customer_id"] for c in ok(api.get("/customers/list"))["data"]]


def _refund_ids(api: Api) -> list[str]:
    return [r["refund_id"] for r in ok(api.post("/refunds/list", {}))["data"]]


def _payout_ids(api: Api) -> list[str]:
    return [p["payout_id"] for p in ok(api.post("/payouts/list", {}))["data"]]


def _no_preparation(api: Api) -> str:
    return ""


def _a_payment(api: Api) -> str:
    payment_id: str = create(api)["payment_id"]
    return payment_id


def _a_payment_to_update(api: Api) -> str:
    payment_id: str = create(api, None)["payment_id"]
    return payment_id


@dataclass(frozen=True)
class Write:
    """A write of one free-form field: what it needs first, how it sends the value, what it stores."""

    prepare: Callable[[Api], str]
    send: Callable[[Api, str, Any], Any]
    path: str
    stored: Callable[[Api], list[Any]]


WRITES: dict[str, Write] = {
    "customer metadata": Write(
        _no_preparation,
        lambda api, _, value: post(api, "/customers", {"name": "Ada", "metadata": value}),
        "metadata",
        _customer_ids,
    ),
    "payment metadata": Write(
        _no_preparation,
        lambda api, _, value: post(api, "/payments", payment(metadata=value)),
        "metadata",
        _payment_ids,
    ),
    "payment update metadata": Write(
        _a_payment_to_update,
        lambda api, payment_id, value: post(api, f"/payments/{payment_id}", {"metadata": value}),
        "metadata",
        _metadata_of_payments,
    ),
    "refund metadata": Write(
        _a_payment,
        lambda api, payment_id, value: post(api, "/refunds", {"payment_id": payment_id, "metadata": value}),
        "metadata",
        _refund_ids,
    ),
    "payout metadata": Write(
        _no_preparation,
        lambda api, _, value: post(api, "/payouts/create", {**PAYOUT, "metadata": value}),
        "metadata",
        _payout_ids,
    ),
    "wallet data": Write(
        _no_preparation,
        lambda api, _, value: post(api, "/payments", wallet_payment({"token": "tok", **value})),
        "payment_method_data.wallet",
        _payment_ids,
    ),
}

TOO_MUCH: dict[str, tuple[dict[str, Any], str]] = {
    "too deep": (nested(LIMITS.MAX_DEPTH + 1), f"is nested more than {LIMITS.MAX_DEPTH} levels deep"),
    "far too deep": (nested(300), f"is nested more than {LIMITS.MAX_DEPTH} levels deep"),
    "too many keys": ({f"k{i}": i for i in range(LIMITS.MAX_KEYS + 1)}, "has more than 50 keys"),
    "key too long": ({"k" * (LIMITS.MAX_KEY_LENGTH + 1): 1}, "has a key longer than 40 characters"),
    "text too long": ({"note": "x" * (LIMITS.MAX_TEXT_LENGTH + 1)}, "has a value longer than 500 characters"),
    "too large": (
        {f"k{i}": ["x" * 400] * 10 for i in range(10)},
        f"is larger than {LIMITS.MAX_BYTES} bytes as JSON",
    ),
}


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("case", list(TOO_MUCH))
def test_a_value_past_the_limits_is_refused_and_nothing_is_stored(api: Api, write: str, case: str) -> None:
    step = WRITES[write]
    value, reason = TOO_MUCH[case]
    prepared = step.prepare(api)
    before = step.stored(api)

    response = step.send(api, prepared, value)

    assert response.status_code == 400
    assert response.json == invalid(step.path, reason)
    assert step.stored(api) == before


@pytest.mark.parametrize("write", list(WRITES))
def test_a_value_at_the_limits_is_stored_and_served_again(api: Api, write: str) -> None:
    step = WRITES[write]
    value = {
        **nested(LIMITS.MAX_DEPTH),
        "note": "x" * LIMITS.MAX_TEXT_LENGTH,
        "k" * LIMITS.MAX_KEY_LENGTH: 2**63,
    }
    prepared = step.prepare(api)
    before = step.stored(api)

    response = step.send(api, prepared, value)

    assert response.status_code == 200, response.json
    # The list answers (it serializes every record) and shows the change.
    assert step.stored(api) != before


def test_a_number_no_answer_could_carry_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"^Has a number out of the 64-bit range\.$"):
        LIMITS()({"n": 2**64})


# -- text fields ------------------------------------------------------------------------------------

TEXT_FIELDS: dict[str, tuple[Write, int]] = {
    "customer name": (
        Write(
            _no_preparation,
            lambda api, _, text: post(api, "/customers", {"name": text}),
            "name",
            _customer_ids,
        ),
        MAX_TEXT_LENGTH,
    ),
    "customer email local part": (
        Write(
            _no_preparation,
            lambda api, _, text: post(api, "/customers", {"email": text[:-12] + "@example.com"}),
            "email",
            _customer_ids,
        ),
        MAX_TEXT_LENGTH,
    ),
    "payment description": (
        Write(
            _no_preparation,
            lambda api, _, text: post(api, "/payments", payment(description=text)),
            "description",
            _payment_ids,
        ),
        1000,  # a bound of its own
    ),
    "payment return_url": (
        Write(
            _no_preparation,
            lambda api, _, text: post(
                api, "/payments", payment(return_url="https://shop.example/" + text[21:])
            ),
            "return_url",
            _payment_ids,
        ),
        MAX_URL_LENGTH,
    ),
    "refund reason": (
        Write(
            _a_payment,
            lambda api, payment_id, text: post(api, "/refunds", {"payment_id": payment_id, "reason": text}),
            "reason",
            _refund_ids,
        ),
        MAX_TEXT_LENGTH,
    ),
}


@pytest.mark.parametrize("field", list(TEXT_FIELDS))
def test_a_text_longer_than_its_limit_is_refused_and_nothing_is_stored(api: Api, field: str) -> None:
    step, longest = TEXT_FIELDS[field]
    prepared = step.prepare(api)
    before = step.stored(api)

    response = step.send(api, prepared, "x" * (longest + 1))

    assert response.status_code == 400
    assert response.json == invalid(step.path, f"longer than maximum length {longest}")
    assert step.stored(api) == before


@pytest.mark.parametrize("field", list(TEXT_FIELDS))
def test_a_text_as_long_as_its_limit_is_stored(api: Api, field: str) -> None:
    step, longest = TEXT_FIELDS[field]
    prepared = step.prepare(api)
    before = step.stored(api)

    response = step.send(api, prepared, "x" * longest)

    assert response.status_code == 200, response.json
    assert len(step.stored(api)) == len(before) + 1
