"""The customers routes, and customers named on payments."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests import payloads
from tests.api.expected import GENERATED_CUSTOMER_ID, case_id, error, invalid, later, malformed, summary
from tests.api.scenarios import advance, create, ok, payment_count
from tests.conftest import Api
from tests.payloads import BILLING

pytestmark = pytest.mark.usefixtures("frozen")

NOT_FOUND = error("HE_02", "Customer does not exist in our records")
FULL = {
    "customer_id": "cus_1",
    "name": "Ada Lovelace",
    "email": "ada@example.com",
    "phone": "4155550100",
    "phone_country_code": "+1",
    "description": "First customer",
    "address": copy.deepcopy(BILLING["address"]),
    "metadata": {"crm_id": "42"},
    "tax_registration_id": "GB123456789",
}


def customer(now: str, customer_id: Any, **fields: Any) -> dict[str, Any]:
    """A customer's body: every field the create took, the rest null."""
    body: dict[str, Any] = {
        "customer_id": customer_id,
        "name": None,
        "email": None,
        "phone": None,
        "phone_country_code": None,
        "description": None,
        "address": None,
        "metadata": None,
        "tax_registration_id": None,
        "default_payment_method_id": None,
        "created_at": now,
    }
    body.update(fields)
    return body


def customer_count(api: Api) -> int:
    count: int = ok(api.get("/customers/list?limit=100"))["total_count"]
    return count


# -- create -----------------------------------------------------------------------------------


def test_create_with_every_field_keeps_them(api: Api, frozen: str) -> None:
    response = api.post("/customers", FULL)

    assert response.status_code == 200
    assert response.json == customer(frozen, **FULL)


@pytest.mark.parametrize(
    ("phone", "phone_country_code"),
    [
        ("+14155550100", None),
        ("415.555.0100", "1"),
        ("4155550100 ext 2", "+1-684"),
        ("123", "91"),
        ("4" * 255, "+" * 255),
    ],
)
def test_create_takes_a_phone_and_country_code_in_any_form_the_real_service_takes(
    api: Api, frozen: str, phone: str, phone_country_code: str | None
) -> None:
    body = {"customer_id": "cus_1", "phone": phone, "phone_country_code": phone_country_code}

    response = api.post("/customers", body)

    assert response.status_code == 200
    assert response.json == customer(frozen, **body)
    assert ok(api.get("/customers/cus_1")) == response.json


def test_create_without_customer_id_generates_one(api: Api, frozen: str) -> None:
    response = api.post("/customers", {"email": "ada@example.com"})

    assert response.status_code == 200
    assert response.json == customer(frozen, GENERATED_CUSTOMER_ID, email="ada@example.com")


def test_create_without_a_body_creates_an_empty_customer(api: Api, frozen: str) -> None:
    response = api.post("/customers")

    assert response.status_code == 200
    assert response.json == customer(frozen, GENERATED_CUSTOMER_ID)


def test_create_with_a_partial_address_keeps_it(api: Api, frozen: str) -> None:
    response = api.post("/customers", {"customer_id": "cus_1", "address": {"city": "Paris", "country": "FR"}})

    assert response.status_code == 200
    assert response.json == customer(frozen, "cus_1", address={"city": "Paris", "country": "FR"})


def test_a_customers_address_may_leave_a_part_blank(api: Api, frozen: str) -> None:
    # None of its parts is required, unlike a payment's billing address.
    address = {"line1": "1 Rue de Rivoli", "state": "", "city": "Paris", "country": "FR"}

    response = api.post("/customers", {"customer_id": "cus_1", "address": address})

    assert response.status_code == 200
    assert response.json == customer(frozen, "cus_1", address=address)


def test_create_with_a_customer_id_in_use_answers_that_customer_unchanged(api: Api) -> None:
    original = ok(api.post("/customers", FULL))

    response = api.post("/customers", {"customer_id": "cus_1", "name": "Someone else"})

    assert response.status_code == 200
    assert response.json == original
    assert ok(api.get("/customers/cus_1")) == original
    assert ok(api.get("/customers/list"))["total_count"] == 1


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"customer_id": "cus 1"}, invalid("customer_id", "1-64 letters, digits, _ or -")),
        ({"customer_id": "c" * 65}, invalid("customer_id", "1-64 letters, digits, _ or -")),
        ({"customer_id": "cus_1\n"}, invalid("customer_id", "1-64 letters, digits, _ or -")),
        ({"email": "ada"}, invalid("email", "not a valid email address")),
        ({"name": 7}, invalid("name", "not a valid string")),
        ({"phone": "4" * 256}, invalid("phone", "longer than maximum length 255")),
        ({"phone": 4155550100}, invalid("phone", "not a valid string")),
        ({"phone_country_code": "+" * 256}, invalid("phone_country_code", "longer than maximum length 255")),
        ({"description": "d" * 256}, invalid("description", "longer than maximum length 255")),
        ({"address": "1 Market Street"}, invalid("address", "invalid input type")),
        (
            {"address": {"country": "France"}},
            invalid("address.country", "not an ISO 3166 alpha-2 country code"),
        ),
        ({"metadata": ["crm"]}, invalid("metadata", "not a valid mapping type")),
        ({"address": {"line4": "x"}}, malformed("unknown field `address.line4`")),
        ({"customer_id": "cus_1", "tax_id": "x"}, malformed("unknown field `tax_id`")),
        ({"items": []}, invalid("items", "order lines are sent as order_details")),
    ],
    ids=case_id,
)
def test_create_with_an_invalid_field_creates_nothing(api: Api, body: dict[str, Any], expected: dict) -> None:
    response = api.post("/customers", body)

    assert response.status_code == 400
    assert response.json == expected
    assert customer_count(api) == 0


# -- retrieve, update, delete -----------------------------------------------------------------


def test_retrieve_answers_the_customer(api: Api, frozen: str) -> None:
    ok(api.post("/customers", FULL))

    response = api.get("/customers/cus_1")

    assert response.status_code == 200
    assert response.json == customer(frozen, **FULL)


@pytest.mark.parametrize(
    ("method", "body"),
    [("get", None), ("post", {"name": "Ada"}), ("delete", None)],
)
def test_an_unknown_customer_is_he_02(api: Api, method: str, body: Any) -> None:
    response = getattr(api, method)("/customers/cus_missing", *([body] if body else []))

    assert response.status_code == 404
    assert response.json == NOT_FOUND


def test_update_changes_only_the_fields_sent(api: Api, frozen: str) -> None:
    ok(api.post("/customers", FULL))
    advance(api, 5)

    response = api.post("/customers/cus_1", {"name": "Ada King", "metadata": {"crm_id": "43"}})

    assert response.status_code == 200
    assert response.json == customer(frozen, **{**FULL, "name": "Ada King", "metadata": {"crm_id": "43"}})


def test_update_takes_a_country_code_without_a_plus_sign(api: Api, frozen: str) -> None:
    ok(api.post("/customers", FULL))

    response = api.post("/customers/cus_1", {"phone": "98765 43210", "phone_country_code": "91"})

    assert response.status_code == 200
    assert response.json == customer(frozen, **{**FULL, "phone": "98765 43210", "phone_country_code": "91"})


def test_update_with_an_empty_body_changes_nothing(api: Api) -> None:
    original = ok(api.post("/customers", FULL))

    response = api.post("/customers/cus_1", {})

    assert response.status_code == 200
    assert response.json == original


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"email": "nope"}, invalid("email", "not a valid email address")),
        ({"customer_id": "cus_2"}, malformed("unknown field `customer_id`")),
        ({"address": {"country": "XX"}}, invalid("address.country", "not an ISO 3166 alpha-2 country code")),
    ],
    ids=case_id,
)
def test_update_with_an_invalid_field_changes_nothing(api: Api, body: dict[str, Any], expected: dict) -> None:
    original = ok(api.post("/customers", FULL))

    response = api.post("/customers/cus_1", body)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get("/customers/cus_1")) == original


def test_delete_answers_what_was_deleted(api: Api) -> None:
    ok(api.post("/customers", FULL))

    response = api.delete("/customers/cus_1")

    assert response.status_code == 200
    assert response.json == {
        "customer_id": "cus_1",
        "customer_deleted": True,
        "address_deleted": True,
        "payment_methods_deleted": True,
    }


def test_a_deleted_customer_is_gone(api: Api) -> None:
    ok(api.post("/customers", FULL))
    ok(api.delete("/customers/cus_1"))

    response = api.get("/customers/cus_1")

    assert response.status_code == 404
    assert response.json == NOT_FOUND
    assert customer_count(api) == 0


def test_a_deleted_customer_id_may_be_used_again(api: Api, frozen: str) -> None:
    ok(api.post("/customers", FULL))
    ok(api.delete("/customers/cus_1"))

    response = api.post("/customers", {"customer_id": "cus_1"})

    assert response.status_code == 200
    assert response.json == customer(frozen, "cus_1")


# -- list -------------------------------------------------------------------------------------


def _create_three_a_second_apart(api: Api) -> list[dict[str, Any]]:
    created = []
    for index in range(3):
        if index:
            advance(api, 1)
        created.append(ok(api.post("/customers", {"customer_id": f"cus_{index}"})))
    return created


def test_list_of_no_customers_is_empty(api: Api) -> None:
    response = api.get("/customers/list")

    assert response.status_code == 200
    assert response.json == {"data": [], "total_count": 0, "has_more": False}


def test_list_is_newest_first(api: Api) -> None:
    created = _create_three_a_second_apart(api)

    response = api.get("/customers/list")

    assert response.status_code == 200
    assert response.json == {"data": list(reversed(created)), "total_count": 3, "has_more": False}


@pytest.mark.parametrize(
    ("query", "indexes", "has_more"),
    [
        ("limit=1", [2], True),
        ("limit=2", [2, 1], True),
        ("limit=2&offset=1", [1, 0], False),
        ("limit=2&offset=2", [0], False),
        ("offset=3", [], False),
        ("limit=100", [2, 1, 0], False),
    ],
)
def test_list_pages_with_limit_and_offset(api: Api, query: str, indexes: list[int], has_more: bool) -> None:
    created = _create_three_a_second_apart(api)

    response = api.get(f"/customers/list?{query}")

    assert response.status_code == 200
    assert response.json == {"data": [created[i] for i in indexes], "total_count": 3, "has_more": has_more}


# `{t0}` is the frozen time, when the first customer is created; the others follow a second apart.
CREATED_QUERIES = [
    ("created_gte={t1}", [2, 1], 2),
    ("created_lte={t1}", [1, 0], 2),
    ("created_gte={t1}&created_lte={t1}", [1], 1),
    ("created_gte={t1}&limit=1", [2], 2),
    ("created_gte=2099-01-01T00:00:00Z", [], 0),
]


@pytest.mark.parametrize(("query", "indexes", "total"), CREATED_QUERIES, ids=[q[0] for q in CREATED_QUERIES])
def test_list_takes_the_specs_creation_bounds(
    api: Api, frozen: str, query: str, indexes: list[int], total: int
) -> None:
    created = _create_three_a_second_apart(api)

    response = api.get(f"/customers/list?{query.format(t1=later(frozen, 1))}".replace("+", "%2B"))

    assert response.status_code == 200
    assert response.json == {
        "data": [created[i] for i in indexes],
        "total_count": total,
        "has_more": len(indexes) < total,
    }


def test_list_shows_10_by_default(api: Api) -> None:
    for index in range(11):
        ok(api.post("/customers", {"customer_id": f"cus_{index:02d}"}))

    response = api.get("/customers/list")

    assert (len(response.json["data"]), response.json["total_count"], response.json["has_more"]) == (
        10,
        11,
        True,
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("limit=0", invalid("limit", "must be greater than or equal to 1 and less than or equal to 100")),
        ("limit=101", invalid("limit", "must be greater than or equal to 1 and less than or equal to 100")),
        ("limit=ten", invalid("limit", "not a valid integer")),
        ("limit=%EF%BC%95", invalid("limit", "not a valid integer")),
        ("offset=%D9%A5", invalid("offset", "not a valid integer")),
        ("offset=-1", invalid("offset", "must be greater than or equal to 0")),
        ("offset=1.5", invalid("offset", "not a valid integer")),
        ("created_gte=garbage", invalid("created_gte", "not a valid ISO 8601 timestamp")),
        ("created_lte=2026-13-01", invalid("created_lte", "not a valid ISO 8601 timestamp")),
    ],
    ids=case_id,
)
def test_list_with_an_invalid_limit_or_offset_is_ir_04(api: Api, query: str, expected: dict) -> None:
    response = api.get(f"/customers/list?{query}")

    assert response.status_code == 400
    assert response.json == expected


# -- customers on payments --------------------------------------------------------------------


def test_a_customer_id_can_be_named_on_a_payment(api: Api) -> None:
    ok(api.post("/customers", FULL))

    response = api.post("/payments", payloads.payment(payment_id="pay_1", customer_id="cus_1"))

    assert response.status_code == 200
    assert response.json["customer_id"] == "cus_1"


def test_a_generated_customer_id_can_be_named_on_a_payment(api: Api) -> None:
    customer_id = ok(api.post("/customers", {}))["customer_id"]

    response = api.post("/payments", payloads.payment(customer_id=customer_id))

    assert response.status_code == 200
    assert response.json["customer_id"] == customer_id


def test_a_customers_payments_are_listed_with_the_customer_filter(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    first = create(api, payment_id="pay_1", customer_id="cus_1")
    advance(api, 1)
    create(api, payment_id="pay_2", customer_id="cus_2")
    advance(api, 1)
    third = create(api, payment_id="pay_3", customer_id="cus_1")

    response = api.post("/payments/list", {"customer_id": "cus_1"})

    assert response.status_code == 200
    assert response.json == {"count": 2, "total_count": 2, "data": [summary(third), summary(first)]}


def test_a_deleted_customers_id_on_a_new_payment_is_ir_04(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    ok(api.delete("/customers/cus_1"))

    response = api.post("/payments", payloads.payment(customer_id="cus_1"))

    assert response.status_code == 400
    assert response.json == invalid("customer_id", "no such customer; create it with POST /customers first")
    assert payment_count(api) == 0


def test_deleting_a_customer_keeps_its_payments(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    payment = create(api, payment_id="pay_1", customer_id="cus_1")

    ok(api.delete("/customers/cus_1"))

    assert ok(api.get("/payments/pay_1")) == {**payment, "customer": None}  # no customer to show


def test_a_customer_created_later_on_the_clock_shows_that_time(api: Api, frozen: str) -> None:
    advance(api, 90)

    response = api.post("/customers", {"customer_id": "cus_1"})

    assert response.json["created_at"] == later(frozen, 90)


def test_each_part_of_an_address_may_be_null_as_if_absent(api: Api) -> None:
    created = api.post("/customers", {"customer_id": "cus_1", "address": {"line1": "1 Main", "state": None}})
    updated = api.post("/customers/cus_1", {"address": {"city": "Paris", "zip": None, "country": None}})

    assert (created.status_code, updated.status_code) == (200, 200), (created.json, updated.json)
    assert created.json["address"] == {"line1": "1 Main"}
    assert updated.json["address"] == {"city": "Paris"}
