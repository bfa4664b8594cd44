"""CustomerService (decisions section 4): ids, duplicates, not found, list order, isolation."""

from __future__ import annotations

import pytest

from mocksrv.domain.errors import ErrorKind, ResourceNotFound
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.store import Query
from tests.payloads import MERCHANT_ID
from tests.unit.fakes import FakeSystemTime, at


def test_create_generates_a_cus_id(sandbox: Sandbox) -> None:
    customer_id = sandbox.customers.create(MERCHANT_ID, {}).customer_id
    assert customer_id.startswith("cus_")
    assert len(customer_id) == len("cus_") + 20


def test_create_keeps_the_given_id_and_fields(sandbox: Sandbox) -> None:
    fields = {
        "customer_id": "cus_ada",
        "name": "Ada",
        "email": "ada@example.com",
        "metadata": {"tier": "gold"},
    }
    customer = sandbox.customers.create(MERCHANT_ID, fields)
    assert (customer.customer_id, customer.name, customer.email, customer.metadata) == (
        "cus_ada",
        "Ada",
        "ada@example.com",
        {"tier": "gold"},
    )


def test_create_stamps_the_mock_time(sandbox: Sandbox) -> None:
    sandbox.scheduler.advance(MERCHANT_ID, 42)
    assert sandbox.customers.create(MERCHANT_ID, {}).created == at(42)


def test_a_create_with_the_id_of_a_customer_gives_that_customer_unchanged(sandbox: Sandbox) -> None:
    first = sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_ada", "name": "Ada"})
    again = sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_ada", "name": "Someone else"})
    assert again is first


def test_retrieve_of_an_unknown_customer_is_HE_02(sandbox: Sandbox) -> None:
    with pytest.raises(ResourceNotFound) as raised:
        sandbox.customers.retrieve(MERCHANT_ID, "cus_unknown")
    assert (raised.value.code, raised.value.kind, raised.value.message) == (
        "HE_02",
        ErrorKind.NOT_FOUND,
        "Customer does not exist in our records",
    )


def test_update_changes_only_the_given_fields(sandbox: Sandbox) -> None:
    sandbox.customers.create(
        MERCHANT_ID, {"customer_id": "cus_ada", "name": "Ada", "email": "old@example.com"}
    )
    updated = sandbox.customers.update(MERCHANT_ID, "cus_ada", {"email": "new@example.com"})
    assert (updated.name, updated.email) == ("Ada", "new@example.com")
    assert sandbox.customers.retrieve(MERCHANT_ID, "cus_ada") == updated


def test_update_of_an_unknown_customer_is_HE_02(sandbox: Sandbox) -> None:
    with pytest.raises(ResourceNotFound):
        sandbox.customers.update(MERCHANT_ID, "cus_unknown", {"name": "x"})


def test_delete_removes_the_customer(sandbox: Sandbox) -> None:
    sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_ada"})
    sandbox.customers.delete(MERCHANT_ID, "cus_ada")
    with pytest.raises(ResourceNotFound):
        sandbox.customers.retrieve(MERCHANT_ID, "cus_ada")


def test_delete_of_an_unknown_customer_is_HE_02(sandbox: Sandbox) -> None:
    with pytest.raises(ResourceNotFound):
        sandbox.customers.delete(MERCHANT_ID, "cus_unknown")


def test_list_is_newest_first_with_offset_and_limit(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    for name in ("cus_a", "cus_b", "cus_c", "cus_d"):
        sandbox.customers.create(MERCHANT_ID, {"customer_id": name})
        system_time.advance(1)
    page = sandbox.customers.list(MERCHANT_ID, Query(limit=2, offset=1))
    assert ([c.customer_id for c in page.items], page.total_count) == (["cus_c", "cus_b"], 4)


def test_customer_of_another_merchant_is_not_found(sandbox: Sandbox) -> None:
    sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_ada"})
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    with pytest.raises(ResourceNotFound):
        sandbox.customers.retrieve(other, "cus_ada")
