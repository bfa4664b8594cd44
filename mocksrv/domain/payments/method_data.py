"""What a payment pays with: method data sent with it, a saved method, or a mandate.

Each is checked, cut to what may be kept (never a card number or CVC, an account number's last four
digits only), and matched to its outcome in the magic-value table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mocksrv.domain.errors import InvalidField
from mocksrv.domain.merchants import MerchantService
from mocksrv.domain.models import Payment
from mocksrv.domain.payments.bank import kept_details
from mocksrv.domain.payments.cards import (
    CARD_NAMES,
    NETWORK_TOKEN_NAMES,
    CardNames,
    card_key,
    card_summary,
    check_cvc,
    normalized_number,
)
from mocksrv.domain.payments.outcomes import CARD_CHECKS, Context, Outcome, OutcomeResult
from mocksrv.domain.recurring.records import (
    Mandate,
    MandateInvalid,
    MandateStatus,
    SavedPaymentMethod,
    status_refusal,
)

if TYPE_CHECKING:  # the services import the payments, which import this module
    from mocksrv.domain.recurring.mandates import MandateService
    from mocksrv.domain.recurring.payment_methods import PaymentMethodService

# A bare `payment_method_data` that says "charge the mandate", with nothing else in it.
MANDATE_PAYMENT = "mandate_payment"
# The outcome of a payment that asks the customer to authenticate when the customer is not there.
AUTHENTICATION_REQUIRED = Outcome(
    OutcomeResult.DECLINE,
    error_code="authentication_required",
    error_message="The card requires authentication, and the customer is not present.",
)
# recurring_details that name a mandate or a saved method, by its id ...
SAVED_TYPES = ("mandate_id", "payment_method_id")
# ... and those that carry what a merchant-initiated payment charges: a processor's token of a method
# mocksrv never saw (the outcome table decides by its text), or a card or network token, with the
# network's id of the customer-initiated payment it follows (the number's magic value decides).
PROCESSOR_TOKEN = "processor_payment_token"
CHARGED_CARDS: dict[str, CardNames] = {
    "network_transaction_id_and_card_details": CARD_NAMES,
    "network_transaction_id_and_network_token_details": NETWORK_TOKEN_NAMES,
}
# Method data that goes with a `payment_token`: the saved card's CVC, as a checkout page collects it.
CARD_TOKEN = "card_token"
# The fields that name a saved method or a mandate to pay with.
_SAVED_WAYS = ("recurring_details", "mandate_id", "payment_token")


@dataclass(frozen=True, slots=True)
class Paying:
    """How a payment is to pay: what its request said, with what the payment already holds."""

    merchant_id: str
    fields: Mapping[str, Any]  # the request's fields
    customer_id: str | None  # the payment's customer, as the request or the payment names it
    billing: Mapping[str, Any] | None
    context: Context
    saves: bool = False  # the payment saves its card: the key of the number is kept for it
    # Sent from the customer's browser (the publishable key and the client secret): it may pay with
    # the saved methods and mandates of the payment's own customer only, never take on another's.
    by_customer: bool = False


def sends_method(fields: Mapping[str, Any]) -> bool:
    """Whether the request names what to pay with: method data, a saved method or a mandate."""
    return any(fields.get(name) is not None for name in ("payment_method_data", *_SAVED_WAYS))


class MethodResolver:
    """Turns what a request pays with into the payment's method fields and outcome; the saved
    methods and mandates it reads through their services."""

    def __init__(
        self, merchants: MerchantService, payment_methods: PaymentMethodService, mandates: MandateService
    ) -> None:
        self._merchants = merchants
        self._payment_methods = payment_methods
        self._mandates = mandates

    def resolve(self, paying: Paying, now: datetime) -> dict[str, Any]:
        """The payment's fields for what the request pays with, its outcome among them."""
        fields = paying.fields
        _one_way(fields)
        details = fields.get("recurring_details")
        if details is not None and details["type"] not in SAVED_TYPES:
            return self._merchant_initiated(paying, details["type"], details["data"], now)
        recurring = _recurring(fields)
        if recurring is not None:
            return self._recurring(paying, *recurring)
        if fields.get("payment_token") is not None:
            return self._token(paying, fields["payment_token"])
        return self._sent(paying, now)

    def recheck(self, payment: Payment, now: datetime) -> Mandate | None:
        """At a confirmation, what the payment pays with, checked again as it now stands: an update
        may have changed its customer, and the saved method may have been deleted since. The mandate
        it charges must allow the charge (returned with the charge held against it, to store); the
        saved method must still be there, and still its customer's."""
        if payment.mandate_id is not None:
            return self._mandates.reserve(payment, now)
        if payment.payment_method_id is not None:
            saved = self._payment_methods.find(payment.merchant_id, payment.payment_method_id)
            if saved is None:
                raise InvalidField("payment_method_id", "the saved payment method has been deleted")
            if saved.customer_id is not None and saved.customer_id != payment.customer_id:
                raise InvalidField(
                    "customer_id",
                    "the saved payment method the payment pays with belongs to another customer",
                )
        return None

    def saved_card(self, payment: Payment) -> str | None:
        """The id of the method its customer saved before with the card a payment that saves it
        sends, if any: the card is saved again as that method, not as another."""
        if payment.payment_method_id is not None or payment.card_key is None or payment.customer_id is None:
            return None
        saved = self._payment_methods.with_card(payment.merchant_id, payment.customer_id, payment.card_key)
        return None if saved is None else saved.payment_method_id

    # -- the three ways to pay ----------------------------------------------------------------

    def _sent(self, paying: Paying, now: datetime) -> dict[str, Any]:
        fields = paying.fields
        data: dict[str, Any] = fields["payment_method_data"]
        kinds = [kind for kind in data if kind != "billing" and data[kind] is not None]
        if kinds == [MANDATE_PAYMENT]:
            raise InvalidField("payment_method_data", "mandate_payment charges a mandate: send mandate_id")
        if len(kinds) != 1:
            raise InvalidField(
                "payment_method_data",
                "exactly one kind of method data, such as card, wallet, bank_transfer or crypto",
            )
        kind = kinds[0]
        method = fields.get("payment_method") or kind
        if method != kind:
            raise InvalidField("payment_method_data", f"holds {kind} data for payment_method {method}")
        if kind == "card":
            return self._card(paying, data["card"], now)
        method_type = fields.get("payment_method_type")
        outcome = self._outcome(paying, method, method_type, {kind: data[kind]})
        return _paid_with(method, method_type, {kind: kept_details(data[kind])}, outcome)

    def _card(
        self,
        paying: Paying,
        card: Mapping[str, Any],
        now: datetime,
        path: str = "payment_method_data.card",
        names: CardNames = CARD_NAMES,
    ) -> dict[str, Any]:
        """Pay with a card sent in full (its number under `names`): what is kept of it, and its
        number's outcome."""
        method_type = paying.fields.get("payment_method_type")
        number = normalized_number(card, names)
        summary = card_summary(card, now, method_type, path, names)
        outcome = self._outcome(paying, "card", method_type, {"card": {**card, "card_number": number}})
        summary["payment_checks"] = _checks(summary, paying.billing, outcome)
        changes = _paid_with("card", method_type, {"card": summary}, outcome)
        if paying.saves:
            changes["card_key"] = card_key(number)
        return changes

    def _merchant_initiated(
        self, paying: Paying, kind: str, data: Mapping[str, Any], now: datetime
    ) -> dict[str, Any]:
        """Pay, without the customer, with what `recurring_details` carries: a card, a network token
        or a processor's token."""
        if paying.by_customer:  # the customer's browser: it pays with the customer there
            raise InvalidField(
                "recurring_details.type", f"{kind} charges without the customer: send it with the secret key"
            )
        paying = _without_customer(paying)
        method = paying.fields.get("payment_method") or "card"
        if kind == PROCESSOR_TOKEN:
            if paying.saves:
                raise InvalidField(
                    "setup_future_usage",
                    "a processor's token saves no method and sets up no mandate: nothing is known of it",
                )
            # Nothing is known of the method behind the token, and the token itself is not kept.
            method_type = paying.fields.get("payment_method_type")
            outcome = self._outcome(paying, method, method_type, {kind: data})
            return _paid_with(method, method_type, None, outcome)
        if method != "card":
            raise InvalidField("payment_method", f"recurring_details of type {kind} charge a card")
        return self._card(paying, data, now, "recurring_details.data", CHARGED_CARDS[kind])

    def _token(self, paying: Paying, token: str) -> dict[str, Any]:
        saved = self._payment_methods.by_token(paying.merchant_id, token)
        if saved is None:
            raise InvalidField("payment_token", "no such saved payment method")
        return self._saved(paying, saved, "payment_token")

    def _recurring(self, paying: Paying, kind: str, value: str, path: str) -> dict[str, Any]:
        if kind == "mandate_id":
            mandate = self._mandates.retrieve(paying.merchant_id, value)
            if mandate.status is not MandateStatus.ACTIVE:
                raise MandateInvalid(status_refusal(mandate), param="mandate_id")
            self._check_customer(paying, mandate.customer_id, path)
            paying = _without_customer(paying)  # charging a mandate is a merchant-initiated payment
            saved = self._payment_methods.find(paying.merchant_id, mandate.payment_method_id)
            if saved is None:
                raise MandateInvalid("the mandate's payment method has been deleted", param=path)
            return {**self._saved(paying, saved, path), "mandate_id": mandate.mandate_id}
        saved = self._payment_methods.find(paying.merchant_id, value)
        if saved is None:
            raise InvalidField(path, "no such payment method")
        if paying.context.off_session and not saved.off_session:
            raise MandateInvalid(
                "the payment method was not saved for payments without the customer "
                "(save it with setup_future_usage: off_session)",
                param=path,
            )
        return self._saved(paying, saved, path)

    def _saved(self, paying: Paying, saved: SavedPaymentMethod, path: str) -> dict[str, Any]:
        self._check_customer(paying, saved.customer_id, path)
        changes: dict[str, Any] = {
            "payment_method": saved.payment_method,
            "payment_method_type": saved.payment_method_type,
            "payment_method_id": saved.payment_method_id,
            "method_saved_before": True,
        }
        if saved.customer_id is not None and paying.customer_id is None:
            changes["customer_id"] = saved.customer_id
        if saved.card is not None:
            token_data = (paying.fields.get("payment_method_data") or {}).get(CARD_TOKEN) or {}
            cvc = paying.fields.get("card_cvc", token_data.get("card_cvc"))
            if cvc is not None:
                check_cvc(cvc, "card_cvc")
            matched = {"card": {"card_key": saved.card_key}}
            outcome = self._outcome(paying, saved.payment_method, saved.payment_method_type, matched)
            card = {
                **saved.card,
                "card_exp_month": saved.card["exp_month"],
                "card_exp_year": saved.card["exp_year"],
                "payment_checks": {"cvc_check": "unavailable" if cvc is None else "pass"},
            }
            card["payment_checks"] = _checks(card, paying.billing or saved.billing, outcome)
            changes.update(payment_method_data={"card": card}, card_key=saved.card_key, outcome=outcome)
        else:
            details = saved.details or {}
            outcome = self._outcome(paying, saved.payment_method, saved.payment_method_type, details)
            changes.update(payment_method_data=dict(details), outcome=outcome)
        return changes

    # -- lookups and checks -------------------------------------------------------------------

    def _outcome(
        self, paying: Paying, method: str, method_type: str | None, matched: Mapping[str, Any]
    ) -> Outcome:
        outcomes = self._merchants.merchant(paying.merchant_id).outcomes
        outcome = outcomes.match(method, method_type, matched, paying.context)
        if paying.context.off_session and outcome.result is OutcomeResult.CHALLENGE:
            return AUTHENTICATION_REQUIRED  # nobody is there to authenticate
        return outcome

    def _check_customer(self, paying: Paying, owner: str | None, path: str) -> None:
        if paying.by_customer and owner != paying.customer_id:
            raise InvalidField(
                path,
                "a confirmation with the publishable key pays only with the payment's own customer's "
                "saved methods and mandates",
            )
        if owner is not None and paying.customer_id is not None and owner != paying.customer_id:
            raise InvalidField(path, "it belongs to another customer than the payment's")


def _paid_with(
    method: str, method_type: str | None, kept: dict[str, Any] | None, outcome: Outcome
) -> dict[str, Any]:
    """The payment's fields for method data sent with the request (no saved method)."""
    return {
        "payment_method": method,
        "payment_method_type": method_type,
        "payment_method_data": kept,
        "outcome": outcome,
        "payment_method_id": None,
        "method_saved_before": False,
    }


def _without_customer(paying: Paying) -> Paying:
    """The payment, made by the merchant without the customer there (off session)."""
    return dataclasses.replace(paying, context=dataclasses.replace(paying.context, off_session=True))


def _recurring(fields: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(kind, id, the field's path) of the saved method or mandate the request names, if any."""
    details = fields.get("recurring_details")
    if details is not None:
        return details["type"], details["data"], "recurring_details.data"
    if fields.get("mandate_id") is not None:
        return "mandate_id", fields["mandate_id"], "mandate_id"
    return None


def _one_way(fields: Mapping[str, Any]) -> None:
    """Refuse a request that names two things to pay with (method data and a saved method, say)."""
    ways = [name for name in _SAVED_WAYS if fields.get(name) is not None]
    if not ways:
        return
    if fields.get("mandate_data") is not None and ways[0] != "payment_token":
        raise MandateInvalid(
            f"Expected one out of {ways[0]} and mandate_data but got both", param="mandate_data"
        )
    kinds = set(fields.get("payment_method_data") or {}) - {"billing", MANDATE_PAYMENT, CARD_TOKEN}
    second = "payment_method_data" if kinds else (ways[1] if len(ways) > 1 else None)
    if second is not None:
        raise InvalidField(second, f"{ways[0]} names what to pay with already: send one of them")


def _checks(card: Mapping[str, Any], billing: Mapping[str, Any] | None, outcome: Outcome) -> dict[str, str]:
    """The card checks a payment shows: the CVC's as the card says, the address's as the billing
    has them, and any the outcome says do not pass."""
    address = (billing or {}).get("address") or {}
    checks = {
        "cvc_check": card["payment_checks"]["cvc_check"],
        "address_line1_check": "pass" if address.get("line1") else "unavailable",
        "address_postal_code_check": "pass" if address.get("zip") else "unavailable",
    }
    checks.update(outcome.checks)
    return {name: checks[name] for name in CARD_CHECKS}
