"""The real service's routes of webhook events: /events/:merchant_id and its attempts and retries.

They read and act on the same event and delivery log as the control plane's /__mock/events and
/__mock/webhooks/deliveries.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Blueprint, request
from marshmallow import fields, post_load, validate

from mocksrv.api.answers.events import EventAttemptAnswerSchema, EventListAnswerSchema
from mocksrv.api.schemas import NoFieldsSchema
from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.domain import signing
from mocksrv.domain.events import ContentType, Event
from mocksrv.domain.webhooks import EventDelivery, EventFilter
from mocksrv.fieldtypes import QueryInteger, StrictBoolean, StrictInteger, Timestamp
from mocksrv.representations import (
    EVENT_CLASS_OF_CONTENT,
    JsonObject,
    attempt_kinds,
    event_attempt_json,
    event_item_json,
    event_json,
    event_retry_json,
    events_list_json,
    outgoing_request_json,
)
from mocksrv.rest import authenticate, authenticate_for_merchant, base_url, sandbox
from mocksrv.schema import QuerySchema, RequestSchema
from mocksrv.signatures import SIGNATURE_HEADER

events = Blueprint("events", __name__)

# The real service's enumerations of event classes and event types.
EVENT_CLASSES = ("payments", "refunds", "disputes", "mandates", "payouts", "subscriptions")
EVENT_TYPES = (
    "payment_succeeded",
    "payment_failed",
    "payment_processing",
    "payment_cancelled",
    "payment_cancelled_post_capture",
    "payment_authorized",
    "payment_partially_authorized",
    "payment_captured",
    "payment_expired",
    "action_required",
    "refund_succeeded",
    "refund_failed",
    "dispute_opened",
    "dispute_expired",
    "dispute_accepted",
    "dispute_cancelled",
    "dispute_challenged",
    "dispute_won",
    "dispute_lost",
    "mandate_active",
    "mandate_revoked",
    "payout_success",
    "payout_failed",
    "payout_initiated",
    "payout_processing",
    "payout_cancelled",
    "payout_expired",
    "payout_reversed",
    "invoice_paid",
)
# The content types of each class; the sandbox sends no mandate or subscription events.
_CONTENT_OF_CLASS = {name: ContentType(content) for content, name in EVENT_CLASS_OF_CONTENT.items()}
_LIST_FIELDS = ("event_classes", "event_types")
USER_AGENT = "mocksrv-webhooks"


class EventListSchema(RequestSchema):
    """The real service's `EventListConstraints`; every field may be null, as if not sent."""

    created_after = Timestamp()
    created_before = Timestamp()
    # Typed as any field: the query's schema takes them as text.
    limit: fields.Field[Any] = StrictInteger(validate=validate.Range(1, 100), load_default=10)
    offset: fields.Field[Any] = StrictInteger(validate=validate.Range(min=0), load_default=0)
    object_id = fields.String()
    event_id = fields.String()
    profile_id = fields.String()
    event_classes = fields.List(fields.String(validate=validate.OneOf(EVENT_CLASSES)))
    event_types = fields.List(fields.String(validate=validate.OneOf(EVENT_TYPES)))
    is_delivered: fields.Field[Any] = StrictBoolean()

    @post_load
    def to_filter(self, data: dict[str, Any], **kwargs: Any) -> tuple[EventFilter, int, int]:
        classes = data.get("event_classes")
        types = data.get("event_types")
        where = EventFilter(
            created_after=data.get("created_after"),
            created_before=data.get("created_before"),
            object_id=data.get("object_id"),
            event_id=data.get("event_id"),
            profile_id=data.get("profile_id"),
            # An empty list keeps all, as every list filter's does.
            event_types=frozenset(types) if types else None,
            content_types=(
                None
                if not classes
                else frozenset(_CONTENT_OF_CLASS[name] for name in classes if name in _CONTENT_OF_CLASS)
            ),
            delivered=data.get("is_delivered"),
        )
        return where, data["limit"], data["offset"]


class EventQuerySchema(EventListSchema, QuerySchema):
    """The same constraints as query parameters: text, lists repeated or comma-separated; parameters
    it does not know are ignored, as on any GET."""

    limit = QueryInteger(validate=validate.Range(1, 100), load_default=10)
    offset = QueryInteger(validate=validate.Range(min=0), load_default=0)
    is_delivered = fields.Boolean()


_list = EventListSchema()
_query = EventQuerySchema()
_no_fields = NoFieldsSchema()


def _query_args() -> dict[str, Any]:
    args: dict[str, Any] = request.args.to_dict()
    for name in _LIST_FIELDS:
        if name in args:
            args[name] = [part for value in request.args.getlist(name) for part in value.split(",") if part]
    return args


def _list_events(merchant_id: str, where: EventFilter, limit: int, offset: int) -> JsonObject:
    sandbox_ = sandbox()
    found, total = sandbox_.webhooks.find_events(merchant_id, where, limit, offset)
    profile_of = sandbox_.merchants.profile_id_of
    return events_list_json(
        [
            event_item_json(event, delivery, profile_of(merchant_id, event.resource))
            for event, delivery in found
        ],
        total,
    )


def _outgoing_request(merchant_id: str, event: Event, delivery: EventDelivery) -> JsonObject:
    """What a delivery of the event sends: the bytes the dispatcher sends, signed as it signs them."""
    sandbox_ = sandbox()
    body = delivery.body or orjson.dumps(event_json(event, base_url(), sandbox_))
    # Signed as the dispatcher signs it: with the key of the event's profile. A profile deleted
    # since has no key any more, and its events are sent no more: the request shows no signature.
    profile = sandbox_.merchants.event_profile(merchant_id, event.resource)
    headers = [("Content-Type", "application/json")]
    if profile is not None:
        headers.append((SIGNATURE_HEADER, signing.sign(profile.payment_response_hash_key, body)))
    headers.append(("User-Agent", USER_AGENT))
    return outgoing_request_json(body, headers)


@events.get("/events/<id:merchant_id>")
@documented(EventListAnswerSchema, query=_query, auth=Auth.CONTROL, errors=(429,))
def list_events_by_query(merchant_id: str) -> JsonObject:
    """The merchant's events, newest first, with the constraints as query parameters."""
    authenticate_for_merchant(merchant_id)
    where, limit, offset = load(_query, _query_args())
    return _list_events(merchant_id, where, limit, offset)


@events.post("/events/<id:merchant_id>")
@documented(EventListAnswerSchema, body=_list, auth=Auth.CONTROL, errors=(429,))
def list_events(merchant_id: str) -> JsonObject:
    """The merchant's events, newest first, with the constraints in the body."""
    authenticate_for_merchant(merchant_id)
    where, limit, offset = load(_list, json_body())
    return _list_events(merchant_id, where, limit, offset)


@events.post("/events/profile/list")
@documented(EventListAnswerSchema, body=_list)
def list_profile_events() -> JsonObject:
    """The events of the key's merchant (its one profile), with the same constraints."""
    merchant_id = authenticate().merchant_id
    where, limit, offset = load(_list, json_body())
    return _list_events(merchant_id, where, limit, offset)


@events.get("/events/<id:merchant_id>/<id:event_id>/attempts")
@documented(EventAttemptAnswerSchema(many=True), auth=Auth.CONTROL, errors=(429,))
def list_attempts(merchant_id: str, event_id: str) -> list[JsonObject]:
    authenticate_for_merchant(merchant_id)
    webhooks = sandbox().webhooks
    event, delivery = webhooks.event(merchant_id, event_id)
    attempts = webhooks.event_attempts(merchant_id, event_id)
    profile_id = sandbox().merchants.profile_id_of(merchant_id, event.resource)
    sent = _outgoing_request(merchant_id, event, delivery)
    return [
        event_attempt_json(event, delivery, profile_id, attempt, kind, sent)
        for attempt, kind in zip(attempts, attempt_kinds(attempts), strict=True)
    ]


@events.post("/events/<id:merchant_id>/<id:event_id>/retry")
@documented(EventAttemptAnswerSchema, body=_no_fields, auth=Auth.CONTROL, errors=(429,))
def retry_event(merchant_id: str, event_id: str) -> JsonObject:
    """Queue the event's delivery again now, as the control plane's redeliver does; the answer tells
    what will be sent, and the attempt shows in the attempts once made."""
    authenticate_for_merchant(merchant_id)
    load(_no_fields, json_body())
    sandbox_ = sandbox()
    event, _ = sandbox_.webhooks.event(merchant_id, event_id)
    delivery = sandbox_.webhooks.redeliver(merchant_id, event_id)
    profile_id = sandbox_.merchants.profile_id_of(merchant_id, event.resource)
    now = sandbox_.clock.now(merchant_id)
    return event_retry_json(event, delivery, profile_id, now, _outgoing_request(merchant_id, event, delivery))
