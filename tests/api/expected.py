"""What the API answers, written out in full: error bodies, payment bodies, times on the mock clock."""

from __future__ import annotations

import copy
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.payloads import BILLING, MERCHANT_ID, PROFILE_ID

RETURN_URL = "https://shop.example/return"
SESSION_EXPIRY = 900
CAPTURE_WINDOW = 7 * 24 * 3600

# The states from which each operation is allowed, as the IR_14 message lists them.
UPDATABLE = "requires_payment_method, requires_confirmation"
CONFIRMABLE = UPDATABLE
CAPTURABLE = "requires_capture, partially_captured_and_capturable"
CANCELLABLE = (
    "requires_payment_method, requires_confirmation, requires_customer_action, requires_capture, "
    "partially_captured_and_capturable"
)
REVIEWABLE = "requires_merchant_action"
AUTHENTICABLE = "requires_customer_action"

UNAUTHORIZED = "API key not provided or invalid API key used"


class Matches:
    """Equal to any string that matches `pattern` in full: for ids and secrets the server generates."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and re.fullmatch(self.pattern, other) is not None

    def __hash__(self) -> int:
        return hash(self.pattern)

    def __repr__(self) -> str:
        return f"Matches({self.pattern!r})"


GENERATED_PAYMENT_ID = Matches(r"pay_[A-Za-z0-9]{26}")
GENERATED_CUSTOMER_ID = Matches(r"cus_[A-Za-z0-9]{20}")


def client_secret_of(payment_id: str) -> Matches:
    return Matches(rf"{re.escape(payment_id)}_secret_[A-Za-z0-9]{{20}}")


def error(code: str, message: str, param: str | None = None) -> dict[str, Any]:
    """The body of a 4xx answer."""
    body: dict[str, Any] = {"type": "invalid_request", "code": code, "message": message}
    if param is not None:
        body["param"] = param
    return {"error": body}


def missing(path: str) -> dict[str, Any]:
    return error("IR_04", f"Missing required param: {path}", path)


def invalid(path: str, reason: str | None = None) -> dict[str, Any]:
    message = f"Invalid value provided: {path}" + (f": {reason}" if reason else "")
    return error("IR_04", message, path)


def invalid_for_any_reason(path: str) -> dict[str, Any]:
    """IR_04 naming `path`, whatever reason it gives: where the contract fixes no wording."""
    message = Matches(rf"Invalid value provided: {re.escape(path)}(: .+)?")
    return {"error": {"type": "invalid_request", "code": "IR_04", "message": message, "param": path}}


def malformed(detail: str) -> dict[str, Any]:
    return error("IR_06", f"Json deserialize error: {detail}")


def refused(action: str, status: str, expected: str) -> dict[str, Any]:
    """The IR_14 body of an operation the payment's status does not allow."""
    return error(
        "IR_14",
        f"This Payment could not be {action} because it has a status of {status}. "
        f"The expected state is {expected}",
    )


PAYMENT_NOT_FOUND = error("IR_05", "Payment not found")


def case_id(value: object) -> str:
    """A readable test id for a request body or query, or for the error code expected."""
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        return str(value["error"]["code"])
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else f"{text[:57]}..."


# -- time -------------------------------------------------------------------------------------


def parse(timestamp: str) -> datetime:
    return datetime.fromisoformat(timestamp.replace("Z", "+00:00"))


def iso(moment: datetime) -> str:
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def later(timestamp: str, seconds: float) -> str:
    """`timestamp` moved `seconds` forward, in the server's format."""
    return iso(parse(timestamp) + timedelta(seconds=seconds))


def at_offsets(frozen: str, filters: dict[str, Any]) -> dict[str, Any]:
    """Turn `{"created_gte": 60}` (or a `start_time` or `end_time`) into the ISO time 60 s after the
    frozen time."""
    return {
        name: later(frozen, value)
        if name.startswith("created_") or name in ("start_time", "end_time")
        else value
        for name, value in filters.items()
    }


def unix(timestamp: str) -> float:
    return parse(timestamp).timestamp()


def window_reset(timestamp: str) -> int:
    """The Unix time at which the one-minute rate-limit window holding `timestamp` ends."""
    return (int(parse(timestamp).timestamp()) // 60 + 1) * 60


# -- payments ---------------------------------------------------------------------------------

_BRANDS = {"3": "AmericanExpress", "4": "Visa", "5": "Mastercard", "6": "Discover"}


def card_data(
    number: str = "4242424242424242", exp_month: str = "12", exp_year: str = "2099", card_type: str = "credit"
) -> dict:
    """What a payment shows of a card: never the number or the CVC; the spec's names and the real ones."""
    return {
        "card": {
            "last4": number[-4:],
            "brand": _BRANDS[number[0]],
            "exp_month": exp_month,
            "exp_year": exp_year,
            "card_holder_name": None,
            "card_network": _BRANDS[number[0]],
            "card_type": card_type,
            "card_issuer": "mocksrv test bank",
            "card_issuing_country": "US",
            "card_isin": number[:6],
            "card_exp_month": exp_month,
            "card_exp_year": exp_year,
            "payment_checks": {
                "cvc_check": "pass",
                "address_line1_check": "pass",
                "address_postal_code_check": "pass",
            },
        }
    }


def card_payment(now: str, payment_id: str, number: str = "4242424242424242", **changes: Any) -> dict:
    """The body of `payload.payment(number, payment_id=...)` charged at `now`; `changes` override."""
    body: dict[str, Any] = {
        "payment_id": payment_id,
        "merchant_id": MERCHANT_ID,
        "profile_id": PROFILE_ID,
        "status": "succeeded",
        "amount": 1000,
        "amount_received": 1000,
        "amount_capturable": 0,
        "amount_refunded": 0,
        "currency": "USD",
        "capture_method": "automatic",
        "payment_method": "card",
        "payment_method_type": "credit",
        "payment_method_data": card_data(number),
        "authentication_type": None,
        "client_secret": client_secret_of(payment_id),
        "expires_on": later(now, SESSION_EXPIRY),
        "customer_id": None,
        "email": None,
        "name": None,
        "phone": None,
        "phone_country_code": None,
        "description": None,
        "statement_descriptor": None,
        "metadata": None,
        "billing": copy.deepcopy(BILLING),
        "return_url": RETURN_URL,
        "order_details": None,
        "browser_info": None,
        "next_action": None,
        "created": now,
        "modified_at": now,
        "captured_at": now,
        "cancelled_at": None,
        "cancellation_reason": None,
        "error_code": None,
        "error_message": None,
        "disputes": [],
        "refunds": [],
        "net_amount": 1000,
        "attempt_count": 1,
        "processor_merchant_id": MERCHANT_ID,
        "connector": "mocksrv",
        "connector_transaction_id": f"{payment_id}_1",
        "unified_code": None,
        "unified_message": None,
        "mandate_id": None,
        "payment_method_id": None,
        "payment_link": None,
        "customer": None,
    }
    body.update(changes)
    # What follows from the fields above, unless the changes say otherwise: the real service's
    # names repeat the spec's error fields, the net amount is the amount (with nothing added), a
    # payment not yet confirmed has made no attempt, and a customer is shown by its id.
    body.update(unified_code=body["error_code"], unified_message=body["error_message"])
    if "net_amount" not in changes:
        body["net_amount"] = body["amount"]
    if (
        body["status"] in ("requires_payment_method", "requires_confirmation")
        and "attempt_count" not in changes
    ):
        body.update(attempt_count=0, connector_transaction_id=None)
    if body["customer_id"] is not None and "customer" not in changes:
        body["customer"] = customer_details(body["customer_id"])
    return body


def customer_details(customer_id: str, **details: Any) -> dict[str, Any]:
    """The `customer` a payment shows of its customer: the customer's own details."""
    return {
        "id": customer_id,
        "name": None,
        "email": None,
        "phone": None,
        "phone_country_code": None,
        **details,
    }


def authorized_payment(now: str, payment_id: str, **changes: Any) -> dict:
    """A manual-capture card payment authorized at `now`, nothing captured yet."""
    return card_payment(
        now,
        payment_id,
        **{
            "status": "requires_capture",
            "capture_method": "manual",
            "amount_received": 0,
            "amount_capturable": 1000,
            "captured_at": None,
            **changes,
        },
    )


def unconfirmed_payment(now: str, payment_id: str, **changes: Any) -> dict:
    """The body of `payload.payment(None, payment_id=...)`: created without a payment method."""
    return card_payment(
        now,
        payment_id,
        **{
            "status": "requires_payment_method",
            "amount_received": 0,
            "payment_method": None,
            "payment_method_type": None,
            "payment_method_data": None,
            "billing": None,
            "captured_at": None,
            "attempt_count": 0,
            "connector_transaction_id": None,
            **changes,
        },
    )


def declined_payment(now: str, payment_id: str, number: str, code: str, message: str) -> dict:
    return card_payment(
        now,
        payment_id,
        number,
        status="failed",
        amount_received=0,
        captured_at=None,
        error_code=code,
        error_message=message,
    )


def challenge_url(payment_id: str, client_secret: str) -> str:
    return f"http://localhost/web/3ds/{MERCHANT_ID}/{payment_id}?client_secret={client_secret}"


def summary(payment: dict) -> dict:
    """A payment as the list shows it."""
    return {name: payment[name] for name in ("payment_id", "status", "amount", "currency", "created")}
