"""PaymentService through the sandbox: every flow of decisions section 3, on the mock clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from mocksrv.app import create_sandbox
from mocksrv.domain.errors import (
    ClientSecretExpired,
    ClientSecretInvalid,
    ClientSecretMissing,
    DuplicateResource,
    ErrorKind,
    InvalidField,
    InvalidState,
    PaymentNotFound,
)
from mocksrv.domain.events import ContentType
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.models import Payment
from mocksrv.domain.payments.cards import card_summary
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.store import Query
from mocksrv.settings import Settings
from tests.payloads import MERCHANT_ID, PROFILE_ID, card, confirmation, payment
from tests.unit.fakes import T0, FakeSystemTime, at
from tests.unit.helpers import advance

S = PaymentStatus
SEVEN_DAYS = 7 * 24 * 3600
CARD_3DS = "4000003800000446"
CARD_3DS_DECLINE = "4000008400001629"
CARD_DECLINE = "4000000000000002"
CARD_REVIEW = "4000000000009235"
CARD_ASYNC = "4000000000000077"
CARD_ASYNC_DECLINE = "4000000000000093"

CAPTURE_STATES = "requires_capture, partially_captured_and_capturable"
UNCONFIRMED_STATES = "requires_payment_method, requires_confirmation"
CANCEL_STATES = (
    "requires_payment_method, requires_confirmation, requires_customer_action, requires_capture, "
    "partially_captured_and_capturable"
)


# -- helpers ---------------------------------------------------------------------------------------


def create(sandbox: Sandbox, number: str | None = "4242424242424242", **overrides: Any) -> Payment:
    return sandbox.payments.create(MERCHANT_ID, payment(number, **overrides))


def stored(sandbox: Sandbox, payment_id: str) -> Payment:
    return sandbox.payments.retrieve(MERCHANT_ID, payment_id)


def events_of(sandbox: Sandbox, payment_id: str) -> list[str]:
    return [e.event_type for e in sandbox.store.events(MERCHANT_ID) if e.object_id == payment_id]


def refusal(action: str, status: str, expected: str) -> str:
    return (
        f"This Payment could not be {action} because it has a status of {status}. "
        f"The expected state is {expected}"
    )


def payment_in(sandbox: Sandbox, status: PaymentStatus) -> Payment:
    """Drive a new payment, through the public operations, into `status`."""
    payments = sandbox.payments
    if status is S.REQUIRES_PAYMENT_METHOD:
        return create(sandbox, None)
    if status is S.REQUIRES_CONFIRMATION:
        return create(sandbox, confirm=False)
    if status is S.REQUIRES_CUSTOMER_ACTION:
        return create(sandbox, CARD_3DS)
    if status is S.REQUIRES_MERCHANT_ACTION:
        return create(sandbox, CARD_REVIEW)
    if status is S.PROCESSING:
        return create(sandbox, CARD_ASYNC)
    if status is S.REQUIRES_CAPTURE:
        return create(sandbox, capture_method="manual")
    if status is S.PARTIALLY_CAPTURED:
        return payments.capture(MERCHANT_ID, create(sandbox, capture_method="manual").payment_id, 400)
    if status is S.PARTIALLY_CAPTURED_AND_CAPTURABLE:
        manual = create(sandbox, capture_method="manual_multiple")
        return payments.capture(MERCHANT_ID, manual.payment_id, 400)
    if status is S.SUCCEEDED:
        return create(sandbox)
    if status is S.FAILED:
        return create(sandbox, CARD_DECLINE)
    if status is S.CANCELLED:
        return payments.cancel(MERCHANT_ID, create(sandbox, None).payment_id)
    if status is S.EXPIRED:
        manual = create(sandbox, capture_method="manual")
        advance(sandbox, SEVEN_DAYS)
        return stored(sandbox, manual.payment_id)
    raise AssertionError(status)


@pytest.mark.parametrize("status", list(PaymentStatus))
def test_payment_in_reaches_the_status(sandbox: Sandbox, status: PaymentStatus) -> None:
    assert payment_in(sandbox, status).status is status


# -- create ----------------------------------------------------------------------------------------


def test_one_step_success_gives_succeeded(sandbox: Sandbox) -> None:
    assert create(sandbox).status is S.SUCCEEDED


def test_one_step_success_receives_the_whole_amount(sandbox: Sandbox) -> None:
    created = create(sandbox, amount=1234)
    assert (created.amount_received, created.amount_capturable) == (1234, 0)


def test_one_step_success_sets_captured_at_to_the_mock_time(sandbox: Sandbox) -> None:
    assert create(sandbox).captured_at == T0


def test_a_payment_made_while_its_clock_is_advanced_takes_the_time_after_the_advance(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    methods = sandbox.payments._methods
    resolve = methods.resolve

    def advanced_meanwhile(*args: Any) -> Any:  # an advance that lands between the two reads
        sandbox.scheduler.advance(MERCHANT_ID, 3600)
        return resolve(*args)

    monkeypatch.setattr(methods, "resolve", advanced_meanwhile)
    made = create(sandbox, CARD_ASYNC)
    monkeypatch.undo()

    assert (made.status, made.created, made.client_secret_expires_at) == (
        S.PROCESSING,
        at(3600),
        at(3600 + 900),
    )
    sandbox.scheduler.advance(MERCHANT_ID, 10)
    assert (stored(sandbox, made.payment_id).status, stored(sandbox, made.payment_id).modified_at) == (
        S.SUCCEEDED,
        at(3610),
    )


def test_one_step_decline_gives_failed_with_error_code(sandbox: Sandbox) -> None:
    declined = create(sandbox, CARD_DECLINE)
    assert declined.status is S.FAILED
    assert (declined.error_code, declined.error_message) == ("card_declined", "Your card was declined.")


def test_one_step_decline_receives_nothing(sandbox: Sandbox) -> None:
    declined = create(sandbox, CARD_DECLINE)
    assert (declined.amount_received, declined.amount_capturable, declined.captured_at) == (0, 0, None)


def test_create_without_method_gives_requires_payment_method(sandbox: Sandbox) -> None:
    assert create(sandbox, None).status is S.REQUIRES_PAYMENT_METHOD


def test_create_with_method_without_confirm_gives_requires_confirmation(sandbox: Sandbox) -> None:
    assert create(sandbox, confirm=False).status is S.REQUIRES_CONFIRMATION


def test_create_stamps_created_and_modified_at_from_the_mock_clock(sandbox: Sandbox) -> None:
    advance(sandbox, 30)
    created = create(sandbox, None)
    assert (created.created, created.modified_at) == (at(30), at(30))


def test_create_keeps_the_given_payment_id(sandbox: Sandbox) -> None:
    assert create(sandbox, payment_id="order-42_a").payment_id == "order-42_a"


def test_create_generates_a_pay_id_when_none_is_given(sandbox: Sandbox) -> None:
    generated = create(sandbox).payment_id
    assert generated.startswith("pay_")
    assert len(generated) == 30  # as the real service writes a payment id


def test_client_secret_starts_with_the_payment_id(sandbox: Sandbox) -> None:
    created = create(sandbox, payment_id="pay_secretive")
    assert created.client_secret.startswith("pay_secretive_secret_")


def test_client_secret_expires_after_the_profile_session_expiry(sandbox: Sandbox) -> None:
    assert create(sandbox, None).client_secret_expires_at == at(900)


def test_create_keeps_the_card_summary_only(sandbox: Sandbox) -> None:
    created = create(sandbox, payment_method_data=card(card_holder_name="Ada Lovelace"))
    now = sandbox.clock.now(MERCHANT_ID)
    summary = card_summary(card(card_holder_name="Ada Lovelace")["card"], now, "credit")
    summary["payment_checks"] = {
        "cvc_check": "pass",
        "address_line1_check": "pass",
        "address_postal_code_check": "pass",
    }
    assert created.payment_method_data == {"card": summary}
    assert created.payment_method_data["card"]["card_isin"] == "424242"


def test_card_number_appears_in_no_record_or_event(sandbox: Sandbox) -> None:
    created = create(sandbox, "4000000000009995")
    assert "4000000000009995" not in repr(stored(sandbox, created.payment_id))
    assert "4000000000009995" not in repr(sandbox.store.events(MERCHANT_ID))


def test_create_keeps_descriptive_fields(sandbox: Sandbox) -> None:
    created = create(
        sandbox, None, description="two books", metadata={"order_id": "o-1"}, email="a@b.example"
    )
    assert (created.description, created.metadata, created.email) == (
        "two books",
        {"order_id": "o-1"},
        "a@b.example",
    )


def test_duplicate_payment_id_is_rejected_with_HE_01(sandbox: Sandbox) -> None:
    create(sandbox, payment_id="pay_dup")
    with pytest.raises(DuplicateResource) as raised:
        create(sandbox, None, payment_id="pay_dup")
    assert raised.value.code == "HE_01"
    assert raised.value.message == "The payment with the specified payment_id already exists in our records"
    assert raised.value.param == "payment_id"


def test_duplicate_payment_id_leaves_the_original_unchanged(sandbox: Sandbox) -> None:
    original = create(sandbox, payment_id="pay_dup")
    with pytest.raises(DuplicateResource):
        create(sandbox, CARD_DECLINE, payment_id="pay_dup", amount=5)
    assert stored(sandbox, "pay_dup") == original
    assert events_of(sandbox, "pay_dup") == ["payment_succeeded"]


def test_same_payment_id_is_free_for_another_merchant(sandbox: Sandbox) -> None:
    create(sandbox, payment_id="pay_shared")
    other = sandbox.merchants.create(MerchantSeed())
    body = payment(payment_id="pay_shared", profile_id=other.profile.profile_id)
    assert sandbox.payments.create(other.merchant.merchant_id, body).status is S.SUCCEEDED


def test_unknown_customer_is_rejected_with_IR_04(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField) as raised:
        create(sandbox, customer_id="cus_missing")
    assert raised.value.code == "IR_04"
    assert raised.value.param == "customer_id"
    assert raised.value.message == (
        "Invalid value provided: customer_id: no such customer; create it with POST /customers first"
    )


def test_unknown_customer_stores_nothing(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField):
        create(sandbox, payment_id="pay_orphan", customer_id="cus_missing")
    with pytest.raises(PaymentNotFound):
        stored(sandbox, "pay_orphan")


def test_existing_customer_is_accepted(sandbox: Sandbox) -> None:
    sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_ada", "name": "Ada"})
    assert create(sandbox, customer_id="cus_ada").customer_id == "cus_ada"


def test_customer_of_another_merchant_is_rejected(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed())
    sandbox.customers.create(other.merchant.merchant_id, {"customer_id": "cus_elsewhere"})
    with pytest.raises(InvalidField) as raised:
        create(sandbox, customer_id="cus_elsewhere")
    assert raised.value.param == "customer_id"


def test_unknown_profile_is_rejected(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField) as raised:
        create(sandbox, profile_id="pro_missing")
    assert raised.value.message == "Invalid value provided: profile_id: no such business profile"


def test_profile_of_another_merchant_is_rejected(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    with pytest.raises(InvalidField) as raised:
        sandbox.payments.create(other, payment(profile_id=PROFILE_ID))
    assert raised.value.param == "profile_id"


def test_confirm_true_without_method_data_is_rejected(sandbox: Sandbox) -> None:
    body = payment(None, confirm=True)
    with pytest.raises(InvalidField) as raised:
        sandbox.payments.create(MERCHANT_ID, body)
    assert raised.value.message == "Missing required param: payment_method_data"


def test_confirm_true_without_payment_method_is_rejected(sandbox: Sandbox) -> None:
    body = payment()
    del body["payment_method"]
    with pytest.raises(InvalidField) as raised:
        sandbox.payments.create(MERCHANT_ID, body)
    assert raised.value.message == "Missing required param: payment_method"


def test_method_data_of_two_kinds_is_rejected(sandbox: Sandbox) -> None:
    data = {**card(), "crypto": {"pay_currency": "BTC", "wallet_address": "bc1q"}}
    with pytest.raises(InvalidField) as raised:
        create(sandbox, payment_method_data=data)
    assert raised.value.message == (
        "Invalid value provided: payment_method_data: "
        "exactly one kind of method data, such as card, wallet, bank_transfer or crypto"
    )


def test_method_data_of_another_method_is_rejected(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField) as raised:
        create(sandbox, payment_method="crypto")
    assert raised.value.message == (
        "Invalid value provided: payment_method_data: holds card data for payment_method crypto"
    )


def test_luhn_invalid_card_is_rejected_naming_the_field(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField) as raised:
        create(sandbox, "4242424242424241")
    assert raised.value.param == "payment_method_data.card.card_number"


def test_card_expired_on_the_mock_clock_is_rejected(sandbox: Sandbox) -> None:
    # T0 is January 2026: a card that ran to December 2025 has expired.
    with pytest.raises(InvalidField) as raised:
        create(sandbox, payment_method_data=card(card_exp_month="12", card_exp_year="2025"))
    assert (
        raised.value.message
        == "Invalid value provided: payment_method_data.card.card_exp_year: the card has expired"
    )


def test_3ds_card_without_return_url_is_rejected_missing_return_url(sandbox: Sandbox) -> None:
    body = payment(CARD_3DS, payment_id="pay_3ds")
    del body["return_url"]
    with pytest.raises(InvalidField) as raised:
        sandbox.payments.create(MERCHANT_ID, body)
    assert raised.value.code == "IR_04"
    assert raised.value.message == "Missing required param: return_url"
    assert raised.value.param == "return_url"


def test_3ds_card_without_return_url_stores_nothing(sandbox: Sandbox) -> None:
    body = payment(CARD_3DS, payment_id="pay_3ds")
    del body["return_url"]
    with pytest.raises(InvalidField):
        sandbox.payments.create(MERCHANT_ID, body)
    with pytest.raises(PaymentNotFound):
        stored(sandbox, "pay_3ds")
    assert sandbox.store.events(MERCHANT_ID) == []


# -- two-step: create, then confirm ----------------------------------------------------------------


def test_two_step_confirm_gives_succeeded(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    confirmed = sandbox.payments.confirm(MERCHANT_ID, created.payment_id, confirmation())
    assert confirmed.status is S.SUCCEEDED
    assert confirmed.amount_received == 1000


def test_two_step_confirm_uses_the_method_attached_at_create(sandbox: Sandbox) -> None:
    created = create(sandbox, CARD_DECLINE, confirm=False)
    confirmed = sandbox.payments.confirm(MERCHANT_ID, created.payment_id, {})
    assert (confirmed.status, confirmed.error_code) == (S.FAILED, "card_declined")


def test_two_step_confirm_stamps_modified_at(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    advance(sandbox, 5)
    confirmed = sandbox.payments.confirm(MERCHANT_ID, created.payment_id, confirmation())
    assert (confirmed.created, confirmed.modified_at, confirmed.captured_at) == (T0, at(5), at(5))


def test_confirm_without_any_method_is_rejected(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    with pytest.raises(InvalidField) as raised:
        sandbox.payments.confirm(MERCHANT_ID, created.payment_id, {})
    assert raised.value.message == "Missing required param: payment_method_data"


def test_confirm_of_a_succeeded_payment_is_rejected_with_IR_14(sandbox: Sandbox) -> None:
    created = create(sandbox)
    with pytest.raises(InvalidState) as raised:
        sandbox.payments.confirm(MERCHANT_ID, created.payment_id, confirmation())
    assert raised.value.code == "IR_14"
    assert raised.value.kind is ErrorKind.STATE
    assert raised.value.message == refusal("confirmed", "succeeded", UNCONFIRMED_STATES)


def test_two_step_3ds_without_return_url_is_rejected(sandbox: Sandbox) -> None:
    body = payment(None)
    del body["return_url"]
    created = sandbox.payments.create(MERCHANT_ID, body)
    with pytest.raises(InvalidField) as raised:
        sandbox.payments.confirm(MERCHANT_ID, created.payment_id, confirmation(CARD_3DS))
    assert raised.value.message == "Missing required param: return_url"


def test_two_step_3ds_without_return_url_leaves_the_payment_unchanged(sandbox: Sandbox) -> None:
    body = payment(None)
    del body["return_url"]
    created = sandbox.payments.create(MERCHANT_ID, body)
    with pytest.raises(InvalidField):
        sandbox.payments.confirm(MERCHANT_ID, created.payment_id, confirmation(CARD_3DS))
    assert stored(sandbox, created.payment_id) == created


def test_return_url_given_on_confirm_allows_3ds(sandbox: Sandbox) -> None:
    body = payment(None)
    del body["return_url"]
    created = sandbox.payments.create(MERCHANT_ID, body)
    fields = confirmation(CARD_3DS, return_url="https://shop.example/after-3ds")
    confirmed = sandbox.payments.confirm(MERCHANT_ID, created.payment_id, fields)
    assert (confirmed.status, confirmed.return_url) == (
        S.REQUIRES_CUSTOMER_ACTION,
        "https://shop.example/after-3ds",
    )


# -- update ----------------------------------------------------------------------------------------


def test_update_of_details_keeps_requires_payment_method(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    updated = sandbox.payments.update(
        MERCHANT_ID, created.payment_id, {"amount": 2500, "description": "more"}
    )
    assert (updated.status, updated.amount, updated.description) == (S.REQUIRES_PAYMENT_METHOD, 2500, "more")


def test_update_attaching_a_method_gives_requires_confirmation(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    updated = sandbox.payments.update(MERCHANT_ID, created.payment_id, confirmation())
    assert updated.status is S.REQUIRES_CONFIRMATION


def test_update_stamps_modified_at(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    advance(sandbox, 12)
    updated = sandbox.payments.update(MERCHANT_ID, created.payment_id, {"description": "later"})
    assert (updated.created, updated.modified_at) == (T0, at(12))


def test_update_after_confirmation_is_rejected_with_IR_14(sandbox: Sandbox) -> None:
    created = create(sandbox)
    with pytest.raises(InvalidState) as raised:
        sandbox.payments.update(MERCHANT_ID, created.payment_id, {"description": "late"})
    assert raised.value.message == refusal("updated", "succeeded", UNCONFIRMED_STATES)


def test_update_with_unknown_customer_is_rejected(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    with pytest.raises(InvalidField) as raised:
        sandbox.payments.update(MERCHANT_ID, created.payment_id, {"customer_id": "cus_missing"})
    assert raised.value.param == "customer_id"


# -- client_secret ---------------------------------------------------------------------------------


def test_confirm_with_the_client_secret_succeeds(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    confirmed = sandbox.payments.confirm(
        MERCHANT_ID, created.payment_id, confirmation(), created.client_secret, secret_required=True
    )
    assert confirmed.status is S.SUCCEEDED


def test_confirm_with_a_wrong_client_secret_is_rejected_with_IR_09(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    with pytest.raises(ClientSecretInvalid) as raised:
        sandbox.payments.confirm(
            MERCHANT_ID, created.payment_id, confirmation(), "pay_x_secret_wrong", secret_required=True
        )
    assert raised.value.code == "IR_09"
    assert raised.value.message == (
        "The client_secret provided does not match the client_secret associated with the Payment"
    )


def test_confirm_without_a_required_client_secret_is_rejected_with_IR_08(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    with pytest.raises(ClientSecretMissing) as raised:
        sandbox.payments.confirm(MERCHANT_ID, created.payment_id, confirmation(), None, secret_required=True)
    assert raised.value.code == "IR_08"
    assert raised.value.message == "Missing required param: client_secret"


def test_client_secret_is_still_valid_just_before_session_expiry(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    advance(sandbox, 899)
    confirmed = sandbox.payments.confirm(
        MERCHANT_ID, created.payment_id, confirmation(), created.client_secret
    )
    assert confirmed.status is S.SUCCEEDED


def test_client_secret_expired_after_900_seconds_is_rejected_with_IR_08(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    advance(sandbox, 900)
    with pytest.raises(ClientSecretExpired) as raised:
        sandbox.payments.confirm(MERCHANT_ID, created.payment_id, confirmation(), created.client_secret)
    assert raised.value.code == "IR_08"
    assert raised.value.message == "The provided client_secret has expired"


def test_expired_client_secret_leaves_the_payment_unconfirmed(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    advance(sandbox, 901)
    with pytest.raises(ClientSecretExpired):
        sandbox.payments.confirm(MERCHANT_ID, created.payment_id, confirmation(), created.client_secret)
    assert stored(sandbox, created.payment_id) == created
    assert events_of(sandbox, created.payment_id) == []


def test_session_expiry_is_the_profile_setting(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed(session_expiry=60))
    merchant_id = other.merchant.merchant_id
    created = sandbox.payments.create(merchant_id, payment(None, profile_id=other.profile.profile_id))
    sandbox.scheduler.advance(merchant_id, 60)
    with pytest.raises(ClientSecretExpired):
        sandbox.payments.confirm(merchant_id, created.payment_id, confirmation(), created.client_secret)


def test_retrieve_with_the_client_secret_returns_the_payment(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    found = sandbox.payments.retrieve(
        MERCHANT_ID, created.payment_id, created.client_secret, secret_required=True
    )
    assert found == created


def test_retrieve_with_a_wrong_client_secret_is_rejected_with_IR_09(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    with pytest.raises(ClientSecretInvalid):
        sandbox.payments.retrieve(MERCHANT_ID, created.payment_id, "nope", secret_required=True)


def test_retrieve_without_a_required_client_secret_is_rejected_with_IR_08(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    with pytest.raises(ClientSecretMissing):
        sandbox.payments.retrieve(MERCHANT_ID, created.payment_id, None, secret_required=True)


# -- capture ---------------------------------------------------------------------------------------


def test_manual_capture_confirmation_gives_requires_capture(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    assert authorized.status is S.REQUIRES_CAPTURE
    assert (authorized.amount_capturable, authorized.amount_received) == (1000, 0)
    assert (authorized.authorized_at, authorized.captured_at) == (T0, None)


def test_full_capture_gives_succeeded(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    advance(sandbox, 60)
    captured = sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 1000)
    assert captured.status is S.SUCCEEDED
    assert (captured.amount_received, captured.amount_capturable, captured.captured_at) == (1000, 0, at(60))


def test_capture_without_amount_captures_everything_capturable(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    captured = sandbox.payments.capture(MERCHANT_ID, authorized.payment_id)
    assert (captured.status, captured.amount_received) == (S.SUCCEEDED, 1000)


def test_manual_partial_capture_gives_partially_captured(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    captured = sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 400)
    assert captured.status is S.PARTIALLY_CAPTURED
    assert (captured.amount_received, captured.amount_capturable) == (400, 0)


def test_manual_multiple_partial_capture_gives_partially_captured_and_capturable(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual_multiple")
    captured = sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 400)
    assert captured.status is S.PARTIALLY_CAPTURED_AND_CAPTURABLE
    assert (captured.amount_received, captured.amount_capturable) == (400, 600)


def test_manual_multiple_second_partial_capture_stays_capturable(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual_multiple")
    sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 400)
    captured = sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 300)
    assert captured.status is S.PARTIALLY_CAPTURED_AND_CAPTURABLE
    assert (captured.amount_received, captured.amount_capturable) == (700, 300)


def test_manual_multiple_capture_of_the_rest_gives_succeeded(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual_multiple")
    sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 400)
    captured = sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 600)
    assert captured.status is S.SUCCEEDED
    assert (captured.amount_received, captured.amount_capturable) == (1000, 0)


def test_manual_multiple_capture_without_amount_takes_the_rest(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual_multiple")
    sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 400)
    captured = sandbox.payments.capture(MERCHANT_ID, authorized.payment_id)
    assert (captured.status, captured.amount_received) == (S.SUCCEEDED, 1000)


def test_capture_over_the_capturable_amount_is_rejected(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    with pytest.raises(InvalidField) as raised:
        sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 1001)
    assert raised.value.code == "IR_04"
    assert (
        raised.value.message == "Invalid value provided: amount_to_capture: exceeds amount_capturable (1000)"
    )


def test_capture_over_the_remainder_of_a_partial_capture_is_rejected(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual_multiple")
    sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 400)
    with pytest.raises(InvalidField) as raised:
        sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 601)
    assert (
        raised.value.message == "Invalid value provided: amount_to_capture: exceeds amount_capturable (600)"
    )


def test_capture_over_the_capturable_amount_leaves_the_payment_unchanged(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    with pytest.raises(InvalidField):
        sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 1001)
    assert stored(sandbox, authorized.payment_id) == authorized
    assert events_of(sandbox, authorized.payment_id) == ["payment_authorized"]


@pytest.mark.parametrize("status", [S.SUCCEEDED, S.CANCELLED])
def test_capture_of_a_captured_or_cancelled_payment_is_a_conflict(
    sandbox: Sandbox, status: PaymentStatus
) -> None:
    done = payment_in(sandbox, status)
    with pytest.raises(InvalidState) as raised:
        sandbox.payments.capture(MERCHANT_ID, done.payment_id)
    assert raised.value.code == "IR_14"
    assert raised.value.kind is ErrorKind.CONFLICT
    assert raised.value.message == refusal("captured", status.value, CAPTURE_STATES)


@pytest.mark.parametrize(
    "status",
    [
        S.REQUIRES_PAYMENT_METHOD,
        S.REQUIRES_CONFIRMATION,
        S.REQUIRES_CUSTOMER_ACTION,
        S.REQUIRES_MERCHANT_ACTION,
        S.PROCESSING,
        S.PARTIALLY_CAPTURED,
        S.FAILED,
        S.EXPIRED,
    ],
)
def test_capture_of_an_uncapturable_payment_is_rejected_with_IR_14(
    sandbox: Sandbox, status: PaymentStatus
) -> None:
    payment_ = payment_in(sandbox, status)
    with pytest.raises(InvalidState) as raised:
        sandbox.payments.capture(MERCHANT_ID, payment_.payment_id)
    assert raised.value.kind is ErrorKind.STATE
    assert raised.value.message == refusal("captured", status.value, CAPTURE_STATES)


def test_capture_keeps_a_statement_descriptor(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    captured = sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, None, "SHOP*ORDER42")
    assert captured.statement_descriptor == "SHOP*ORDER42"


# -- cancel ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "status",
    [S.REQUIRES_PAYMENT_METHOD, S.REQUIRES_CONFIRMATION, S.REQUIRES_CUSTOMER_ACTION, S.REQUIRES_CAPTURE],
)
def test_cancel_gives_cancelled(sandbox: Sandbox, status: PaymentStatus) -> None:
    payment_ = payment_in(sandbox, status)
    advance(sandbox, 3)
    cancelled = sandbox.payments.cancel(MERCHANT_ID, payment_.payment_id, "requested_by_customer")
    assert cancelled.status is S.CANCELLED
    assert (cancelled.cancelled_at, cancelled.cancellation_reason) == (at(3), "requested_by_customer")
    assert cancelled.amount_capturable == 0


def test_cancel_of_partially_captured_and_capturable_releases_the_rest(sandbox: Sandbox) -> None:
    partly = payment_in(sandbox, S.PARTIALLY_CAPTURED_AND_CAPTURABLE)
    cancelled = sandbox.payments.cancel(MERCHANT_ID, partly.payment_id)
    assert cancelled.status is S.PARTIALLY_CAPTURED
    assert (cancelled.amount_received, cancelled.amount_capturable) == (400, 0)


def test_cancel_without_reason_leaves_cancellation_reason_empty(sandbox: Sandbox) -> None:
    created = create(sandbox, None)
    assert sandbox.payments.cancel(MERCHANT_ID, created.payment_id).cancellation_reason is None


@pytest.mark.parametrize(
    "status",
    [
        S.REQUIRES_MERCHANT_ACTION,
        S.PROCESSING,
        S.PARTIALLY_CAPTURED,
        S.SUCCEEDED,
        S.FAILED,
        S.CANCELLED,
        S.EXPIRED,
    ],
)
def test_cancel_from_another_state_is_rejected_with_IR_14(sandbox: Sandbox, status: PaymentStatus) -> None:
    payment_ = payment_in(sandbox, status)
    with pytest.raises(InvalidState) as raised:
        sandbox.payments.cancel(MERCHANT_ID, payment_.payment_id)
    assert raised.value.code == "IR_14"
    assert raised.value.kind is ErrorKind.STATE
    assert raised.value.message == refusal("cancelled", status.value, CANCEL_STATES)


def test_cancelled_authorization_does_not_expire_later(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    sandbox.payments.cancel(MERCHANT_ID, authorized.payment_id)
    advance(sandbox, SEVEN_DAYS + 1)
    assert stored(sandbox, authorized.payment_id).status is S.CANCELLED
    assert events_of(sandbox, authorized.payment_id) == ["payment_authorized", "payment_cancelled"]


# -- manual review ---------------------------------------------------------------------------------


def test_review_card_gives_requires_merchant_action(sandbox: Sandbox) -> None:
    assert create(sandbox, CARD_REVIEW).status is S.REQUIRES_MERCHANT_ACTION


def test_approve_with_automatic_capture_gives_succeeded(sandbox: Sandbox) -> None:
    held = create(sandbox, CARD_REVIEW)
    advance(sandbox, 20)
    approved = sandbox.payments.approve(MERCHANT_ID, held.payment_id)
    assert approved.status is S.SUCCEEDED
    assert (approved.amount_received, approved.amount_capturable, approved.captured_at) == (1000, 0, at(20))


def test_approve_with_manual_capture_gives_requires_capture(sandbox: Sandbox) -> None:
    held = create(sandbox, CARD_REVIEW, capture_method="manual")
    approved = sandbox.payments.approve(MERCHANT_ID, held.payment_id)
    assert approved.status is S.REQUIRES_CAPTURE
    assert (approved.amount_capturable, approved.amount_received, approved.captured_at) == (1000, 0, None)


def test_approved_manual_payment_expires_seven_days_after_approval(sandbox: Sandbox) -> None:
    held = create(sandbox, CARD_REVIEW, capture_method="manual")
    advance(sandbox, 100)
    sandbox.payments.approve(MERCHANT_ID, held.payment_id)
    advance(sandbox, SEVEN_DAYS)
    expired = stored(sandbox, held.payment_id)
    assert (expired.status, expired.modified_at) == (S.EXPIRED, at(100 + SEVEN_DAYS))


def test_reject_gives_failed_with_manual_review_rejected(sandbox: Sandbox) -> None:
    held = create(sandbox, CARD_REVIEW)
    rejected = sandbox.payments.reject(MERCHANT_ID, held.payment_id)
    assert rejected.status is S.FAILED
    assert (rejected.error_code, rejected.error_message) == (
        "manual_review_rejected",
        "The payment was rejected after manual review",
    )
    assert (rejected.amount_received, rejected.amount_capturable) == (0, 0)


@pytest.mark.parametrize(("operation", "participle"), [("approve", "approved"), ("reject", "rejected")])
@pytest.mark.parametrize("status", [S.REQUIRES_CONFIRMATION, S.SUCCEEDED, S.CANCELLED, S.REQUIRES_CAPTURE])
def test_review_decision_outside_review_is_rejected_with_IR_14(
    sandbox: Sandbox, operation: str, participle: str, status: PaymentStatus
) -> None:
    payment_ = payment_in(sandbox, status)
    with pytest.raises(InvalidState) as raised:
        getattr(sandbox.payments, operation)(MERCHANT_ID, payment_.payment_id)
    assert raised.value.kind is ErrorKind.STATE
    assert raised.value.message == refusal(participle, status.value, "requires_merchant_action")


# -- 3D Secure -------------------------------------------------------------------------------------


def test_3ds_card_gives_requires_customer_action(sandbox: Sandbox) -> None:
    challenged = create(sandbox, CARD_3DS)
    assert challenged.status is S.REQUIRES_CUSTOMER_ACTION
    assert (challenged.amount_received, challenged.captured_at) == (0, None)


def test_completed_authentication_gives_succeeded(sandbox: Sandbox) -> None:
    challenged = create(sandbox, CARD_3DS)
    advance(sandbox, 45)
    finished = sandbox.payments.authenticate(MERCHANT_ID, challenged.payment_id, completed=True)
    assert finished.status is S.SUCCEEDED
    assert (finished.amount_received, finished.captured_at, finished.next_outcome) == (1000, at(45), None)


def test_failed_authentication_gives_failed(sandbox: Sandbox) -> None:
    challenged = create(sandbox, CARD_3DS)
    finished = sandbox.payments.authenticate(MERCHANT_ID, challenged.payment_id, completed=False)
    assert finished.status is S.FAILED
    assert (finished.error_code, finished.error_message) == (
        "authentication_failed",
        "The customer did not complete 3D Secure authentication",
    )


def test_completed_authentication_of_a_declining_card_gives_card_declined(sandbox: Sandbox) -> None:
    challenged = create(sandbox, CARD_3DS_DECLINE)
    finished = sandbox.payments.authenticate(MERCHANT_ID, challenged.payment_id, completed=True)
    assert (finished.status, finished.error_code) == (S.FAILED, "card_declined")


def test_completed_authentication_with_manual_capture_gives_requires_capture(sandbox: Sandbox) -> None:
    challenged = create(sandbox, CARD_3DS, capture_method="manual")
    finished = sandbox.payments.authenticate(MERCHANT_ID, challenged.payment_id, completed=True)
    assert (finished.status, finished.amount_capturable) == (S.REQUIRES_CAPTURE, 1000)


@pytest.mark.parametrize("status", [S.REQUIRES_CONFIRMATION, S.SUCCEEDED, S.FAILED])
def test_authentication_outside_a_challenge_is_rejected_with_IR_14(
    sandbox: Sandbox, status: PaymentStatus
) -> None:
    payment_ = payment_in(sandbox, status)
    with pytest.raises(InvalidState) as raised:
        sandbox.payments.authenticate(MERCHANT_ID, payment_.payment_id, completed=True)
    assert raised.value.message == refusal("authenticated", status.value, "requires_customer_action")


# -- asynchronous settlement -----------------------------------------------------------------------


def test_async_card_is_still_processing_just_before_10_seconds(sandbox: Sandbox) -> None:
    pending = create(sandbox, CARD_ASYNC)
    advance(sandbox, 9.999)
    assert stored(sandbox, pending.payment_id).status is S.PROCESSING


def test_async_success_settles_succeeded_after_10_seconds(sandbox: Sandbox) -> None:
    pending = create(sandbox, CARD_ASYNC)
    advance(sandbox, 10)
    settled = stored(sandbox, pending.payment_id)
    assert settled.status is S.SUCCEEDED
    assert (settled.amount_received, settled.captured_at, settled.modified_at) == (1000, at(10), at(10))


def test_async_decline_settles_failed_after_10_seconds(sandbox: Sandbox) -> None:
    pending = create(sandbox, CARD_ASYNC_DECLINE)
    advance(sandbox, 10)
    settled = stored(sandbox, pending.payment_id)
    assert (settled.status, settled.error_code) == (S.FAILED, "card_declined")


def test_settlement_is_stamped_with_its_due_time_when_the_clock_passes_it(sandbox: Sandbox) -> None:
    pending = create(sandbox, CARD_ASYNC)
    advance(sandbox, 3600)
    assert stored(sandbox, pending.payment_id).modified_at == at(10)


def test_setting_the_clock_past_a_settlement_stamps_it_with_its_due_time(sandbox: Sandbox) -> None:
    pending = create(sandbox, CARD_ASYNC)
    sandbox.scheduler.set_time(MERCHANT_ID, at(3600))
    settled = stored(sandbox, pending.payment_id)
    assert (settled.status, settled.captured_at, settled.modified_at) == (S.SUCCEEDED, at(10), at(10))


def test_setting_the_clock_past_the_capture_window_expires_at_its_due_time(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    sandbox.scheduler.set_time(MERCHANT_ID, at(SEVEN_DAYS + 3600))
    expired = stored(sandbox, authorized.payment_id)
    assert (expired.status, expired.modified_at) == (S.EXPIRED, at(SEVEN_DAYS))


def test_advance_reports_the_settlement_timer(sandbox: Sandbox) -> None:
    pending = create(sandbox, CARD_ASYNC)
    _, fired = sandbox.scheduler.advance(MERCHANT_ID, 10)
    assert [(t.kind, t.target_id, t.due_at) for t in fired] == [
        ("payment.settle", pending.payment_id, at(10))
    ]


def test_async_manual_capture_settles_requires_capture(sandbox: Sandbox) -> None:
    pending = create(sandbox, CARD_ASYNC, capture_method="manual")
    advance(sandbox, 10)
    settled = stored(sandbox, pending.payment_id)
    assert (settled.status, settled.amount_capturable, settled.authorized_at) == (
        S.REQUIRES_CAPTURE,
        1000,
        at(10),
    )


def test_async_manual_authorization_expires_seven_days_after_settlement(sandbox: Sandbox) -> None:
    pending = create(sandbox, CARD_ASYNC, capture_method="manual")
    advance(sandbox, 10 + SEVEN_DAYS - 1)
    assert stored(sandbox, pending.payment_id).status is S.REQUIRES_CAPTURE
    advance(sandbox, 1)
    assert stored(sandbox, pending.payment_id).status is S.EXPIRED


# -- capture expiry --------------------------------------------------------------------------------


def test_authorization_is_capturable_just_before_seven_days(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    advance(sandbox, SEVEN_DAYS - 1)
    assert stored(sandbox, authorized.payment_id).status is S.REQUIRES_CAPTURE


def test_authorization_expires_after_seven_days(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    advance(sandbox, SEVEN_DAYS)
    expired = stored(sandbox, authorized.payment_id)
    assert expired.status is S.EXPIRED
    assert (expired.amount_capturable, expired.amount_received, expired.modified_at) == (0, 0, at(SEVEN_DAYS))


def test_capture_after_expiry_is_rejected_with_IR_14(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    advance(sandbox, SEVEN_DAYS)
    with pytest.raises(InvalidState) as raised:
        sandbox.payments.capture(MERCHANT_ID, authorized.payment_id, 1000)
    assert raised.value.code == "IR_14"
    assert raised.value.kind is ErrorKind.STATE
    assert raised.value.message == refusal("captured", "expired", CAPTURE_STATES)


def test_partly_captured_authorization_expires_after_seven_days(sandbox: Sandbox) -> None:
    partly = payment_in(sandbox, S.PARTIALLY_CAPTURED_AND_CAPTURABLE)
    advance(sandbox, SEVEN_DAYS)
    expired = stored(sandbox, partly.payment_id)
    assert (expired.status, expired.amount_received, expired.amount_capturable) == (S.EXPIRED, 400, 0)


def test_fully_captured_payment_does_not_expire(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    sandbox.payments.capture(MERCHANT_ID, authorized.payment_id)
    advance(sandbox, SEVEN_DAYS)
    assert stored(sandbox, authorized.payment_id).status is S.SUCCEEDED


def test_capture_window_is_the_configured_one(settings: Settings, system_time: FakeSystemTime) -> None:
    short = create_sandbox(replace(settings, capture_window_seconds=3600), system_time)
    authorized = create(short, capture_method="manual")
    advance(short, 3600)
    assert stored(short, authorized.payment_id).status is S.EXPIRED


# -- outbox ----------------------------------------------------------------------------------------


def _one_step(sandbox: Sandbox) -> str:
    return create(sandbox).payment_id


def _declined(sandbox: Sandbox) -> str:
    return create(sandbox, CARD_DECLINE).payment_id


def _unconfirmed(sandbox: Sandbox) -> str:
    created = create(sandbox, None)
    sandbox.payments.update(MERCHANT_ID, created.payment_id, confirmation())
    return created.payment_id


def _captured(sandbox: Sandbox) -> str:
    payment_id = create(sandbox, capture_method="manual").payment_id
    sandbox.payments.capture(MERCHANT_ID, payment_id)
    return payment_id


def _captured_in_parts(sandbox: Sandbox) -> str:
    payment_id = create(sandbox, capture_method="manual_multiple").payment_id
    sandbox.payments.capture(MERCHANT_ID, payment_id, 300)
    sandbox.payments.capture(MERCHANT_ID, payment_id, 300)
    sandbox.payments.capture(MERCHANT_ID, payment_id, 400)
    return payment_id


def _partly_captured(sandbox: Sandbox) -> str:
    payment_id = create(sandbox, capture_method="manual").payment_id
    sandbox.payments.capture(MERCHANT_ID, payment_id, 400)
    return payment_id


def _partly_captured_then_cancelled(sandbox: Sandbox) -> str:
    payment_id = payment_in(sandbox, S.PARTIALLY_CAPTURED_AND_CAPTURABLE).payment_id
    sandbox.payments.cancel(MERCHANT_ID, payment_id)
    return payment_id


def _authenticated(sandbox: Sandbox) -> str:
    payment_id = create(sandbox, CARD_3DS).payment_id
    sandbox.payments.authenticate(MERCHANT_ID, payment_id, completed=True)
    return payment_id


def _approved(sandbox: Sandbox) -> str:
    payment_id = create(sandbox, CARD_REVIEW).payment_id
    sandbox.payments.approve(MERCHANT_ID, payment_id)
    return payment_id


def _rejected(sandbox: Sandbox) -> str:
    payment_id = create(sandbox, CARD_REVIEW).payment_id
    sandbox.payments.reject(MERCHANT_ID, payment_id)
    return payment_id


def _settled(sandbox: Sandbox) -> str:
    payment_id = create(sandbox, CARD_ASYNC).payment_id
    advance(sandbox, 10)
    return payment_id


def _expired(sandbox: Sandbox) -> str:
    return payment_in(sandbox, S.EXPIRED).payment_id


def _cancelled(sandbox: Sandbox) -> str:
    return payment_in(sandbox, S.CANCELLED).payment_id


FLOWS: list[tuple[Callable[[Sandbox], str], list[str]]] = [
    (_one_step, ["payment_succeeded"]),
    (_declined, ["payment_failed"]),
    (_unconfirmed, []),
    (_captured, ["payment_authorized", "payment_succeeded"]),
    (_captured_in_parts, ["payment_authorized", "payment_captured", "payment_succeeded"]),
    (_partly_captured, ["payment_authorized", "payment_captured"]),
    (_partly_captured_then_cancelled, ["payment_authorized", "payment_captured", "payment_cancelled"]),
    (_authenticated, ["action_required", "payment_succeeded"]),
    (_approved, ["action_required", "payment_succeeded"]),
    (_rejected, ["action_required", "payment_failed"]),
    (_settled, ["payment_processing", "payment_succeeded"]),
    (_expired, ["payment_authorized", "payment_expired"]),
    (_cancelled, ["payment_cancelled"]),
]


@pytest.mark.parametrize(("flow", "expected"), FLOWS, ids=[flow.__name__.strip("_") for flow, _ in FLOWS])
def test_flow_appends_one_event_per_outcome(
    sandbox: Sandbox, flow: Callable[[Sandbox], str], expected: list[str]
) -> None:
    payment_id = flow(sandbox)
    assert events_of(sandbox, payment_id) == expected


def test_event_carries_the_payment_as_it_was_then(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    advance(sandbox, 5)
    sandbox.payments.capture(MERCHANT_ID, authorized.payment_id)
    first, second = sandbox.store.events(MERCHANT_ID)
    assert (first.resource, first.created) == (authorized, T0)
    assert (second.resource, second.created) == (stored(sandbox, authorized.payment_id), at(5))


def test_event_names_its_merchant_object_and_content_type(sandbox: Sandbox) -> None:
    created = create(sandbox)
    (event,) = sandbox.store.events(MERCHANT_ID)
    assert (event.merchant_id, event.object_id, event.content_type) == (
        MERCHANT_ID,
        created.payment_id,
        ContentType.PAYMENT_DETAILS,
    )
    assert event.event_id.startswith("evt_")


def test_settlement_event_carries_the_due_time(sandbox: Sandbox) -> None:
    create(sandbox, CARD_ASYNC)
    advance(sandbox, 60)
    assert [e.created for e in sandbox.store.events(MERCHANT_ID)] == [T0, at(10)]


REFUSED_OPERATIONS: list[tuple[PaymentStatus, str, Callable[[Sandbox, str], object]]] = [
    (S.SUCCEEDED, "capture", lambda sb, pid: sb.payments.capture(MERCHANT_ID, pid)),
    (S.SUCCEEDED, "cancel", lambda sb, pid: sb.payments.cancel(MERCHANT_ID, pid, "too late")),
    (S.SUCCEEDED, "update", lambda sb, pid: sb.payments.update(MERCHANT_ID, pid, {"amount": 1})),
    (S.SUCCEEDED, "confirm", lambda sb, pid: sb.payments.confirm(MERCHANT_ID, pid, confirmation())),
    (S.FAILED, "approve", lambda sb, pid: sb.payments.approve(MERCHANT_ID, pid)),
    (S.PROCESSING, "cancel", lambda sb, pid: sb.payments.cancel(MERCHANT_ID, pid)),
    (S.REQUIRES_CAPTURE, "reject", lambda sb, pid: sb.payments.reject(MERCHANT_ID, pid)),
    (
        S.REQUIRES_CAPTURE,
        "authenticate",
        lambda sb, pid: sb.payments.authenticate(MERCHANT_ID, pid, completed=True),
    ),
    (S.EXPIRED, "capture", lambda sb, pid: sb.payments.capture(MERCHANT_ID, pid, 1)),
    (S.PARTIALLY_CAPTURED, "cancel", lambda sb, pid: sb.payments.cancel(MERCHANT_ID, pid)),
    (S.REQUIRES_MERCHANT_ACTION, "capture", lambda sb, pid: sb.payments.capture(MERCHANT_ID, pid)),
]


@pytest.mark.parametrize(
    ("status", "operation", "call"),
    REFUSED_OPERATIONS,
    ids=[f"{operation}-of-{status.value}" for status, operation, _ in REFUSED_OPERATIONS],
)
def test_refused_operation_leaves_payment_and_outbox_unchanged(
    sandbox: Sandbox, status: PaymentStatus, operation: str, call: Callable[[Sandbox, str], object]
) -> None:
    before = payment_in(sandbox, status)
    events_before = sandbox.store.events(MERCHANT_ID)
    advance(sandbox, 1)
    with pytest.raises(InvalidState):
        call(sandbox, before.payment_id)
    assert stored(sandbox, before.payment_id) == before
    assert sandbox.store.events(MERCHANT_ID) == events_before


# -- not found and isolation -----------------------------------------------------------------------

OPERATIONS_BY_ID: dict[str, Callable[[Sandbox, str, str], object]] = {
    "retrieve": lambda sb, m, pid: sb.payments.retrieve(m, pid),
    "update": lambda sb, m, pid: sb.payments.update(m, pid, {"amount": 5}),
    "confirm": lambda sb, m, pid: sb.payments.confirm(m, pid, confirmation()),
    "capture": lambda sb, m, pid: sb.payments.capture(m, pid),
    "cancel": lambda sb, m, pid: sb.payments.cancel(m, pid),
    "approve": lambda sb, m, pid: sb.payments.approve(m, pid),
    "reject": lambda sb, m, pid: sb.payments.reject(m, pid),
    "authenticate": lambda sb, m, pid: sb.payments.authenticate(m, pid, completed=True),
}


@pytest.mark.parametrize("operation", list(OPERATIONS_BY_ID))
def test_operation_on_an_unknown_payment_is_IR_05(sandbox: Sandbox, operation: str) -> None:
    with pytest.raises(PaymentNotFound) as raised:
        OPERATIONS_BY_ID[operation](sandbox, MERCHANT_ID, "pay_unknown")
    assert (raised.value.code, raised.value.kind, raised.value.message) == (
        "IR_05",
        ErrorKind.NOT_FOUND,
        "Payment not found",
    )


@pytest.mark.parametrize("operation", list(OPERATIONS_BY_ID))
def test_operation_on_another_merchants_payment_is_IR_05(sandbox: Sandbox, operation: str) -> None:
    mine = create(sandbox, CARD_REVIEW, capture_method="manual")
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    with pytest.raises(PaymentNotFound):
        OPERATIONS_BY_ID[operation](sandbox, other, mine.payment_id)


# -- list ------------------------------------------------------------------------------------------


def test_list_is_newest_first(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    for payment_id in ("pay_a", "pay_b", "pay_c"):
        create(sandbox, payment_id=payment_id)
        system_time.advance(1)
    page = sandbox.payments.list(MERCHANT_ID, Query.of())
    assert [p.payment_id for p in page.items] == ["pay_c", "pay_b", "pay_a"]


def test_list_filters_by_status_and_counts_all_matches(sandbox: Sandbox) -> None:
    for index in range(3):
        create(sandbox, payment_id=f"pay_ok_{index}")
    create(sandbox, CARD_DECLINE, payment_id="pay_declined")
    page = sandbox.payments.list(MERCHANT_ID, Query.of(status="succeeded", limit=2))
    assert [p.payment_id for p in page.items] == ["pay_ok_0", "pay_ok_1"]
    assert page.total_count == 3


def test_list_follows_status_changes(sandbox: Sandbox) -> None:
    authorized = create(sandbox, capture_method="manual")
    sandbox.payments.capture(MERCHANT_ID, authorized.payment_id)
    assert sandbox.payments.list(MERCHANT_ID, Query.of(status="requires_capture")).total_count == 0
    assert sandbox.payments.list(MERCHANT_ID, Query.of(status="succeeded")).total_count == 1


def test_list_filters_by_customer_currency_and_method(sandbox: Sandbox) -> None:
    sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_ada"})
    create(sandbox, payment_id="pay_match", customer_id="cus_ada", currency="EUR")
    create(sandbox, payment_id="pay_other_currency", customer_id="cus_ada")
    create(sandbox, None, payment_id="pay_no_method", customer_id="cus_ada", currency="EUR")
    wanted = Query.of(customer_id="cus_ada", currency="EUR", payment_method="card")
    page = sandbox.payments.list(MERCHANT_ID, wanted)
    assert ([p.payment_id for p in page.items], page.total_count) == (["pay_match"], 1)


def test_list_filters_by_creation_time_inclusive(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    for payment_id in ("pay_t0", "pay_t1", "pay_t2", "pay_t3"):
        create(sandbox, payment_id=payment_id)
        system_time.advance(1)
    window = Query.of(created_gte=at(1), created_lte=at(2))
    assert [p.payment_id for p in sandbox.payments.list(MERCHANT_ID, window).items] == ["pay_t2", "pay_t1"]


def test_list_shows_only_the_merchants_own_payments(sandbox: Sandbox) -> None:
    create(sandbox)
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    assert sandbox.payments.list(other, Query.of()).total_count == 0
