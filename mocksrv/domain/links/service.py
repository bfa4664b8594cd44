"""PaymentLinkService: links that take a payment on a hosted page, and their expiry and completion.

A link is made with its payment (`POST /payment_link`), or for a payment made with
`payment_link: true`. Either way the payment waits for a method (`requires_payment_method`) and its
client secret lives as long as the link. The link expires at `expiry` on the merchant's clock (by
default 15 minutes after creation) and a one-time link is completed once its payment succeeds or is
authorized. The page confirms the payment through the same service as the API.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from mocksrv.domain.clock import LATEST, Clock, ahead_of_clock
from mocksrv.domain.errors import InvalidField, ResourceNotFound
from mocksrv.domain.events import PAID_EVENTS, Event
from mocksrv.domain.ids import new_id
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.links.records import (
    DEFAULT_EXPIRY,
    EXPIRE_TIMER,
    PAYMENT_LINK_TRANSITIONS,
    PAYMENT_LINKS,
    LinkType,
    PaymentLink,
    PaymentLinkEvent,
    PaymentLinkStatus,
    payment_method_types,
)
from mocksrv.domain.merchants import MerchantService
from mocksrv.domain.models import Page, Payment, evolve
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.payments.service import PAYMENTS, PaymentService
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import MemoryStore, Query

# The fields of a link's create that its payment is made with, under the same names.
_PAYMENT_FIELDS = (
    "amount",
    "currency",
    "description",
    "customer_id",
    "email",
    "capture_method",
    "authentication_type",
    "metadata",
    "return_url",
)


class PaymentLinkService:
    def __init__(
        self,
        store: MemoryStore,
        clock: Clock,
        scheduler: Scheduler,
        outbox: Outbox,
        merchants: MerchantService,
        payments: PaymentService,
    ) -> None:
        self._store = store
        self._clock = clock
        self._scheduler = scheduler
        self._merchants = merchants
        self._payments = payments
        self._lifecycle: Lifecycle[PaymentLink, PaymentLinkStatus, PaymentLinkEvent] = Lifecycle(
            store, outbox, PAYMENT_LINK_TRANSITIONS, kind=PAYMENT_LINKS, id_field="payment_link_id"
        )
        scheduler.register(EXPIRE_TIMER, self._expire)

    def retrieve(self, merchant_id: str, payment_link_id: str) -> PaymentLink:
        link: PaymentLink | None = self._store.get(PAYMENT_LINKS, merchant_id, payment_link_id)
        if link is None:
            raise ResourceNotFound("Payment Link")
        return link

    def list(self, merchant_id: str, query: Query) -> Page:
        return self._store.query(PAYMENT_LINKS, merchant_id, query)

    def create(self, merchant_id: str, fields: Mapping[str, Any]) -> PaymentLink:
        """A link and the payment it takes (`POST /payment_link`)."""
        payment_fields = {name: fields[name] for name in _PAYMENT_FIELDS if name in fields}
        allowed = (fields.get("payment_link_config") or {}).get("allowed_payment_method_types")
        if allowed:  # what the page's checkout offers, as the payment's own field says it
            payment_fields["allowed_payment_method_types"] = payment_method_types(allowed)
        # The time read under the merchant's lock, which an advance of its clock holds too.
        with self._store.transaction(merchant_id):
            now = self._clock.now(merchant_id)
            expiry = self._expiry(fields, now)
            payment_fields.update(
                profile_id=fields.get("profile_id")
                or self._merchants.default_profile(merchant_id).profile_id,
                session_expiry=math.ceil((expiry - now).total_seconds()),
            )
            payment = self._payments.create(merchant_id, payment_fields, at=now)
            return self._link(payment, fields, expiry, now)

    def create_payment(self, merchant_id: str, fields: Mapping[str, Any]) -> Payment:
        """A payment (`POST /payments`), and its link when the create says `payment_link: true`."""
        if not fields.get("payment_link"):
            return self._payments.create(merchant_id, fields)
        if fields.get("confirm"):
            raise InvalidField("payment_link", "a payment with a link is confirmed on the link's page")
        with self._store.transaction(merchant_id):
            payment = self._payments.create(merchant_id, fields)
            # The link lives as long as the payment's client secret: its session_expiry, or the profile's.
            config = {"payment_link_config": fields.get("payment_link_config")}
            link = self._link(payment, config, payment.client_secret_expires_at, payment.created)
            return self._payments.retrieve(merchant_id, link.payment_id)

    def for_page(self, merchant_id: str, payment_link_id: str) -> tuple[PaymentLink, Payment]:
        """The link and its payment, as its page shows them."""
        link = self.retrieve(merchant_id, payment_link_id)
        return link, self._payments.retrieve(merchant_id, link.payment_id)

    def take_customer_info(
        self, merchant_id: str, payment_link_id: str, client_secret: str | None, name: str, email: str
    ) -> Payment:
        """Record the name and e-mail the page asked for on the link's payment, before it is paid."""
        link = self.retrieve(merchant_id, payment_link_id)
        # The link's expiry, which its payment's secret shares, said as the link's.
        self._payments.retrieve(
            merchant_id, link.payment_id, client_secret, secret_required=True, secret_expires=False
        )
        self._check_payable(link)
        return self._payments.update(merchant_id, link.payment_id, {"name": name, "email": email})

    def _check_payable(self, link: PaymentLink) -> None:
        """IR_14 for a link whose page may no longer take its payment: expired or completed."""
        if link.status is not PaymentLinkStatus.ACTIVE:
            raise PAYMENT_LINK_TRANSITIONS.refusal_for(
                link.status, "completed", [PaymentLinkStatus.ACTIVE.value]
            )

    def on_event(self, event: Event) -> None:
        """Complete a one-time link once its payment is paid."""
        payment = event.resource
        if (
            not isinstance(payment, Payment)
            or payment.payment_link_id is None
            or event.event_type not in PAID_EVENTS
        ):
            return
        link: PaymentLink | None = self._store.get(
            PAYMENT_LINKS, payment.merchant_id, payment.payment_link_id
        )
        if (
            link is None
            or link.link_type is not LinkType.ONE_TIME
            or not PAYMENT_LINK_TRANSITIONS.find(link.status, PaymentLinkEvent.COMPLETE)
        ):
            return
        # An expired link is completed only by a payment begun (confirmed) before it expired.
        begun = payment.attempted_at
        if link.status is PaymentLinkStatus.EXPIRED and (begun is None or begun >= link.expiry):
            return
        self._lifecycle.move(link, PaymentLinkEvent.COMPLETE, event.created)

    # -- internals ------------------------------------------------------------------------------

    def _expiry(self, fields: Mapping[str, Any], now: datetime) -> datetime:
        expiry: datetime | None = fields.get("expiry")
        if expiry is None:
            return min(now + DEFAULT_EXPIRY, LATEST)  # a link made at the clock's end expires at it
        return ahead_of_clock("expiry", expiry, now)

    def _link(
        self, payment: Payment, fields: Mapping[str, Any], expiry: datetime, now: datetime
    ) -> PaymentLink:
        link = PaymentLink(
            payment_link_id=new_id("plink", entropy=self._store.ids(payment.merchant_id)),
            merchant_id=payment.merchant_id,
            profile_id=payment.profile_id,
            payment_id=payment.payment_id,
            status=PaymentLinkStatus.ACTIVE,
            created=now,
            updated_at=now,
            expiry=expiry,
            amount=payment.amount,
            currency=payment.currency,
            link_type=LinkType(fields.get("link_type") or LinkType.ONE_TIME),
            description=payment.description,
            customer_id=payment.customer_id,
            email=payment.email,
            send_email=bool(fields.get("send_email")),
            capture_method=payment.capture_method.value,
            authentication_type=payment.authentication_type,
            require_customer_info=bool(fields.get("require_customer_info")),
            config=fields.get("payment_link_config"),
            return_url=payment.return_url,
        )
        self._store.put(PAYMENT_LINKS, payment.merchant_id, link)
        # The secret ends with the link to the millisecond, where the create's whole seconds ran past it.
        linked = evolve(payment, payment_link_id=link.payment_link_id, client_secret_expires_at=expiry)
        self._store.put(PAYMENTS, payment.merchant_id, linked)
        self._scheduler.schedule(payment.merchant_id, expiry, EXPIRE_TIMER, link.payment_link_id)
        return link

    def _expire(self, merchant_id: str, payment_link_id: str) -> None:
        link: PaymentLink | None = self._store.get(PAYMENT_LINKS, merchant_id, payment_link_id)
        if link is not None and PAYMENT_LINK_TRANSITIONS.find(link.status, PaymentLinkEvent.EXPIRE):
            self._lifecycle.move(link, PaymentLinkEvent.EXPIRE, self._clock.now(merchant_id))
