"""CustomerService: the merchant's customers, whose ids payments refer to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import ResourceNotFound
from mocksrv.domain.ids import new_id
from mocksrv.domain.models import Customer, Page, evolve
from mocksrv.domain.store import MemoryStore, Query

CUSTOMERS = "customer"

CUSTOMER_FIELDS = (
    "name",
    "email",
    "phone",
    "phone_country_code",
    "description",
    "address",
    "metadata",
    "tax_registration_id",
)


class CustomerService:
    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def create(self, merchant_id: str, fields: Mapping[str, Any]) -> Customer:
        """A new customer; with the id of one that exists, that one, unchanged."""
        with self._store.transaction(merchant_id):
            customer_id = fields.get("customer_id") or new_id("cus", entropy=self._store.ids(merchant_id))
            held: Customer | None = self._store.get(CUSTOMERS, merchant_id, customer_id)
            if held is not None:
                return held  # as the real service does: the customer there is, as it is
            customer = Customer(
                customer_id=customer_id,
                merchant_id=merchant_id,
                created=self._clock.now(merchant_id),
                **{name: fields[name] for name in CUSTOMER_FIELDS if name in fields},
            )
            self._store.put(CUSTOMERS, merchant_id, customer)
            return customer

    def retrieve(self, merchant_id: str, customer_id: str) -> Customer:
        customer = self.find(merchant_id, customer_id)
        if customer is None:
            raise ResourceNotFound("Customer")
        return customer

    def find(self, merchant_id: str, customer_id: str) -> Customer | None:
        customer: Customer | None = self._store.get(CUSTOMERS, merchant_id, customer_id)
        return customer

    def update(self, merchant_id: str, customer_id: str, fields: Mapping[str, Any]) -> Customer:
        with self._store.transaction(merchant_id):
            customer = self.retrieve(merchant_id, customer_id)
            updated = evolve(customer, **{name: fields[name] for name in CUSTOMER_FIELDS if name in fields})
            self._store.put(CUSTOMERS, merchant_id, updated)
            return updated

    def delete(self, merchant_id: str, customer_id: str) -> Customer:
        with self._store.transaction(merchant_id):
            customer = self.retrieve(merchant_id, customer_id)
            self._store.delete(CUSTOMERS, merchant_id, customer_id)
            return customer

    def list(self, merchant_id: str, query: Query) -> Page:
        return self._store.query(CUSTOMERS, merchant_id, query)
