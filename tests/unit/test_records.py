"""`evolve`, the copy with changes every transition makes, and `build`: the same records as
`dataclasses.replace` and the constructor make."""

from __future__ import annotations

import dataclasses
import pickle
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from mocksrv.domain.models import CaptureMethod, Payment, build, evolve
from mocksrv.domain.payments.states import PaymentStatus

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


def test_a_copy_is_a_record_of_its_class_as_frozen_as_one_built_by_its_constructor() -> None:
    copied = evolve(PAYMENT, amount=5)
    built = dataclasses.replace(PAYMENT, amount=5)
    assert type(copied) is Payment
    assert (copied, repr(copied), dataclasses.asdict(copied)) == (
        built,
        repr(built),
        dataclasses.asdict(built),
    )
    assert not hasattr(copied, "__dict__")
    assert pickle.loads(pickle.dumps(copied)) == built
    with pytest.raises(dataclasses.FrozenInstanceError):
        copied.amount = 6  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del copied.amount  # type: ignore[misc]


@dataclasses.dataclass(frozen=True, slots=True)
class Base:
    name: str


@dataclasses.dataclass(frozen=True, slots=True)
class Extended(Base):
    size: int = 0


@dataclasses.dataclass(frozen=True)
class Unslotted:
    name: str
    size: int = 0


@dataclasses.dataclass(frozen=True, slots=True, weakref_slot=True)
class Referable:
    name: str
    size: int = 0


@pytest.mark.parametrize("record", [Extended("a", 1), Unslotted("a", 1), Referable("a", 1)])
def test_a_record_laid_out_otherwise_is_copied_through_its_constructor(record: object) -> None:
    copied = evolve(record, size=2)
    assert type(copied) is type(record)
    assert copied == dataclasses.replace(record, size=2)  # type: ignore[type-var]


@dataclasses.dataclass(frozen=True, slots=True)
class Checked:
    name: str
    size: int

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError("negative size")


def test_a_record_that_checks_itself_on_creation_is_copied_through_its_constructor() -> None:
    with pytest.raises(ValueError, match="negative size"):
        evolve(Checked("a", 1), size=-1)
    assert evolve(Checked("a", 1), size=2) == Checked("a", 2)


PAYMENT_FIELDS: dict[str, Any] = {
    field.name: getattr(PAYMENT, field.name)
    for field in dataclasses.fields(Payment)
    if field.name != "metadata"
}
REQUIRED = [field.name for field in dataclasses.fields(Payment) if field.default is dataclasses.MISSING]


@pytest.mark.parametrize(
    "fields",
    [
        {name: PAYMENT_FIELDS[name] for name in REQUIRED},
        PAYMENT_FIELDS | {"metadata": {"order": "42"}, "amount_received": 5},
    ],
    ids=["required fields only", "every field"],
)
def test_build_makes_the_record_its_constructor_makes(fields: dict[str, Any]) -> None:
    built = build(Payment, **fields)
    made = Payment(**fields)
    assert type(built) is Payment
    assert (built, repr(built)) == (made, repr(made))
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.amount = 6  # type: ignore[misc]


@pytest.mark.parametrize(
    "fields",
    [
        PAYMENT_FIELDS | {"amount_paid": 5},
        {name: value for name, value in PAYMENT_FIELDS.items() if name != "currency"},
    ],
    ids=["unknown field", "missing field"],
)
def test_build_refuses_fields_as_the_constructor_does(fields: dict[str, Any]) -> None:
    with pytest.raises(TypeError) as refused:
        Payment(**fields)
    with pytest.raises(TypeError, match=re.escape(str(refused.value))):
        build(Payment, **fields)


@dataclasses.dataclass(frozen=True, slots=True)
class Listed:
    name: str
    items: list[str] = dataclasses.field(default_factory=list)


def test_build_makes_a_record_with_a_default_factory_through_its_constructor() -> None:
    first, second = build(Listed, name="a"), build(Listed, name="b")
    assert (first, second) == (Listed("a"), Listed("b"))
    assert first.items is not second.items
