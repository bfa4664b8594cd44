"""Requests that race on one payment: exactly one wins, the others see the state it left."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

from tests import payloads
from tests.api.expected import CANCELLABLE, CAPTURABLE, CONFIRMABLE, card_payment, error, invalid, refused
from tests.api.scenarios import WEEK, create, ok, payment_count, retrieve
from tests.conftest import Api
from tests.payloads import SECRET_KEY

pytestmark = pytest.mark.usefixtures("frozen")

RACERS = 4

Request = Callable[[Api], Any]


def race(app: Flask, requests: list[Request], key: str = SECRET_KEY) -> list[tuple[int, dict[str, Any]]]:
    """Send the requests at once, each from its own thread and test client; return (status, body)s."""
    barrier = threading.Barrier(len(requests))
    answers: list[tuple[int, dict[str, Any]] | None] = [None] * len(requests)
    failures: list[BaseException] = []

    def run(index: int, request: Request) -> None:
        try:
            api = Api(app.test_client(), key)
            barrier.wait(timeout=10)
            response = request(api)
            answers[index] = (response.status_code, response.get_json())
        except BaseException as failure:  # re-raised in the test below
            failures.append(failure)

    threads = [threading.Thread(target=run, args=(i, r)) for i, r in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    if failures:
        raise failures[0]
    assert all(answer is not None for answer in answers)
    return [answer for answer in answers if answer is not None]


def statuses(answers: list[tuple[int, dict[str, Any]]]) -> Counter[int]:
    return Counter(status for status, _ in answers)


def losers(answers: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [body for status, body in answers if status != 200]


def winner(answers: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    (body,) = [body for status, body in answers if status == 200]
    return body


def test_concurrent_confirms_charge_the_payment_once(app: Flask, api: Api, frozen: str) -> None:
    create(api, None, payment_id="pay_1")

    answers = race(app, [lambda a: a.post("/payments/pay_1/confirm", payloads.confirmation())] * RACERS)

    assert statuses(answers) == Counter({200: 1, 400: RACERS - 1})
    assert winner(answers) == card_payment(frozen, "pay_1")
    assert losers(answers) == [refused("confirmed", "succeeded", CONFIRMABLE)] * (RACERS - 1)
    assert retrieve(api, "pay_1") == card_payment(frozen, "pay_1")


def test_concurrent_full_captures_capture_once(app: Flask, api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual")

    answers = race(app, [lambda a: a.post("/payments/pay_1/capture", {})] * RACERS)

    # The losers find the payment fully captured: 409, as the spec has it for a captured payment.
    assert statuses(answers) == Counter({200: 1, 409: RACERS - 1})
    assert losers(answers) == [refused("captured", "succeeded", CAPTURABLE)] * (RACERS - 1)
    assert retrieve(api, "pay_1") == card_payment(frozen, "pay_1", capture_method="manual")


def test_concurrent_partial_captures_never_capture_more_than_authorized(app: Flask, api: Api) -> None:
    create(api, payment_id="pay_1", capture_method="manual_multiple")

    answers = race(app, [lambda a: a.post("/payments/pay_1/capture", {"amount_to_capture": 300})] * RACERS)

    # 3 x 300 fit in 1000; the fourth finds 100 left.
    assert statuses(answers) == Counter({200: 3, 400: 1})
    assert losers(answers) == [invalid("amount_to_capture", "exceeds amount_capturable (100)")]
    final = retrieve(api, "pay_1")
    assert (final["status"], final["amount_received"], final["amount_capturable"]) == (
        "partially_captured_and_capturable",
        900,
        100,
    )


def test_capture_racing_cancel_leaves_one_consistent_outcome(app: Flask, api: Api) -> None:
    create(api, payment_id="pay_1", capture_method="manual")

    answers = race(
        app,
        [
            lambda a: a.post("/payments/pay_1/capture", {}),
            lambda a: a.post("/payments/pay_1/cancel", {"cancellation_reason": "race"}),
        ],
    )

    (capture_status, capture_body), (cancel_status, cancel_body) = answers
    final = retrieve(api, "pay_1")
    if capture_status == 200:
        assert (cancel_status, cancel_body) == (400, refused("cancelled", "succeeded", CANCELLABLE))
        assert (final["status"], final["amount_received"], final["cancelled_at"]) == ("succeeded", 1000, None)
    else:
        assert (capture_status, capture_body) == (409, refused("captured", "cancelled", CAPTURABLE))
        assert cancel_status == 200
        assert (final["status"], final["amount_received"], final["captured_at"]) == ("cancelled", 0, None)


def test_concurrent_creates_with_one_payment_id_create_one_payment(app: Flask, api: Api) -> None:
    answers = race(app, [lambda a: a.post("/payments", payloads.payment(payment_id="pay_1"))] * RACERS)

    assert statuses(answers) == Counter({200: 1, 400: RACERS - 1})
    assert losers(answers) == [
        error(
            "HE_01", "The payment with the specified payment_id already exists in our records", "payment_id"
        )
    ] * (RACERS - 1)
    assert payment_count(api) == 1


def test_concurrent_creates_of_different_payments_all_land(app: Flask, api: Api) -> None:
    requests: list[Request] = [
        (lambda a, i=i: a.post("/payments", payloads.payment(payment_id=f"pay_{i}"))) for i in range(8)
    ]

    answers = race(app, requests)

    assert statuses(answers) == Counter({200: 8})
    listed = ok(api.post("/payments/list", {"limit": 100}))
    assert sorted(p["payment_id"] for p in listed["data"]) == [f"pay_{i}" for i in range(8)]


def test_concurrent_customer_creates_with_one_id_create_one_customer(app: Flask, api: Api) -> None:
    answers = race(
        app,
        [
            lambda a, i=i: a.post("/customers", {"customer_id": "cus_1", "name": f"n{i}"})
            for i in range(RACERS)
        ],
    )

    assert statuses(answers) == Counter({200: RACERS})
    [customer] = ok(api.get("/customers/list"))["data"]
    assert all(body == customer for _, body in answers)  # each answers the one created


def test_concurrent_confirms_of_different_payments_all_succeed(app: Flask, api: Api) -> None:
    for i in range(RACERS):
        create(api, None, payment_id=f"pay_{i}")
    requests: list[Request] = [
        (lambda a, i=i: a.post(f"/payments/pay_{i}/confirm", payloads.confirmation())) for i in range(RACERS)
    ]

    answers = race(app, requests)

    assert statuses(answers) == Counter({200: RACERS})
    assert ok(api.post("/payments/list", {"status": "succeeded"}))["total_count"] == RACERS


def test_capture_racing_expiry_leaves_one_consistent_outcome(app: Flask, api: Api) -> None:
    create(api, payment_id="pay_1", capture_method="manual")

    answers = race(
        app,
        [
            lambda a: a.post("/payments/pay_1/capture", {}),
            lambda a: a.post("/__mock/clock/advance", {"seconds": WEEK}),
        ],
    )

    (capture_status, capture_body), (advance_status, _) = answers
    assert advance_status == 200
    final = retrieve(api, "pay_1")
    if capture_status == 200:
        assert (final["status"], final["amount_received"], final["amount_capturable"]) == (
            "succeeded",
            1000,
            0,
        )
    else:
        assert (capture_status, capture_body) == (400, refused("captured", "expired", CAPTURABLE))
        assert (final["status"], final["amount_received"], final["amount_capturable"]) == ("expired", 0, 0)


def test_concurrent_requests_never_pass_the_rate_limit(app: Flask, admin: Api) -> None:
    credentials = ok(admin.post("/__mock/merchants", {"merchant_id": "merchant_limited", "rate_limit": 3}))

    answers = race(app, [lambda a: a.get("/health")] * 8, key=credentials["secret_key"])

    assert statuses(answers) == Counter({200: 3, 429: 5})
