"""Snapshots: the state of one merchant, or of the whole sandbox, as one versioned JSON document.

A document holds, for each merchant, its merchant record and API keys (hashed, as stored), every
record of every collection, its clock, its timers, its outbox with the keys that stop an event
from happening twice, the deliveries queued for an attempt, and where its seeded ids stand.

Values are written by the tagged codec of codec.py, which knows the collections' record types
(records.py) and the types their fields name, and nothing else.

A restore decodes and checks the whole document before it changes anything, then swaps the
merchants' data in under their locks: a document that fails is refused and nothing changes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mocksrv.domain.controls.codec import Codec
from mocksrv.domain.controls.document import (
    FORMAT,
    VERSION,
    SnapshotInvalid,
    checked_document,
    clock_json,
    clock_state,
    decoded,
    delivery_of,
    ids_json,
    ids_state,
    list_of,
    string_pair,
    timer_of,
)
from mocksrv.domain.controls.records import (
    CODEC,
    GLOBAL_KINDS,
    RECORD_TYPES,
    StoredRecords,
    first_repeated_id,
)
from mocksrv.domain.errors import DomainError, DuplicateResource, ErrorKind, InvalidField, ResourceNotFound
from mocksrv.domain.events import Event
from mocksrv.domain.ids import IdState
from mocksrv.domain.merchants import API_KEYS, MERCHANTS, PROFILES
from mocksrv.domain.models import ApiKey, Merchant
from mocksrv.domain.sandbox import RESETTABLE, Sandbox
from mocksrv.domain.store import GLOBAL, PreparedSpace, Query, SpaceState


class NotInSnapshot(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "HE_02"

    def __init__(self, merchant_id: str) -> None:
        super().__init__(f"The snapshot holds no merchant {merchant_id}")


@contextmanager
def _no_collection() -> Iterator[None]:
    """Hold off the cyclic garbage collector, which would scan the whole store again and again
    while a large document's many small objects are made (it tripled the time at 100,000 payments)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True, slots=True)
class MerchantState:
    """One merchant of a document, decoded: its record and keys, and its space's data."""

    merchant: Merchant
    api_keys: list[ApiKey]
    space: SpaceState


@dataclass(frozen=True, slots=True)
class Restored:
    """What a restore did: the records put back per merchant and kind, and the merchants removed."""

    merchants: dict[str, dict[str, int]]
    removed: list[str]


class Snapshots:
    """Takes and restores snapshots of a sandbox; seeds a merchant's ids."""

    def __init__(self, sandbox: Sandbox, codec: Codec = CODEC) -> None:
        self._sandbox = sandbox
        self._store = sandbox.store
        self._codec = codec

    # -- taking -------------------------------------------------------------------------------

    def take(self, merchant_id: str | None, *, producer: str) -> dict[str, Any]:
        """The document of one merchant, or of every merchant (None); `producer` names the version
        of mocksrv that wrote it."""
        merchant_ids = (
            sorted(self._sandbox.merchants.merchant_ids()) if merchant_id is None else [merchant_id]
        )
        document: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "mocksrv": producer,
            "taken_at": self._sandbox.clock.real_now().isoformat(),
            "scope": "all" if merchant_id is None else "merchant",
        }
        with _no_collection():
            written = {m: self._merchant_json(m) for m in merchant_ids}
        if merchant_id is not None and written[merchant_id] is None:
            raise ResourceNotFound("Merchant")
        # A merchant deleted while the document was written is left out of it.
        document["merchants"] = {m: json for m, json in written.items() if json is not None}
        if merchant_id is None:
            document["ids"] = ids_json(self._store.ids(GLOBAL).state())
        return document

    def _merchant_json(self, merchant_id: str) -> dict[str, Any] | None:
        """The merchant's part of a document, read under its lock (its keys first, under the global
        one: never both held, as a delete takes them in the other order); None if it was deleted."""
        encode = self._codec.encode
        api_keys = self._sandbox.merchants.api_keys(merchant_id)
        with self._store.transaction_if_held(merchant_id) as held:
            merchant = self._sandbox.merchants.find(merchant_id) if held else None
            if merchant is None:
                return None
            space = self._store.dump_space(merchant_id)
        return {
            "merchant": encode(merchant),
            "api_keys": [encode(key) for key in api_keys],
            "clock": clock_json(space.clock, encode),
            "ids": ids_json(space.ids),
            "records": {
                kind: [encode(record) for record in records] for kind, records in space.records.items()
            },
            "timers": [[encode(due_at), kind, target_id] for due_at, kind, target_id in space.timers],
            "events": self._events_json(space),
            "event_keys": [list(key) for key in space.event_keys],
            "deliveries": [[event_id, manual] for event_id, manual in space.deliveries],
        }

    def _events_json(self, space: SpaceState) -> list[Any]:
        """The outbox; an event's record that is the one stored is named, not written again."""
        stored = StoredRecords(space.records)
        return [self._codec.encode(stored.named(event)) for event in space.events]

    # -- restoring ----------------------------------------------------------------------------

    def restore(self, document: Any, merchant_id: str | None) -> Restored:
        """Replace one merchant (named) or every merchant (None) with the document's.

        The whole document is checked first: on any problem SnapshotInvalid (or NotInSnapshot) is
        raised and nothing has changed. Restoring every merchant removes those it does not hold.
        """
        merchants = checked_document(document)
        if merchant_id is not None:
            if merchant_id not in merchants:
                raise NotInSnapshot(merchant_id)
            merchants = {merchant_id: merchants[merchant_id]}
        global_ids = None
        if merchant_id is None:
            global_ids = ids_state(document.get("ids"), "ids", GLOBAL)
        with _no_collection():
            decoded = {m: self._decoded(m, data) for m, data in merchants.items()}
            _check_keys_unique(decoded)
            prepared = {m: self._store.prepare_space(state.space) for m, state in decoded.items()}
        return self._swap(decoded, prepared, everything=merchant_id is None, global_ids=global_ids)

    def _swap(
        self,
        decoded: Mapping[str, MerchantState],
        prepared: Mapping[str, PreparedSpace],
        *,
        everything: bool,
        global_ids: IdState | None,
    ) -> Restored:
        store = self._store
        with store.transaction(GLOBAL):
            present = self._sandbox.merchants.merchant_ids()
            removed = sorted(m for m in present if m not in decoded) if everything else []
            replaced = set(decoded) | set(removed)
            for state in decoded.values():
                for key in state.api_keys:
                    holder: ApiKey | None = store.get(API_KEYS, GLOBAL, key.key_hash)
                    if holder is not None and holder.merchant_id not in replaced:
                        raise DuplicateResource("API key", "api_key")
                client = state.merchant.legacy_client_id
                taken = Query(where={"legacy_client_id": client})
                holders = [] if client is None else store.query(MERCHANTS, GLOBAL, taken).items
                if any(other.merchant_id not in replaced for other in holders):
                    raise DuplicateResource("legacy client", "legacy_client_id")
            # Checked: from here on nothing is refused.
            for merchant_id in removed:
                self._sandbox.remove_merchant(merchant_id)
            for merchant_id, state in decoded.items():
                # Written over in place, and only then are keys the document lacks taken out: reads
                # take no lock, and a request with a key both hold must never find it missing.
                before = self._sandbox.merchants.api_keys(merchant_id)
                store.put(MERCHANTS, GLOBAL, state.merchant)
                for key in state.api_keys:
                    store.put(API_KEYS, GLOBAL, key)
                kept = {key.key_hash for key in state.api_keys}
                for key in before:
                    if key.key_hash not in kept:
                        store.delete(API_KEYS, GLOBAL, key.key_hash)
                store.swap_space(merchant_id, prepared[merchant_id])
            if everything:
                store.resume_ids(GLOBAL, global_ids)
        for merchant_id in decoded:
            # What the merchant's faults held ends, and goes no further: it was of the state replaced.
            self._sandbox.faults.release_pauses(merchant_id, abandon=True)
        return Restored(
            {merchant_id: _counts(state) for merchant_id, state in decoded.items()},
            removed,
        )

    def _decoded(self, merchant_id: str, data: Any) -> MerchantState:
        where = f"merchants.{merchant_id}"
        if type(data) is not dict:
            raise SnapshotInvalid(where, "expected an object")
        merchant = self._value(data.get("merchant"), f"{where}.merchant", Merchant, merchant_id)
        api_keys = [
            self._value(raw, f"{where}.api_keys.{index}", ApiKey, merchant_id)
            for index, raw in enumerate(list_of(data.get("api_keys"), f"{where}.api_keys"))
        ]
        records: dict[str, list[Any]] = {}
        raw_records = data.get("records")
        if type(raw_records) is not dict:
            raise SnapshotInvalid(f"{where}.records", "expected an object of lists by kind")
        for kind, raw_list in raw_records.items():
            record_type = RECORD_TYPES.get(kind)
            if record_type is None or kind in GLOBAL_KINDS:
                raise SnapshotInvalid(f"{where}.records", f"no collection is named {kind!r}")
            records[kind] = [
                self._value(raw, f"{where}.records.{kind}.{index}", record_type, merchant_id)
                for index, raw in enumerate(list_of(raw_list, f"{where}.records.{kind}"))
            ]
            repeated = first_repeated_id(kind, records[kind])
            if repeated is not None:
                index, record_id = repeated
                raise SnapshotInvalid(f"{where}.records.{kind}.{index}", f"a second record {record_id}")
        if all(profile.profile_id != merchant.profile_id for profile in records.get(PROFILES, ())):
            raise SnapshotInvalid(
                f"{where}.merchant.profile_id", f"no profile {merchant.profile_id} is stored"
            )
        stored = StoredRecords(records)
        events = [
            stored.resolved(
                self._value(raw, f"{where}.events.{index}", Event, merchant_id), f"{where}.events.{index}"
            )
            for index, raw in enumerate(list_of(data.get("events"), f"{where}.events"))
        ]
        space = SpaceState(
            records=records,
            timers=[
                timer_of(self._codec, raw, f"{where}.timers.{index}", self._sandbox.scheduler.kinds)
                for index, raw in enumerate(list_of(data.get("timers"), f"{where}.timers"))
            ],
            events=events,
            event_keys=[
                string_pair(raw, f"{where}.event_keys.{index}")
                for index, raw in enumerate(list_of(data.get("event_keys"), f"{where}.event_keys"))
            ],
            deliveries=[
                delivery_of(raw, f"{where}.deliveries.{index}")
                for index, raw in enumerate(list_of(data.get("deliveries"), f"{where}.deliveries"))
            ],
            clock=clock_state(
                self._codec, data.get("clock"), f"{where}.clock", self._sandbox.clock.real_now()
            ),
            ids=ids_state(data.get("ids"), f"{where}.ids", merchant_id),
        )
        return MerchantState(merchant, api_keys, space)

    def _value(self, raw: Any, where: str, expected: type, merchant_id: str) -> Any:
        """Decode one record, of the type expected, that belongs to the merchant."""
        value = decoded(self._codec, raw, where)
        if type(value) is not expected:
            raise SnapshotInvalid(where, f"expected a {expected.__name__}")
        if getattr(value, "merchant_id", merchant_id) != merchant_id:
            raise SnapshotInvalid(f"{where}.merchant_id", f"not {merchant_id}")
        return value

    # -- ids ----------------------------------------------------------------------------------

    def seed_ids(self, merchant_id: str, seed: int | None) -> IdState | None:
        """Draw the merchant's ids from the stream of `seed` (None: the system's randomness), from
        its start. Only before the merchant has made anything, so that no id can come twice."""
        self._sandbox.merchants.merchant(merchant_id)
        store = self._store
        with store.transaction(merchant_id):
            if store.events(merchant_id) or any(store.count(kind, merchant_id) for kind in RESETTABLE):
                raise InvalidField(
                    "seed", "a merchant's ids can be seeded only before it makes anything: reset it first"
                )
            state = None if seed is None else IdState(seed, merchant_id)
            store.seed_ids(merchant_id, state)
            return state


def _check_keys_unique(decoded: Mapping[str, MerchantState]) -> None:
    seen: set[str] = set()
    clients: set[str | None] = set()
    for merchant_id, state in decoded.items():
        for key in state.api_keys:
            if key.key_hash in seen:
                raise SnapshotInvalid(f"merchants.{merchant_id}.api_keys", "an API key is held twice")
            seen.add(key.key_hash)
        client = state.merchant.legacy_client_id
        if client is not None and client in clients:
            where = f"merchants.{merchant_id}.merchant.legacy_client_id"
            raise SnapshotInvalid(where, "a legacy client id is held twice")
        clients.add(client)


def _counts(state: MerchantState) -> dict[str, int]:
    counts = {kind: len(records) for kind, records in state.space.records.items() if records}
    counts.update(api_key=len(state.api_keys), event=len(state.space.events), timer=len(state.space.timers))
    return counts
