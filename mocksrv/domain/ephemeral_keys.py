"""EphemeralKeyService: short-lived keys that let a browser act for one customer of the merchant.

A key is created with the merchant's secret key for an existing customer and lives for
EPHEMERAL_KEY_VALIDITY (one hour, the real service's default validity) on the merchant's mock
clock. A key past its expiry is gone, as if deleted: looking it up or deleting it is not found.
A merchant reset removes every key.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import ResourceNotFound
from mocksrv.domain.ids import new_id, new_secret
from mocksrv.domain.payments.service import check_customer
from mocksrv.domain.store import Collection, MemoryStore

EPHEMERAL_KEYS = "ephemeral_key"
EPHEMERAL_KEY_COLLECTION = Collection(EPHEMERAL_KEYS, "id", ordered=False)
EPHEMERAL_KEY_VALIDITY = timedelta(hours=1)


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
        self, store: MemoryStore, clock: Clock, validity: timedelta = EPHEMERAL_KEY_VALIDITY
    ) -> None:
        self._store = store
        self._clock = clock
        self._validity = validity

    def create(self, merchant_id: str, customer_id: str) -> EphemeralKey:
        """A new key for `customer_id`, which must name a customer of the merchant (else IR_04)."""
        with self._store.transaction(merchant_id):
            check_customer(self._store, merchant_id, {"customer_id": customer_id})
            now = self._clock.now(merchant_id)
            key = EphemeralKey(
                id=new_id("eki", entropy=self._store.ids(merchant_id)),
                merchant_id=merchant_id,
                customer_id=customer_id,
                created=now,
                expires=now + self._validity,
                secret=f"epk_{new_secret(32, self._store.ids(merchant_id))}",
            )
            self._store.put(EPHEMERAL_KEYS, merchant_id, key)
            return key

    def retrieve(self, merchant_id: str, key_id: str) -> EphemeralKey:
        """The key, while it has not expired on the mock clock; otherwise HE_02."""
        key: EphemeralKey | None = self._store.get(EPHEMERAL_KEYS, merchant_id, key_id)
        if key is None or self._clock.now(merchant_id) >= key.expires:
            raise ResourceNotFound("Ephemeral key")
        return key

    def delete(self, merchant_id: str, key_id: str) -> EphemeralKey:
        """Delete the key and return it as it was."""
        with self._store.transaction(merchant_id):
            key = self.retrieve(merchant_id, key_id)
            self._store.delete(EPHEMERAL_KEYS, merchant_id, key_id)
            return key
