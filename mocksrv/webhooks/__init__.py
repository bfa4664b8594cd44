"""Webhooks: the dispatcher that delivers the outbox, and a signature check for receivers."""

from __future__ import annotations

from mocksrv.signatures import SIGNATURE_HEADER, verify_signature

__all__ = ["SIGNATURE_HEADER", "verify_signature"]
