"""The control plane's routes of clocks, resets, merchants, magic values, 3DS results, transfers,
transition tables and seeding. A request acts with the admin key or a merchant's secret key."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.control.answers import (
    ControlClockAnswerSchema,
    ControlClockMovedAnswerSchema,
    ControlCredentialsAnswerSchema,
    ControlMerchantDeletedAnswerSchema,
    ControlMerchantListAnswerSchema,
    ControlOutcomeRuleAnswerSchema,
    ControlOutcomeTableAnswerSchema,
    ControlResetAnswerSchema,
    ControlSeedAnswerSchema,
    ControlTransitionsAnswerSchema,
)
from mocksrv.control.blueprint import acting_merchant, control, merchant_only, named_merchant
from mocksrv.domain.clock import LONGEST_ADVANCE_SECONDS
from mocksrv.domain.errors import MalformedBody, Unauthorized, UnknownField
from mocksrv.domain.merchants import MAX_PROFILE_NAME_LENGTH, MAX_RETURN_URL_LENGTH, MerchantSeed
from mocksrv.domain.models import MAX_SESSION_EXPIRY
from mocksrv.domain.payments.outcomes import OutcomeTable
from mocksrv.domain.sandbox import TRANSITION_TABLES
from mocksrv.fieldtypes import RESOURCE_ID, HttpUrl, StrictNumber, Timestamp
from mocksrv.representations import clock_json, credentials_json, timer_json
from mocksrv.rest import is_admin, sandbox, show_payment
from mocksrv.schema import RequestSchema
from mocksrv.serving.memory import release_memory
from mocksrv.values import CONNECTOR_NAME, CONNECTOR_REASON, LARGEST_WHOLE

Json = dict[str, Any]
# Payments one seed request makes: about a second of the ordinary create path, beside what the
# rate limit lets a key do in a minute and a half; a larger store takes several requests.
MAX_SEED = 10_000


class AdvanceSchema(RequestSchema):
    merchant_id = fields.String()
    seconds = StrictNumber(required=True, validate=validate.Range(min=0, max=LONGEST_ADVANCE_SECONDS))


class SetSchema(RequestSchema):
    merchant_id = fields.String()
    now = Timestamp(required=True)


class NewMerchantSchema(RequestSchema):
    merchant_id = fields.String(validate=RESOURCE_ID)
    # As a profile takes them (POST /account/:merchant_id/business_profile).
    profile_name = fields.String(validate=validate.Length(max=MAX_PROFILE_NAME_LENGTH))
    return_url = HttpUrl(validate=validate.Length(max=MAX_RETURN_URL_LENGTH))
    webhook_url = HttpUrl()
    session_expiry = fields.Integer(strict=True, validate=validate.Range(0, MAX_SESSION_EXPIRY))
    rate_limit = fields.Integer(strict=True, validate=validate.Range(min=0, max=LARGEST_WHOLE))
    connector = fields.String(validate=validate.Regexp(rf"^{CONNECTOR_NAME}\Z", error=CONNECTOR_REASON))


class AuthenticationSchema(RequestSchema):
    merchant_id = fields.String()
    result = fields.String(required=True, validate=validate.OneOf(["success", "failure"]))


class SeedSchema(RequestSchema):
    merchant_id = fields.String()
    payments = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=MAX_SEED))


_advance, _set = AdvanceSchema(), SetSchema()
_new_merchant, _authentication, _seed = NewMerchantSchema(), AuthenticationSchema(), SeedSchema()


def _clock(merchant_id: str) -> Json:
    clock = sandbox().clock
    return clock_json(merchant_id, clock.now(merchant_id), clock.state(merchant_id))


@control.get("/clock")
@documented(ControlClockAnswerSchema, auth=Auth.CONTROL, errors=(400, 404))
def get_clock() -> Json:
    return _clock(acting_merchant())


@control.post("/clock/advance")
@documented(ControlClockMovedAnswerSchema, body=_advance, auth=Auth.CONTROL, errors=(404,))
def advance_clock() -> Json:
    body = load(_advance, json_body())
    merchant_id = acting_merchant(body)
    _, fired = sandbox().scheduler.advance(merchant_id, body["seconds"])
    return {**_clock(merchant_id), "timers_fired": [timer_json(t) for t in fired]}


@control.post("/clock/set")
@documented(ControlClockMovedAnswerSchema, body=_set, auth=Auth.CONTROL, errors=(404,))
def set_clock() -> Json:
    body = load(_set, json_body())
    merchant_id = acting_merchant(body)
    _, fired = sandbox().scheduler.set_time(merchant_id, body["now"])
    return {**_clock(merchant_id), "timers_fired": [timer_json(t) for t in fired]}


@control.post("/clock/freeze")
@documented(ControlClockAnswerSchema, body=merchant_only, auth=Auth.CONTROL, errors=(404,))
def freeze_clock() -> Json:
    merchant_id = acting_merchant(load(merchant_only, json_body()))
    sandbox().clock.freeze(merchant_id)
    return _clock(merchant_id)


@control.post("/clock/resume")
@documented(ControlClockAnswerSchema, body=merchant_only, auth=Auth.CONTROL, errors=(404,))
def resume_clock() -> Json:
    merchant_id = acting_merchant(load(merchant_only, json_body()))
    state = sandbox().clock.resume(merchant_id)
    # The clock as it stood when it resumed (`base`): read again, it would have run on a little.
    return clock_json(merchant_id, state.base, state)


@control.post("/sync")
@documented(ControlClockMovedAnswerSchema, body=merchant_only, auth=Auth.CONTROL, errors=(404,))
def sync_timers() -> Json:
    """Fire the timers due on the merchant's clock now, without waiting for the ticker."""
    merchant_id = acting_merchant(load(merchant_only, json_body()))
    fired = sandbox().scheduler.fire_now(merchant_id)
    return {**_clock(merchant_id), "timers_fired": [timer_json(t) for t in fired]}


@control.post("/reset")
@documented(ControlResetAnswerSchema, body=merchant_only, auth=Auth.CONTROL, errors=(404,))
def reset() -> Json:
    body = load(merchant_only, json_body())
    everything = is_admin() and named_merchant(body) is None
    merchant_ids = sandbox().merchants.merchant_ids() if everything else [acting_merchant(body)]
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
@documented(ControlMerchantListAnswerSchema, auth=Auth.ADMIN, errors=(400,))
def list_merchants() -> Json:
    """Every merchant's id (admin only): also how a client proves its admin key."""
    if not is_admin():
        raise Unauthorized()
    merchant_ids = sorted(sandbox().merchants.merchant_ids())
    return {"data": merchant_ids, "total_count": len(merchant_ids)}


@control.delete("/merchants/<id:merchant_id>")
@documented(ControlMerchantDeletedAnswerSchema, auth=Auth.ADMIN, errors=(400, 404))
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
    return sandbox().merchants.outcomes(acting_merchant()).to_data()


class ControlOutcomesSchema(RequestSchema):
    """The table a PUT replaces the merchant's with; the sandbox checks it rule by rule, as it checks
    the fixture file (this schema says its shape in the document)."""

    merchant_id = fields.String()
    rules = fields.List(fields.Nested(ControlOutcomeRuleAnswerSchema), required=True)


@control.put("/outcomes")
@documented(
    ControlOutcomeTableAnswerSchema, body=ControlOutcomesSchema(), auth=Auth.CONTROL, errors=(400, 404)
)
def replace_outcomes() -> Json:
    body = json_body()
    merchant_id = acting_merchant(body)
    try:
        table = OutcomeTable.from_data({key: value for key, value in body.items() if key != "merchant_id"})
    except UnknownField as unknown:  # as every API body's unknown field is answered
        raise MalformedBody(f"unknown field `{unknown.param}`") from None
    return sandbox().merchants.replace_outcomes(merchant_id, table).to_data()


@control.post("/payments/<id:payment_id>/authentication")
@documented("PaymentAnswerSchema", body=_authentication, auth=Auth.CONTROL)
def finish_authentication(payment_id: str) -> Json:
    body = load(_authentication, json_body())
    merchant_id = acting_merchant(body)
    payment = sandbox().payments.authenticate(merchant_id, payment_id, completed=body["result"] == "success")
    return show_payment(payment)


@control.post("/payments/<id:payment_id>/transfer")
@documented("PaymentAnswerSchema", body=merchant_only, auth=Auth.CONTROL, errors=(400,))
def transfer_arrived(payment_id: str) -> Json:
    """The customer's bank transfer arrived: a bank-transfer payment waiting for it goes on."""
    merchant_id = acting_merchant(load(merchant_only, json_body()))
    return show_payment(sandbox().payments.transfer_arrived(merchant_id, payment_id))


@control.get("/transitions")
@documented(ControlTransitionsAnswerSchema, auth=Auth.CONTROL, errors=(400,))
def transitions() -> Json:
    """Every resource's transition table: from, event, to, and the webhook event it emits."""
    return {name: table.as_data() for name, table in TRANSITION_TABLES.items()}


@control.post("/seed")
@documented(ControlSeedAnswerSchema, body=_seed, auth=Auth.CONTROL, errors=(404,))
def seed() -> Json:
    body = load(_seed, json_body())
    merchant_id = acting_merchant(body)
    created = sandbox().seed_payments(merchant_id, body["payments"])
    return {"merchant_id": merchant_id, "payments_created": created}
