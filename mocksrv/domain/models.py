"""Records of the sandbox: plain data, never changed in place (a change stores a new copy)."""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, NamedTuple, TypeVar, cast

from mocksrv.domain.bounds import Within
from mocksrv.domain.money import MAX_AMOUNT
from mocksrv.domain.payments.outcomes import Outcome, OutcomeTable
from mocksrv.domain.payments.states import PaymentStatus

JsonObject = dict[str, Any]
Record = TypeVar("Record")


def evolve(record: Record, **changes: Any) -> Record:
    """A copy of a record with `changes`: what `dataclasses.replace` does, in a third of the time.

    Every transition makes one, of records of up to 38 fields. A frozen record's `__init__` sets
    each field through `object.__setattr__`, a call apiece: 50,000 instructions for a payment, 5%
    of a create. So a record is copied as a draft, an instance of a plain (not frozen) class with
    the same slots, whose `__init__` sets them directly; the draft then becomes an instance of the
    record's class, which lays its slots out alike (15,000 instructions in all).
    """
    kind: type = type(record)
    layout = _layout(kind)
    values = list(layout.read(record))
    positions = layout.positions
    for name, value in changes.items():
        if name not in positions:
            raise TypeError(f"{kind.__name__} has no field {name!r}")
        values[positions[name]] = value
    return _made(kind, layout.draft, values)


def build(kind: type[Record], /, **fields: Any) -> Record:
    """A new record: what `kind(**fields)` makes, made as `evolve` makes a copy (a third as dear)."""
    layout = _layout(cast(type, kind))
    if layout.defaults is None or not layout.required <= fields.keys() <= layout.positions.keys():
        return kind(**fields)  # which builds it, or says what is wrong with the fields
    values = layout.defaults.copy()
    positions = layout.positions
    for name, value in fields.items():
        values[positions[name]] = value
    return _made(kind, layout.draft, values)


def _made(kind: type[Record], draft: type | None, values: list[Any]) -> Record:
    """A record of `kind` with these values of its fields, in order."""
    if draft is None:
        return kind(*values)
    made = draft(*values)
    object.__setattr__(made, "__class__", kind)  # a draft's slots are laid out as the record's
    return cast(Record, made)


# The processor that answers name in `connector`: the sandbox itself, until a merchant names one.
CONNECTOR = "mocksrv"
MAX_SESSION_EXPIRY = 365 * 24 * 3600  # a profile's session_expiry, in seconds: at most a year


class _Layout(NamedTuple):
    read: Callable[[Any], tuple[Any, ...]]  # every field's value, in order
    positions: dict[str, int]
    draft: type | None  # None: records are made by their `__init__`
    defaults: list[Any] | None  # each field's default (None: some default is made by a factory)
    required: frozenset[str]  # the fields without a default


@functools.cache
def _layout(cls: type) -> _Layout:
    fields = dataclasses.fields(cls)
    if len(fields) < 2 or not all(f.init for f in fields):
        raise TypeError(f"{cls.__name__} is not a record of two or more fields, all set on creation")
    names = [f.name for f in fields]
    # A draft holds what `__init__` would set, unless it does more than set the fields; it can
    # become the record only if both have the same slots and nothing else (no base, no __dict__).
    plain = cls.__bases__ == (object,) and cls.__dict__.get("__slots__") == tuple(names)
    draft = None
    if plain and not hasattr(cls, "__post_init__"):
        draft = dataclasses.make_dataclass(f"{cls.__name__}Draft", names, slots=True, eq=False)
    defaults = None
    if draft is not None and all(f.default_factory is dataclasses.MISSING for f in fields):
        defaults = [f.default for f in fields]
    required = frozenset(f.name for f in fields if f.default is dataclasses.MISSING)
    positions = {name: index for index, name in enumerate(names)}
    return _Layout(operator.attrgetter(*names), positions, draft, defaults, required)


class CaptureMethod(StrEnum):
    AUTOMATIC = "automatic"
    MANUAL = "manual"
    MANUAL_MULTIPLE = "manual_multiple"
    # The real service's other two: captured as `automatic` is, and waiting for a capture as `manual`.
    SEQUENTIAL_AUTOMATIC = "sequential_automatic"
    SCHEDULED = "scheduled"

    @property
    def at_once(self) -> bool:
        """Whether a successful authorization is captured in the same step."""
        return self in (CaptureMethod.AUTOMATIC, CaptureMethod.SEQUENTIAL_AUTOMATIC)


class KeyKind(StrEnum):
    SECRET = "secret"
    PUBLISHABLE = "publishable"
    EPHEMERAL = "ephemeral"  # a customer's ephemeral key (ephemeral_keys.py), never an API key's record


class ApiKeyStatus(StrEnum):
    ACTIVE = "active"
    REVOKED = "revoked"


class Environment(StrEnum):
    SANDBOX = "sandbox"
    PRODUCTION = "production"

    @property
    def secret_prefix(self) -> str:
        return "snd_" if self is Environment.SANDBOX else "prd_"

    @property
    def publishable_prefix(self) -> str:
        return "pk_" + self.secret_prefix


@dataclass(frozen=True, slots=True)
class Merchant:
    merchant_id: str
    profile_id: str
    created: datetime
    outcomes: OutcomeTable
    rate_limit: int | None = None  # None: the server's setting
    connector: str = CONNECTOR  # the processor its payments name
    # In full, unlike the secret key: it is public, and the hosted pages embed it as a checkout would.
    publishable_key: str | None = None
    # The legacy card API's client credentials (HTTP Basic); the secret is kept as its SHA-256.
    legacy_client_id: str | None = None
    legacy_client_secret_hash: str | None = None


@dataclass(frozen=True, slots=True)
class WebhookSettings:
    """A profile's webhook settings beside its URL, as the merchant last sent each (None: never sent).

    They are stored and shown; which events are sent is decisions section 6's, whatever they say.
    """

    webhook_version: str | None = None
    webhook_username: str | None = None
    webhook_password: str | None = None
    payment_created_enabled: bool | None = None
    payment_succeeded_enabled: bool | None = None
    payment_failed_enabled: bool | None = None
    payment_statuses_enabled: tuple[str, ...] | None = None
    refund_statuses_enabled: tuple[str, ...] | None = None
    payout_statuses_enabled: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Profile:
    profile_id: str
    merchant_id: str
    profile_name: str
    payment_response_hash_key: str
    session_expiry: Annotated[int, Within(0, MAX_SESSION_EXPIRY)]
    created: datetime
    return_url: str | None = None
    webhook_url: str | None = None
    webhook_settings: WebhookSettings = WebhookSettings()


@dataclass(frozen=True, slots=True)
class ApiKey:
    key_id: str
    merchant_id: str
    kind: KeyKind
    key_hash: str
    prefix: str
    created: datetime
    name: str | None = None
    description: str | None = None
    expiration: datetime | None = None  # None: never; judged on the merchant's clock at each request
    status: ApiKeyStatus = ApiKeyStatus.ACTIVE
    updated_at: datetime | None = None  # of the latest change after creation


@dataclass(frozen=True, slots=True)
class Customer:
    customer_id: str
    merchant_id: str
    created: datetime
    name: str | None = None
    email: str | None = None
    phone: str | None = None
    phone_country_code: str | None = None
    description: str | None = None
    address: JsonObject | None = None
    metadata: JsonObject | None = None
    tax_registration_id: str | None = None
    default_payment_method_id: str | None = None


@dataclass(frozen=True, slots=True)
class Capture:
    """One capture of an authorized payment, as a call of the capture route made it."""

    capture_id: str
    amount: Annotated[int, Within(0, MAX_AMOUNT)]
    sequence: int  # 1 for the payment's first capture
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Payment:
    payment_id: str
    merchant_id: str
    profile_id: str
    status: PaymentStatus
    amount: Annotated[int, Within(0, MAX_AMOUNT)]
    currency: str
    capture_method: CaptureMethod
    created: datetime
    modified_at: datetime
    client_secret: str
    client_secret_expires_at: datetime
    amount_received: Annotated[int, Within(0, MAX_AMOUNT)] = 0
    amount_capturable: Annotated[int, Within(0, MAX_AMOUNT)] = 0
    amount_refunded: Annotated[int, Within(0, MAX_AMOUNT)] = 0
    payment_method: str | None = None
    payment_method_type: str | None = None
    payment_method_data: JsonObject | None = None
    outcome: Outcome | None = None  # resolved from the magic values when a method is attached
    next_outcome: Outcome | None = None  # what a pending challenge or settlement leads to
    authentication_type: str | None = None
    customer_id: str | None = None
    email: str | None = None
    name: str | None = None
    phone: str | None = None
    phone_country_code: str | None = None
    description: str | None = None
    statement_descriptor: str | None = None
    metadata: JsonObject | None = None
    billing: JsonObject | None = None
    return_url: str | None = None
    order_details: list[JsonObject] | None = None
    browser_info: JsonObject | None = None
    authorized_at: datetime | None = None
    captured_at: datetime | None = None
    cancelled_at: datetime | None = None
    cancellation_reason: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    connector: str = CONNECTOR  # the merchant's, when the payment was made
    attempt_count: int = 0  # confirmations made: each one an attempt at the processor
    attempted_at: datetime | None = None  # when the latest attempt was made
    captures: tuple[Capture, ...] = ()  # oldest first
    payment_method_id: str | None = None  # the saved method it is paid with, or is to save
    # Whether payment_method_id names a method saved before the payment: one it pays with, or the
    # saved card of its customer that it sends again. Deleted before the payment is paid, such a
    # method is not made again by it.
    method_saved_before: bool = False
    # Whether its customer was deleted while it was under way (confirmed, not yet paid): it saves no
    # method when paid, not even for a customer made again with that id.
    customer_deleted: bool = False
    mandate_id: str | None = None  # the mandate it charges, or sets up
    card_key: str | None = None  # the key of the card's number, to save the card (cards.card_key)
    customer_acceptance: JsonObject | None = None  # as sent, for the method or mandate it saves
    payment_link_id: str | None = None  # the link whose page takes it
    split_rule_id: str | None = None  # made the first time it holds a Xendit split among accounts
    # Fields of the real service's request that mocksrv keeps as sent and shows back (`ECHOED`).
    echoed: JsonObject | None = None

    @property
    def attempt_id(self) -> str | None:
        """The id of the latest attempt at the processor, also its transaction id; None before one."""
        return f"{self.payment_id}_{self.attempt_count}" if self.attempt_count else None


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts as: a merchant through one of its keys."""

    merchant_id: str
    key_id: str
    kind: KeyKind
    rate_limit: int


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a list: the items and how many match in all."""

    items: list[Any] = field(default_factory=list)
    total_count: int = 0
