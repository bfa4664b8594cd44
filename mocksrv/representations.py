"""How records look in JSON: one representation per resource, shared by the API and the webhooks."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mocksrv.domain.clock import ClockState, format_timestamp
from mocksrv.domain.disputes import Dispute, DisputeStatus
from mocksrv.domain.ephemeral_keys import EphemeralKey
from mocksrv.domain.events import Event
from mocksrv.domain.merchants import MerchantCredentials
from mocksrv.domain.models import Customer, Payment, Profile
from mocksrv.domain.payment_states import PaymentStatus
from mocksrv.domain.payouts import Payout
from mocksrv.domain.refunds import Refund
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.store import Timer
from mocksrv.domain.webhooks import DeliveryAttempt, EventDelivery

JsonObject = dict[str, Any]


def timestamp(moment: datetime | None) -> str | None:
    return None if moment is None else format_timestamp(moment)


def challenge_path(merchant_id: str, payment_id: str) -> str:
    """The path of the 3D Secure challenge page of a payment."""
    return f"/web/3ds/{merchant_id}/{payment_id}"


def next_action(payment: Payment, base_url: str) -> JsonObject | None:
    if payment.status is not PaymentStatus.REQUIRES_CUSTOMER_ACTION:
        return None
    url = f"{base_url.rstrip('/')}{challenge_path(payment.merchant_id, payment.payment_id)}"
    return {"type": "redirect_to_url", "redirect_to_url": f"{url}?client_secret={payment.client_secret}"}


def payment_json(
    payment: Payment,
    base_url: str,
    disputes: Sequence[Dispute] = (),
    refunds: Sequence[Refund] = (),
    customer: Customer | None = None,
) -> JsonObject:
    return {
        "payment_id": payment.payment_id,
        "merchant_id": payment.merchant_id,
        "profile_id": payment.profile_id,
        "status": str(payment.status),  # a StrEnum's str() is its value, read without an enum lookup
        "amount": payment.amount,
        "amount_received": payment.amount_received,
        "amount_capturable": payment.amount_capturable,
        "amount_refunded": payment.amount_refunded,
        "currency": payment.currency,
        "capture_method": str(payment.capture_method),
        "payment_method": payment.payment_method,
        "payment_method_type": payment.payment_method_type,
        "payment_method_data": payment.payment_method_data,
        "authentication_type": payment.authentication_type,
        "client_secret": payment.client_secret,
        "expires_on": timestamp(payment.client_secret_expires_at),
        "customer_id": payment.customer_id,
        "email": payment.email,
        "name": payment.name,
        "phone": payment.phone,
        "phone_country_code": payment.phone_country_code,
        "description": payment.description,
        "statement_descriptor": payment.statement_descriptor,
        "metadata": payment.metadata,
        "billing": payment.billing,
        "return_url": payment.return_url,
        "order_details": payment.order_details,
        "browser_info": payment.browser_info,
        "next_action": next_action(payment, base_url),
        "created": timestamp(payment.created),
        "modified_at": timestamp(payment.modified_at),
        "captured_at": timestamp(payment.captured_at),
        "cancelled_at": timestamp(payment.cancelled_at),
        "cancellation_reason": payment.cancellation_reason,
        "error_code": payment.error_code,
        "error_message": payment.error_message,
        "disputes": [dispute_json(dispute) for dispute in disputes],
        "refunds": [refund_json(refund) for refund in refunds],
        # The real service's names and required fields, beside the spec's.
        "net_amount": net_amount(payment),
        "attempt_count": payment.attempt_count,
        "processor_merchant_id": payment.merchant_id,
        "connector": payment.connector,
        "connector_transaction_id": payment.attempt_id,
        "unified_code": payment.error_code,
        "unified_message": payment.error_message,
        **(payment.echoed or {}),
        "customer": None if customer is None else customer_details(customer),
    }


def net_amount(payment: Payment) -> int:
    """The amount with the shipping cost, order tax and surcharge sent with it, as the real service sums."""
    echoed = payment.echoed or {}
    surcharge = echoed.get("surcharge_details") or {}
    extras = (echoed.get("shipping_cost"), echoed.get("order_tax_amount"), surcharge.get("surcharge_amount"))
    return payment.amount + sum(extra or 0 for extra in extras) + (surcharge.get("tax_amount") or 0)


def customer_details(customer: Customer) -> JsonObject:
    return {
        "id": customer.customer_id,
        "name": customer.name,
        "email": customer.email,
        "phone": customer.phone,
        "phone_country_code": customer.phone_country_code,
    }


def payment_view(payment: Payment, base_url: str, sandbox: Sandbox) -> JsonObject:
    """A payment as the API shows it: with its disputes, refunds and customer, as the real service does."""
    merchant_id, payment_id = payment.merchant_id, payment.payment_id
    disputes = sandbox.disputes.of_payment(merchant_id, payment_id)
    refunds = sandbox.refunds.of_payment(merchant_id, payment_id)
    customer = (
        None if payment.customer_id is None else sandbox.customers.find(merchant_id, payment.customer_id)
    )
    return payment_json(payment, base_url, disputes, refunds, customer)


# A payment's status, as the status of the attempt that brought it there.
_ATTEMPT_STATUS = {
    PaymentStatus.REQUIRES_CUSTOMER_ACTION: "authentication_pending",
    PaymentStatus.REQUIRES_MERCHANT_ACTION: "unresolved",
    PaymentStatus.PROCESSING: "pending",
    PaymentStatus.REQUIRES_CAPTURE: "authorized",
    PaymentStatus.PARTIALLY_CAPTURED: "partial_charged",
    PaymentStatus.PARTIALLY_CAPTURED_AND_CAPTURABLE: "partial_charged_and_chargeable",
    PaymentStatus.SUCCEEDED: "charged",
    PaymentStatus.FAILED: "authorization_failed",
    PaymentStatus.CANCELLED: "voided",
    PaymentStatus.EXPIRED: "expired",
}


def payment_attempts_json(payment: Payment) -> list[JsonObject]:
    """The payment's attempts at the processor, oldest first: a payment is confirmed at most once,
    so there is one once it is confirmed, with the payment's own state."""
    if payment.attempt_count == 0:
        return []
    status = _ATTEMPT_STATUS.get(payment.status, "started")
    if payment.error_code == "authentication_failed":
        status = "authentication_failed"
    return [
        {
            "attempt_id": payment.attempt_id,
            "status": status,
            "amount": payment.amount,
            "currency": payment.currency,
            "connector": payment.connector,
            "connector_transaction_id": payment.attempt_id,
            "payment_method": payment.payment_method,
            "payment_method_type": payment.payment_method_type,
            "capture_method": str(payment.capture_method),
            "authentication_type": payment.authentication_type,
            "error_code": payment.error_code,
            "error_message": payment.error_message,
            "unified_code": payment.error_code,
            "unified_message": payment.error_message,
            "cancellation_reason": payment.cancellation_reason,
            "created_at": timestamp(payment.attempted_at),
            "modified_at": timestamp(payment.modified_at),
        }
    ]


def payment_captures_json(payment: Payment) -> list[JsonObject]:
    """The captures made of the payment's authorization, oldest first."""
    return [
        {
            "capture_id": capture.capture_id,
            "status": "charged",
            "amount": capture.amount,
            "currency": payment.currency,
            "connector": payment.connector,
            "authorized_attempt_id": payment.attempt_id,
            "connector_capture_id": capture.capture_id,
            "capture_sequence": capture.sequence,
            "error_message": None,
            "error_code": None,
            "error_reason": None,
            "reference_id": None,
            "created_at": timestamp(capture.created_at),
        }
        for capture in payment.captures
    ]


def payment_summary(payment: Payment) -> JsonObject:
    return {
        "payment_id": payment.payment_id,
        "status": payment.status.value,
        "amount": payment.amount,
        "currency": payment.currency,
        "created": timestamp(payment.created),
    }


def customer_json(customer: Customer) -> JsonObject:
    return {
        "customer_id": customer.customer_id,
        "name": customer.name,
        "email": customer.email,
        "phone": customer.phone,
        "phone_country_code": customer.phone_country_code,
        "description": customer.description,
        "address": customer.address,
        "metadata": customer.metadata,
        "tax_registration_id": customer.tax_registration_id,
        "created_at": timestamp(customer.created),
    }


def clock_json(merchant_id: str, now: datetime, state: ClockState) -> JsonObject:
    return {"merchant_id": merchant_id, "now": format_timestamp(now), "frozen": state.frozen}


def timer_json(timer: Timer) -> JsonObject:
    return {"due_at": format_timestamp(timer.due_at), "kind": timer.kind, "target_id": timer.target_id}


def credentials_json(credentials: MerchantCredentials) -> JsonObject:
    return {
        "merchant_id": credentials.merchant.merchant_id,
        "profile_id": credentials.profile.profile_id,
        "secret_key": credentials.secret_key,
        "publishable_key": credentials.publishable_key,
        "payment_response_hash_key": credentials.profile.payment_response_hash_key,
    }


def resource_json(resource: object, base_url: str, sandbox: Sandbox) -> JsonObject:
    """The API representation of whatever record an event reports."""
    if isinstance(resource, Payment):
        return payment_view(resource, base_url, sandbox)
    if isinstance(resource, Refund):
        return refund_json(resource)
    if isinstance(resource, Payout):
        return payout_json(resource)
    if isinstance(resource, Dispute):
        return dispute_json(resource)
    raise TypeError(f"no representation for {type(resource).__name__}")


def event_json(event: Event, base_url: str, sandbox: Sandbox) -> JsonObject:
    """The body of a webhook."""
    return {
        "merchant_id": event.merchant_id,
        "event_id": event.event_id,
        "event_type": event.event_type,
        "content": {
            "type": event.content_type.value,
            "object": resource_json(event.resource, base_url, sandbox),
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
        "url": attempt.url,
        "attempted_at": format_timestamp(attempt.attempted_at),
        "succeeded": attempt.succeeded,
        "status_code": attempt.status_code,
        "latency_ms": attempt.latency_ms,
        "error": attempt.error,
    }


# What a profile shows of the settings mocksrv does not model, under the real names. Every redirect to
# return_url carries a signature keyed with payment_response_hash_key, so the hash is on; that redirect
# is a GET, not a form POST. Tax connectors, network tokens, automatic and clear-PAN retries, Click to
# Pay and forced 3DS challenges do not exist here (3DS comes only from the challenge cards), so each
# such flag is off. A profile update may send these flags; they are accepted and change nothing.
PROFILE_CONSTANT_SETTINGS: JsonObject = {
    "enable_payment_response_hash": True,
    "redirect_to_merchant_with_http_post": False,
    "is_tax_connector_enabled": False,
    "is_network_tokenization_enabled": False,
    "is_auto_retries_enabled": False,
    "is_click_to_pay_enabled": False,
    "is_clear_pan_retries_enabled": False,
    "force_3ds_challenge": False,
    "is_pre_network_tokenization_enabled": False,
}


def profile_json(profile: Profile) -> JsonObject:
    return {
        "merchant_id": profile.merchant_id,
        "profile_id": profile.profile_id,
        "profile_name": profile.profile_name,
        "return_url": profile.return_url,
        "webhook_details": {"webhook_url": profile.webhook_url},
        "payment_response_hash_key": profile.payment_response_hash_key,
        "session_expiry": profile.session_expiry,
        **PROFILE_CONSTANT_SETTINGS,
    }


def refund_json(refund: Refund) -> JsonObject:
    return {
        "refund_id": refund.refund_id,
        "payment_id": refund.payment_id,
        "merchant_id": refund.merchant_id,
        "profile_id": refund.profile_id,
        "amount": refund.amount,
        "currency": refund.currency,
        "status": refund.status.value,
        "reason": refund.reason,
        "refund_type": refund.refund_type,
        "metadata": refund.metadata,
        "split_refunds": refund.split_refunds,
        "connector": refund.connector,
        "error_code": refund.error_code,
        "error_message": refund.error_message,
        "created_at": format_timestamp(refund.created),
        "updated_at": format_timestamp(refund.updated_at),
    }


def list_json(items: list[JsonObject], total_count: int) -> JsonObject:
    """The list envelope of the payments-style lists: count, total_count, data."""
    return {"count": len(items), "total_count": total_count, "data": items}


def payout_json(payout: Payout) -> JsonObject:
    return {
        "payout_id": payout.payout_id,
        "merchant_id": payout.merchant_id,
        "profile_id": payout.profile_id,
        "amount": payout.amount,
        "currency": payout.currency,
        "payout_type": payout.payout_type,
        "payout_method_data": payout.payout_method_data,
        "customer_id": payout.customer_id,
        "description": payout.description,
        "metadata": payout.metadata,
        "auto_fulfill": payout.auto_fulfill,
        "status": payout.status.value,
        "error_code": payout.error_code,
        "error_message": payout.error_message,
        "created": format_timestamp(payout.created),
        "updated_at": format_timestamp(payout.updated_at),
        "client_secret": payout.client_secret,
        "connector": payout.connector,
        "merchant_order_reference_id": payout.merchant_order_reference_id,
        "billing": payout.billing,
        "customer": payout.customer,
        "return_url": payout.return_url,
        "business_country": payout.business_country,
        "business_label": payout.business_label,
        "entity_type": payout.entity_type,
        "recurring": payout.recurring,
        "priority": payout.priority,
        "email": payout.email,
        "name": payout.name,
        "phone": payout.phone,
        "phone_country_code": payout.phone_country_code,
        "payout_method_id": payout.payout_method_id,
    }


# A dispute's status as a processor reports it, in the words card processors commonly use.
CONNECTOR_DISPUTE_STATUS = {
    DisputeStatus.OPENED: "needs_response",
    DisputeStatus.CHALLENGED: "under_review",
    DisputeStatus.ACCEPTED: "lost",
    DisputeStatus.WON: "won",
    DisputeStatus.LOST: "lost",
    DisputeStatus.EXPIRED: "lost",
    DisputeStatus.CANCELLED: "warning_closed",
}


def dispute_json(dispute: Dispute) -> JsonObject:
    return {
        "dispute_id": dispute.dispute_id,
        "payment_id": dispute.payment_id,
        "merchant_id": dispute.merchant_id,
        "profile_id": dispute.profile_id,
        "amount": str(dispute.amount),  # minor units, as text: the real service answers a string
        "currency": dispute.currency,
        "dispute_stage": "dispute",
        "dispute_status": dispute.status.value,
        "attempt_id": dispute.attempt_id,
        "connector": dispute.connector,
        "connector_status": CONNECTOR_DISPUTE_STATUS[dispute.status],
        "connector_dispute_id": f"{dispute.connector}_{dispute.dispute_id}",
        "connector_created_at": format_timestamp(dispute.created),
        "connector_updated_at": format_timestamp(dispute.updated_at),
        "connector_reason": dispute.reason,
        "challenge_required_by": format_timestamp(dispute.challenge_required_by),
        "evidence_submitted_at": timestamp(dispute.evidence_submitted_at),
        "created_at": format_timestamp(dispute.created),
        "modified_at": format_timestamp(dispute.updated_at),
    }


def evidence_json(dispute: Dispute) -> JsonObject:
    return {
        "dispute_id": dispute.dispute_id,
        "dispute_status": dispute.status.value,
        "evidence": dispute.evidence or {},
        "evidence_submitted_at": timestamp(dispute.evidence_submitted_at),
    }


# -- the browser SDK's sessions -----------------------------------------------------------------


def session_tokens_json(payment: Payment) -> JsonObject:
    """The answer to a session-token request: no wallet is configured, so no token."""
    return {"payment_id": payment.payment_id, "client_secret": payment.client_secret, "session_token": []}


def ephemeral_key_json(key: EphemeralKey) -> JsonObject:
    """An ephemeral key; its times in ISO 8601, as every time the server writes (decisions section 8)."""
    return {
        "id": key.id,
        "merchant_id": key.merchant_id,
        "customer_id": key.customer_id,
        "created_at": timestamp(key.created),
        "expires": timestamp(key.expires),
        "secret": key.secret,
    }


# -- the real service's event routes ------------------------------------------------------------

# The real service's event class of each content type.
EVENT_CLASS_OF_CONTENT = {
    "payment_details": "payments",
    "refund_details": "refunds",
    "dispute_details": "disputes",
    "payout_details": "payouts",
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
