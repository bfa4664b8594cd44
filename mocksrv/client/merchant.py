"""`Merchant`: one merchant's keys, its session, and its controls."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mocksrv.client.calls import (
    DEFAULT_TIMEOUT,
    PAGE_SIZE,
    SEED_SIZE,
    Closing,
    Json,
    KeyedSession,
    call,
    parse_time,
)


@dataclass
class Merchant(Closing):
    """One merchant: its ids and keys, a session that sends its secret key, and its controls.

    The controls act through the control plane with the merchant's own secret key, so they see
    nothing of any other merchant.
    """

    url: str
    merchant_id: str
    profile_id: str
    secret_key: str
    publishable_key: str
    signing_key: str
    timeout: float = DEFAULT_TIMEOUT
    # The legacy card API's HTTP Basic credentials (GET /api/v1).
    legacy_client_id: str | None = None
    legacy_client_secret: str | None = None
    session: KeyedSession = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.session = KeyedSession(self.secret_key, self.timeout)

    def legacy_token(self) -> str:
        """A bearer token of the legacy card API, for the merchant's client id and secret."""
        if self.legacy_client_id is None or self.legacy_client_secret is None:
            raise ValueError(f"the legacy client credentials of {self.merchant_id} are not known")
        credentials = (self.legacy_client_id, self.legacy_client_secret)
        answer = call(self.session, "GET", self.url, "/api/v1", auth=credentials)
        token: str = answer["access_token"]
        return token

    def _control(self, method: str, path: str, **kwargs: Any) -> Any:
        return call(self.session, method, self.url, "/__mock" + path, **kwargs)

    # -- the clock -------------------------------------------------------------------------------

    def advance(
        self, seconds: float = 0, *, minutes: float = 0, hours: float = 0, days: float = 0
    ) -> list[Json]:
        """Move the clock forward, firing every timer due on the way; returns the timers fired."""
        total = seconds + 60 * minutes + 3600 * hours + 86400 * days
        fired: list[Json] = self._control("POST", "/clock/advance", json={"seconds": total})["timers_fired"]
        return fired

    def set_time(self, when: datetime | str) -> list[Json]:
        """Move the clock forward to `when`, firing due timers; returns the timers fired."""
        now = when.isoformat() if isinstance(when, datetime) else when
        fired: list[Json] = self._control("POST", "/clock/set", json={"now": now})["timers_fired"]
        return fired

    def freeze(self) -> datetime:
        """Stop the clock following real time; returns the time it stopped at."""
        return parse_time(self._control("POST", "/clock/freeze")["now"])

    def resume(self) -> datetime:
        """Let the clock follow real time again, from where it stands."""
        return parse_time(self._control("POST", "/clock/resume")["now"])

    def now(self) -> datetime:
        """The merchant's time, as its clock reads it."""
        return parse_time(self._control("GET", "/clock")["now"])

    def sync(self) -> list[Json]:
        """Fire the timers due on the clock now, without waiting for the ticker (after freezegun's
        `tick` or `move_to`, say); returns the timers fired."""
        fired: list[Json] = self._control("POST", "/sync")["timers_fired"]
        return fired

    # -- magic values and state ------------------------------------------------------------------

    def outcomes(self) -> list[Json]:
        rules: list[Json] = self._control("GET", "/outcomes")["rules"]
        return rules

    def set_outcomes(self, rules: list[Json]) -> list[Json]:
        """Replace the merchant's magic-value table; the first matching rule decides."""
        table: list[Json] = self._control("PUT", "/outcomes", json={"rules": rules})["rules"]
        return table

    def reset(self) -> None:
        """Delete the merchant's payments, customers, refunds, disputes, payouts, events and timers."""
        self._control("POST", "/reset")

    def seed(self, payments: int) -> int:
        """Create `payments` succeeded card payments through the normal create path, in requests of
        at most SEED_SIZE."""
        created = 0
        for start in range(0, max(payments, 1), SEED_SIZE):  # a count below 1 goes, to be refused
            batch = min(payments - start, SEED_SIZE)
            created += int(self._control("POST", "/seed", json={"payments": batch})["payments_created"])
        return created

    def snapshot(self) -> Json:
        """The merchant's state as a snapshot document."""
        document: Json = self._control("GET", "/snapshot")
        return document

    def restore(self, document: Json) -> Json:
        """Replace the merchant's state with a snapshot document's; returns what was restored."""
        restored: Json = self._control("POST", "/restore", json=document)
        return restored

    def seed_ids(self, seed: int | None) -> None:
        """Draw the merchant's new ids and secrets from the stream of `seed` (None: the default);
        only before the merchant has made anything."""
        self._control("PUT", "/ids", json={"seed": seed})

    # -- webhooks --------------------------------------------------------------------------------

    def set_webhook_url(self, url: str | None) -> Json:
        """Send the merchant's webhooks to `url` (None: nowhere); returns the profile."""
        profile: Json = self._control("PUT", "/webhook_url", json={"webhook_url": url})
        return profile

    def webhook_chaos(self) -> Json:
        """The merchant's webhook chaos, and how many deliveries it holds on the mock clock."""
        chaos: Json = self._control("GET", "/webhooks/chaos")
        return chaos

    def set_webhook_chaos(
        self,
        *,
        duplicate: bool = False,
        out_of_order: bool = False,
        delay_seconds: int = 0,
        seed: int | None = None,
    ) -> Json:
        """Make the merchant's webhooks misbehave from now on: each delivered event sent twice, held in
        batches sent newest first (or shuffled by `seed`), or held `delay_seconds` on the mock clock."""
        body = {"duplicate": duplicate, "out_of_order": out_of_order, "delay_seconds": delay_seconds}
        chaos: Json = self._control("PUT", "/webhooks/chaos", json={**body, "seed": seed})
        return chaos

    def clear_webhook_chaos(self) -> Json:
        """Deliver the merchant's webhooks as usual again; deliveries already held go at their time."""
        chaos: Json = self._control("DELETE", "/webhooks/chaos")
        return chaos

    def trigger(self, event_type: str) -> Json:
        """Make this merchant's objects go through the API until `event_type` happens (Sandbox.trigger)."""
        triggered: Json = self._control("POST", "/trigger", json={"event_type": event_type})
        return triggered

    def events(self) -> list[Json]:
        """Every event of the merchant, newest first, each with its delivery state."""
        return self._pages("/events", {}, "event_id")

    def deliveries(self, event_id: str | None = None) -> list[Json]:
        """Every delivery attempt, newest first; of one event when `event_id` is given."""
        return self._pages(
            "/webhooks/deliveries", {} if event_id is None else {"event_id": event_id}, "attempt_id"
        )

    def wait_webhooks(self, timeout: float = 10) -> bool:
        """Wait until every queued delivery has been attempted; False if `timeout` s pass first."""
        answer = self._control(
            "POST", "/webhooks/wait", json={"timeout": timeout}, timeout=timeout + self.timeout
        )
        drained: bool = answer["drained"]
        return drained

    def redeliver(self, event_id: str) -> Json:
        """Send an event again now; returns the event with its delivery state."""
        event: Json = self._control("POST", f"/events/{event_id}/redeliver")
        return event

    def _pages(self, path: str, params: dict[str, str], id_field: str) -> list[Json]:
        """Every item of a list, newest first, page by page. Items made meanwhile push the older ones
        down a page: one read twice is kept once."""
        items: dict[str, Json] = {}
        offset = 0
        while True:
            page = self._control("GET", path, params={**params, "limit": PAGE_SIZE, "offset": offset})
            offset += len(page["data"])
            for item in page["data"]:
                items.setdefault(item[id_field], item)
            if not page["has_more"] or not page["data"]:
                return list(items.values())

    # -- outcomes decided by hand ----------------------------------------------------------------

    def authenticate(self, payment_id: str, *, success: bool = True) -> Json:
        """Finish a payment's 3D Secure challenge as the customer would; returns the payment."""
        body = {"result": "success" if success else "failure"}
        payment: Json = self._control("POST", f"/payments/{payment_id}/authentication", json=body)
        return payment

    def settle_refund(self, refund_id: str, result: str = "succeeded") -> Json:
        """Settle a pending refund now: `succeeded` or `failed`."""
        refund: Json = self._control("POST", f"/refunds/{refund_id}/settle", json={"result": result})
        return refund

    def settle_payout(self, payout_id: str, result: str = "success") -> Json:
        """Settle a pending payout now (`success`, `failed`), or reverse a successful one (`reversed`)."""
        payout: Json = self._control("POST", f"/payouts/{payout_id}/settle", json={"result": result})
        return payout

    def open_dispute(self, payment_id: str, amount: int | None = None, reason: str | None = None) -> Json:
        """Open a dispute on a captured payment, as the card network would."""
        body: Json = {"payment_id": payment_id}
        if amount is not None:
            body["amount"] = amount
        if reason is not None:
            body["reason"] = reason
        dispute: Json = self._control("POST", "/disputes", json=body)
        return dispute

    def resolve_dispute(self, dispute_id: str, result: str) -> Json:
        """Decide a dispute now: `won`, `lost` or `cancelled`."""
        dispute: Json = self._control("POST", f"/disputes/{dispute_id}/resolve", json={"result": result})
        return dispute

    # -- the request journal ---------------------------------------------------------------------

    def requests(self, **filters: Any) -> list[Json]:
        """The merchant's recorded API requests, newest first; filters: method, path, status, since."""
        return self._pages("/requests", _journal_filters(filters), "request_id")

    def request_count(self, **filters: Any) -> int:
        """How many recorded requests match the filters (method, path, status, since)."""
        count: int = self._control("GET", "/requests/count", params=_journal_filters(filters))["count"]
        return count

    def records_requests(self) -> bool:
        """Whether the server keeps a journal of requests (it does unless started with size 0)."""
        recording: bool = self._control("GET", "/requests/count")["recording"]
        return recording

    def clear_requests(self) -> None:
        """Forget the merchant's recorded requests."""
        self._control("DELETE", "/requests")

    # -- faults -------------------------------------------------------------------------------------

    def add_fault(
        self,
        effect: str | Json,
        *,
        match: Json | None = None,
        timing: str | None = None,
        schedule: Json | None = None,
    ) -> Json:
        """Make matching API requests misbehave: `effect` is a type ("error", "drop"...) or a whole
        effect object (`{"type": "error", "status": 502}`)."""
        rule: Json = {"effect": {"type": effect} if isinstance(effect, str) else effect}
        for name, value in (("match", match), ("timing", timing), ("schedule", schedule)):
            if value is not None:
                rule[name] = value
        added: Json = self._control("POST", "/faults", json=rule)
        return added

    def faults(self) -> list[Json]:
        """The merchant's fault rules with their counts, in the order they are tried."""
        data: list[Json] = self._control("GET", "/faults")["data"]
        return data

    def clear_faults(self) -> int:
        deleted: int = self._control("DELETE", "/faults")["deleted"]
        return deleted


def _journal_filters(filters: dict[str, Any]) -> dict[str, str]:
    """The journal's filters as query parameters: a time in ISO 8601, anything else as text."""
    return {
        name: value.isoformat() if isinstance(value, datetime) else str(value)
        for name, value in filters.items()
        if value is not None
    }
