"""The journal's quick look at a body never lets through what the walk would mask."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mocksrv.journal import _KEY_ENDINGS, _nothing_to_mask, journal_body
from mocksrv.masking import HIDDEN_KEYS, LAST_FOUR_KEYS, mask_json, mask_text

MASKED_KEYS = sorted(LAST_FOUR_KEYS | HIDDEN_KEYS)
CARD_LIKE = ["4242424242424242", "4242-4242-4242-4242", "4242 4242 4242 4242"]
URLS = ["https://shop:s3cret@hooks.example/in", "http://shop@hooks.example/", "https://hooks.example/a:b@c"]
# Names near the masked ones, which must be left alone: a phone's number, a CVC check.
NEAR_KEYS = ["card", "number", "cvc_check", "card_isin", "phone", "last4", "ibank", "amount"]
texts = st.one_of(
    st.text(alphabet="0123456789 \t-./_,|\u00a0", max_size=24),
    st.text(alphabet='0123456789 -aé\\"', max_size=24),
    st.text(max_size=8),
    st.sampled_from([*CARD_LIKE, "2026-11-23T15:20:01Z", *URLS]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
SPELLINGS = [spelling for name in MASKED_KEYS for spelling in (name.upper(), name.title())]
keys = st.one_of(st.sampled_from(MASKED_KEYS + SPELLINGS + NEAR_KEYS), st.text(max_size=6))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(keys, inner, max_size=5),
    ),
    max_leaves=12,
)


@given(values)
def test_a_json_body_is_kept_as_the_walk_masks_it(value: Any) -> None:
    body = orjson.dumps(value)
    kept = journal_body(body)
    assert isinstance(kept, orjson.Fragment)
    assert orjson.loads(orjson.dumps(kept)) == orjson.loads(orjson.dumps(mask_json(orjson.loads(body))))


def test_every_masked_key_has_one_of_the_endings_looked_for() -> None:
    assert _KEY_ENDINGS == (
        b'_key"',
        b'_number"',
        b'_password"',
        b'_token"',
        b'cvc"',
        b'cvv"',
        b'cvv2"',
        b'dpan"',
        b'iban"',
        b'pin"',
    )
    for name in MASKED_KEYS:
        assert any(f'"{name}"'.encode().endswith(end) for end in _KEY_ENDINGS), name


def test_a_payment_answer_with_a_phone_number_and_dates_is_kept_as_written() -> None:
    body = b'{"phone":{"number":"4155550100"},"created":"2026-11-23T15:20:01.098Z","cvc_check":"pass"}'
    assert bytes(orjson.dumps(journal_body(body))) == body


def test_keys_are_masked_whatever_their_case() -> None:
    body = b'{"CARD_CVC":"8642","Card_Number":"4917 0000 1357 2460","IBAN":"GB33BUKB20201555555555"}'
    assert orjson.loads(orjson.dumps(journal_body(body))) == {
        "CARD_CVC": "***",
        "Card_Number": "***************2460",
        "IBAN": "******************5555",
    }


def test_a_network_token_of_any_length_and_a_webhook_password_are_masked_by_key() -> None:
    token = "46040004600407870001"  # 20 digits: longer than a card number, no card-like run
    body = orjson.dumps(
        {
            "payment_method_data": {"network_token": {"network_token": token, "token_exp_month": "10"}},
            "webhook_details": {"webhook_password": "hunter2"},
        }
    )
    assert orjson.loads(orjson.dumps(journal_body(body))) == {
        "payment_method_data": {
            "network_token": {"network_token": "****************0001", "token_exp_month": "10"}
        },
        "webhook_details": {"webhook_password": "***"},
    }


def test_a_forms_bracketed_cvc_is_masked() -> None:
    body = b"amount=100&card%5Bcvc%5D=8642&card%5Bnumber%5D=4917000013572460"
    assert journal_body(body) == "amount=100&card%5Bcvc%5D=***&card%5Bnumber%5D=************2460"


def test_a_forms_bracketed_keys_are_masked_when_the_brackets_are_written_as_they_are() -> None:
    body = b"amount=100&card[cvc]=314&bank[bank_account_number]=12345678&card[exp_month]=12"
    assert (
        journal_body(body) == "amount=100&card[cvc]=***&bank[bank_account_number]=****5678&card[exp_month]=12"
    )
    assert mask_text("card[cvc]=111&cvcx=1") == "card[cvc]=***&cvcx=1"


def test_a_cvc_in_single_quotes_is_masked() -> None:
    body = b"{'card_number': '4242424242424242', 'card_cvc': '987'}"
    assert journal_body(body) == "{'card_number': '************4242', 'card_cvc': '***'}"


def test_a_card_number_whose_groups_are_split_by_a_url_encoded_space_is_masked() -> None:
    query = "a=4242+4242+4242+4242&b=4242%204242%204242%204242&c=1+2"
    assert mask_text(query) == "a=************4242&b=************4242&c=1+2"


@pytest.mark.parametrize(
    "number",
    ["4242  4242.4242\u00a04242", "4242\t4242\t4242\t4242", "4242-4242 4242.4242"],
)
def test_a_cards_number_is_masked_however_it_is_written_and_a_phones_is_kept(number: str) -> None:
    body = {
        "card": {"number": number, "cvv": "123", "expiry_month": "12"},
        "phone": {"number": "4155550100"},
    }
    assert mask_json(body) == {
        "card": {"number": "*" * (len(number) - 4) + "4242", "cvv": "***", "expiry_month": "12"},
        "phone": {"number": "4155550100"},
    }
    assert orjson.loads(orjson.dumps(journal_body(orjson.dumps(body)))) == mask_json(body)


def test_a_key_is_matched_in_ascii_case_only_by_the_walk_as_by_the_quick_look() -> None:
    body = {"api_\u212aey": "sk_live_abcdefgh", "API_KEY": "sk_live_abcdefgh"}  # \u212a: the Kelvin sign

    assert mask_json(body) == {"api_\u212aey": "sk_live_abcdefgh", "API_KEY": "************efgh"}
    assert orjson.loads(orjson.dumps(journal_body(orjson.dumps(body)))) == mask_json(body)


def test_an_order_id_or_a_return_url_with_a_date_is_no_reason_to_walk_a_body() -> None:
    body = orjson.dumps(
        {
            "merchant_order_reference_id": "ord_2026_11_24_0001",
            "return_url": "https://shop.example/2026/11/24/1234",
        }
    )

    assert _nothing_to_mask(body) is True


@pytest.mark.parametrize("query", ["a=%C3%A9", "limit=%EF%BC%95", "q=caf%C3%A9&b=%E2%82%AC5"])
def test_escaped_utf_8_in_a_query_is_kept_as_sent(query: str) -> None:
    assert mask_text(query) == query


def test_an_escaped_ascii_letter_in_a_key_is_read_and_its_value_masked() -> None:
    assert mask_text("caf%C3%A9=1&card%5Fcvc=555") == "caf%C3%A9=1&card_cvc=***"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://shop:s3cret@hooks.example/in", "https://shop:***@hooks.example/in"),
        ("http://:p@[::1]:8000/", "http://:***@[::1]:8000/"),
        ("http://shop@hooks.example/", "http://shop@hooks.example/"),  # a user alone: no secret
        ("https://hooks.example/a:b@c", "https://hooks.example/a:b@c"),  # in the path: no user information
    ],
)
def test_a_urls_password_is_hidden_in_json_and_in_text(url: str, shown: str) -> None:
    body = orjson.dumps({"webhook_details": {"webhook_url": url}})

    assert orjson.loads(orjson.dumps(journal_body(body))) == {"webhook_details": {"webhook_url": shown}}
    assert mask_text(f"webhook_url={url}") == f"webhook_url={shown}"
