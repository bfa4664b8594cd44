"""How a payment link looks: the real service's fields, and every field of the spec's create."""

from __future__ import annotations

from mocksrv.domain.links.records import PaymentLink
from mocksrv.domain.models import Payment
from mocksrv.representations.common import JsonObject, timestamp


def payment_link_path(merchant_id: str, payment_link_id: str) -> str:
    """The path of a link's hosted page."""
    return f"/payment_link/{merchant_id}/{payment_link_id}"


def payment_link_url(merchant_id: str, payment_link_id: str, base_url: str) -> str:
    return f"{base_url.rstrip('/')}{payment_link_path(merchant_id, payment_link_id)}"


def payment_link_ref(merchant_id: str, payment_link_id: str, base_url: str) -> JsonObject:
    """What a payment shows of its link, as the real service's payment answer does."""
    return {
        "link": payment_link_url(merchant_id, payment_link_id, base_url),
        "secure_link": None,  # the sandbox has no page that lists saved methods behind a domain check
        "payment_link_id": payment_link_id,
    }


def payment_link_json(link: PaymentLink, payment: Payment, base_url: str) -> JsonObject:
    """The link, with what its payment will charge as the payment stands (the merchant may have
    updated it since), as its page shows it."""
    url = payment_link_url(link.merchant_id, link.payment_link_id, base_url)
    return {
        **payment_link_ref(link.merchant_id, link.payment_link_id, base_url),
        "link_to_pay": url,
        "merchant_id": link.merchant_id,
        "profile_id": link.profile_id,
        "payment_id": link.payment_id,
        "status": link.status.value,
        "amount": payment.amount,
        "currency": payment.currency,
        "description": payment.description,
        "link_type": link.link_type.value,
        "expiry": timestamp(link.expiry),
        "created_at": timestamp(link.created),
        "updated_at": timestamp(link.updated_at),
        "customer_id": link.customer_id,
        "email": link.email,
        "send_email": link.send_email,
        "capture_method": link.capture_method,
        "authentication_type": link.authentication_type,
        "require_customer_info": link.require_customer_info,
        "payment_link_config": link.config,
        "return_url": link.return_url,
        "metadata": payment.metadata,
    }
