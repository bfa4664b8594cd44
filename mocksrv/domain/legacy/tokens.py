"""Bearer tokens of the legacy card API: issued for a merchant's client credentials, for an hour.

A token is `lat_`, 40 hex digits and the merchant's id, so that the token names the merchant whose
store holds it; only its SHA-256 is stored. It expires one hour (TOKEN_LIFETIME) after it was issued,
on the merchant's mock clock: a timer moves it to `expired`, and until the timer fires (the ticker
runs every quarter second in real time) a token past its time is refused all the same.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import Unauthorized
from mocksrv.domain.ids import merchant_in_secret, new_secret
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.merchants import MERCHANTS, MerchantService, key_hash
from mocksrv.domain.models import Merchant
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import GLOBAL, MemoryStore, Query
from mocksrv.domain.transitions import Transition, TransitionTable

LEGACY_TOKENS = "legacy_token"
EXPIRE_TIMER = "legacy_token.expire"
TOKEN_LIFETIME = timedelta(hours=1)  # decisions, section 4
TOKEN_PREFIX = "lat_"
_SECRET_DIGITS = 40

BAD_CLIENT = "Invalid client credentials: the client id or client secret is wrong"
BAD_TOKEN = "Invalid access token"
EXPIRED_TOKEN = "The access token has expired: get a new one with GET /api/v1"


class LegacyTokenStatus(StrEnum):
    ACTIVE = "active"
    EXPIRED = "expired"


class LegacyTokenEvent(StrEnum):
    EXPIRE = "expire.past_expiry"  # the merchant's clock passed the token's expiry


LEGACY_TOKEN_TRANSITIONS: TransitionTable[LegacyTokenStatus, LegacyTokenEvent] = TransitionTable(
    "Legacy token",
    [Transition(LegacyTokenStatus.ACTIVE, LegacyTokenEvent.EXPIRE, LegacyTokenStatus.EXPIRED)],
)


@dataclass(frozen=True, slots=True)
class LegacyToken:
    token_hash: str  # the SHA-256 of the token, which is never stored
    merchant_id: str
    status: LegacyTokenStatus
    created: datetime
    updated_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A new token, the only time it is shown in full."""

    access_token: str
    record: LegacyToken

    @property
    def expires_in(self) -> int:
        return int((self.record.expires_at - self.record.created).total_seconds())


class LegacyTokenService:
    def __init__(
        self,
        store: MemoryStore,
        clock: Clock,
        scheduler: Scheduler,
        outbox: Outbox,
        merchants: MerchantService,
        lifetime: timedelta = TOKEN_LIFETIME,
    ) -> None:
        self._store = store
        self._clock = clock
        self._scheduler = scheduler
        self._merchants = merchants
        self._lifetime = lifetime
        self._lifecycle: Lifecycle[LegacyToken, LegacyTokenStatus, LegacyTokenEvent] = Lifecycle(
            store, outbox, LEGACY_TOKEN_TRANSITIONS, kind=LEGACY_TOKENS, id_field="token_hash"
        )
        scheduler.register(EXPIRE_TIMER, self._expire)

    def client_merchant(self, client_id: str, client_secret: str) -> str:
        """The merchant whose legacy client these credentials are; IR_01 otherwise."""
        merchant = self._client(client_id)
        expected = merchant.legacy_client_secret_hash if merchant is not None else None
        if merchant is None or expected is None or not hmac.compare_digest(key_hash(client_secret), expected):
            raise Unauthorized(BAD_CLIENT)
        return merchant.merchant_id

    def issue(self, merchant_id: str) -> IssuedToken:
        """A new token of the merchant, stored with its expiry timer."""
        with self._store.transaction(merchant_id):
            now = self._clock.now(merchant_id)
            secret = new_secret(_SECRET_DIGITS, self._store.ids(merchant_id))
            access_token = f"{TOKEN_PREFIX}{secret}{merchant_id}"
            record = LegacyToken(
                token_hash=key_hash(access_token),
                merchant_id=merchant_id,
                status=LegacyTokenStatus.ACTIVE,
                created=now,
                updated_at=now,
                expires_at=now + self._lifetime,
            )
            self._store.put(LEGACY_TOKENS, merchant_id, record)
            self._scheduler.schedule(merchant_id, record.expires_at, EXPIRE_TIMER, record.token_hash)
            return IssuedToken(access_token, record)

    def authenticate(self, access_token: str) -> LegacyToken:
        """The active token; IR_01 for a token not issued here, or past its expiry on the mock clock."""
        merchant_id = merchant_in_secret(access_token, TOKEN_PREFIX, _SECRET_DIGITS)
        # Only a known merchant's store is looked in: a lookup would make a space for any other name.
        if merchant_id is None or not self._merchants.exists(merchant_id):
            raise Unauthorized(BAD_TOKEN)
        record: LegacyToken | None = self._store.get(LEGACY_TOKENS, merchant_id, key_hash(access_token))
        if record is None:
            raise Unauthorized(BAD_TOKEN)
        if record.status is LegacyTokenStatus.EXPIRED or self._clock.now(merchant_id) >= record.expires_at:
            raise Unauthorized(EXPIRED_TOKEN)
        return record

    def _client(self, client_id: str) -> Merchant | None:
        page = self._store.query(MERCHANTS, GLOBAL, Query(where={"legacy_client_id": client_id}, limit=1))
        return page.items[0] if page.items else None

    def _expire(self, merchant_id: str, token_hash: str) -> None:
        record: LegacyToken | None = self._store.get(LEGACY_TOKENS, merchant_id, token_hash)
        if record is None or record.status is not LegacyTokenStatus.ACTIVE:
            return
        self._lifecycle.move(record, LegacyTokenEvent.EXPIRE, self._clock.now(merchant_id))
