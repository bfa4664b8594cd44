"""How payments look in JSON: the payment, its attempt and captures, its summary, its sessions."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from mocksrv.domain.disputes import Dispute
from mocksrv.domain.ephemeral_keys import EphemeralKey
from mocksrv.domain.models import Customer, Payment
from mocksrv.domain.payments.fields import makes_split_rule
from mocksrv.domain.payments.states import ATTEMPT_STATUS, PaymentStatus
from mocksrv.domain.refunds import Refund
from mocksrv.domain.sandbox import Sandbox
from mocksrv.representations.common import JsonObject, timestamp
from mocksrv.representations.links import payment_link_ref
from mocksrv.representations.method_data import method_data_json
from mocksrv.representations.records import customer_details, dispute_json, refund_json


def challenge_path(merchant_id: str, payment_id: str) -> str:
    """The path of the 3D Secure challenge page of a payment."""
    return f"/web/3ds/{merchant_id}/{payment_id}"


# The method types whose customer scans a QR code with a phone, as the real service shows them.
QR_METHOD_TYPES = frozenset({"we_chat_pay", "ali_pay"})


def next_action(payment: Payment, base_url: str) -> JsonObject | None:
    """Where the customer goes: the hosted authorization page, as a link or a QR code of it."""
    if payment.status is not PaymentStatus.REQUIRES_CUSTOMER_ACTION:
        return None
    if payment.payment_method == "bank_transfer":
        return {
            "type": "display_bank_transfer_information",
            "bank_transfer_steps_and_charges_details": transfer_instructions(payment),
        }
    path = challenge_path(payment.merchant_id, payment.payment_id)
    url = f"{base_url.rstrip('/')}{path}?client_secret={payment.client_secret}"
    if payment.payment_method_type in QR_METHOD_TYPES:
        # Imported when first needed: segno takes about 60 ms to import, a tenth of a server's start.
        import segno

        return {
            "type": "qr_code_information",
            "image_data_url": segno.make(url, error="m").svg_data_uri(),
            "display_to_timestamp": None,
            "qr_code_url": url,
            "display_text": None,
            "border_color": None,
        }
    return {"type": "redirect_to_url", "redirect_to_url": url}


# Where a customer sends a bank transfer, by method type, as the real service's instructions say it:
# the sandbox's own test accounts, the payment's id as the reference.
_RECEIVING_BANK = "mocksrv test bank"
_HOLDER = "mocksrv sandbox"


def transfer_instructions(payment: Payment) -> JsonObject:
    reference = payment.payment_id
    if payment.payment_method_type == "ach":
        instructions: JsonObject = {
            "ach_credit_transfer": {
                "account_number": "000123456789",
                "bank_name": _RECEIVING_BANK,
                "routing_number": "110000000",
                "swift_code": "MOCKUS00",
            }
        }
    elif payment.payment_method_type == "bacs":
        instructions = {
            "bacs_bank_instructions": {
                "account_holder_name": _HOLDER,
                "account_number": "00012345",
                "sort_code": "108800",
            }
        }
    elif payment.payment_method_type == "multibanco":
        instructions = {"multibanco": {"reference": reference, "entity": "12345"}}
    else:  # SEPA, and any other type: an account in euros
        instructions = {
            "sepa_bank_instructions": {
                "account_holder_name": _HOLDER,
                "bic": "MOCKDEFFXXX",
                "country": "DE",
                "iban": "DE89370400440532013000",
                "reference": reference,
            }
        }
    receiver = {"amount_received": 0, "amount_charged": None, "amount_remaining": payment.amount}
    return {**instructions, "receiver": receiver}


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
        "payment_method_data": method_data_json(payment.payment_method_data),
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
        "order_details": order_lines_json(payment.order_details),
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
        "mandate_id": payment.mandate_id,
        "payment_method_id": payment.payment_method_id,
        "payment_link": None
        if payment.payment_link_id is None
        else payment_link_ref(payment.merchant_id, payment.payment_link_id, base_url),
        **_echoed(payment),
        "customer": None if customer is None else customer_details(customer),
    }


def _echoed(payment: Payment) -> JsonObject:
    """The real service's fields kept as sent; a Xendit split among accounts names the split rule
    made for it, as the real answer's split does."""
    echoed = payment.echoed or {}
    if not makes_split_rule(echoed):
        return echoed
    rule = {
        "split_rule_id": payment.split_rule_id,
        **echoed["split_payments"]["xendit_split_payment"]["multiple_splits"],
    }
    return {**echoed, "split_payments": {"xendit_split_payment": {"multiple_splits": rule}}}


def order_lines_json(lines: list[JsonObject] | None) -> list[JsonObject] | None:
    """Each line under both its names, whichever it was sent with: the spec's `name` and the real
    service's `product_name`, which the real answers require."""
    if lines is None:
        return None
    named = []
    for line in lines:
        name = line.get("name", line.get("product_name"))
        named.append({"name": name, "product_name": name, **line})
    return named


def net_amount(payment: Payment) -> int:
    """The amount with the shipping cost, order tax and surcharge sent with it, as the real service sums."""
    echoed = payment.echoed or {}
    surcharge = echoed.get("surcharge_details") or {}
    extras = (echoed.get("shipping_cost"), echoed.get("order_tax_amount"), surcharge.get("surcharge_amount"))
    return payment.amount + sum(extra or 0 for extra in extras) + (surcharge.get("tax_amount") or 0)


def payment_view(
    payment: Payment, base_url: str, sandbox: Sandbox, as_of: datetime | None = None
) -> JsonObject:
    """A payment as the API shows it: with its disputes, refunds and customer, as the real service does.

    `as_of`, for the body of an event first sent after it happened: only the disputes and refunds
    made by then (they are shown as they stand, as is the customer: earlier states are not kept).
    """
    merchant_id, payment_id = payment.merchant_id, payment.payment_id
    disputes = sandbox.disputes.of_payment(merchant_id, payment_id)
    refunds = sandbox.refunds.of_payment(merchant_id, payment_id)
    if as_of is not None:
        disputes = [dispute for dispute in disputes if dispute.created <= as_of]
        refunds = tuple(refund for refund in refunds if refund.created <= as_of)
    customer = (
        None if payment.customer_id is None else sandbox.customers.find(merchant_id, payment.customer_id)
    )
    return payment_json(payment, base_url, disputes, refunds, customer)


def payment_attempts_json(payment: Payment) -> list[JsonObject]:
    """The payment's attempts at the processor, oldest first: a payment is confirmed at most once,
    so there is one once it is confirmed, with the payment's own state."""
    if payment.attempt_count == 0:
        return []
    status = ATTEMPT_STATUS.get(payment.status, "started")
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
