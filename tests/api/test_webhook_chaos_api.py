"""Webhook chaos on the control plane: /__mock/webhooks/chaos sets, reads and clears it; reset clears it.

The test client runs no dispatcher: deliveries are driven by hand, as the dispatcher drives them.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import orjson
import pytest

from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.webhooks import AttemptResult
from tests.api.conftest import OtherMerchant
from tests.api.expected import error, invalid, malformed, missing
from tests.api.scenarios import create, ok
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

CHAOS = "/__mock/webhooks/chaos"
HOOK_URL = "http://127.0.0.1:9/webhooks"  # never contacted
MERCHANT_NOT_FOUND = error("HE_02", "Merchant does not exist in our records")
RANGE_OF_DELAY = "must be greater than or equal to 0 and less than or equal to 2592000"
RANGE_OF_SEED = "must be greater than or equal to 0 and less than or equal to 9223372036854775807"


def setting(merchant_id: str = MERCHANT_ID, held: int = 0, **changes: Any) -> dict[str, Any]:
    """The chaos answer: no chaos, with `changes`."""
    answer = {"duplicate": False, "out_of_order": False, "delay_seconds": 0, "seed": None, **changes}
    return {"merchant_id": merchant_id, **answer, "held": held}


def later(moment: str, seconds: int) -> str:
    shifted = datetime.fromisoformat(moment) + timedelta(seconds=seconds)
    return shifted.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.fixture
def hooked(api: Api, frozen: str) -> str:
    ok(api.put("/__mock/webhook_url", {"webhook_url": HOOK_URL}))
    return frozen


def deliver(sandbox: Sandbox, status_code: int = 200) -> int:
    """Make the next queued attempt as the dispatcher does, a duplicate it asks for included; how many
    attempts were made."""
    task = sandbox.webhooks.next_task(0)
    assert task is not None, "no delivery was queued"
    body = orjson.dumps({"event_id": task.event.event_id})
    made = 0
    while task is not None:
        recorded = sandbox.webhooks.record(task, body, AttemptResult(HOOK_URL, status_code, 5.0))
        made += 1
        follow_up = sandbox.webhooks.follow_up(task, body, recorded)
        if follow_up is None:
            sandbox.webhooks.finish(task)
        task = follow_up
    return made


# -- set, read, clear -----------------------------------------------------------------------------


def test_no_chaos_is_set_at_first(api: Api) -> None:
    assert ok(api.get(CHAOS)) == setting()


def test_put_sets_the_chaos_and_get_reads_it_back(api: Api) -> None:
    body = {"duplicate": True, "out_of_order": True, "delay_seconds": 30, "seed": 7}

    answer = ok(api.put(CHAOS, body))

    assert answer == setting(**body)
    assert ok(api.get(CHAOS)) == answer


def test_put_replaces_the_whole_setting_and_a_field_left_out_is_off(api: Api) -> None:
    ok(api.put(CHAOS, {"duplicate": True, "out_of_order": True, "delay_seconds": 30, "seed": 7}))

    answer = ok(api.put(CHAOS, {"delay_seconds": 5}))

    assert answer == setting(delay_seconds=5)


def test_null_is_as_if_the_field_were_left_out(api: Api) -> None:
    body = {"duplicate": None, "out_of_order": None, "delay_seconds": None, "seed": None}

    assert ok(api.put(CHAOS, body)) == setting()


def test_delete_clears_the_chaos(api: Api) -> None:
    ok(api.put(CHAOS, {"duplicate": True}))

    answer = ok(api.delete(CHAOS))

    assert answer == setting()
    assert ok(api.get(CHAOS)) == setting()


def test_the_admin_key_acts_on_the_merchant_it_names(admin: Api, api: Api) -> None:
    answer = ok(admin.put(CHAOS, {"merchant_id": MERCHANT_ID, "duplicate": True}))

    assert answer == setting(duplicate=True)
    assert ok(api.get(CHAOS)) == setting(duplicate=True)
    assert ok(admin.delete(f"{CHAOS}?merchant_id={MERCHANT_ID}")) == setting()


def test_a_merchants_chaos_leaves_another_alone(api: Api, other_merchant: OtherMerchant) -> None:
    ok(api.put(CHAOS, {"duplicate": True}))

    assert ok(other_merchant.api.get(CHAOS)) == setting("merchant_other")


# -- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"duplicate": "yes"}, invalid("duplicate", "not a valid boolean")),
        ({"duplicate": 1}, invalid("duplicate", "not a valid boolean")),
        ({"out_of_order": "true"}, invalid("out_of_order", "not a valid boolean")),
        ({"delay_seconds": -1}, invalid("delay_seconds", RANGE_OF_DELAY)),
        ({"delay_seconds": 30 * 24 * 3600 + 1}, invalid("delay_seconds", RANGE_OF_DELAY)),
        ({"delay_seconds": 1.5}, invalid("delay_seconds", "not a valid integer")),
        ({"delay_seconds": "30"}, invalid("delay_seconds", "not a valid integer")),
        ({"delay_seconds": True}, invalid("delay_seconds", "not a valid integer")),
        ({"seed": "7"}, invalid("seed", "not a valid integer")),
        ({"seed": -1}, invalid("seed", RANGE_OF_SEED)),
        ({"seed": 2**63}, invalid("seed", RANGE_OF_SEED)),
        ({"delay": 30}, malformed("unknown field `delay`")),
        ([{"duplicate": True}], malformed("expected a JSON object")),
    ],
)
def test_an_invalid_setting_is_refused_and_changes_nothing(api: Api, body: Any, expected: Any) -> None:
    ok(api.put(CHAOS, {"duplicate": True}))

    response = api.put(CHAOS, body)

    assert (response.status_code, response.json) == (400, expected)
    assert ok(api.get(CHAOS)) == setting(duplicate=True)


def test_a_body_that_is_not_json_is_refused(api: Api) -> None:
    response = api.client.put(
        CHAOS, data="{", headers={"api-key": api.key, "Content-Type": "application/json"}
    )

    assert (response.status_code, response.json) == (
        400,
        malformed("unexpected end of data: line 1 column 2 (char 1)"),
    )


def test_an_unknown_query_parameter_is_refused(api: Api) -> None:
    response = api.get(f"{CHAOS}?seed=7")

    assert (response.status_code, response.json) == (400, malformed("unknown field `seed`"))


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_the_admin_key_must_name_a_merchant(admin: Api, method: str) -> None:
    response = admin.client.open(CHAOS, method=method, headers={"api-key": admin.key})

    assert (response.status_code, response.json) == (400, missing("merchant_id"))


def test_the_admin_key_naming_no_merchant_in_a_put_is_refused(admin: Api) -> None:
    response = admin.put(CHAOS, {"duplicate": True})

    assert (response.status_code, response.json) == (400, missing("merchant_id"))


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_an_unknown_merchant_is_not_found(admin: Api, method: str) -> None:
    response = admin.client.open(f"{CHAOS}?merchant_id=nobody", method=method, headers={"api-key": admin.key})

    assert (response.status_code, response.json) == (404, MERCHANT_NOT_FOUND)


def test_setting_the_chaos_of_an_unknown_merchant_is_not_found(admin: Api) -> None:
    response = admin.put(CHAOS, {"merchant_id": "nobody", "duplicate": True})

    assert (response.status_code, response.json) == (404, MERCHANT_NOT_FOUND)


def test_a_secret_key_cannot_reach_another_merchants_chaos(api: Api, other_merchant: OtherMerchant) -> None:
    response = api.put(CHAOS, {"merchant_id": other_merchant.merchant_id, "duplicate": True})

    assert (response.status_code, response.json) == (404, MERCHANT_NOT_FOUND)
    assert ok(other_merchant.api.get(CHAOS)) == setting("merchant_other")


def test_a_publishable_key_is_refused(browser: Api) -> None:
    response = browser.get(CHAOS)

    assert (response.status_code, response.json) == (
        401,
        error("IR_01", "API key not provided or invalid API key used"),
    )


# -- reset ----------------------------------------------------------------------------------------


def test_reset_of_the_merchant_clears_its_chaos_and_what_it_held(api: Api, hooked: str) -> None:
    ok(api.put(CHAOS, {"duplicate": True, "delay_seconds": 30}))
    create(api)

    ok(api.post("/__mock/reset"))

    assert ok(api.get(CHAOS)) == setting()
    assert ok(api.post("/__mock/clock/advance", {"seconds": 30}))["timers_fired"] == []


def test_a_full_reset_clears_every_merchants_chaos(
    admin: Api, api: Api, other_merchant: OtherMerchant
) -> None:
    ok(api.put(CHAOS, {"duplicate": True}))
    ok(other_merchant.api.put(CHAOS, {"out_of_order": True}))

    ok(admin.post("/__mock/reset"))

    assert ok(api.get(CHAOS)) == setting()
    assert ok(other_merchant.api.get(CHAOS)) == setting("merchant_other")


def test_the_reset_of_another_merchant_leaves_the_chaos_alone(
    admin: Api, api: Api, other_merchant: OtherMerchant
) -> None:
    ok(api.put(CHAOS, {"duplicate": True}))

    ok(admin.post("/__mock/reset", {"merchant_id": other_merchant.merchant_id}))

    assert ok(api.get(CHAOS)) == setting(duplicate=True)


# -- what the chaos shows elsewhere ---------------------------------------------------------------


def test_a_held_delivery_is_counted_and_its_event_shows_when_it_goes(api: Api, hooked: str) -> None:
    ok(api.put(CHAOS, {"delay_seconds": 30}))
    create(api)

    [event] = ok(api.get("/__mock/events"))["data"]

    assert ok(api.get(CHAOS))["held"] == 1
    assert event["delivery"] == {"state": "pending", "attempts": 0, "next_attempt_at": later(hooked, 30)}


def test_a_held_delivery_is_not_due_so_a_wait_does_not_wait_for_it(api: Api, hooked: str) -> None:
    ok(api.put(CHAOS, {"delay_seconds": 30}))
    create(api)

    answer = ok(api.post("/__mock/webhooks/wait", {"timeout": 0}))

    assert answer == {"drained": True, "pending": 0}


def test_advancing_past_the_delay_fires_the_release_and_queues_the_delivery(api: Api, hooked: str) -> None:
    ok(api.put(CHAOS, {"delay_seconds": 30}))
    create(api)
    [event] = ok(api.get("/__mock/events"))["data"]

    moved = ok(api.post("/__mock/clock/advance", {"seconds": 30}))

    assert moved["timers_fired"] == [
        {"due_at": later(hooked, 30), "kind": "webhook.release", "target_id": event["event_id"]}
    ]
    assert ok(api.post("/__mock/webhooks/wait", {"timeout": 0})) == {"drained": False, "pending": 1}
    assert ok(api.get(CHAOS))["held"] == 0


def test_the_delivery_log_marks_the_deliberate_duplicate(api: Api, hooked: str, sandbox: Sandbox) -> None:
    ok(api.put(CHAOS, {"duplicate": True}))
    create(api)
    [event] = ok(api.get("/__mock/events"))["data"]

    made = deliver(sandbox)

    listed = ok(api.get("/__mock/webhooks/deliveries"))["data"]
    shown = sorted((a["number"], a["event_id"], a["duplicate"], a["chaos"], a["succeeded"]) for a in listed)
    assert made == 2
    assert shown == [
        (1, event["event_id"], False, None, True),
        (2, event["event_id"], True, "duplicate", True),
    ]
    [after] = ok(api.get("/__mock/events"))["data"]
    assert after["delivery"] == {"state": "delivered", "attempts": 2, "next_attempt_at": None}


def test_the_delivery_log_says_which_first_attempt_was_held(api: Api, hooked: str, sandbox: Sandbox) -> None:
    ok(api.put(CHAOS, {"out_of_order": True}))
    create(api)
    ok(api.post("/__mock/clock/advance", {"seconds": 1}))

    deliver(sandbox)

    [attempt] = ok(api.get("/__mock/webhooks/deliveries"))["data"]
    assert (attempt["duplicate"], attempt["chaos"], attempt["attempted_at"]) == (
        False,
        "out_of_order",
        later(hooked, 1),
    )


def test_an_events_own_attempts_are_listed_by_their_number(api: Api, hooked: str, sandbox: Sandbox) -> None:
    # With the clock frozen, a duplicate is made in the millisecond of the attempt before it. The whole
    # log then orders the two by their ids; an event's own log orders them by number, newest first.
    ok(api.put("/__mock/ids", {"seed": 1}))
    ok(api.put(CHAOS, {"duplicate": True}))
    for _ in range(4):
        create(api)
    events = ok(api.get("/__mock/events"))["data"]
    for _ in events:
        assert deliver(sandbox) == 2

    whole_log = ok(api.get("/__mock/webhooks/deliveries?limit=100"))["data"]
    in_id_order = [
        [a["number"] for a in whole_log if a["event_id"] == event["event_id"]] for event in reversed(events)
    ]
    assert in_id_order != [[2, 1]] * 4  # the seed makes a pair whose ids are out of number order
    for event in events:
        own = ok(api.get(f"/__mock/webhooks/deliveries?event_id={event['event_id']}"))
        assert [a["number"] for a in own["data"]] == [2, 1]
        assert own["total_count"] == 2
        second = ok(api.get(f"/__mock/webhooks/deliveries?event_id={event['event_id']}&limit=1&offset=1"))
        assert [a["number"] for a in second["data"]] == [1]
