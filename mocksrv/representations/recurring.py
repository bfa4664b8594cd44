"""How saved payment methods and mandates look in JSON, and the methods a checkout page may offer."""

from __future__ import annotations

from collections.abc import Sequence

from mocksrv.domain.models import JsonObject as Record
from mocksrv.domain.models import Payment, Profile
from mocksrv.domain.recurring.records import Mandate, SavedPaymentMethod
from mocksrv.representations.common import JsonObject, timestamp

# The methods and method types a checkout page may offer for a payment, in the order it lists them:
# those mocksrv decides the outcome of (the magic values), by their real names.
ENABLED_METHODS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("card", ("credit", "debit")),
    ("pay_later", ("klarna", "affirm", "afterpay_clearpay")),
    ("bank_redirect", ("ideal", "eps", "giropay", "sofort", "przelewy24")),
    ("wallet", ("apple_pay", "google_pay", "paypal")),
    ("bank_transfer", ("ach", "sepa", "bacs")),
    ("crypto", ("crypto_currency",)),
)
CARD_NETWORKS = ("Visa", "Mastercard", "AmericanExpress", "Discover", "JCB", "DinersClub", "UnionPay")


def _locker_card(card: Record) -> JsonObject:
    """A saved card as the real service's card locker shows it: never its number or CVC."""
    return {
        "scheme": card.get("brand"),
        "issuer_country": card.get("card_issuing_country"),
        "issuer_country_code": card.get("card_issuing_country"),
        "last4_digits": card.get("last4"),
        "expiry_month": card.get("exp_month"),
        "expiry_year": card.get("exp_year"),
        "card_token": None,
        "card_holder_name": card.get("card_holder_name"),
        "card_fingerprint": None,
        "nick_name": card.get("nick_name"),
        "card_network": card.get("card_network"),
        "card_isin": card.get("card_isin"),
        "card_issuer": card.get("card_issuer"),
        "card_type": card.get("card_type"),
        "saved_to_locker": True,
    }


def _card_of(method: SavedPaymentMethod) -> JsonObject | None:
    return None if method.card is None else _locker_card({**method.card, "nick_name": method.nick_name})


def payment_method_json(method: SavedPaymentMethod) -> JsonObject:
    details = method.details or {}
    return {
        "merchant_id": method.merchant_id,
        "customer_id": method.customer_id,
        "payment_method_id": method.payment_method_id,
        "payment_method": method.payment_method,
        "payment_method_type": method.payment_method_type,
        "card": _card_of(method),
        "recurring_enabled": method.off_session,
        "installment_payment_enabled": False,
        "payment_experience": None,
        "metadata": method.metadata,
        "created": timestamp(method.created),
        "bank_transfer": details.get("bank_transfer"),
        "last_used_at": timestamp(method.last_used_at),
        "client_secret": method.client_secret,
    }


def customer_payment_method_json(method: SavedPaymentMethod, default_id: str | None) -> JsonObject:
    """A saved method as a customer's list shows it, with the token a payment pays with."""
    details = method.details or {}
    return {
        "payment_token": method.payment_token,
        "payment_method_id": method.payment_method_id,
        "customer_id": method.customer_id,
        "payment_method": method.payment_method,
        "payment_method_type": method.payment_method_type,
        "payment_method_issuer": method.payment_method_issuer,
        "payment_method_issuer_code": method.payment_method_issuer_code,
        "recurring_enabled": method.off_session,
        "installment_payment_enabled": False,
        "payment_experience": None,
        "card": _card_of(method),
        "metadata": method.metadata,
        "created": timestamp(method.created),
        "bank_transfer": details.get("bank_transfer"),
        "bank": None,
        "surcharge_details": None,
        # A checkout page asks for a saved card's CVC; mocksrv also charges it without one.
        "requires_cvv": method.card is not None,
        "last_used_at": timestamp(method.last_used_at),
        "default_payment_method_set": method.payment_method_id == default_id,
        "billing": method.billing,
    }


def customer_payment_methods_json(
    methods: Sequence[SavedPaymentMethod], default_id: str | None
) -> JsonObject:
    return {
        "customer_payment_methods": [customer_payment_method_json(m, default_id) for m in methods],
        "is_guest_customer": False,
    }


def mandate_json(mandate: Mandate) -> JsonObject:
    card = mandate.card
    return {
        "mandate_id": mandate.mandate_id,
        "status": mandate.status.value,
        "payment_method_id": mandate.payment_method_id,
        "payment_method": mandate.payment_method,
        "payment_method_type": mandate.payment_method_type,
        "card": None
        if card is None
        else {
            "last4_digits": card.get("last4"),
            "card_exp_month": card.get("exp_month"),
            "card_exp_year": card.get("exp_year"),
            "card_holder_name": card.get("card_holder_name"),
            "card_token": None,
            "scheme": card.get("brand"),
            "issuer_country": card.get("card_issuing_country"),
            "card_fingerprint": None,
            "card_isin": card.get("card_isin"),
            "card_issuer": card.get("card_issuer"),
            "card_network": card.get("card_network"),
            "card_type": card.get("card_type"),
            "nick_name": None,
        },
        "customer_acceptance": mandate.customer_acceptance,
    }


def mandate_revoked_json(mandate: Mandate) -> JsonObject:
    return {
        "mandate_id": mandate.mandate_id,
        "status": mandate.status.value,
        "error_code": None,
        "error_message": None,
    }


def payment_type(payment: Payment) -> str:
    """How the real service classes a payment: one that sets up a mandate (for 0 or not), charges
    one, or neither."""
    echoed = payment.echoed or {}
    if echoed.get("mandate_data") is not None or echoed.get("setup_future_usage") == "off_session":
        return "setup_mandate" if payment.amount == 0 else "new_mandate"
    if payment.mandate_id is not None or echoed.get("off_session"):
        return "recurring_mandate"
    return "normal"


def account_payment_methods_json(payment: Payment | None, profile: Profile) -> JsonObject:
    """The methods a checkout page may offer for the payment (`GET /account/payment_methods`).

    Without a payment (the secret key, no client secret): every method the merchant offers, the
    profile's return URL, and null for what only a payment has (its currency, mandate and type), as
    the real service answers; its document calls `currency` required, but its type is optional.
    """
    echoed = (payment.echoed if payment is not None else None) or {}
    allowed = set(echoed.get("allowed_payment_method_types") or ())
    enabled = []
    for method, types in ENABLED_METHODS:
        offered = [t for t in types if not allowed or t in allowed]
        if offered:
            enabled.append(
                {
                    "payment_method": method,
                    "payment_method_types": [_method_type_json(method, t) for t in offered],
                }
            )
    mandate_data = echoed.get("mandate_data") or {}
    return {
        "redirect_url": profile.return_url if payment is None else payment.return_url,
        "currency": None if payment is None else payment.currency,
        "payment_methods": enabled,
        "mandate_payment": mandate_data.get("mandate_type"),
        "merchant_name": profile.profile_name,
        "show_surcharge_breakup_screen": False,
        "payment_type": None if payment is None else payment_type(payment),
        "request_external_three_ds_authentication": False,
        "collect_shipping_details_from_wallets": False,
        "collect_billing_details_from_wallets": False,
        "is_tax_calculation_enabled": False,
        "sdk_next_action": {"next_action": "confirm"},
        "is_guest_customer": payment is not None and payment.customer_id is None,
    }


def _method_type_json(method: str, method_type: str) -> JsonObject:
    return {
        "payment_method_type": method_type,
        "payment_experience": None,
        "card_networks": [
            {"card_network": n, "surcharge_details": None, "eligible_connectors": ["mocksrv"]}
            for n in CARD_NETWORKS
        ]
        if method == "card"
        else None,
        "bank_names": None,
        "bank_debits": None,
        "bank_transfers": None,
        "required_fields": None,
        "surcharge_details": None,
        "pm_auth_connector": None,
    }
