"""POST /__mock/sync: fire the timers due on the merchant's clock now, as the ticker would.

The test client runs no ticker, so a timer fires here only when sync fires it. The clock is moved
as a merchant backend's tests move it: with freezegun, in the process that serves.
"""

from __future__ import annotations

from datetime import UTC, datetime

from freezegun import freeze_time

from tests.api.expected import error, later, missing
from tests.api.scenarios import WEEK, create, ok
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

MARCH = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
MARCH_TEXT = "2026-03-01T12:00:00.000Z"


def test_sync_fires_the_timers_freezegun_moved_past_in_time_order(api: Api) -> None:
    with freeze_time(MARCH) as frozen:
        create(api, payment_id="pay_late", capture_method="manual")
        create(api, "4000000000000077", payment_id="pay_async")
        frozen.tick(WEEK + 1)

        response = api.post("/__mock/sync")

    assert response.status_code == 200
    assert response.json == {
        "merchant_id": MERCHANT_ID,
        "now": later(MARCH_TEXT, WEEK + 1),
        "frozen": False,
        "timers_fired": [
            {"due_at": later(MARCH_TEXT, 10), "kind": "payment.settle", "target_id": "pay_async"},
            {"due_at": later(MARCH_TEXT, WEEK), "kind": "payment.expire", "target_id": "pay_late"},
        ],
    }


def test_sync_fires_a_timer_once(api: Api) -> None:
    with freeze_time(MARCH) as frozen:
        create(api, "4000000000000077", payment_id="pay_async")
        frozen.tick(10)
        ok(api.post("/__mock/sync"))

        response = api.post("/__mock/sync")

    assert response.status_code == 200
    assert response.json["timers_fired"] == []


def test_sync_fires_nothing_before_its_time(api: Api) -> None:
    with freeze_time(MARCH) as frozen:
        create(api, "4000000000000077", payment_id="pay_async")
        frozen.tick(9)

        response = api.post("/__mock/sync")
        status = ok(api.get("/payments/pay_async"))["status"]

    assert response.status_code == 200
    assert response.json["timers_fired"] == []
    assert status == "processing"


def test_sync_after_time_went_back_fires_nothing_and_shows_the_earlier_time(api: Api) -> None:
    with freeze_time(MARCH) as frozen:
        create(api, "4000000000000077", payment_id="pay_async")
        frozen.move_to("2026-02-01 12:00:00")

        response = api.post("/__mock/sync")

    assert response.status_code == 200
    assert response.json == {
        "merchant_id": MERCHANT_ID,
        "now": "2026-02-01T12:00:00.000Z",
        "frozen": False,
        "timers_fired": [],
    }


def test_sync_leaves_a_frozen_clock_where_it_stands(api: Api, frozen: str) -> None:
    with freeze_time(MARCH) as system:
        system.tick(WEEK)

        response = api.post("/__mock/sync")

    assert response.status_code == 200
    assert response.json == {"merchant_id": MERCHANT_ID, "now": frozen, "frozen": True, "timers_fired": []}


def test_the_admin_key_syncs_the_merchant_it_names(admin: Api, frozen: str) -> None:
    response = admin.post(f"/__mock/sync?merchant_id={MERCHANT_ID}")

    assert response.status_code == 200
    assert response.json == {"merchant_id": MERCHANT_ID, "now": frozen, "frozen": True, "timers_fired": []}


def test_the_admin_key_without_a_merchant_is_refused(admin: Api) -> None:
    response = admin.post("/__mock/sync")

    assert response.status_code == 400
    assert response.json == missing("merchant_id")


def test_the_admin_key_naming_no_such_merchant_is_404(admin: Api) -> None:
    response = admin.post("/__mock/sync", {"merchant_id": "merchant_missing"})

    assert response.status_code == 404
    assert response.json == error("HE_02", "Merchant does not exist in our records")


def test_a_field_sync_does_not_take_is_refused(api: Api) -> None:
    response = api.post("/__mock/sync", {"until": "later"})

    assert response.status_code == 400
    assert response.json == error("IR_06", "Json deserialize error: unknown field `until`")
