"""The records of a snapshot document: the record type of each collection, the codec that knows
them, and the events that report a record, which name the one stored instead of writing it again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mocksrv.domain.clock import ClockState
from mocksrv.domain.controls.codec import Codec
from mocksrv.domain.controls.document import SnapshotInvalid
from mocksrv.domain.controls.faults import FAULTS, FaultRule
from mocksrv.domain.customers import CUSTOMERS
from mocksrv.domain.disputes import DISPUTES, Dispute
from mocksrv.domain.ephemeral_keys import EPHEMERAL_KEYS, EphemeralKey
from mocksrv.domain.events import ContentType, Event, EventType
from mocksrv.domain.legacy.tokens import LEGACY_TOKENS, LegacyToken
from mocksrv.domain.links.records import PAYMENT_LINKS, PaymentLink
from mocksrv.domain.merchants import API_KEYS, MERCHANTS, PROFILES
from mocksrv.domain.models import ApiKey, Customer, Merchant, Payment, Profile, evolve
from mocksrv.domain.payments.service import PAYMENTS
from mocksrv.domain.payouts import PAYOUTS, Payout
from mocksrv.domain.recurring.records import MANDATES, PAYMENT_METHODS, Mandate, SavedPaymentMethod
from mocksrv.domain.refunds import REFUNDS, Refund
from mocksrv.domain.sandbox import COLLECTIONS
from mocksrv.domain.webhooks import (
    ATTEMPTS,
    CHAOS,
    DELIVERIES,
    HOLDS,
    DeliveryAttempt,
    DeliveryHold,
    EventDelivery,
    WebhookChaos,
)

# The record type of each collection: the roots of the types a document may name.
RECORD_TYPES: dict[str, type] = {
    MERCHANTS: Merchant,
    PROFILES: Profile,
    API_KEYS: ApiKey,
    CUSTOMERS: Customer,
    PAYMENTS: Payment,
    REFUNDS: Refund,
    PAYOUTS: Payout,
    DISPUTES: Dispute,
    DELIVERIES: EventDelivery,
    ATTEMPTS: DeliveryAttempt,
    PAYMENT_METHODS: SavedPaymentMethod,
    MANDATES: Mandate,
    PAYMENT_LINKS: PaymentLink,
    EPHEMERAL_KEYS: EphemeralKey,
    LEGACY_TOKENS: LegacyToken,
    FAULTS: FaultRule,
    CHAOS: WebhookChaos,
    HOLDS: DeliveryHold,
}
# Kept in the space of no single merchant; a merchant's document holds its own apart.
GLOBAL_KINDS = frozenset({MERCHANTS, API_KEYS})


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """In a document, an event's record that is the very one stored: written once, where it is stored."""

    kind: str
    record_id: str


# Held by fields whose annotation says `str`: an event's type is an EventType.
_ALSO_HELD: tuple[type, ...] = (EventType,)
CODEC = Codec([*RECORD_TYPES.values(), Event, ClockState, StoredRecord, *_ALSO_HELD])  # it never changes
_KIND_OF_TYPE = {record_type: kind for kind, record_type in RECORD_TYPES.items()}
# The kind of record an event of each content type reports, and renders in its webhook.
REPORTED_KIND = {
    ContentType.PAYMENT_DETAILS: PAYMENTS,
    ContentType.REFUND_DETAILS: REFUNDS,
    ContentType.PAYOUT_DETAILS: PAYOUTS,
    ContentType.DISPUTE_DETAILS: DISPUTES,
    ContentType.MANDATE_DETAILS: MANDATES,
}
_ID_FIELD = {collection.kind: collection.id_field for collection in COLLECTIONS}


def first_repeated_id(kind: str, records: Sequence[Any]) -> tuple[int, str] | None:
    """The index and id of the first record of `kind` whose id an earlier one has: a store keeps
    one record per id, so a document holding two would not come back as it was."""
    seen: set[str] = set()
    id_field = _ID_FIELD.get(kind, "")
    for index, record in enumerate(records):
        record_id = getattr(record, id_field)
        if record_id in seen:
            return index, record_id
        seen.add(record_id)
    return None


class StoredRecords:
    """A merchant's records by kind and id: an event written names the one it reports when that is
    the one stored, and an event read gets it back."""

    def __init__(self, records: Mapping[str, Sequence[Any]]) -> None:
        self._records = records
        self._by_id: dict[str, dict[str, Any]] = {}

    def _stored(self, kind: str, record_id: str) -> Any:
        if kind not in self._by_id:
            id_field = _ID_FIELD.get(kind, "")
            self._by_id[kind] = {getattr(r, id_field): r for r in self._records.get(kind, ())}
        return self._by_id[kind].get(record_id)

    def named(self, event: Event) -> Event:
        """The event to write: its record named, if it is the very one stored."""
        resource = event.resource
        kind = _KIND_OF_TYPE.get(type(resource))
        if kind is None:
            return event
        record_id = getattr(resource, _ID_FIELD[kind])
        if self._stored(kind, record_id) is not resource:
            return event
        return evolve(event, resource=StoredRecord(kind, record_id))

    def resolved(self, event: Event, where: str) -> Event:
        """The event read, with the record it names, which must be the one its content type and
        object id say it reports, or its webhook could not be rendered."""
        ref = event.resource
        if type(ref) is StoredRecord:
            record = self._stored(ref.kind, ref.record_id)
            if record is None:
                raise SnapshotInvalid(f"{where}.resource", f"no {ref.kind} {ref.record_id} is stored")
            event = evolve(event, resource=record)
        kind = REPORTED_KIND[event.content_type]
        record_type, resource = RECORD_TYPES[kind], event.resource
        if (
            type(resource) is not record_type
            or getattr(resource, _ID_FIELD[kind]) != event.object_id
            or getattr(resource, "merchant_id", None) != event.merchant_id
        ):
            raise SnapshotInvalid(
                f"{where}.resource",
                f"expected the {record_type.__name__} {event.object_id} of {event.merchant_id}, "
                f"which a {event.content_type.value} event reports",
            )
        return event
