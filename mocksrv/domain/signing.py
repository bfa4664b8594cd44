"""HMAC-SHA512 signatures: of webhook bodies, and of the query string sent back to return_url."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SIGNATURE_ALGORITHM = "HMAC-SHA512"
UNSIGNED_PARAMETERS = ("signature", "signature_algorithm")


def sign(key: str, message: bytes) -> str:
    """Return the lowercase hex HMAC-SHA512 of `message`."""
    return hmac.new(key.encode(), message, hashlib.sha512).hexdigest()


def canonical_query(params: Mapping[str, str]) -> str:
    """The signed form of redirect parameters: sorted by name, URL-encoded."""
    return urlencode(sorted(params.items()))


def signed_redirect(return_url: str, params: Mapping[str, str], key: str) -> str:
    """Return `return_url` with `params` added to its query, and a signature of the whole query."""
    parts = urlsplit(return_url)
    signed = {**dict(parse_qsl(parts.query, keep_blank_values=True)), **params}
    signature = sign(key, canonical_query(signed).encode())
    query = urlencode({**signed, "signature": signature, "signature_algorithm": SIGNATURE_ALGORITHM})
    return urlunsplit(parts._replace(query=query))


def verify_redirect(params: Mapping[str, str], key: str) -> bool:
    """Check the signature of the parameters a redirect to return_url carried."""
    signed = {name: value for name, value in params.items() if name not in UNSIGNED_PARAMETERS}
    expected = sign(key, canonical_query(signed).encode())
    return hmac.compare_digest(params.get("signature", ""), expected)
