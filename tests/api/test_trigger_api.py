"""POST /__mock/trigger: every event type made to happen to a merchant's new objects."""

from __future__ import annotations

from typing import Any

import pytest

from mocksrv.domain.controls.triggers import RECIPES
from mocksrv.domain.events import EventType
from tests.api.expected import UNAUTHORIZED, error
from tests.api.scenarios import ok
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

pytestmark = pytest.mark.usefixtures("frozen")

# The object an event of each content type reports, and the ids a trigger answers.
OBJECT_FIELD = {
    "payment": "payment_id",
    "action": "payment_id",
    "refund": "refund_id",
    "dispute": "dispute_id",
    "payout": "payout_id",
    "mandate": "mandate_id",
}


def object_field(event_type: str) -> str:
    return OBJECT_FIELD[event_type.partition("_")[0]]


def events_of(api: Api) -> list[dict[str, Any]]:
    return ok(api.get("/__mock/events?limit=100"))["data"]


@pytest.mark.parametrize("event_type", sorted(RECIPES))
def test_a_trigger_makes_its_event_happen(api: Api, event_type: str) -> None:
    response = api.post("/__mock/trigger", {"event_type": event_type})

    assert response.status_code == 200
    answer = response.json
    assert answer["event_type"] == event_type
    assert answer["object_id"] == answer["objects"][object_field(event_type)]
    made = [(e["event_id"], e["event_type"]) for e in events_of(api)]
    assert (answer["event_id"], event_type) in made


def test_a_payment_event_s_object_is_the_payment_in_the_state_it_names(api: Api) -> None:
    answer = ok(api.post("/__mock/trigger", {"event_type": "dispute_lost"}))

    dispute = ok(api.get(f"/disputes/{answer['objects']['dispute_id']}"))
    payment = ok(api.get(f"/payments/{answer['objects']['payment_id']}"))
    assert (dispute["dispute_status"], dispute["payment_id"]) == ("dispute_lost", payment["payment_id"])


def test_the_admin_names_the_merchant(admin: Api, api: Api) -> None:
    answer = ok(
        admin.post("/__mock/trigger", {"event_type": "payment_succeeded", "merchant_id": MERCHANT_ID})
    )

    assert ok(api.get(f"/payments/{answer['object_id']}"))["status"] == "succeeded"


def test_the_admin_must_name_an_existing_merchant(admin: Api) -> None:
    response = admin.post("/__mock/trigger", {"event_type": "payment_succeeded", "merchant_id": "merchant_x"})

    assert response.status_code == 404
    assert response.json["error"]["code"] == "HE_02"


def test_an_unknown_event_type_is_refused(api: Api) -> None:
    response = api.post("/__mock/trigger", {"event_type": "payment_teleported"})

    assert response.status_code == 400
    assert response.json["error"]["param"] == "event_type"
    assert events_of(api) == []


@pytest.mark.parametrize(
    ("event_type", "card"),
    # A failure, and a dispute's event, whose dispute card no longer opens one on its way.
    [("payment_failed", "4000000000000002"), ("dispute_won", "4000000000000259")],
)
def test_an_outcome_table_that_leads_elsewhere_is_refused_before_anything_is_made(
    api: Api, event_type: str, card: str
) -> None:
    ok(api.put("/__mock/outcomes", {"rules": [{"match": {}, "outcome": {"result": "success"}}]}))

    response = api.post("/__mock/trigger", {"event_type": event_type})

    assert response.status_code == 400
    assert response.json["error"]["message"] == (
        f"Invalid value provided: event_type: the merchant's outcome table takes card {card} elsewhere than "
        "the default does: nothing was made"
    )
    assert ok(api.get("/payments/list"))["data"] == []
    assert events_of(api) == []


@pytest.mark.parametrize(
    ("event_type", "result"),
    [
        ("payout_success", "decline"),
        ("payout_initiated", "decline"),
        ("payout_reversed", "decline"),
        ("payout_failed", "success"),
    ],
)
def test_a_payout_the_outcome_table_leads_elsewhere_is_refused_before_anything_is_made(
    api: Api, event_type: str, result: str
) -> None:
    ok(api.put("/__mock/outcomes", {"rules": [{"match": {}, "outcome": {"result": result}}]}))
    account = "000111111116" if event_type == "payout_failed" else "123456789012"

    response = api.post("/__mock/trigger", {"event_type": event_type})

    assert response.status_code == 400
    assert response.json["error"]["message"] == (
        "Invalid value provided: event_type: the merchant's outcome table takes a payout to account "
        f"{account} elsewhere than the default does: nothing was made"
    )
    assert ok(api.post("/payouts/list", {}))["data"] == []
    assert events_of(api) == []


def test_an_outcome_table_that_declines_every_card_lets_an_unconfirmed_payment_be_cancelled(api: Api) -> None:
    ok(api.put("/__mock/outcomes", {"rules": [{"match": {}, "outcome": {"result": "decline"}}]}))

    answer = ok(api.post("/__mock/trigger", {"event_type": "payment_cancelled"}))

    assert ok(api.get(f"/payments/{answer['object_id']}"))["status"] == "cancelled"


def test_an_outcome_table_that_changes_only_words_lets_the_event_happen(api: Api) -> None:
    rule = {
        "match": {"card_number": ["4000000000000002"]},
        "outcome": {"result": "decline", "error_code": "do_not_honor"},
    }
    ok(api.put("/__mock/outcomes", {"rules": [rule]}))

    answer = ok(api.post("/__mock/trigger", {"event_type": "payment_failed"}))

    assert ok(api.get(f"/payments/{answer['object_id']}"))["error_code"] == "do_not_honor"


def test_a_recipe_whose_waits_pass_the_clocks_end_is_refused_before_anything_is_made(api: Api) -> None:
    ok(api.post("/__mock/clock/set", {"now": "8999-12-31T12:00:00Z"}))

    response = api.post("/__mock/trigger", {"event_type": "dispute_expired"})

    assert response.status_code == 400
    assert response.json["error"]["message"] == (
        "Invalid value provided: event_type: dispute_expired moves the mock clock 604800 seconds forward, "
        "past its end (9000-01-01T00:00:00.000Z)"
    )
    assert ok(api.get("/payments/list"))["data"] == []
    assert events_of(api) == []


def test_a_recipe_that_waits_for_nothing_happens_however_near_the_clocks_end(api: Api) -> None:
    ok(api.post("/__mock/clock/set", {"now": "8999-12-31T12:00:00Z"}))

    assert (
        ok(api.post("/__mock/trigger", {"event_type": "payment_succeeded"}))["event_type"]
        == "payment_succeeded"
    )


def test_the_publishable_key_cannot_trigger(browser: Api) -> None:
    response = browser.post("/__mock/trigger", {"event_type": "payment_succeeded"})

    assert (response.status_code, response.json) == (401, error("IR_01", UNAUTHORIZED))


def test_every_event_type_of_the_webhooks_has_a_recipe() -> None:
    assert sorted(RECIPES) == sorted(t.value for t in EventType)
