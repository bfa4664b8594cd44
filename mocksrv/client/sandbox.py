"""`Sandbox`: a running mocksrv, reached with its admin key."""

from __future__ import annotations

from typing import Any

import requests

from mocksrv.client.calls import (
    DEFAULT_MERCHANT,
    DEFAULT_TIMEOUT,
    Closing,
    ControlPlaneError,
    Json,
    KeyedSession,
    NotMocksrv,
    call,
)
from mocksrv.client.merchant import Merchant
from mocksrv.settings import DEFAULT_ADMIN_KEY, DEFAULT_URL


class Sandbox(Closing):
    """A running mocksrv, reached with its admin key: creates merchants, resets, lists."""

    def __init__(
        self, url: str = DEFAULT_URL, admin_key: str = DEFAULT_ADMIN_KEY, *, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.url = url.rstrip("/")
        self.admin_key = admin_key
        self.timeout = timeout
        self.session = KeyedSession(admin_key, timeout)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"

    def _admin(self, method: str, path: str, **kwargs: Any) -> Any:
        return call(self.session, method, self.url, path, **kwargs)

    def merchant_ids(self) -> list[str]:
        """Every merchant's id; also proves that the admin key is the server's, and the server a
        mocksrv (NotMocksrv: an answer that is not a list of merchants, or a refusal not in its shape)."""
        try:
            answer = self._admin("GET", "/__mock/merchants")
        except ControlPlaneError as error:
            if error.code or error.status >= 500:  # a proxy's 502 or 503 says nothing of what is behind it
                raise
            raise NotMocksrv(f"GET /__mock/merchants gave no list of merchants ({error.status})") from None
        except requests.JSONDecodeError:
            answer = None
        ids = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(ids, list):
            raise NotMocksrv("GET /__mock/merchants gave no list of merchants")
        return ids

    def create_merchant(self, **settings: Any) -> Merchant:
        """Create an isolated merchant with fresh keys: `merchant_id`, `profile_name`, `return_url`,
        `webhook_url`, `session_expiry`, `rate_limit`, all optional."""
        body = self._admin("POST", "/__mock/merchants", json=settings)
        return Merchant(
            url=self.url,
            merchant_id=body["merchant_id"],
            profile_id=body["profile_id"],
            secret_key=body["secret_key"],
            publishable_key=body["publishable_key"],
            signing_key=body["payment_response_hash_key"],
            timeout=self.timeout,
            legacy_client_id=body.get("legacy_client_id"),
            legacy_client_secret=body.get("legacy_client_secret"),
        )

    def snapshot(self, merchant_id: str | None = None) -> Json:
        """The state of every merchant, or of the one named, as a snapshot document."""
        params = {} if merchant_id is None else {"merchant_id": merchant_id}
        document: Json = self._admin("GET", "/__mock/snapshot", params=params)
        return document

    def restore(self, document: Json, merchant_id: str | None = None) -> Json:
        """Replace every merchant (those the document lacks are removed), or the one named, with the
        document's; returns what was restored."""
        params = {} if merchant_id is None else {"merchant_id": merchant_id}
        restored: Json = self._admin("POST", "/__mock/restore", json=document, params=params)
        return restored

    def default_merchant(self) -> Merchant:
        """The merchant that the built-in fixtures seed, with its documented keys."""
        return Merchant(url=self.url, timeout=self.timeout, **DEFAULT_MERCHANT)

    def reset(self, merchant_id: str) -> None:
        """Delete one merchant's payments, customers, events and timers, whatever its own keys."""
        self._admin("POST", "/__mock/reset", json={"merchant_id": merchant_id})

    def delete_merchant(self, merchant_id: str) -> None:
        """Forget a merchant and all of it, giving back the memory it took; its keys stop working."""
        self._admin("DELETE", f"/__mock/merchants/{merchant_id}")

    def reset_all(self) -> list[str]:
        """Delete every merchant's payments, customers, events and timers; keys and profiles stay."""
        reset: list[str] = self._admin("POST", "/__mock/reset")["reset"]
        return reset

    def transitions(self) -> Json:
        """Every resource's transition table."""
        tables: Json = self._admin("GET", "/__mock/transitions")
        return tables

    def trigger(self, event_type: str, merchant_id: str = DEFAULT_MERCHANT["merchant_id"]) -> Json:
        """Make the merchant's objects go through the API until `event_type` happens; returns the
        event's id, type and object, and the ids of every object made on the way."""
        body = {"event_type": event_type, "merchant_id": merchant_id}
        triggered: Json = self._admin("POST", "/__mock/trigger", json=body)
        return triggered

    def set_webhook_url(self, url: str | None, merchant_id: str = DEFAULT_MERCHANT["merchant_id"]) -> Json:
        """Send the merchant's webhooks to `url` (None: nowhere); returns its profile."""
        body = {"webhook_url": url, "merchant_id": merchant_id}
        profile: Json = self._admin("PUT", "/__mock/webhook_url", json=body)
        return profile
