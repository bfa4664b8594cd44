"""Saved payment methods: a customer's cards (and other methods), saved by a payment or created alone.

Each method has a client secret of its own, made when it is saved: `secret_` and 23 letters and
digits, the 30 characters of the real service's `PaymentMethodUpdate.client_secret`. With it a
browser (the publishable key) may update that one method, for CLIENT_SECRET_VALIDITY after the
method was saved on the merchant's mock clock: the real service's fifteen minutes.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from mocksrv.domain.clock import Clock
from mocksrv.domain.customers import CUSTOMERS
from mocksrv.domain.errors import (
    ClientSecretExpired,
    ClientSecretInvalid,
    ClientSecretMissing,
    InvalidField,
    PreconditionFailed,
    ResourceNotFound,
)
from mocksrv.domain.events import PAID_EVENTS, Event, EventType
from mocksrv.domain.ids import Entropy, new_id, same_secret
from mocksrv.domain.models import Customer, JsonObject, Payment, build, evolve
from mocksrv.domain.payments.bank import kept_details
from mocksrv.domain.payments.cards import card_expiry, card_key, card_summary, normalized_number
from mocksrv.domain.recurring.records import PAYMENT_METHODS, SavedPaymentMethod
from mocksrv.domain.recurring.setup import sets_up
from mocksrv.domain.store import MemoryStore, Query

NOT_FOUND = "Payment method"
CLIENT_SECRET_VALIDITY = timedelta(minutes=15)

# What a saved card shows of the payment's card summary (`cards.card_summary`).
_SAVED_CARD_FIELDS = (
    "last4",
    "brand",
    "exp_month",
    "exp_year",
    "card_holder_name",
    "card_network",
    "card_type",
    "card_issuer",
    "card_issuing_country",
    "card_isin",
)
# The kinds of method data kept as sent, with any account number cut to its last four digits.
_OTHER_KINDS = ("bank_transfer", "bank_debit", "wallet")


class PaymentMethodService:
    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    # -- reads --------------------------------------------------------------------------------

    def retrieve(self, merchant_id: str, payment_method_id: str) -> SavedPaymentMethod:
        method = self.find(merchant_id, payment_method_id)
        if method is None:
            raise ResourceNotFound(NOT_FOUND)
        return method

    def find(self, merchant_id: str, payment_method_id: str) -> SavedPaymentMethod | None:
        method: SavedPaymentMethod | None = self._store.get(PAYMENT_METHODS, merchant_id, payment_method_id)
        return method

    def by_token(self, merchant_id: str, payment_token: str) -> SavedPaymentMethod | None:
        found: list[SavedPaymentMethod] = self._store.query(
            PAYMENT_METHODS, merchant_id, Query.of(payment_token=payment_token, limit=1)
        ).items
        return found[0] if found else None

    def of_customer(self, merchant_id: str, customer_id: str) -> list[SavedPaymentMethod]:
        """The customer's saved methods, the latest used (or saved) first."""
        page = self._store.query(
            PAYMENT_METHODS, merchant_id, Query.of(customer_id=customer_id, limit=sys.maxsize)
        )
        methods: list[SavedPaymentMethod] = page.items
        return sorted(methods, key=lambda m: m.last_used_at or m.created, reverse=True)

    def with_card(self, merchant_id: str, customer_id: str, key: str) -> SavedPaymentMethod | None:
        """The customer's saved card whose number has the key `key` (`cards.card_key`), if any."""
        found = (m for m in self.of_customer(merchant_id, customer_id) if m.card_key == key)
        return next(found, None)

    # -- operations ---------------------------------------------------------------------------

    def create(self, merchant_id: str, fields: Mapping[str, Any]) -> SavedPaymentMethod:
        """`POST /payment_methods`: a method saved without a payment, for an existing customer."""
        now = self._clock.now(merchant_id)
        _one_method(fields)
        kind = fields["payment_method"]
        kept: dict[str, Any] = {}
        if kind == "card":
            # The card beside the method data, as mocksrv first took it, or inside, as the real
            # service's `payment_method_data: {card}`.
            path = "card" if fields.get("card") is not None else "payment_method_data.card"
            card = fields.get("card") or (fields.get("payment_method_data") or {}).get("card")
            if card is None:
                raise InvalidField("card", missing=True)
            summary = card_summary(card, now, fields.get("payment_method_type"), path=path)
            kept.update(card=_saved_card(summary), card_key=card_key(normalized_number(card)))
            kept["nick_name"] = card.get("nick_name")
        else:
            kept["details"] = _other_details(kind, fields)
        with self._store.transaction(merchant_id):
            customer_id = fields["customer_id"]  # required: a method of no customer could pay for anyone
            if self._store.get(CUSTOMERS, merchant_id, customer_id) is None:
                raise InvalidField("customer_id", "no such customer; create it with POST /customers first")
            method = build(
                SavedPaymentMethod,
                payment_method_id=new_id("pm", entropy=self._store.ids(merchant_id)),
                merchant_id=merchant_id,
                payment_method=kind,
                payment_method_type=fields.get("payment_method_type"),
                created=now,
                payment_token=_new_token(self._store.ids(merchant_id)),
                client_secret=_new_client_secret(self._store.ids(merchant_id)),
                customer_id=customer_id,
                payment_method_issuer=fields.get("payment_method_issuer"),
                payment_method_issuer_code=fields.get("payment_method_issuer_code"),
                metadata=fields.get("metadata"),
                billing=fields.get("billing"),
                # A card saved by the merchant is saved for use without the customer, as on file.
                off_session=True,
                **kept,
            )
            self._store.put(PAYMENT_METHODS, merchant_id, method)
            return method

    def update(
        self,
        merchant_id: str,
        payment_method_id: str,
        fields: Mapping[str, Any],
        *,
        secret_required: bool = False,
    ) -> SavedPaymentMethod:
        """A card's new expiry, holder name or nick name (`POST /payment_methods/:id/update`).

        A `client_secret` sent must be the method's own and live: IR_09 if not its own, IR_08 once
        expired; `secret_required` (the publishable key) makes one needed (IR_08 without).
        """
        now = self._clock.now(merchant_id)
        client_secret = fields.get("client_secret")
        if client_secret is None and secret_required:
            raise ClientSecretMissing()
        with self._store.transaction(merchant_id):
            method = self.retrieve(merchant_id, payment_method_id)
            if client_secret is not None:
                _check_client_secret(method, client_secret, now)
            if fields.get("wallet") is not None and method.payment_method != "wallet":
                raise InvalidField("wallet", f"the payment method is a {method.payment_method}, not a wallet")
            card = fields.get("card")
            if card is None:
                return method
            if method.card is None:
                raise InvalidField("card", f"the payment method is a {method.payment_method}, not a card")
            month, year = card_expiry(card, now, "card")
            changed = {
                **method.card,
                "exp_month": f"{month:02d}",
                "exp_year": str(year),
                "card_holder_name": card["card_holder_name"],
            }
            nick_name = card.get("nick_name", method.nick_name)
            updated = evolve(method, card=changed, nick_name=nick_name)
            self._store.put(PAYMENT_METHODS, merchant_id, updated)
            return updated

    def delete(self, merchant_id: str, payment_method_id: str) -> SavedPaymentMethod:
        with self._store.transaction(merchant_id):
            method = self.retrieve(merchant_id, payment_method_id)
            self._store.delete(PAYMENT_METHODS, merchant_id, payment_method_id)
            if method.customer_id is not None:
                customer: Customer | None = self._store.get(CUSTOMERS, merchant_id, method.customer_id)
                if customer is not None and customer.default_payment_method_id == payment_method_id:
                    self._store.put(CUSTOMERS, merchant_id, evolve(customer, default_payment_method_id=None))
            return method

    def delete_of_customer(self, merchant_id: str, customer_id: str) -> None:
        """Delete every method the customer saved (in the caller's transaction)."""
        for method in self.of_customer(merchant_id, customer_id):
            self._store.delete(PAYMENT_METHODS, merchant_id, method.payment_method_id)

    def set_default(self, merchant_id: str, customer_id: str, payment_method_id: str) -> SavedPaymentMethod:
        with self._store.transaction(merchant_id):
            customer: Customer | None = self._store.get(CUSTOMERS, merchant_id, customer_id)
            if customer is None:
                raise ResourceNotFound("Customer")
            method = self.retrieve(merchant_id, payment_method_id)
            if method.customer_id != customer_id:
                raise InvalidField("payment_method_id", "the payment method is not the customer's")
            if customer.default_payment_method_id == payment_method_id:  # as the real service refuses it
                raise PreconditionFailed("Payment Method is already set as default")
            self._store.put(
                CUSTOMERS, merchant_id, evolve(customer, default_payment_method_id=payment_method_id)
            )
            return method

    def on_event(self, event: Event) -> None:
        """Save the card of a paid payment that asked for it, or note when a saved one was last used."""
        payment = event.resource
        if event.event_type not in PAID_EVENTS or not isinstance(payment, Payment):
            return
        if payment.payment_method_id is None:
            return
        merchant_id = payment.merchant_id
        echoed = payment.echoed or {}
        off_session = echoed.get("setup_future_usage") == "off_session" or payment.mandate_id is not None
        saved = self.find(merchant_id, payment.payment_method_id)
        if saved is not None:
            # Paid with again: a payment that asked to keep it for payments without the customer
            # (or set up a mandate on it) makes it so.
            used = evolve(saved, last_used_at=event.created, off_session=saved.off_session or off_session)
            self._store.put(PAYMENT_METHODS, merchant_id, used)
            return
        if payment.method_saved_before:
            return  # deleted since the payment named it: a method deleted stays deleted
        # Saved when first paid (authorized, or charged at once) by a payment that asked to save it,
        # for its customer if still there: not deleted, nor deleted and made again. The capture of
        # an authorization saves nothing.
        first_paid = event.event_type == EventType.PAYMENT_AUTHORIZED or payment.authorized_at is None
        if not first_paid or not sets_up(echoed) or payment.customer_id is None:
            return
        if payment.customer_deleted or self._store.get(CUSTOMERS, merchant_id, payment.customer_id) is None:
            return  # the customer the confirmation found is gone
        mandate_data = echoed.get("mandate_data") or {}
        card = (payment.payment_method_data or {}).get("card")
        method = build(
            SavedPaymentMethod,
            payment_method_id=payment.payment_method_id,
            merchant_id=merchant_id,
            payment_method=payment.payment_method or "card",
            payment_method_type=payment.payment_method_type,
            created=event.created,
            payment_token=_new_token(self._store.ids(merchant_id)),
            client_secret=_new_client_secret(self._store.ids(merchant_id)),
            customer_id=payment.customer_id,
            card=None if card is None else _saved_card(card),
            card_key=payment.card_key,
            details=None if card is not None else dict(payment.payment_method_data or {}),
            billing=payment.billing,
            customer_acceptance=mandate_data.get("customer_acceptance") or echoed.get("customer_acceptance"),
            off_session=off_session,
            last_used_at=event.created,
        )
        self._store.put(PAYMENT_METHODS, merchant_id, method)


def _saved_card(summary: Mapping[str, Any]) -> JsonObject:
    return {name: summary.get(name) for name in _SAVED_CARD_FIELDS}


def _one_method(fields: Mapping[str, Any]) -> None:
    """Refuse the details of two methods in one create (a `card` and a `payment_method_data.card`,
    say), of which one would be saved and the other dropped without a word, as a payment refuses
    two things to pay with."""
    inside = fields.get("payment_method_data") or {}
    kinds = ("card", *_OTHER_KINDS)
    sent = [kind for kind in kinds if fields.get(kind) is not None]
    sent += [f"payment_method_data.{kind}" for kind in kinds if inside.get(kind) is not None]
    if len(sent) > 1:
        raise InvalidField(sent[1], f"{sent[0]} names the method to save already: send one of them")


def _other_details(kind: str, fields: Mapping[str, Any]) -> JsonObject:
    # A kind that cannot be saved first: asked for its details, a client could never send them.
    if kind not in _OTHER_KINDS:
        raise InvalidField("payment_method", f"card or one of {', '.join(_OTHER_KINDS)}")
    data = fields.get(kind) or (fields.get("payment_method_data") or {}).get(kind)
    if data is None:
        raise InvalidField(kind, f"the {kind} details of the payment method", missing=True)
    return {kind: kept_details(data)}


def _new_token(entropy: Entropy) -> str:
    return new_id("token", 20, entropy)  # letters and digits, as the real service writes one


def _new_client_secret(entropy: Entropy) -> str:
    return new_id("secret", 23, entropy)  # 30 characters, in the form of the real service's example


def _check_client_secret(method: SavedPaymentMethod, client_secret: str, now: datetime) -> None:
    if not same_secret(client_secret, method.client_secret):
        raise ClientSecretInvalid(NOT_FOUND)
    if now >= method.created + CLIENT_SECRET_VALIDITY:
        raise ClientSecretExpired()
