"""The refund routes take every field of the real service's refund requests and answer its fields.

Create: `merchant_id` must be the key's merchant; `refund_type` in either spelling, shown as sent;
`split_refunds` checked, kept and shown; `merchant_connector_details` and `all_keys_required`
checked, then ignored. Update: `reason` and `metadata`. Every answer names its `connector`.
The spec's rules (section 4.3, decisions section 4) hold whatever else the body holds.
"""

from __future__ import annotations

from typing import Any

import pytest

from mocksrv.api.refunds import RefundCreateSchema
from tests.api.conftest import OtherMerchant
from tests.api.expected import (
    PAYMENT_NOT_FOUND,
    Matches,
    error,
    invalid,
    later,
    malformed,
    missing,
    refused,
)
from tests.api.scenarios import advance, create, ok, payment_in, retrieve
from tests.api.test_refunds_api import (
    AMOUNT_RANGE,
    REFUNDABLE,
    refund_body,
    refund_count,
    settle,
    too_large,
)
from tests.api.test_request_schema import marshmallow_alone, outcome, variants
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

pytestmark = pytest.mark.usefixtures("frozen")

HOUR = 3600
NOT_THE_KEYS_MERCHANT = "not the merchant of the API key"
SPLIT_KINDS = "must hold exactly one of: stripe_split_refund, adyen_split_refund, xendit_split_refund"
ADYEN_SPLIT_TYPES = (
    "must be one of: BalanceAccount, AcquiringFees, PaymentFee, AdyenFees, AdyenCommission, AdyenMarkup, "
    "Interchange, SchemeFee, Commission, TopUp, Vat"
)
# The fields the real service's refund response always carries.
REQUIRED_ANSWER_FIELDS = ("refund_id", "payment_id", "amount", "currency", "status", "connector")

CONNECTOR_DETAILS = {
    "creds_identifier": "creds_1",
    "encoded_data": {
        "connector_account_details": {"auth_type": "HeaderKey", "api_key": "sk_test_1"},
        "metadata": {"region": "eu"},
    },
}
ADYEN_SPLIT = {
    "adyen_split_refund": {
        "store": "store_1",
        "split_items": [
            {
                "amount": 600,
                "split_type": "BalanceAccount",
                "account": "BA_1",
                "reference": "r1",
                "description": "d",
            },
            {"amount": 0, "split_type": "Commission", "reference": "r2"},
        ],
    }
}
STRIPE_SPLIT = {"stripe_split_refund": {"revert_platform_fee": True, "revert_transfer": False}}
XENDIT_SPLIT = {"xendit_split_refund": {"for_user_id": "user_1"}}


def full_request(**changes: Any) -> dict[str, Any]:
    """A refund request with every field of the real service's, each with a valid value."""
    body: dict[str, Any] = {
        "payment_id": "pay_1",
        "refund_id": "ref_1",
        "merchant_id": MERCHANT_ID,
        "amount": 600,
        "reason": "Customer returned the goods",
        "refund_type": "instant",
        "metadata": {"order_id": "ord_1"},
        "merchant_connector_details": CONNECTOR_DETAILS,
        "split_refunds": ADYEN_SPLIT,
        "all_keys_required": True,
    }
    body.update(changes)
    return body


def full_answer(frozen: str, **changes: Any) -> dict[str, Any]:
    """The refund `full_request()` makes, as the API shows it."""
    fields = {
        "amount": 600,
        "reason": "Customer returned the goods",
        "refund_type": "instant",
        "metadata": {"order_id": "ord_1"},
        "split_refunds": ADYEN_SPLIT,
    }
    return refund_body(frozen, "ref_1", **{**fields, **changes})


def refused_create(api: Api, body: dict[str, Any]) -> tuple[int, Any]:
    """The answer to a create, after checking that it stored nothing."""
    response = api.post("/refunds", body)
    assert (refund_count(api), retrieve(api, "pay_1")["amount_refunded"]) == (0, 0)
    return response.status_code, response.json


# -- a body of every real field ----------------------------------------------------------------------


def test_a_body_of_every_real_field_is_accepted(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/refunds", full_request())

    assert response.status_code == 200
    assert response.json == full_answer(frozen)


def test_a_body_of_every_real_field_is_kept_as_answered(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    created = ok(api.post("/refunds", full_request()))

    assert ok(api.get("/refunds/ref_1")) == created
    assert ok(api.post("/refunds/list", {}))["data"] == [created]
    assert retrieve(api, "pay_1")["amount_refunded"] == 600


def test_a_body_of_every_real_field_takes_the_fast_path() -> None:
    schema = RefundCreateSchema()
    body = full_request(split_refunds=ADYEN_SPLIT)

    assert schema.load(body) is body


@pytest.mark.parametrize("split", [ADYEN_SPLIT, STRIPE_SPLIT, XENDIT_SPLIT], ids=lambda s: next(iter(s)))
def test_every_variant_of_a_full_body_loads_as_marshmallow_alone_loads_it(split: dict[str, Any]) -> None:
    schema = RefundCreateSchema()

    differences = [
        (label, ours, theirs)
        for label, variant in variants(full_request(split_refunds=split))
        if (ours := outcome(schema.load, variant))
        != (theirs := outcome(lambda b: marshmallow_alone(schema, b), variant))
    ]

    assert differences == []


def test_null_in_every_optional_real_field_is_as_if_not_sent(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    nulls = {name: None for name in full_request() if name != "payment_id"}

    response = api.post("/refunds", {"payment_id": "pay_1", **nulls})

    assert response.status_code == 200
    assert response.json == refund_body(frozen, Matches(r"ref_[A-Za-z0-9]{26}"))


def test_a_field_the_real_service_does_not_define_is_IR_06(api: Api) -> None:
    create(api, payment_id="pay_1")

    assert refused_create(api, full_request(connector="stripe")) == (
        400,
        malformed("unknown field `connector`"),
    )


# -- the spec's rules hold in a body of every real field ---------------------------------------------


def test_payment_id_is_still_required(api: Api) -> None:
    create(api, payment_id="pay_1")
    body = full_request()
    del body["payment_id"]

    assert refused_create(api, body) == (400, missing("payment_id"))


@pytest.mark.parametrize("amount", [0, -1, 100_000_000_000])
def test_the_amount_bounds_still_hold(api: Api, amount: int) -> None:
    create(api, payment_id="pay_1")

    assert refused_create(api, full_request(amount=amount)) == (400, invalid("amount", AMOUNT_RANGE))


def test_an_amount_below_100_is_accepted_as_the_spec_sets_no_minimum(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/refunds", full_request(amount=1))

    assert (response.status_code, response.json) == (200, full_answer(frozen, amount=1))


def test_without_an_amount_the_whole_remainder_is_refunded(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    body = full_request()
    del body["amount"]

    response = api.post("/refunds", body)

    assert (response.status_code, response.json) == (200, full_answer(frozen, amount=1000))


def test_a_refund_over_what_remains_is_still_IR_13(api: Api) -> None:
    create(api, payment_id="pay_1")
    ok(api.post("/refunds", full_request(refund_id="ref_0", amount=700)))

    response = api.post("/refunds", full_request(amount=301))

    assert (response.status_code, response.json) == (400, too_large(300))
    assert retrieve(api, "pay_1")["amount_refunded"] == 700


def test_a_payment_that_is_not_refundable_is_still_IR_14(api: Api) -> None:
    payment_in(api, "requires_capture")

    response = api.post("/refunds", full_request())

    assert (response.status_code, response.json) == (400, refused("refunded", "requires_capture", REFUNDABLE))


def test_an_unknown_payment_is_still_IR_05(api: Api) -> None:
    response = api.post("/refunds", full_request(payment_id="pay_unknown"))

    assert (response.status_code, response.json) == (404, PAYMENT_NOT_FOUND)


def test_a_used_refund_id_is_still_HE_01(api: Api) -> None:
    create(api, payment_id="pay_1")
    ok(api.post("/refunds", full_request(amount=100)))

    response = api.post("/refunds", full_request(amount=100))

    assert (response.status_code, response.json) == (
        400,
        error("HE_01", "The refund with the specified refund_id already exists in our records", "refund_id"),
    )


# -- merchant_id -------------------------------------------------------------------------------------


def test_merchant_id_of_the_keys_merchant_is_accepted(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_1", "merchant_id": MERCHANT_ID})

    assert (response.status_code, response.json) == (200, refund_body(frozen, "ref_1"))


@pytest.mark.parametrize("merchant_id", ["merchant_other", "", "x" * 255])
def test_merchant_id_of_another_merchant_is_IR_04_and_stores_nothing(
    api: Api, other_merchant: OtherMerchant, merchant_id: str
) -> None:
    create(api, payment_id="pay_1")

    assert refused_create(api, full_request(merchant_id=merchant_id)) == (
        400,
        invalid("merchant_id", NOT_THE_KEYS_MERCHANT),
    )


@pytest.mark.parametrize(
    ("merchant_id", "reason"),
    [(5, "not a valid string"), (["m"], "not a valid string"), ("m" * 256, "longer than maximum length 255")],
    ids=["number", "list", "256 characters"],
)
def test_merchant_id_of_the_wrong_type_or_length_is_IR_04(api: Api, merchant_id: Any, reason: str) -> None:
    create(api, payment_id="pay_1")

    assert refused_create(api, full_request(merchant_id=merchant_id)) == (400, invalid("merchant_id", reason))


def test_merchant_id_is_checked_before_the_payment_is_looked_for(api: Api) -> None:
    response = api.post("/refunds", {"payment_id": "pay_unknown", "merchant_id": "merchant_other"})

    assert (response.status_code, response.json) == (400, invalid("merchant_id", NOT_THE_KEYS_MERCHANT))


def test_another_merchant_naming_itself_refunds_only_its_own_payments(
    api: Api, other_merchant: OtherMerchant
) -> None:
    create(api, payment_id="pay_1")

    response = other_merchant.api.post("/refunds", full_request(merchant_id=other_merchant.merchant_id))

    assert (response.status_code, response.json) == (404, PAYMENT_NOT_FOUND)


# -- refund_type -------------------------------------------------------------------------------------


@pytest.mark.parametrize("refund_type", ["Instant", "instant", "Regular", "scheduled"])
def test_each_spelling_of_refund_type_is_kept_and_shown_as_sent(
    api: Api, frozen: str, refund_type: str
) -> None:
    create(api, payment_id="pay_1")

    created = ok(api.post("/refunds", full_request(refund_type=refund_type)))

    assert created == full_answer(frozen, refund_type=refund_type)
    assert ok(api.get("/refunds/ref_1")) == created


@pytest.mark.parametrize("refund_type", ["instant", "scheduled"])
def test_both_refund_types_settle_by_the_payments_outcome(api: Api, frozen: str, refund_type: str) -> None:
    create(api, "4000000000005126", payment_id="pay_1")
    ok(api.post("/refunds", full_request(refund_type=refund_type)))

    advance(api, HOUR)

    assert ok(api.get("/refunds/ref_1"))["status"] == "failed"


# -- merchant_connector_details: checked, then ignored -----------------------------------------------


@pytest.mark.parametrize(
    "details",
    [CONNECTOR_DETAILS, {"creds_identifier": "creds_1"}, {"creds_identifier": "c", "encoded_data": {}}],
    ids=["whole", "creds only", "empty encoded_data"],
)
def test_merchant_connector_details_are_accepted_and_not_shown(
    api: Api, frozen: str, details: dict[str, Any]
) -> None:
    create(api, payment_id="pay_1")

    response = api.post(
        "/refunds", {"payment_id": "pay_1", "refund_id": "ref_1", "merchant_connector_details": details}
    )

    assert (response.status_code, response.json) == (200, refund_body(frozen, "ref_1"))


MCD = "merchant_connector_details"
INVALID_CONNECTOR_DETAILS: list[tuple[Any, dict[str, Any]]] = [
    ("creds_1", invalid(MCD, "invalid input type")),
    ({}, missing(f"{MCD}.creds_identifier")),
    ({"creds_identifier": 1}, invalid(f"{MCD}.creds_identifier", "not a valid string")),
    ({"creds_identifier": "c" * 256}, invalid(f"{MCD}.creds_identifier", "longer than maximum length 255")),
    ({"creds_identifier": "c", "encoded_data": []}, invalid(f"{MCD}.encoded_data", "invalid input type")),
    (
        {"creds_identifier": "c", "encoded_data": {"connector_account_details": "key"}},
        invalid(f"{MCD}.encoded_data.connector_account_details", "not a valid mapping type"),
    ),
    (
        {"creds_identifier": "c", "encoded_data": {"metadata": {f"k{i}": i for i in range(51)}}},
        invalid(f"{MCD}.encoded_data.metadata", "has more than 50 keys"),
    ),
    ({"creds_identifier": "c", "connector": "x"}, malformed(f"unknown field `{MCD}.connector`")),
]


@pytest.mark.parametrize(("details", "expected"), INVALID_CONNECTOR_DETAILS, ids=lambda v: str(v)[:40])
def test_invalid_merchant_connector_details_are_IR_04_naming_the_path(
    api: Api, details: Any, expected: dict[str, Any]
) -> None:
    create(api, payment_id="pay_1")

    assert refused_create(api, full_request(merchant_connector_details=details)) == (400, expected)


# -- split_refunds: checked, kept and shown ----------------------------------------------------------


@pytest.mark.parametrize("split", [ADYEN_SPLIT, STRIPE_SPLIT, XENDIT_SPLIT], ids=lambda s: next(iter(s)))
def test_split_refunds_of_each_kind_are_kept_and_shown(api: Api, frozen: str, split: dict[str, Any]) -> None:
    create(api, payment_id="pay_1")

    created = ok(api.post("/refunds", full_request(split_refunds=split)))

    assert created == full_answer(frozen, split_refunds=split)
    assert ok(api.get("/refunds/ref_1")) == created


def test_nulls_inside_split_refunds_are_left_out(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    split = {
        "stripe_split_refund": {"revert_platform_fee": None, "revert_transfer": True},
        "adyen_split_refund": None,
    }

    created = ok(api.post("/refunds", full_request(split_refunds=split)))

    assert created["split_refunds"] == {"stripe_split_refund": {"revert_transfer": True}}


SR, ADYEN = "split_refunds", "split_refunds.adyen_split_refund"
ITEM = {"amount": 100, "split_type": "Vat", "reference": "r"}
INVALID_SPLITS: list[tuple[Any, dict[str, Any]]] = [
    ([], invalid(SR, "invalid input type")),
    ({}, invalid(SR, SPLIT_KINDS)),
    ({**STRIPE_SPLIT, **XENDIT_SPLIT}, invalid(SR, SPLIT_KINDS)),
    ({"paypal_split_refund": {}}, malformed("unknown field `split_refunds.paypal_split_refund`")),
    (
        {"stripe_split_refund": {"revert_transfer": "yes"}},
        invalid(f"{SR}.stripe_split_refund.revert_transfer", "not a valid boolean"),
    ),
    (
        {"stripe_split_refund": {"revert_fees": True}},
        malformed("unknown field `split_refunds.stripe_split_refund.revert_fees`"),
    ),
    ({"xendit_split_refund": {}}, missing(f"{SR}.xendit_split_refund.for_user_id")),
    (
        {"xendit_split_refund": {"for_user_id": 7}},
        invalid(f"{SR}.xendit_split_refund.for_user_id", "not a valid string"),
    ),
    ({"adyen_split_refund": {"store": "s"}}, missing(f"{ADYEN}.split_items")),
    ({"adyen_split_refund": {"split_items": {}}}, invalid(f"{ADYEN}.split_items", "not a valid list")),
    ({"adyen_split_refund": {"split_items": [{}]}}, missing(f"{ADYEN}.split_items.0.amount")),
    (
        {"adyen_split_refund": {"split_items": [ITEM, {**ITEM, "split_type": "Tax"}]}},
        invalid(f"{ADYEN}.split_items.1.split_type", ADYEN_SPLIT_TYPES),
    ),
    (
        {"adyen_split_refund": {"split_items": [{**ITEM, "amount": "100"}]}},
        invalid(f"{ADYEN}.split_items.0.amount", "not a valid integer"),
    ),
    (
        {"adyen_split_refund": {"split_items": [{**ITEM, "amount": -1}]}},
        invalid(f"{ADYEN}.split_items.0.amount", AMOUNT_RANGE.replace("equal to 1 ", "equal to 0 ")),
    ),
    (
        {"adyen_split_refund": {"split_items": [{**ITEM, "reference": None}]}},
        invalid(f"{ADYEN}.split_items.0.reference", "field may not be null"),
    ),
]


@pytest.mark.parametrize(("split", "expected"), INVALID_SPLITS, ids=lambda v: str(v)[:50])
def test_invalid_split_refunds_are_refused_naming_the_path(
    api: Api, split: Any, expected: dict[str, Any]
) -> None:
    create(api, payment_id="pay_1")

    assert refused_create(api, full_request(split_refunds=split)) == (400, expected)


# -- all_keys_required: checked, then ignored --------------------------------------------------------


@pytest.mark.parametrize("all_keys_required", [True, False])
def test_all_keys_required_changes_nothing_as_every_key_is_always_answered(
    api: Api, frozen: str, all_keys_required: bool
) -> None:
    create(api, payment_id="pay_1")

    response = api.post(
        "/refunds", {"payment_id": "pay_1", "refund_id": "ref_1", "all_keys_required": all_keys_required}
    )

    assert (response.status_code, response.json) == (200, refund_body(frozen, "ref_1"))


@pytest.mark.parametrize("value", ["true", 1, {}])
def test_all_keys_required_that_is_not_a_boolean_is_IR_04(api: Api, value: Any) -> None:
    create(api, payment_id="pay_1")

    assert refused_create(api, full_request(all_keys_required=value)) == (
        400,
        invalid("all_keys_required", "not a valid boolean"),
    )


# -- update: the real update request -----------------------------------------------------------------


def test_update_takes_every_field_of_the_real_update_request(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    ok(api.post("/refunds", full_request()))
    advance(api, 30)

    response = api.post("/refunds/ref_1", {"reason": "Damaged", "metadata": {"ticket": "t1"}})

    assert (response.status_code, response.json) == (
        200,
        full_answer(frozen, reason="Damaged", metadata={"ticket": "t1"}, updated_at=later(frozen, 30)),
    )


def test_update_with_null_fields_changes_only_the_time(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")
    ok(api.post("/refunds", full_request()))
    advance(api, 30)

    response = api.post("/refunds/ref_1", {"reason": None, "metadata": None})

    assert (response.status_code, response.json) == (200, full_answer(frozen, updated_at=later(frozen, 30)))


@pytest.mark.parametrize("field", ["split_refunds", "refund_type", "merchant_id", "all_keys_required"])
def test_update_of_a_create_only_field_is_IR_06(api: Api, field: str) -> None:
    create(api, payment_id="pay_1")
    created = ok(api.post("/refunds", full_request()))

    response = api.post("/refunds/ref_1", {field: full_request()[field]})

    assert (response.status_code, response.json) == (400, malformed(f"unknown field `{field}`"))
    assert ok(api.get("/refunds/ref_1")) == created


# -- every answer carries the real service's required fields -----------------------------------------


def test_every_refund_answer_carries_the_real_required_fields(api: Api) -> None:
    create(api, "4000000000005126", payment_id="pay_1")
    answers = [
        ok(api.post("/refunds", {"payment_id": "pay_1", "refund_id": "ref_1", "amount": 100})),
        ok(api.get("/refunds/ref_1")),
        ok(api.post("/refunds/ref_1", {"reason": "x"})),
        ok(settle(api, "ref_1", "failed")),
        *ok(api.post("/refunds/list", {}))["data"],
    ]

    shown = [{name: answer[name] for name in REQUIRED_ANSWER_FIELDS} for answer in answers]

    expected = {
        "refund_id": "ref_1",
        "payment_id": "pay_1",
        "amount": 100,
        "currency": "USD",
        "status": "failed",
        "connector": "mocksrv",
    }
    assert shown == [{**expected, "status": "pending"}] * 3 + [expected] * 2
