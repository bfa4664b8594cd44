"""Webhooks: the dispatcher that delivers the outbox, and a signature check for receivers."""

from __future__ import annotations

import hmac

from mocksrv.domain.signing import sign

SIGNATURE_HEADER = "X-Webhook-Signature-512"

__all__ = ["SIGNATURE_HEADER", "verify_signature"]


def verify_signature(raw_body: bytes, header_value: str | None, key: str) -> bool:
    """Tell whether `header_value` is the HMAC-SHA512 of the exact bytes received, keyed with `key`.

    Pass the raw request body (in Flask, `request.get_data()`), never a re-serialized object.
    """
    if not header_value:
        return False
    return hmac.compare_digest(sign(key, raw_body), header_value.strip().lower())
