"""Method data as the real service answers it: a summary, not the request sent back; a payment's,
and a payout's.

A payment keeps its method data as sent, card and account numbers cut to their last four and CVCs
left out. Its answer shows what the real service's response types hold for each kind: an Apple Pay,
Google Pay or Samsung Pay wallet as the card behind it (last four, network, type), a bank debit as
its account (last four) and holder, a bank redirect as its bank and the few details the real
service shows, a bank transfer by its kind alone. Kinds whose answer type is the request type
(vouchers, card redirects, real-time payments, open banking, mobile payments) and shapes that
are not the real service's are shown as kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mocksrv.representations.common import JsonObject

_Summary = Callable[[Mapping[str, Any]], JsonObject]


def method_data_json(data: Mapping[str, Any] | None) -> JsonObject | None:
    """The answer's `payment_method_data` for the method data a payment keeps."""
    if data is None:
        return None
    return {kind: _answered(kind, details) for kind, details in data.items()}


def _answered(kind: str, details: Any) -> Any:
    flat = _FLAT.get(kind)
    if flat is not None and isinstance(details, Mapping):
        return flat(details)
    return _answered_in(_FAMILIES.get(kind), details)


def _last4(value: Any) -> str | None:
    """The last four digits of a number as kept (`****1234`) or sent."""
    return value[-4:] if isinstance(value, str) and len(value) >= 4 else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _picked(sent: Mapping[str, Any], *names: str) -> JsonObject:
    return {name: sent.get(name) for name in names}


def _empty(name: str) -> _Summary:
    return lambda sent: {name: {}}


# -- wallets: the card behind an Apple Pay, Google Pay or Samsung Pay token ---------------------


def _wallet_card(last4: Any, network: Any, card_type: Any, month: Any = None, year: Any = None) -> JsonObject:
    if _text(last4) is None or _text(network) is None:
        return {}  # not enough sent to say which card: no details, as for a redirect wallet
    return {
        "last4": last4,
        "card_network": network,
        "type": _text(card_type),
        "card_exp_month": _text(month),
        "card_exp_year": _text(year),
    }


def _apple_pay(sent: Mapping[str, Any]) -> JsonObject:
    method = sent.get("payment_method")
    method = method if isinstance(method, Mapping) else {}
    # Apple Pay names the card as "Visa 0224": its last four end the display name.
    name = _text(method.get("display_name")) or ""
    last4 = name[-4:] if len(name) >= 4 and name[-4:].isdigit() else None
    card = _wallet_card(
        last4,
        method.get("network"),
        method.get("type"),
        method.get("card_exp_month"),
        method.get("card_exp_year"),
    )
    return {"apple_pay": card} if card else {}


def _google_pay(sent: Mapping[str, Any]) -> JsonObject:
    info = sent.get("info")
    info = info if isinstance(info, Mapping) else {}
    card = _wallet_card(info.get("card_details"), info.get("card_network"), sent.get("type"))
    return {"google_pay": card} if card else {}


def _samsung_pay(sent: Mapping[str, Any]) -> JsonObject:
    credential = sent.get("payment_credential")
    credential = credential if isinstance(credential, Mapping) else {}
    # The web credential says card_last4digits and card_brand; the app's, payment_last4_fpan and
    # payment_card_brand.
    last4 = credential.get("card_last4digits", credential.get("payment_last4_fpan"))
    network = credential.get("card_brand", credential.get("payment_card_brand"))
    card = _wallet_card(last4, network, None)
    return {"samsung_pay": card} if card else {}


# The real service's wallets; those not paid with a card token show no details.
_REDIRECT_WALLETS = (
    "ali_pay_hk_redirect",
    "ali_pay_qr",
    "ali_pay_redirect",
    "amazon_pay",
    "amazon_pay_redirect",
    "apple_pay_redirect",
    "apple_pay_third_party_sdk",
    "bluecode_redirect",
    "cashapp_qr",
    "dana_redirect",
    "gcash_redirect",
    "go_pay_redirect",
    "google_pay_redirect",
    "google_pay_third_party_sdk",
    "kakao_pay_redirect",
    "mb_way_redirect",
    "mifinity",
    "mobile_pay_redirect",
    "momo_redirect",
    "paypal_redirect",
    "paypal_sdk",
    "paysera",
    "paze",
    "revolut_pay",
    "skrill",
    "swish_qr",
    "touch_n_go_redirect",
    "twint_redirect",
    "vipps_redirect",
    "we_chat_pay_qr",
    "we_chat_pay_redirect",
)
_WALLETS: dict[str, _Summary] = {
    "apple_pay": _apple_pay,
    "google_pay": _google_pay,
    "samsung_pay": _samsung_pay,
    **{name: (lambda sent: {}) for name in _REDIRECT_WALLETS},
}

# -- bank debits: the account, by the kind's answer name ----------------------------------------

_HOLDER = "bank_account_holder_name"
_BANK_DEBITS: dict[str, _Summary] = {
    "ach_bank_debit": lambda sent: {
        "ach": _picked(
            sent,
            "account_number",
            "routing_number",
            "card_holder_name",
            _HOLDER,
            "bank_name",
            "bank_type",
            "bank_holder_type",
        )
    },
    "bacs_bank_debit": lambda sent: {"bacs": _picked(sent, "account_number", "sort_code", _HOLDER)},
    "becs_bank_debit": lambda sent: {"becs": _picked(sent, "account_number", "bsb_number", _HOLDER)},
    "sepa_bank_debit": lambda sent: {"sepa": _picked(sent, "iban", _HOLDER)},
    "sepa_guarenteed_bank_debit": lambda sent: {"sepa_guarenteed_debit": _picked(sent, "iban", _HOLDER)},
}

# -- bank redirects: the bank, and a Bancontact card, BLIK code or Giropay account ---------------


def _bank_redirect(details: Callable[[Mapping[str, Any]], JsonObject] | None = None) -> _Summary:
    def summary(sent: Mapping[str, Any]) -> JsonObject:
        bank = sent.get("bank_name", sent.get("issuer"))
        return {"bank_name": _text(bank), **(details(sent) if details else {})}

    return summary


_BANK_REDIRECTS: dict[str, _Summary] = {
    "bancontact_card": _bank_redirect(
        lambda sent: {
            "BancontactCard": {
                "last4": _last4(sent.get("card_number")),
                **_picked(sent, "card_exp_month", "card_exp_year", "card_holder_name"),
            }
        }
    ),
    "blik": _bank_redirect(lambda sent: {"Blik": _picked(sent, "blik_code")}),
    "giropay": _bank_redirect(
        lambda sent: {
            "Giropay": {
                "bic": sent.get("bank_account_bic"),
                "iban": sent.get("bank_account_iban"),
                "country": sent.get("country"),
            }
        }
    ),
    **{
        name: _bank_redirect()
        for name in (
            "bizum",
            "eps",
            "ideal",
            "interac",
            "online_banking_czech_republic",
            "online_banking_finland",
            "online_banking_poland",
            "online_banking_slovakia",
            "open_banking_uk",
            "przelewy24",
            "sofort",
            "trustly",
            "online_banking_fpx",
            "online_banking_thailand",
            "local_bank_redirect",
            "eft",
            "open_banking",
        )
    },
}

# -- bank transfers: the kind alone, and a Pix transfer's keys ----------------------------------

_BANK_TRANSFERS: dict[str, _Summary] = {
    **{
        f"{name}_bank_transfer": _empty(name)
        for name in (
            "ach",
            "sepa",
            "bacs",
            "multibanco",
            "permata",
            "bca",
            "bni_va",
            "bri_va",
            "cimb_va",
            "danamon_va",
            "mandiri_va",
        )
    },
    **{
        name: _empty(name)
        for name in (
            "pse",
            "instant_bank_transfer",
            "instant_bank_transfer_finland",
            "instant_bank_transfer_poland",
        )
    },
    "pix": lambda sent: {
        "pix": _picked(
            sent,
            "pix_key",
            "cpf",
            "cnpj",
            "source_bank_account_id",
            "destination_bank_account_id",
            "expiry_date",
        )
    },
    "local_bank_transfer": lambda sent: {"local_bank_transfer": _picked(sent, "bank_code")},
    "indonesian_bank_transfer": lambda sent: {"indonesian_bank_transfer": _picked(sent, "bank_name")},
}

# -- the rest: pay later, UPI, gift cards, crypto, network tokens -------------------------------

_PAY_LATER = (
    "klarna_redirect",
    "affirm_redirect",
    "afterpay_clearpay_redirect",
    "pay_bright_redirect",
    "flexiti_redirect",
    "walley_redirect",
    "alma_redirect",
    "atome_redirect",
    "breadpay_redirect",
    "payjustnow_redirect",
)
_FAMILIES: dict[str, dict[str, _Summary]] = {
    "wallet": _WALLETS,
    "bank_debit": _BANK_DEBITS,
    "bank_redirect": _BANK_REDIRECTS,
    "bank_transfer": _BANK_TRANSFERS,
    "pay_later": {
        "klarna_sdk": lambda sent: {"klarna_sdk": {"payment_type": None}},
        **{name: (lambda sent: {"klarna_sdk": None}) for name in _PAY_LATER},
    },
    "upi": {
        "upi_collect": lambda sent: {"upi_collect": _picked(sent, "vpa_id")},
        "upi_intent": _empty("upi_intent"),
        "upi_qr": _empty("upi_qr"),
    },
    "gift_card": {
        "givex": lambda sent: {"givex": {"last4": _last4(sent.get("number"))}},
        "pay_safe_card": _empty("pay_safe_card"),
        "bhn_card_network": _empty("bhn_card_network"),
    },
}


def _network_token(sent: Mapping[str, Any]) -> JsonObject:
    return {
        "last4": _last4(sent.get("network_token")),
        **_picked(sent, "card_type", "card_network"),
        "token_isin": None,  # not kept: only the token's last four are
        **_picked(sent, "card_issuer", "card_issuing_country", "token_exp_month", "token_exp_year"),
        "card_holder_name": sent.get("card_holder_name"),
    }


# The kinds whose details are the fields themselves, not one of several kinds.
_FLAT: dict[str, _Summary] = {
    "crypto": lambda sent: _picked(sent, "pay_currency", "network"),
    "network_token": _network_token,
}


# -- payouts ----------------------------------------------------------------------------------------

# A payout's wallet or bank redirect is answered without the kind's name, as its details alone.
_PAYOUT_UNTAGGED: dict[str, dict[str, _Summary]] = {
    "wallet": {
        "paypal": lambda sent: _picked(sent, "email", "telephone_number", "paypal_id"),
        "venmo": lambda sent: _picked(sent, "telephone_number"),
        "apple_pay_decrypt": lambda sent: {
            "card_exp_month": sent.get("expiry_month"),
            "card_exp_year": sent.get("expiry_year"),
            "card_holder_name": sent.get("card_holder_name"),
        },
    },
    "bank_redirect": {"interac": lambda sent: _picked(sent, "email")},
}


def payout_method_json(data: Mapping[str, Any] | None) -> JsonObject | None:
    """The payout method as the real service answers it: a card as kept, also under the real names
    (`last4`, `card_exp_month`, `card_exp_year`) beside the ones it was sent with; a wallet or bank
    redirect as its details alone, without the kind's name; a bank account as kept."""
    if data is None:
        return None
    shown: JsonObject = {}
    for kind, details in data.items():
        if kind == "card" and isinstance(details, Mapping):
            shown[kind] = {
                **details,
                "last4": str(details.get("card_number", ""))[-4:],
                "card_exp_month": details.get("expiry_month"),
                "card_exp_year": details.get("expiry_year"),
            }
        else:
            shown[kind] = _answered_in(_PAYOUT_UNTAGGED.get(kind), details)
    return shown


def _answered_in(families: Mapping[str, _Summary] | None, details: Any) -> Any:
    """`details` (`{kind: sent}`) summed up by the summary of its one kind, if `families` has one;
    else as kept."""
    if families is None or not isinstance(details, Mapping) or len(details) != 1:
        return details
    ((name, sent),) = details.items()
    summary = families.get(name)
    if summary is None:
        return details
    return summary(sent if isinstance(sent, Mapping) else {})
