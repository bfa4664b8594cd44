"""What every client call shares: the session that sends a key, the call that raises the control
plane's refusal, and the errors."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Self

import requests

# The merchant the built-in fixtures (fixtures/merchants.yaml) seed; its keys are fixed for CI jobs.
DEFAULT_MERCHANT = {
    "merchant_id": "merchant_default",
    "profile_id": "pro_default",
    "secret_key": "snd_default_secret_key",
    "publishable_key": "pk_snd_default_publishable_key",
    "signing_key": "whsec_default_signing_key",
    "legacy_client_id": "legacy_client_id",
    "legacy_client_secret": "legacy_client_secret",
}
DEFAULT_TIMEOUT = 30.0  # seconds for one request, so that a hung server fails a test instead of the suite
PAGE_SIZE = 100  # the control plane's largest page
SEED_SIZE = 10_000  # the most payments the control plane seeds in one request

Json = dict[str, Any]


class ControlPlaneError(RuntimeError):
    """The control plane refused a call: `status`, and the error's `code` and `message`."""

    def __init__(self, method: str, path: str, response: requests.Response) -> None:
        try:
            error = response.json()["error"]
            code, message = str(error["code"]), str(error["message"])
        except (ValueError, KeyError, TypeError):
            code, message = "", response.text[:200]
        super().__init__(
            " ".join(part for part in (f"{method} {path}:", str(response.status_code), code, message) if part)
        )
        self.status = response.status_code
        self.code = code
        self.message = message


class NotMocksrv(RuntimeError):
    """A server that answers, but not as a mocksrv does: what it lacked."""


def unreachable(error: BaseException) -> str:
    """Why a server could not be reached, in the words of the error at the root of the chain that
    requests raises (`[Errno 111] Connection refused`), not the chain itself."""
    cause = error
    while (cause.__cause__ or cause.__context__) is not None:
        cause = cause.__cause__ or cause.__context__  # type: ignore[assignment]
    return str(cause) or type(cause).__name__


class KeyedSession(requests.Session):
    """A session that sends an API key and gives every request a timeout unless the call names one."""

    def __init__(self, api_key: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        super().__init__()
        self.headers["api-key"] = api_key
        self.timeout = timeout

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout)
        return super().request(method, url, *args, **kwargs)


def call(session: requests.Session, method: str, url: str, path: str, **kwargs: Any) -> Any:
    response = session.request(method, url + path, **kwargs)
    if not response.ok:
        raise ControlPlaneError(method, path, response)
    return response.json()


def parse_time(value: str) -> datetime:
    """Read a timestamp the server wrote (ISO 8601 UTC, `Z`) as an aware datetime."""
    return datetime.fromisoformat(value)


class Closing:
    """Closes its session when done, or at the end of a `with` block."""

    session: KeyedSession

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
