"""The record of a payment link and its transition table."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from mocksrv.domain.models import JsonObject
from mocksrv.domain.transitions import Transition, TransitionTable

PAYMENT_LINKS = "payment_link"
EXPIRE_TIMER = "payment_link.expire"
DEFAULT_EXPIRY = timedelta(minutes=15)  # after creation, on the merchant's clock (decisions, section 4)
# The spec's name in `allowed_payment_method_types` for a card of any type: the real types it stands for.
CARD = "card"
CARD_METHOD_TYPES = ("credit", "debit")


def payment_method_types(allowed: list[str]) -> list[str]:
    """A link's allowed method types as the payment's own field takes them: `card` as its real types."""
    types: list[str] = []
    for name in allowed:
        for real in CARD_METHOD_TYPES if name == CARD else (name,):
            if real not in types:
                types.append(real)
    return types


class PaymentLinkStatus(StrEnum):
    ACTIVE = "active"
    EXPIRED = "expired"
    COMPLETED = "completed"


class PaymentLinkEvent(StrEnum):
    """What happens to a link; the part before the dot is the operation it belongs to."""

    EXPIRE = "expire.past_expiry"  # the merchant's clock passed the link's expiry
    COMPLETE = "complete.paid"  # the payment of a one-time link succeeded or was authorized


class LinkType(StrEnum):
    ONE_TIME = "one_time"


L = PaymentLinkStatus
# The real service reports a link's payment through the payment's own events, and nothing of the
# link itself: no row emits a webhook.
PAYMENT_LINK_TRANSITIONS: TransitionTable[PaymentLinkStatus, PaymentLinkEvent] = TransitionTable(
    "Payment link",
    [
        Transition(L.ACTIVE, PaymentLinkEvent.EXPIRE, L.EXPIRED),
        Transition(L.ACTIVE, PaymentLinkEvent.COMPLETE, L.COMPLETED),
        # A payment the customer began before the link expired (a 3DS page left open) may still be
        # finished; once paid, the link reads as such.
        Transition(L.EXPIRED, PaymentLinkEvent.COMPLETE, L.COMPLETED),
    ],
)


@dataclass(frozen=True, slots=True)
class PaymentLink:
    payment_link_id: str
    merchant_id: str
    profile_id: str
    payment_id: str  # the payment the link's page takes
    status: PaymentLinkStatus
    created: datetime
    updated_at: datetime
    expiry: datetime
    amount: int
    currency: str
    link_type: LinkType = LinkType.ONE_TIME
    description: str | None = None
    customer_id: str | None = None
    email: str | None = None
    send_email: bool = False
    capture_method: str | None = None
    authentication_type: str | None = None
    require_customer_info: bool = False
    config: JsonObject | None = None  # payment_link_config as sent: seller_name, sdk_layout, ...
    # The shop's return_url when the link was made: where the page leads back to, even after the
    # page's own checkout made itself the payment's return_url (to come back from 3D Secure).
    return_url: str | None = None

    @property
    def allowed_payment_method_types(self) -> list[str]:
        """The method types the link's page offers: the real ones, the spec's `card` as its types."""
        return payment_method_types((self.config or {}).get("allowed_payment_method_types") or [])
