"""HMAC-SHA512 signing with fixed vectors (decisions sections 3 and 6)."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qsl, urlsplit

import pytest
from werkzeug.datastructures import MultiDict
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from mocksrv.domain.signing import (
    SIGNATURE_ALGORITHM,
    canonical_query,
    sign,
    signed_redirect,
)
from mocksrv.signatures import verify_redirect
from tests.payloads import SIGNING_KEY

# Expected values computed once (and checked with `openssl dgst -sha512 -hmac`), then written down.
RFC_4231_CASE_2 = (
    "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75"
    "c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
)
WEBHOOK_BODY = b'{"event_id":"evt_1","event_type":"payment_succeeded"}'
WEBHOOK_SIGNATURE = (
    "d9f6b9a44edbc1194047d1f773e6e94f5330b90ead874d411538d086ceb0621761fa5d06"
    "d736f0cb084dd7d54b1a894ce279ce98aab3c47605fd39b9e7bb3ef8"
)
REDIRECT_PARAMS = {
    "status": "succeeded",
    "payment_id": "pay_1",
    "amount": "1000",
    "payment_intent_client_secret": "pay_1_secret_abc",
}
REDIRECT_QUERY = "amount=1000&payment_id=pay_1&payment_intent_client_secret=pay_1_secret_abc&status=succeeded"
REDIRECT_SIGNATURE = (
    "137e8eed3c3f3e751a92efdbed028f468eed478b7cf6e35a17ab227d0a0a2ac0fbc3f5e511b7"
    "5036c68d1bf43a03c55d4556f5a2938d05e5513db399078e040c"
)


def test_sign_matches_the_rfc_4231_vector() -> None:
    assert sign("Jefe", b"what do ya want for nothing?") == RFC_4231_CASE_2


def test_sign_of_a_webhook_body_matches_the_fixed_vector() -> None:
    assert sign(SIGNING_KEY, WEBHOOK_BODY) == WEBHOOK_SIGNATURE


def test_signature_is_lowercase_hex_of_512_bits() -> None:
    signature = sign(SIGNING_KEY, WEBHOOK_BODY)
    assert len(signature) == 128
    assert signature == signature.lower()
    assert set(signature) <= set("0123456789abcdef")


@pytest.mark.parametrize("body", [b"", b"{}", '{"name":"Zo\u00eb"}'.encode(), bytes(range(256))])
def test_sign_is_hmac_sha512_of_the_exact_bytes(body: bytes) -> None:
    assert sign(SIGNING_KEY, body) == hmac.new(SIGNING_KEY.encode(), body, hashlib.sha512).hexdigest()


def test_one_changed_byte_changes_the_signature() -> None:
    assert sign(SIGNING_KEY, WEBHOOK_BODY.replace(b"evt_1", b"evt_2")) != WEBHOOK_SIGNATURE


def test_another_key_gives_another_signature() -> None:
    assert sign("whsec_other", WEBHOOK_BODY) != WEBHOOK_SIGNATURE


def test_canonical_query_sorts_the_parameters_by_name() -> None:
    assert canonical_query(REDIRECT_PARAMS) == REDIRECT_QUERY


def test_canonical_query_url_encodes_values() -> None:
    assert canonical_query({"b": "x y", "a": "&="}) == "a=%26%3D&b=x+y"


def test_redirect_signature_matches_the_fixed_vector() -> None:
    url = signed_redirect("https://shop.example/return", REDIRECT_PARAMS, SIGNING_KEY)
    assert dict(parse_qsl(urlsplit(url).query))["signature"] == REDIRECT_SIGNATURE


def test_signed_redirect_adds_the_parameters_signature_and_algorithm() -> None:
    url = signed_redirect("https://shop.example/return", {"status": "succeeded", "payment_id": "pay_1"}, "k")
    assert url == (
        "https://shop.example/return?status=succeeded&payment_id=pay_1"
        "&signature=4cc259f156db912b69658e57ddcc5fdaf35fcb5cbe55e1215dbdf034a404e16efa987a6acf3c501d"
        "bbe5fe80ff3396de87f6711d84c6723d5bfd9e6a247c315f&signature_algorithm=HMAC-SHA512"
    )


def test_signature_algorithm_is_named_hmac_sha512() -> None:
    assert SIGNATURE_ALGORITHM == "HMAC-SHA512"


def test_signed_redirect_keeps_the_return_url_query() -> None:
    url = signed_redirect("https://shop.example/return?order=42", {"status": "succeeded"}, SIGNING_KEY)
    assert url.startswith("https://shop.example/return?order=42&status=succeeded&signature=")


def test_signed_redirect_verifies() -> None:
    url = signed_redirect("https://shop.example/return", REDIRECT_PARAMS, SIGNING_KEY)
    assert verify_redirect(url, SIGNING_KEY)


def test_signed_redirect_to_a_return_url_with_its_own_query_verifies() -> None:
    url = signed_redirect("https://shop.example/return?order=42", REDIRECT_PARAMS, SIGNING_KEY)
    assert verify_redirect(url, SIGNING_KEY)


def test_tampered_redirect_does_not_verify() -> None:
    url = signed_redirect("https://shop.example/return", REDIRECT_PARAMS, SIGNING_KEY)
    assert not verify_redirect(url.replace("status=succeeded", "status=failed"), SIGNING_KEY)


def test_redirect_with_another_key_does_not_verify() -> None:
    url = signed_redirect("https://shop.example/return", REDIRECT_PARAMS, "whsec_other")
    assert not verify_redirect(url, SIGNING_KEY)


def test_redirect_verifies_from_its_query_string_or_its_parameters() -> None:
    url = signed_redirect("https://shop.example/return?order=42", REDIRECT_PARAMS, SIGNING_KEY)
    query = urlsplit(url).query
    assert verify_redirect(query, SIGNING_KEY)
    assert verify_redirect(f"?{query}", SIGNING_KEY)
    assert verify_redirect(dict(parse_qsl(query)), SIGNING_KEY)


def test_a_return_url_parameter_that_comes_twice_is_kept_and_signed_twice() -> None:
    url = signed_redirect("https://shop.example/r?item=2&flag&item=1", {"status": "succeeded"}, SIGNING_KEY)
    query = urlsplit(url).query

    assert query.startswith("item=2&flag&item=1&status=succeeded&signature=")
    assert verify_redirect(url, SIGNING_KEY)
    assert verify_redirect(MultiDict(parse_qsl(query, keep_blank_values=True)), SIGNING_KEY)
    assert not verify_redirect(url.replace("item=1&", ""), SIGNING_KEY)  # one of the two dropped


@pytest.mark.parametrize(
    "own",
    [
        "ref=%FF%FE&x=%E2%82%AC",
        "ref=%FF&item=2",
        "x=%E2%82",
        "p=%25FF",
        "a=%ZZ",
        "q=a+b%2Bc&empty=&bare",
        "path=/a/b?c&%C3%A9t%C3%A9=1",
    ],
)
def test_the_return_urls_own_parameters_come_back_as_they_were_written(own: str) -> None:
    url = signed_redirect(f"https://shop.example/r?{own}", {"status": "succeeded"}, SIGNING_KEY)

    assert url.startswith(f"https://shop.example/r?{own}&status=succeeded&signature=")
    assert verify_redirect(url, SIGNING_KEY)
    assert verify_redirect(MultiDict(parse_qsl(urlsplit(url).query, keep_blank_values=True)), SIGNING_KEY)
    # As Flask's `request.args` reads them: Werkzeug keeps an escape that is not UTF-8 as written.
    args = Request(EnvironBuilder(query_string=urlsplit(url).query).get_environ()).args
    assert verify_redirect(args, SIGNING_KEY)
    assert not verify_redirect(args, "whsec_other")


@pytest.mark.parametrize(
    ("own", "forged"),
    [
        ("order=A%20B", "order=A%2520B"),  # read A%20B, not A B
        ("x=%E2%82%AC", "x=%25E2%2582%25AC"),  # read %E2%82%AC, not the euro sign
        ("ref=%FF%E2%82%AC", "ref=%FF%25E2%2582%25AC"),
    ],
)
def test_parameters_whose_escapes_were_escaped_again_do_not_verify(own: str, forged: str) -> None:
    url = signed_redirect(f"https://shop.example/r?{own}", {"status": "succeeded"}, SIGNING_KEY)
    query = urlsplit(url).query.replace(own, forged)

    assert not verify_redirect(query, SIGNING_KEY)
    assert not verify_redirect(Request(EnvironBuilder(query_string=query).get_environ()).args, SIGNING_KEY)


def test_the_canonical_string_sorts_a_name_that_comes_twice_by_value() -> None:
    assert canonical_query([("item", "2"), ("b", "x"), ("item", "1")]) == "b=x&item=1&item=2"


def test_the_redirects_own_parameters_replace_the_return_urls_of_their_names() -> None:
    url = signed_redirect("https://shop.example/r?status=paid&signature=forged", {"status": "failed"}, "k")

    params = parse_qsl(urlsplit(url).query)

    assert [name for name, _ in params] == ["status", "signature", "signature_algorithm"]
    assert params[0] == ("status", "failed")
    assert verify_redirect(url, "k")


def test_redirect_signature_is_of_the_documented_canonical_string() -> None:
    """The README's recipe: every parameter but the two signature ones, sorted, form-encoded."""
    query = "status=succeeded&note=a+b%2Fc&signature_algorithm=HMAC-SHA512"
    signature = hmac.new(SIGNING_KEY.encode(), b"note=a+b%2Fc&status=succeeded", hashlib.sha512).hexdigest()
    assert verify_redirect(f"{query}&signature={signature}", SIGNING_KEY)


def test_redirect_without_signature_does_not_verify() -> None:
    assert not verify_redirect(f"https://shop.example/return?{REDIRECT_QUERY}", SIGNING_KEY)


@pytest.mark.parametrize("signature", ["%C3%A9", "%ED%B2%80"], ids=["not-ascii", "a-surrogate-s-bytes"])
def test_redirect_whose_signature_is_not_ascii_does_not_verify(signature: str) -> None:
    assert verify_redirect(f"{REDIRECT_QUERY}&signature={signature}", SIGNING_KEY) is False
    assert verify_redirect({"signature": "\udc80"}, SIGNING_KEY) is False
