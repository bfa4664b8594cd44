"""Webhook events: their types and the record the outbox keeps."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class EventType(StrEnum):
    PAYMENT_SUCCEEDED = "payment_succeeded"
    PAYMENT_FAILED = "payment_failed"
    PAYMENT_PROCESSING = "payment_processing"
    PAYMENT_CANCELLED = "payment_cancelled"
    PAYMENT_AUTHORIZED = "payment_authorized"
    PAYMENT_CAPTURED = "payment_captured"
    PAYMENT_EXPIRED = "payment_expired"
    ACTION_REQUIRED = "action_required"
    REFUND_SUCCEEDED = "refund_succeeded"
    REFUND_FAILED = "refund_failed"
    DISPUTE_OPENED = "dispute_opened"
    DISPUTE_CHALLENGED = "dispute_challenged"
    DISPUTE_ACCEPTED = "dispute_accepted"
    DISPUTE_WON = "dispute_won"
    DISPUTE_LOST = "dispute_lost"
    DISPUTE_EXPIRED = "dispute_expired"
    DISPUTE_CANCELLED = "dispute_cancelled"
    PAYOUT_INITIATED = "payout_initiated"
    PAYOUT_SUCCESS = "payout_success"
    PAYOUT_FAILED = "payout_failed"
    PAYOUT_CANCELLED = "payout_cancelled"
    PAYOUT_REVERSED = "payout_reversed"
    MANDATE_ACTIVE = "mandate_active"
    MANDATE_REVOKED = "mandate_revoked"


# The events of a payment that paid it: what completes a link, saves a card, activates a mandate.
PAID_EVENTS = frozenset({EventType.PAYMENT_SUCCEEDED.value, EventType.PAYMENT_AUTHORIZED.value})


class ContentType(StrEnum):
    PAYMENT_DETAILS = "payment_details"
    REFUND_DETAILS = "refund_details"
    PAYOUT_DETAILS = "payout_details"
    DISPUTE_DETAILS = "dispute_details"
    MANDATE_DETAILS = "mandate_details"


@dataclass(frozen=True, slots=True)
class Event:
    """One outcome to report; `resource` is the record as it was when the event happened."""

    event_id: str
    merchant_id: str
    event_type: str
    content_type: ContentType
    object_id: str
    created: datetime
    resource: object
