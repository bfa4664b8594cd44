"""The sandbox as a whole: reset, seeding, the outbox."""

from __future__ import annotations

import pytest

from mocksrv.domain.errors import PaymentNotFound, ResourceNotFound
from mocksrv.domain.events import ContentType
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.store import Query
from tests.payloads import MERCHANT_ID, PROFILE_ID, SECRET_KEY, payment
from tests.unit.fakes import T0, at


def test_reset_deletes_payments(sandbox: Sandbox) -> None:
    created = sandbox.payments.create(MERCHANT_ID, payment())
    sandbox.reset(MERCHANT_ID)
    with pytest.raises(PaymentNotFound):
        sandbox.payments.retrieve(MERCHANT_ID, created.payment_id)
    assert sandbox.payments.list(MERCHANT_ID, Query.of()).total_count == 0


def test_reset_deletes_customers(sandbox: Sandbox) -> None:
    sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_ada"})
    sandbox.reset(MERCHANT_ID)
    with pytest.raises(ResourceNotFound):
        sandbox.customers.retrieve(MERCHANT_ID, "cus_ada")


def test_reset_deletes_events(sandbox: Sandbox) -> None:
    sandbox.payments.create(MERCHANT_ID, payment())
    sandbox.reset(MERCHANT_ID)
    assert sandbox.store.events(MERCHANT_ID) == []


def test_reset_deletes_timers(sandbox: Sandbox) -> None:
    sandbox.payments.create(MERCHANT_ID, payment("4000000000000077"))
    sandbox.reset(MERCHANT_ID)
    assert sandbox.store.pending_timers(MERCHANT_ID) == []


def test_reset_keeps_keys_and_profile(sandbox: Sandbox) -> None:
    sandbox.reset(MERCHANT_ID)
    assert sandbox.merchants.authenticate(SECRET_KEY).merchant_id == MERCHANT_ID
    assert sandbox.merchants.default_profile(MERCHANT_ID).profile_id == PROFILE_ID


def test_reset_keeps_the_clock(sandbox: Sandbox) -> None:
    sandbox.scheduler.advance(MERCHANT_ID, 3600)
    sandbox.reset(MERCHANT_ID)
    assert sandbox.clock.now(MERCHANT_ID) == at(3600)


def test_reset_keeps_other_merchants(sandbox: Sandbox) -> None:
    credentials = sandbox.merchants.create(MerchantSeed())
    other = credentials.merchant.merchant_id
    sandbox.payments.create(other, payment(profile_id=credentials.profile.profile_id))
    sandbox.reset(MERCHANT_ID)
    assert sandbox.payments.list(other, Query.of()).total_count == 1


def test_payment_id_is_free_again_after_reset(sandbox: Sandbox) -> None:
    sandbox.payments.create(MERCHANT_ID, payment(payment_id="pay_again"))
    sandbox.reset(MERCHANT_ID)
    sandbox.payments.create(MERCHANT_ID, payment(payment_id="pay_again"))
    assert [e.event_type for e in sandbox.store.events(MERCHANT_ID)] == ["payment_succeeded"]


def test_seed_payments_creates_succeeded_payments(sandbox: Sandbox) -> None:
    assert sandbox.seed_payments(MERCHANT_ID, 3) == 3
    page = sandbox.payments.list(MERCHANT_ID, Query.of(status=PaymentStatus.SUCCEEDED))
    assert (page.total_count, sorted(p.amount for p in page.items)) == (3, [100, 101, 102])


def test_outbox_emit_returns_the_event(sandbox: Sandbox) -> None:
    event = sandbox.outbox.emit(
        MERCHANT_ID, "payment_succeeded", ContentType.PAYMENT_DETAILS, "pay_1", {"x": 1}, at=T0
    )
    assert event is not None
    assert (event.merchant_id, event.event_type, event.object_id, event.created, event.resource) == (
        MERCHANT_ID,
        "payment_succeeded",
        "pay_1",
        T0,
        {"x": 1},
    )


def test_outbox_emit_of_a_repeated_event_returns_none(sandbox: Sandbox) -> None:
    def emit() -> object:
        return sandbox.outbox.emit(
            MERCHANT_ID, "payment_captured", ContentType.PAYMENT_DETAILS, "pay_1", {}, at=T0
        )

    assert emit() is not None
    assert emit() is None
