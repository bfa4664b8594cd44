"""The control-plane client, through the pytest plugin's own fixtures (this suite is a consumer too)."""

from __future__ import annotations

import http.client
from contextlib import closing
from datetime import timedelta
from typing import Any

import pytest
import yaml

from mocksrv.client import ControlPlaneError, Merchant, Sandbox
from mocksrv.client import merchant as merchant_calls
from mocksrv.pytest_plugin import MocksrvServer
from mocksrv.receiver import WebhookEndpoint
from tests.e2e.harness import REPO_ROOT
from tests.payloads import payment

DECLINE_ALL = [
    {"match": {}, "outcome": {"result": "decline", "error_code": "card_declined", "error_message": "No."}}
]


def pay(merchant: Merchant, number: str = "4242424242424242", **overrides: Any) -> dict[str, Any]:
    body = payment(number, profile_id=merchant.profile_id, **overrides)
    response = merchant.session.post(f"{merchant.url}/payments", json=body)
    assert response.status_code == 200, response.text
    created: dict[str, Any] = response.json()
    return created


def status_of(merchant: Merchant, payment_id: str) -> str:
    status: str = merchant.session.get(f"{merchant.url}/payments/{payment_id}").json()["status"]
    return status


def test_advance_adds_its_units_exactly(mocksrv_merchant: Merchant) -> None:
    frozen = mocksrv_merchant.freeze()
    assert mocksrv_merchant.advance(30, minutes=2, hours=3, days=4) == []
    assert mocksrv_merchant.now() == frozen + timedelta(days=4, hours=3, minutes=2, seconds=30)


def test_advance_answers_the_timers_it_fired(mocksrv_merchant: Merchant) -> None:
    mocksrv_merchant.freeze()
    authorized = pay(mocksrv_merchant, capture_method="manual")
    assert authorized["status"] == "requires_capture"
    assert mocksrv_merchant.advance(days=6, hours=23, minutes=59, seconds=59) == []
    [fired] = mocksrv_merchant.advance(seconds=1)
    assert (fired["kind"], fired["target_id"]) == ("payment.expire", authorized["payment_id"])
    assert status_of(mocksrv_merchant, authorized["payment_id"]) == "expired"


def test_set_time_moves_the_clock_to_the_instant(mocksrv_merchant: Merchant) -> None:
    target = mocksrv_merchant.freeze() + timedelta(hours=5)
    assert mocksrv_merchant.set_time(target) == []
    assert mocksrv_merchant.now() == target


def test_resume_follows_real_time_from_where_the_clock_stands(mocksrv_merchant: Merchant) -> None:
    frozen = mocksrv_merchant.freeze()
    mocksrv_merchant.advance(days=1)
    resumed = mocksrv_merchant.resume()
    assert resumed == frozen + timedelta(days=1)
    assert mocksrv_merchant.now() >= resumed


def test_set_outcomes_replaces_the_magic_values(mocksrv_merchant: Merchant) -> None:
    assert mocksrv_merchant.set_outcomes(DECLINE_ALL) == DECLINE_ALL
    assert mocksrv_merchant.outcomes() == DECLINE_ALL
    declined = pay(mocksrv_merchant)
    assert (declined["status"], declined["error_code"]) == ("failed", "card_declined")


def test_events_and_deliveries_read_every_page(mocksrv_merchant: Merchant) -> None:
    assert mocksrv_merchant.seed(150) == 150
    events = mocksrv_merchant.events()
    assert len(events) == 150
    assert len({event["event_id"] for event in events}) == 150
    assert {event["delivery"]["state"] for event in events} == {"no_endpoint"}
    assert mocksrv_merchant.deliveries() == []


def test_a_list_read_while_it_grows_holds_each_item_once(
    mocksrv_merchant: Merchant, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert mocksrv_merchant.seed(150) == 150
    control = mocksrv_merchant._control
    pages: list[int] = []

    def growing(method: str, path: str, **kwargs: Any) -> Any:
        answer = control(method, path, **kwargs)
        if path == "/events":
            pages.append(kwargs["params"]["offset"])
            if len(pages) == 1:  # newer events push the first page's last ones onto the next
                control("POST", "/seed", json={"payments": 5})
        return answer

    monkeypatch.setattr(mocksrv_merchant, "_control", growing)

    events = mocksrv_merchant.events()

    assert pages == [0, 100]
    assert len(events) == len({event["event_id"] for event in events}) == 150


def test_a_seed_past_the_control_planes_bound_goes_in_several_requests(
    mocksrv_merchant: Merchant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(merchant_calls, "SEED_SIZE", 60)
    sent: list[Any] = []
    control = mocksrv_merchant._control

    def recorded(method: str, path: str, **kwargs: Any) -> Any:
        sent.append((method, path, kwargs.get("json")))
        return control(method, path, **kwargs)

    monkeypatch.setattr(mocksrv_merchant, "_control", recorded)

    assert mocksrv_merchant.seed(150) == 150
    assert sent == [("POST", "/seed", {"payments": count}) for count in (60, 60, 30)]
    assert len(mocksrv_merchant.events()) == 150


def test_a_seed_of_no_payments_is_refused(mocksrv_merchant: Merchant) -> None:
    with pytest.raises(ControlPlaneError, match="payments"):
        mocksrv_merchant.seed(0)


def test_reset_deletes_the_merchants_data_only(mocksrv: MocksrvServer, mocksrv_merchant: Merchant) -> None:
    with mocksrv.create_merchant() as other:
        pay(mocksrv_merchant)
        pay(other)
        mocksrv_merchant.reset()
        assert mocksrv_merchant.events() == []
        listed = mocksrv_merchant.session.post(f"{mocksrv_merchant.url}/payments/list", json={}).json()
        assert listed["total_count"] == 0
        assert len(other.events()) == 1


def test_a_merchants_controls_see_no_other_merchant(
    mocksrv: MocksrvServer, mocksrv_merchant: Merchant
) -> None:
    with mocksrv.create_merchant() as other:
        frozen = other.freeze()
        mocksrv_merchant.freeze()
        mocksrv_merchant.advance(days=30)
        assert other.now() == frozen
        assert other.events() == []


def test_authenticate_finishes_a_3ds_challenge(mocksrv_merchant: Merchant) -> None:
    challenged = pay(mocksrv_merchant, "4000003800000446")
    assert challenged["status"] == "requires_customer_action"
    finished = mocksrv_merchant.authenticate(challenged["payment_id"])
    assert finished["status"] == "succeeded"


def test_a_refused_call_raises_with_the_error_code(mocksrv_merchant: Merchant) -> None:
    with pytest.raises(ControlPlaneError) as refused:
        mocksrv_merchant.advance(-1)
    assert (refused.value.status, refused.value.code) == (400, "IR_04")
    assert str(refused.value) == f"POST /__mock/clock/advance: 400 IR_04 {refused.value.message}"


def test_a_wrong_admin_key_is_refused(mocksrv: MocksrvServer) -> None:
    with Sandbox(mocksrv.url, "not_the_admin_key") as sandbox, pytest.raises(ControlPlaneError) as refused:
        sandbox.merchant_ids()
    assert (refused.value.status, refused.value.code) == (401, "IR_01")


def test_merchant_ids_lists_the_merchants_created(mocksrv: MocksrvServer, mocksrv_merchant: Merchant) -> None:
    ids = mocksrv.merchant_ids()
    assert mocksrv_merchant.merchant_id in ids
    assert "merchant_default" in ids
    assert ids == sorted(ids)


def test_the_webhooks_fixture_is_the_merchants_webhook_url(
    mocksrv_merchant: Merchant, mocksrv_webhooks: WebhookEndpoint
) -> None:
    created = pay(mocksrv_merchant)
    assert mocksrv_merchant.wait_webhooks()
    [event] = mocksrv_merchant.events()
    assert (event["object_id"], event["delivery"]["state"]) == (created["payment_id"], "delivered")
    [attempt] = mocksrv_merchant.deliveries(event["event_id"])
    assert (attempt["url"], attempt["status_code"]) == (mocksrv_webhooks.url, 200)
    [received] = mocksrv_webhooks.events
    assert (received.event_id, received.event_type, received.verified) == (
        event["event_id"],
        "payment_succeeded",
        True,
    )


def test_a_delivery_with_another_signature_is_not_verified(
    mocksrv_merchant: Merchant, mocksrv_webhooks: WebhookEndpoint
) -> None:
    mocksrv_webhooks.signing_key = "whsec_not_the_merchants"
    pay(mocksrv_merchant)
    assert mocksrv_webhooks.wait_for("payment_succeeded").verified is False


def test_redeliver_sends_the_event_again(
    mocksrv_merchant: Merchant, mocksrv_webhooks: WebhookEndpoint
) -> None:
    pay(mocksrv_merchant)
    first = mocksrv_webhooks.wait_for("payment_succeeded")
    assert first.event_id is not None
    assert mocksrv_merchant.redeliver(first.event_id)["event_id"] == first.event_id
    assert mocksrv_merchant.wait_webhooks()
    assert [event.raw for event in mocksrv_webhooks.events] == [first.raw, first.raw]


def test_respond_with_refuses_what_is_not_an_answer(mocksrv_webhooks: WebhookEndpoint) -> None:
    with pytest.raises(ValueError, match="status 42 is not an HTTP status"):
        mocksrv_webhooks.respond_with(42)
    with pytest.raises(ValueError, match="delay must be at least 0 and times at least 1"):
        mocksrv_webhooks.respond_with(500, times=0)


def test_the_default_merchant_has_the_keys_of_the_built_in_fixtures(mocksrv: MocksrvServer) -> None:
    [seeded] = yaml.safe_load((REPO_ROOT / "fixtures" / "merchants.yaml").read_text())["merchants"]
    with mocksrv.default_merchant() as default:
        assert (default.merchant_id, default.profile_id, default.secret_key) == (
            seeded["merchant_id"],
            seeded["profile_id"],
            seeded["secret_key"],
        )
        assert (default.publishable_key, default.signing_key) == (
            seeded["publishable_key"],
            seeded["payment_response_hash_key"],
        )
        assert default.session.get(f"{default.url}/health").status_code == 200


@pytest.mark.parametrize(("length", "status"), [("abc", 400), (str(16 * 1024 * 1024 + 1), 413)])
def test_the_receiver_refuses_a_body_it_cannot_read_and_closes(
    mocksrv_webhooks: WebhookEndpoint, length: str, status: int
) -> None:
    host, port = mocksrv_webhooks.url.split("/")[2].split(":")
    with closing(http.client.HTTPConnection(host, int(port), timeout=5)) as connection:
        connection.putrequest("POST", mocksrv_webhooks.path)
        connection.putheader("Content-Length", length)
        connection.endheaders()
        response = connection.getresponse()
        assert (response.status, response.getheader("Connection")) == (status, "close")
    assert mocksrv_webhooks.events == []


def test_the_receiver_waits_until_a_condition_of_its_deliveries_holds(
    mocksrv_merchant: Merchant, mocksrv_webhooks: WebhookEndpoint
) -> None:
    mocksrv_merchant.freeze()
    mocksrv_webhooks.respond_with(500, times=2)  # the first two attempts fail, the third is answered
    payment_id = pay(mocksrv_merchant)["payment_id"]

    def attempt(number: int) -> Any:
        def found(events: list[Any]) -> Any:
            attempts = [e for e in events if e.object_id == payment_id]
            return attempts[number - 1] if len(attempts) >= number else None

        return found

    first = mocksrv_webhooks.wait_until(attempt(1), timeout=10)
    early = mocksrv_webhooks.wait_until(attempt(2), timeout=0.05)  # its retry waits for the mock clock
    # Each failed attempt is recorded, and its retry scheduled, before the clock moves past it.
    assert mocksrv_merchant.wait_webhooks()
    mocksrv_merchant.advance(hours=1)
    second = mocksrv_webhooks.wait_until(attempt(2), timeout=10)
    assert mocksrv_merchant.wait_webhooks()
    mocksrv_merchant.advance(hours=1)
    third = mocksrv_webhooks.wait_until(attempt(3), timeout=10)

    assert early is None
    assert [None if e is None else e.status for e in (first, second, third)] == [500, 500, 200]
    assert mocksrv_webhooks.events == [first, second, third]


def test_the_receiver_takes_a_falsy_answer_of_its_condition_as_found(
    mocksrv_webhooks: WebhookEndpoint,
) -> None:
    asked: list[int] = []

    def count(events: list[Any]) -> int:
        asked.append(len(events))
        return len(events)  # 0: an answer, not "not yet"

    assert mocksrv_webhooks.wait_until(count, timeout=0.5) == 0
    assert asked == [0]  # answered at once: not asked again when the time was up
