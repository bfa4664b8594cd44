"""Mandates: the setup payments that create them, their lifecycle and events, and the merchant-initiated
(off-session) charges they allow or refuse."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests import payloads
from tests.api.expected import (
    Matches,
    card_data,
    card_payment,
    challenge_url,
    error,
    invalid,
    later,
    missing,
)
from tests.api.scenarios import (
    CHALLENGE_CARD,
    DECLINE_CARD,
    PROCESSING_CARD,
    advance,
    create,
    ok,
    payment_count,
    retrieve,
    sent_webhook,
)
from tests.conftest import Api
from tests.payloads import PROFILE_ID

pytestmark = pytest.mark.usefixtures("frozen")

CUSTOMER_ID = "cus_1"
CARD = "4242424242424242"
# Cards that succeed with the customer present and are declined without (fixtures/outcomes.yaml).
AUTHENTICATION_CARD = "4000002760003184"
INSUFFICIENT_FUNDS_CARD = "4000000000000341"

MANDATE_ID = Matches(r"man_[A-Za-z0-9]{20}")
PAYMENT_METHOD_ID = Matches(r"pm_[A-Za-z0-9]{20}")
EVENT_ID = Matches(r"evt_[A-Za-z0-9]{20}")

ONLINE = {
    "acceptance_type": "online",
    "accepted_at": "2024-05-01T10:00:00Z",
    "online": {"ip_address": "203.0.113.7", "user_agent": "Mozilla/5.0 (X11; Linux x86_64)"},
}
OFFLINE = {"acceptance_type": "offline"}

MANDATE_NOT_FOUND = error("HE_02", "Mandate does not exist in our records")
CUSTOMER_NOT_FOUND = error("HE_02", "Customer does not exist in our records")
METHOD_NOT_FOUND = error("HE_02", "Payment method does not exist in our records")
ALREADY_REVOKED = error("HE_03", "Mandate Validation Failed: the mandate has already been revoked")
ACTIVE_MANDATE = error("IR_10", "Customer has active mandate/subsciption")


def refused(reason: str) -> dict[str, Any]:
    """The HE_03 body of a charge the mandate does not allow."""
    return error("HE_03", f"Mandate Validation Failed: {reason}", "mandate_id")


def mandate_data(
    kind: str | None = "multi_use",
    amount: int = 5000,
    currency: str = "USD",
    acceptance: dict[str, Any] | None = ONLINE,
    **limits: Any,
) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if acceptance is not None:
        data["customer_acceptance"] = copy.deepcopy(acceptance)
    if kind is not None:
        data["mandate_type"] = {kind: {"amount": amount, "currency": currency, **limits}}
    return data


@pytest.fixture(autouse=True)
def customer(api: Api) -> str:
    ok(api.post("/customers", {"customer_id": CUSTOMER_ID}))
    return CUSTOMER_ID


def set_up(
    api: Api, number: str = CARD, payment_id: str = "pay_setup", data: Any = None, **fields: Any
) -> dict[str, Any]:
    """A customer-present payment that sets up a mandate; its answer, whatever its status."""
    body = payloads.payment(
        number,
        payment_id=payment_id,
        customer_id=CUSTOMER_ID,
        mandate_data=mandate_data() if data is None else data,
        **fields,
    )
    return ok(api.post("/payments", body))


def charge_body(
    mandate_id: str,
    amount: int = 1000,
    currency: str = "USD",
    payment_id: str = "pay_mit",
    way: str = "recurring_details",
    **fields: Any,
) -> dict[str, Any]:
    """A merchant-initiated charge of a mandate, named by recurring_details or by a top-level
    mandate_id with payment_method_data "mandate_payment"."""
    named: dict[str, Any] = (
        {"recurring_details": {"type": "mandate_id", "data": mandate_id}}
        if way == "recurring_details"
        else {"mandate_id": mandate_id, "payment_method_data": "mandate_payment"}
    )
    return {
        "payment_id": payment_id,
        "amount": amount,
        "currency": currency,
        "profile_id": PROFILE_ID,
        "confirm": True,
        "off_session": True,
        "customer_id": CUSTOMER_ID,
        **named,
        **fields,
    }


def charge(api: Api, mandate_id: str, **fields: Any) -> dict[str, Any]:
    return ok(api.post("/payments", charge_body(mandate_id, **fields)))


def mandate(
    mandate_id: Any,
    payment_method_id: Any,
    status: str = "active",
    number: str = CARD,
    acceptance: dict[str, Any] = ONLINE,
) -> dict[str, Any]:
    """A mandate's body, as GET /mandates/:id shows it."""
    return {
        "mandate_id": mandate_id,
        "status": status,
        "payment_method_id": payment_method_id,
        "payment_method": "card",
        "payment_method_type": "credit",
        "card": {
            "last4_digits": number[-4:],
            "card_exp_month": "12",
            "card_exp_year": "2099",
            "card_holder_name": None,
            "card_token": None,
            "scheme": "Visa",
            "issuer_country": "US",
            "card_fingerprint": None,
            "card_isin": number[:6],
            "card_issuer": "mocksrv test bank",
            "card_network": "Visa",
            "card_type": "credit",
            "nick_name": None,
        },
        "customer_acceptance": acceptance,
    }


def mandate_of(api: Api, setup: dict[str, Any]) -> dict[str, Any]:
    return ok(api.get(f"/mandates/{setup['mandate_id']}"))


def mandates_of(api: Api, customer_id: str = CUSTOMER_ID) -> list[dict[str, Any]]:
    response = api.get(f"/customers/{customer_id}/mandates")
    assert response.status_code == 200, response.get_json()
    mandates: list[dict[str, Any]] = response.get_json()
    return mandates


def status_of(api: Api, setup: dict[str, Any]) -> str:
    status: str = mandate_of(api, setup)["status"]
    return status


def saved_card_data(number: str = CARD) -> dict[str, Any]:
    """What a charge of a saved card shows of it: the card's summary, its CVC not checked."""
    data = card_data(number)
    data["card"]["payment_checks"]["cvc_check"] = "unavailable"
    return data


def mandate_charge(now: str, payment_id: str, setup: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The body of a successful off-session charge of the mandate `setup` set up."""
    return card_payment(
        now,
        payment_id,
        **{
            "customer_id": CUSTOMER_ID,
            "payment_method_data": saved_card_data(),
            "billing": None,
            "return_url": None,
            "mandate_id": setup["mandate_id"],
            "payment_method_id": setup["payment_method_id"],
            "off_session": True,
            **changes,
        },
    )


def logged_events(api: Api) -> list[dict[str, Any]]:
    """Every event of the default merchant, oldest first."""
    return list(reversed(ok(api.get("/__mock/events?limit=100"))["data"]))


def event_kinds(api: Api) -> list[tuple[str, str]]:
    return [(event["event_type"], event["object_id"]) for event in logged_events(api)]


def mandate_event(event_type: str, mandate_id: str, created: str) -> dict[str, Any]:
    return {
        "event_id": EVENT_ID,
        "event_type": event_type,
        "content_type": "mandate_details",
        "object_id": mandate_id,
        "created": created,
        "delivery": {"state": "no_endpoint", "attempts": 0, "next_attempt_at": None},
    }


def sent_content(api: Api, event_id: str) -> dict[str, Any]:
    """The `content` a delivery of the event sends, as the retry route tells it."""
    content: dict[str, Any] = sent_webhook(api, event_id)["content"]
    return content


def method_count(api: Api) -> int:
    return len(ok(api.get(f"/customers/{CUSTOMER_ID}/payment_methods"))["customer_payment_methods"])


# -- setting a mandate up ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["single_use", "multi_use"])
@pytest.mark.parametrize("acceptance", [ONLINE, OFFLINE], ids=["online", "offline"])
def test_a_setup_payment_with_mandate_data_gives_a_mandate_and_a_saved_method(
    api: Api, frozen: str, kind: str, acceptance: dict[str, Any]
) -> None:
    data = mandate_data(kind, acceptance=acceptance)

    response = api.post(
        "/payments", payloads.payment(payment_id="pay_setup", customer_id=CUSTOMER_ID, mandate_data=data)
    )

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen,
        "pay_setup",
        customer_id=CUSTOMER_ID,
        mandate_id=MANDATE_ID,
        payment_method_id=PAYMENT_METHOD_ID,
        mandate_data=data,
    )
    body = response.json
    assert ok(api.get(f"/mandates/{body['mandate_id']}")) == mandate(
        body["mandate_id"], body["payment_method_id"], acceptance=acceptance
    )
    saved = ok(api.get(f"/payment_methods/{body['payment_method_id']}"))
    assert (saved["customer_id"], saved["recurring_enabled"], saved["card"]["last4_digits"]) == (
        CUSTOMER_ID,
        True,
        "4242",
    )


def test_a_top_level_customer_acceptance_stands_for_the_mandates(api: Api) -> None:
    setup = set_up(api, data=mandate_data(acceptance=None), customer_acceptance=OFFLINE)

    assert setup["status"] == "succeeded"
    assert mandate_of(api, setup) == mandate(
        setup["mandate_id"], setup["payment_method_id"], acceptance=OFFLINE
    )


def test_a_mandate_without_a_type_is_set_up(api: Api) -> None:
    setup = set_up(api, data=mandate_data(None))

    assert mandate_of(api, setup) == mandate(setup["mandate_id"], setup["payment_method_id"])


def test_a_null_multi_use_sets_up_a_multi_use_mandate_without_a_limit_and_is_shown_as_sent(
    api: Api, frozen: str
) -> None:
    data = {"customer_acceptance": ONLINE, "mandate_type": {"multi_use": None}}

    response = api.post(
        "/payments",
        payloads.payment(
            payment_id="pay_setup",
            customer_id=CUSTOMER_ID,
            setup_future_usage="off_session",
            mandate_data=data,
        ),
    )

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen,
        "pay_setup",
        customer_id=CUSTOMER_ID,
        mandate_id=MANDATE_ID,
        payment_method_id=PAYMENT_METHOD_ID,
        setup_future_usage="off_session",
        mandate_data={"customer_acceptance": ONLINE, "mandate_type": {"multi_use": None}},
    )
    setup = response.json
    assert mandate_of(api, setup) == mandate(setup["mandate_id"], setup["payment_method_id"])
    # Multi use, without a limit: charged again and again, far past any amount the setup named.
    for number in (1, 2, 3):
        charged = charge(api, setup["mandate_id"], amount=99_999_999, payment_id=f"pay_mit_{number}")
        assert (charged["status"], charged["mandate_id"]) == ("succeeded", setup["mandate_id"])
    assert mandate_of(api, setup) == mandate(setup["mandate_id"], setup["payment_method_id"])
    assert ok(api.get("/payments/pay_setup"))["mandate_data"] == data


def test_a_setup_payment_may_be_for_0(api: Api, frozen: str) -> None:
    data = mandate_data("single_use", amount=2000)

    response = api.post(
        "/payments",
        payloads.payment(payment_id="pay_setup", amount=0, customer_id=CUSTOMER_ID, mandate_data=data),
    )

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen,
        "pay_setup",
        amount=0,
        amount_received=0,
        customer_id=CUSTOMER_ID,
        mandate_id=MANDATE_ID,
        payment_method_id=PAYMENT_METHOD_ID,
        mandate_data=data,
    )
    assert status_of(api, response.json) == "active"


def test_a_payment_for_0_that_sets_up_nothing_is_ir_04(api: Api) -> None:
    response = api.post("/payments", payloads.payment(amount=0, customer_id=CUSTOMER_ID))

    assert response.status_code == 400
    assert response.json == invalid(
        "amount", "0 only for a setup payment, with mandate_data or setup_future_usage"
    )
    assert payment_count(api) == 0


def test_mandate_data_without_any_customer_acceptance_is_ir_04(api: Api) -> None:
    body = payloads.payment(customer_id=CUSTOMER_ID, mandate_data=mandate_data(acceptance=None))

    response = api.post("/payments", body)

    assert response.status_code == 400
    assert response.json == missing("mandate_data.customer_acceptance")
    assert payment_count(api) == 0
    assert mandates_of(api) == []


@pytest.mark.parametrize("mandate_type", [{}, {"single_use": None}])
def test_a_mandate_type_of_neither_kind_is_ir_04(api: Api, mandate_type: dict[str, Any]) -> None:
    data = {**mandate_data(kind=None), "mandate_type": mandate_type}

    response = api.post("/payments", payloads.payment(customer_id=CUSTOMER_ID, mandate_data=data))

    assert response.status_code == 400
    assert response.json == invalid("mandate_data.mandate_type", "must hold single_use or multi_use")
    assert payment_count(api) == 0
    assert mandates_of(api) == []


def test_mandate_data_without_a_customer_is_ir_04(api: Api) -> None:
    response = api.post("/payments", payloads.payment(mandate_data=mandate_data()))

    assert response.status_code == 400
    assert response.json == error(
        "IR_04",
        "Missing required param: customer_id: a payment that saves its method or sets up a mandate needs a "
        "customer",
        "customer_id",
    )
    assert payment_count(api) == 0


def test_mandate_data_sent_with_the_confirmation_sets_the_mandate_up(api: Api, frozen: str) -> None:
    create(api, None, payment_id="pay_setup", customer_id=CUSTOMER_ID)
    data = mandate_data("single_use", amount=1000)

    response = api.post("/payments/pay_setup/confirm", payloads.confirmation(mandate_data=data))

    assert response.status_code == 200
    assert response.json == card_payment(
        frozen,
        "pay_setup",
        customer_id=CUSTOMER_ID,
        mandate_id=MANDATE_ID,
        payment_method_id=PAYMENT_METHOD_ID,
        mandate_data=data,
    )
    assert status_of(api, response.json) == "active"


def test_a_mandate_is_active_once_its_setup_succeeds_with_a_mandate_active_event(
    api: Api, frozen: str
) -> None:
    setup = set_up(api)

    assert event_kinds(api) == [("payment_succeeded", "pay_setup"), ("mandate_active", setup["mandate_id"])]
    event = logged_events(api)[1]
    assert event == mandate_event("mandate_active", setup["mandate_id"], frozen)
    assert sent_content(api, event["event_id"]) == {
        "type": "mandate_details",
        "object": mandate(setup["mandate_id"], setup["payment_method_id"]),
    }


def test_a_mandate_is_active_once_its_setup_is_authorized(api: Api) -> None:
    setup = set_up(api, capture_method="manual")

    assert setup["status"] == "requires_capture"
    assert status_of(api, setup) == "active"


def test_a_declined_setup_leaves_the_mandate_inactive_without_an_event(api: Api, frozen: str) -> None:
    setup = set_up(api, DECLINE_CARD)

    assert setup == card_payment(
        frozen,
        "pay_setup",
        DECLINE_CARD,
        status="failed",
        amount_received=0,
        captured_at=None,
        error_code="card_declined",
        error_message="Your card was declined.",
        customer_id=CUSTOMER_ID,
        mandate_id=MANDATE_ID,
        payment_method_id=PAYMENT_METHOD_ID,
        mandate_data=mandate_data(),
    )
    assert mandate_of(api, setup) == mandate(
        setup["mandate_id"], setup["payment_method_id"], "inactive", DECLINE_CARD
    )
    assert event_kinds(api) == [("payment_failed", "pay_setup")]
    assert ok(api.get(f"/customers/{CUSTOMER_ID}/payment_methods"))["customer_payment_methods"] == []


def test_a_mandate_waits_pending_while_its_setup_waits_for_3ds_then_is_active(api: Api, frozen: str) -> None:
    setup = set_up(api, CHALLENGE_CARD)
    assert setup["status"] == "requires_customer_action"
    assert setup["next_action"] == {
        "type": "redirect_to_url",
        "redirect_to_url": challenge_url("pay_setup", setup["client_secret"]),
    }
    assert mandate_of(api, setup) == mandate(
        setup["mandate_id"], setup["payment_method_id"], "pending", CHALLENGE_CARD
    )
    assert event_kinds(api) == [("action_required", "pay_setup")]
    advance(api, 30)

    finished = ok(api.post("/__mock/payments/pay_setup/authentication", {"result": "success"}))

    assert finished["status"] == "succeeded"
    assert mandate_of(api, setup) == mandate(
        setup["mandate_id"], setup["payment_method_id"], "active", CHALLENGE_CARD
    )
    assert event_kinds(api) == [
        ("action_required", "pay_setup"),
        ("payment_succeeded", "pay_setup"),
        ("mandate_active", setup["mandate_id"]),
    ]
    assert logged_events(api)[2] == mandate_event("mandate_active", setup["mandate_id"], later(frozen, 30))


def test_a_failed_3ds_setup_leaves_the_mandate_inactive(api: Api) -> None:
    setup = set_up(api, CHALLENGE_CARD)

    ok(api.post("/__mock/payments/pay_setup/authentication", {"result": "failure"}))

    assert status_of(api, setup) == "inactive"
    assert event_kinds(api) == [("action_required", "pay_setup"), ("payment_failed", "pay_setup")]


def test_a_cancelled_setup_leaves_the_mandate_inactive(api: Api) -> None:
    setup = set_up(api, CHALLENGE_CARD)

    ok(api.post("/payments/pay_setup/cancel", {}))

    assert status_of(api, setup) == "inactive"


def test_a_mandate_revoked_while_pending_stays_revoked_when_its_setup_succeeds(api: Api) -> None:
    setup = set_up(api, CHALLENGE_CARD)
    ok(api.post(f"/mandates/revoke/{setup['mandate_id']}"))

    ok(api.post("/__mock/payments/pay_setup/authentication", {"result": "success"}))

    assert status_of(api, setup) == "revoked"


# -- reading mandates -------------------------------------------------------------------------


def test_an_unknown_mandate_is_he_02(api: Api) -> None:
    response = api.get("/mandates/man_unknown")

    assert response.status_code == 404
    assert response.json == MANDATE_NOT_FOUND


def test_a_customers_mandates_are_listed_newest_first(api: Api) -> None:
    first = set_up(api, payment_id="pay_1")
    advance(api, 1)
    second = set_up(api, DECLINE_CARD, payment_id="pay_2", data=mandate_data(acceptance=OFFLINE))

    response = api.get(f"/customers/{CUSTOMER_ID}/mandates")

    assert response.status_code == 200
    assert response.json == [
        mandate(second["mandate_id"], second["payment_method_id"], "inactive", DECLINE_CARD, OFFLINE),
        mandate(first["mandate_id"], first["payment_method_id"]),
    ]


def test_a_customer_without_mandates_lists_none(api: Api) -> None:
    create(api, customer_id=CUSTOMER_ID)

    response = api.get(f"/customers/{CUSTOMER_ID}/mandates")

    assert response.status_code == 200
    assert response.json == []


def test_the_mandates_of_another_customer_are_not_listed(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    set_up(api)

    assert mandates_of(api, "cus_2") == []


def test_the_mandates_of_an_unknown_customer_are_he_02(api: Api) -> None:
    response = api.get("/customers/cus_missing/mandates")

    assert response.status_code == 404
    assert response.json == CUSTOMER_NOT_FOUND


# -- revoking ---------------------------------------------------------------------------------


def test_revoking_a_mandate_answers_it_revoked_with_a_mandate_revoked_event(api: Api, frozen: str) -> None:
    setup = set_up(api)
    advance(api, 10)

    response = api.post(f"/mandates/revoke/{setup['mandate_id']}")

    assert response.status_code == 200
    assert response.json == {
        "mandate_id": setup["mandate_id"],
        "status": "revoked",
        "error_code": None,
        "error_message": None,
    }
    assert mandate_of(api, setup) == mandate(setup["mandate_id"], setup["payment_method_id"], "revoked")
    event = logged_events(api)[-1]
    assert event == mandate_event("mandate_revoked", setup["mandate_id"], later(frozen, 10))
    assert sent_content(api, event["event_id"]) == {
        "type": "mandate_details",
        "object": mandate(setup["mandate_id"], setup["payment_method_id"], "revoked"),
    }


def test_revoking_an_inactive_mandate_revokes_it(api: Api) -> None:
    setup = set_up(api, DECLINE_CARD)

    response = api.post(f"/mandates/revoke/{setup['mandate_id']}")

    assert response.status_code == 200
    assert status_of(api, setup) == "revoked"


def test_revoking_twice_is_he_03(api: Api) -> None:
    setup = set_up(api)
    ok(api.post(f"/mandates/revoke/{setup['mandate_id']}"))
    events_before = event_kinds(api)

    response = api.post(f"/mandates/revoke/{setup['mandate_id']}")

    assert response.status_code == 400
    assert response.json == ALREADY_REVOKED
    assert status_of(api, setup) == "revoked"
    assert event_kinds(api) == events_before


def test_revoking_an_unknown_mandate_is_he_02(api: Api) -> None:
    response = api.post("/mandates/revoke/man_unknown")

    assert response.status_code == 404
    assert response.json == MANDATE_NOT_FOUND


# -- charging a mandate -----------------------------------------------------------------------


def test_a_charge_through_recurring_details_pays_with_the_saved_card(api: Api, frozen: str) -> None:
    setup = set_up(api)
    advance(api, 60)

    response = api.post("/payments", charge_body(setup["mandate_id"], amount=1500))

    assert response.status_code == 200
    assert response.json == mandate_charge(
        later(frozen, 60), "pay_mit", setup, amount=1500, amount_received=1500
    )
    assert retrieve(api, "pay_mit") == response.json
    assert status_of(api, setup) == "active"


def test_a_charge_through_a_top_level_mandate_id_takes_the_mandates_customer(api: Api, frozen: str) -> None:
    setup = set_up(api)
    body = {
        "payment_id": "pay_mit",
        "amount": 1000,
        "currency": "USD",
        "profile_id": PROFILE_ID,
        "confirm": True,
        "off_session": True,
        "mandate_id": setup["mandate_id"],
        "payment_method_data": "mandate_payment",
    }

    response = api.post("/payments", body)

    assert response.status_code == 200
    assert response.json == mandate_charge(frozen, "pay_mit", setup)


def test_a_charge_is_logged_as_a_payment_event_only(api: Api) -> None:
    setup = set_up(api)

    charge(api, setup["mandate_id"])

    assert event_kinds(api) == [
        ("payment_succeeded", "pay_setup"),
        ("mandate_active", setup["mandate_id"]),
        ("payment_succeeded", "pay_mit"),
    ]


@pytest.mark.parametrize("way", ["recurring_details", "mandate_id"])
def test_a_charge_of_an_unknown_mandate_is_he_02_and_stores_nothing(api: Api, way: str) -> None:
    response = api.post("/payments", charge_body("man_unknown", way=way))

    assert response.status_code == 404
    assert response.json == MANDATE_NOT_FOUND
    assert payment_count(api) == 0


@pytest.mark.parametrize("way", ["recurring_details", "mandate_id"])
def test_mandate_data_with_a_mandate_to_charge_is_he_03(api: Api, way: str) -> None:
    setup = set_up(api)
    mandates = mandates_of(api)

    response = api.post("/payments", charge_body(setup["mandate_id"], way=way, mandate_data=mandate_data()))

    assert response.status_code == 400
    assert response.json == error(
        "HE_03",
        f"Mandate Validation Failed: Expected one out of {way} and mandate_data but got both",
        "mandate_data",
    )
    assert payment_count(api) == 1
    assert mandates_of(api) == mandates


@pytest.mark.parametrize("way", ["recurring_details", "mandate_id"])
def test_a_charge_of_a_revoked_mandate_is_he_03_and_stores_nothing(api: Api, way: str) -> None:
    setup = set_up(api)
    ok(api.post(f"/mandates/revoke/{setup['mandate_id']}"))

    response = api.post("/payments", charge_body(setup["mandate_id"], way=way))

    assert response.status_code == 400
    assert response.json == refused("the mandate has been revoked")
    assert payment_count(api) == 1


@pytest.mark.parametrize(("number", "status"), [(DECLINE_CARD, "inactive"), (CHALLENGE_CARD, "pending")])
def test_a_charge_of_a_mandate_not_active_is_he_03(api: Api, number: str, status: str) -> None:
    setup = set_up(api, number)

    response = api.post("/payments", charge_body(setup["mandate_id"]))

    assert response.status_code == 400
    assert response.json == refused(f"the mandate is {status}, not active")
    assert payment_count(api) == 1


def test_a_single_use_mandate_refuses_a_charge_over_its_amount(api: Api) -> None:
    setup = set_up(api, data=mandate_data("single_use", amount=1000))

    response = api.post("/payments", charge_body(setup["mandate_id"], amount=1001))

    assert response.status_code == 400
    assert response.json == refused("request amount is greater than mandate amount")
    assert payment_count(api) == 1
    assert status_of(api, setup) == "active"


def test_a_single_use_mandate_is_inactive_once_charged_and_refuses_a_second_charge(
    api: Api, frozen: str
) -> None:
    setup = set_up(api, data=mandate_data("single_use", amount=1000))
    assert charge(api, setup["mandate_id"]) == mandate_charge(frozen, "pay_mit", setup)
    assert mandate_of(api, setup) == mandate(setup["mandate_id"], setup["payment_method_id"], "inactive")

    response = api.post("/payments", charge_body(setup["mandate_id"], payment_id="pay_mit_2"))

    assert response.status_code == 400
    assert response.json == refused("the mandate is inactive, not active")
    assert payment_count(api) == 2


def test_a_multi_use_mandate_allows_charges_up_to_its_total(api: Api) -> None:
    setup = set_up(api, data=mandate_data("multi_use", amount=2500))
    assert charge(api, setup["mandate_id"], payment_id="pay_mit_1")["status"] == "succeeded"
    assert charge(api, setup["mandate_id"], payment_id="pay_mit_2")["status"] == "succeeded"

    response = api.post("/payments", charge_body(setup["mandate_id"], payment_id="pay_mit_3"))

    assert response.status_code == 400
    assert response.json == refused(
        "request amount and the amounts already charged are greater than mandate amount"
    )
    assert payment_count(api) == 3
    # What is left of the total may still be charged, once: then nothing is left.
    assert charge(api, setup["mandate_id"], amount=500, payment_id="pay_mit_4")["status"] == "succeeded"
    assert api.post("/payments", charge_body(setup["mandate_id"], amount=1, payment_id="pay_mit_5")).json == (
        refused("request amount and the amounts already charged are greater than mandate amount")
    )
    assert status_of(api, setup) == "active"


OVER_THE_TOTAL = refused("request amount and the amounts already charged are greater than mandate amount")


def _cancel(api: Api, payment_id: str) -> None:
    ok(api.post(f"/payments/{payment_id}/cancel", {}))


def _expire(api: Api, payment_id: str) -> None:
    advance(api, 7 * 24 * 3600)


def _capture_100(api: Api, payment_id: str) -> None:
    ok(api.post(f"/payments/{payment_id}/capture", {"amount_to_capture": 100}))


@pytest.mark.parametrize(
    ("release", "left"),
    [(_cancel, 2000), (_expire, 2000), (_capture_100, 1900)],
    ids=["cancel", "expiry", "capture"],
)
def test_an_authorization_released_gives_back_to_a_multi_use_total_what_it_did_not_capture(
    api: Api, release: Any, left: int
) -> None:
    setup = set_up(api, data=mandate_data("multi_use", amount=2000))
    held = charge(api, setup["mandate_id"], amount=1500, payment_id="pay_mit_1", capture_method="manual")
    assert held["status"] == "requires_capture"
    assert (
        api.post("/payments", charge_body(setup["mandate_id"], payment_id="pay_mit_2")).json == OVER_THE_TOTAL
    )

    release(api, "pay_mit_1")

    over = api.post("/payments", charge_body(setup["mandate_id"], amount=left + 1, payment_id="pay_mit_3"))
    assert (over.status_code, over.json) == (400, OVER_THE_TOTAL)
    assert charge(api, setup["mandate_id"], amount=left, payment_id="pay_mit_4")["status"] == "succeeded"
    assert api.post("/payments", charge_body(setup["mandate_id"], amount=1, payment_id="pay_mit_5")).json == (
        OVER_THE_TOTAL
    )
    assert status_of(api, setup) == "active"


def test_the_setup_payment_does_not_count_against_a_multi_use_total(api: Api) -> None:
    setup = set_up(api, data=mandate_data("multi_use", amount=1000))

    response = api.post("/payments", charge_body(setup["mandate_id"]))

    assert ok(response)["status"] == "succeeded"


def test_a_charge_in_another_currency_is_he_03(api: Api) -> None:
    setup = set_up(api, data=mandate_data("multi_use", currency="USD"))

    response = api.post("/payments", charge_body(setup["mandate_id"], currency="EUR"))

    assert response.status_code == 400
    assert response.json == refused("the mandate is in USD, not EUR")
    assert payment_count(api) == 1


def test_a_charge_after_the_end_date_is_he_03(api: Api, frozen: str) -> None:
    setup = set_up(api, data=mandate_data(end_date=later(frozen, 3600)))
    advance(api, 3600)
    assert charge(api, setup["mandate_id"], payment_id="pay_at_end")["status"] == "succeeded"
    advance(api, 1)

    response = api.post("/payments", charge_body(setup["mandate_id"]))

    assert response.status_code == 400
    assert response.json == refused("the mandate has expired")
    assert payment_count(api) == 2


def test_an_end_date_past_what_a_record_may_hold_is_refused(api: Api) -> None:
    body = payloads.payment(
        CARD,
        payment_id="pay_setup",
        customer_id=CUSTOMER_ID,
        mandate_data=mandate_data(end_date="9999-12-31T00:00:00Z"),
    )

    answer = api.post("/payments", body)

    assert answer.status_code == 400
    assert answer.json["error"]["message"].endswith(
        "end_date: a time from 1000-01-01 to 9100-03-18, as a record may hold"
    )
    assert payment_count(api) == 0


def test_an_end_date_without_an_offset_is_taken_as_utc(api: Api, frozen: str) -> None:
    end_date = later(frozen, 3600).removesuffix("Z")  # the real service's own format: no offset
    setup = set_up(api, data=mandate_data(end_date=end_date))

    response = api.post("/payments", charge_body(setup["mandate_id"], payment_id="pay_before_end"))

    assert ok(response)["status"] == "succeeded"
    advance(api, 3601)
    late = api.post("/payments", charge_body(setup["mandate_id"]))
    assert (late.status_code, late.json) == (400, refused("the mandate has expired"))
    assert payment_count(api) == 2


def test_a_charge_before_the_start_date_is_he_03_and_allowed_from_it(api: Api, frozen: str) -> None:
    setup = set_up(api, data=mandate_data(start_date=later(frozen, 3600)))
    assert status_of(api, setup) == "active"

    response = api.post("/payments", charge_body(setup["mandate_id"]))

    assert response.status_code == 400
    assert response.json == refused("the mandate has not started yet")
    assert payment_count(api) == 1
    advance(api, 3600)
    assert charge(api, setup["mandate_id"])["status"] == "succeeded"


def test_a_charge_of_a_mandate_whose_saved_method_was_deleted_is_he_03(api: Api) -> None:
    setup = set_up(api)
    ok(api.delete(f"/payment_methods/{setup['payment_method_id']}"))

    response = api.post("/payments", charge_body(setup["mandate_id"]))

    assert response.status_code == 400
    assert response.json == error(
        "HE_03",
        "Mandate Validation Failed: the mandate's payment method has been deleted",
        "recurring_details.data",
    )
    assert payment_count(api) == 1


def test_a_manual_capture_charge_counts_once_against_a_multi_use_total(api: Api) -> None:
    setup = set_up(api, data=mandate_data("multi_use", amount=2500))
    assert charge(api, setup["mandate_id"], payment_id="pay_mit_1", capture_method="manual")["status"] == (
        "requires_capture"
    )
    assert ok(api.post("/payments/pay_mit_1/capture", {}))["status"] == "succeeded"
    assert charge(api, setup["mandate_id"], payment_id="pay_mit_2")["status"] == "succeeded"

    response = api.post("/payments", charge_body(setup["mandate_id"], payment_id="pay_mit_3"))

    assert response.status_code == 400
    assert response.json == refused(
        "request amount and the amounts already charged are greater than mandate amount"
    )
    assert charge(api, setup["mandate_id"], amount=500, payment_id="pay_mit_4")["status"] == "succeeded"


def test_an_amount_raised_over_the_limit_before_confirming_is_refused_at_confirmation(api: Api) -> None:
    setup = set_up(api, data=mandate_data("single_use", amount=1000))
    ok(api.post("/payments", charge_body(setup["mandate_id"], confirm=False)))
    updated = ok(api.post("/payments/pay_mit", {"amount": 1500}))

    response = api.post("/payments/pay_mit/confirm", {})

    assert response.status_code == 400
    assert response.json == refused("request amount is greater than mandate amount")
    assert retrieve(api, "pay_mit") == updated
    assert status_of(api, setup) == "active"


def test_a_charge_of_another_customers_mandate_is_ir_04(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    setup = set_up(api)

    response = api.post("/payments", charge_body(setup["mandate_id"], customer_id="cus_2"))

    assert response.status_code == 400
    assert response.json == invalid(
        "recurring_details.data", "it belongs to another customer than the payment's"
    )
    assert payment_count(api) == 1


def test_a_checkout_page_cannot_charge_a_customers_mandate_to_a_guest_payment(api: Api, browser: Api) -> None:
    setup = set_up(api)
    guest = ok(api.post("/payments", {"amount": 77700, "currency": "USD", "profile_id": PROFILE_ID}))
    body = charge_body(setup["mandate_id"], client_secret=guest["client_secret"])
    body = {key: body[key] for key in ("recurring_details", "off_session", "client_secret")}

    response = browser.post(f"/payments/{guest['payment_id']}/confirm", body)

    assert response.status_code == 400
    assert response.json == invalid(
        "recurring_details.data",
        "a confirmation with the publishable key pays only with the payment's own customer's saved methods "
        "and mandates",
    )
    assert retrieve(api, guest["payment_id"]) == guest


def test_a_mandate_is_charged_by_confirming_a_payment_that_names_it(api: Api, frozen: str) -> None:
    setup = set_up(api)
    body = charge_body(setup["mandate_id"], confirm=False)
    created = ok(api.post("/payments", body))
    assert created["status"] == "requires_confirmation"

    response = api.post("/payments/pay_mit/confirm", {})

    assert response.status_code == 200
    assert response.json == mandate_charge(frozen, "pay_mit", setup)


def _revoke(api: Api, setup: dict[str, Any]) -> None:
    ok(api.post(f"/mandates/revoke/{setup['mandate_id']}"))


def _delete_method(api: Api, setup: dict[str, Any]) -> None:
    ok(api.delete(f"/payment_methods/{setup['payment_method_id']}"))


@pytest.mark.parametrize(
    ("between", "reason"),
    [
        (_revoke, "the mandate has been revoked"),
        (_delete_method, "the mandate's payment method has been deleted"),
    ],
    ids=["revoked", "method deleted"],
)
def test_a_mandate_changed_after_its_charge_was_created_refuses_the_confirmation(
    api: Api, between: Any, reason: str
) -> None:
    setup = set_up(api)
    created = ok(api.post("/payments", charge_body(setup["mandate_id"], confirm=False)))
    between(api, setup)

    response = api.post("/payments/pay_mit/confirm", {})

    assert response.status_code == 400
    assert response.json == refused(reason)
    assert retrieve(api, "pay_mit") == created


# -- magic values without the customer --------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "code", "message"),
    [
        (
            AUTHENTICATION_CARD,
            "authentication_required",
            "The card requires authentication, and the customer is not present.",
        ),
        (INSUFFICIENT_FUNDS_CARD, "insufficient_funds", "Your card has insufficient funds."),
    ],
    ids=["authentication_required", "insufficient_funds"],
)
def test_a_card_that_succeeds_on_session_is_declined_off_session(
    api: Api, frozen: str, number: str, code: str, message: str
) -> None:
    setup = set_up(api, number, data=mandate_data("single_use", amount=1000))
    assert setup["status"] == "succeeded"
    assert status_of(api, setup) == "active"

    response = api.post("/payments", charge_body(setup["mandate_id"]))

    assert response.status_code == 200
    assert response.json == mandate_charge(
        frozen,
        "pay_mit",
        setup,
        payment_method_data=saved_card_data(number),
        connector_transaction_id="pay_mit_1",
        status="failed",
        amount_received=0,
        captured_at=None,
        error_code=code,
        error_message=message,
    )
    # A declined charge does not use a single-use mandate up.
    assert status_of(api, setup) == "active"


def test_a_3ds_card_set_up_with_the_customer_is_declined_without(api: Api) -> None:
    setup = set_up(api, CHALLENGE_CARD)
    ok(api.post("/__mock/payments/pay_setup/authentication", {"result": "success"}))

    response = api.post("/payments", charge_body(setup["mandate_id"]))

    body = ok(response)
    assert (body["status"], body["error_code"], body["next_action"]) == (
        "failed",
        "authentication_required",
        None,
    )


def test_a_card_that_asks_for_3ds_with_the_customer_is_challenged_at_setup(api: Api) -> None:
    setup = set_up(api, AUTHENTICATION_CARD, authentication_type="three_ds")

    assert setup["status"] == "requires_customer_action"
    assert status_of(api, setup) == "pending"


# -- deleting the customer --------------------------------------------------------------------


def test_a_customer_with_an_active_mandate_is_not_deleted(api: Api) -> None:
    setup = set_up(api)
    methods = ok(api.get(f"/customers/{CUSTOMER_ID}/payment_methods"))

    response = api.delete(f"/customers/{CUSTOMER_ID}")

    assert response.status_code == 400
    assert response.json == ACTIVE_MANDATE
    assert ok(api.get(f"/customers/{CUSTOMER_ID}"))["customer_id"] == CUSTOMER_ID
    assert ok(api.get(f"/customers/{CUSTOMER_ID}/payment_methods")) == methods
    assert status_of(api, setup) == "active"


def test_a_customer_is_deleted_after_revoking_its_mandate_with_its_saved_methods(api: Api) -> None:
    setup = set_up(api)
    assert method_count(api) == 1
    ok(api.post(f"/mandates/revoke/{setup['mandate_id']}"))

    response = api.delete(f"/customers/{CUSTOMER_ID}")

    assert response.status_code == 200
    assert response.json == {
        "customer_id": CUSTOMER_ID,
        "customer_deleted": True,
        "address_deleted": True,
        "payment_methods_deleted": True,
    }
    method = api.get(f"/payment_methods/{setup['payment_method_id']}")
    assert (method.status_code, method.json) == (404, METHOD_NOT_FOUND)
    listed = api.get(f"/customers/{CUSTOMER_ID}/payment_methods")
    assert (listed.status_code, listed.json) == (404, CUSTOMER_NOT_FOUND)


def test_a_customer_whose_only_mandate_is_inactive_is_deleted(api: Api) -> None:
    set_up(api, DECLINE_CARD)

    response = api.delete(f"/customers/{CUSTOMER_ID}")

    assert response.status_code == 200


@pytest.mark.parametrize("ended", ["revoked", "inactive"])
def test_a_customer_created_again_with_a_deleted_ones_id_has_none_of_its_mandates(
    api: Api, ended: str
) -> None:
    setup = set_up(api, DECLINE_CARD if ended == "inactive" else CARD)
    if ended == "revoked":
        ok(api.post(f"/mandates/revoke/{setup['mandate_id']}"))
    assert status_of(api, setup) == ended
    ok(api.delete(f"/customers/{CUSTOMER_ID}"))

    ok(api.post("/customers", {"customer_id": CUSTOMER_ID}))

    assert ok(api.get(f"/customers/{CUSTOMER_ID}/mandates")) == []
    mandate = api.get(f"/mandates/{setup['mandate_id']}")
    assert (mandate.status_code, mandate.json) == (404, MANDATE_NOT_FOUND)


# -- charges in flight, and what changed between a charge's create and its confirmation ---------

SETTLES = 11  # seconds after which a processing payment of PROCESSING_CARD has its result


def set_up_slow(api: Api, data: dict[str, Any]) -> dict[str, Any]:
    """An active mandate on a card whose payments are processing for 10 s before they succeed."""
    setup = set_up(api, PROCESSING_CARD, data=data)
    advance(api, SETTLES)
    assert status_of(api, setup) == "active"
    return setup


def test_a_single_use_mandate_refuses_a_second_charge_while_the_first_is_processing(api: Api) -> None:
    setup = set_up_slow(api, mandate_data("single_use", amount=5000))
    assert charge(api, setup["mandate_id"], payment_id="pay_mit_1")["status"] == "processing"

    response = api.post("/payments", charge_body(setup["mandate_id"], payment_id="pay_mit_2"))

    assert response.status_code == 400
    assert response.json == refused("the single-use mandate is taken by a charge still in progress")
    assert payment_count(api) == 2
    advance(api, SETTLES)
    assert retrieve(api, "pay_mit_1")["status"] == "succeeded"
    assert status_of(api, setup) == "inactive"


def test_charges_processing_together_never_take_more_than_a_multi_use_total(api: Api) -> None:
    setup = set_up_slow(api, mandate_data("multi_use", amount=1500))
    assert charge(api, setup["mandate_id"], payment_id="pay_mit_1")["status"] == "processing"

    response = api.post("/payments", charge_body(setup["mandate_id"], payment_id="pay_mit_2"))

    assert (response.status_code, response.json) == (400, OVER_THE_TOTAL)
    assert charge(api, setup["mandate_id"], amount=500, payment_id="pay_mit_3")["status"] == "processing"
    over = api.post("/payments", charge_body(setup["mandate_id"], amount=1, payment_id="pay_mit_4"))
    assert (over.status_code, over.json) == (400, OVER_THE_TOTAL)
    advance(api, SETTLES)
    assert [retrieve(api, p)["status"] for p in ("pay_mit_1", "pay_mit_3")] == ["succeeded", "succeeded"]
    after = api.post("/payments", charge_body(setup["mandate_id"], amount=1, payment_id="pay_mit_5"))
    assert (after.status_code, after.json) == (400, OVER_THE_TOTAL)
    assert status_of(api, setup) == "active"


def test_a_refused_confirmation_holds_nothing_of_a_single_use_mandate(api: Api) -> None:
    setup = set_up(api, data=mandate_data("single_use", amount=1000))
    ok(api.post("/payments", charge_body(setup["mandate_id"], payment_id="pay_mit_1", confirm=False)))
    ok(api.post("/payments/pay_mit_1", {"amount": 1001}))
    refusal = api.post("/payments/pay_mit_1/confirm", {})
    assert (refusal.status_code, refusal.json) == (
        400,
        refused("request amount is greater than mandate amount"),
    )

    assert charge(api, setup["mandate_id"], payment_id="pay_mit_2")["status"] == "succeeded"
    assert status_of(api, setup) == "inactive"


def test_a_mandate_charge_moved_to_another_customer_is_refused_at_confirmation(api: Api) -> None:
    ok(api.post("/customers", {"customer_id": "cus_2"}))
    setup = set_up(api)
    ok(api.post("/payments", charge_body(setup["mandate_id"], confirm=False)))
    moved = ok(api.post("/payments/pay_mit", {"customer_id": "cus_2"}))

    response = api.post("/payments/pay_mit/confirm", {})

    assert response.status_code == 400
    assert response.json == invalid(
        "customer_id", "the mandate the payment charges belongs to another customer"
    )
    assert retrieve(api, "pay_mit") == moved
    assert status_of(api, setup) == "active"


@pytest.mark.parametrize("release", [_cancel, _expire], ids=["cancel", "expiry"])
def test_an_authorized_setup_released_before_any_capture_leaves_its_mandate_inactive(
    api: Api, release: Any
) -> None:
    setup = set_up(api, capture_method="manual")
    assert (setup["status"], status_of(api, setup)) == ("requires_capture", "active")

    release(api, "pay_setup")

    assert status_of(api, setup) == "inactive"
    response = api.post("/payments", charge_body(setup["mandate_id"]))
    assert (response.status_code, response.json) == (400, refused("the mandate is inactive, not active"))


def test_a_setup_partly_captured_then_cancelled_keeps_its_mandate_active(api: Api) -> None:
    setup = set_up(api, capture_method="manual_multiple")
    ok(api.post("/payments/pay_setup/capture", {"amount_to_capture": 100}))

    ok(api.post("/payments/pay_setup/cancel", {}))

    assert status_of(api, setup) == "active"
    assert charge(api, setup["mandate_id"])["status"] == "succeeded"


def test_a_customer_whose_mandate_is_pending_is_not_deleted(api: Api) -> None:
    setup = set_up(api, PROCESSING_CARD)
    assert status_of(api, setup) == "pending"

    response = api.delete(f"/customers/{CUSTOMER_ID}")

    assert (response.status_code, response.json) == (400, ACTIVE_MANDATE)
    advance(api, SETTLES)
    assert status_of(api, setup) == "active"
    assert [
        method["payment_method_id"]
        for method in ok(api.get(f"/customers/{CUSTOMER_ID}/payment_methods"))["customer_payment_methods"]
    ] == [setup["payment_method_id"]]


def test_a_mandate_set_up_with_a_card_saved_before_charges_that_saved_method(api: Api) -> None:
    saved = create(api, payment_id="pay_1", customer_id=CUSTOMER_ID, setup_future_usage="off_session")

    setup = set_up(api)

    assert (setup["status"], setup["payment_method_id"]) == ("succeeded", saved["payment_method_id"])
    assert mandate_of(api, setup)["payment_method_id"] == saved["payment_method_id"]
    assert charge(api, setup["mandate_id"])["payment_method_id"] == saved["payment_method_id"]


def test_a_mandate_whose_saved_method_was_deleted_while_it_was_set_up_is_inactive(api: Api) -> None:
    saved = create(
        api, PROCESSING_CARD, payment_id="pay_1", customer_id=CUSTOMER_ID, setup_future_usage="off_session"
    )
    advance(api, SETTLES)
    setup = set_up(api, PROCESSING_CARD)
    assert (setup["payment_method_id"], status_of(api, setup)) == (saved["payment_method_id"], "pending")
    ok(api.delete(f"/payment_methods/{saved['payment_method_id']}"))

    advance(api, SETTLES)

    assert retrieve(api, "pay_setup")["status"] == "succeeded"
    assert status_of(api, setup) == "inactive"
    response = api.post("/payments", charge_body(setup["mandate_id"]))
    assert (response.status_code, response.json) == (400, refused("the mandate is inactive, not active"))


@pytest.mark.parametrize(
    "saving",
    [{"mandate_data": mandate_data()}, {"setup_future_usage": "off_session"}],
    ids=["mandate", "saved method"],
)
def test_a_confirmation_whose_customer_was_deleted_since_sets_nothing_up(
    api: Api, saving: dict[str, Any]
) -> None:
    body = payloads.payment(CARD, payment_id="pay_setup", customer_id=CUSTOMER_ID, confirm=False, **saving)
    ok(api.post("/payments", body))
    ok(api.delete(f"/customers/{CUSTOMER_ID}"))

    answer = api.post("/payments/pay_setup/confirm", {})

    assert (answer.status_code, answer.json) == (
        400,
        invalid("customer_id", "no such customer: it was deleted after the payment named it"),
    )
    payment = retrieve(api, "pay_setup")
    assert (payment["status"], payment["mandate_id"], payment["payment_method_id"]) == (
        "requires_confirmation",
        None,
        None,
    )
    ok(api.post("/customers", {"customer_id": CUSTOMER_ID}))  # the same id again: nothing of the old one
    assert mandates_of(api) == []
    assert ok(api.delete(f"/customers/{CUSTOMER_ID}"))["customer_deleted"] is True
