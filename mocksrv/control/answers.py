"""What the control plane (/__mock/...) answers, beside the API's resources it shows."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.contract import AnswerSchema, one_of
from mocksrv.domain import disputes, payouts, refunds, webhooks
from mocksrv.domain.events import ContentType, EventType
from mocksrv.domain.legacy import tokens as legacy_tokens
from mocksrv.domain.links import records as links
from mocksrv.domain.payments import service as payments
from mocksrv.domain.payments.outcomes import CARD_CHECKS, CHECK_RESULTS, OutcomeResult
from mocksrv.domain.webhooks import ChaosMode, DeliveryState

TIMER_KINDS = [
    payments.SETTLE_TIMER,
    payments.EXPIRE_TIMER,
    payments.TRANSFER_TIMER,
    refunds.SETTLE_TIMER,
    payouts.SETTLE_TIMER,
    disputes.DEADLINE_TIMER,
    disputes.DECISION_TIMER,
    webhooks.RETRY_TIMER,
    webhooks.RELEASE_TIMER,
    links.EXPIRE_TIMER,
    legacy_tokens.EXPIRE_TIMER,
]


class ControlClockAnswerSchema(AnswerSchema):
    merchant_id = fields.String()
    now = fields.String()
    frozen = fields.Boolean()


class ControlTimerAnswerSchema(AnswerSchema):
    due_at = fields.String()
    kind = one_of(TIMER_KINDS)
    target_id = fields.String()


class ControlClockMovedAnswerSchema(ControlClockAnswerSchema):
    """The clock after it moved, with the timers that fell due on the way, in the order they fired."""

    timers_fired = fields.List(fields.Nested(ControlTimerAnswerSchema))


class ControlResetAnswerSchema(AnswerSchema):
    reset = fields.List(fields.String())


class ControlCredentialsAnswerSchema(AnswerSchema):
    merchant_id = fields.String()
    profile_id = fields.String()
    secret_key = fields.String()
    publishable_key = fields.String()
    payment_response_hash_key = fields.String()
    legacy_client_id = fields.String()  # the legacy card API's HTTP Basic credentials
    legacy_client_secret = fields.String()


class ControlMerchantListAnswerSchema(AnswerSchema):
    data = fields.List(fields.String())
    total_count = fields.Integer()


class ControlMerchantDeletedAnswerSchema(AnswerSchema):
    merchant_id = fields.String(required=True)
    deleted = fields.Boolean(required=True)


class ControlOutcomeAnswerSchema(AnswerSchema):
    result = one_of(OutcomeResult)
    error_code = fields.String(metadata={"optional": True})
    error_message = fields.String(metadata={"optional": True})
    after_seconds = fields.Integer(metadata={"optional": True})
    then = fields.Nested("ControlOutcomeAnswerSchema", metadata={"optional": True})
    opens_dispute = fields.Boolean(metadata={"optional": True})
    refund_result = one_of(["succeeded", "failed"], metadata={"optional": True})
    checks = fields.Dict(keys=one_of(CARD_CHECKS), values=one_of(CHECK_RESULTS), metadata={"optional": True})


class ControlOutcomeMatchAnswerSchema(AnswerSchema):
    payment_method = fields.String(metadata={"optional": True})
    payment_method_type = fields.String(metadata={"optional": True})
    card_number = fields.List(fields.String(), metadata={"optional": True})
    fields_contain = fields.Dict(keys=fields.String(), values=fields.String(), metadata={"optional": True})
    off_session = fields.Boolean(metadata={"optional": True})
    authentication_type = one_of(["three_ds", "no_three_ds"], metadata={"optional": True})


class ControlOutcomeRuleAnswerSchema(AnswerSchema):
    name = fields.String(metadata={"optional": True})
    match = fields.Nested(ControlOutcomeMatchAnswerSchema)
    outcome = fields.Nested(ControlOutcomeAnswerSchema)


class ControlOutcomeTableAnswerSchema(AnswerSchema):
    """The outcome table: rules in order; the first that matches decides, and no match is a success."""

    rules = fields.List(fields.Nested(ControlOutcomeRuleAnswerSchema))


class ControlTransitionAnswerSchema(AnswerSchema):
    from_ = fields.String(data_key="from")
    event = fields.String()
    to = fields.String()
    emits = fields.String(allow_none=True)


class ControlTransitionsAnswerSchema(AnswerSchema):
    """Every resource's transition table."""

    payment = fields.List(fields.Nested(ControlTransitionAnswerSchema))
    refund = fields.List(fields.Nested(ControlTransitionAnswerSchema))
    dispute = fields.List(fields.Nested(ControlTransitionAnswerSchema))
    payout = fields.List(fields.Nested(ControlTransitionAnswerSchema))
    mandate = fields.List(fields.Nested(ControlTransitionAnswerSchema))
    payment_link = fields.List(fields.Nested(ControlTransitionAnswerSchema))
    webhook_delivery = fields.List(fields.Nested(ControlTransitionAnswerSchema))
    legacy_token = fields.List(fields.Nested(ControlTransitionAnswerSchema))
    api_key = fields.List(fields.Nested(ControlTransitionAnswerSchema))


class ControlSeedAnswerSchema(AnswerSchema):
    merchant_id = fields.String()
    payments_created = fields.Integer()


class ControlEventDeliveryAnswerSchema(AnswerSchema):
    state = one_of(DeliveryState)
    attempts = fields.Integer()
    next_attempt_at = fields.String(allow_none=True)


class ControlEventAnswerSchema(AnswerSchema):
    event_id = fields.String()
    event_type = one_of(EventType)
    content_type = one_of(ContentType)
    object_id = fields.String()
    created = fields.String()
    delivery = fields.Nested(ControlEventDeliveryAnswerSchema)


class ControlEventListAnswerSchema(AnswerSchema):
    data = fields.List(fields.Nested(ControlEventAnswerSchema))
    total_count = fields.Integer()
    has_more = fields.Boolean()


class ControlDeliveryAttemptAnswerSchema(AnswerSchema):
    attempt_id = fields.String()
    event_id = fields.String()
    number = fields.Integer()
    manual = fields.Boolean()
    url = fields.String()
    attempted_at = fields.String()
    succeeded = fields.Boolean()
    status_code = fields.Integer(allow_none=True)
    latency_ms = fields.Float(allow_none=True)
    error = fields.String(allow_none=True)
    duplicate = fields.Boolean(metadata={"description": "a deliberate duplicate (webhook chaos)"})
    chaos = one_of(ChaosMode, allow_none=True)


class ControlDeliveryListAnswerSchema(AnswerSchema):
    data = fields.List(fields.Nested(ControlDeliveryAttemptAnswerSchema))
    total_count = fields.Integer()
    has_more = fields.Boolean()


class ControlWaitAnswerSchema(AnswerSchema):
    drained = fields.Boolean()
    pending = fields.Integer()


class ControlTriggerAnswerSchema(AnswerSchema):
    """The event a trigger made happen, and every object made on the way."""

    event_type = one_of(EventType)
    event_id = fields.String()
    object_id = fields.String()
    objects = fields.Dict(keys=fields.String(), values=fields.String())
