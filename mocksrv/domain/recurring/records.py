"""The records of saved payment methods and mandates, and what a mandate allows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from mocksrv.domain.errors import DomainError
from mocksrv.domain.events import EventType
from mocksrv.domain.models import JsonObject
from mocksrv.domain.transitions import Transition, TransitionTable, rows

PAYMENT_METHODS = "payment_method"
MANDATES = "mandate"


@dataclass(frozen=True, slots=True)
class SavedPaymentMethod:
    payment_method_id: str
    merchant_id: str
    payment_method: str
    created: datetime
    payment_token: str  # what a checkout page pays with, in place of the card's details
    customer_id: str | None = None
    payment_method_type: str | None = None
    card: JsonObject | None = None  # what is kept of a card: never its number or CVC
    card_key: str | None = None  # the key of the card's number, for the magic values
    details: JsonObject | None = None  # another kind's data: {"bank_debit": {...}}
    nick_name: str | None = None
    payment_method_issuer: str | None = None  # as sent to POST /payment_methods
    payment_method_issuer_code: str | None = None
    metadata: JsonObject | None = None
    billing: JsonObject | None = None
    customer_acceptance: JsonObject | None = None
    off_session: bool = False  # saved for payments without the customer (setup_future_usage)
    last_used_at: datetime | None = None
    # What lets a browser update this method with the publishable key, for a while after it was saved.
    client_secret: str | None = None


class MandateStatus(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"
    PENDING = "pending"
    REVOKED = "revoked"


class MandateEvent(StrEnum):
    """What happens to a mandate; the part before the dot is the operation it belongs to."""

    ACTIVATE = "activate.setup_paid"  # the payment that set it up was paid
    LAPSE = "lapse.setup_failed"  # the payment that set it up failed, or was cancelled or expired unpaid
    USE_UP = "use.single_use_charged"  # a single-use mandate was charged
    REVOKE = "revoke.merchant"


class MandateType(StrEnum):
    SINGLE_USE = "single_use"
    MULTI_USE = "multi_use"


M = MandateStatus
MANDATE_TRANSITIONS: TransitionTable[MandateStatus, MandateEvent] = TransitionTable(
    "Mandate",
    [
        Transition(M.PENDING, MandateEvent.ACTIVATE, M.ACTIVE, EventType.MANDATE_ACTIVE),
        *rows([M.PENDING, M.ACTIVE], MandateEvent.LAPSE, M.INACTIVE),
        Transition(M.ACTIVE, MandateEvent.USE_UP, M.INACTIVE),
        *rows([M.PENDING, M.ACTIVE, M.INACTIVE], MandateEvent.REVOKE, M.REVOKED, EventType.MANDATE_REVOKED),
    ],
)


@dataclass(frozen=True, slots=True)
class Mandate:
    mandate_id: str
    merchant_id: str
    status: MandateStatus
    created: datetime
    updated_at: datetime
    payment_id: str  # the payment that set it up
    payment_method_id: str  # the method it charges, saved when the setup payment is paid
    payment_method: str
    customer_id: str | None = None
    payment_method_type: str | None = None
    card: JsonObject | None = None
    customer_acceptance: JsonObject | None = None
    mandate_type: MandateType = MandateType.MULTI_USE
    amount: int | None = None  # the most it allows: per charge if single use, in all if multi use
    currency: str | None = None
    start_date: datetime | None = None
    end_date: datetime | None = None
    metadata: JsonObject | None = None
    amount_captured: int = 0  # what its charges hold, in all: taken, or held while still in flight
    charged: tuple[str, ...] = ()  # the payments confirmed against it, whatever their result


class MandateInvalid(DomainError):
    """A payment the mandate does not allow, or an operation on it that is not allowed."""

    code = "HE_03"

    def __init__(self, reason: str, param: str | None = None) -> None:
        super().__init__(f"Mandate Validation Failed: {reason}", param=param)


def status_refusal(mandate: Mandate) -> str:
    """Why a mandate that is not active cannot be charged."""
    if mandate.status is MandateStatus.REVOKED:
        return "the mandate has been revoked"
    return f"the mandate is {mandate.status.value}, not active"


def mandate_refusal(mandate: Mandate, amount: int, currency: str, now: datetime) -> str | None:
    """Why the mandate does not allow a charge of `amount` `currency` at `now`; None if it does."""
    if mandate.status is not MandateStatus.ACTIVE:
        return status_refusal(mandate)
    if mandate.start_date is not None and now < mandate.start_date:
        return "the mandate has not started yet"
    if mandate.end_date is not None and now > mandate.end_date:
        return "the mandate has expired"
    if mandate.currency is not None and currency != mandate.currency:
        return f"the mandate is in {mandate.currency}, not {currency}"
    if mandate.mandate_type is MandateType.SINGLE_USE and mandate.amount_captured > 0:
        return "the single-use mandate is taken by a charge still in progress"
    if mandate.amount is not None:
        if mandate.mandate_type is MandateType.SINGLE_USE and amount > mandate.amount:
            return "request amount is greater than mandate amount"
        if (
            mandate.mandate_type is MandateType.MULTI_USE
            and mandate.amount_captured + amount > mandate.amount
        ):
            return "request amount and the amounts already charged are greater than mandate amount"
    return None
