"""ApiKeyService: the secret keys of `/api_keys/:merchant_id`, created, listed, changed and revoked.

Every key is an `ApiKey` record kept by the hash of its key, so that a request finds its key in one
lookup (MerchantService.authenticate); the plaintext is shown once, in the answer of its creation.
The keys every merchant starts with are records alike: the secret one is listed and can be
revoked; the publishable one is the merchant's, not an API key of these routes, and is not.
A revoked key is kept, as `revoked`, but these routes know it no more, as the real service, which
deletes it: it is not listed, and naming it is 404.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from mocksrv.domain.api_keys.records import API_KEY_TRANSITIONS, ApiKeyEvent
from mocksrv.domain.clock import Clock, ahead_of_clock, parse_timestamp, to_millis
from mocksrv.domain.errors import InvalidField, ResourceNotFound
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.merchants import API_KEYS, MerchantService
from mocksrv.domain.models import ApiKey, ApiKeyStatus, KeyKind, evolve
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.store import GLOBAL, MemoryStore, Query, sort_key

NEVER = "never"  # the expiration of a key that does not expire


class ApiKeyService:
    def __init__(self, store: MemoryStore, clock: Clock, outbox: Outbox, merchants: MerchantService) -> None:
        self._store = store
        self._clock = clock
        self._merchants = merchants
        self._lifecycle: Lifecycle[ApiKey, ApiKeyStatus, ApiKeyEvent] = Lifecycle(
            store, outbox, API_KEY_TRANSITIONS, kind=API_KEYS, id_field="key_id", space=GLOBAL
        )

    def create(self, merchant_id: str, fields: Mapping[str, Any]) -> tuple[ApiKey, str]:
        """A new secret key, working at once; answers its record and its plaintext."""
        self._merchants.merchant(merchant_id)
        now = self._clock.now(merchant_id)
        expiration = self._expiration(fields["expiration"], now)
        plaintext = self._merchants.new_secret_key(merchant_id)
        record = self._merchants.add_key(
            merchant_id,
            KeyKind.SECRET,
            plaintext,
            now,
            name=fields["name"],
            description=fields.get("description"),
            expiration=expiration,
        )
        return record, plaintext

    def retrieve(self, merchant_id: str, key_id: str) -> ApiKey:
        for key in self._listed(merchant_id):
            if key.key_id == key_id:
                return key
        raise ResourceNotFound("API Key")

    def list_keys(
        self,
        merchant_id: str,
        limit: int | None,
        skip: int,
        created_gte: datetime | None = None,
        created_lte: datetime | None = None,
    ) -> list[ApiKey]:
        """The merchant's keys made within the bounds given, newest first; every one past `skip`
        unless `limit` says how many."""
        keys = self._listed(merchant_id, created_gte, created_lte)[skip:]
        return keys if limit is None else keys[:limit]

    def update(self, merchant_id: str, key_id: str, fields: Mapping[str, Any]) -> ApiKey:
        """Change a key's name, description or expiration; a key past its expiration given a later
        one (or `never`) works again."""
        with self._store.transaction(GLOBAL):
            key = self.retrieve(merchant_id, key_id)
            now = self._clock.now(merchant_id)
            changes: dict[str, Any] = {
                name: fields[name] for name in ("name", "description") if fields.get(name) is not None
            }
            if fields.get("expiration") is not None:
                changes["expiration"] = self._expiration(fields["expiration"], now)
            updated = evolve(key, **changes, updated_at=now)
            self._store.put(API_KEYS, GLOBAL, updated)
            return updated

    def revoke(self, merchant_id: str, key_id: str) -> ApiKey:
        """Revoke a key: from this request on it gets 401 IR_01."""
        with self._store.transaction(GLOBAL):
            key = self.retrieve(merchant_id, key_id)
            return self._lifecycle.move(key, ApiKeyEvent.REVOKE, self._clock.now(merchant_id))

    # -- internals ------------------------------------------------------------------------------

    def _listed(
        self, merchant_id: str, created_gte: datetime | None = None, created_lte: datetime | None = None
    ) -> list[ApiKey]:
        """The merchant's secret keys that are not revoked, newest first, ties by id as every list's
        (the store keeps keys by their digest, which would order them at random)."""
        query = Query({"merchant_id": merchant_id}, created_gte, created_lte, limit=0)
        with self._store.transaction(GLOBAL):
            total = self._store.query(API_KEYS, GLOBAL, query).total_count
            page = self._store.query(API_KEYS, GLOBAL, replace(query, limit=total))
        keys: list[ApiKey] = page.items
        listed = [key for key in keys if key.kind is KeyKind.SECRET and key.status is ApiKeyStatus.ACTIVE]
        return sorted(listed, key=lambda key: sort_key(key.created, key.key_id))

    def _expiration(self, value: str, now: datetime) -> datetime | None:
        """`never` (None), or a time after now on the merchant's clock."""
        if value == NEVER:
            return None
        try:
            moment = to_millis(parse_timestamp(value))  # as answers show it, and as it is judged
        except ValueError:
            raise InvalidField("expiration", "never, or an ISO 8601 time") from None
        return ahead_of_clock("expiration", moment, now)
