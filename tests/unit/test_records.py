"""`evolve`, the copy-with-changes every transition makes: the same result as dataclasses.replace."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from mocksrv.domain.models import CaptureMethod, Payment, evolve
from mocksrv.domain.payment_states import PaymentStatus

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PAYMENT = Payment(
    payment_id="pay_1",
    merchant_id="merchant_default",
    profile_id="pro_default",
    status=PaymentStatus.REQUIRES_CONFIRMATION,
    amount=1000,
    currency="USD",
    capture_method=CaptureMethod.AUTOMATIC,
    created=T0,
    modified_at=T0,
    client_secret="pay_1_secret_x",
    client_secret_expires_at=T0,
    metadata={"order": "42"},
)


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"status": PaymentStatus.SUCCEEDED, "amount_received": 1000},
        {"error_code": None, "metadata": None},
    ],
    ids=["nothing", "two fields", "to None"],
)
def test_evolve_copies_a_record_as_dataclasses_replace_does(changes: dict[str, object]) -> None:
    copied = evolve(PAYMENT, **changes)
    assert copied == dataclasses.replace(PAYMENT, **changes)
    assert copied is not PAYMENT
    assert PAYMENT.status is PaymentStatus.REQUIRES_CONFIRMATION  # the original is as it was


def test_evolve_refuses_a_field_the_record_does_not_have() -> None:
    with pytest.raises(TypeError, match="Payment has no field 'amount_paid'"):
        evolve(PAYMENT, amount_paid=5)


@dataclasses.dataclass(frozen=True)
class Derived:
    name: str
    length: int = dataclasses.field(init=False, default=0)


def test_evolve_refuses_a_class_with_fields_not_set_on_creation() -> None:
    with pytest.raises(TypeError, match="Derived is not a record"):
        evolve(Derived("a"), name="b")
