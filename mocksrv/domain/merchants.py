"""MerchantService: merchants, their profiles and keys, authentication and the outcome table."""

from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from mocksrv.domain.clock import Clock
from mocksrv.domain.errors import DuplicateResource, InvalidField, ResourceNotFound, Unauthorized
from mocksrv.domain.ids import SYSTEM, Entropy, new_id, new_secret, unused
from mocksrv.domain.models import (
    CONNECTOR,
    ApiKey,
    ApiKeyStatus,
    Environment,
    KeyKind,
    Merchant,
    Principal,
    Profile,
    WebhookSettings,
    evolve,
)
from mocksrv.domain.payments.outcomes import ON_SESSION, Context, OutcomeTable, outcome_context
from mocksrv.domain.store import GLOBAL, MemoryStore, Query

MERCHANTS = "merchant"
PROFILES = "profile"
API_KEYS = "api_key"
DEFAULT_SESSION_EXPIRY = 900
DEFAULT_PROFILE_NAME = "default"  # what a profile created without a name is called, as in the real service
# The names the API key routes show for the keys every merchant starts with.
_STARTING_KEY_NAMES = {KeyKind.SECRET: "default", KeyKind.PUBLISHABLE: "publishable"}
MAX_RETURN_URL_LENGTH = 255  # a profile's return_url, as the real service bounds it
MAX_PROFILE_NAME_LENGTH = 64  # a profile's name, as the real service bounds it
_OTHER_ENVIRONMENT_KEY = {
    Environment.SANDBOX: "Production keys are not accepted by the sandbox",
    Environment.PRODUCTION: "Sandbox keys are not accepted in production",
}


@dataclass(frozen=True, slots=True)
class MerchantSeed:
    """What a new merchant starts with; anything left None is generated."""

    merchant_id: str | None = None
    profile_id: str | None = None
    profile_name: str = "default"
    secret_key: str | None = None
    publishable_key: str | None = None
    payment_response_hash_key: str | None = None
    session_expiry: int = DEFAULT_SESSION_EXPIRY
    return_url: str | None = None
    webhook_url: str | None = None
    rate_limit: int | None = None
    outcomes: OutcomeTable | None = None
    connector: str = CONNECTOR
    legacy_client_id: str | None = None
    legacy_client_secret: str | None = None


@dataclass(frozen=True, slots=True)
class MerchantCredentials:
    """A new merchant's ids and keys, the only time the keys are shown in full."""

    merchant: Merchant
    profile: Profile
    secret_key: str
    publishable_key: str
    legacy_client_secret: str | None = None  # the legacy card API's; its client id is the merchant's


def _with_settings(settings: WebhookSettings, sent: Mapping[str, Any]) -> WebhookSettings:
    """`settings` with those sent in their place; a list of statuses is kept as a tuple."""
    return evolve(settings, **{name: tuple(v) if isinstance(v, list) else v for name, v in sent.items()})


def _given(fields: Mapping[str, Any], name: str, default: Callable[[], Any]) -> Any:
    """The value sent for a field, an empty or zero one too; else (absent or null) the default."""
    value = fields.get(name)
    return default() if value is None else value


def new_signing_key(entropy: Entropy = SYSTEM) -> str:
    return f"whsec_{new_secret(32, entropy)}"


@functools.lru_cache(maxsize=1024)
def key_hash(key: str) -> str:
    """The SHA-256 of a key, as keys are stored; the recent answers are kept (every request asks)."""
    return hashlib.sha256(key.encode()).hexdigest()


class MerchantService:
    def __init__(
        self,
        store: MemoryStore,
        clock: Clock,
        environment: Environment,
        default_outcomes: OutcomeTable,
        rate_limit: int,
    ) -> None:
        self._store = store
        self._clock = clock
        self._environment = environment
        self._default_outcomes = default_outcomes
        self._rate_limit = rate_limit
        other = Environment.PRODUCTION if environment is Environment.SANDBOX else Environment.SANDBOX
        # Publishable first: a secret prefix is the tail of the publishable one.
        self._prefix_of_foreign = {
            other.publishable_prefix: environment.publishable_prefix,
            other.secret_prefix: environment.secret_prefix,
        }
        self._foreign_prefixes = tuple(self._prefix_of_foreign)

    def _in_environment(self, key: str | None) -> str | None:
        """A key given to a new merchant, under this server's prefix: `snd_default_secret_key` of the
        fixture is served as `prd_default_secret_key` in production, so its keys work there too."""
        for foreign, own in self._prefix_of_foreign.items():
            if key is not None and key.startswith(foreign):
                return own + key.removeprefix(foreign)
        return key

    def create(self, seed: MerchantSeed) -> MerchantCredentials:
        merchant_id = seed.merchant_id or new_id("merchant", 16, self._store.ids(GLOBAL))
        with self._store.transaction(GLOBAL):
            if self._store.get(MERCHANTS, GLOBAL, merchant_id) is not None:
                raise DuplicateResource("merchant", "merchant_id")
            self._store.open_space(merchant_id)  # its clock and ids, which the rest draws from
            try:
                return self._create(merchant_id, seed)
            except BaseException:
                self._store.remove_space(merchant_id)  # refused: nothing of it stays
                raise

    def _create(self, merchant_id: str, seed: MerchantSeed) -> MerchantCredentials:
        """The merchant, its profile and keys, in the space just opened for it."""
        now = self._clock.now(merchant_id)
        env = self._environment
        ids = self._store.ids(merchant_id)
        secret = self._in_environment(seed.secret_key) or f"{env.secret_prefix}{new_secret(32, ids)}"
        publishable = self._in_environment(seed.publishable_key) or (
            f"{env.publishable_prefix}{new_secret(32, ids)}"
        )
        profile = Profile(
            profile_id=seed.profile_id or new_id("pro", 20, ids),
            merchant_id=merchant_id,
            profile_name=seed.profile_name,
            payment_response_hash_key=seed.payment_response_hash_key or new_signing_key(ids),
            session_expiry=seed.session_expiry,
            created=now,
            return_url=seed.return_url,
            webhook_url=seed.webhook_url,
        )
        legacy_client_id = seed.legacy_client_id or new_id("legacy", 20, ids)
        legacy_client_secret = seed.legacy_client_secret or f"lcs_{new_secret(32, ids)}"
        taken = Query(where={"legacy_client_id": legacy_client_id}, limit=1)
        if self._store.query(MERCHANTS, GLOBAL, taken).items:
            raise DuplicateResource("legacy client", "legacy_client_id")
        merchant = Merchant(
            merchant_id=merchant_id,
            profile_id=profile.profile_id,
            created=now,
            outcomes=seed.outcomes or self._default_outcomes,
            rate_limit=seed.rate_limit,
            connector=seed.connector,
            publishable_key=publishable,
            legacy_client_id=legacy_client_id,
            legacy_client_secret_hash=key_hash(legacy_client_secret),
        )
        keys = ((KeyKind.SECRET, secret), (KeyKind.PUBLISHABLE, publishable))
        if secret == publishable or any(
            self._store.get(API_KEYS, GLOBAL, key_hash(key)) is not None for _, key in keys
        ):
            raise DuplicateResource("API key", "api_key")
        # The merchant's record last: a snapshot lists the merchants by it, with no lock, and
        # must find each with its profile and keys.
        self._store.put(PROFILES, merchant_id, profile)
        for kind, key in keys:
            self.add_key(merchant_id, kind, key, now, name=_STARTING_KEY_NAMES[kind])
        self._store.put(MERCHANTS, GLOBAL, merchant)
        return MerchantCredentials(merchant, profile, secret, publishable, legacy_client_secret)

    def new_secret_key(self, merchant_id: str) -> str:
        """A fresh secret key's plaintext, with this server's environment's prefix."""
        ids, prefix = self._store.ids(merchant_id), self._environment.secret_prefix
        return unused(lambda: f"{prefix}{new_secret(32, ids)}", self._key_taken)

    def _key_taken(self, key: str) -> bool:
        return self._store.get(API_KEYS, GLOBAL, key_hash(key)) is not None

    def add_key(
        self,
        merchant_id: str,
        kind: KeyKind,
        key: str,
        now: datetime,
        *,
        name: str | None = None,
        description: str | None = None,
        expiration: datetime | None = None,
    ) -> ApiKey:
        """Store a key's record (its hash, never the key); HE_01 if the key is taken."""
        hashed = key_hash(key)
        with self._store.transaction(GLOBAL):
            if self._store.get(API_KEYS, GLOBAL, hashed) is not None:
                raise DuplicateResource("API key", "api_key")
            ids = self._store.ids(merchant_id)
            held = Query(where={"merchant_id": merchant_id}, limit=sys.maxsize)
            key_ids = {key.key_id for key in self._store.query(API_KEYS, GLOBAL, held).items}
            record = ApiKey(
                key_id=unused(lambda: new_id("key", 20, ids), key_ids.__contains__),
                merchant_id=merchant_id,
                kind=kind,
                key_hash=hashed,
                prefix=key[: len(key) // 2 if len(key) < 16 else 8],
                created=now,
                name=name,
                description=description,
                expiration=expiration,
            )
            self._store.put(API_KEYS, GLOBAL, record)
            return record

    def authenticate(self, key: str | None) -> Principal:
        """Return who a key acts as; any problem with it is IR_01."""
        if not key:
            raise Unauthorized()
        if key.startswith(self._foreign_prefixes):
            raise Unauthorized(_OTHER_ENVIRONMENT_KEY[self._environment])
        record: ApiKey | None = self._store.get(API_KEYS, GLOBAL, key_hash(key))
        if record is None or record.status is not ApiKeyStatus.ACTIVE:
            raise Unauthorized()
        if record.expiration is not None and self._clock.now(record.merchant_id) >= record.expiration:
            raise Unauthorized()
        return self.principal(record.merchant_id, record.key_id, record.kind)

    def principal(self, merchant_id: str, key_id: str, kind: KeyKind) -> Principal:
        """Who a request acts as through the merchant's credential `key_id`, with its rate limit."""
        merchant = self.merchant(merchant_id)
        limit = self._rate_limit if merchant.rate_limit is None else merchant.rate_limit
        return Principal(merchant_id, key_id, kind, limit)

    def merchant(self, merchant_id: str) -> Merchant:
        merchant = self.find(merchant_id)
        if merchant is None:
            raise ResourceNotFound("Merchant")
        return merchant

    def find(self, merchant_id: str) -> Merchant | None:
        merchant: Merchant | None = self._store.get(MERCHANTS, GLOBAL, merchant_id)
        return merchant

    def exists(self, merchant_id: str) -> bool:
        return self.find(merchant_id) is not None

    def api_keys(self, merchant_id: str) -> list[ApiKey]:
        """Every key of the merchant's, whatever its kind or state."""
        of_merchant = Query(where={"merchant_id": merchant_id}, limit=0)
        total = self._store.query(API_KEYS, GLOBAL, of_merchant).total_count
        keys: list[ApiKey] = self._store.query(API_KEYS, GLOBAL, replace(of_merchant, limit=total)).items
        return keys

    def forget(self, merchant_id: str) -> None:
        """Take the merchant's record and keys out of the store: its keys stop working at once."""
        with self._store.transaction(GLOBAL):
            for key in self.api_keys(merchant_id):
                self._store.delete(API_KEYS, GLOBAL, key.key_hash)
            self._store.delete(MERCHANTS, GLOBAL, merchant_id)

    def merchant_ids(self) -> list[str]:
        return [m for m in self._store.merchant_ids() if self.exists(m)]

    def profile(self, merchant_id: str, profile_id: str) -> Profile | None:
        profile: Profile | None = self._store.get(PROFILES, merchant_id, profile_id)
        return profile

    def profile_or_default(self, merchant_id: str, profile_id: str) -> Profile:
        """The profile a resource names, else the merchant's default (a profile deleted since)."""
        return self.profile(merchant_id, profile_id) or self.default_profile(merchant_id)

    def default_profile(self, merchant_id: str) -> Profile:
        profile = self.profile(merchant_id, self.merchant(merchant_id).profile_id)
        if profile is None:
            raise ResourceNotFound("Business profile")
        return profile

    def profiles(self, merchant_id: str) -> list[Profile]:
        """Every profile of the merchant, newest first."""
        self.merchant(merchant_id)
        with self._store.transaction(merchant_id):
            total = self._store.count(PROFILES, merchant_id)
            return list(self._store.query(PROFILES, merchant_id, Query(limit=total)).items)

    def retrieve_profile(self, merchant_id: str, profile_id: str) -> Profile:
        profile = self.profile(merchant_id, profile_id)
        if profile is None:
            raise ResourceNotFound("Business profile")
        return profile

    def create_profile(self, merchant_id: str, fields: Mapping[str, Any]) -> Profile:
        """A further profile of the merchant: its own webhook URL, signing key and return URL."""
        self.merchant(merchant_id)
        with self._store.transaction(merchant_id):
            ids = self._store.ids(merchant_id)
            profile = Profile(
                profile_id=unused(
                    lambda: new_id("pro", 20, ids),
                    lambda profile_id: self._store.get(PROFILES, merchant_id, profile_id) is not None,
                ),
                merchant_id=merchant_id,
                profile_name=fields.get("profile_name", DEFAULT_PROFILE_NAME),  # "" too, as sent
                payment_response_hash_key=_given(
                    fields, "payment_response_hash_key", lambda: new_signing_key(ids)
                ),
                session_expiry=_given(fields, "session_expiry", lambda: DEFAULT_SESSION_EXPIRY),
                created=self._clock.now(merchant_id),
                return_url=fields.get("return_url"),
                webhook_url=fields.get("webhook_url"),
                webhook_settings=_with_settings(WebhookSettings(), fields.get("webhook_settings", {})),
            )
            self._store.put(PROFILES, merchant_id, profile)
            return profile

    def delete_profile(self, merchant_id: str, profile_id: str) -> None:
        """Delete a profile; the merchant's default one (which is also its last) stays.

        Its payments and the rest keep naming it; their events from then on have no profile to be
        sent to, so they are kept undelivered (`no_endpoint`).
        """
        with self._store.transaction(merchant_id):
            self.retrieve_profile(merchant_id, profile_id)
            if profile_id == self.merchant(merchant_id).profile_id:
                raise InvalidField("profile_id", "the merchant's default profile cannot be deleted")
            self._store.delete(PROFILES, merchant_id, profile_id)

    def profile_id_of(self, merchant_id: str, resource: object) -> str:
        """The profile a resource belongs to: the one it names (payments, refunds, disputes, payouts,
        links), else the merchant's default (resources of no profile, such as mandates)."""
        profile_id = getattr(resource, "profile_id", None)
        return profile_id if isinstance(profile_id, str) else self.merchant(merchant_id).profile_id

    def event_profile(self, merchant_id: str, resource: object) -> Profile | None:
        """The profile whose webhook URL and signing key an event of `resource` is sent with; None
        once that profile is deleted."""
        return self.profile(merchant_id, self.profile_id_of(merchant_id, resource))

    def update_profile(self, merchant_id: str, profile_id: str, changes: Mapping[str, Any]) -> Profile:
        """Change a profile's settings; each webhook setting sent (`webhook_settings`) replaces its own
        alone."""
        with self._store.transaction(merchant_id):
            profile = self.retrieve_profile(merchant_id, profile_id)
            if "webhook_settings" in changes:
                sent = changes["webhook_settings"]
                changes = {**changes, "webhook_settings": _with_settings(profile.webhook_settings, sent)}
            updated = evolve(profile, **changes)
            self._store.put(PROFILES, merchant_id, updated)
            return updated

    def outcomes(self, merchant_id: str) -> OutcomeTable:
        return self.merchant(merchant_id).outcomes

    def leads_as_default(
        self,
        merchant_id: str,
        method: str,
        method_type: str | None,
        data: Mapping[str, Any],
        context: Context = ON_SESSION,
    ) -> bool:
        """Whether the merchant's outcome table takes a payment (or a payout) of this method where the
        default table takes it: the same results, dispute and refunds, whatever its words."""
        own = self.outcomes(merchant_id).match(method, method_type, data, context)
        default = self._default_outcomes.match(method, method_type, data, context)
        return own.route() == default.route()

    def card_leads_as_default(self, merchant_id: str, card_payment: Mapping[str, Any]) -> bool:
        """`leads_as_default` for a card payment, given as a create's body."""
        card = card_payment["payment_method_data"]["card"]
        context = outcome_context(card_payment, card_payment.get("authentication_type"))
        method_type = card_payment.get("payment_method_type")
        return self.leads_as_default(merchant_id, "card", method_type, {"card": card}, context)

    def replace_outcomes(self, merchant_id: str, table: OutcomeTable) -> OutcomeTable:
        with self._store.transaction(GLOBAL):
            merchant = self.merchant(merchant_id)
            self._store.put(MERCHANTS, GLOBAL, evolve(merchant, outcomes=table))
            return table

    def require_merchant_id(self, merchant_id: object) -> str:
        """Check a merchant id named in a control-plane request."""
        if not isinstance(merchant_id, str) or not merchant_id:
            raise InvalidField("merchant_id", missing=merchant_id is None)
        if not self.exists(merchant_id):
            raise ResourceNotFound("Merchant")
        return merchant_id
