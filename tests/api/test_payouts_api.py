"""The /payouts routes and the control plane's payout settlement: exact statuses and bodies.

Spec section 4.5 (the routes and the create body); decisions section 2 (error rows), 4 (payouts),
5 (the closed bank account 000111111116), 6 (payout events), 7 (list limits) and 9 (control plane).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.conftest import OtherMerchant
from tests.api.expected import (
    UNAUTHORIZED,
    Matches,
    at_offsets,
    case_id,
    error,
    invalid,
    later,
    malformed,
    missing,
)
from tests.api.scenarios import advance, ok
from tests.conftest import Api
from tests.payloads import ADMIN_KEY, MERCHANT_ID, PROFILE_ID, PUBLISHABLE_KEY

pytestmark = pytest.mark.usefixtures("frozen")

HOUR = 3600
CLOSED_ACCOUNT = "000111111116"
GENERATED_PAYOUT_ID = Matches(r"payout_[A-Za-z0-9]{23}")
PAYOUT_NOT_FOUND = error("HE_02", "Payout does not exist in our records")
DUPLICATE_PAYOUT = error(
    "HE_01", "The payout with the specified payout_id already exists in our records", "payout_id"
)
NO_SUCH_CUSTOMER = invalid("customer_id", "no such customer; create it with POST /customers first")
AMOUNT_RANGE = "must be greater than or equal to 1 and less than or equal to 99999999999"
LIMIT_RANGE = "must be greater than or equal to 1 and less than or equal to 100"
NOT_A_RESOURCE_ID = "1-64 letters, digits, _ or -"
NO_PATTERN = "string does not match expected pattern"
STATUSES = (
    "success, failed, cancelled, initiated, expired, reversed, pending, ineligible, requires_creation, "
    "requires_confirmation, requires_payout_method_data, requires_fulfillment, "
    "requires_vendor_account_creation"
)

BANK: dict[str, str] = {
    "bank_account_number": "123456789012",
    "bank_routing_number": "110000000",
    "bank_name": "Bank of Tests",
    "bank_country_code": "US",
    "bank_city": "San Francisco",
}
MASKED_BANK = {**BANK, "bank_account_number": "****9012"}
CREATE: dict[str, Any] = {
    "amount": 1000,
    "currency": "USD",
    "payout_type": "bank",
    "payout_method_data": {"bank": BANK},
}
CUSTOMER_ID = "cus_1"


def refused(action: str, status: str, expected: str = "requires_fulfillment") -> dict[str, Any]:
    """The IR_14 body of a payout operation its status does not allow."""
    return error(
        "IR_14",
        f"This Payout could not be {action} because it has a status of {status}. "
        f"The expected state is {expected}",
    )


def secret_of(payout_id: Any) -> Matches:
    """The client secret of a payout: its id, `_secret_` and 20 hex digits."""
    prefix = re.escape(payout_id) if isinstance(payout_id, str) else r"payout_[A-Za-z0-9]{23}"
    return Matches(rf"{prefix}_secret_[A-Za-z0-9]{{20}}")


def payout_body(now: str, payout_id: Any = "po_1", **changes: Any) -> dict[str, Any]:
    """A payout as the API shows it: the CREATE body, made at `now`, waiting for fulfilment."""
    body: dict[str, Any] = {
        "payout_id": payout_id,
        "merchant_id": MERCHANT_ID,
        "profile_id": PROFILE_ID,
        "amount": 1000,
        "currency": "USD",
        "payout_type": "bank",
        "payout_method_data": {"bank": MASKED_BANK},
        "customer_id": None,
        "description": None,
        "metadata": None,
        "auto_fulfill": False,
        "status": "requires_fulfillment",
        "error_code": None,
        "error_message": None,
        "created": now,
        "client_secret": secret_of(payout_id),
        "connector": "mocksrv",
        "merchant_order_reference_id": None,
        "billing": None,
        "customer": None,
        "return_url": None,
        "business_country": None,
        "business_label": None,
        "entity_type": "Individual",
        "recurring": False,
        "priority": None,
        "email": None,
        "name": None,
        "phone": None,
        "phone_country_code": None,
        "payout_method_id": None,
    }
    body.update(changes)
    return body


def closed_bank() -> dict[str, Any]:
    return {"bank": {**BANK, "bank_account_number": CLOSED_ACCOUNT}}


def create_payout(api: Api, payout_id: str | None = "po_1", **fields: Any) -> dict[str, Any]:
    body = {**copy.deepcopy(CREATE), **fields}
    if payout_id is not None:
        body["payout_id"] = payout_id
    return ok(api.post("/payouts/create", body))


def add_customer(api: Api, customer_id: str = CUSTOMER_ID) -> None:
    ok(api.post("/customers", {"customer_id": customer_id, "name": "Ada Lovelace"}))


# How a payout shows the customer add_customer makes: the customer's own details.
ADA = {"id": CUSTOMER_ID, "name": "Ada Lovelace", "email": None, "phone": None, "phone_country_code": None}


def get_payout(api: Api, payout_id: str = "po_1") -> dict[str, Any]:
    return ok(api.get(f"/payouts/{payout_id}"))


def payout_count(api: Api) -> int:
    count: int = ok(api.post("/payouts/list", {"limit": 100}))["total_count"]
    return count


def settle(api: Api, payout_id: str, result: str) -> Any:
    return api.post(f"/__mock/payouts/{payout_id}/settle", {"result": result})


def payout_events(api: Api) -> list[tuple[str, str, str, str]]:
    """(event type, content type, object id, created) of the merchant's events, oldest first."""
    listed = ok(api.get("/__mock/events"))["data"]
    return [(e["event_type"], e["content_type"], e["object_id"], e["created"]) for e in reversed(listed)]


def payout_in(api: Api, status: str, payout_id: str = "po_1") -> dict[str, Any]:
    """Create a payout and move it to `status` through the API; return its body as last shown."""
    shown = _drive(api, status, payout_id)
    assert shown["status"] == status, shown
    return shown


def _drive(api: Api, status: str, payout_id: str) -> dict[str, Any]:
    if status == "requires_fulfillment":
        return create_payout(api, payout_id)
    if status == "pending":
        return create_payout(api, payout_id, auto_fulfill=True)
    if status == "cancelled":
        create_payout(api, payout_id)
        return ok(api.post(f"/payouts/{payout_id}/cancel"))
    if status in ("success", "failed"):
        payout_in(api, "pending", payout_id)
        return ok(settle(api, payout_id, status))
    if status == "reversed":
        payout_in(api, "success", payout_id)
        return ok(settle(api, payout_id, "reversed"))
    raise AssertionError(status)


# -- create ------------------------------------------------------------------------------------------


def test_create_with_every_field_keeps_them(api: Api, frozen: str) -> None:
    add_customer(api)

    response = api.post(
        "/payouts/create",
        {
            **CREATE,
            "payout_id": "po_1",
            "customer_id": CUSTOMER_ID,
            "description": "Weekly payout",
            "metadata": {"batch": "b1"},
            "auto_fulfill": False,
        },
    )

    assert response.status_code == 200
    assert response.json == payout_body(
        frozen, customer_id=CUSTOMER_ID, customer=ADA, description="Weekly payout", metadata={"batch": "b1"}
    )


def test_create_with_only_the_required_fields_generates_a_payout_id(api: Api, frozen: str) -> None:
    body = {
        **CREATE,
        "payout_method_data": {
            "bank": {"bank_account_number": "12345678", "bank_routing_number": "110000000"}
        },
    }

    response = api.post("/payouts/create", body)

    assert response.status_code == 200
    assert response.json == payout_body(
        frozen,
        GENERATED_PAYOUT_ID,
        payout_method_data={"bank": {"bank_account_number": "****5678", "bank_routing_number": "110000000"}},
    )


def test_create_with_auto_fulfill_answers_a_pending_payout(api: Api, frozen: str) -> None:
    response = api.post("/payouts/create", {**CREATE, "payout_id": "po_1", "auto_fulfill": True})

    assert response.status_code == 200
    assert response.json == payout_body(frozen, auto_fulfill=True, status="pending")


def test_create_with_a_repeated_payout_id_is_HE_01_and_leaves_the_first_alone(api: Api) -> None:
    created = create_payout(api)

    response = api.post("/payouts/create", {**CREATE, "payout_id": "po_1", "amount": 2000})

    assert response.status_code == 400
    assert response.json == DUPLICATE_PAYOUT
    assert get_payout(api) == created


def test_create_with_a_customer_id_of_no_customer_is_IR_04(api: Api) -> None:
    response = api.post("/payouts/create", {**CREATE, "customer_id": "cus_missing"})

    assert response.status_code == 400
    assert response.json == NO_SUCH_CUSTOMER


def _bank(**changes: Any) -> dict[str, Any]:
    """CREATE with the bank account changed; a value of None removes the field."""
    bank = {name: value for name, value in {**BANK, **changes}.items() if value is not None}
    return {**CREATE, "payout_method_data": {"bank": bank}}


def _without(name: str) -> dict[str, Any]:
    return {key: value for key, value in CREATE.items() if key != name}


ACCOUNT = "payout_method_data.bank.bank_account_number"
ROUTING = "payout_method_data.bank.bank_routing_number"

INVALID_CREATES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (_without("amount"), missing("amount")),
    (_without("currency"), missing("currency")),
    ({**CREATE, "payout_method_data": {}}, missing("payout_method_data.bank")),
    ({**_without("payout_type"), "payout_method_data": {}}, missing("payout_type")),
    (_bank(bank_account_number=None), missing(ACCOUNT)),
    (_bank(bank_routing_number=None), missing(ROUTING)),
    (_bank(bank_routing_number="12"), invalid(ROUTING, NO_PATTERN)),
    (_bank(bank_account_number="123"), invalid(ACCOUNT, NO_PATTERN)),
    (
        _bank(bank_country_code="USA"),
        invalid("payout_method_data.bank.bank_country_code", "not an ISO 3166 alpha-2 country code"),
    ),
    (_bank(bank_name=5), invalid("payout_method_data.bank.bank_name", "not a valid string")),
    (
        {**CREATE, "payout_method_data": {"bank": None}},  # null is as if not sent
        missing("payout_method_data.bank"),
    ),
    ({**CREATE, "payout_method_data": "bank"}, invalid("payout_method_data", "invalid input type")),
    ({**CREATE, "payout_type": "card"}, missing("payout_method_data.card")),
    (
        {**CREATE, "payout_type": "crypto"},
        invalid("payout_type", "must be one of: card, bank, wallet, bank_redirect"),
    ),
    ({**CREATE, "amount": 0}, invalid("amount", AMOUNT_RANGE)),
    ({**CREATE, "amount": "1000"}, invalid("amount", "not a valid integer")),
    ({**CREATE, "amount": True}, invalid("amount", "not a valid integer")),
    (
        {**CREATE, "currency": "ABC"},
        invalid("currency", "not an ISO 4217 currency code of money the service takes"),
    ),
    (
        {**CREATE, "payout_id": "list"},
        invalid("payout_id", "'list' names a route of its own: choose another id"),
    ),
    ({**CREATE, "payout_id": "p" * 65}, invalid("payout_id", NOT_A_RESOURCE_ID)),
    ({**CREATE, "customer_id": "cus 1"}, invalid("customer_id", NOT_A_RESOURCE_ID)),
    ({**CREATE, "description": "d" * 1001}, invalid("description", "longer than maximum length 1000")),
    ({**CREATE, "metadata": "batch"}, invalid("metadata", "not a valid mapping type")),
    ({**CREATE, "auto_fulfill": "yes"}, invalid("auto_fulfill", "not a valid boolean")),
]

MALFORMED_CREATES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({**CREATE, "payout_method": "bank"}, malformed("unknown field `payout_method`")),
    (_bank(swift_code="DEUTDEFF"), malformed("unknown field `payout_method_data.bank.swift_code`")),
    (
        {**CREATE, "payout_method_data": {"bank": BANK, "crypto": {}}},
        malformed("unknown field `payout_method_data.crypto`"),
    ),
]


@pytest.mark.parametrize(("body", "expected"), INVALID_CREATES, ids=[case_id(b) for b, _ in INVALID_CREATES])
def test_create_with_an_invalid_field_is_IR_04_naming_it(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = api.post("/payouts/create", body)

    assert response.status_code == 400
    assert response.json == expected


@pytest.mark.parametrize(
    ("body", "expected"), MALFORMED_CREATES, ids=[case_id(b) for b, _ in MALFORMED_CREATES]
)
def test_create_with_an_unknown_field_is_IR_06_naming_it(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = api.post("/payouts/create", body)

    assert response.status_code == 400
    assert response.json == expected


@pytest.mark.parametrize(
    ("data", "content_type", "expected"),
    [
        ("{", "application/json", malformed("unexpected end of data: line 1 column 2 (char 1)")),
        ("[1]", "application/json", malformed("expected a JSON object")),
        ('{"amount": 1000}', "text/plain", malformed("the Content-Type must be application/json")),
    ],
    ids=["not JSON", "not an object", "not a JSON content type"],
)
def test_create_with_a_body_that_is_not_a_json_object_is_IR_06(
    api: Api, data: str, content_type: str, expected: dict[str, Any]
) -> None:
    response = api.client.post(
        "/payouts/create", data=data, headers={"api-key": api.key, "Content-Type": content_type}
    )

    assert response.status_code == 400
    assert response.json == expected


@pytest.mark.parametrize(
    "body",
    [_bank(bank_routing_number="12"), {**CREATE, "customer_id": "cus_missing"}],
    ids=["invalid nested field", "no such customer"],
)
def test_a_refused_create_stores_nothing_and_emits_nothing(api: Api, body: dict[str, Any]) -> None:
    api.post("/payouts/create", {**body, "auto_fulfill": True})

    assert payout_count(api) == 0
    assert payout_events(api) == []


# -- retrieve ----------------------------------------------------------------------------------------


def test_retrieve_shows_the_payout(api: Api, frozen: str) -> None:
    create_payout(api)

    response = api.get("/payouts/po_1")

    assert response.status_code == 200
    assert response.json == payout_body(frozen)


def test_retrieve_of_an_unknown_payout_is_404_HE_02(api: Api) -> None:
    response = api.get("/payouts/po_missing")

    assert response.status_code == 404
    assert response.json == PAYOUT_NOT_FOUND


def test_delete_of_a_payout_is_a_wrong_method(api: Api) -> None:
    create_payout(api)

    response = api.delete("/payouts/po_1")

    assert response.status_code == 405
    assert response.json == error("IR_03", "The HTTP method is not applicable for this API")


# -- update ------------------------------------------------------------------------------------------


def test_update_changes_the_fields_sent(api: Api, frozen: str) -> None:
    add_customer(api)
    create_payout(api, description="old", metadata={"a": "1"})
    advance(api, 60)

    response = api.put(
        "/payouts/po_1",
        {
            "amount": 2500,
            "currency": "EUR",
            "customer_id": CUSTOMER_ID,
            "description": "new",
            "metadata": {"b": "2"},
        },
    )

    assert response.status_code == 200
    assert response.json == payout_body(
        frozen,
        amount=2500,
        currency="EUR",
        customer_id=CUSTOMER_ID,
        customer=ADA,
        description="new",
        metadata={"b": "2"},
    )
    assert get_payout(api) == response.json


def test_update_of_the_bank_account_shows_the_new_last_four(api: Api, frozen: str) -> None:
    create_payout(api)

    response = api.put(
        "/payouts/po_1",
        {
            "payout_method_data": {
                "bank": {"bank_account_number": "5555666677", "bank_routing_number": "021000021"}
            }
        },
    )

    assert response.status_code == 200
    assert response.json["payout_method_data"] == {
        "bank": {"bank_account_number": "****6677", "bank_routing_number": "021000021"}
    }


INVALID_UPDATES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"amount": 0}, invalid("amount", AMOUNT_RANGE)),
    ({"customer_id": "cus_missing"}, NO_SUCH_CUSTOMER),
    ({"metadata": ["a"]}, invalid("metadata", "not a valid mapping type")),
    ({"payout_method_data": {}}, missing("payout_method_data.bank")),
    (
        {"payout_method_data": {"bank": {"bank_account_number": "123456789", "bank_routing_number": "1"}}},
        invalid(ROUTING, NO_PATTERN),
    ),
    (
        {"payout_method_data": {"bank": {"bank_routing_number": "110000000"}}},
        missing(ACCOUNT),
    ),
    ({"payout_type": "card"}, missing("payout_method_data.card")),
    ({"payout_id": "po_2"}, malformed("unknown field `payout_id`")),
    ({"auto_fulfill": "yes"}, invalid("auto_fulfill", "not a valid boolean")),
]


@pytest.mark.parametrize(("body", "expected"), INVALID_UPDATES, ids=[case_id(b) for b, _ in INVALID_UPDATES])
def test_update_with_an_invalid_body_is_refused_naming_the_field_and_changes_nothing(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    created = create_payout(api)

    response = api.put("/payouts/po_1", body)

    assert response.status_code == 400
    assert response.json == expected
    assert get_payout(api) == created


@pytest.mark.parametrize("status", ["pending", "cancelled"])
def test_update_after_fulfilment_is_IR_14(api: Api, status: str) -> None:
    shown = payout_in(api, status)

    response = api.put("/payouts/po_1", {"amount": 2500})

    assert response.status_code == 400
    assert response.json == refused("updated", status)
    assert get_payout(api) == shown


def test_update_of_an_unknown_payout_is_404_HE_02(api: Api) -> None:
    response = api.put("/payouts/po_missing", {"amount": 2500})

    assert response.status_code == 404
    assert response.json == PAYOUT_NOT_FOUND


# -- cancel ------------------------------------------------------------------------------------------


def test_cancel_before_fulfilment_cancels(api: Api, frozen: str) -> None:
    create_payout(api)
    advance(api, 60)

    response = api.post("/payouts/po_1/cancel")

    assert response.status_code == 200
    assert response.json == payout_body(frozen, status="cancelled")


def test_cancel_with_an_empty_object_cancels(api: Api) -> None:
    create_payout(api)

    response = api.post("/payouts/po_1/cancel", {})

    assert response.status_code == 200
    assert response.json["status"] == "cancelled"


def test_cancel_with_a_field_is_IR_06(api: Api) -> None:
    created = create_payout(api)

    response = api.post("/payouts/po_1/cancel", {"cancellation_reason": "duplicate"})

    assert response.status_code == 400
    assert response.json == malformed("unknown field `cancellation_reason`")
    assert get_payout(api) == created


@pytest.mark.parametrize("status", ["pending", "failed"])
def test_cancel_after_fulfilment_is_IR_14(api: Api, status: str) -> None:
    shown = payout_in(api, status)

    response = api.post("/payouts/po_1/cancel")

    assert response.status_code == 400
    assert response.json == refused("cancelled", status)
    assert get_payout(api) == shown


def test_cancel_of_an_unknown_payout_is_404_HE_02(api: Api) -> None:
    response = api.post("/payouts/po_missing/cancel")

    assert response.status_code == 404
    assert response.json == PAYOUT_NOT_FOUND


# -- fulfil ------------------------------------------------------------------------------------------


def test_fulfil_answers_the_pending_payout(api: Api, frozen: str) -> None:
    create_payout(api)
    advance(api, 60)

    response = api.post("/payouts/po_1/fulfill")

    assert response.status_code == 200
    assert response.json == payout_body(frozen, status="pending")


def test_fulfil_with_a_field_is_IR_06(api: Api) -> None:
    created = create_payout(api)

    response = api.post("/payouts/po_1/fulfill", {"amount": 5})

    assert response.status_code == 400
    assert response.json == malformed("unknown field `amount`")
    assert get_payout(api) == created


def test_a_fulfilled_payout_succeeds_after_3600_seconds(api: Api, frozen: str) -> None:
    create_payout(api)
    ok(api.post("/payouts/po_1/fulfill"))

    advance(api, HOUR)

    assert get_payout(api) == payout_body(frozen, status="success")


def test_the_clock_advance_reports_the_payout_timer_it_fired(api: Api, frozen: str) -> None:
    create_payout(api)
    ok(api.post("/payouts/po_1/fulfill"))

    assert advance(api, HOUR)["timers_fired"] == [
        {"due_at": later(frozen, HOUR), "kind": "payout.settle", "target_id": "po_1"}
    ]


@pytest.mark.parametrize("status", ["pending", "cancelled"])
def test_fulfil_after_fulfilment_is_IR_14(api: Api, status: str) -> None:
    shown = payout_in(api, status)

    response = api.post("/payouts/po_1/fulfill")

    assert response.status_code == 400
    assert response.json == refused("fulfilled", status)
    assert get_payout(api) == shown


def test_fulfil_of_an_unknown_payout_is_404_HE_02(api: Api) -> None:
    response = api.post("/payouts/po_missing/fulfill")

    assert response.status_code == 404
    assert response.json == PAYOUT_NOT_FOUND


def test_a_payout_to_the_closed_account_fails_after_3600_seconds_as_account_closed(
    api: Api, frozen: str
) -> None:
    create_payout(api, payout_method_data=closed_bank())
    ok(api.post("/payouts/po_1/fulfill"))

    advance(api, HOUR)

    assert get_payout(api) == payout_body(
        frozen,
        status="failed",
        payout_method_data={"bank": {**BANK, "bank_account_number": "****1116"}},
        error_code="account_closed",
        error_message="The bank account is closed.",
    )


def test_the_closed_account_rule_is_in_the_outcome_table(api: Api) -> None:
    rules = ok(api.get("/__mock/outcomes"))["rules"]

    assert {
        "name": "payout to a closed bank account",
        "match": {"payment_method": "payout", "fields_contain": {"bank.bank_account_number": CLOSED_ACCOUNT}},
        "outcome": {
            "result": "decline",
            "error_code": "account_closed",
            "error_message": "The bank account is closed.",
        },
    } in rules


def test_a_payout_rule_put_in_the_outcome_table_decides_payouts(api: Api, frozen: str) -> None:
    ok(
        api.put(
            "/__mock/outcomes",
            {
                "rules": [
                    {
                        "match": {"payment_method": "payout", "fields_contain": {"bank.bank_name": "Frozen"}},
                        "outcome": {
                            "result": "decline",
                            "error_code": "account_frozen",
                            "error_message": "Frozen.",
                        },
                    }
                ]
            },
        )
    )
    create_payout(api, payout_method_data={"bank": {**BANK, "bank_name": "Frozen Bank"}}, auto_fulfill=True)

    advance(api, HOUR)

    shown = get_payout(api)
    assert (shown["status"], shown["error_code"], shown["error_message"]) == (
        "failed",
        "account_frozen",
        "Frozen.",
    )


# -- list --------------------------------------------------------------------------------------------


@pytest.fixture
def three_payouts(api: Api, frozen: str) -> dict[str, dict[str, Any]]:
    """po_a (USD, cus_1, success) at the frozen time, po_b (EUR, pending) 60 s later, po_c (USD,
    cus_1, requires_fulfillment) 120 s later; returns them as GET shows them."""
    add_customer(api)
    create_payout(api, "po_a", customer_id=CUSTOMER_ID, auto_fulfill=True)
    ok(settle(api, "po_a", "success"))
    advance(api, 60)
    create_payout(api, "po_b", currency="EUR", auto_fulfill=True)
    advance(api, 60)
    create_payout(api, "po_c", customer_id=CUSTOMER_ID)
    return {payout_id: get_payout(api, payout_id) for payout_id in ("po_a", "po_b", "po_c")}


def test_list_answers_count_total_count_and_data(api: Api, three_payouts: dict[str, dict[str, Any]]) -> None:
    response = api.post("/payouts/list", {})

    assert response.status_code == 200
    assert response.json == {
        "count": 3,
        "size": 3,
        "total_count": 3,
        "has_more": False,
        "data": [three_payouts["po_c"], three_payouts["po_b"], three_payouts["po_a"]],
    }


@pytest.mark.usefixtures("three_payouts")
@pytest.mark.parametrize("method", ["post", "get"])
def test_a_page_of_the_list_says_whether_more_follow(api: Api, method: str) -> None:
    def page(offset: int) -> Any:
        if method == "post":
            return api.post("/payouts/list", {"limit": 2, "offset": offset})
        return api.get(f"/payouts/list?limit=2&offset={offset}")

    first, last = page(0), page(2)

    assert (first.status_code, last.status_code) == (200, 200)
    assert [p["payout_id"] for p in first.json["data"]] == ["po_c", "po_b"]
    assert (first.json["count"], first.json["total_count"], first.json["has_more"]) == (2, 3, True)
    assert [p["payout_id"] for p in last.json["data"]] == ["po_a"]
    assert (last.json["count"], last.json["total_count"], last.json["has_more"]) == (1, 3, False)


@pytest.mark.usefixtures("three_payouts")
def test_list_without_a_body_lists_everything(api: Api) -> None:
    response = api.post("/payouts/list")

    assert response.status_code == 200
    assert [p["payout_id"] for p in response.json["data"]] == ["po_c", "po_b", "po_a"]


def test_list_of_a_merchant_without_payouts_is_empty(api: Api) -> None:
    response = api.post("/payouts/list", {})

    assert response.status_code == 200
    assert response.json == {"count": 0, "size": 0, "total_count": 0, "has_more": False, "data": []}


LIST_FILTERS: list[tuple[dict[str, Any], list[str], int]] = [
    ({"status": "success"}, ["po_a"], 1),
    ({"status": "failed"}, [], 0),
    ({"customer_id": CUSTOMER_ID}, ["po_c", "po_a"], 2),
    ({"currency": "USD"}, ["po_c", "po_a"], 2),
    ({"currency": "USD", "status": "success"}, ["po_a"], 1),
    ({"created_gte": 60}, ["po_c", "po_b"], 2),
    ({"created_gte": 60, "created_lte": 60}, ["po_b"], 1),
    ({"limit": 2, "offset": 1}, ["po_b", "po_a"], 3),
    ({"currency": "USD", "limit": 1, "offset": 1}, ["po_a"], 2),
    # The real service's filters.
    ({"status": ["success", "pending"]}, ["po_b", "po_a"], 2),
    ({"status": []}, ["po_c", "po_b", "po_a"], 3),
    ({"start_time": 60}, ["po_c", "po_b"], 2),
    ({"start_time": 0, "end_time": 60}, ["po_b", "po_a"], 2),
    ({"start_time": 60, "created_lte": 60}, ["po_b"], 1),
    ({"payout_id": "po_b"}, ["po_b"], 1),
    ({"profile_id": PROFILE_ID, "entity_type": "Individual"}, ["po_c", "po_b", "po_a"], 3),
    ({"entity_type": "Company"}, [], 0),
    ({"payout_method": ["bank"]}, ["po_c", "po_b", "po_a"], 3),
    ({"payout_method": ["card", "wallet"]}, [], 0),
    ({"connector": ["mocksrv"], "currency": "EUR"}, ["po_b"], 1),
    ({"connector": ["adyen"]}, [], 0),
]


@pytest.mark.parametrize(("filters", "ids", "total"), LIST_FILTERS, ids=[case_id(f[0]) for f in LIST_FILTERS])
@pytest.mark.usefixtures("three_payouts")
def test_list_filters_and_pages(
    api: Api, frozen: str, filters: dict[str, Any], ids: list[str], total: int
) -> None:
    response = api.post("/payouts/list", at_offsets(frozen, filters))

    assert response.status_code == 200
    assert (response.json["count"], response.json["total_count"]) == (len(ids), total)
    assert [p["payout_id"] for p in response.json["data"]] == ids


GET_LIST_FILTERS: list[tuple[dict[str, Any], list[str], int]] = [
    ({}, ["po_c", "po_b", "po_a"], 3),
    ({"customer_id": CUSTOMER_ID, "limit": 1}, ["po_c"], 2),
    ({"created_gte": 60}, ["po_c", "po_b"], 2),
    ({"created_gt": 59, "created_lt": 61}, ["po_b"], 1),
    ({"starting_after": "po_c"}, ["po_b", "po_a"], 2),
    ({"ending_before": "po_a", "limit": 1}, ["po_b"], 2),
    ({"offset": 2, "time_range": "ignored, as an unknown parameter is"}, ["po_a"], 3),
]


@pytest.mark.parametrize(
    ("filters", "ids", "total"), GET_LIST_FILTERS, ids=[case_id(f[0]) for f in GET_LIST_FILTERS]
)
@pytest.mark.usefixtures("three_payouts")
def test_the_list_is_also_read_with_get_and_a_query_string(
    api: Api, frozen: str, filters: dict[str, Any], ids: list[str], total: int
) -> None:
    response = api.get("/payouts/list", query_string=at_offsets(frozen, filters))

    assert response.status_code == 200
    assert (response.json["size"], response.json["total_count"]) == (len(ids), total)
    assert [p["payout_id"] for p in response.json["data"]] == ids


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"starting_after": "po_missing"}, invalid("starting_after", "no such payout")),
        ({"limit": "0"}, invalid("limit", LIMIT_RANGE)),
        ({"created_gte": "yesterday"}, invalid("created_gte", "not a valid ISO 8601 timestamp")),
    ],
    ids=["unknown cursor", "limit", "time"],
)
def test_a_bad_list_query_is_ir_04(api: Api, query: dict[str, str], expected: dict[str, Any]) -> None:
    response = api.get("/payouts/list", query_string=query)

    assert response.status_code == 400
    assert response.json == expected


@pytest.mark.usefixtures("three_payouts")
def test_filter_names_what_the_payouts_of_a_time_range_hold(api: Api, frozen: str) -> None:
    everything = ok(api.post("/payouts/filter", {"start_time": frozen}))
    first_minute = ok(api.post("/payouts/filter", at_offsets(frozen, {"start_time": 0, "end_time": 59})))

    assert everything == {
        "connector": ["mocksrv"],
        "currency": ["EUR", "USD"],
        "status": ["pending", "requires_fulfillment", "success"],
        "payout_method": ["bank"],
    }
    assert first_minute == {
        "connector": ["mocksrv"],
        "currency": ["USD"],
        "status": ["success"],
        "payout_method": ["bank"],
    }
    later_on = at_offsets(frozen, {"start_time": 3600, "end_time": 7200})
    assert ok(api.post("/payouts/filter", later_on)) == {
        "connector": [],
        "currency": [],
        "status": [],
        "payout_method": [],
    }


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("start_time")),
        ({"start_time": 60, "end_time": 0}, invalid("end_time", "is before start_time")),
        ({"start_time": 0, "status": "success"}, malformed("unknown field `status`")),
        ({"start_time": 3600}, invalid("end_time", "is before start_time")),  # the end is now: 120 s
    ],
    ids=["no start", "end before start", "unknown field", "start after now"],
)
def test_a_bad_time_range_is_ir_04(
    api: Api, frozen: str, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = api.post("/payouts/filter", at_offsets(frozen, body))

    assert response.status_code == 400
    assert response.json == expected


def test_list_default_limit_is_ten(api: Api) -> None:
    for index in range(11):
        create_payout(api, f"po_{index:02d}")

    response = api.post("/payouts/list", {})

    assert (response.json["count"], response.json["total_count"]) == (10, 11)


INVALID_FILTERS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"limit": 0}, invalid("limit", LIMIT_RANGE)),
    ({"offset": -1}, invalid("offset", "must be greater than or equal to 0")),
    ({"status": "paid"}, invalid("status", f"paid: must be one of: {STATUSES}")),
    ({"status": ["success", "paid"]}, invalid("status", f"paid: must be one of: {STATUSES}")),
    ({"status": 1}, invalid("status", "not a valid string or list of strings")),
    (
        {"payout_method": ["cash"]},
        invalid("payout_method.0", "must be one of: card, bank, wallet, bank_redirect"),
    ),
    ({"created_gte": "yesterday"}, invalid("created_gte", "not a valid ISO 8601 timestamp")),
    ({"payout_ids": "po_1"}, malformed("unknown field `payout_ids`")),
]


@pytest.mark.parametrize(
    ("filters", "expected"), INVALID_FILTERS, ids=[case_id(f) for f, _ in INVALID_FILTERS]
)
def test_list_with_an_invalid_filter_is_refused_naming_it(
    api: Api, filters: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = api.post("/payouts/list", filters)

    assert response.status_code == 400
    assert response.json == expected


# -- settle and reverse through the control plane ----------------------------------------------------


def test_settle_success_turns_a_pending_payout_successful(api: Api, frozen: str) -> None:
    payout_in(api, "pending")
    advance(api, 60)

    response = settle(api, "po_1", "success")

    assert response.status_code == 200
    assert response.json == payout_body(frozen, auto_fulfill=True, status="success")


def test_settle_failed_turns_a_pending_payout_failed_with_the_generic_error(api: Api, frozen: str) -> None:
    payout_in(api, "pending")

    response = settle(api, "po_1", "failed")

    assert response.status_code == 200
    assert response.json == payout_body(
        frozen,
        auto_fulfill=True,
        status="failed",
        error_code="payout_failed",
        error_message="The payout was declined by the bank",
    )


def test_settle_reversed_reverses_a_successful_payout(api: Api, frozen: str) -> None:
    payout_in(api, "success")

    response = settle(api, "po_1", "reversed")

    assert response.status_code == 200
    assert response.json == payout_body(frozen, auto_fulfill=True, status="reversed")


@pytest.mark.parametrize(
    ("status", "result"),
    [
        ("requires_fulfillment", "success"),
        ("success", "failed"),
    ],
)
def test_settle_of_a_payout_that_is_not_pending_is_IR_14(api: Api, status: str, result: str) -> None:
    shown = payout_in(api, status)

    response = settle(api, "po_1", result)

    assert response.status_code == 400
    assert response.json == refused("settled", status, "initiated, pending")
    assert get_payout(api) == shown


@pytest.mark.parametrize("status", ["pending", "failed"])
def test_reversing_a_payout_that_did_not_succeed_is_IR_14(api: Api, status: str) -> None:
    shown = payout_in(api, status)

    response = settle(api, "po_1", "reversed")

    assert response.status_code == 400
    assert response.json == refused("reversed", status, "success")
    assert get_payout(api) == shown


def test_settle_of_an_unknown_payout_is_404_HE_02(api: Api) -> None:
    response = settle(api, "po_missing", "success")

    assert response.status_code == 404
    assert response.json == PAYOUT_NOT_FOUND


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("result")),
        ({"result": "succeeded"}, invalid("result", "must be one of: success, failed, reversed")),
        ({"result": "won"}, invalid("result", "must be one of: success, failed, reversed")),
        ({"result": "success", "amount": 5}, malformed("unknown field `amount`")),
    ],
    ids=case_id,
)
def test_settle_with_an_invalid_body_is_refused(
    api: Api, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    shown = payout_in(api, "pending")

    response = api.post("/__mock/payouts/po_1/settle", body)

    assert response.status_code == 400
    assert response.json == expected
    assert get_payout(api) == shown


def test_settle_with_the_admin_key_names_the_merchant(api: Api, admin: Api) -> None:
    payout_in(api, "pending")

    response = admin.post(f"/__mock/payouts/po_1/settle?merchant_id={MERCHANT_ID}", {"result": "success"})

    assert response.status_code == 200
    assert response.json["status"] == "success"


def test_settle_with_another_merchants_key_is_404(api: Api, other_merchant: OtherMerchant) -> None:
    shown = payout_in(api, "pending")

    response = settle(other_merchant.api, "po_1", "success")

    assert response.status_code == 404
    assert response.json == PAYOUT_NOT_FOUND
    assert get_payout(api) == shown


def test_settle_without_a_key_is_401(api: Api, client: FlaskClient) -> None:
    payout_in(api, "pending")

    response = client.post("/__mock/payouts/po_1/settle", json={"result": "success"})

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


def test_settle_with_the_publishable_key_is_401(api: Api) -> None:
    payout_in(api, "pending")

    response = settle(api.as_key(PUBLISHABLE_KEY), "po_1", "success")

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)
    assert get_payout(api)["status"] == "pending"


# -- events ------------------------------------------------------------------------------------------


def test_each_payout_step_is_listed_as_a_payout_details_event(api: Api, frozen: str) -> None:
    create_payout(api, "po_1")
    create_payout(api, "po_2", payout_method_data=closed_bank())
    create_payout(api, "po_3")
    ok(api.post("/payouts/po_1/fulfill"))
    ok(api.post("/payouts/po_2/fulfill"))
    ok(api.post("/payouts/po_3/cancel"))
    advance(api, HOUR)
    ok(settle(api, "po_1", "reversed"))

    assert payout_events(api) == [
        ("payout_initiated", "payout_details", "po_1", frozen),
        ("payout_initiated", "payout_details", "po_2", frozen),
        ("payout_cancelled", "payout_details", "po_3", frozen),
        ("payout_success", "payout_details", "po_1", later(frozen, HOUR)),
        ("payout_failed", "payout_details", "po_2", later(frozen, HOUR)),
        ("payout_reversed", "payout_details", "po_1", later(frozen, HOUR)),
    ]


# -- merchants and keys ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/payouts/po_1", None),
        ("put", "/payouts/po_1", {"amount": 2500}),
        ("post", "/payouts/po_1/cancel", None),
        ("post", "/payouts/po_1/fulfill", None),
    ],
    ids=["retrieve", "update", "cancel", "fulfill"],
)
def test_another_merchant_gets_404_for_the_payout(
    api: Api, other_merchant: OtherMerchant, method: str, path: str, body: dict[str, Any] | None
) -> None:
    created = create_payout(api)

    response = (
        getattr(other_merchant.api, method)(path, body) if body else getattr(other_merchant.api, method)(path)
    )

    assert response.status_code == 404
    assert response.json == PAYOUT_NOT_FOUND
    assert get_payout(api) == created


def test_another_merchant_does_not_list_the_payout(api: Api, other_merchant: OtherMerchant) -> None:
    create_payout(api)

    response = other_merchant.api.post("/payouts/list", {})

    assert response.status_code == 200
    assert response.json == {"count": 0, "size": 0, "total_count": 0, "has_more": False, "data": []}


def test_another_merchant_may_use_the_same_payout_id(api: Api, other_merchant: OtherMerchant) -> None:
    create_payout(api)

    response = other_merchant.api.post("/payouts/create", {**CREATE, "payout_id": "po_1"})

    assert response.status_code == 200
    assert (response.json["merchant_id"], response.json["profile_id"]) == (
        other_merchant.merchant_id,
        other_merchant.credentials["profile_id"],
    )


def test_another_merchants_customer_is_no_customer_for_a_payout(
    api: Api, other_merchant: OtherMerchant
) -> None:
    ok(other_merchant.api.post("/customers", {"customer_id": "cus_theirs"}))

    response = api.post("/payouts/create", {**CREATE, "customer_id": "cus_theirs"})

    assert response.status_code == 400
    assert response.json == NO_SUCH_CUSTOMER


ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("post", "/payouts/create", CREATE),
    ("post", "/payouts/list", {}),
    ("get", "/payouts/po_1", None),
    ("put", "/payouts/po_1", {"amount": 2500}),
    ("post", "/payouts/po_1/cancel", {}),
    ("post", "/payouts/po_1/fulfill", {}),
]
ROUTE_IDS = ["create", "list", "retrieve", "update", "cancel", "fulfill"]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=ROUTE_IDS)
def test_no_key_is_401_on_every_payout_route(
    api: Api, client: FlaskClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    created = create_payout(api)

    response = getattr(client, method)(path, json=body)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)
    assert get_payout(api) == created


@pytest.mark.parametrize(
    ("key", "index"),
    [(PUBLISHABLE_KEY, 0), (PUBLISHABLE_KEY, 1), (ADMIN_KEY, 5), ("snd_not_a_key", 3)],
    ids=["publishable key, create", "publishable key, list", "admin key, fulfill", "unknown key, update"],
)
def test_a_key_that_is_not_the_merchants_secret_key_is_401_for_payouts(
    api: Api, key: str, index: int
) -> None:
    created = create_payout(api)
    method, path, body = ROUTES[index]

    response = getattr(api.client, method)(path, json=body, headers={"api-key": key})

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)
    assert get_payout(api) == created
    assert payout_count(api) == 1


# -- the control plane: table and reset --------------------------------------------------------------


def test_the_control_plane_lists_the_whole_payout_transition_table(api: Api) -> None:
    response = api.get("/__mock/transitions")

    assert response.status_code == 200
    assert response.json["payout"] == [
        {
            "from": "requires_fulfillment",
            "event": "update.details",
            "to": "requires_fulfillment",
            "emits": None,
        },
        {
            "from": "requires_fulfillment",
            "event": "confirm.details",
            "to": "requires_fulfillment",
            "emits": None,
        },
        {
            "from": "requires_fulfillment",
            "event": "fulfill.start",
            "to": "pending",
            "emits": "payout_initiated",
        },
        {"from": "initiated", "event": "settle.success", "to": "success", "emits": "payout_success"},
        {"from": "pending", "event": "settle.success", "to": "success", "emits": "payout_success"},
        {"from": "initiated", "event": "settle.failed", "to": "failed", "emits": "payout_failed"},
        {"from": "pending", "event": "settle.failed", "to": "failed", "emits": "payout_failed"},
        {
            "from": "requires_fulfillment",
            "event": "cancel.release",
            "to": "cancelled",
            "emits": "payout_cancelled",
        },
        {"from": "success", "event": "reverse.return", "to": "reversed", "emits": "payout_reversed"},
    ]


def test_reset_deletes_the_merchants_payouts(api: Api) -> None:
    create_payout(api)

    ok(api.post("/__mock/reset"))

    assert api.get("/payouts/po_1").json == PAYOUT_NOT_FOUND
    assert payout_count(api) == 0


def test_reset_drops_the_timer_of_a_pending_payout(api: Api) -> None:
    payout_in(api, "pending")

    ok(api.post("/__mock/reset"))

    assert advance(api, HOUR)["timers_fired"] == []


def test_the_create_body_of_the_spec_with_a_bank_account_is_accepted(api: Api, frozen: str) -> None:
    """Spec 4.5: amount, currency, customer_id, payout_type "bank", description, metadata."""
    add_customer(api)
    body = {
        "amount": 1000,
        "currency": "USD",
        "customer_id": CUSTOMER_ID,
        "payout_type": "bank",
        "description": "Its my first payout request",
        "metadata": {"ref": "123"},
        "payout_method_data": {"bank": BANK},
    }

    response = api.post("/payouts/create", body)

    assert response.status_code == 200
    assert response.json == payout_body(
        frozen,
        GENERATED_PAYOUT_ID,
        customer_id=CUSTOMER_ID,
        customer=ADA,
        description="Its my first payout request",
        metadata={"ref": "123"},
    )
