"""The control plane's settlement routes: what a processor or a card network decides later (refunds,
payouts, disputes), and events made to happen."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.control.answers import (
    ControlTriggerAnswerSchema,
)
from mocksrv.control.blueprint import acting_merchant, control
from mocksrv.domain.controls.triggers import RECIPES, trigger
from mocksrv.fieldtypes import StrictInteger
from mocksrv.representations import (
    dispute_json,
    payout_view,
    refund_json,
)
from mocksrv.rest import sandbox
from mocksrv.schema import RequestSchema

Json = dict[str, Any]


class SettleSchema(RequestSchema):
    merchant_id = fields.String()
    result = fields.String(required=True, validate=validate.OneOf(["succeeded", "failed"]))


_settle = SettleSchema()


@control.post("/refunds/<id:refund_id>/settle")
@documented("RefundAnswerSchema", body=_settle, auth=Auth.CONTROL)
def settle_refund(refund_id: str) -> Json:
    """Settle a pending refund now, as succeeded or failed."""
    body = load(_settle, json_body())
    merchant_id = acting_merchant(body)
    refund = sandbox().refunds.settle(merchant_id, refund_id, succeeded=body["result"] == "succeeded")
    return refund_json(refund)


class PayoutSettleSchema(RequestSchema):
    merchant_id = fields.String()
    result = fields.String(required=True, validate=validate.OneOf(["success", "failed", "reversed"]))


_payout_settle = PayoutSettleSchema()


@control.post("/payouts/<id:payout_id>/settle")
@documented("PayoutAnswerSchema", body=_payout_settle, auth=Auth.CONTROL)
def settle_payout(payout_id: str) -> Json:
    """Settle a pending payout now (success or failed), or reverse a successful one."""
    body = load(_payout_settle, json_body())
    merchant_id = acting_merchant(body)
    return payout_view(sandbox().payouts.settle(merchant_id, payout_id, body["result"]), sandbox())


class OpenDisputeSchema(RequestSchema):
    merchant_id = fields.String()
    payment_id = fields.String(required=True)
    amount = StrictInteger(validate=validate.Range(min=1))
    reason = fields.String(validate=validate.Length(1, 255))


class ResolveDisputeSchema(RequestSchema):
    merchant_id = fields.String()
    result = fields.String(required=True, validate=validate.OneOf(["won", "lost", "cancelled"]))


_open_dispute, _resolve_dispute = OpenDisputeSchema(), ResolveDisputeSchema()


@control.post("/disputes")
@documented("DisputeAnswerSchema", body=_open_dispute, auth=Auth.CONTROL, errors=(404,))
def open_dispute() -> Json:
    """Open a dispute on a captured payment, as the card network would."""
    body = load(_open_dispute, json_body())
    merchant_id = acting_merchant(body)
    amount = body.get("amount")
    dispute = sandbox().disputes.open(merchant_id, body["payment_id"], amount, body.get("reason"))
    return dispute_json(dispute)


@control.post("/disputes/<id:dispute_id>/resolve")
@documented("DisputeAnswerSchema", body=_resolve_dispute, auth=Auth.CONTROL)
def resolve_dispute(dispute_id: str) -> Json:
    """Decide a dispute now: won, lost or cancelled."""
    body = load(_resolve_dispute, json_body())
    merchant_id = acting_merchant(body)
    return dispute_json(sandbox().disputes.resolve(merchant_id, dispute_id, body["result"]))


class TriggerSchema(RequestSchema):
    merchant_id = fields.String()
    event_type = fields.String(required=True, validate=validate.OneOf(sorted(RECIPES)))


_trigger = TriggerSchema()


@control.post("/trigger")
@documented(ControlTriggerAnswerSchema, body=_trigger, auth=Auth.CONTROL, errors=(404,))
def trigger_event() -> Json:
    """Make an event happen to new objects of the merchant, through the services the API calls."""
    body = load(_trigger, json_body())
    triggered = trigger(sandbox(), acting_merchant(body), body["event_type"])
    event = triggered.event
    return {
        "event_type": event.event_type,
        "event_id": event.event_id,
        "object_id": event.object_id,
        "objects": triggered.objects,
    }
