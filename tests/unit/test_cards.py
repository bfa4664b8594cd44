"""Card checks (decisions section 3): Luhn, expiry on the mock clock, CVC, brand, what is kept."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from mocksrv.domain.errors import InvalidField
from mocksrv.domain.payments.cards import brand_of, card_summary, luhn_valid, normalized_number

NOW = datetime(2026, 1, 22, 18, 43, 56, tzinfo=UTC)


def card(**overrides: str) -> dict[str, Any]:
    return {
        "card_number": "4242424242424242",
        "card_exp_month": "12",
        "card_exp_year": "2099",
        "card_cvc": "123",
        **overrides,
    }


def rejection(**overrides: str) -> InvalidField:
    with pytest.raises(InvalidField) as raised:
        card_summary(card(**overrides), NOW)
    return raised.value


@pytest.mark.parametrize(
    "number",
    [
        "4242424242424242",
        "378282246310005",
        "6011111111111117",
        "5555555555554444",
        "4000000000000002",
        "424242424242",  # 12 digits: the shortest accepted
        "4242424242424242428",  # 19 digits: the longest accepted
    ],
)
def test_luhn_valid_number_passes(number: str) -> None:
    assert luhn_valid(number)


@pytest.mark.parametrize(
    "number",
    [
        "4242424242424241",  # one digit off
        "4242424242424243",
        "4242 4242 4242 4242",  # spaces are removed before the check, not by it
        "424242424242424a",
        "",
        "42424242428",  # 11 digits: too short, though the sum is right
        "42424242424242424242",  # 20 digits: too long
    ],
)
def test_luhn_invalid_number_fails(number: str) -> None:
    assert not luhn_valid(number)


@pytest.mark.parametrize(
    ("number", "brand"),
    [
        ("4242424242424242", "Visa"),
        ("5555555555554444", "Mastercard"),
        ("5105105105105100", "Mastercard"),
        ("2223003122003222", "Mastercard"),
        ("378282246310005", "AmericanExpress"),
        ("341111111111111", "AmericanExpress"),
        ("6011111111111117", "Discover"),
        ("6445644564456445", "Discover"),
        ("6500000000000002", "Discover"),
        ("3566002020360505", "JCB"),
        ("30569309025904", "DinersClub"),
        ("36227206271667", "DinersClub"),
        ("6200000000000005", "UnionPay"),
        ("5018000000000009", "Unknown"),
        ("2720999999999996", "Mastercard"),
        ("2721000000000004", "Unknown"),
    ],
)
def test_brand_follows_the_number_prefix(number: str, brand: str) -> None:
    assert brand_of(number) == brand


def test_summary_keeps_last4_brand_expiry_and_holder_under_both_names() -> None:
    summary = card_summary(card(card_holder_name="Ada Lovelace"), NOW, "debit")
    assert summary == {
        "last4": "4242",
        "brand": "Visa",
        "exp_month": "12",
        "exp_year": "2099",
        "card_holder_name": "Ada Lovelace",
        "card_network": "Visa",
        "card_type": "debit",
        "card_issuer": "mocksrv test bank",
        "card_issuing_country": "US",
        "card_isin": "424242",
        "card_exp_month": "12",
        "card_exp_year": "2099",
        "payment_checks": {"cvc_check": "pass"},
    }


def test_a_card_type_only_from_a_card_method_type_and_a_network_only_when_known() -> None:
    assert card_summary(card(), NOW, "apple_pay")["card_type"] is None
    assert card_summary(card(), NOW)["card_type"] is None
    summary = card_summary(card(card_number="1234567812345670"), NOW)
    assert (summary["brand"], summary["card_network"]) == ("Unknown", None)


def test_summary_keeps_neither_number_nor_cvc() -> None:
    summary = card_summary(card(card_number="4000000000009995", card_cvc="987"), NOW)
    assert "4000000000009995" not in repr(summary)
    assert "987" not in repr(summary)


def test_summary_without_holder_name_has_none() -> None:
    assert card_summary(card(), NOW)["card_holder_name"] is None


def test_number_with_spaces_is_accepted() -> None:
    assert card_summary(card(card_number="4242 4242 4242 4242"), NOW)["last4"] == "4242"


def test_one_digit_month_is_padded() -> None:
    assert card_summary(card(card_exp_month="3"), NOW)["exp_month"] == "03"


def test_two_digit_year_is_in_this_century() -> None:
    assert card_summary(card(card_exp_year="31"), NOW)["exp_year"] == "2031"


def test_card_expiring_this_month_is_accepted() -> None:
    assert card_summary(card(card_exp_month="01", card_exp_year="2026"), NOW)["exp_year"] == "2026"


def test_four_digit_cvc_is_accepted() -> None:
    assert (
        card_summary(card(card_number="378282246310005", card_cvc="1234"), NOW)["brand"] == "AmericanExpress"
    )


def test_luhn_invalid_number_is_rejected() -> None:
    error = rejection(card_number="4242424242424241")
    assert (error.code, error.param, error.message) == (
        "IR_04",
        "payment_method_data.card.card_number",
        "Invalid value provided: payment_method_data.card.card_number: the card number is not valid",
    )


def test_card_expired_last_month_is_rejected() -> None:
    error = rejection(card_exp_month="12", card_exp_year="2025")
    assert (error.param, error.message) == (
        "payment_method_data.card.card_exp_year",
        "Invalid value provided: payment_method_data.card.card_exp_year: the card has expired",
    )


def test_expiry_is_judged_on_the_given_time() -> None:
    later = datetime(2026, 2, 1, tzinfo=UTC)
    with pytest.raises(InvalidField):
        card_summary(card(card_exp_month="01", card_exp_year="2026"), later)


@pytest.mark.parametrize("month", ["0", "00", "13", "ab", ""])
def test_bad_month_is_rejected(month: str) -> None:
    error = rejection(card_exp_month=month)
    assert (error.param, error.message) == (
        "payment_method_data.card.card_exp_month",
        "Invalid value provided: payment_method_data.card.card_exp_month: a month from 01 to 12",
    )


@pytest.mark.parametrize("year", ["209", "20999", "20x9", ""])
def test_bad_year_is_rejected(year: str) -> None:
    error = rejection(card_exp_year=year)
    assert (error.param, error.message) == (
        "payment_method_data.card.card_exp_year",
        "Invalid value provided: payment_method_data.card.card_exp_year: a year of two or four digits",
    )


@pytest.mark.parametrize("cvc", ["12", "12345", "12a", ""])
def test_bad_cvc_is_rejected(cvc: str) -> None:
    error = rejection(card_cvc=cvc)
    assert (error.param, error.message) == (
        "payment_method_data.card.card_cvc",
        "Invalid value provided: payment_method_data.card.card_cvc: three or four digits",
    )


# Characters that str.isdigit() accepts but that are not the digits 0-9.
NON_ASCII_DIGITS = {
    "number-superscript": ("card_number", "424242424242424\u00b2", "payment_method_data.card.card_number"),
    "number-fullwidth": (
        "card_number",
        "\uff14\uff12\uff14\uff12" * 4,
        "payment_method_data.card.card_number",
    ),
    "month-superscript": ("card_exp_month", "1\u00b2", "payment_method_data.card.card_exp_month"),
    "year-fullwidth": ("card_exp_year", "\uff12\uff10\uff19\uff19", "payment_method_data.card.card_exp_year"),
    "cvc-superscript": ("card_cvc", "12\u00b3", "payment_method_data.card.card_cvc"),
}


@pytest.mark.parametrize(
    ("field", "value", "param"), list(NON_ASCII_DIGITS.values()), ids=list(NON_ASCII_DIGITS)
)
def test_digits_other_than_ascii_are_rejected_as_invalid(field: str, value: str, param: str) -> None:
    with pytest.raises(InvalidField) as raised:
        card_summary(card(**{field: value}), NOW)
    assert (raised.value.code, raised.value.param) == ("IR_04", param)


def test_normalized_number_drops_spaces() -> None:
    assert normalized_number({"card_number": "4000 0000 0000 0002"}) == "4000000000000002"
