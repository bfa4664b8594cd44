"""What the real service's event routes (/events/...) answer."""

from __future__ import annotations

from marshmallow import fields, validate

from mocksrv.contract import AnswerSchema, one_of
from mocksrv.domain.events import EventType
from mocksrv.representations import (
    AUTOMATIC_RETRY,
    EVENT_CLASS_OF_CONTENT,
    INITIAL_ATTEMPT,
    MANUAL_RETRY,
)

_EVENT_CLASSES = sorted(EVENT_CLASS_OF_CONTENT.values())
_ATTEMPT_KINDS = [INITIAL_ATTEMPT, AUTOMATIC_RETRY, MANUAL_RETRY]


class EventItemAnswerSchema(AnswerSchema):
    """An event as the real service lists it."""

    event_id = fields.String()
    merchant_id = fields.String()
    profile_id = fields.String()
    object_id = fields.String()
    event_type = one_of(EventType)
    event_class = one_of(_EVENT_CLASSES)
    # Null until the event has been attempted.
    is_delivery_successful = fields.Boolean(allow_none=True)
    initial_attempt_id = fields.String()
    created = fields.String()


class EventListAnswerSchema(AnswerSchema):
    events = fields.List(fields.Nested(EventItemAnswerSchema))
    total_count = fields.Integer()


class EventOutgoingRequestAnswerSchema(AnswerSchema):
    """What a delivery sends: the body as text, the headers as name and value pairs."""

    body = fields.String()
    headers = fields.List(fields.List(fields.String(), validate=validate.Length(equal=2)))


class EventOutgoingResponseAnswerSchema(AnswerSchema):
    """What the receiver answered; the body and headers are not kept."""

    body = fields.String(allow_none=True)
    headers = fields.List(fields.List(fields.String()), allow_none=True)
    status_code = fields.Integer(allow_none=True)
    error_message = fields.String(allow_none=True)


class EventAttemptAnswerSchema(EventItemAnswerSchema):
    """One delivery attempt of an event (or a retry just queued), in the real service's retrieve shape."""

    request = fields.Nested(EventOutgoingRequestAnswerSchema)
    response = fields.Nested(EventOutgoingResponseAnswerSchema)
    delivery_attempt = one_of(_ATTEMPT_KINDS)
