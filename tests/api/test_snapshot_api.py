"""GET /__mock/snapshot, POST /__mock/restore and PUT /__mock/ids: exact statuses, bodies and state."""

from __future__ import annotations

import copy
import json
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from mocksrv.app import create_app, create_sandbox
from mocksrv.domain.controls.snapshot import Snapshots
from mocksrv.domain.errors import InvalidField
from mocksrv.domain.sandbox import Sandbox
from mocksrv.rest import authenticate
from mocksrv.settings import Settings
from mocksrv.version import __version__
from tests import payloads
from tests.api.conftest import OtherMerchant
from tests.conftest import Api, CheckedClient
from tests.payloads import ADMIN_KEY, MERCHANT_ID, SECRET_KEY
from tests.unit.fakes import FakeSystemTime


def error(code: str, message: str, param: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "invalid_request", "code": code, "message": message}
    if param is not None:
        body["param"] = param
    return {"error": body}


def without_time_taken(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key != "taken_at"}


def create_payment(api: Api) -> dict[str, Any]:
    response = api.post("/payments", payloads.payment())
    assert response.status_code == 200, response.json
    body: dict[str, Any] = response.json
    return body


def test_a_merchant_restores_its_own_snapshot_and_finds_its_payments(api: Api) -> None:
    kept = create_payment(api)
    snapshot = api.get("/__mock/snapshot")
    assert snapshot.status_code == 200
    document = snapshot.json
    assert (document["format"], document["version"], document["mocksrv"], document["scope"]) == (
        "mocksrv-snapshot",
        1,
        __version__,
        "merchant",
    )
    assert list(document["merchants"]) == [MERCHANT_ID]
    created_later = create_payment(api)

    restored = api.post("/__mock/restore", document)

    assert restored.status_code == 200
    assert restored.json == {
        "restored": {
            MERCHANT_ID: {
                "profile": 1,
                "payment": 1,
                "webhook_delivery": 1,
                "api_key": 2,
                "event": 1,
                "timer": 0,
            }
        },
        "removed": [],
    }
    assert api.get(f"/payments/{kept['payment_id']}").json == kept
    assert api.get(f"/payments/{created_later['payment_id']}").status_code == 404
    assert without_time_taken(api.get("/__mock/snapshot").json) == without_time_taken(document)


def test_a_profiles_webhook_settings_are_restored(api: Api) -> None:
    profile = f"/account/{MERCHANT_ID}/business_profile/{payloads.PROFILE_ID}"
    settings = {
        "webhook_version": "1.0.2",
        "payment_created_enabled": True,
        "refund_statuses_enabled": ["failed"],
    }
    shown = api.post(profile, {"webhook_details": settings}).json
    document = api.get("/__mock/snapshot").json
    api.post(profile, {"webhook_details": {"webhook_version": "2", "refund_statuses_enabled": []}})

    restored = api.post("/__mock/restore", document)

    assert restored.status_code == 200
    assert api.get(profile).json == shown
    assert {name: shown["webhook_details"][name] for name in settings} == settings


def test_the_admin_takes_every_merchant_or_the_one_named(admin: Api, other_merchant: OtherMerchant) -> None:
    everything = admin.get("/__mock/snapshot")
    assert everything.status_code == 200
    assert everything.json["scope"] == "all"
    assert sorted(everything.json["merchants"]) == [MERCHANT_ID, "merchant_other"]
    assert everything.json["ids"] is None

    one = admin.get("/__mock/snapshot?merchant_id=merchant_other")
    assert one.status_code == 200
    assert list(one.json["merchants"]) == ["merchant_other"]


def test_the_admin_restoring_everything_removes_the_merchants_the_document_does_not_hold(
    admin: Api, api: Api
) -> None:
    document = admin.get("/__mock/snapshot").json
    created = admin.post("/__mock/merchants", {"merchant_id": "merchant_later"})
    assert created.status_code == 200

    restored = admin.post("/__mock/restore", document)

    assert restored.status_code == 200
    assert restored.json["removed"] == ["merchant_later"]
    assert admin.get("/__mock/merchants").json == {"data": [MERCHANT_ID], "total_count": 1}
    late = api.as_key(created.json["secret_key"]).get("/__mock/snapshot")
    assert late.status_code == 401


def test_the_admin_restores_one_merchant_and_leaves_the_others(
    admin: Api, other_merchant: OtherMerchant
) -> None:
    document = admin.get("/__mock/snapshot").json
    create_payment(admin.as_key(SECRET_KEY))

    restored = admin.post("/__mock/restore?merchant_id=merchant_other", document)

    assert restored.status_code == 200
    assert list(restored.json["restored"]) == ["merchant_other"]
    assert (
        len(
            admin.get("/__mock/snapshot?merchant_id=merchant_default").json["merchants"][MERCHANT_ID][
                "records"
            ]["payment"]
        )
        == 1
    )


def test_a_merchant_cannot_take_or_restore_another(api: Api, other_merchant: OtherMerchant) -> None:
    other_document = other_merchant.api.get("/__mock/snapshot").json

    taken = api.get("/__mock/snapshot?merchant_id=merchant_other")
    restored = api.post("/__mock/restore?merchant_id=merchant_other", other_document)
    # Without a merchant_id, a merchant's key restores its own merchant: this document holds another.
    mine = api.post("/__mock/restore", other_document)

    assert taken.status_code == 404
    assert taken.json == error("HE_02", "Merchant does not exist in our records")
    assert restored.status_code == 404
    assert mine.status_code == 404
    assert mine.json == error("HE_02", "The snapshot holds no merchant merchant_default")


def test_an_unknown_merchant_is_not_found(admin: Api) -> None:
    answer = admin.get("/__mock/snapshot?merchant_id=merchant_nobody")
    assert answer.status_code == 404
    assert answer.json == error("HE_02", "Merchant does not exist in our records")


def test_a_document_of_another_version_is_refused_and_nothing_changes(api: Api) -> None:
    document = api.get("/__mock/snapshot").json
    payment = create_payment(api)
    before = without_time_taken(api.get("/__mock/snapshot").json)

    answer = api.post("/__mock/restore", {**document, "version": 99, "mocksrv": "9.0.0"})

    assert answer.status_code == 400
    assert answer.json == error(
        "IR_04",
        "Invalid snapshot: version: this server reads snapshots of version 1, not 99, "
        "written by mocksrv 9.0.0",
        "version",
    )
    assert without_time_taken(api.get("/__mock/snapshot").json) == before
    assert api.get(f"/payments/{payment['payment_id']}").status_code == 200


def test_a_document_with_a_record_that_fails_is_refused_and_nothing_changes(api: Api) -> None:
    create_payment(api)
    document = api.get("/__mock/snapshot").json
    broken = copy.deepcopy(document)
    broken["merchants"][MERCHANT_ID]["records"]["payment"][0]["$Payment"]["status"] = {
        "$PaymentStatus": "lost"
    }
    create_payment(api)
    before = without_time_taken(api.get("/__mock/snapshot").json)

    answer = api.post("/__mock/restore", broken)

    assert answer.status_code == 400
    assert answer.json["error"]["param"] == f"merchants.{MERCHANT_ID}.records.payment.0"
    assert answer.json["error"]["message"].startswith(
        "Invalid snapshot: merchants.merchant_default.records.payment.0:"
    )
    assert without_time_taken(api.get("/__mock/snapshot").json) == before


def test_a_document_holding_two_records_of_one_id_is_refused_and_nothing_changes(api: Api) -> None:
    create_payment(api)
    document = api.get("/__mock/snapshot").json
    payments = document["merchants"][MERCHANT_ID]["records"]["payment"]
    copied = copy.deepcopy(payments[0])
    copied["$Payment"]["amount"] = 4242
    payments.append(copied)
    before = without_time_taken(api.get("/__mock/snapshot").json)

    answer = api.post("/__mock/restore", document)

    param = f"merchants.{MERCHANT_ID}.records.payment.1"
    payment_id = copied["$Payment"]["payment_id"]
    assert (answer.status_code, answer.json) == (
        400,
        error("IR_04", f"Invalid snapshot: {param}: a second record {payment_id}", param),
    )
    assert without_time_taken(api.get("/__mock/snapshot").json) == before


def test_a_body_that_is_not_json_is_a_400(api: Api) -> None:
    answer = api.client.post(
        "/__mock/restore",
        data=b'{"format": ',
        headers={"api-key": SECRET_KEY, "Content-Type": "application/json"},
    )
    assert answer.status_code == 400
    assert answer.json["error"]["code"] == "IR_06"
    assert answer.json["error"]["message"].startswith("Json deserialize error: ")


def test_a_body_that_is_not_a_snapshot_is_a_400(api: Api) -> None:
    answer = api.post("/__mock/restore", {"merchants": {}})
    assert answer.status_code == 400
    assert answer.json == error(
        "IR_04", "Invalid snapshot: format: not a snapshot of mocksrv (format 'mocksrv-snapshot')", "format"
    )


def test_an_unknown_query_parameter_is_a_400(api: Api) -> None:
    answer = api.get("/__mock/snapshot?merchant=merchant_default")
    assert answer.status_code == 400
    assert answer.json == error("IR_06", "Json deserialize error: unknown field `merchant`")


def test_a_restore_over_the_body_limit_is_a_413() -> None:
    app = create_app(Settings(max_body_bytes=2048))
    app.test_client_class = CheckedClient
    api = Api(app.test_client())
    document = api.get("/__mock/snapshot").json
    assert len(orjson.dumps(document)) > 2048

    answer = api.post("/__mock/restore", document)

    assert answer.status_code == 413
    assert answer.json == error("IR_06", "Request body is larger than the limit of 2048 bytes")


# -- seeded ids ---------------------------------------------------------------------------------


def seeded_client(settings: Settings) -> FlaskClient:
    """An app whose clocks all stand at one instant, so that two of them write the same times."""
    app = create_app(settings, create_sandbox(settings, FakeSystemTime()))
    app.test_client_class = CheckedClient
    return app.test_client()


def run_requests(client: FlaskClient) -> list[Any]:
    """A sequence of requests: a merchant, ids seeded, a customer, payments, a refund, a snapshot."""
    admin, api = Api(client, ADMIN_KEY), Api(client)
    answers: list[Any] = []
    merchant = admin.post("/__mock/merchants", {"merchant_id": "merchant_golden"})
    answers.append(merchant.json)
    golden = api.as_key(merchant.json["secret_key"])
    answers.append(golden.put("/__mock/ids", {"seed": 1234}).json)
    body = payloads.payment(profile_id=merchant.json["profile_id"])
    answers.append(golden.post("/customers", {"name": "Ada"}).json)
    for capture_method in ("automatic", "manual"):
        answers.append(golden.post("/payments", {**body, "capture_method": capture_method}).json)
    answers.append(golden.post("/refunds", {"payment_id": answers[-2]["payment_id"]}).json)
    answers.append(without_time_taken(admin.get("/__mock/snapshot").json))
    return answers


def test_two_servers_of_one_seed_answer_alike_to_the_same_requests() -> None:
    first = run_requests(seeded_client(Settings(seed=7)))
    second = run_requests(seeded_client(Settings(seed=7)))
    assert first == second
    assert first[0]["merchant_id"] == "merchant_golden"
    assert first[3]["payment_id"].startswith("pay_")
    assert first[-1]["ids"] == {"seed": 7, "drawn": 0}  # both merchants were given their ids


def test_a_merchant_seeded_on_its_own_answers_alike_on_any_server() -> None:
    first = run_requests(seeded_client(Settings()))
    second = run_requests(seeded_client(Settings()))
    # The merchant's keys and profile id are random: what it made after it was seeded is alike.
    made = [
        [
            answers[2]["customer_id"],
            *[(p["payment_id"], p["client_secret"]) for p in answers[3:5]],
            answers[5]["refund_id"],
        ]
        for answers in (first, second)
    ]
    assert made[0] == made[1]
    assert first[1] == {"merchant_id": "merchant_golden", "seed": 1234}


def test_a_seeded_merchant_restored_to_an_earlier_snapshot_never_repeats_an_id() -> None:
    client = seeded_client(Settings(seed=7))
    api = Api(client)
    document = api.get("/__mock/snapshot").json
    before = [create_payment(api) for _ in range(2)]
    events_before = {event["event_id"] for event in api.get("/__mock/events").json["data"]}

    assert api.post("/__mock/restore", document).status_code == 200
    after = [create_payment(api) for _ in range(2)]

    made = [(p["payment_id"], p["client_secret"]) for p in before + after]
    assert len({payment_id for payment_id, _ in made}) == len({secret for _, secret in made}) == 4
    events_after = {event["event_id"] for event in api.get("/__mock/events").json["data"]}
    assert len(events_after) == 2
    assert not events_after & events_before


def test_a_restore_of_one_merchants_document_as_everything_never_repeats_a_merchant_id() -> None:
    client = seeded_client(Settings(seed=7))
    admin = Api(client, ADMIN_KEY)
    first = admin.post("/__mock/merchants", {}).json["merchant_id"]
    second = admin.post("/__mock/merchants", {}).json["merchant_id"]
    document = admin.get(f"/__mock/snapshot?merchant_id={first}").json

    assert admin.post("/__mock/restore", document).json["removed"] == sorted([MERCHANT_ID, second])
    third = admin.post("/__mock/merchants", {})

    assert third.status_code == 200
    assert third.json["merchant_id"] not in (first, second)


def test_a_stream_seeded_again_from_its_start_skips_the_profiles_and_keys_that_outlived_the_reset(
    admin: Api, api: Api
) -> None:
    assert api.put("/__mock/ids", {"seed": 5}).status_code == 200
    first = admin.post(f"/account/{MERCHANT_ID}/business_profile", {"profile_name": "first"}).json
    key = admin.post(f"/api_keys/{MERCHANT_ID}", {"name": "ci", "expiration": "never"}).json
    assert admin.post("/__mock/reset", {"merchant_id": MERCHANT_ID}).status_code == 200
    assert api.put("/__mock/ids", {"seed": 5}).status_code == 200

    second = admin.post(f"/account/{MERCHANT_ID}/business_profile", {"profile_name": "second"})
    again = admin.post(f"/api_keys/{MERCHANT_ID}", {"name": "ci", "expiration": "never"})

    assert second.status_code == again.status_code == 200
    assert second.json["profile_id"] != first["profile_id"]
    kept = admin.get(f"/account/{MERCHANT_ID}/business_profile/{first['profile_id']}").json
    assert kept["profile_name"] == "first"
    assert (again.json["api_key"], again.json["key_id"]) != (key["api_key"], key["key_id"])
    assert api.as_key(key["api_key"]).get("/health").status_code == 200
    assert api.as_key(again.json["api_key"]).get("/health").status_code == 200


def test_a_merchant_in_the_making_is_never_in_a_snapshot_without_its_profile_and_keys(
    admin: Api, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[dict[str, Any]] = []
    store = sandbox.store
    put = store.put

    def put_and_snapshot(kind: str, space: str, record: Any) -> None:
        put(kind, space, record)
        taken.append(Snapshots(sandbox).take(None, producer="test"))

    monkeypatch.setattr(store, "put", put_and_snapshot)
    created = admin.post("/__mock/merchants", {"merchant_id": "merchant_new"})
    monkeypatch.undo()

    assert created.status_code == 200
    assert "merchant_new" in taken[-1]["merchants"]
    for document in taken:
        assert Snapshots(create_sandbox(Settings())).restore(document, None).removed == []


def test_a_merchant_that_made_something_cannot_be_seeded(api: Api) -> None:
    create_payment(api)
    answer = api.put("/__mock/ids", {"seed": 3})
    assert answer.status_code == 400
    assert answer.json == error(
        "IR_04",
        "Invalid value provided: seed: "
        "a merchant's ids can be seeded only before it makes anything: reset it first",
        "seed",
    )


def test_seeding_an_unknown_merchant_is_not_found(admin: Api) -> None:
    answer = admin.put("/__mock/ids", {"seed": 3, "merchant_id": "merchant_nobody"})
    assert answer.status_code == 404
    assert answer.json == error("HE_02", "Merchant does not exist in our records")


@pytest.mark.parametrize("seed", [-1, 2**63, "7", 1.5])
def test_a_seed_out_of_range_is_a_400(api: Api, seed: Any) -> None:
    answer = api.put("/__mock/ids", {"seed": seed})
    assert answer.status_code == 400
    assert answer.json["error"]["param"] == "seed"


def _set(document: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    place = document["merchants"][MERCHANT_ID]
    for step in path[:-1]:
        place = place[step]
    place[path[-1]] = value


PAYMENT = ("records", "payment", 0, "$Payment")
DRAWN = "expected null or {{seed, drawn}}, drawn at most 4611686018427387904"


def nested(depth: int) -> Any:
    """A list `depth` levels deep."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


FAULT = ("records", "fault", 0, "$FaultRule")
EVENT = ("events", 0, "$Event")


def _filled(value: Any, ids: dict[str, str]) -> Any:
    """`value` with the ids written into its texts' places, such as `{payment_id}`."""
    if isinstance(value, str):
        return value.format_map(ids)
    if isinstance(value, dict):
        return {key: _filled(item, ids) for key, item in value.items()}
    return value


REPORTED = f"expected the Payment {{payment_id}} of {MERCHANT_ID}, which a payment_details event reports"


@pytest.mark.parametrize(
    ("path", "value", "where", "message"),
    [
        (
            ("merchant", "$Merchant", "rate_limit"),
            "x",
            "merchant",
            "Merchant.rate_limit: expected int | None",
        ),
        ((*PAYMENT, "amount"), None, "records.payment.0", "Payment.amount: expected int"),
        (
            (*PAYMENT, "amount_received"),
            2**63,
            "records.payment.0",
            "Payment.amount_received: expected from 0 to 99999999999",
        ),
        ((*PAYMENT, "amount"), -1, "records.payment.0", "Payment.amount: expected from 0 to 99999999999"),
        (
            ("records", "profile", 0, "$Profile", "session_expiry"),
            10**12,
            "records.profile.0",
            "Profile.session_expiry: expected from 0 to 31536000",
        ),
        ((*PAYMENT, "amount"), 10.5, "records.payment.0", "Payment.amount: expected int"),
        ((*PAYMENT, "status"), "bogus", "records.payment.0", "Payment.status: expected PaymentStatus"),
        ((*PAYMENT, "payment_id"), [], "records.payment.0", "Payment.payment_id: expected str"),
        ((*PAYMENT, "currency"), {}, "records.payment.0", "Payment.currency: expected str"),
        (
            (*PAYMENT, "created"),
            {"$datetime": "2026-01-01T00:00:00"},
            "records.payment.0",
            "datetime: 2026-01-01T00:00:00 has no zone",
        ),
        (
            (*PAYMENT, "created"),
            {"$datetime": "9999-12-31T23:59:59-14:00"},  # past the calendar's end in UTC
            "records.payment.0",
            "datetime: 9999-12-31T23:59:59-14:00 is not from 1000-01-01 to 9100-03-18",
        ),
        (
            (*PAYMENT, "created"),
            {"$datetime": "0001-01-01T00:00:00+14:00"},  # before the calendar's start in UTC
            "records.payment.0",
            "datetime: 0001-01-01T00:00:00+14:00 is not from 1000-01-01 to 9100-03-18",
        ),
        (
            ("timers",),
            [[{"$datetime": "2020-01-01T00:00:00"}, "legacy_token.expire", "x"]],
            "timers.0",
            "datetime: 2020-01-01T00:00:00 has no zone",
        ),
        (
            ("timers",),
            [[{"$datetime": "2020-01-01T00:00:00+00:00"}, "bogus.kind", "x"]],
            "timers.0.1",
            "no timer is of the kind 'bogus.kind'",
        ),
        (
            ("merchant", "$Merchant", "profile_id"),
            "pro_nope",
            "merchant.profile_id",
            "no profile pro_nope is stored",
        ),
        (
            (*PAYMENT, "metadata"),
            {"deep": nested(66)},
            "records.payment.0",
            "Payment.metadata: expected dict[str, Any] | None",
        ),
        ((*FAULT, "path"), None, "records.fault.0", "FaultRule.path: expected str"),
        ((*EVENT, "resource"), 5, "events.0.resource", REPORTED),
        ((*EVENT, "resource"), {"payment_id": "pay_1"}, "events.0.resource", REPORTED),
        (
            (*EVENT, "object_id"),
            "pay_other",
            "events.0.resource",
            REPORTED.replace("{payment_id}", "pay_other"),
        ),
        (
            (*EVENT, "resource"),
            {"$StoredRecord": {"kind": "fault", "record_id": "{fault_id}"}},
            "events.0.resource",
            REPORTED,
        ),
        ((*FAULT, "active_from"), "x", "records.fault.0", "FaultRule.active_from: expected datetime | None"),
        (
            ("clock", "base"),
            {"$datetime": "9999-12-31T23:59:59+00:00"},
            "clock",
            "datetime: 9999-12-31T23:59:59+00:00 is not from 1000-01-01 to 9100-03-18",
        ),
        (("clock",), {"frozen": True, "now": nested(600)}, "clock", "nested too deeply"),
        (("timers",), [[nested(600), "payment.settle", "pay_x"]], "timers.0", "nested too deeply"),
        (("ids",), {"seed": 1, "drawn": 2**64 - 1}, "ids", DRAWN),
        (("ids",), {"seed": 1, "drawn": 2**63 - 1}, "ids", DRAWN),  # no room left to draw
        (
            ("clock",),
            {
                "frozen": False,
                "base": {"$datetime": "8999-01-01T00:00:00+00:00"},
                "anchor": {"$datetime": "1000-01-01T00:00:00+00:00"},
            },
            "clock",
            "the mock clock goes no later than 9000-01-01T00:00:00.000Z",
        ),
    ],
)
def test_a_document_holding_what_could_not_be_served_is_refused_and_nothing_changes(
    api: Api, path: tuple[Any, ...], value: Any, where: str, message: str
) -> None:
    ids = {"payment_id": create_payment(api)["payment_id"]}
    fault = api.post("/__mock/faults", {"match": {"path": "/nothing"}, "effect": {"type": "error"}})
    assert fault.status_code == 200
    ids["fault_id"] = fault.json["fault_id"]
    broken = copy.deepcopy(api.get("/__mock/snapshot").json)
    _set(broken, path, _filled(value, ids))
    message = message.format_map(ids)
    before = without_time_taken(api.get("/__mock/snapshot").json)

    # Written by the standard library's encoder, which goes deeper than the test client's.
    answer = api.post("/__mock/restore", data=json.dumps(broken), content_type="application/json")

    param = f"merchants.{MERCHANT_ID}.{where}"
    assert answer.status_code == 400
    assert answer.json == error("IR_04", f"Invalid snapshot: {param}: {message}", param)
    assert without_time_taken(api.get("/__mock/snapshot").json) == before
    for method, route in (("get", "/payments/list"), ("post", "/payments/list"), ("get", "/__mock/faults")):
        assert getattr(api, method)(route).status_code == 200


def test_what_is_made_as_the_clock_ends_is_restored(api: Api) -> None:
    assert api.post("/__mock/clock/freeze", {}).status_code == 200
    assert api.post("/__mock/clock/set", {"now": "8999-12-31T23:50:00Z"}).status_code == 200
    payment = api.post("/payments", payloads.payment(None))  # a card would have expired by then
    link = api.post("/payment_link", {"amount": 1000, "currency": "USD"})
    assert api.post("/customers", {"customer_id": "cus_1"}).status_code == 200
    key = api.post("/ephemeral_keys", {"customer_id": "cus_1"})
    assert (payment.status_code, link.status_code, key.status_code) == (200, 200, 200)
    assert link.json["expiry"] == "9000-01-01T00:00:00.000Z"  # no later than the clock can go
    document = api.get("/__mock/snapshot").json

    restored = api.post("/__mock/restore", document)

    assert restored.status_code == 200, restored.json
    assert without_time_taken(api.get("/__mock/snapshot").json) == without_time_taken(document)


def test_free_form_values_as_deep_as_the_limit_are_restored_and_served(api: Api) -> None:
    payment = create_payment(api)
    document = copy.deepcopy(api.get("/__mock/snapshot").json)
    _set(document, (*PAYMENT, "metadata"), {"deep": nested(63)})  # 64 levels with the object

    assert api.post("/__mock/restore", document).status_code == 200

    assert api.get(f"/payments/{payment['payment_id']}").json["metadata"] == {"deep": nested(63)}
    assert api.get("/payments/list").status_code == 200


def test_a_merchants_restore_cannot_take_the_legacy_client_another_merchant_holds(
    api: Api, other_merchant: OtherMerchant
) -> None:
    other = other_merchant.api
    document = other.get("/__mock/snapshot").json
    merchant = document["merchants"][other_merchant.merchant_id]["merchant"]["$Merchant"]
    merchant["legacy_client_id"] = "legacy_client_id"  # merchant_default's, from the fixtures
    before = without_time_taken(other.get("/__mock/snapshot").json)

    answer = other.post("/__mock/restore", document)

    assert (answer.status_code, answer.json) == (
        400,
        error(
            "HE_01",
            "The legacy client with the specified legacy_client_id already exists in our records",
            "legacy_client_id",
        ),
    )
    assert without_time_taken(other.get("/__mock/snapshot").json) == before


def test_a_document_whose_merchants_share_a_legacy_client_is_refused(api: Api, admin: Api) -> None:
    admin.post("/__mock/merchants", {"merchant_id": "merchant_other"})
    document = admin.get("/__mock/snapshot").json
    document["merchants"]["merchant_other"]["merchant"]["$Merchant"]["legacy_client_id"] = "legacy_client_id"

    answer = admin.post("/__mock/restore", document)

    param = "merchants.merchant_other.merchant.legacy_client_id"
    assert (answer.status_code, answer.json) == (
        400,
        error("IR_04", f"Invalid snapshot: {param}: a legacy client id is held twice", param),
    )


def _records(document: Any, kind: str) -> list[dict[str, Any]]:
    """The fields of every record of `kind` (`$Payment`, `$PaymentLink`) in a snapshot document."""
    found: list[dict[str, Any]] = []
    if isinstance(document, dict):
        if isinstance(document.get(kind), dict):
            found.append(document[kind])
        for value in document.values():
            found += _records(value, kind)
    elif isinstance(document, list):
        for item in document:
            found += _records(item, kind)
    return found


@pytest.mark.parametrize(
    "split",
    [
        {"xendit_split_payment": {"multiple_splits": [{"amount": 100}]}},
        {"xendit_split_payment": "legacy"},
        "legacy",
    ],
)
def test_a_split_kept_in_a_shape_from_before_it_was_checked_is_served_as_kept(app: Flask, split: Any) -> None:
    # A state file of a version that took any split holds a shape the document no longer lists:
    # answered to a client that does not check answers against the document.
    api = Api(FlaskClient(app, app.response_class))
    created = create_payment(api)
    document = api.get("/__mock/snapshot").json
    (payment,) = _records(document, "$Payment")
    payment["echoed"] = {**(payment.get("echoed") or {}), "split_payments": split}
    assert api.post("/__mock/restore", document).status_code == 200

    shown = api.get(f"/payments/{created['payment_id']}")

    assert (shown.status_code, shown.json["split_payments"]) == (200, split)
    assert api.get("/payments/list").status_code == 200


@pytest.mark.parametrize(
    "messages",
    [{"card": {"value": "Terms apply"}}, [{"payment_method": "card"}], [{"payment_method_types": [{}]}]],
)
def test_a_link_page_with_custom_messages_in_a_shape_from_before_they_were_checked_shows_none(
    api: Api, client: FlaskClient, messages: Any
) -> None:
    link = api.post("/payment_link", {"amount": 100, "currency": "USD"}).json
    document = api.get("/__mock/snapshot").json
    (kept,) = _records(document, "$PaymentLink")
    kept["config"] = {**(kept.get("config") or {}), "custom_message_for_payment_method_types": messages}
    assert api.post("/__mock/restore", document).status_code == 200

    page = client.get(f"/payment_link/{MERCHANT_ID}/{link['payment_link_id']}")

    assert page.status_code == 200
    assert "Terms apply" not in page.get_data(as_text=True)


# Requests refused after ids were drawn on their way: the refusal gives them back.
REFUSED = {
    "payout-unknown-customer": ("/payouts/create", {**payloads.PAYOUT, "customer_id": "cus_nobody"}),
    "payment-unknown-customer": ("/payments", payloads.payment(customer_id="cus_nobody")),
    "mandate-without-acceptance": (
        "/payments",
        payloads.payment(customer_id="cus_1", mandate_data={"mandate_type": {"multi_use": None}}),
    ),
    "refund-over-the-amount": ("/refunds", {"payment_id": "pay_1", "amount": 1001}),
}


@pytest.mark.parametrize(("path", "body"), list(REFUSED.values()), ids=list(REFUSED))
def test_a_refused_request_draws_no_id_from_a_seeded_stream(
    admin: Api, api: Api, path: str, body: dict[str, Any]
) -> None:
    def seeded_then(refused: bool) -> list[str]:
        assert admin.post("/__mock/reset", {"merchant_id": MERCHANT_ID}).status_code == 200
        assert api.put("/__mock/ids", {"seed": 5}).status_code == 200
        assert api.post("/customers", {"customer_id": "cus_1"}).status_code == 200
        assert api.post("/payments", payloads.payment(payment_id="pay_1")).status_code == 200
        if refused:
            answer = api.post(path, body)
            assert 400 <= answer.status_code < 500, answer.json
        return [
            api.post("/customers", {"name": "Ada"}).json["customer_id"],
            api.post("/payments", payloads.payment()).json["payment_id"],
        ]

    assert seeded_then(refused=True) == seeded_then(refused=False)


def test_a_refused_request_that_changed_a_record_keeps_the_ids_it_drew() -> None:
    settings = Settings()
    sandbox = create_sandbox(settings)
    app = create_app(settings, sandbox)
    drawn: list[str] = []

    def refused_after_a_change() -> Any:
        authenticate()
        customer = sandbox.customers.create(MERCHANT_ID, {})  # its id drawn from the stream, and kept
        drawn.append(customer.customer_id)
        raise InvalidField("name", missing=True)

    app.add_url_rule("/refused_after_a_change", "refused", refused_after_a_change, methods=["POST"])
    client = app.test_client()
    headers = {"api-key": SECRET_KEY}
    assert client.put("/__mock/ids", json={"seed": 5}, headers=headers).status_code == 200

    assert client.post("/refused_after_a_change", headers=headers).status_code == 400
    made = client.post("/customers", json={"name": "Ada"}, headers=headers).json["customer_id"]

    assert made != drawn[0]
    assert sandbox.customers.find(MERCHANT_ID, drawn[0]) is not None
