"""How records look in JSON: one representation per resource, shared by the API and the webhooks."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mocksrv.domain.clock import ClockState, format_timestamp
from mocksrv.domain.merchants import MerchantCredentials
from mocksrv.domain.models import Customer, Payment
from mocksrv.domain.payment_states import PaymentStatus
from mocksrv.domain.store import Timer

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


def payment_json(payment: Payment, base_url: str) -> JsonObject:
    return {
        "payment_id": payment.payment_id,
        "merchant_id": payment.merchant_id,
        "profile_id": payment.profile_id,
        "status": payment.status.value,
        "amount": payment.amount,
        "amount_received": payment.amount_received,
        "amount_capturable": payment.amount_capturable,
        "currency": payment.currency,
        "capture_method": payment.capture_method.value,
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
    }


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
