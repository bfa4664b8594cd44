"""The sandbox: one store, one clock, and the services that work on them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from mocksrv.domain.analytics.service import AnalyticsService
from mocksrv.domain.api_keys.records import API_KEY_TRANSITIONS
from mocksrv.domain.api_keys.service import ApiKeyService
from mocksrv.domain.clock import Clock, SystemTime, initial_state, system_now
from mocksrv.domain.controls.faults import FAULTS, FaultService
from mocksrv.domain.controls.journal import DEFAULT_SIZE as DEFAULT_JOURNAL_SIZE
from mocksrv.domain.controls.journal import RequestJournal
from mocksrv.domain.customers import CUSTOMERS, CustomerService
from mocksrv.domain.disputes import DISPUTE_TRANSITIONS, DISPUTES, DisputeService
from mocksrv.domain.ephemeral_keys import EPHEMERAL_KEY_COLLECTION, EPHEMERAL_KEYS, EphemeralKeyService
from mocksrv.domain.errors import InvalidField
from mocksrv.domain.legacy.cards import LegacyCardService
from mocksrv.domain.legacy.tokens import LEGACY_TOKEN_TRANSITIONS, LEGACY_TOKENS, LegacyTokenService
from mocksrv.domain.links.records import PAYMENT_LINK_TRANSITIONS, PAYMENT_LINKS
from mocksrv.domain.links.service import PaymentLinkService
from mocksrv.domain.merchants import (
    API_KEYS,
    MERCHANTS,
    PROFILES,
    MerchantCredentials,
    MerchantSeed,
    MerchantService,
)
from mocksrv.domain.models import Customer, Environment
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.payments.method_data import MethodResolver
from mocksrv.domain.payments.outcomes import OutcomeTable
from mocksrv.domain.payments.service import PAYMENTS, PaymentService
from mocksrv.domain.payments.states import PAYMENT_TRANSITIONS
from mocksrv.domain.payouts import PAYOUT_TRANSITIONS, PAYOUTS, PayoutService
from mocksrv.domain.ratelimit import RateLimiter
from mocksrv.domain.recurring.mandates import MandateService
from mocksrv.domain.recurring.payment_methods import PaymentMethodService
from mocksrv.domain.recurring.records import MANDATE_TRANSITIONS, MANDATES, PAYMENT_METHODS
from mocksrv.domain.refunds import REFUND_TRANSITIONS, REFUNDS, RefundService
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import GLOBAL, Collection, MemoryStore
from mocksrv.domain.transitions import TransitionTable
from mocksrv.domain.webhooks import (
    ATTEMPTS,
    CHAOS,
    CHAOS_COLLECTIONS,
    DELIVERIES,
    DELIVERY_TRANSITIONS,
    HOLDS,
    WebhookService,
)

COLLECTIONS = [
    Collection(MERCHANTS, "merchant_id", indexed=("legacy_client_id",)),
    Collection(PROFILES, "profile_id"),
    Collection(API_KEYS, "key_hash", indexed=("merchant_id",)),
    Collection(CUSTOMERS, "customer_id"),
    Collection(PAYMENTS, "payment_id", indexed=("status", "customer_id", "currency")),
    Collection(REFUNDS, "refund_id", indexed=("payment_id", "status")),
    Collection(PAYOUTS, "payout_id", indexed=("status", "customer_id", "currency")),
    Collection(DISPUTES, "dispute_id", indexed=("status", "payment_id")),
    Collection(DELIVERIES, "event_id", ordered=False),
    Collection(ATTEMPTS, "attempt_id", created_field="attempted_at", indexed=("event_id",)),
    Collection(PAYMENT_METHODS, "payment_method_id", indexed=("customer_id", "payment_token")),
    Collection(MANDATES, "mandate_id", indexed=("customer_id",)),
    Collection(PAYMENT_LINKS, "payment_link_id"),
    Collection(FAULTS, "fault_id", ordered=False),
    EPHEMERAL_KEY_COLLECTION,
    Collection(LEGACY_TOKENS, "token_hash", ordered=False),
    *CHAOS_COLLECTIONS,
]

TRANSITION_TABLES: dict[str, TransitionTable[Any, Any]] = {
    "payment": PAYMENT_TRANSITIONS,
    "refund": REFUND_TRANSITIONS,
    "dispute": DISPUTE_TRANSITIONS,
    "payout": PAYOUT_TRANSITIONS,
    "mandate": MANDATE_TRANSITIONS,
    "payment_link": PAYMENT_LINK_TRANSITIONS,
    "api_key": API_KEY_TRANSITIONS,
    "webhook_delivery": DELIVERY_TRANSITIONS,
    "legacy_token": LEGACY_TOKEN_TRANSITIONS,
}

# What a reset deletes; keys, profiles and settings stay.
RESETTABLE = [
    PAYMENTS,
    CUSTOMERS,
    REFUNDS,
    PAYOUTS,
    DISPUTES,
    DELIVERIES,
    ATTEMPTS,
    CHAOS,
    HOLDS,
    EPHEMERAL_KEYS,
    LEGACY_TOKENS,
    PAYMENT_METHODS,
    MANDATES,
    PAYMENT_LINKS,
    FAULTS,
]

# The payment that /__mock/seed creates, over and over.
SEED_PAYMENT: dict[str, Any] = {
    "currency": "USD",
    "confirm": True,
    "payment_method": "card",
    "payment_method_type": "credit",
    "payment_method_data": {
        "card": {
            "card_number": "4242424242424242",
            "card_exp_month": "12",
            "card_exp_year": "9999",  # later than the mock clock can go: the card never expires
            "card_cvc": "123",
        }
    },
    "billing": {
        "address": {
            "line1": "1 Seed Street",
            "city": "San Francisco",
            "state": "CA",
            "zip": "94105",
            "country": "US",
            "first_name": "Seed",
            "last_name": "Payment",
        },
        "phone": {"number": "4155550100", "country_code": "+1"},
    },
}


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    environment: Environment = Environment.SANDBOX
    capture_window_seconds: int = 7 * 24 * 3600
    rate_limit: int = 6000
    journal_size: int = DEFAULT_JOURNAL_SIZE  # requests kept per merchant; 0 records none


class Sandbox:
    def __init__(
        self,
        config: SandboxConfig,
        outcomes: OutcomeTable,
        system_time: SystemTime = system_now,
    ) -> None:
        self.config = config
        self.seeded: list[MerchantCredentials] = []  # the merchants of the fixtures, with their keys
        self.store = MemoryStore(COLLECTIONS, lambda: initial_state(system_time))
        self.clock = Clock(self.store, system_time)
        self.scheduler = Scheduler(self.store, self.clock)
        self.outbox = Outbox(self.store)
        self.rate_limiter = RateLimiter(self.store, self.clock)
        self.journal = RequestJournal(config.journal_size)
        self.faults = FaultService(self.store, self.clock)
        self.analytics = AnalyticsService(self.store, self.clock)
        self.merchants = MerchantService(
            self.store, self.clock, config.environment, outcomes, config.rate_limit
        )
        self.api_keys = ApiKeyService(self.store, self.clock, self.outbox, self.merchants)
        self.customers = CustomerService(self.store, self.clock)
        self.ephemeral_keys = EphemeralKeyService(self.store, self.clock, self.merchants)
        self.refunds = RefundService(self.store, self.clock, self.scheduler, self.outbox)
        self.payouts = PayoutService(self.store, self.clock, self.scheduler, self.outbox, self.merchants)
        self.disputes = DisputeService(self.store, self.clock, self.scheduler, self.outbox)
        self.webhooks = WebhookService(self.store, self.clock, self.scheduler, self.merchants)
        self.payment_methods = PaymentMethodService(self.store, self.clock)
        self.mandates = MandateService(self.store, self.clock, self.outbox)
        self.outbox.subscribe(self.webhooks.on_event)
        self.outbox.subscribe(self.disputes.on_event)
        self.outbox.subscribe(self.payment_methods.on_event)
        self.outbox.subscribe(self.mandates.on_event)
        self.payments = PaymentService(
            self.store,
            self.clock,
            self.scheduler,
            self.outbox,
            self.merchants,
            MethodResolver(self.merchants, self.payment_methods, self.mandates),
            timedelta(seconds=config.capture_window_seconds),
        )
        self.payment_links = PaymentLinkService(
            self.store, self.clock, self.scheduler, self.outbox, self.merchants, self.payments
        )
        self.outbox.subscribe(self.payment_links.on_event)
        self.legacy_tokens = LegacyTokenService(
            self.store, self.clock, self.scheduler, self.outbox, self.merchants
        )
        self.legacy_cards = LegacyCardService(self.merchants, self.payments)

    def add_merchant(self, seed: MerchantSeed) -> MerchantCredentials:
        credentials = self.merchants.create(seed)
        self.seeded.append(credentials)
        return credentials

    def delete_customer(self, merchant_id: str, customer_id: str) -> Customer:
        """Delete a customer with its saved methods, mandates and ephemeral keys (which would otherwise
        belong, or act for, a new customer of the same id), and mark its payments under way, which
        then save no method; refused (IR_10) while a mandate of it is
        active or pending (its setup payment may yet be paid)."""
        with self.store.transaction(merchant_id):
            self.customers.retrieve(merchant_id, customer_id)
            self.mandates.check_none_in_force(merchant_id, customer_id)
            self.mandates.delete_of_customer(merchant_id, customer_id)
            self.payment_methods.delete_of_customer(merchant_id, customer_id)
            self.ephemeral_keys.delete_of_customer(merchant_id, customer_id)
            self.payments.customer_deleted(merchant_id, customer_id)
            return self.customers.delete(merchant_id, customer_id)

    def seed_payments(self, merchant_id: str, count: int) -> int:
        """Create `count` succeeded card payments through the ordinary create path; none, refused
        (IR_04), when the merchant's outcome table would not let them succeed."""
        profile_id = self.merchants.merchant(merchant_id).profile_id
        if not self.merchants.card_leads_as_default(merchant_id, SEED_PAYMENT):
            number = SEED_PAYMENT["payment_method_data"]["card"]["card_number"]
            raise InvalidField(
                "payments",
                f"the merchant's outcome table does not take the seed card {number} to a plain success",
            )
        for index in range(count):
            self.payments.create(
                merchant_id, {**SEED_PAYMENT, "amount": 100 + index % 10_000, "profile_id": profile_id}
            )
        return count

    def remove_merchant(self, merchant_id: str) -> None:
        """Forget the merchant and all of it: its keys stop working, and its data, clock, timers,
        queued deliveries, journal and held requests go, with the memory they took (a test suite's
        merchant of one test, removed after it)."""
        with self.store.transaction(GLOBAL):
            # The space first, once what holds its lock (an advance, a request) is done: until then
            # the merchant is whole, so that what runs finds its record and keys.
            self.store.remove_space(merchant_id)
            self.merchants.forget(merchant_id)
            self.journal.forget(merchant_id)
        self.faults.release_pauses(merchant_id, abandon=True)

    def reset(self, merchant_id: str) -> None:
        """Delete the merchant's resources, events, timers and requests; keep its keys, profile, settings."""
        self.store.clear(merchant_id, RESETTABLE)
        self.journal.clear(merchant_id)
        self.faults.release_pauses(merchant_id, abandon=True)  # a request its faults hold ends now
