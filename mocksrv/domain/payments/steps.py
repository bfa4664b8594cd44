"""What an outcome does to a payment: the step it takes (with the action, the name of the event that
moves it: "confirm" + "charge"), and the fields the step changes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mocksrv.domain.models import Payment
from mocksrv.domain.payments.outcomes import Outcome, OutcomeResult
from mocksrv.domain.payments.states import PaymentEvent

# The step of each outcome but a success, whose step the capture method decides.
_STEPS = {
    OutcomeResult.DECLINE: "decline",
    OutcomeResult.CHALLENGE: "challenge",
    OutcomeResult.REVIEW: "review",
    OutcomeResult.PROCESSING: "defer",
    OutcomeResult.TRANSFER: "challenge",  # the customer's action: sending the transfer
}
# Outcomes that leave the payment waiting, with the outcome that follows it kept for later.
_WAITING = frozenset({OutcomeResult.CHALLENGE, OutcomeResult.PROCESSING, OutcomeResult.TRANSFER})
# Each event by its name ("confirm.charge"), as `PaymentEvent(name)` finds it, without the enum's lookup.
_EVENTS: dict[str, PaymentEvent] = {event.value: event for event in PaymentEvent}


def step_of(payment: Payment, outcome: Outcome, now: datetime) -> tuple[str, dict[str, Any]]:
    """The step `outcome` takes `payment` through, and the fields it changes (the outcome kept for
    later is cleared unless the step waits for one)."""
    result = outcome.result
    changes: dict[str, Any] = {"next_outcome": outcome.then if result in _WAITING else None}
    if result is OutcomeResult.SUCCESS:
        if payment.capture_method.at_once:
            changes.update(amount_received=payment.amount, amount_capturable=0, captured_at=now)
            return "charge", changes
        changes.update(amount_capturable=payment.amount, authorized_at=now)
        return "authorize", changes
    if result is OutcomeResult.DECLINE:
        changes.update(
            amount_capturable=0, error_code=outcome.error_code, error_message=outcome.error_message
        )
    return _STEPS[result], changes


def step_event(action: str, step: str) -> PaymentEvent:
    """The event of a step taken as part of an action."""
    return _EVENTS[f"{action}.{step}"]
