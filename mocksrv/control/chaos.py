"""Webhook chaos routes: deliver a merchant's events twice, out of order, or held on its mock clock."""

from __future__ import annotations

from typing import Any

from flask import request
from marshmallow import fields, validate

from mocksrv.bodies import json_body, load
from mocksrv.contract import AnswerSchema, Auth, documented
from mocksrv.control.blueprint import acting_merchant, control, merchant_only
from mocksrv.domain.webhooks import MAX_CHAOS_DELAY, WebhookChaos
from mocksrv.fieldtypes import StrictBoolean, StrictInteger
from mocksrv.rest import sandbox
from mocksrv.schema import RequestSchema

Json = dict[str, Any]


class WebhookChaosSchema(RequestSchema):
    """The whole setting: a field left out is off (false, 0, null)."""

    merchant_id = fields.String()
    duplicate = StrictBoolean(
        load_default=False, metadata={"description": "send every delivered event once more at once"}
    )
    out_of_order = StrictBoolean(
        load_default=False,
        metadata={"description": "hold events in batches, then send each batch newest first"},
    )
    delay_seconds = StrictInteger(
        load_default=0,
        validate=validate.Range(0, MAX_CHAOS_DELAY),
        metadata={"description": "hold each event's first attempt this long on the mock clock"},
    )
    seed = StrictInteger(
        allow_none=True,
        load_default=None,
        validate=validate.Range(0, 2**63 - 1),
        metadata={"description": "out_of_order: shuffle each batch with this seed instead"},
    )


class ControlWebhookChaosAnswerSchema(AnswerSchema):
    """The merchant's webhook chaos, and how many deliveries wait on its mock clock."""

    merchant_id = fields.String()
    duplicate = fields.Boolean()
    out_of_order = fields.Boolean()
    delay_seconds = fields.Integer()
    seed = fields.Integer(allow_none=True)
    held = fields.Integer()


_chaos = WebhookChaosSchema()


def _chaos_json(chaos: WebhookChaos) -> Json:
    return {
        "merchant_id": chaos.merchant_id,
        "duplicate": chaos.duplicate,
        "out_of_order": chaos.out_of_order,
        "delay_seconds": chaos.delay_seconds,
        "seed": chaos.seed,
        "held": sandbox().webhooks.held(chaos.merchant_id),
    }


@control.get("/webhooks/chaos")
@documented(ControlWebhookChaosAnswerSchema, query=merchant_only, auth=Auth.CONTROL, errors=(404,))
def get_webhook_chaos() -> Json:
    merchant_id = acting_merchant(load(merchant_only, request.args.to_dict()))
    return _chaos_json(sandbox().webhooks.chaos(merchant_id))


@control.put("/webhooks/chaos")
@documented(ControlWebhookChaosAnswerSchema, body=_chaos, auth=Auth.CONTROL, errors=(404,))
def set_webhook_chaos() -> Json:
    """Replace the merchant's webhook chaos; it applies to the events that happen from now on."""
    body = load(_chaos, json_body())
    merchant_id = acting_merchant(body)
    chaos = sandbox().webhooks.set_chaos(
        merchant_id,
        duplicate=body["duplicate"],
        out_of_order=body["out_of_order"],
        delay_seconds=body["delay_seconds"],
        seed=body["seed"],
    )
    return _chaos_json(chaos)


@control.delete("/webhooks/chaos")
@documented(ControlWebhookChaosAnswerSchema, query=merchant_only, auth=Auth.CONTROL, errors=(404,))
def clear_webhook_chaos() -> Json:
    """Deliver as usual again; deliveries already held go when their time comes."""
    merchant_id = acting_merchant(load(merchant_only, request.args.to_dict()))
    return _chaos_json(sandbox().webhooks.clear_chaos(merchant_id))
