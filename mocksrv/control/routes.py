"""Routes of the control plane. A request acts with the admin key or a merchant's secret key."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, g, request
from marshmallow import fields, validate

from mocksrv.contract import Auth, documented
from mocksrv.control.answers import (
    ControlClockAnswerSchema,
    ControlClockMovedAnswerSchema,
    ControlCredentialsAnswerSchema,
    ControlDeliveryListAnswerSchema,
    ControlEventAnswerSchema,
    ControlEventListAnswerSchema,
    ControlMerchantDeletedAnswerSchema,
    ControlMerchantListAnswerSchema,
    ControlOutcomeRuleAnswerSchema,
    ControlOutcomeTableAnswerSchema,
    ControlResetAnswerSchema,
    ControlSeedAnswerSchema,
    ControlTransitionsAnswerSchema,
    ControlTriggerAnswerSchema,
    ControlWaitAnswerSchema,
)
from mocksrv.domain.controls.triggers import RECIPES, trigger
from mocksrv.domain.errors import MalformedBody, ResourceNotFound, Unauthorized, UnknownField
from mocksrv.domain.merchants import MAX_RETURN_URL_LENGTH, MAX_SESSION_EXPIRY, MerchantSeed
from mocksrv.domain.models import KeyKind
from mocksrv.domain.payments.outcomes import OutcomeTable
from mocksrv.domain.sandbox import TRANSITION_TABLES
from mocksrv.fieldtypes import RESOURCE_ID, HttpUrl, StrictInteger, StrictNumber, Timestamp
from mocksrv.memory import release_memory
from mocksrv.representations import (
    attempt_json,
    clock_json,
    credentials_json,
    dispute_json,
    event_summary,
    payout_json,
    profile_json,
    refund_json,
    timer_json,
)
from mocksrv.rest import is_admin, json_body, load, sandbox, show_payment, wait_slots
from mocksrv.schema import RequestSchema
from mocksrv.values import CONNECTOR_NAME, CONNECTOR_REASON

control = Blueprint("control", __name__, url_prefix="/__mock")

Json = dict[str, Any]
# Payments one seed request makes: about a second of the ordinary create path, beside what the
# rate limit lets a key do in a minute and a half; a larger store takes several requests.
MAX_SEED = 10_000


class AdvanceSchema(RequestSchema):
    merchant_id = fields.String()
    seconds = StrictNumber(required=True, validate=validate.Range(min=0, max=10 * 365 * 24 * 3600))


class SetSchema(RequestSchema):
    merchant_id = fields.String()
    now = Timestamp(required=True)


class MerchantOnlySchema(RequestSchema):
    merchant_id = fields.String()


class NewMerchantSchema(RequestSchema):
    merchant_id = fields.String(validate=RESOURCE_ID)
    profile_name = fields.String()
    return_url = HttpUrl(validate=validate.Length(max=MAX_RETURN_URL_LENGTH))
    webhook_url = HttpUrl()
    session_expiry = fields.Integer(strict=True, validate=validate.Range(1, MAX_SESSION_EXPIRY))
    rate_limit = fields.Integer(strict=True, validate=validate.Range(min=0))
    connector = fields.String(validate=validate.Regexp(rf"^{CONNECTOR_NAME}\Z", error=CONNECTOR_REASON))


class SettleSchema(RequestSchema):
    merchant_id = fields.String()
    result = fields.String(required=True, validate=validate.OneOf(["succeeded", "failed"]))


class AuthenticationSchema(RequestSchema):
    merchant_id = fields.String()
    result = fields.String(required=True, validate=validate.OneOf(["success", "failure"]))


class SeedSchema(RequestSchema):
    merchant_id = fields.String()
    payments = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=MAX_SEED))


_advance, _set, _merchant_only = AdvanceSchema(), SetSchema(), MerchantOnlySchema()
_new_merchant, _authentication, _seed = NewMerchantSchema(), AuthenticationSchema(), SeedSchema()


@control.before_request
def _authenticate() -> None:
    """Admit the admin key or a merchant's secret key, before anything of the request is read."""
    if is_admin():
        return
    principal = sandbox().merchants.authenticate(request.headers.get("api-key"))
    if principal.kind is not KeyKind.SECRET:
        raise Unauthorized()
    g.control_merchant = g.merchant_id = principal.merchant_id


def _merchant(body: Json | None = None) -> str:
    """The merchant a request acts on: named by the admin, or the one whose secret key it is."""
    named = request.args.get("merchant_id") or (body or {}).get("merchant_id")
    if is_admin():
        g.merchant_id = merchant_id = sandbox().merchants.require_merchant_id(named)
        return merchant_id
    own: str = g.control_merchant
    if named is not None and named != own:
        raise ResourceNotFound("Merchant")
    return own


def _clock(merchant_id: str) -> Json:
    clock = sandbox().clock
    return clock_json(merchant_id, clock.now(merchant_id), clock.state(merchant_id))


@control.get("/clock")
@documented(ControlClockAnswerSchema, auth=Auth.CONTROL, errors=(400, 404))
def get_clock() -> Json:
    return _clock(_merchant())


@control.post("/clock/advance")
@documented(ControlClockMovedAnswerSchema, body=_advance, auth=Auth.CONTROL, errors=(404,))
def advance_clock() -> Json:
    body = load(_advance, json_body())
    merchant_id = _merchant(body)
    _, fired = sandbox().scheduler.advance(merchant_id, body["seconds"])
    return {**_clock(merchant_id), "timers_fired": [timer_json(t) for t in fired]}


@control.post("/clock/set")
@documented(ControlClockMovedAnswerSchema, body=_set, auth=Auth.CONTROL, errors=(404,))
def set_clock() -> Json:
    body = load(_set, json_body())
    merchant_id = _merchant(body)
    _, fired = sandbox().scheduler.set_time(merchant_id, body["now"])
    return {**_clock(merchant_id), "timers_fired": [timer_json(t) for t in fired]}


@control.post("/clock/freeze")
@documented(ControlClockAnswerSchema, body=_merchant_only, auth=Auth.CONTROL, errors=(404,))
def freeze_clock() -> Json:
    merchant_id = _merchant(load(_merchant_only, json_body()))
    sandbox().clock.freeze(merchant_id)
    return _clock(merchant_id)


@control.post("/clock/resume")
@documented(ControlClockAnswerSchema, body=_merchant_only, auth=Auth.CONTROL, errors=(404,))
def resume_clock() -> Json:
    merchant_id = _merchant(load(_merchant_only, json_body()))
    state = sandbox().clock.resume(merchant_id)
    # The clock as it stood when it resumed (`base`): read again, it would have run on a little.
    return clock_json(merchant_id, state.base, state)


@control.post("/sync")
@documented(ControlClockMovedAnswerSchema, body=_merchant_only, auth=Auth.CONTROL, errors=(404,))
def sync_timers() -> Json:
    """Fire the timers due on the merchant's clock now, without waiting for the ticker."""
    merchant_id = _merchant(load(_merchant_only, json_body()))
    fired = sandbox().scheduler.fire_now(merchant_id)
    return {**_clock(merchant_id), "timers_fired": [timer_json(t) for t in fired]}


@control.post("/reset")
@documented(ControlResetAnswerSchema, body=_merchant_only, auth=Auth.CONTROL, errors=(404,))
def reset() -> Json:
    body = load(_merchant_only, json_body())
    everything = is_admin() and not (request.args.get("merchant_id") or body.get("merchant_id"))
    merchant_ids = sandbox().merchants.merchant_ids() if everything else [_merchant(body)]
    for merchant_id in merchant_ids:
        sandbox().reset(merchant_id)
    if everything:
        release_memory()
    return {"reset": sorted(merchant_ids)}


@control.post("/merchants")
@documented(ControlCredentialsAnswerSchema, body=_new_merchant, auth=Auth.ADMIN)
def create_merchant() -> Json:
    if not is_admin():
        raise Unauthorized()
    body = load(_new_merchant, json_body())
    credentials = sandbox().merchants.create(MerchantSeed(**body))
    return credentials_json(credentials)


@control.get("/merchants")
@documented(ControlMerchantListAnswerSchema, auth=Auth.ADMIN)
def list_merchants() -> Json:
    """Every merchant's id (admin only): also how a client proves its admin key."""
    if not is_admin():
        raise Unauthorized()
    merchant_ids = sorted(sandbox().merchants.merchant_ids())
    return {"data": merchant_ids, "total_count": len(merchant_ids)}


@control.delete("/merchants/<id:merchant_id>")
@documented(ControlMerchantDeletedAnswerSchema, auth=Auth.ADMIN, errors=(404,))
def delete_merchant(merchant_id: str) -> Json:
    """Forget a merchant and everything of it (admin only); its keys stop working at once."""
    if not is_admin():
        raise Unauthorized()
    merchant_id = sandbox().merchants.require_merchant_id(merchant_id)
    sandbox().remove_merchant(merchant_id)
    return {"merchant_id": merchant_id, "deleted": True}


@control.get("/outcomes")
@documented(ControlOutcomeTableAnswerSchema, auth=Auth.CONTROL, errors=(400, 404))
def get_outcomes() -> Json:
    return sandbox().merchants.outcomes(_merchant()).to_data()


class ControlOutcomesSchema(RequestSchema):
    """The table a PUT replaces the merchant's with; the sandbox checks it rule by rule, as it checks
    the fixture file (this schema says its shape in the document)."""

    merchant_id = fields.String()
    rules = fields.List(fields.Nested(ControlOutcomeRuleAnswerSchema), required=True)


@control.put("/outcomes")
@documented(
    ControlOutcomeTableAnswerSchema, body=ControlOutcomesSchema(), auth=Auth.CONTROL, errors=(400, 404, 413)
)
def replace_outcomes() -> Json:
    body = json_body()
    merchant_id = _merchant(body)
    try:
        table = OutcomeTable.from_data({key: value for key, value in body.items() if key != "merchant_id"})
    except UnknownField as unknown:  # as every API body's unknown field is answered
        raise MalformedBody(f"unknown field `{unknown.param}`") from None
    return sandbox().merchants.replace_outcomes(merchant_id, table).to_data()


@control.post("/payments/<id:payment_id>/authentication")
@documented("PaymentAnswerSchema", body=_authentication, auth=Auth.CONTROL)
def finish_authentication(payment_id: str) -> Json:
    body = load(_authentication, json_body())
    merchant_id = _merchant(body)
    payment = sandbox().payments.authenticate(merchant_id, payment_id, completed=body["result"] == "success")
    return show_payment(payment)


@control.post("/payments/<id:payment_id>/transfer")
@documented("PaymentAnswerSchema", body=_merchant_only, auth=Auth.CONTROL, errors=(400,))
def transfer_arrived(payment_id: str) -> Json:
    """The customer's bank transfer arrived: a bank-transfer payment waiting for it goes on."""
    merchant_id = _merchant(load(_merchant_only, json_body()))
    return show_payment(sandbox().payments.transfer_arrived(merchant_id, payment_id))


@control.get("/transitions")
@documented(ControlTransitionsAnswerSchema, auth=Auth.CONTROL)
def transitions() -> Json:
    """Every resource's transition table: from, event, to, and the webhook event it emits."""
    return {name: table.as_data() for name, table in TRANSITION_TABLES.items()}


@control.post("/seed")
@documented(ControlSeedAnswerSchema, body=_seed, auth=Auth.CONTROL, errors=(404,))
def seed() -> Json:
    body = load(_seed, json_body())
    merchant_id = _merchant(body)
    created = sandbox().seed_payments(merchant_id, body["payments"])
    return {"merchant_id": merchant_id, "payments_created": created}


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
    merchant_id = _merchant(query)
    events, total = sandbox().webhooks.events(merchant_id, query["limit"], query["offset"])
    return {
        "data": [event_summary(event, delivery) for event, delivery in events],
        "total_count": total,
        "has_more": query["offset"] + len(events) < total,
    }


@control.post("/events/<id:event_id>/redeliver")
@documented(ControlEventAnswerSchema, body=_merchant_only, auth=Auth.CONTROL)
def redeliver(event_id: str) -> Json:
    merchant_id = _merchant(load(_merchant_only, json_body()))
    webhooks = sandbox().webhooks
    webhooks.redeliver(merchant_id, event_id)
    event = sandbox().store.event(merchant_id, event_id)
    if event is None:
        raise ResourceNotFound("Event")
    return event_summary(event, webhooks.delivery(merchant_id, event_id))


@control.get("/webhooks/deliveries")
@documented(ControlDeliveryListAnswerSchema, query=_page, auth=Auth.CONTROL, errors=(404,))
def list_deliveries() -> Json:
    query = load(_page, request.args.to_dict())
    merchant_id = _merchant(query)
    page = sandbox().webhooks.attempts(merchant_id, query.get("event_id"), query["limit"], query["offset"])
    return {
        "data": [attempt_json(attempt) for attempt in page.items],
        "total_count": page.total_count,
        "has_more": query["offset"] + len(page.items) < page.total_count,
    }


@control.post("/webhooks/wait")
@documented(ControlWaitAnswerSchema, body=_wait, auth=Auth.CONTROL, errors=(404, 429))
def wait_for_deliveries() -> Json:
    """Wait until the merchant's queued deliveries have been attempted, or the timeout passes."""
    body = load(_wait, json_body())
    merchant_id = _merchant(body)
    webhooks = sandbox().webhooks
    slots = wait_slots(current_app)
    with slots.hold(merchant_id, parks=body["timeout"] > 0):
        drained = webhooks.drained(merchant_id, body["timeout"])
    return {"drained": drained, "pending": webhooks.pending(merchant_id)}


@control.put("/webhook_url")
@documented("ProfileAnswerSchema", body=_webhook_url, auth=Auth.CONTROL, errors=(404,))
def set_webhook_url() -> Json:
    body = load(_webhook_url, json_body())
    merchant_id = _merchant(body)
    merchants = sandbox().merchants
    profile = merchants.default_profile(merchant_id)
    updated = merchants.update_profile(merchant_id, profile.profile_id, {"webhook_url": body["webhook_url"]})
    return profile_json(updated)


_settle = SettleSchema()


@control.post("/refunds/<id:refund_id>/settle")
@documented("RefundAnswerSchema", body=_settle, auth=Auth.CONTROL)
def settle_refund(refund_id: str) -> Json:
    """Settle a pending refund now, as succeeded or failed."""
    body = load(_settle, json_body())
    merchant_id = _merchant(body)
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
    merchant_id = _merchant(body)
    return payout_json(sandbox().payouts.settle(merchant_id, payout_id, body["result"]))


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
    merchant_id = _merchant(body)
    amount = body.get("amount")
    dispute = sandbox().disputes.open(merchant_id, body["payment_id"], amount, body.get("reason"))
    return dispute_json(dispute)


@control.post("/disputes/<id:dispute_id>/resolve")
@documented("DisputeAnswerSchema", body=_resolve_dispute, auth=Auth.CONTROL)
def resolve_dispute(dispute_id: str) -> Json:
    """Decide a dispute now: won, lost or cancelled."""
    body = load(_resolve_dispute, json_body())
    merchant_id = _merchant(body)
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
    triggered = trigger(sandbox(), _merchant(body), body["event_type"])
    event = triggered.event
    return {
        "event_type": event.event_type,
        "event_id": event.event_id,
        "object_id": event.object_id,
        "objects": triggered.objects,
    }
