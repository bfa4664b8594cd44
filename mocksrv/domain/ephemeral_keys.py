"""EphemeralKeyService: short-lived keys that let a browser act for one customer of the merchant.

A key is created with the merchant's secret key for an existing customer and lives for
EPHEMERAL_KEY_VALIDITY (one hour, the real service's default validity) on the merchant's mock
clock. A key past its expiry is gone, as if deleted: looking it up or deleting it is not found.
A merchant reset removes every key.

Its secret is `epk_`, 32 hex digits (the real service's form) and the merchant's id, so that the
secret names the merchant whose store holds it, as a legacy token does. A route that acts for one
customer takes the secret as its `api-key` (`authenticate`): for that customer only, while the key
lives.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeGuard

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import ResourceNotFound, Unauthorized
from mocksrv.domain.ids import merchant_in_secret, new_id, new_secret
from mocksrv.domain.merchants import MerchantService
from mocksrv.domain.models import KeyKind, Principal
from mocksrv.domain.payments.sent import check_customer
from mocksrv.domain.store import Collection, MemoryStore, Query

EPHEMERAL_KEYS = "ephemeral_key"
# Indexed by secret: a request sent with a key finds it by that alone.
EPHEMERAL_KEY_COLLECTION = Collection(EPHEMERAL_KEYS, "id", indexed=("secret",))
EPHEMERAL_KEY_VALIDITY = timedelta(hours=1)
EPHEMERAL_KEY_PREFIX = "epk_"
_SECRET_DIGITS = 32


@dataclass(frozen=True, slots=True)
class EphemeralKey:
    id: str  # eki_...
    merchant_id: str
    customer_id: str
    created: datetime
    expires: datetime
    secret: str  # epk_...


class EphemeralKeyService:
    def __init__(
        self,
        store: MemoryStore,
        clock: Clock,
        merchants: MerchantService,
        validity: timedelta = EPHEMERAL_KEY_VALIDITY,
    ) -> None:
        self._store = store
        self._clock = clock
        self._merchants = merchants
        self._validity = validity

    def create(self, merchant_id: str, customer_id: str) -> EphemeralKey:
        """A new key for `customer_id`, which must name a customer of the merchant (else IR_04)."""
        with self._store.transaction(merchant_id):
            check_customer(self._store, merchant_id, {"customer_id": customer_id})
            now = self._clock.now(merchant_id)
            key_id = new_id("eki", entropy=self._store.ids(merchant_id))
            digits = new_secret(_SECRET_DIGITS, self._store.ids(merchant_id))
            key = EphemeralKey(
                id=key_id,
                merchant_id=merchant_id,
                customer_id=customer_id,
                created=now,
                expires=now + self._validity,
                secret=f"{EPHEMERAL_KEY_PREFIX}{digits}{merchant_id}",
            )
            self._store.put(EPHEMERAL_KEYS, merchant_id, key)
            return key

    def retrieve(self, merchant_id: str, key_id: str) -> EphemeralKey:
        """The key, while it has not expired on the mock clock; otherwise HE_02."""
        key: EphemeralKey | None = self._store.get(EPHEMERAL_KEYS, merchant_id, key_id)
        if key is None or self._clock.now(merchant_id) >= key.expires:
            raise ResourceNotFound("Ephemeral key")
        return key

    def authenticate(self, secret: str, customer_id: str) -> Principal:
        """Who a request sent with the key `secret` acts as, for `customer_id`; IR_01 unless the key
        is that customer's and lives (neither deleted nor past its expiry on the mock clock)."""
        merchant_id = merchant_in_secret(secret, EPHEMERAL_KEY_PREFIX, _SECRET_DIGITS)
        # Only a known merchant's store is looked in: a lookup would make a space for any other name.
        if merchant_id is None or not self._merchants.exists(merchant_id):
            raise Unauthorized()
        found: list[EphemeralKey] = self._store.query(
            EPHEMERAL_KEYS, merchant_id, Query.of(secret=secret, limit=1)
        ).items
        if not found:
            raise Unauthorized()
        key = found[0]
        if key.customer_id != customer_id or self._clock.now(merchant_id) >= key.expires:
            raise Unauthorized()
        return self._merchants.principal(merchant_id, key.id, KeyKind.EPHEMERAL)

    def delete(self, merchant_id: str, key_id: str) -> EphemeralKey:
        """Delete the key and return it as it was."""
        with self._store.transaction(merchant_id):
            key = self.retrieve(merchant_id, key_id)
            self._store.delete(EPHEMERAL_KEYS, merchant_id, key_id)
            return key

    def delete_of_customer(self, merchant_id: str, customer_id: str) -> None:
        """Delete every key of the customer (in the caller's transaction)."""
        keys: list[EphemeralKey] = self._store.query(
            EPHEMERAL_KEYS, merchant_id, Query.of(customer_id=customer_id, limit=sys.maxsize)
        ).items
        for key in keys:
            self._store.delete(EPHEMERAL_KEYS, merchant_id, key.id)


def is_ephemeral_key(key: str | None) -> TypeGuard[str]:
    """Whether an `api-key` is sent as an ephemeral key's secret (valid or not)."""
    return key is not None and key.startswith(EPHEMERAL_KEY_PREFIX)
