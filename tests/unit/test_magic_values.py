"""Magic values: the default table of decisions section 5 and fixtures/outcomes.yaml, and its parser."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from mocksrv.domain.errors import InvalidField
from mocksrv.domain.models import Payment
from mocksrv.domain.payments.outcomes import SUCCESS, Outcome, OutcomeResult, OutcomeRule, OutcomeTable
from mocksrv.domain.payments.states import PaymentStatus
from mocksrv.domain.sandbox import Sandbox
from mocksrv.representations import event_json
from mocksrv.settings import DEFAULT_FIXTURES
from tests.payloads import MERCHANT_ID, PROFILE_ID, payment

WAIT_RANGE = "a whole number of seconds from 0 to 3162240000 (100 years)"

S = PaymentStatus

SUCCESS_CARDS = [
    "4242424242424242",
    "4111111111111111",
    "5555555555554444",
    "378282246310005",
    "6011111111111117",
]

# (card number, error_code, error_message): declined at once.
DECLINE_CARDS = [
    ("4000000000000002", "card_declined", "Your card was declined."),
    ("5105105105105100", "card_declined", "Your card was declined."),
    ("4000000000009995", "insufficient_funds", "Your card has insufficient funds."),
    ("4000000000009987", "lost_card", "Your card has been reported lost."),
    ("4000000000009979", "stolen_card", "Your card has been reported stolen."),
    ("4000000000000069", "expired_card", "Your card has expired."),
    ("4000000000000127", "incorrect_cvc", "Your card's security code is incorrect."),
    ("4000000000000119", "processing_error", "An error occurred while processing your card."),
    ("4100000000000019", "fraudulent", "The payment was blocked as fraudulent."),
]

# (card number, status after completing the challenge, error_code)
CHALLENGE_CARDS = [
    ("4000003800000446", S.SUCCEEDED, None),
    ("4000000000003220", S.SUCCEEDED, None),
    ("4000008400001629", S.FAILED, "card_declined"),
]

# (card number, status once settled, error_code)
ASYNC_CARDS = [
    ("4000000000000077", S.SUCCEEDED, None),
    ("4000000000000093", S.FAILED, "card_declined"),
]

# Luhn-valid numbers that no rule names.
OTHER_VALID_CARDS = ["4012888888881881", "5200828282828210", "371449635398431", "4000056655665556"]


def pay_by_card(sandbox: Sandbox, number: str, **overrides: Any) -> Payment:
    return sandbox.payments.create(MERCHANT_ID, payment(number, **overrides))


def pay_by(sandbox: Sandbox, method: str, method_type: str, data: dict[str, Any]) -> Payment:
    body = {
        "amount": 5000,
        "currency": "USD",
        "profile_id": PROFILE_ID,
        "confirm": True,
        "payment_method": method,
        "payment_method_type": method_type,
        "payment_method_data": {method: data},
        "return_url": "https://shop.example/return",
    }
    return sandbox.payments.create(MERCHANT_ID, body)


def settle(sandbox: Sandbox, payment_id: str, seconds: float) -> Payment:
    sandbox.scheduler.advance(MERCHANT_ID, seconds)
    return sandbox.payments.retrieve(MERCHANT_ID, payment_id)


# -- cards -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("number", SUCCESS_CARDS)
def test_success_card_succeeds(sandbox: Sandbox, number: str) -> None:
    paid = pay_by_card(sandbox, number)
    assert (paid.status, paid.error_code, paid.error_message) == (S.SUCCEEDED, None, None)


@pytest.mark.parametrize(("number", "code", "message"), DECLINE_CARDS)
def test_decline_card_fails_with_its_error(sandbox: Sandbox, number: str, code: str, message: str) -> None:
    paid = pay_by_card(sandbox, number)
    assert (paid.status, paid.error_code, paid.error_message) == (S.FAILED, code, message)


@pytest.mark.parametrize(("number", "_status", "_code"), CHALLENGE_CARDS)
def test_challenge_card_requires_customer_action(
    sandbox: Sandbox, number: str, _status: S, _code: str
) -> None:
    assert pay_by_card(sandbox, number).status is S.REQUIRES_CUSTOMER_ACTION


@pytest.mark.parametrize(("number", "status", "code"), CHALLENGE_CARDS)
def test_challenge_card_after_completion(sandbox: Sandbox, number: str, status: S, code: str | None) -> None:
    challenged = pay_by_card(sandbox, number)
    finished = sandbox.payments.authenticate(MERCHANT_ID, challenged.payment_id, completed=True)
    assert (finished.status, finished.error_code) == (status, code)


def test_review_card_requires_merchant_action(sandbox: Sandbox) -> None:
    assert pay_by_card(sandbox, "4000000000009235").status is S.REQUIRES_MERCHANT_ACTION


@pytest.mark.parametrize(("number", "_status", "_code"), ASYNC_CARDS)
def test_async_card_is_processing_for_10_seconds(
    sandbox: Sandbox, number: str, _status: S, _code: str
) -> None:
    pending = pay_by_card(sandbox, number)
    assert pending.status is S.PROCESSING
    assert settle(sandbox, pending.payment_id, 9).status is S.PROCESSING


@pytest.mark.parametrize(("number", "status", "code"), ASYNC_CARDS)
def test_async_card_settles_after_10_seconds(
    sandbox: Sandbox, number: str, status: S, code: str | None
) -> None:
    pending = pay_by_card(sandbox, number)
    settled = settle(sandbox, pending.payment_id, 10)
    assert (settled.status, settled.error_code) == (status, code)


def test_dispute_card_succeeds(sandbox: Sandbox) -> None:
    assert pay_by_card(sandbox, "4000000000000259").status is S.SUCCEEDED


def test_dispute_card_outcome_opens_a_dispute(sandbox: Sandbox) -> None:
    outcome = pay_by_card(sandbox, "4000000000000259").outcome
    assert outcome == Outcome(OutcomeResult.SUCCESS, opens_dispute=True)


def test_refund_failure_card_succeeds(sandbox: Sandbox) -> None:
    assert pay_by_card(sandbox, "4000000000005126").status is S.SUCCEEDED


def test_refund_failure_card_outcome_fails_refunds(sandbox: Sandbox) -> None:
    outcome = pay_by_card(sandbox, "4000000000005126").outcome
    assert outcome == Outcome(OutcomeResult.SUCCESS, refund_result="failed")


@pytest.mark.parametrize("number", OTHER_VALID_CARDS)
def test_any_other_valid_card_succeeds(sandbox: Sandbox, number: str) -> None:
    assert pay_by_card(sandbox, number).status is S.SUCCEEDED


def test_card_number_with_spaces_matches_its_magic_value(sandbox: Sandbox) -> None:
    body = payment("4000 0000 0000 0002")
    assert sandbox.payments.create(MERCHANT_ID, body).error_code == "card_declined"


# -- crypto, bank transfer, wallet -----------------------------------------------------------------

CRYPTO = {"pay_currency": "BTC", "wallet_address": "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh"}
BANK = {"account_number": "DE89370400440532013000", "bank_name": "Test Bank"}


def test_crypto_payment_is_processing_for_10_minutes(sandbox: Sandbox) -> None:
    pending = pay_by(sandbox, "crypto", "crypto_currency", CRYPTO)
    assert pending.status is S.PROCESSING
    assert settle(sandbox, pending.payment_id, 599).status is S.PROCESSING


def test_crypto_payment_succeeds_after_10_minutes(sandbox: Sandbox) -> None:
    pending = pay_by(sandbox, "crypto", "crypto_currency", CRYPTO)
    assert settle(sandbox, pending.payment_id, 600).status is S.SUCCEEDED


@pytest.mark.parametrize("address", ["0xdecline", "bc1q-DECLINE-7"])
def test_crypto_payment_to_a_decline_address_fails_after_10_minutes(sandbox: Sandbox, address: str) -> None:
    pending = pay_by(sandbox, "crypto", "crypto_currency", {**CRYPTO, "wallet_address": address})
    settled = settle(sandbox, pending.payment_id, 600)
    assert (settled.status, settled.error_code, settled.error_message) == (
        S.FAILED,
        "payment_expired",
        "The crypto payment was not received in time.",
    )


WEEK = 7 * 24 * 3600


def test_bank_transfer_waits_for_the_transfer_for_a_week(sandbox: Sandbox) -> None:
    pending = pay_by(sandbox, "bank_transfer", "sepa", BANK)
    assert pending.status is S.REQUIRES_CUSTOMER_ACTION
    assert settle(sandbox, pending.payment_id, WEEK - 1).status is S.REQUIRES_CUSTOMER_ACTION


def test_bank_transfer_succeeds_when_the_transfer_arrives(sandbox: Sandbox) -> None:
    pending = pay_by(sandbox, "bank_transfer", "sepa", BANK)
    settle(sandbox, pending.payment_id, WEEK - 1)
    assert sandbox.payments.transfer_arrived(MERCHANT_ID, pending.payment_id).status is S.SUCCEEDED


def test_bank_transfer_fails_when_its_window_passes(sandbox: Sandbox) -> None:
    pending = pay_by(sandbox, "bank_transfer", "sepa", BANK)
    settled = settle(sandbox, pending.payment_id, WEEK)
    assert (settled.status, settled.error_code, settled.error_message) == (
        S.FAILED,
        "transfer_expired",
        "The bank transfer did not arrive before the transfer window closed",
    )


def test_bank_transfer_to_a_decline_account_fails_when_the_transfer_arrives(sandbox: Sandbox) -> None:
    pending = pay_by(sandbox, "bank_transfer", "sepa", {**BANK, "account_number": "decline-0001"})
    settled = sandbox.payments.transfer_arrived(MERCHANT_ID, pending.payment_id)
    assert (settled.status, settled.error_code, settled.error_message) == (
        S.FAILED,
        "transfer_failed",
        "The bank transfer failed.",
    )


def test_a_bank_transfer_keeps_the_account_numbers_last_four_only(sandbox: Sandbox) -> None:
    pending = pay_by(sandbox, "bank_transfer", "sepa", {**BANK, "bank_account_number": 12345678})
    assert pending.payment_method_data == {
        "bank_transfer": {
            "account_number": "****3000",
            "bank_name": "Test Bank",
            "bank_account_number": "****5678",
        }
    }
    [event] = sandbox.store.events(MERCHANT_ID)
    webhook = event_json(event, "http://127.0.0.1/", sandbox)
    assert webhook["content"]["object"]["payment_method_data"] == pending.payment_method_data


def test_wallet_payment_succeeds(sandbox: Sandbox) -> None:
    assert pay_by(sandbox, "wallet", "google_pay", {"token": "tok_abc"}).status is S.SUCCEEDED


# The flat shape, and the real service's shapes of each wallet.
DECLINED_WALLETS = [
    ("google_pay", {"token": "tok_Decline_1"}),
    (
        "google_pay",
        {
            "google_pay": {
                "type": "CARD",
                "description": "Visa 1111",
                "info": {"card_network": "VISA", "card_details": "1111"},
                "tokenization_data": {"type": "PAYMENT_GATEWAY", "token": "tok_decline"},
            }
        },
    ),
    (
        "apple_pay",
        {
            "apple_pay": {
                "payment_data": "decline_xyz",
                "payment_method": {"display_name": "Visa 0326", "network": "Visa", "type": "debit"},
                "transaction_identifier": "abc",
            }
        },
    ),
]


@pytest.mark.parametrize(("method_type", "data"), DECLINED_WALLETS, ids=["flat", "google_pay", "apple_pay"])
def test_wallet_payment_with_decline_in_its_data_fails(
    sandbox: Sandbox, method_type: str, data: dict[str, Any]
) -> None:
    paid = pay_by(sandbox, "wallet", method_type, data)
    assert (paid.status, paid.error_code) == (S.FAILED, "card_declined")


def test_bank_transfer_of_the_real_shape_with_decline_in_its_data_fails_when_it_arrives(
    sandbox: Sandbox,
) -> None:
    data = {"sepa_bank_transfer": {"billing_details": {"name": "Decline Doe", "email": "d@example.com"}}}
    pending = pay_by(sandbox, "bank_transfer", "sepa", data)
    settled = sandbox.payments.transfer_arrived(MERCHANT_ID, pending.payment_id)
    assert (settled.status, settled.error_code) == (S.FAILED, "transfer_failed")


# -- the table in force ----------------------------------------------------------------------------


def test_replaced_table_applies_to_that_merchant(sandbox: Sandbox) -> None:
    table = OutcomeTable.from_data({"rules": [{"outcome": {"result": "review"}}]})
    sandbox.merchants.replace_outcomes(MERCHANT_ID, table)
    assert pay_by_card(sandbox, "4242424242424242").status is S.REQUIRES_MERCHANT_ACTION


def test_first_matching_rule_decides() -> None:
    table = OutcomeTable.from_data(
        {
            "rules": [
                {"match": {"card_number": "4242424242424242"}, "outcome": {"result": "review"}},
                {"match": {"payment_method": "card"}, "outcome": {"result": "decline"}},
            ]
        }
    )
    card = {"card": {"card_number": "4242424242424242"}}
    assert table.match("card", "credit", card).result is OutcomeResult.REVIEW


def test_no_matching_rule_means_success() -> None:
    table = OutcomeTable.from_data(
        {"rules": [{"match": {"payment_method": "crypto"}, "outcome": {"result": "decline"}}]}
    )
    assert table.match("card", "credit", {"card": {"card_number": "4242424242424242"}}) is SUCCESS


def test_rule_with_payment_method_type_matches_only_that_type() -> None:
    rule = OutcomeRule(
        Outcome(OutcomeResult.REVIEW), payment_method="wallet", payment_method_type="apple_pay"
    )
    assert rule.matches("wallet", "apple_pay", {"wallet": {}})
    assert not rule.matches("wallet", "google_pay", {"wallet": {}})


def test_rule_on_a_field_does_not_match_a_missing_field() -> None:
    rule = OutcomeRule(Outcome(OutcomeResult.REVIEW), fields_contain=(("crypto.wallet_address", "x"),))
    assert not rule.matches("crypto", None, {"crypto": {"pay_currency": "BTC"}})


# -- the parser ------------------------------------------------------------------------------------


def _fixture_data() -> Any:
    return yaml.safe_load((DEFAULT_FIXTURES / "outcomes.yaml").read_text())


def test_fixture_table_round_trips_through_to_data() -> None:
    table = OutcomeTable.from_data(_fixture_data())
    assert OutcomeTable.from_data(table.to_data()).rules == table.rules


def test_to_data_of_a_parsed_table_is_stable() -> None:
    data = OutcomeTable.from_data(_fixture_data()).to_data()
    assert OutcomeTable.from_data(data).to_data() == data


def test_to_data_writes_a_rule_in_its_plain_form() -> None:
    table = OutcomeTable.from_data(
        {
            "rules": [
                {
                    "name": "slow crypto",
                    "match": {"payment_method": "crypto", "fields_contain": {"crypto.network": "tron"}},
                    "outcome": {"result": "processing", "then": {"result": "success"}},
                }
            ]
        }
    )
    assert table.to_data() == {
        "rules": [
            {
                "name": "slow crypto",
                "match": {"payment_method": "crypto", "fields_contain": {"crypto.network": "tron"}},
                "outcome": {"result": "processing", "after_seconds": 10, "then": {"result": "success"}},
            }
        ]
    }


def test_single_card_number_is_read_as_a_list() -> None:
    table = OutcomeTable.from_data(
        {"rules": [{"match": {"card_number": "4242"}, "outcome": {"result": "review"}}]}
    )
    assert table.rules[0].card_numbers == frozenset({"4242"})


def test_processing_waits_10_seconds_by_default() -> None:
    table = OutcomeTable.from_data(
        {"rules": [{"outcome": {"result": "processing", "then": {"result": "success"}}}]}
    )
    assert table.rules[0].outcome.after_seconds == 10


def test_decline_defaults_to_card_declined() -> None:
    table = OutcomeTable.from_data({"rules": [{"outcome": {"result": "decline"}}]})
    assert (table.rules[0].outcome.error_code, table.rules[0].outcome.error_message) == (
        "card_declined",
        "Your card was declined.",
    )


def _with(path: list[str | int], value: Any) -> dict[str, Any]:
    """Return a valid one-rule table with the value at `path` (inside the rule) replaced."""
    rule: dict[str, Any] = {
        "name": "r",
        "match": {"payment_method": "card", "card_number": ["4242424242424242"]},
        "outcome": {"result": "processing", "after_seconds": 5, "then": {"result": "success"}},
    }
    target: Any = rule
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return {"rules": [rule]}


def _without(path: list[str]) -> dict[str, Any]:
    data = _with(["name"], "r")
    target: Any = data["rules"][0]
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return data


# (table, the error's param, its full message)
BAD_TABLES: list[tuple[str, Any, str, str]] = [
    (
        "not an object",
        [],
        "rules",
        "Invalid value provided: rules: the table is an object with a list of rules",
    ),
    ("no rules", {}, "rules", "Missing required param: rules"),
    ("rules not a list", {"rules": {}}, "rules", "Invalid value provided: rules"),
    ("rule not an object", {"rules": ["x"]}, "rules.0", "Invalid value provided: rules.0"),
    (
        "unknown rule field",
        _with(["when"], {}),
        "rules.0.when",
        "Invalid value provided: rules.0.when: unknown field",
    ),
    ("name not a string", _with(["name"], 7), "rules.0.name", "Invalid value provided: rules.0.name"),
    (
        "match not an object",
        _with(["match"], "card"),
        "rules.0.match",
        "Invalid value provided: rules.0.match",
    ),
    (
        "unknown match field",
        _with(["match", "amount"], 5),
        "rules.0.match.amount",
        "Invalid value provided: rules.0.match.amount: unknown field",
    ),
    (
        "card number not digits",
        _with(["match", "card_number"], ["4242-4242"]),
        "rules.0.match.card_number",
        "Invalid value provided: rules.0.match.card_number: a list of card numbers as strings of digits",
    ),
    (
        "card number not a string",
        _with(["match", "card_number"], [4242424242424242]),
        "rules.0.match.card_number",
        "Invalid value provided: rules.0.match.card_number: a list of card numbers as strings of digits",
    ),
    (
        "fields_contain not an object",
        _with(["match", "fields_contain"], ["crypto.wallet_address"]),
        "rules.0.match.fields_contain",
        "Invalid value provided: rules.0.match.fields_contain: an object of field path to substring",
    ),
    (
        "payment_method not a string",
        _with(["match", "payment_method"], ["card"]),
        "rules.0.match.payment_method",
        "Invalid value provided: rules.0.match.payment_method",
    ),
    ("no outcome", _without(["outcome"]), "rules.0.outcome", "Missing required param: rules.0.outcome"),
    (
        "outcome not an object",
        _with(["outcome"], "success"),
        "rules.0.outcome",
        "Invalid value provided: rules.0.outcome",
    ),
    (
        "unknown outcome field",
        _with(["outcome", "delay"], 3),
        "rules.0.outcome.delay",
        "Invalid value provided: rules.0.outcome.delay: unknown field",
    ),
    (
        "no result",
        _without(["outcome", "result"]),
        "rules.0.outcome.result",
        "Missing required param: rules.0.outcome.result",
    ),
    (
        "unknown result",
        _with(["outcome", "result"], "maybe"),
        "rules.0.outcome.result",
        "Invalid value provided: rules.0.outcome.result",
    ),
    (
        "processing without then",
        _without(["outcome", "then"]),
        "rules.0.outcome.then",
        "Missing required param: rules.0.outcome.then",
    ),
    (
        "then after success",
        {"rules": [{"outcome": {"result": "success", "then": {"result": "success"}}}]},
        "rules.0.outcome.then",
        "Invalid value provided: rules.0.outcome.then: a success outcome has no follow-up",
    ),
    (
        "review after processing",
        _with(["outcome", "then"], {"result": "review"}),
        "rules.0.outcome.then.result",
        "Invalid value provided: rules.0.outcome.then.result: cannot follow processing",
    ),
    (
        "bad result inside then",
        _with(["outcome", "then"], {"result": "later"}),
        "rules.0.outcome.then.result",
        "Invalid value provided: rules.0.outcome.then.result",
    ),
    (
        "negative wait",
        _with(["outcome", "after_seconds"], -1),
        "rules.0.outcome.after_seconds",
        f"Invalid value provided: rules.0.outcome.after_seconds: {WAIT_RANGE}",
    ),
    (
        "wait past a century",  # each wait ends a timer's due time, which must stay in the calendar
        _with(["outcome", "after_seconds"], 300_000_000_000),
        "rules.0.outcome.after_seconds",
        f"Invalid value provided: rules.0.outcome.after_seconds: {WAIT_RANGE}",
    ),
    (
        "fractional wait",
        _with(["outcome", "after_seconds"], 1.5),
        "rules.0.outcome.after_seconds",
        f"Invalid value provided: rules.0.outcome.after_seconds: {WAIT_RANGE}",
    ),
    (
        "boolean wait",
        _with(["outcome", "after_seconds"], True),
        "rules.0.outcome.after_seconds",
        f"Invalid value provided: rules.0.outcome.after_seconds: {WAIT_RANGE}",
    ),
    (
        "unknown field beside the rules",
        {"rules": [], "extra": 1},
        "extra",
        "Invalid value provided: extra: unknown field",
    ),
    (
        "wait on success",
        {"rules": [{"outcome": {"result": "success", "after_seconds": 5}}]},
        "rules.0.outcome.after_seconds",
        "Invalid value provided: rules.0.outcome.after_seconds: only a processing or transfer outcome waits",
    ),
    (
        "error_code not a string",
        {"rules": [{"outcome": {"result": "decline", "error_code": 51}}]},
        "rules.0.outcome.error_code",
        "Invalid value provided: rules.0.outcome.error_code",
    ),
    (
        "opens_dispute not a boolean",
        {"rules": [{"outcome": {"result": "success", "opens_dispute": "yes"}}]},
        "rules.0.outcome.opens_dispute",
        "Invalid value provided: rules.0.outcome.opens_dispute",
    ),
    (
        "unknown refund_result",
        {"rules": [{"outcome": {"result": "success", "refund_result": "pending"}}]},
        "rules.0.outcome.refund_result",
        "Invalid value provided: rules.0.outcome.refund_result: succeeded or failed",
    ),
    (
        "bad second rule",
        {"rules": [{"outcome": {"result": "success"}}, {"outcome": {"result": "nope"}}]},
        "rules.1.outcome.result",
        "Invalid value provided: rules.1.outcome.result",
    ),
]


@pytest.mark.parametrize(
    ("data", "param", "message"), [t[1:] for t in BAD_TABLES], ids=[t[0] for t in BAD_TABLES]
)
def test_bad_table_is_rejected_naming_the_dotted_path(data: Any, param: str, message: str) -> None:
    with pytest.raises(InvalidField) as raised:
        OutcomeTable.from_data(copy.deepcopy(data))
    assert (raised.value.code, raised.value.param, raised.value.message) == ("IR_04", param, message)


def test_valid_template_of_the_bad_tables_is_accepted() -> None:
    # The bad tables are this one with one thing changed; it must itself be valid.
    assert len(OutcomeTable.from_data(_with(["name"], "r")).rules) == 1
