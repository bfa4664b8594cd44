"""A client of the control plane, for test suites and scripts: `Sandbox(url, admin_key)`.

    sandbox = Sandbox("http://127.0.0.1:8080")
    merchant = sandbox.create_merchant(webhook_url="http://127.0.0.1:9000/hooks")
    merchant.session.post(merchant.url + "/payments", json={...})
    merchant.advance(days=7)

Every call answers what the control plane answers, as plain data; a refusal raises
`ControlPlaneError` with the spec's error code and message.
"""

from mocksrv.client.calls import (
    DEFAULT_MERCHANT,
    DEFAULT_TIMEOUT,
    ControlPlaneError,
    KeyedSession,
    NotMocksrv,
    parse_time,
    unreachable,
)
from mocksrv.client.merchant import Merchant
from mocksrv.client.sandbox import Sandbox
from mocksrv.settings import DEFAULT_ADMIN_KEY, DEFAULT_URL

__all__ = [
    "DEFAULT_ADMIN_KEY",
    "DEFAULT_MERCHANT",
    "DEFAULT_TIMEOUT",
    "DEFAULT_URL",
    "ControlPlaneError",
    "KeyedSession",
    "Merchant",
    "NotMocksrv",
    "Sandbox",
    "parse_time",
    "unreachable",
]
