"""Signature checks for a merchant's own code: webhook bodies, and redirects back to return_url."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import parse_qsl, urlsplit

from mocksrv.domain import signing
from mocksrv.domain.ids import same_secret

SIGNATURE_HEADER = "X-Webhook-Signature-512"
_ESCAPED_HIGH_BYTES = re.compile(r"(?:%[89A-Fa-f][0-9A-Fa-f])+")  # a run of escaped bytes past ASCII
_SURROGATE_OF_BYTE = 0xDC00  # what `surrogateescape` decodes a byte that makes no UTF-8 to, plus the byte

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
    # Werkzeug (Flask's `request.args`) keeps escaped bytes that make no UTF-8 (`%FF`) as written,
    # where the signature covers what `parse_qsl` reads (U+FFFD): read those so, once.
    read = [(_bad_bytes_read(name), _bad_bytes_read(value)) for name, value in pairs]
    return read != pairs and signing.verify_redirect(read, key)


def _bad_bytes_read(text: str) -> str:
    """`text` with the escaped bytes in it that make no UTF-8 read as `parse_qsl` reads them. Werkzeug
    decodes every escape that does, so such an escape left in its reading was written escaped
    (`%25E2%2582%25AC`) and stays as it is: a value whose escapes were escaped again does not verify."""
    return _ESCAPED_HIGH_BYTES.sub(_read_run, text) if "%" in text else text


def _read_run(run: re.Match[str]) -> str:
    written = run[0].split("%")[1:]  # each byte's two hex digits, as written
    decoded = bytes.fromhex("".join(written)).decode("utf-8", errors="surrogateescape")
    out: list[str] = []
    bad = bytearray()  # bytes that make no UTF-8, each decoded as a lone surrogate
    at = 0
    for character in decoded:
        if _SURROGATE_OF_BYTE <= ord(character) <= _SURROGATE_OF_BYTE + 0xFF:
            bad.append(ord(character) - _SURROGATE_OF_BYTE)
            at += 1
            continue
        out.append(bad.decode("utf-8", errors="replace"))
        bad.clear()
        size = len(character.encode())
        out.append("".join(f"%{pair}" for pair in written[at : at + size]))
        at += size
    out.append(bad.decode("utf-8", errors="replace"))
    return "".join(out)
