"""Fault rules' routes: make a merchant's API answer 5xx, 429, late, cut short, or not at all."""

from __future__ import annotations

from typing import Any

from flask import request
from marshmallow import ValidationError, fields, validate, validates_schema

from mocksrv.bodies import json_body, load
from mocksrv.contract import AnswerSchema, Auth, documented, one_of
from mocksrv.control.blueprint import acting_merchant, control, merchant_only
from mocksrv.domain.controls.faults import (
    ERROR_STATUSES,
    RATE_LIMITED,
    FaultEffect,
    FaultRule,
    FaultTiming,
    check_rule,
)
from mocksrv.fieldtypes import StrictInteger, StrictNumber, Timestamp
from mocksrv.representations import timestamp
from mocksrv.rest import sandbox
from mocksrv.schema import RequestSchema

Json = dict[str, Any]
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")
SCALARS = (str, int, float, bool, type(None))


def _scalar_values(body: dict[str, Any]) -> None:
    for name, value in body.items():
        if not isinstance(value, SCALARS):
            raise ValidationError(f"{name}: compare a text, number, boolean or null", name)


class FaultMatchSchema(RequestSchema):
    method = fields.String(validate=validate.OneOf(METHODS))
    path = fields.String(validate=validate.Length(1, 2048), metadata={"description": "a glob pattern"})
    body = fields.Dict(
        keys=fields.String(validate=validate.Length(1, 256)),
        values=fields.Raw(allow_none=True),
        validate=[validate.Length(max=16), _scalar_values],
        metadata={"description": "dotted field paths and the values the JSON body must hold there"},
    )


class FaultEffectSchema(RequestSchema):
    type = fields.String(required=True, validate=validate.OneOf([effect.value for effect in FaultEffect]))
    status = StrictInteger(metadata={"description": "error: 500, 502, 503 (default) or 504; rate_limit: 429"})
    retry_after = StrictInteger(validate=validate.Range(1, 86_400), metadata={"description": "rate_limit"})
    milliseconds = StrictInteger(validate=validate.Range(0, 600_000), metadata={"description": "latency"})
    seconds = StrictNumber(validate=validate.Range(0, 3_600), metadata={"description": "hang, at most"})

    @validates_schema
    def _status_fits(self, data: Json, **kwargs: Any) -> None:
        status, effect = data.get("status"), data["type"]
        if status is None:
            if effect == FaultEffect.LATENCY and "milliseconds" not in data:
                raise ValidationError("a latency fault names its milliseconds", "milliseconds")
            return
        allowed = {FaultEffect.ERROR: ERROR_STATUSES, FaultEffect.RATE_LIMIT: (RATE_LIMITED,)}.get(
            FaultEffect(effect), ()
        )
        if status not in allowed:
            shown = ", ".join(map(str, allowed)) if allowed else "none"
            raise ValidationError(f"{effect} faults answer with: {shown}", "status")


class FaultScheduleSchema(RequestSchema):
    times = StrictInteger(validate=validate.Range(min=1), metadata={"description": "the next N matching"})
    every = StrictInteger(validate=validate.Range(min=1), metadata={"description": "every Kth matching"})
    probability = StrictNumber(validate=validate.Range(0, 1))
    seed = StrictInteger(metadata={"description": "makes the probability's draws repeat exactly"})
    active_from = Timestamp(kept=True, data_key="from", metadata={"description": "on the merchant's clock"})
    active_until = Timestamp(kept=True, data_key="until", metadata={"description": "on the merchant's clock"})


class NewFaultSchema(RequestSchema):
    merchant_id = fields.String()
    match = fields.Nested(FaultMatchSchema)
    effect = fields.Nested(FaultEffectSchema, required=True)
    timing = fields.String(validate=validate.OneOf([timing.value for timing in FaultTiming]))
    schedule = fields.Nested(FaultScheduleSchema)


class ControlFaultAnswerSchema(AnswerSchema):
    """A fault rule, and how many requests it matched and faulted so far."""

    fault_id = fields.String()
    match = fields.Dict(metadata={"description": "method, path and body, as given"})
    effect = fields.Dict(metadata={"description": "type, and status, retry_after, milliseconds or seconds"})
    timing = one_of(FaultTiming)
    schedule = fields.Dict(metadata={"description": "times, every, probability, seed, from, until"})
    matched = fields.Integer()
    applied = fields.Integer()
    created = fields.String()


class ControlFaultListAnswerSchema(AnswerSchema):
    data = fields.List(fields.Nested(ControlFaultAnswerSchema))
    total_count = fields.Integer()


class ControlFaultsDeletedAnswerSchema(AnswerSchema):
    deleted = fields.Integer()


_new_fault = NewFaultSchema()


def fault_json(rule: FaultRule) -> Json:
    effect: Json = {"type": rule.effect.value}
    for name in ("status", "retry_after", "milliseconds", "seconds"):
        if getattr(rule, name) is not None:
            effect[name] = getattr(rule, name)
    schedule: Json = {
        name: value
        for name, value in (
            ("times", rule.times),
            ("every", rule.every),
            ("probability", rule.probability),
            ("from", rule.active_from and timestamp(rule.active_from)),
            ("until", rule.active_until and timestamp(rule.active_until)),
        )
        if value is not None
    }
    if rule.probability is not None:
        schedule["seed"] = rule.seed
    return {
        "fault_id": rule.fault_id,
        "match": {"method": rule.method, "path": rule.path, "body": dict(rule.body)},
        "effect": effect,
        "timing": rule.timing.value,
        "schedule": schedule,
        "matched": rule.matched,
        "applied": rule.applied,
        "created": timestamp(rule.created),
    }


@control.post("/faults")
@documented(ControlFaultAnswerSchema, body=_new_fault, auth=Auth.CONTROL, errors=(404,))
def add_fault() -> Json:
    """Make the merchant's matching API requests misbehave, from its next request on."""
    body = load(_new_fault, json_body())
    return fault_json(sandbox().faults.add(acting_merchant(body), _rule_fields(body)))


def _rule_fields(body: Json) -> Json:
    """A checked body's rule as FaultService.add takes it."""
    effect = body["effect"]
    return {
        **body.get("match", {}),
        **body.get("schedule", {}),
        **{name: value for name, value in effect.items() if name != "type"},
        "effect": effect["type"],
        "timing": body.get("timing"),
    }


def check_fault(document: Json) -> None:
    """Refuse, as POST /__mock/faults would, a rule it would refuse (a scenario's fault step, checked
    before anything runs): a DomainError naming the field."""
    check_rule(_rule_fields(load(_new_fault, document)))


@control.get("/faults")
@documented(ControlFaultListAnswerSchema, query=merchant_only, auth=Auth.CONTROL, errors=(404,))
def list_faults() -> Json:
    """The merchant's fault rules, in the order they are tried."""
    merchant_id = acting_merchant(load(merchant_only, request.args.to_dict()))
    rules = sandbox().faults.list(merchant_id)
    return {"data": [fault_json(rule) for rule in rules], "total_count": len(rules)}


@control.get("/faults/<id:fault_id>")
@documented(ControlFaultAnswerSchema, query=merchant_only, auth=Auth.CONTROL)
def get_fault(fault_id: str) -> Json:
    merchant_id = acting_merchant(load(merchant_only, request.args.to_dict()))
    return fault_json(sandbox().faults.retrieve(merchant_id, fault_id))


@control.delete("/faults/<id:fault_id>")
@documented(ControlFaultAnswerSchema, query=merchant_only, auth=Auth.CONTROL)
def delete_fault(fault_id: str) -> Json:
    """Remove a rule; answers it as it was last."""
    merchant_id = acting_merchant(load(merchant_only, request.args.to_dict()))
    return fault_json(sandbox().faults.delete(merchant_id, fault_id))


@control.delete("/faults")
@documented(ControlFaultsDeletedAnswerSchema, query=merchant_only, auth=Auth.CONTROL, errors=(404,))
def delete_faults() -> Json:
    """Remove every rule of the merchant."""
    merchant_id = acting_merchant(load(merchant_only, request.args.to_dict()))
    return {"deleted": sandbox().faults.clear(merchant_id)}
