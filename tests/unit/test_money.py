"""Currencies and countries (decisions section 7) and minor-unit exponents (section 4, legacy API)."""

from __future__ import annotations

import pytest

from mocksrv.domain.money import (
    MAX_AMOUNT,
    MIN_AMOUNT,
    currencies,
    currency_exponent,
    is_country,
    is_currency,
)


@pytest.mark.parametrize(
    ("code", "exponent"),
    # As the real service counts them, where CLDR gives IQD, AFN, RSD and ISK 0 and ISO 4217 gives
    # MGA and IRR 2 and ISK 0.
    [
        *(("JPY", 0), ("USD", 2), ("EUR", 2), ("KWD", 3), ("IQD", 3), ("CLF", 4)),
        *(("AFN", 2), ("RSD", 2), ("SLL", 2), ("ISK", 2), ("MGA", 0), ("IRR", 0)),
    ],
)
def test_currency_exponent(code: str, exponent: int) -> None:
    assert currency_exponent(code) == exponent


@pytest.mark.parametrize("code", ["USD", "EUR", "JPY", "KWD", "INR"])
def test_iso_4217_code_is_a_currency(code: str) -> None:
    assert is_currency(code)


@pytest.mark.parametrize("code", ["usd", "US", "XYZ", "DOLLAR", ""])
def test_other_text_is_not_a_currency(code: str) -> None:
    assert not is_currency(code)


@pytest.mark.parametrize("code", ["US", "DE", "JP", "IN", "GB"])
def test_iso_3166_alpha_2_code_is_a_country(code: str) -> None:
    assert is_country(code)


@pytest.mark.parametrize("code", ["us", "USA", "001", ""])
def test_other_text_is_not_a_country(code: str) -> None:
    assert not is_country(code)


# CLDR territories that ISO 3166-1 does not assign to a country: user-assigned (ZZ "Unknown Region",
# QO "Outlying Oceania", XA/XB pseudo-locales) or reserved for other uses (EU, EZ, UN).
@pytest.mark.parametrize("code", ["ZZ", "QO", "XA", "XB", "EU", "EZ", "UN"])
def test_region_code_that_iso_3166_does_not_assign_is_not_a_country(code: str) -> None:
    assert not is_country(code)


def test_amount_bounds_are_1_to_99_999_999_999() -> None:
    assert (MIN_AMOUNT, MAX_AMOUNT) == (1, 99_999_999_999)


def test_every_currency_taken_has_an_exponent() -> None:
    assert {currency_exponent(code) for code in currencies()} == {0, 2, 3, 4}
