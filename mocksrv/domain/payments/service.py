"""PaymentService: create, update, confirm, capture, cancel, review and the payment timers."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

from mocksrv.domain.clock import Clock
from mocksrv.domain.customers import CUSTOMERS
from mocksrv.domain.errors import ClientSecretExpired, DuplicateResource, InvalidField, PaymentNotFound
from mocksrv.domain.events import ContentType
from mocksrv.domain.ids import new_client_secret, new_real_id
from mocksrv.domain.lifecycle import Lifecycle
from mocksrv.domain.merchants import MerchantService
from mocksrv.domain.models import Capture, CaptureMethod, Page, Payment, build, evolve
from mocksrv.domain.outbox import Outbox
from mocksrv.domain.payments.fields import described_fields
from mocksrv.domain.payments.method_data import MethodResolver, Paying, sends_method
from mocksrv.domain.payments.outcomes import SUCCESS, Outcome, OutcomeResult, outcome_context
from mocksrv.domain.payments.sent import (
    check_client_secret,
    check_customer,
    paying_for,
    sent_changes,
    split_rule_change,
    split_rule_id,
)
from mocksrv.domain.payments.states import (
    CAPTURE_CONFLICT_STATES,
    PAYMENT_TRANSITIONS,
    UNDER_WAY,
    PaymentEvent,
    PaymentStatus,
)
from mocksrv.domain.payments.steps import step_event, step_of
from mocksrv.domain.recurring.records import MANDATES, Mandate
from mocksrv.domain.recurring.setup import set_up, sets_up
from mocksrv.domain.scheduler import Scheduler
from mocksrv.domain.store import MemoryStore, Query

PAYMENTS = "payment"
SETTLE_TIMER = "payment.settle"
EXPIRE_TIMER = "payment.expire"
TRANSFER_TIMER = "payment.transfer_window"
BANK_TRANSFER = "bank_transfer"  # the method whose customer's action is a transfer, not a page

_NONE: Mapping[str, Any] = MappingProxyType({})  # no changes sent along with an action

REJECTED_CODE = "manual_review_rejected"
REJECTED_MESSAGE = "The payment was rejected after manual review"
AUTHENTICATION_FAILED_CODE = "authentication_failed"
AUTHENTICATION_FAILED_MESSAGE = "The customer did not complete 3D Secure authentication"
NOT_AUTHORIZED_MESSAGE = "The customer did not authorize the payment"
TRANSFER_EXPIRED_CODE = "transfer_expired"
TRANSFER_EXPIRED_MESSAGE = "The bank transfer did not arrive before the transfer window closed"


class PaymentService:
    def __init__(
        self,
        store: MemoryStore,
        clock: Clock,
        scheduler: Scheduler,
        outbox: Outbox,
        merchants: MerchantService,
        methods: MethodResolver,
        capture_window: timedelta,
    ) -> None:
        self._store = store
        self._clock = clock
        self._scheduler = scheduler
        self._merchants = merchants
        self._methods = methods
        self._capture_window = capture_window
        self._lifecycle: Lifecycle[Payment, PaymentStatus, PaymentEvent] = Lifecycle(
            store,
            outbox,
            PAYMENT_TRANSITIONS,
            kind=PAYMENTS,
            id_field="payment_id",
            content_type=ContentType.PAYMENT_DETAILS,
            stamp_field="modified_at",
        )
        scheduler.register(SETTLE_TIMER, self._settle)
        scheduler.register(EXPIRE_TIMER, self._expire)
        scheduler.register(TRANSFER_TIMER, self._transfer_window_passed)

    # -- reads --------------------------------------------------------------------------------

    def retrieve(
        self,
        merchant_id: str,
        payment_id: str,
        client_secret: str | None = None,
        *,
        secret_required: bool = False,
        secret_expires: bool = True,
    ) -> Payment:
        """The payment; with its client secret, only while that has not expired (`secret_expires`:
        a caller with an expiry of its own, such as a link's, says False and tells its own)."""
        payment = self._get(merchant_id, payment_id)
        check_client_secret(payment, client_secret, secret_required)
        # An unconfirmed payment's secret expires (decisions section 2): a page reads it no more, as
        # it confirms no more. Once confirmed, its return page may still read how it went.
        if (
            secret_expires
            and client_secret is not None
            and PAYMENT_TRANSITIONS.allows_action(payment.status, "confirm")
            and self._clock.now(merchant_id) >= payment.client_secret_expires_at
        ):
            raise ClientSecretExpired()
        return payment

    def list(self, merchant_id: str, query: Query) -> Page:
        missing = self._store.missing_cursor(PAYMENTS, merchant_id, query)
        if missing is not None:
            raise InvalidField(missing, "no such payment")
        return self._store.query(PAYMENTS, merchant_id, query)

    # -- operations ---------------------------------------------------------------------------

    def create(self, merchant_id: str, fields: Mapping[str, Any], at: datetime | None = None) -> Payment:
        """A payment made now, or `at` the time a caller that holds the merchant's lock has read."""
        # Everything that reads no stored state happens before the transaction, to keep it short.
        now = self._clock.now(merchant_id) if at is None else at
        merchant = self._merchants.merchant(merchant_id)
        profile = self._merchants.profile(merchant_id, fields["profile_id"])
        if profile is None:
            raise InvalidField("profile_id", "no such business profile")
        payment_id = fields.get("payment_id") or new_real_id("pay", self._store.ids(merchant_id))
        if fields["amount"] == 0 and not sets_up(fields):
            raise InvalidField(
                "amount", "0 only for a setup payment, with mandate_data or setup_future_usage"
            )
        described = described_fields(fields)
        if "return_url" not in described and profile.return_url is not None:
            described["return_url"] = profile.return_url
        method = {}
        if sends_method(fields):
            paying = Paying(
                merchant_id,
                fields,
                described.get("customer_id"),
                described.get("billing"),
                outcome_context(described.get("echoed"), fields.get("authentication_type")),
                saves=sets_up(fields),
            )
            method = self._methods.resolve(paying, now)
        expiry = fields.get("session_expiry", profile.session_expiry)
        payment = build(
            Payment,
            payment_id=payment_id,
            merchant_id=merchant.merchant_id,
            profile_id=profile.profile_id,
            connector=merchant.connector,
            status=(PaymentStatus.REQUIRES_CONFIRMATION if method else PaymentStatus.REQUIRES_PAYMENT_METHOD),
            amount=fields["amount"],
            currency=fields["currency"],
            capture_method=CaptureMethod(fields.get("capture_method") or CaptureMethod.AUTOMATIC),
            created=now,
            modified_at=now,
            client_secret=new_client_secret(payment_id, self._store.ids(merchant_id)),
            client_secret_expires_at=now + timedelta(seconds=expiry),
            split_rule_id=split_rule_id(self._store, merchant_id, None, described.get("echoed")),
            **described,
            **method,
        )
        confirm = bool(fields.get("confirm"))
        if confirm and payment.outcome is None:
            raise InvalidField("payment_method_data", missing=True)
        # A saved method, a mandate and recurring details name the method they charge themselves.
        names_its_method = (
            method.get("payment_method_id") is not None or fields.get("recurring_details") is not None
        )
        if confirm and not names_its_method and "payment_method" not in fields:
            raise InvalidField("payment_method", missing=True)
        with self._store.transaction(merchant_id):
            # Read under the lock an advance of the clock takes too.
            later = self._clock.now(merchant_id) if at is None else at
            if later != now:  # moved meanwhile: the payment is made, and its timers set, from now on
                secret_expiry = later + timedelta(seconds=expiry)
                payment = evolve(
                    payment, created=later, modified_at=later, client_secret_expires_at=secret_expiry
                )
                now = later
            if self._store.get(PAYMENTS, merchant_id, payment_id) is not None:
                raise DuplicateResource("payment", "payment_id")
            check_customer(self._store, merchant_id, fields)
            if confirm and payment.outcome is not None:
                return self._apply(payment, payment.outcome, "confirm", now)
            self._store.put(PAYMENTS, merchant_id, payment)
            return payment

    def update(self, merchant_id: str, payment_id: str, fields: Mapping[str, Any]) -> Payment:
        with self._store.transaction(merchant_id):
            payment = self._get(merchant_id, payment_id)
            PAYMENT_TRANSITIONS.check_action(payment.status, "update")
            now = self._clock.now(merchant_id)
            changes = sent_changes(self._store, payment, fields, now)
            if sends_method(fields):
                changes.update(self._methods.resolve(paying_for(payment, fields, changes), now))
                event = PaymentEvent.ATTACH_METHOD
            else:
                event = PaymentEvent.UPDATE_DETAILS
            changes.update(split_rule_change(self._store, payment, changes))
            return self._lifecycle.move(payment, event, now, **changes)

    def confirm(
        self,
        merchant_id: str,
        payment_id: str,
        fields: Mapping[str, Any],
        client_secret: str | None = None,
        *,
        secret_required: bool = False,
    ) -> Payment:
        with self._store.transaction(merchant_id):
            payment = self._get(merchant_id, payment_id)
            now = self._clock.now(merchant_id)
            check_client_secret(payment, client_secret, secret_required)
            PAYMENT_TRANSITIONS.check_action(payment.status, "confirm")
            if client_secret is not None and now >= payment.client_secret_expires_at:
                raise ClientSecretExpired()
            changes = sent_changes(self._store, payment, fields, now)
            if sends_method(fields):
                paying = paying_for(payment, fields, changes, by_customer=secret_required)
                changes.update(self._methods.resolve(paying, now))
            outcome = changes.get("outcome", payment.outcome)
            if outcome is None:
                raise InvalidField("payment_method_data", missing=True)
            return self._apply(payment, outcome, "confirm", now, changes)

    def capture(
        self,
        merchant_id: str,
        payment_id: str,
        amount_to_capture: int | None = None,
        statement_descriptor: str | None = None,
    ) -> Payment:
        with self._store.transaction(merchant_id):
            payment = self._get(merchant_id, payment_id)
            PAYMENT_TRANSITIONS.check_action(
                payment.status, "capture", conflict=payment.status in CAPTURE_CONFLICT_STATES
            )
            amount = payment.amount_capturable if amount_to_capture is None else amount_to_capture
            if amount > payment.amount_capturable:
                raise InvalidField(
                    "amount_to_capture", f"exceeds amount_capturable ({payment.amount_capturable})"
                )
            received = payment.amount_received + amount
            if received == payment.amount:
                event, capturable = PaymentEvent.CAPTURE_FULL, 0
            elif payment.capture_method is CaptureMethod.MANUAL_MULTIPLE:
                event, capturable = PaymentEvent.CAPTURE_PARTIAL, payment.amount_capturable - amount
            else:
                event, capturable = PaymentEvent.CAPTURE_PARTIAL_FINAL, 0
            now = self._clock.now(merchant_id)
            changes: dict[str, Any] = {}
            if statement_descriptor:
                changes["statement_descriptor"] = statement_descriptor
            sequence = len(payment.captures) + 1
            capture = Capture(f"{payment.attempt_id}_{sequence}", amount, sequence, now)
            return self._lifecycle.move(
                payment,
                event,
                now,
                amount_received=received,
                amount_capturable=capturable,
                captured_at=now,
                captures=(*payment.captures, capture),
                **changes,
            )

    def cancel(
        self, merchant_id: str, payment_id: str, reason: str | None = None, *, awaiting: str | None = None
    ) -> Payment:
        """Cancel; with `awaiting`, only while the payment still waits for that action (the
        authorization page's Cancel, which a Complete pressed a moment before must win over)."""
        with self._store.transaction(merchant_id):
            payment = self._get(merchant_id, payment_id)
            if awaiting is not None:
                PAYMENT_TRANSITIONS.check_action(payment.status, awaiting)
            now = self._clock.now(merchant_id)
            return self._lifecycle.move(
                payment,
                PaymentEvent.CANCEL,
                now,
                amount_capturable=0,
                cancelled_at=now,
                cancellation_reason=reason,
            )

    def approve(self, merchant_id: str, payment_id: str) -> Payment:
        with self._store.transaction(merchant_id):
            payment = self._get(merchant_id, payment_id)
            PAYMENT_TRANSITIONS.check_action(payment.status, "approve")
            return self._apply(payment, SUCCESS, "approve", self._clock.now(merchant_id))

    def reject(self, merchant_id: str, payment_id: str) -> Payment:
        with self._store.transaction(merchant_id):
            payment = self._get(merchant_id, payment_id)
            return self._lifecycle.move(
                payment,
                PaymentEvent.REJECT,
                self._clock.now(merchant_id),
                amount_capturable=0,
                error_code=REJECTED_CODE,
                error_message=REJECTED_MESSAGE,
            )

    def authenticate(self, merchant_id: str, payment_id: str, *, completed: bool) -> Payment:
        """Finish the customer's action (3D Secure, a redirect): completed leads to the method's
        outcome, else a decline. A bank transfer is not authenticated: its transfer arrives."""
        with self._store.transaction(merchant_id):
            payment = self._get(merchant_id, payment_id)
            PAYMENT_TRANSITIONS.check_action(payment.status, "authenticate")
            if payment.payment_method == BANK_TRANSFER:
                raise InvalidField("payment_id", "a bank transfer is paid when its transfer arrives")
            return self._finish_action(payment, completed=completed)

    def transfer_arrived(self, merchant_id: str, payment_id: str) -> Payment:
        """The customer's bank transfer arrived (the control plane): the payment turns out as its
        outcome says."""
        with self._store.transaction(merchant_id):
            payment = self._get(merchant_id, payment_id)
            PAYMENT_TRANSITIONS.check_action(payment.status, "authenticate")
            if payment.payment_method != BANK_TRANSFER:
                raise InvalidField("payment_id", "the payment does not wait for a bank transfer")
            return self._finish_action(payment, completed=True)

    # -- timers -------------------------------------------------------------------------------

    def _transfer_window_passed(self, merchant_id: str, payment_id: str) -> None:
        payment = self._store.get(PAYMENTS, merchant_id, payment_id)
        if payment is None or payment.status is not PaymentStatus.REQUIRES_CUSTOMER_ACTION:
            return
        self._fail_action(
            payment, self._clock.now(merchant_id), TRANSFER_EXPIRED_CODE, TRANSFER_EXPIRED_MESSAGE
        )

    def _settle(self, merchant_id: str, payment_id: str) -> None:
        payment = self._store.get(PAYMENTS, merchant_id, payment_id)
        if payment is None or payment.status is not PaymentStatus.PROCESSING:
            return
        outcome = payment.next_outcome or SUCCESS
        self._apply(payment, outcome, "settle", self._clock.now(merchant_id))

    def _expire(self, merchant_id: str, payment_id: str) -> None:
        payment = self._store.get(PAYMENTS, merchant_id, payment_id)
        if payment is None or PAYMENT_TRANSITIONS.find(payment.status, PaymentEvent.EXPIRE) is None:
            return
        self._lifecycle.move(payment, PaymentEvent.EXPIRE, self._clock.now(merchant_id), amount_capturable=0)

    # -- the path of every change -------------------------------------------------------------

    def _finish_action(self, payment: Payment, *, completed: bool) -> Payment:
        now = self._clock.now(payment.merchant_id)
        if completed and payment.next_outcome is not None:
            return self._apply(payment, payment.next_outcome, "authenticate", now)
        card = payment.payment_method == "card"
        message = AUTHENTICATION_FAILED_MESSAGE if card else NOT_AUTHORIZED_MESSAGE
        return self._fail_action(payment, now, AUTHENTICATION_FAILED_CODE, message)

    def _fail_action(self, payment: Payment, now: datetime, code: str, message: str) -> Payment:
        """Decline a payment whose customer did not finish the action it waits for."""
        return self._lifecycle.move(
            payment,
            PaymentEvent.AUTHENTICATE_DECLINE,
            now,
            error_code=code,
            error_message=message,
            next_outcome=None,
        )

    def _apply(
        self, payment: Payment, outcome: Outcome, action: str, now: datetime, sent: Mapping[str, Any] = _NONE
    ) -> Payment:
        """Move the payment as `outcome` says, as part of `action`, with the changes `sent` along
        (a confirm's method and billing) in the same copy; schedule what follows."""
        changes: dict[str, Any] = {}
        mandate = None
        sent_to = evolve(payment, **sent) if sent else payment  # as the changes sent along make it
        if action == "confirm":
            changes.update(attempt_count=payment.attempt_count + 1, attempted_at=now)
            mandate = self._recurring(sent_to, changes, now)
        step, stepped = step_of(sent_to, outcome, now)
        changes.update(stepped)
        if outcome.result is OutcomeResult.CHALLENGE and not sent_to.return_url:
            raise InvalidField("return_url", missing=True)
        merchant_id = payment.merchant_id
        if mandate is not None:  # stored first: the payment's event moves it (MandateService.on_event)
            self._store.put(MANDATES, merchant_id, mandate)
        # The id is drawn only now, once every check has passed.
        changes.update(split_rule_change(self._store, payment, sent))
        updated = self._lifecycle.move(payment, step_event(action, step), now, **{**sent, **changes})
        if step == "authorize":
            self._scheduler.schedule(
                merchant_id, now + self._capture_window, EXPIRE_TIMER, payment.payment_id
            )
        elif step == "defer":
            due = now + timedelta(seconds=outcome.after_seconds or 0)
            self._scheduler.schedule(merchant_id, due, SETTLE_TIMER, payment.payment_id)
        elif outcome.result is OutcomeResult.TRANSFER:
            due = now + timedelta(seconds=outcome.after_seconds or 0)
            self._scheduler.schedule(merchant_id, due, TRANSFER_TIMER, payment.payment_id)
        return updated

    def customer_deleted(self, merchant_id: str, customer_id: str) -> None:
        """Mark the customer's payments under way as having lost it (`Payment.customer_deleted`): told
        by a flag, not by when a customer of that id was made, which a frozen clock may make the very
        millisecond of the payment's attempt."""
        with self._store.transaction(merchant_id):
            of_customer = Query(
                where={"customer_id": customer_id, "status": UNDER_WAY},
                limit=self._store.count(PAYMENTS, merchant_id),
            )
            for payment in self._store.query(PAYMENTS, merchant_id, of_customer).items:
                self._store.put(PAYMENTS, merchant_id, evolve(payment, customer_deleted=True))

    # -- checks -------------------------------------------------------------------------------

    def _get(self, merchant_id: str, payment_id: str) -> Payment:
        payment: Payment | None = self._store.get(PAYMENTS, merchant_id, payment_id)
        if payment is None:
            raise PaymentNotFound()
        return payment

    def _recurring(self, payment: Payment, changes: dict[str, Any], now: datetime) -> Mandate | None:
        """At a confirmation: check what it pays with again, holding the charge against the mandate it
        charges, or set up the mandate it asks for, or name the method it saves; returns a mandate
        to store, and adds to `changes`."""
        held = self._methods.recheck(payment, now)
        if payment.mandate_id is not None:
            return held
        merchant_id = payment.merchant_id

        def has_customer(customer_id: str) -> bool:
            return self._store.get(CUSTOMERS, merchant_id, customer_id) is not None

        saved_card = self._methods.saved_card(payment)
        return set_up(payment, changes, now, has_customer, self._store.ids(merchant_id), saved_card)
