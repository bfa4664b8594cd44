"""Signature checks for a merchant's own code: webhook bodies, and redirects back to return_url."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, unquote, urlsplit

from mocksrv.domain import signing
from mocksrv.domain.ids import same_secret

SIGNATURE_HEADER = "X-Webhook-Signature-512"

__all__ = ["SIGNATURE_HEADER", "verify_redirect", "verify_signature"]


def verify_signature(raw_body: bytes, header_value: str | None, key: str) -> bool:
    """Tell whether `header_value` is the HMAC-SHA512 of the exact bytes received, keyed with `key`.

    Pass the raw request body (in Flask, `request.get_data()`), never a re-serialized object.
    """
    if not header_value:
        return False
    return same_secret(header_value.strip().lower(), signing.sign(key, raw_body))


def verify_redirect(query: str | Mapping[str, str], key: str) -> bool:
    """Tell whether a redirect to return_url carries a valid `signature`, keyed with `key`.

    `query` is the URL the customer came back to, its query string (with or without `?`), or its
    parameters as a mapping (in Flask, `request.args`; a name that comes more than once is read
    whole from a mapping with `getlist`, as Flask's and Django's have).
    """
    if isinstance(query, str):
        text = urlsplit(query).query if "?" in query or "://" in query else query
        return signing.verify_redirect(parse_qsl(text, keep_blank_values=True), key)
    getlist = getattr(query, "getlist", None)
    values = getlist if callable(getlist) else lambda name: [query[name]]
    pairs = [(name, value) for name in query for value in values(name)]
    if signing.verify_redirect(pairs, key):
        return True
    # Werkzeug (Flask's `request.args`) keeps an escape that is not UTF-8 (`%FF`) as its three
    # characters, where the signature covers what `parse_qsl` reads (U+FFFD): read them so, once.
    read = [(_read_escapes(name), _read_escapes(value)) for name, value in pairs]
    return read != pairs and signing.verify_redirect(read, key)


def _read_escapes(text: str) -> str:
    return unquote(text, errors="replace") if "%" in text else text
