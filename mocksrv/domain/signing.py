"""HMAC-SHA512 signatures: of webhook bodies, and of the query string sent back to return_url."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from mocksrv.domain.ids import same_secret

SIGNATURE_ALGORITHM = "HMAC-SHA512"
UNSIGNED_PARAMETERS = ("signature", "signature_algorithm")


def sign(key: str, message: bytes) -> str:
    """Return the lowercase hex HMAC-SHA512 of `message`."""
    return hmac.new(key.encode(), message, hashlib.sha512).hexdigest()


def canonical_query(params: Mapping[str, str] | Iterable[tuple[str, str]]) -> str:
    """The signed form of redirect parameters: sorted by name, then by value (a name may come more
    than once), URL-encoded."""
    return urlencode(sorted(params.items() if isinstance(params, Mapping) else params))


def signed_redirect(return_url: str, params: Mapping[str, str], key: str) -> str:
    """Return `return_url` with `params` added to its query, and a signature of the whole query.
    The return_url's own parameters stay as they were written, each as often as it came, but for
    the names `params` set; the signature covers them as a parser reads them (`parse_qsl`)."""
    parts = urlsplit(return_url)
    kept = set(params) | set(UNSIGNED_PARAMETERS)
    own: list[tuple[str, str]] = []
    written: list[str] = []
    for piece in parts.query.split("&"):
        read = parse_qsl(piece, keep_blank_values=True)
        if read and read[0][0] not in kept:
            own += read
            written.append(piece)
    signed = [*own, *params.items()]
    signature = sign(key, canonical_query(signed).encode())
    added = urlencode(
        [*params.items(), ("signature", signature), ("signature_algorithm", SIGNATURE_ALGORITHM)]
    )
    return urlunsplit(parts._replace(query="&".join([*written, added])))


def verify_redirect(params: Mapping[str, str] | Iterable[tuple[str, str]], key: str) -> bool:
    """Check the signature of the parameters a redirect to return_url carried (a name may come more
    than once: pass them as pairs)."""
    pairs = list(params.items() if isinstance(params, Mapping) else params)
    signed = [(name, value) for name, value in pairs if name not in UNSIGNED_PARAMETERS]
    given = next((value for name, value in pairs if name == "signature"), "")
    return same_secret(given, sign(key, canonical_query(signed).encode()))
