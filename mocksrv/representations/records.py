"""How customers, profiles, refunds, payouts, disputes and the control plane's records look in JSON."""

from __future__ import annotations

from datetime import datetime

from mocksrv.domain.clock import ClockState, format_timestamp
from mocksrv.domain.disputes import MODELLED_STAGE, Dispute, DisputeStatus
from mocksrv.domain.merchants import MerchantCredentials
from mocksrv.domain.models import ApiKey, Customer, Profile
from mocksrv.domain.payouts import Payout
from mocksrv.domain.refunds import Refund
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.store import Timer
from mocksrv.domain.webhooks.triggers import (
    PAYMENT_STATUSES_REPORTED,
    PAYOUT_STATUSES_REPORTED,
    REFUND_STATUSES_REPORTED,
)
from mocksrv.representations.common import JsonObject, timestamp
from mocksrv.representations.method_data import payout_method_json


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
        "default_payment_method_id": customer.default_payment_method_id,
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
        "legacy_client_id": credentials.merchant.legacy_client_id,
        "legacy_client_secret": credentials.legacy_client_secret,
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
        "webhook_details": webhook_details_json(profile),
        "payment_response_hash_key": profile.payment_response_hash_key,
        "session_expiry": profile.session_expiry,
        **PROFILE_CONSTANT_SETTINGS,
    }


def webhook_details_json(profile: Profile) -> JsonObject:
    """A profile's webhook settings as the real answer shows them; a status list never set shows the
    statuses whose events mocksrv sends."""
    settings = profile.webhook_settings
    return {
        "webhook_version": settings.webhook_version,
        "webhook_username": settings.webhook_username,
        "webhook_password": settings.webhook_password,
        "webhook_url": profile.webhook_url,
        "payment_created_enabled": settings.payment_created_enabled,
        "payment_succeeded_enabled": settings.payment_succeeded_enabled,
        "payment_failed_enabled": settings.payment_failed_enabled,
        "payment_statuses_enabled": _or_reported(
            settings.payment_statuses_enabled, PAYMENT_STATUSES_REPORTED
        ),
        "refund_statuses_enabled": _or_reported(settings.refund_statuses_enabled, REFUND_STATUSES_REPORTED),
        "payout_statuses_enabled": _or_reported(settings.payout_statuses_enabled, PAYOUT_STATUSES_REPORTED),
    }


def _or_reported(sent: tuple[str, ...] | None, reported: tuple[str, ...]) -> list[str]:
    """A status list as it was sent (an empty one too), else the statuses whose events are sent."""
    return list(reported if sent is None else sent)


def api_key_json(key: ApiKey) -> JsonObject:
    """A key as it is retrieved and listed: its prefix, never the key."""
    return {
        "key_id": key.key_id,
        "merchant_id": key.merchant_id,
        # A record stored before keys had names has none; an empty name is shown as it was given.
        "name": key.kind.value if key.name is None else key.name,
        "description": key.description,
        "prefix": key.prefix,
        "created": format_timestamp(key.created),
        "expiration": "never" if key.expiration is None else format_timestamp(key.expiration),
    }


def created_api_key_json(key: ApiKey, plaintext: str) -> JsonObject:
    """A key as its creation answers it, the one time its plaintext is shown."""
    shown = api_key_json(key)
    del shown["prefix"]
    return {**shown, "api_key": plaintext}


def revoked_api_key_json(key: ApiKey) -> JsonObject:
    return {"merchant_id": key.merchant_id, "key_id": key.key_id, "revoked": True}


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


def customer_details(customer: Customer) -> JsonObject:
    """The customer a payment or payout names, as it shows them: their details as they stand."""
    return {
        "id": customer.customer_id,
        "name": customer.name,
        "email": customer.email,
        "phone": customer.phone,
        "phone_country_code": customer.phone_country_code,
    }


def payout_view(payout: Payout, sandbox: Sandbox) -> JsonObject:
    """A payout as the API shows it, with the details of the customer it names."""
    customer_id = payout.customer_id
    customer = None if customer_id is None else sandbox.customers.find(payout.merchant_id, customer_id)
    return payout_json(payout, customer)


def payout_json(payout: Payout, customer: Customer | None) -> JsonObject:
    return {
        "payout_id": payout.payout_id,
        "merchant_id": payout.merchant_id,
        "profile_id": payout.profile_id,
        "amount": payout.amount,
        "currency": payout.currency,
        "payout_type": payout.payout_type,
        "payout_method_data": payout_method_json(payout.payout_method_data),
        "customer_id": payout.customer_id,
        "description": payout.description,
        "metadata": payout.metadata,
        "auto_fulfill": payout.auto_fulfill,
        "status": payout.status.value,
        "error_code": payout.error_code,
        "error_message": payout.error_message,
        "created": format_timestamp(payout.created),
        "client_secret": payout.client_secret,
        "connector": payout.connector,
        "merchant_order_reference_id": payout.merchant_order_reference_id,
        "billing": payout.billing,
        "customer": None if customer is None else customer_details(customer),
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
        "dispute_stage": MODELLED_STAGE,
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
