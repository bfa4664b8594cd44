"""How webhook events and their delivery attempts look in JSON, for the webhooks and the event routes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from mocksrv.domain.clock import format_timestamp
from mocksrv.domain.disputes import Dispute
from mocksrv.domain.events import Event
from mocksrv.domain.models import Payment
from mocksrv.domain.payouts import Payout
from mocksrv.domain.recurring.records import Mandate
from mocksrv.domain.refunds import Refund
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.webhooks import DeliveryAttempt, EventDelivery
from mocksrv.masking import mask_url_password
from mocksrv.representations.common import JsonObject, timestamp
from mocksrv.representations.payments import (
    payment_view,
)
from mocksrv.representations.records import (
    dispute_json,
    payout_view,
    refund_json,
)
from mocksrv.representations.recurring import mandate_json


def resource_json(
    resource: object, base_url: str, sandbox: Sandbox, as_of: datetime | None = None
) -> JsonObject:
    """The API representation of whatever record an event reports (`as_of`: `payment_view`'s)."""
    if isinstance(resource, Payment):
        return payment_view(resource, base_url, sandbox, as_of)
    if isinstance(resource, Refund):
        return refund_json(resource)
    if isinstance(resource, Payout):
        return payout_view(resource, sandbox)
    if isinstance(resource, Dispute):
        return dispute_json(resource)
    if isinstance(resource, Mandate):
        return mandate_json(resource)
    raise TypeError(f"no representation for {type(resource).__name__}")


def event_json(event: Event, base_url: str, sandbox: Sandbox) -> JsonObject:
    """The body of a webhook."""
    return {
        "merchant_id": event.merchant_id,
        "event_id": event.event_id,
        "event_type": event.event_type,
        "content": {
            "type": event.content_type.value,
            "object": resource_json(event.resource, base_url, sandbox, event.created),
        },
        "timestamp": format_timestamp(event.created),
    }


def event_summary(event: Event, delivery: EventDelivery) -> JsonObject:
    return {
        "event_id": event.event_id,
        "event_type": event.event_type,
        "content_type": event.content_type.value,
        "object_id": event.object_id,
        "created": format_timestamp(event.created),
        "delivery": {
            "state": delivery.state.value,
            "attempts": delivery.attempts,
            "next_attempt_at": timestamp(delivery.next_attempt_at),
        },
    }


def attempt_json(attempt: DeliveryAttempt) -> JsonObject:
    return {
        "attempt_id": attempt.attempt_id,
        "event_id": attempt.event_id,
        "number": attempt.number,
        "manual": attempt.manual,
        "url": mask_url_password(attempt.url),
        "attempted_at": format_timestamp(attempt.attempted_at),
        "succeeded": attempt.succeeded,
        "status_code": attempt.status_code,
        "latency_ms": attempt.latency_ms,
        "error": attempt.error,
        "duplicate": attempt.duplicate,
        "chaos": None if attempt.chaos is None else attempt.chaos.value,
    }


# The real service's event class of each content type.
EVENT_CLASS_OF_CONTENT = {
    "payment_details": "payments",
    "refund_details": "refunds",
    "dispute_details": "disputes",
    "payout_details": "payouts",
    "mandate_details": "mandates",
}
# How the real service names an attempt: the first scheduled one, a scheduled retry, or one by hand.
INITIAL_ATTEMPT, AUTOMATIC_RETRY, MANUAL_RETRY = "initial_attempt", "automatic_retry", "manual_retry"


def event_item_json(event: Event, delivery: EventDelivery, profile_id: str) -> JsonObject:
    """An event as the real service lists it; the event is its own initial attempt."""
    return {
        "event_id": event.event_id,
        "merchant_id": event.merchant_id,
        "profile_id": profile_id,
        "object_id": event.object_id,
        "event_type": event.event_type,
        "event_class": EVENT_CLASS_OF_CONTENT[event.content_type.value],
        "is_delivery_successful": delivery.succeeded,
        "initial_attempt_id": event.event_id,
        "created": format_timestamp(event.created),
    }


def events_list_json(items: list[JsonObject], total_count: int) -> JsonObject:
    return {"events": items, "total_count": total_count}


def outgoing_request_json(body: bytes, headers: Sequence[tuple[str, str]]) -> JsonObject:
    """What a delivery sends: the body as text, and the headers as name and value pairs."""
    return {"body": body.decode(), "headers": [[name, value] for name, value in headers]}


def outgoing_response_json(attempt: DeliveryAttempt | None) -> JsonObject:
    """What the receiver answered; no attempt yet, or no answer, leaves the fields null. The answer's
    body and headers are not kept."""
    return {
        "body": None,
        "headers": None,
        "status_code": None if attempt is None else attempt.status_code,
        "error_message": None if attempt is None else attempt.error,
    }


def attempt_kinds(attempts: Sequence[DeliveryAttempt]) -> list[str]:
    """The real service's name of each attempt, oldest first: the first scheduled attempt is the
    initial one, the later scheduled ones retries, and those by hand manual retries."""
    kinds: list[str] = []
    scheduled = 0
    for attempt in attempts:
        if attempt.manual:
            kinds.append(MANUAL_RETRY)
        else:
            kinds.append(AUTOMATIC_RETRY if scheduled else INITIAL_ATTEMPT)
            scheduled += 1
    return kinds


def event_attempt_json(
    event: Event,
    delivery: EventDelivery,
    profile_id: str,
    attempt: DeliveryAttempt,
    kind: str,
    request: JsonObject,
) -> JsonObject:
    """One delivery attempt of an event, in the real service's retrieve shape."""
    return {
        **event_item_json(event, delivery, profile_id),
        "is_delivery_successful": attempt.succeeded,
        "created": format_timestamp(attempt.attempted_at),
        "request": request,
        "response": outgoing_response_json(attempt),
        "delivery_attempt": kind,
    }


def event_retry_json(
    event: Event, delivery: EventDelivery, profile_id: str, queued_at: datetime, request: JsonObject
) -> JsonObject:
    """A retry by hand just queued, in the real service's retrieve shape: not attempted yet."""
    return {
        **event_item_json(event, delivery, profile_id),
        "is_delivery_successful": None,
        "created": format_timestamp(queued_at),
        "request": request,
        "response": outgoing_response_json(None),
        "delivery_attempt": MANUAL_RETRY,
    }
