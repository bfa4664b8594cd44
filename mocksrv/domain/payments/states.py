"""Payment statuses, the events that move them, and the payment transition table."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from mocksrv.domain.events import EventType
from mocksrv.domain.transitions import TransitionTable, rows


class PaymentStatus(StrEnum):
    REQUIRES_PAYMENT_METHOD = "requires_payment_method"
    REQUIRES_CONFIRMATION = "requires_confirmation"
    REQUIRES_CUSTOMER_ACTION = "requires_customer_action"
    REQUIRES_MERCHANT_ACTION = "requires_merchant_action"
    PROCESSING = "processing"
    REQUIRES_CAPTURE = "requires_capture"
    PARTIALLY_CAPTURED = "partially_captured"
    PARTIALLY_CAPTURED_AND_CAPTURABLE = "partially_captured_and_capturable"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class PaymentEvent(StrEnum):
    """What happens to a payment; the part before the dot is the operation it belongs to."""

    ATTACH_METHOD = "update.attach_method"
    UPDATE_DETAILS = "update.details"
    CONFIRM_CHARGE = "confirm.charge"
    CONFIRM_AUTHORIZE = "confirm.authorize"
    CONFIRM_DECLINE = "confirm.decline"
    CONFIRM_CHALLENGE = "confirm.challenge"
    CONFIRM_REVIEW = "confirm.review"
    CONFIRM_DEFER = "confirm.defer"
    AUTHENTICATE_CHARGE = "authenticate.charge"
    AUTHENTICATE_AUTHORIZE = "authenticate.authorize"
    AUTHENTICATE_DECLINE = "authenticate.decline"
    AUTHENTICATE_REVIEW = "authenticate.review"
    AUTHENTICATE_DEFER = "authenticate.defer"
    SETTLE_CHARGE = "settle.charge"
    SETTLE_AUTHORIZE = "settle.authorize"
    SETTLE_DECLINE = "settle.decline"
    APPROVE_CHARGE = "approve.charge"
    APPROVE_AUTHORIZE = "approve.authorize"
    REJECT = "reject.decline"
    CAPTURE_FULL = "capture.full"
    CAPTURE_PARTIAL = "capture.partial"
    CAPTURE_PARTIAL_FINAL = "capture.partial_final"
    CANCEL = "cancel.release"
    EXPIRE = "expire.release"


S = PaymentStatus
E = PaymentEvent
_UNCONFIRMED = [S.REQUIRES_PAYMENT_METHOD, S.REQUIRES_CONFIRMATION]
_CAPTURABLE = [S.REQUIRES_CAPTURE, S.PARTIALLY_CAPTURED_AND_CAPTURABLE]

PAYMENT_TRANSITIONS: TransitionTable[PaymentStatus, PaymentEvent] = TransitionTable(
    "Payment",
    [
        *rows(_UNCONFIRMED, E.ATTACH_METHOD, S.REQUIRES_CONFIRMATION),
        *rows([S.REQUIRES_PAYMENT_METHOD], E.UPDATE_DETAILS, S.REQUIRES_PAYMENT_METHOD),
        *rows([S.REQUIRES_CONFIRMATION], E.UPDATE_DETAILS, S.REQUIRES_CONFIRMATION),
        *rows(_UNCONFIRMED, E.CONFIRM_CHARGE, S.SUCCEEDED, EventType.PAYMENT_SUCCEEDED),
        *rows(_UNCONFIRMED, E.CONFIRM_AUTHORIZE, S.REQUIRES_CAPTURE, EventType.PAYMENT_AUTHORIZED),
        *rows(_UNCONFIRMED, E.CONFIRM_DECLINE, S.FAILED, EventType.PAYMENT_FAILED),
        *rows(
            _UNCONFIRMED,
            E.CONFIRM_CHALLENGE,
            S.REQUIRES_CUSTOMER_ACTION,
            EventType.ACTION_REQUIRED,
        ),
        *rows(_UNCONFIRMED, E.CONFIRM_REVIEW, S.REQUIRES_MERCHANT_ACTION, EventType.ACTION_REQUIRED),
        *rows(_UNCONFIRMED, E.CONFIRM_DEFER, S.PROCESSING, EventType.PAYMENT_PROCESSING),
        *rows(
            [S.REQUIRES_CUSTOMER_ACTION],
            E.AUTHENTICATE_CHARGE,
            S.SUCCEEDED,
            EventType.PAYMENT_SUCCEEDED,
        ),
        *rows(
            [S.REQUIRES_CUSTOMER_ACTION],
            E.AUTHENTICATE_AUTHORIZE,
            S.REQUIRES_CAPTURE,
            EventType.PAYMENT_AUTHORIZED,
        ),
        *rows([S.REQUIRES_CUSTOMER_ACTION], E.AUTHENTICATE_DECLINE, S.FAILED, EventType.PAYMENT_FAILED),
        *rows(
            [S.REQUIRES_CUSTOMER_ACTION],
            E.AUTHENTICATE_REVIEW,
            S.REQUIRES_MERCHANT_ACTION,
            EventType.ACTION_REQUIRED,
        ),
        *rows(
            [S.REQUIRES_CUSTOMER_ACTION],
            E.AUTHENTICATE_DEFER,
            S.PROCESSING,
            EventType.PAYMENT_PROCESSING,
        ),
        *rows([S.PROCESSING], E.SETTLE_CHARGE, S.SUCCEEDED, EventType.PAYMENT_SUCCEEDED),
        *rows([S.PROCESSING], E.SETTLE_AUTHORIZE, S.REQUIRES_CAPTURE, EventType.PAYMENT_AUTHORIZED),
        *rows([S.PROCESSING], E.SETTLE_DECLINE, S.FAILED, EventType.PAYMENT_FAILED),
        *rows([S.REQUIRES_MERCHANT_ACTION], E.APPROVE_CHARGE, S.SUCCEEDED, EventType.PAYMENT_SUCCEEDED),
        *rows(
            [S.REQUIRES_MERCHANT_ACTION],
            E.APPROVE_AUTHORIZE,
            S.REQUIRES_CAPTURE,
            EventType.PAYMENT_AUTHORIZED,
        ),
        *rows([S.REQUIRES_MERCHANT_ACTION], E.REJECT, S.FAILED, EventType.PAYMENT_FAILED),
        *rows(_CAPTURABLE, E.CAPTURE_FULL, S.SUCCEEDED, EventType.PAYMENT_SUCCEEDED),
        *rows(
            _CAPTURABLE,
            E.CAPTURE_PARTIAL,
            S.PARTIALLY_CAPTURED_AND_CAPTURABLE,
            EventType.PAYMENT_CAPTURED,
        ),
        *rows(
            [S.REQUIRES_CAPTURE],
            E.CAPTURE_PARTIAL_FINAL,
            S.PARTIALLY_CAPTURED,
            EventType.PAYMENT_CAPTURED,
        ),
        *rows(
            [*_UNCONFIRMED, S.REQUIRES_CUSTOMER_ACTION, S.REQUIRES_CAPTURE],
            E.CANCEL,
            S.CANCELLED,
            EventType.PAYMENT_CANCELLED,
        ),
        *rows(
            [S.PARTIALLY_CAPTURED_AND_CAPTURABLE],
            E.CANCEL,
            S.PARTIALLY_CAPTURED,
            EventType.PAYMENT_CANCELLED,
        ),
        *rows(_CAPTURABLE, E.EXPIRE, S.EXPIRED, EventType.PAYMENT_EXPIRED),
    ],
)

# Confirmed and not yet paid: waiting on the customer, the merchant or the processor.
UNDER_WAY = frozenset({S.REQUIRES_CUSTOMER_ACTION, S.REQUIRES_MERCHANT_ACTION, S.PROCESSING})

# A capture of these answers 409 rather than 400 (spec section 3, rule 1).
CAPTURE_CONFLICT_STATES = frozenset({S.SUCCEEDED, S.CANCELLED})


# A payment's status as the status of the attempt at the processor that brought it there, in the real
# service's names: what a payment's attempts show, and what the analytics group by.
ATTEMPT_STATUS: Mapping[PaymentStatus, str] = {
    PaymentStatus.REQUIRES_CUSTOMER_ACTION: "authentication_pending",
    PaymentStatus.REQUIRES_MERCHANT_ACTION: "unresolved",
    PaymentStatus.PROCESSING: "pending",
    PaymentStatus.REQUIRES_CAPTURE: "authorized",
    PaymentStatus.PARTIALLY_CAPTURED: "partial_charged",
    PaymentStatus.PARTIALLY_CAPTURED_AND_CAPTURABLE: "partial_charged_and_chargeable",
    PaymentStatus.SUCCEEDED: "charged",
    PaymentStatus.FAILED: "authorization_failed",
    PaymentStatus.CANCELLED: "voided",
    PaymentStatus.EXPIRED: "expired",
}
