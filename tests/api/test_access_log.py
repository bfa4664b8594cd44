"""The access log: a line per request at info; at debug its bodies, with no card or account number."""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from mocksrv.accesslog import BODY_LIMIT, masked
from tests import payloads
from tests.api.conftest import OtherMerchant
from tests.api.scenarios import CHALLENGE_CARD, DECLINE_CARD, ok
from tests.conftest import Api
from tests.payloads import MERCHANT_ID, PROFILE_ID, SECRET_KEY

LOGGER = "mocksrv.access"
LINE = re.compile(
    r"(?P<method>[A-Z]+) (?P<target>\S+) (?P<status>[0-9]{3}|-) [0-9]+\.[0-9]{2}ms merchant=(?P<merchant>\S+)"
    r"(?: request=(?P<request>.*?) response=(?P<response>.*))?"
)
CVC = "8317"
CARDS = ["4242424242424242", "5555555555554444", "378282246310005", DECLINE_CARD, CHALLENGE_CARD]
ANSWERED_STATUSES = ["succeeded", "succeeded", "succeeded", "failed", "requires_customer_action"]
BANK_ACCOUNT = "123456789012"
PAYOUT: dict[str, Any] = {
    "amount": 1000,
    "currency": "USD",
    "payout_type": "bank",
    "payout_method_data": {
        "bank": {
            "bank_account_number": BANK_ACCOUNT,
            "bank_routing_number": "110000000",
            "bank_name": "Bank of Tests",
            "bank_country_code": "US",
            "bank_city": "San Francisco",
        }
    },
}


def lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, str | None]]:
    """The access log's lines, each split into its parts; every one must have the line's shape."""
    found = []
    for record in caplog.records:
        if record.name == LOGGER:
            assert record.levelno == logging.INFO
            match = LINE.fullmatch(record.getMessage())
            assert match is not None, record.getMessage()
            found.append(match.groupdict())
    return found


def summary(caplog: pytest.LogCaptureFixture) -> list[tuple[str | None, ...]]:
    return [(line["method"], line["target"], line["status"], line["merchant"]) for line in lines(caplog)]


def card_payment(number: str) -> dict[str, Any]:
    return payloads.payment(payment_method_data=payloads.card(number, card_cvc=CVC))


@pytest.fixture
def at_info(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger=LOGGER)
    return caplog


@pytest.fixture
def at_debug(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    return caplog


# -- info: one line per request ----------------------------------------------------------------------


def test_each_request_logs_method_path_status_time_and_merchant(
    api: Api, at_info: pytest.LogCaptureFixture
) -> None:
    payment = ok(api.post("/payments", payloads.payment()))
    ok(api.get(f"/payments/{payment['payment_id']}"))

    assert summary(at_info) == [
        ("POST", "/payments", "200", MERCHANT_ID),
        ("GET", f"/payments/{payment['payment_id']}", "200", MERCHANT_ID),
    ]
    assert [line["request"] for line in lines(at_info)] == [None, None]


def test_the_line_is_exactly_method_path_status_milliseconds_merchant(
    api: Api, at_info: pytest.LogCaptureFixture
) -> None:
    api.get("/health")

    [record] = at_info.records
    assert (record.name, record.levelname) == (LOGGER, "INFO")
    assert re.fullmatch(r"GET /health 200 [0-9]+\.[0-9]{2}ms merchant=merchant_default", record.getMessage())


def test_a_request_without_a_key_logs_no_merchant(
    client: FlaskClient, at_info: pytest.LogCaptureFixture
) -> None:
    client.get("/health")
    client.get("/nowhere")

    assert summary(at_info) == [("GET", "/health", "401", "-"), ("GET", "/nowhere", "404", "-")]


def test_a_refused_request_still_names_the_merchant_of_its_key(
    api: Api, at_info: pytest.LogCaptureFixture
) -> None:
    api.post("/payments", {**payloads.payment(), "amount": -1})

    assert summary(at_info) == [("POST", "/payments", "400", MERCHANT_ID)]


def test_a_connection_closed_without_an_answer_logs_no_status(
    api: Api, at_info: pytest.LogCaptureFixture
) -> None:
    ok(api.post("/__mock/faults", {"effect": {"type": "drop"}, "match": {"path": "/customers/list"}}))

    api.get("/customers/list")

    assert summary(at_info)[-1] == ("GET", "/customers/list", "-", MERCHANT_ID)


def test_the_query_string_is_part_of_the_path(admin: Api, at_info: pytest.LogCaptureFixture) -> None:
    admin.get(f"/__mock/clock?merchant_id={MERCHANT_ID}")

    assert summary(at_info) == [("GET", f"/__mock/clock?merchant_id={MERCHANT_ID}", "200", MERCHANT_ID)]


def test_the_control_plane_names_the_merchant_of_a_secret_key(
    other_merchant: OtherMerchant, at_info: pytest.LogCaptureFixture
) -> None:
    other_merchant.api.get("/__mock/clock")

    assert summary(at_info) == [("GET", "/__mock/clock", "200", "merchant_other")]


def test_the_admin_key_on_a_merchants_account_names_that_merchant(
    admin: Api, at_info: pytest.LogCaptureFixture
) -> None:
    admin.get(f"/account/{MERCHANT_ID}/business_profile")

    assert summary(at_info) == [("GET", f"/account/{MERCHANT_ID}/business_profile", "200", MERCHANT_ID)]


def test_the_admin_key_alone_names_no_merchant(admin: Api, at_info: pytest.LogCaptureFixture) -> None:
    admin.post("/__mock/merchants", {"merchant_id": "merchant_new"})

    assert summary(at_info) == [("POST", "/__mock/merchants", "200", "-")]


def test_warning_level_silences_the_access_log(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)

    api.get("/health")
    api.post("/payments", card_payment("4242424242424242"))

    assert [record for record in caplog.records if record.name == LOGGER] == []


# -- debug: the bodies, masked -------------------------------------------------------------------------


def test_debug_logs_both_bodies_with_card_numbers_and_cvcs_masked(
    api: Api, at_debug: pytest.LogCaptureFixture
) -> None:
    for number in CARDS:
        api.post("/payments", card_payment(number))

    logged = lines(at_debug)
    assert [line["status"] for line in logged] == ["200"] * len(CARDS)
    sent = [orjson.loads(line["request"] or "") for line in logged]
    assert [body["payment_method_data"]["card"] for body in sent] == [
        {
            "card_number": "*" * (len(number) - 4) + number[-4:],
            "card_exp_month": "12",
            "card_exp_year": "2099",
            "card_cvc": "***",
        }
        for number in CARDS
    ]
    answered = [orjson.loads(line["response"] or "") for line in logged]
    assert [body["status"] for body in answered] == ANSWERED_STATUSES
    for number in CARDS:
        assert number not in at_debug.text
    assert f'"{CVC}"' not in at_debug.text


def test_debug_masks_a_card_number_written_in_groups(api: Api, at_debug: pytest.LogCaptureFixture) -> None:
    api.post("/payments", card_payment("4242 4242 4242 4242"))

    [line] = lines(at_debug)
    assert "4242 4242 4242 4242" not in at_debug.text
    sent = orjson.loads(line["request"] or "")
    assert sent["payment_method_data"]["card"]["card_number"] == "***************4242"


def test_debug_masks_the_bank_account_number_of_a_payout(
    api: Api, at_debug: pytest.LogCaptureFixture
) -> None:
    ok(api.post("/payouts/create", copy.deepcopy(PAYOUT)))

    [line] = lines(at_debug)
    assert BANK_ACCOUNT not in at_debug.text
    sent = orjson.loads(line["request"] or "")
    answered = orjson.loads(line["response"] or "")
    assert sent["payout_method_data"]["bank"]["bank_account_number"] == "********9012"
    assert answered["payout_method_data"]["bank"]["bank_account_number"] == "****9012"


def test_debug_masks_the_processor_token_of_a_payout(api: Api, at_debug: pytest.LogCaptureFixture) -> None:
    token = {"psp_token": "tok_passthrough_8f3a9c1d2e", "token_type": "ach"}
    ok(api.post("/payouts/create", {**PAYOUT, "payout_method_data": {"passthrough": token}}))

    [line] = lines(at_debug)
    assert "tok_passthrough" not in at_debug.text
    masked = {"passthrough": {"psp_token": "**********************1d2e", "token_type": "ach"}}
    assert orjson.loads(line["request"] or "")["payout_method_data"] == masked
    assert orjson.loads(line["response"] or "")["payout_method_data"] == masked


def test_debug_masks_card_numbers_in_a_body_that_is_not_json(
    client: FlaskClient, at_debug: pytest.LogCaptureFixture
) -> None:
    client.post(
        "/payments",
        data="card 4242-4242-4242-4242 cvc 123",
        content_type="text/plain",
        headers={"api-key": SECRET_KEY},
    )

    [line] = lines(at_debug)
    assert (line["status"], line["request"]) == ("400", "card ************4242 cvc ***")


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("card_number=4242424242424242&card_cvc=987", "card_number=************4242&card_cvc=***"),
        (
            '{"card_cvc": "987", "card_number": "4242424242424242",}',
            '{"card_cvc": "***", "card_number": "************4242",}',
        ),
        (
            "bank_account_number=000123456789&iban=DE89370400440532013000",
            "bank_account_number=********6789&iban=******************3000",
        ),
        ("account_number: 12345678", "account_number: ****5678"),
    ],
)
def test_debug_masks_keyed_numbers_in_a_body_that_is_not_json(
    client: FlaskClient, at_debug: pytest.LogCaptureFixture, body: str, shown: str
) -> None:
    client.post(
        "/payments",
        data=body,
        content_type="application/x-www-form-urlencoded",
        headers={"api-key": SECRET_KEY},
    )

    [line] = lines(at_debug)
    assert line["request"] == shown


def test_debug_shows_a_dash_for_an_empty_body(api: Api, at_debug: pytest.LogCaptureFixture) -> None:
    api.get("/health")

    [line] = lines(at_debug)
    assert (line["request"], line["response"]) == ("-", '{"status":"healthy"}')


def test_debug_caps_a_long_body(api: Api, at_debug: pytest.LogCaptureFixture) -> None:
    long = payloads.payment(profile_id=PROFILE_ID, description="x" * 10_000)
    api.post("/payments", long)

    [line] = lines(at_debug)
    request = line["request"] or ""
    assert len(request) == BODY_LIMIT + len(f"...({len(orjson.dumps(long))} bytes)")
    assert request.endswith(f"...({len(orjson.dumps(long))} bytes)")


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        (b"", "-"),
        (b'{"iban":"GB82WEST12345698765432"}', '{"iban":"******************5432"}'),
        (b'[{"account_number":"12345678"}]', '[{"account_number":"****5678"}]'),
        (
            b'{"card":{"cvc":"123","card_number":4242424242424242}}',
            '{"card":{"cvc":"***","card_number":"************4242"}}',
        ),
        (b'{"card_cvc":null,"card_number":{"nested":1}}', '{"card_cvc":null,"card_number":"***"}'),
        (b'{"note":"paid with 4242424242424242"}', '{"note":"paid with ************4242"}'),
        (
            b'{"amount":99999999999,"created":"2026-01-22T18:43:56.112Z"}',
            '{"amount":99999999999,"created":"2026-01-22T18:43:56.112Z"}',
        ),
        (b"number=4111 1111 1111 1111&x=1", "number=************1111&x=1"),
        (b"a\nb", "a\\nb"),
        ("caf\u00e9\t\U0001f4b3".encode(), "caf\u00e9\\t\U0001f4b3"),
        (b"twenty digits 12345678901234567890 stay", "twenty digits 12345678901234567890 stay"),
    ],
)
def test_masked_shows_a_body_on_one_line_without_numbers(body: bytes, shown: str) -> None:
    assert masked(body) == shown
