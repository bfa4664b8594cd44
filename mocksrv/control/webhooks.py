"""The control plane's webhook routes: events, redelivery, the delivery log, waiting for the
queue, the webhook URL."""

from __future__ import annotations

from typing import Any

from flask import current_app, request
from marshmallow import fields, validate

from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.control.answers import (
    ControlDeliveryListAnswerSchema,
    ControlEventAnswerSchema,
    ControlEventListAnswerSchema,
    ControlWaitAnswerSchema,
)
from mocksrv.control.blueprint import acting_merchant, control, merchant_only
from mocksrv.fieldtypes import HttpUrl, StrictNumber
from mocksrv.representations import (
    attempt_json,
    event_summary,
    general_list_json,
    profile_json,
)
from mocksrv.rest import sandbox, wait_slots
from mocksrv.schema import RequestSchema

Json = dict[str, Any]


class PageSchema(RequestSchema):
    """Query parameters of the control plane's lists."""

    merchant_id = fields.String()
    event_id = fields.String()
    limit = fields.Integer(validate=validate.Range(1, 100), load_default=100)
    offset = fields.Integer(validate=validate.Range(min=0), load_default=0)


class WaitSchema(RequestSchema):
    merchant_id = fields.String()
    timeout = StrictNumber(load_default=10, validate=validate.Range(min=0, max=60))


class WebhookUrlSchema(RequestSchema):
    merchant_id = fields.String()
    webhook_url = HttpUrl(required=True, allow_none=True)


_page, _wait, _webhook_url = PageSchema(), WaitSchema(), WebhookUrlSchema()


@control.get("/events")
@documented(ControlEventListAnswerSchema, query=_page, auth=Auth.CONTROL, errors=(404,))
def list_events() -> Json:
    query = load(_page, request.args.to_dict())
    merchant_id = acting_merchant(query)
    events, total = sandbox().webhooks.events(merchant_id, query["limit"], query["offset"])
    return general_list_json(
        [event_summary(event, delivery) for event, delivery in events], total, query["offset"]
    )


@control.post("/events/<id:event_id>/redeliver")
@documented(ControlEventAnswerSchema, body=merchant_only, auth=Auth.CONTROL)
def redeliver(event_id: str) -> Json:
    merchant_id = acting_merchant(load(merchant_only, json_body()))
    webhooks = sandbox().webhooks
    webhooks.redeliver(merchant_id, event_id)
    return event_summary(*webhooks.event(merchant_id, event_id))


@control.get("/webhooks/deliveries")
@documented(ControlDeliveryListAnswerSchema, query=_page, auth=Auth.CONTROL, errors=(404,))
def list_deliveries() -> Json:
    query = load(_page, request.args.to_dict())
    merchant_id = acting_merchant(query)
    page = sandbox().webhooks.attempts(merchant_id, query.get("event_id"), query["limit"], query["offset"])
    return general_list_json([attempt_json(a) for a in page.items], page.total_count, query["offset"])


@control.post("/webhooks/wait")
@documented(ControlWaitAnswerSchema, body=_wait, auth=Auth.CONTROL, errors=(404, 429))
def wait_for_deliveries() -> Json:
    """Wait until the merchant's queued deliveries have been attempted, or the timeout passes."""
    body = load(_wait, json_body())
    merchant_id = acting_merchant(body)
    webhooks = sandbox().webhooks
    slots = wait_slots(current_app)
    with slots.hold(merchant_id, parks=body["timeout"] > 0):
        drained = webhooks.drained(merchant_id, body["timeout"])
    return {"drained": drained, "pending": webhooks.pending(merchant_id)}


@control.put("/webhook_url")
@documented("ProfileAnswerSchema", body=_webhook_url, auth=Auth.CONTROL, errors=(404,))
def set_webhook_url() -> Json:
    body = load(_webhook_url, json_body())
    merchant_id = acting_merchant(body)
    merchants = sandbox().merchants
    profile = merchants.default_profile(merchant_id)
    updated = merchants.update_profile(merchant_id, profile.profile_id, {"webhook_url": body["webhook_url"]})
    return profile_json(updated)
