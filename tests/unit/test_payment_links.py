"""Payment links in the domain: the times a link and its payment are made at."""

from __future__ import annotations

from datetime import datetime, timedelta

from mocksrv.app import create_sandbox
from mocksrv.settings import Settings
from tests.payloads import MERCHANT_ID
from tests.unit.fakes import FakeSystemTime


class TickingTime(FakeSystemTime):
    """A system time one millisecond later at every reading, as a running clock is."""

    def __call__(self) -> datetime:
        self.current += timedelta(milliseconds=1)
        return self.current


def test_a_link_and_its_payment_are_made_at_one_time_and_it_expires_15_minutes_later() -> None:
    sandbox = create_sandbox(Settings(), TickingTime())

    link = sandbox.payment_links.create(MERCHANT_ID, {"amount": 100, "currency": "USD"})

    payment = sandbox.payments.retrieve(MERCHANT_ID, link.payment_id)
    assert link.created == payment.created
    assert link.expiry - link.created == timedelta(minutes=15)
    assert payment.client_secret_expires_at == link.expiry
