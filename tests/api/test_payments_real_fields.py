"""Payment requests as the real service's clients write them: its fields, its enum values, its names."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mocksrv.api import real_values
from mocksrv.domain.sandbox import Sandbox
from tests import payloads
from tests.api.expected import card_data, card_payment, customer_details, invalid, later, malformed, missing
from tests.api.scenarios import STATUSES, advance, create, ok, payment_count, payment_in, retrieve
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

pytestmark = pytest.mark.usefixtures("frozen")

# Every field of the real create request that mocksrv keeps and shows back, with a valid value.
# (Those that save a method, set up or charge a mandate have tests of their own: test_recurring_api.py.)
ECHOED: dict[str, Any] = {
    "shipping": {
        "address": {"line1": "2 Dock Road", "city": "Oakland", "zip": "94607", "country": "US"},
        "phone": {"number": "5105550100", "country_code": "+1"},
        "email": "ship@example.com",
    },
    "off_session": False,
    "statement_descriptor_name": "Seed Shop",
    "statement_descriptor_suffix": "ORDER 1",
    "payment_experience": "redirect_to_url",
    "business_country": "US",
    "business_label": "food",
    "allowed_payment_method_types": ["credit", "debit", "apple_pay"],
    "connector_metadata": {"noon": {"order_category": "pay"}},
    "surcharge_details": {"surcharge_amount": 5, "tax_amount": 1},
    "frm_metadata": {"score": 1},
    "request_extended_authorization": False,
    "merchant_order_reference_id": "order_1",
    "order_tax_amount": 100,
    "shipping_cost": 0,
    "force_3ds_challenge": False,
    "is_iframe_redirection_enabled": False,
    "payment_channel": "ecommerce",
    "enable_partial_authorization": False,
    "enable_overcapture": False,
    "is_stored_credential": False,
    "mit_category": "unscheduled",
    "billing_descriptor": {"name": "Seed Shop", "city": "San Francisco", "reference": "r1"},
    "tokenization": "skip_psp",
    "partner_merchant_identifier_details": {"partner_details": {"name": "p"}},
    "split_payments": {
        "stripe_split_payment": {
            "charge_type": "direct",
            "application_fees": 10,
            "transfer_account_id": "acct_1",
        }
    },
}

# The fields mocksrv checks and otherwise ignores, with a valid value.
CHECKED: dict[str, Any] = {
    "amount_to_capture": 1000,
    "routing": {"type": "single", "data": {"connector": "stripe"}},
    "connector": ["stripe", "adyen"],
    "customer_acceptance": {"acceptance_type": "offline"},
    "merchant_connector_details": {"creds_identifier": "c", "encoded_data": "e"},
    "payment_link": False,
    "payment_link_config": {"theme": "#000000"},
    "payment_link_config_id": "plc_1",
    "payment_type": "normal",
    "request_incremental_authorization": False,
    "request_external_three_ds_authentication": False,
    "three_ds_data": {
        "authentication_cryptogram": {"cavv": {"authentication_cryptogram": "AAABBEg0VhI0VniQEjRWAAAAAAA="}},
        "ds_trans_id": "f25084f0-5b16-4c0a-ae5d-b24808a95e4b",
        "version": "2.2.0",
        "eci": "05",
        "transaction_status": "Y",
        "exemption_indicator": "low_value",
        "network_params": {
            "cartes_bancaires": {"cavv_algorithm": "02", "cb_exemption": "low_value", "cb_score": 12}
        },
    },
    "skip_external_tax_calculation": True,
    "psd2_sca_exemption_type": "low_value",
    "ctp_service_details": {"provider": "visa"},
    "threeds_method_comp_ind": "Y",
    "all_keys_required": False,
    "tax_status": "taxable",
    "discount_amount": 0,
    "shipping_amount_tax": 10,
    "duty_amount": 0,
    "order_date": "2026-01-02T03:04:05Z",
    "frm_id": "frm_1",
    "session_expiry": 900,
    "browser_info": {"user_agent": "Mozilla/5.0", "device_model": "Pixel", "accept_language": "en"},
}


def test_a_create_with_every_real_field_is_a_payment_showing_what_it_keeps(api: Api, frozen: str) -> None:
    body = payloads.payment(payment_id="pay_1", **copy.deepcopy(ECHOED), **copy.deepcopy(CHECKED))

    payment = ok(api.post("/payments", body))

    # The net amount adds the order tax (100), the shipping cost (0) and the surcharge (5, tax 1).
    assert payment == card_payment(
        frozen, "pay_1", browser_info=CHECKED["browser_info"], net_amount=1106, **ECHOED
    )
    assert ok(api.get("/payments/pay_1")) == payment


def test_an_update_keeps_the_fields_kept_before_beside_those_it_sends(api: Api) -> None:
    create(api, None, payment_id="pay_1", merchant_order_reference_id="order_1", off_session=True)

    updated = ok(
        api.post("/payments/pay_1", {"merchant_order_reference_id": "order_2", "business_label": "m"})
    )

    assert (updated["merchant_order_reference_id"], updated["off_session"], updated["business_label"]) == (
        "order_2",
        True,
        "m",
    )


@pytest.mark.parametrize(
    ("capture_method", "status", "received", "capturable"),
    [
        ("automatic", "succeeded", 1000, 0),
        ("sequential_automatic", "succeeded", 1000, 0),
        ("manual", "requires_capture", 0, 1000),
        ("manual_multiple", "requires_capture", 0, 1000),
        ("scheduled", "requires_capture", 0, 1000),
    ],
)
def test_every_real_capture_method_is_taken(
    api: Api, capture_method: str, status: str, received: int, capturable: int
) -> None:
    payment = create(api, capture_method=capture_method)

    assert (payment["capture_method"], payment["status"]) == (capture_method, status)
    assert (payment["amount_received"], payment["amount_capturable"]) == (received, capturable)


def test_a_scheduled_payment_is_captured_as_a_manual_one(api: Api) -> None:
    create(api, payment_id="pay_1", capture_method="scheduled")

    captured = ok(api.post("/payments/pay_1/capture", {"amount_to_capture": 400}))

    assert (captured["status"], captured["amount_received"], captured["amount_capturable"]) == (
        "partially_captured",
        400,
        0,
    )


# Modelled: test_redirect_methods_api.py has the methods that go through the authorization page, and
# the bank debits.
MODELLED = {"card", "crypto", "wallet", "bank_transfer", "pay_later", "bank_redirect", "bank_debit"}


# The kinds answered with a summary of their own fields, whatever was sent (the rest, as kept).
SUMMARIES = {
    "network_token": dict.fromkeys(
        (
            "last4",
            "card_type",
            "card_network",
            "token_isin",
            "card_issuer",
            "card_issuing_country",
            "token_exp_month",
            "token_exp_year",
            "card_holder_name",
        )
    )
}


@pytest.mark.parametrize("kind", [k for k in real_values.PAYMENT_METHOD_DATA_KINDS if k not in MODELLED])
def test_a_method_mocksrv_does_not_model_yet_succeeds_unless_a_magic_value_says_otherwise(
    api: Api, kind: str
) -> None:
    method = kind if kind in real_values.PAYMENT_METHODS else "card"
    body = payloads.payment(None, confirm=True, payment_method=method, payment_method_type="klarna")
    body.update(payment_method_data={kind: {"details": "x"}}, billing=copy.deepcopy(payloads.BILLING))

    response = api.post("/payments", body)

    if kind not in real_values.PAYMENT_METHODS:  # card_token, mandate data and the like name no method
        assert (response.status_code, response.json) == (
            400,
            invalid("payment_method_data", f"holds {kind} data for payment_method card"),
        )
        return
    payment = ok(response)
    assert (payment["status"], payment["payment_method"], payment["payment_method_data"]) == (
        "succeeded",
        kind,
        {kind: SUMMARIES.get(kind, {"details": "x"})},
    )


def test_a_gift_cards_pin_and_cvv2_are_never_kept_nor_shown(api: Api, sandbox: Sandbox) -> None:
    card = {"account_number": "6006491234567890", "pin": "4321", "cvv2": "987", "expiration_date": "122030"}
    body = payloads.payment(
        None, confirm=True, payment_method="gift_card", payment_method_type="bhn_card_network"
    )
    body.update(
        payment_method_data={"gift_card": {"bhn_card_network": card}}, billing=copy.deepcopy(payloads.BILLING)
    )

    created = ok(api.post("/payments", body))

    kept = {"bhn_card_network": {"account_number": "****7890", "expiration_date": "122030"}}
    stored = sandbox.payments.retrieve(MERCHANT_ID, created["payment_id"])
    assert stored.payment_method_data == {"gift_card": kept}
    # Answered as the real service answers this kind of gift card: by its kind alone.
    assert created["payment_method_data"] == {"gift_card": {"bhn_card_network": {}}}
    assert retrieve(api, created["payment_id"])["payment_method_data"] == {
        "gift_card": {"bhn_card_network": {}}
    }
    journal = str(ok(api.get("/__mock/requests?limit=1")))
    assert "'4321'" not in journal
    assert "'987'" not in journal


def test_the_billing_inside_the_method_data_is_the_billing_the_spec_asks_for(api: Api) -> None:
    body = payloads.payment(payment_id="pay_1")
    billing = body.pop("billing")
    body["payment_method_data"]["billing"] = billing

    payment = ok(api.post("/payments", body))

    assert (payment["status"], payment["billing"]) == ("succeeded", billing)
    assert payment["payment_method_data"] == card_data()


def test_a_confirm_takes_the_billing_inside_the_method_data_as_the_payments(api: Api) -> None:
    create(api, None, payment_id="pay_1")
    body = payloads.confirmation()
    billing = body.pop("billing")
    body["payment_method_data"]["billing"] = billing

    payment = ok(api.post("/payments/pay_1/confirm", body))

    assert (payment["status"], payment["billing"]) == ("succeeded", billing)


def test_billing_inside_the_method_data_is_checked_as_billing(api: Api) -> None:
    body = payloads.payment()
    billing = body.pop("billing")
    del billing["address"]["zip"]
    body["payment_method_data"]["billing"] = billing

    response = api.post("/payments", body)

    assert response.status_code == 400
    assert response.json["error"]["param"] == "payment_method_data.billing.address.zip"
    assert payment_count(api) == 0


def test_order_lines_may_be_named_as_the_real_service_names_them_and_are_answered_with_both_names(
    api: Api,
) -> None:
    lines = [
        {"product_name": "Tea", "quantity": 2, "amount": 300, "product_id": "sku_1", "tax_rate": 0.2},
        {"name": "Cup", "quantity": 1, "amount": 400, "currency": "USD", "requires_shipping": True},
        {"product_name": "Gift bag", "quantity": 0, "amount": 0},  # the real minimum quantity
        {"name": "Spoon", "product_name": "Teaspoon", "quantity": 1, "amount": 50},  # each as sent
    ]

    payment = create(api, payment_id="pay_1", order_details=copy.deepcopy(lines))

    # The real service's answers require `product_name`; the spec names a line `name`.
    answered = [
        {"name": "Tea", **lines[0]},
        {"product_name": "Cup", **lines[1]},
        {"name": "Gift bag", **lines[2]},
        lines[3],
    ]
    assert payment["order_details"] == answered
    assert retrieve(api, "pay_1")["order_details"] == answered


def test_an_order_line_without_a_name_is_refused(api: Api) -> None:
    response = api.post("/payments", payloads.payment(order_details=[{"quantity": 1, "amount": 300}]))

    assert (response.status_code, response.json) == (400, missing("order_details.0.name"))


def test_the_customer_object_names_the_customer_as_customer_id_does(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1", "name": "Ada", "phone": "4155550100"}))

    payment = create(api, customer={"id": "cus_1", "name": "Ada L.", "email": "ada@example.com"})

    assert payment["customer_id"] == "cus_1"
    # What the customer record holds: the details sent along do not change it.
    assert payment["customer"] == customer_details("cus_1", name="Ada", phone="4155550100")


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {"customer": {"id": "cus_nobody"}},
            invalid("customer.id", "no such customer; create it with POST /customers first"),
        ),
        (
            {"customer_id": "cus_1", "customer": {"id": "cus_2"}},
            invalid("customer.id", "names another customer than customer_id"),
        ),
    ],
)
def test_a_customer_object_naming_no_customer_or_another_one_is_refused(
    api: Api, fields: dict[str, Any], expected: dict[str, Any]
) -> None:
    ok(api.post("/customers", {"customer_id": "cus_1"}))

    response = api.post("/payments", payloads.payment(**fields))

    assert (response.status_code, response.json) == (400, expected)
    assert payment_count(api) == 0


@pytest.mark.parametrize("seconds", [60, 0])  # 0, the real minimum: the secret expires as it is made
def test_session_expiry_sets_when_the_client_secret_expires(api: Api, frozen: str, seconds: int) -> None:
    payment = create(api, session_expiry=seconds)

    assert payment["expires_on"] == later(frozen, seconds)


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    [
        ("shipping.address.country", "XX", "not an ISO 3166 alpha-2 country code"),
        ("off_session", "yes", "not a valid boolean"),
        ("order_tax_amount", -1, "must be greater than or equal to 0 and less than or equal to 99999999999"),
        ("connector", ["nope"], None),
        ("setup_future_usage", "sometimes", "must be one of: off_session, on_session"),
        ("customer_acceptance", {"accepted_at": "2026-01-02T03:04:05Z"}, None),
        ("order_date", "yesterday", "not a valid ISO 8601 timestamp"),
        ("session_expiry", -1, "must be greater than or equal to 0 and less than or equal to 31536000"),
        ("allowed_payment_method_types", ["credit", "cheque"], None),
    ],
)
def test_a_real_field_with_a_wrong_value_is_ir_04_naming_its_path(
    api: Api, path: str, value: Any, reason: str | None
) -> None:
    body = payloads.payment()
    node = body
    *parents, last = path.split(".")
    for name in parents:
        node = node.setdefault(name, {})
    node[last] = value

    response = api.post("/payments", body)

    assert response.status_code == 400
    error = response.json["error"]
    assert error["code"] == "IR_04"
    assert error["param"].startswith(path)
    if reason is not None:
        assert response.json == invalid(path, reason)
    assert payment_count(api) == 0


def test_a_field_the_real_service_does_not_define_is_still_unknown(api: Api) -> None:
    response = api.post("/payments", payloads.payment(loyalty_points=10))

    assert (response.status_code, response.json) == (400, malformed("unknown field `loyalty_points`"))


# -- GET /payments/list: the real service's list of whole payments -----------------------------


def _ids(body: dict[str, Any]) -> list[str]:
    return [payment["payment_id"] for payment in body["data"]]


@pytest.fixture
def five(api: Api, frozen: str) -> list[str]:
    """pay_1 to pay_5, a minute apart, pay_2 and pay_4 of customer cus_1; newest first."""
    ok(api.post("/customers", {"customer_id": "cus_1"}))
    for number in range(1, 6):
        customer = {"customer_id": "cus_1"} if number % 2 == 0 else {}
        create(api, payment_id=f"pay_{number}", **customer)
        ok(api.post("/__mock/clock/advance", {"seconds": 60}))
    return ["pay_5", "pay_4", "pay_3", "pay_2", "pay_1"]


def test_get_payments_list_answers_whole_payments_newest_first(api: Api, five: list[str]) -> None:
    body = ok(api.get("/payments/list"))

    assert (body["size"], _ids(body)) == (5, five)
    assert body["data"][0] == ok(api.get("/payments/pay_5"))


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("limit=2", ["pay_5", "pay_4"]),
        ("limit=2&offset=2", ["pay_3", "pay_2"]),
        ("customer_id=cus_1", ["pay_4", "pay_2"]),
        ("starting_after=pay_4", ["pay_3", "pay_2", "pay_1"]),
        ("starting_after=pay_4&limit=1", ["pay_3"]),
        ("ending_before=pay_2", ["pay_5", "pay_4", "pay_3"]),
        ("ending_before=pay_2&limit=2", ["pay_4", "pay_3"]),
        ("starting_after=pay_5&ending_before=pay_2", ["pay_4", "pay_3"]),
        ("customer_id=cus_1&starting_after=pay_4", ["pay_2"]),
        ("unknown_parameter=1", ["pay_5", "pay_4", "pay_3", "pay_2", "pay_1"]),
    ],
)
def test_get_payments_list_filters_by_the_real_parameters(
    api: Api, five: list[str], query: str, expected: list[str]
) -> None:
    assert _ids(ok(api.get(f"/payments/list?{query}"))) == expected


def test_get_payments_list_filters_by_creation_time(api: Api, five: list[str], frozen: str) -> None:
    third = ok(api.get("/payments/pay_3"))["created"]

    assert _ids(ok(api.get(f"/payments/list?created={third}"))) == ["pay_3"]
    assert _ids(ok(api.get(f"/payments/list?created_lt={third}"))) == ["pay_2", "pay_1"]
    assert _ids(ok(api.get(f"/payments/list?created_lte={third}"))) == ["pay_3", "pay_2", "pay_1"]
    assert _ids(ok(api.get(f"/payments/list?created_gt={third}"))) == ["pay_5", "pay_4"]
    assert _ids(ok(api.get(f"/payments/list?created_gte={third}&created_lt={later(third, 60)}"))) == ["pay_3"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("starting_after=pay_nope", invalid("starting_after", "no such payment")),
        ("ending_before=pay_nope", invalid("ending_before", "no such payment")),
        ("limit=0", invalid("limit", "must be greater than or equal to 1 and less than or equal to 100")),
        ("limit=ten", invalid("limit", "not a valid integer")),
        ("limit=%EF%BC%95", invalid("limit", "not a valid integer")),
        ("offset=%D9%A5", invalid("offset", "not a valid integer")),
        ("created_gt=yesterday", invalid("created_gt", "not a valid ISO 8601 timestamp")),
    ],
)
def test_get_payments_list_with_a_bad_parameter_is_ir_04(
    api: Api, five: list[str], query: str, expected: dict[str, Any]
) -> None:
    response = api.get(f"/payments/list?{query}")

    assert (response.status_code, response.json) == (400, expected)


# -- expand_attempts and expand_captures ------------------------------------------------------

ATTEMPT_STATUS_OF = {
    "requires_payment_method": None,
    "requires_confirmation": None,
    "requires_customer_action": "authentication_pending",
    "requires_merchant_action": "unresolved",
    "processing": "pending",
    "requires_capture": "authorized",
    "partially_captured": "partial_charged",
    "partially_captured_and_capturable": "partial_charged_and_chargeable",
    "succeeded": "charged",
    "failed": "authorization_failed",
    "cancelled": None,  # cancelled before a method was attached: never attempted
    "expired": "expired",
}


def expanded(api: Api, payment_id: str, *names: str) -> dict[str, Any]:
    query = "&".join(f"{name}=true" for name in names)
    return ok(api.get(f"/payments/{payment_id}?{query}"))


def test_a_payment_shows_no_attempts_or_captures_unless_asked(api: Api) -> None:
    create(api, payment_id="pay_1")

    body = ok(api.get("/payments/pay_1?expand_attempts=false&expand_captures=false"))

    assert "attempts" not in body
    assert "captures" not in body


@pytest.mark.parametrize("status", STATUSES)
def test_expand_attempts_shows_the_attempt_in_the_payments_state(api: Api, status: str) -> None:
    payment_in(api, status)

    body = expanded(api, "pay_1", "expand_attempts")

    attempt_status = ATTEMPT_STATUS_OF[status]
    if attempt_status is None:
        assert body["attempts"] == []
        return
    assert [attempt["status"] for attempt in body["attempts"]] == [attempt_status]
    attempt = body["attempts"][0]
    assert attempt["attempt_id"] == attempt["connector_transaction_id"] == "pay_1_1"
    assert (attempt["amount"], attempt["currency"], attempt["connector"]) == (1000, "USD", "mocksrv")
    assert (attempt["error_code"], attempt["error_message"]) == (body["error_code"], body["error_message"])
    assert attempt["modified_at"] == body["modified_at"]


def test_an_attempt_shows_what_was_sent_and_when(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", confirm=False)
    advance(api, 30)
    ok(api.post("/payments/pay_1/confirm", {}))

    assert expanded(api, "pay_1", "expand_attempts")["attempts"] == [
        {
            "attempt_id": "pay_1_1",
            "status": "charged",
            "amount": 1000,
            "currency": "USD",
            "connector": "mocksrv",
            "connector_transaction_id": "pay_1_1",
            "payment_method": "card",
            "payment_method_type": "credit",
            "capture_method": "automatic",
            "authentication_type": None,
            "error_code": None,
            "error_message": None,
            "unified_code": None,
            "unified_message": None,
            "cancellation_reason": None,
            "created_at": later(frozen, 30),
            "modified_at": later(frozen, 30),
        }
    ]


def test_a_failed_challenge_is_an_authentication_failed_attempt(api: Api) -> None:
    payment_in(api, "requires_customer_action")
    ok(api.post("/__mock/payments/pay_1/authentication", {"result": "failure"}))

    attempts = expanded(api, "pay_1", "expand_attempts")["attempts"]

    assert [(a["status"], a["error_code"]) for a in attempts] == [
        ("authentication_failed", "authentication_failed")
    ]


def test_expand_captures_lists_each_capture_in_order(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual_multiple")
    ok(api.post("/payments/pay_1/capture", {"amount_to_capture": 300}))
    advance(api, 60)
    ok(api.post("/payments/pay_1/capture", {"amount_to_capture": 700}))

    body = expanded(api, "pay_1", "expand_captures", "expand_attempts")

    assert body["captures"] == [
        {
            "capture_id": f"pay_1_1_{sequence}",
            "status": "charged",
            "amount": amount,
            "currency": "USD",
            "connector": "mocksrv",
            "authorized_attempt_id": "pay_1_1",
            "connector_capture_id": f"pay_1_1_{sequence}",
            "capture_sequence": sequence,
            "error_message": None,
            "error_code": None,
            "error_reason": None,
            "reference_id": None,
            "created_at": later(frozen, seconds),
        }
        for sequence, amount, seconds in ((1, 300, 0), (2, 700, 60))
    ]
    assert [attempt["status"] for attempt in body["attempts"]] == ["charged"]


def test_a_payment_charged_at_once_has_no_captures(api: Api) -> None:
    create(api, payment_id="pay_1")

    assert expanded(api, "pay_1", "expand_captures")["captures"] == []


@pytest.mark.parametrize("name", ["expand_attempts", "expand_captures", "force_sync"])
def test_an_expand_flag_that_is_not_a_boolean_is_refused(api: Api, name: str) -> None:
    create(api, payment_id="pay_1")

    response = api.get(f"/payments/pay_1?{name}=maybe")

    assert response.status_code == 400
    assert response.json == invalid(name, "not a valid boolean")


# -- payment_method_data as a bare name -------------------------------------------------------


def reward_payment(**fields: Any) -> dict[str, Any]:
    body = payloads.payment(None, confirm=True, payment_method="reward", payment_method_type="evoucher")
    return {**body, "payment_method_data": "reward", "billing": payloads.BILLING, **fields}


def test_a_reward_is_sent_as_the_bare_name_and_shown_as_its_kind(api: Api) -> None:
    body = ok(api.post("/payments", reward_payment(payment_id="pay_1")))

    assert (body["status"], body["payment_method"], body["payment_method_type"]) == (
        "succeeded",
        "reward",
        "evoucher",
    )
    assert body["payment_method_data"] == {"reward": {}}
    assert retrieve(api, "pay_1")["payment_method_data"] == {"reward": {}}


def test_a_reward_confirms_a_payment_awaiting_its_method(api: Api) -> None:
    create(api, None, payment_id="pay_1", payment_method="reward")

    body = ok(
        api.post("/payments/pay_1/confirm", {"payment_method_data": "reward", "billing": payloads.BILLING})
    )

    assert (body["status"], body["payment_method_data"]) == ("succeeded", {"reward": {}})


@pytest.mark.parametrize("name", ["card", ""])
def test_another_bare_name_is_refused_naming_the_field(api: Api, name: str) -> None:
    count = payment_count(api)

    response = api.post("/payments", reward_payment(payment_method_data=name))

    assert response.status_code == 400
    assert response.json == invalid(
        "payment_method_data", "must be an object or one of: reward, mandate_payment"
    )
    assert payment_count(api) == count


def test_a_reward_still_needs_the_billing_the_spec_requires(api: Api) -> None:
    body = reward_payment()
    del body["billing"]

    response = api.post("/payments", body)

    assert response.status_code == 400
    assert response.json == missing("billing")


# -- the real fields of update, confirm, capture and cancel ------------------------------------


def test_a_confirmation_with_the_secret_key_applies_the_real_fields_it_sends(api: Api, frozen: str) -> None:
    create(api, None, payment_id="pay_1")
    body = payloads.confirmation(amount=2599, description="Red shoes", metadata={"order_id": "42"})
    body.update(capture_method="manual", session_expiry=60, statement_descriptor_name="SHOES")

    confirmed = ok(api.post("/payments/pay_1/confirm", body))

    assert (confirmed["status"], confirmed["amount"], confirmed["amount_capturable"]) == (
        "requires_capture",
        2599,
        2599,
    )
    assert (confirmed["description"], confirmed["metadata"], confirmed["capture_method"]) == (
        "Red shoes",
        {"order_id": "42"},
        "manual",
    )
    assert confirmed["expires_on"] == later(frozen, 60)
    assert retrieve(api, "pay_1") == confirmed


def test_a_checkout_page_confirms_with_what_to_pay_with_never_the_amount(api: Api) -> None:
    secret = create(api, None, payment_id="pay_1")["client_secret"]
    browser = api.as_key(payloads.PUBLISHABLE_KEY)

    response = browser.post("/payments/pay_1/confirm", payloads.confirmation(amount=1, client_secret=secret))

    assert response.status_code == 400
    assert response.json == malformed("unknown field `amount`")
    assert retrieve(api, "pay_1")["status"] == "requires_payment_method"


def test_an_update_takes_session_expiry_its_own_id_retry_action_and_confirm(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1", confirm=False)

    updated = ok(
        api.post("/payments/pay_1", {"session_expiry": 120, "payment_id": "pay_1", "retry_action": "requeue"})
    )
    confirmed = ok(api.post("/payments/pay_1", {"description": "now", "confirm": True}))

    assert (updated["status"], updated["expires_on"]) == ("requires_confirmation", later(frozen, 120))
    assert (confirmed["status"], confirmed["description"]) == ("succeeded", "now")


def test_an_update_naming_another_payment_is_refused(api: Api) -> None:
    before = create(api, payment_id="pay_1", confirm=False)

    response = api.post("/payments/pay_1", {"payment_id": "pay_2", "description": "x"})

    assert (response.status_code, response.json) == (
        400,
        invalid("payment_id", "names another payment than the path does"),
    )
    assert retrieve(api, "pay_1") == before


def test_capture_and_cancel_take_the_real_fields(api: Api) -> None:
    create(api, payment_id="pay_1", capture_method="manual")
    create(api, payment_id="pay_2", capture_method="manual")
    extra = {"merchant_connector_details": {"creds_identifier": "x"}}
    capture = {
        "merchant_id": MERCHANT_ID,
        "refund_uncaptured_amount": False,
        "all_keys_required": True,
        **extra,
    }

    captured = ok(api.post("/payments/pay_1/capture", capture))
    cancelled = ok(api.post("/payments/pay_2/cancel", extra))
    other = api.post("/payments/pay_2/capture", {"merchant_id": "merchant_other"})

    assert (captured["status"], cancelled["status"]) == ("succeeded", "cancelled")
    assert (other.status_code, other.json) == (400, invalid("merchant_id", "not the merchant of the API key"))


def test_the_real_card_and_order_line_fields_and_retired_currencies_are_taken(api: Api) -> None:
    card = {
        **payloads.card()["card"],
        "nick_name": "My Visa",
        "card_issuer": "Bank",
        "card_network": "Visa",
        "card_type": "credit",
        "card_issuing_country": "US",
        "card_issuing_country_code": "US",
        "bank_code": "0001",
    }
    line = {"product_name": "Shoes", "quantity": 1, "amount": 1000, "sku": "S-1", "upc": "0123"}
    line.update(commodity_code="c", unit_of_measure="pair", total_amount=1000, unit_discount_amount=0)
    body = payloads.payment(None, payment_method_data={"card": card}, order_details=[line], currency="HRK")
    body.update(confirm=True, payment_method="card", billing=copy.deepcopy(payloads.BILLING))

    paid = ok(api.post("/payments", body))

    assert (paid["status"], paid["currency"]) == ("succeeded", "HRK")
    assert paid["payment_method_data"]["card"]["last4"] == "4242"
    refused = api.post("/payments", {**body, "payment_id": "pay_x", "currency": "XXY"})
    assert (refused.status_code, refused.json["error"]["param"]) == (400, "currency")


@pytest.mark.parametrize("name", ["oxxo", "efecty", "pago_efectivo", "red_compra", "red_pagos"])
def test_a_voucher_named_bare_is_taken_as_that_voucher(api: Api, name: str) -> None:
    body = payloads.payment(None, confirm=True, payment_method="voucher", payment_method_type=name)
    body.update(payment_method_data={"voucher": name}, billing=copy.deepcopy(payloads.BILLING))

    paid = ok(api.post("/payments", body))

    assert paid["payment_method_data"] == {"voucher": {name: {}}}
    unknown = api.post(
        "/payments", {**body, "payment_id": "pay_x", "payment_method_data": {"voucher": "cash"}}
    )
    assert (unknown.status_code, unknown.json["error"]["param"]) == (400, "payment_method_data.voucher")


def test_an_update_confirming_a_payment_without_a_method_changes_nothing(api: Api) -> None:
    before = create(api, None, payment_id="pay_1")

    response = api.post("/payments/pay_1", {"description": "now", "confirm": True})

    assert (response.status_code, response.json["error"]["param"]) == (400, "payment_method_data")
    assert retrieve(api, "pay_1") == before


@pytest.mark.parametrize("channel", ["ecommerce", "mail_order", "telephone_order", {"other": "kiosk"}])
def test_a_payment_channel_is_a_real_channel_or_another_named(api: Api, channel: Any) -> None:
    paid = create(api, payment_id="pay_1", payment_channel=channel)

    assert paid["payment_channel"] == channel
    assert retrieve(api, "pay_1")["payment_channel"] == channel


@pytest.mark.parametrize("channel", ["kiosk", {"other": 1}, {"kind": "kiosk"}, 7])
def test_a_payment_channel_of_another_shape_is_refused(api: Api, channel: Any) -> None:
    response = api.post("/payments", payloads.payment(payment_channel=channel))

    assert (response.status_code, response.json["error"]["param"]) == (400, "payment_channel")
    assert payment_count(api) == 0


# -- the real enums: a value outside one is refused, on every route that takes the field ----------

PAYMENT_METHOD_TYPES = f"must be one of: {', '.join(real_values.PAYMENT_METHOD_TYPES)}"


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("/payments/pay_1", {"payment_method_type": "cheque"}),
        ("/payments/pay_1/confirm", payloads.confirmation(payment_method_type="cheque")),
    ],
    ids=["update", "confirm"],
)
def test_a_payment_method_type_outside_the_real_enum_is_refused(api: Api, route: str, body: Any) -> None:
    before = create(api, None, payment_id="pay_1")

    response = api.post(route, body)

    assert (response.status_code, response.json) == (
        400,
        invalid("payment_method_type", PAYMENT_METHOD_TYPES),
    )
    assert retrieve(api, "pay_1") == before


def test_a_checkout_page_confirming_with_a_payment_method_type_outside_the_real_enum_is_refused(
    api: Api,
) -> None:
    before = create(api, None, payment_id="pay_1")
    browser = api.as_key(payloads.PUBLISHABLE_KEY)
    body = payloads.confirmation(client_secret=before["client_secret"], payment_method_type="Credit")

    response = browser.post("/payments/pay_1/confirm", body)

    assert (response.status_code, response.json) == (
        400,
        invalid("payment_method_type", PAYMENT_METHOD_TYPES),
    )
    assert retrieve(api, "pay_1") == before


@pytest.mark.parametrize("product_type", ["physical", "digital", "travel", "ride", "event", "accommodation"])
def test_an_order_line_of_each_real_product_type_is_kept(api: Api, product_type: str) -> None:
    line = {"product_name": "Tea", "quantity": 1, "amount": 1000, "product_type": product_type}

    payment = create(api, payment_id="pay_1", order_details=[line])

    assert payment["order_details"] == [{"name": "Tea", **line}]
    assert retrieve(api, "pay_1")["order_details"] == [{"name": "Tea", **line}]


def test_an_order_line_of_another_product_type_is_refused_naming_its_path(api: Api) -> None:
    lines = [
        {"product_name": "Tea", "quantity": 1, "amount": 500, "product_type": "digital"},
        {"product_name": "Cup", "quantity": 1, "amount": 500, "product_type": "gadget"},
    ]

    response = api.post("/payments", payloads.payment(order_details=lines))

    assert (response.status_code, response.json) == (
        400,
        invalid(
            "order_details.1.product_type",
            "must be one of: physical, digital, travel, ride, event, accommodation",
        ),
    )
    assert payment_count(api) == 0


THREE_DS = "three_ds_data"
INVALID_THREE_DS_DATA: list[tuple[str, Any, dict[str, Any]]] = [
    (
        f"{THREE_DS}.transaction_status",
        "Z",
        invalid(f"{THREE_DS}.transaction_status", "must be one of: Y, N, U, A, R, C, D, I"),
    ),
    (
        f"{THREE_DS}.exemption_indicator",
        "whitelisted",
        invalid(
            f"{THREE_DS}.exemption_indicator",
            "must be one of: low_value, secure_corporate_payment, trusted_listing, "
            "transaction_risk_assessment, three_ds_outage, sca_delegation, out_of_sca_scope, other, "
            "low_risk_program, recurring_operation",
        ),
    ),
    (
        f"{THREE_DS}.network_params.cartes_bancaires.cavv_algorithm",
        "05",
        invalid(
            f"{THREE_DS}.network_params.cartes_bancaires.cavv_algorithm",
            "must be one of: 00, 01, 02, 03, 04, A",
        ),
    ),
    (f"{THREE_DS}.eci", 5, invalid(f"{THREE_DS}.eci", "not a valid string")),
    (f"{THREE_DS}.authentication_cryptogram", {}, missing(f"{THREE_DS}.authentication_cryptogram.cavv")),
    (
        f"{THREE_DS}.authentication_cryptogram.cavv.cryptogram",
        "AAAB",
        malformed("unknown field `three_ds_data.authentication_cryptogram.cavv.cryptogram`"),
    ),
    (THREE_DS, {"version": "2.2.0"}, missing(f"{THREE_DS}.authentication_cryptogram")),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"), INVALID_THREE_DS_DATA, ids=[path for path, _, _ in INVALID_THREE_DS_DATA]
)
def test_three_ds_data_outside_the_real_schema_is_refused_naming_its_path(
    api: Api, path: str, value: Any, expected: dict[str, Any]
) -> None:
    body = payloads.payment(three_ds_data=copy.deepcopy(CHECKED["three_ds_data"]))
    node = body
    *parents, last = path.split(".")
    for name in parents:
        node = node[name]
    node[last] = value

    response = api.post("/payments", body)

    assert (response.status_code, response.json) == (400, expected)
    assert payment_count(api) == 0
