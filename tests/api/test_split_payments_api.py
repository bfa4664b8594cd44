"""`split_payments`: a payment's split among accounts, one processor's kind, as the real service takes
it (`SplitPaymentsRequest`) and shows it (`ConnectorChargeResponseData`). A Xendit split among
several accounts also shows the id of the split rule made for the payment, made once."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests import payloads
from tests.api.expected import Matches, invalid, malformed, missing
from tests.api.scenarios import create, ok, payment_count, retrieve
from tests.conftest import Api

pytestmark = pytest.mark.usefixtures("frozen")

SPLIT_RULE_ID = Matches(r"splitru_[A-Za-z0-9]{20}")
ROUTE = {"flat_amount": 100, "currency": "IDR", "destination_account_id": "acc_1", "reference_id": "r1"}
SHARE = {"percent_amount": 10, "currency": "IDR", "destination_account_id": "acc_2", "reference_id": "r2"}
MULTIPLE = {"name": "marketplace", "description": "fees of the platform", "routes": [ROUTE, SHARE]}
XENDIT_MULTIPLE = {"xendit_split_payment": {"multiple_splits": MULTIPLE}}
STRIPE = {
    "stripe_split_payment": {"charge_type": "direct", "application_fees": 10, "transfer_account_id": "a"}
}
ADYEN_ITEM = {"amount": 600, "split_type": "BalanceAccount", "reference": "r1"}


def with_rule(multiple: dict[str, Any], rule: Any = SPLIT_RULE_ID) -> dict[str, Any]:
    """A Xendit split among accounts as answered: as sent, with the split rule's id."""
    return {"xendit_split_payment": {"multiple_splits": {"split_rule_id": rule, **copy.deepcopy(multiple)}}}


def test_a_xendit_split_among_accounts_shows_the_split_rule_made_for_it(api: Api) -> None:
    created = create(api, payment_id="pay_1", split_payments=copy.deepcopy(XENDIT_MULTIPLE))

    assert created["split_payments"] == with_rule(MULTIPLE)
    rule = created["split_payments"]["xendit_split_payment"]["multiple_splits"]["split_rule_id"]
    assert retrieve(api, "pay_1")["split_payments"] == with_rule(MULTIPLE, rule)
    listed = ok(api.get("/payments/list"))["data"]
    assert [payment["split_payments"] for payment in listed] == [with_rule(MULTIPLE, rule)]


def test_the_split_rule_is_made_once_and_kept_by_every_later_split(api: Api) -> None:
    create(api, None, payment_id="pay_1", split_payments=copy.deepcopy(STRIPE))
    assert retrieve(api, "pay_1")["split_payments"] == STRIPE

    first = ok(api.post("/payments/pay_1", {"split_payments": copy.deepcopy(XENDIT_MULTIPLE)}))
    rule = first["split_payments"]["xendit_split_payment"]["multiple_splits"]["split_rule_id"]
    assert rule == SPLIT_RULE_ID

    renamed = {**MULTIPLE, "name": "renamed", "for_user_id": "user_1"}
    sent = {"split_payments": {"xendit_split_payment": {"multiple_splits": renamed}}}
    assert ok(api.post("/payments/pay_1", sent))["split_payments"] == with_rule(renamed, rule)
    assert (
        ok(api.post("/payments/pay_1", {"split_payments": copy.deepcopy(STRIPE)}))["split_payments"] == STRIPE
    )
    again = ok(api.post("/payments/pay_1", {"split_payments": copy.deepcopy(XENDIT_MULTIPLE)}))
    assert again["split_payments"] == with_rule(MULTIPLE, rule)


SHOWN_AS_SENT = {
    "stripe, its charge type bare": STRIPE,
    "stripe, its charge type as the document writes it": {
        "stripe_split_payment": {
            "charge_type": {"Stripe": "destination"},
            "application_fees": 0,
            "transfer_account_id": "acct_1",
        }
    },
    "adyen": {
        "adyen_split_payment": {
            "store": "store_1",
            "split_items": [
                {**ADYEN_ITEM, "account": "BA_1", "description": "the seller's share"},
                {"amount": 40, "split_type": "Commission", "reference": "r2"},
            ],
        }
    },
    "xendit, one sub-account": {"xendit_split_payment": {"single_split": {"for_user_id": "user_1"}}},
}


@pytest.mark.parametrize("split", list(SHOWN_AS_SENT.values()), ids=list(SHOWN_AS_SENT))
def test_other_splits_are_shown_as_sent(api: Api, split: dict[str, Any]) -> None:
    created = create(api, payment_id="pay_1", split_payments=copy.deepcopy(split))

    assert created["split_payments"] == split
    assert retrieve(api, "pay_1")["split_payments"] == split


def test_nulls_inside_a_split_are_left_out(api: Api) -> None:
    split = {
        "stripe_split_payment": None,
        "xendit_split_payment": {"multiple_splits": {**MULTIPLE, "for_user_id": None}, "single_split": None},
    }

    created = create(api, split_payments=split)

    assert created["split_payments"] == with_rule(MULTIPLE)


SP, XM = "split_payments", "split_payments.xendit_split_payment.multiple_splits"
KINDS = "must hold exactly one of: stripe_split_payment, adyen_split_payment, xendit_split_payment"
STRIPE_CHARGE_TYPES = "direct, destination"
ADYEN_SPLIT_TYPES = (
    "BalanceAccount, AcquiringFees, PaymentFee, AdyenFees, AdyenCommission, AdyenMarkup, Interchange, "
    "SchemeFee, Commission, TopUp, Vat"
)
INVALID_SPLITS: list[tuple[Any, dict[str, Any]]] = [
    ({}, invalid(SP, KINDS)),
    ({**STRIPE, **XENDIT_MULTIPLE}, invalid(SP, KINDS)),
    ({"paypal_split_payment": {}}, malformed("unknown field `split_payments.paypal_split_payment`")),
    (
        {"stripe_split_payment": {**STRIPE["stripe_split_payment"], "charge_type": "indirect"}},
        invalid(
            f"{SP}.stripe_split_payment.charge_type", f"must be an object or one of: {STRIPE_CHARGE_TYPES}"
        ),
    ),
    (
        {"stripe_split_payment": {**STRIPE["stripe_split_payment"], "charge_type": {"Stripe": "indirect"}}},
        invalid(
            f"{SP}.stripe_split_payment.charge_type",
            f'an object names a Stripe charge type ({STRIPE_CHARGE_TYPES}), as {{"Stripe": "direct"}}',
        ),
    ),
    (
        {"stripe_split_payment": {"charge_type": "direct", "transfer_account_id": "a"}},
        missing(f"{SP}.stripe_split_payment.application_fees"),
    ),
    (
        {"stripe_split_payment": {**STRIPE["stripe_split_payment"], "charge_id": "ch_1"}},
        malformed("unknown field `split_payments.stripe_split_payment.charge_id`"),
    ),
    (
        {"adyen_split_payment": {"split_items": [{**ADYEN_ITEM, "split_type": "Tax"}]}},
        invalid(
            f"{SP}.adyen_split_payment.split_items.0.split_type",
            f"must be one of: {ADYEN_SPLIT_TYPES}",
        ),
    ),
    ({"adyen_split_payment": {"store": "s"}}, missing(f"{SP}.adyen_split_payment.split_items")),
    (
        {
            "xendit_split_payment": {
                **XENDIT_MULTIPLE["xendit_split_payment"],
                "single_split": {"for_user_id": "u"},
            }
        },
        invalid(f"{SP}.xendit_split_payment", "must hold exactly one of: multiple_splits, single_split"),
    ),
    (
        {"xendit_split_payment": {"single_split": {}}},
        missing(f"{SP}.xendit_split_payment.single_split.for_user_id"),
    ),
    (
        {"xendit_split_payment": {"multiple_splits": {"name": "n", "routes": []}}},
        missing(f"{XM}.description"),
    ),
    (
        {"xendit_split_payment": {"multiple_splits": {**MULTIPLE, "routes": [{**ROUTE, "currency": "idr"}]}}},
        invalid(f"{XM}.routes.0.currency", "not an ISO 4217 currency code of money the service takes"),
    ),
    (
        {
            "xendit_split_payment": {
                "multiple_splits": {**MULTIPLE, "routes": [{**SHARE, "percent_amount": 101}]}
            }
        },
        invalid(
            f"{XM}.routes.0.percent_amount",
            "must be greater than or equal to 0 and less than or equal to 100",
        ),
    ),
    (
        {"xendit_split_payment": {"multiple_splits": {**MULTIPLE, "split_rule_id": "splitru_1"}}},
        malformed("unknown field `split_payments.xendit_split_payment.multiple_splits.split_rule_id`"),
    ),
]


@pytest.mark.parametrize(("split", "expected"), INVALID_SPLITS, ids=lambda v: str(v)[:50])
def test_a_split_of_another_shape_is_refused_naming_the_path(
    api: Api, split: Any, expected: dict[str, Any]
) -> None:
    response = api.post("/payments", payloads.payment(split_payments=split))

    assert (response.status_code, response.json) == (400, expected)
    assert payment_count(api) == 0


@pytest.mark.parametrize("action", ["update", "confirm"])
def test_a_refused_request_with_a_split_draws_no_split_rule_id(api: Api, action: str) -> None:
    def next_payment_id(refused: bool) -> str:
        ok(api.post("/__mock/reset"))
        ok(api.put("/__mock/ids", {"seed": 7}))
        created = create(api, None)
        if refused:
            path = f"/payments/{created['payment_id']}" + ("/confirm" if action == "confirm" else "")
            body = {**payloads.confirmation("4242424242424241"), "split_payments": XENDIT_MULTIPLE}
            assert api.post(path, body).json == invalid(
                "payment_method_data.card.card_number", "the card number is not valid"
            )
        payment_id: str = create(api, None)["payment_id"]
        return payment_id

    assert next_payment_id(refused=True) == next_payment_id(refused=False)
