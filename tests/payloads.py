"""Request bodies the tests send, built from one valid example each."""

from __future__ import annotations

import copy
from typing import Any

SECRET_KEY = "snd_default_secret_key"
PUBLISHABLE_KEY = "pk_snd_default_publishable_key"
ADMIN_KEY = "mocksrv_admin_key"
MERCHANT_ID = "merchant_default"
PROFILE_ID = "pro_default"
SIGNING_KEY = "whsec_default_signing_key"

BILLING: dict[str, Any] = {
    "address": {
        "line1": "1 Market Street",
        "city": "San Francisco",
        "state": "CA",
        "zip": "94105",
        "country": "US",
        "first_name": "Ada",
        "last_name": "Lovelace",
    },
    "phone": {"number": "4155550100", "country_code": "+1"},
}


def card(number: str = "4242424242424242", **overrides: str) -> dict[str, Any]:
    return {
        "card": {
            "card_number": number,
            "card_exp_month": "12",
            "card_exp_year": "2099",
            "card_cvc": "123",
            **overrides,
        }
    }


def payment(number: str | None = "4242424242424242", **overrides: Any) -> dict[str, Any]:
    """A create body: one-step card payment by default; `number=None` leaves the method out."""
    body: dict[str, Any] = {
        "amount": 1000,
        "currency": "USD",
        "profile_id": PROFILE_ID,
        "confirm": True,
        "capture_method": "automatic",
        "return_url": "https://shop.example/return",
    }
    if number is not None:
        body.update(
            payment_method="card",
            payment_method_type="credit",
            payment_method_data=card(number),
            billing=copy.deepcopy(BILLING),
        )
    else:
        body["confirm"] = False
    body.update(overrides)
    return body


def confirmation(number: str = "4242424242424242", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "payment_method": "card",
        "payment_method_type": "credit",
        "payment_method_data": card(number),
        "billing": copy.deepcopy(BILLING),
    }
    body.update(overrides)
    return body


# A one-step payout to a bank account: the smallest valid create body.
PAYOUT: dict[str, Any] = {
    "amount": 1000,
    "currency": "USD",
    "payout_type": "bank",
    "payout_method_data": {
        "bank": {"bank_account_number": "123456789012", "bank_routing_number": "110000000"}
    },
}
