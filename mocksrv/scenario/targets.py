"""Where scenarios run: a running mocksrv named by its URL, or one embedded in this process, with a
webhook receiver on 127.0.0.1 that the run's scenarios share."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mocksrv.receiver import WebhookReceiver
from mocksrv.settings import DEFAULT_THREADS, MAX_THREADS, Settings

# The embedded server's webhook timeout: a delivery that hangs gives up after this, so that a
# scenario with `receiver: {hang: true}` waits one second per hung attempt, not the default five.
EMBEDDED_WEBHOOK_TIMEOUT = 1.0
REQUEST_TIMEOUT = 30.0  # seconds for one request of a step


@dataclass
class Target:
    """A running mocksrv that scenarios run against, and the webhook receiver they share."""

    url: str
    admin_key: str
    receiver: WebhookReceiver
    timeout: float = REQUEST_TIMEOUT


@contextmanager
def embedded_server(admin_key: str, jobs: int = 1) -> Iterator[str]:
    """A mocksrv in this process, for one run of scenarios `jobs` at once; yields its URL."""
    from mocksrv.server import MockServer

    with MockServer(embedded_settings(admin_key, jobs)) as server:
        yield server.url


def embedded_settings(admin_key: str, jobs: int) -> Settings:
    """The embedded server's settings: a thread for each scenario's request in flight, so that none
    waits in the server's queue."""
    threads = min(max(DEFAULT_THREADS, jobs), MAX_THREADS)
    return Settings(webhook_timeout=EMBEDDED_WEBHOOK_TIMEOUT, admin_key=admin_key, threads=threads)


@contextmanager
def target(url: str, admin_key: str) -> Iterator[Target]:
    """The server at `url` and a webhook receiver on 127.0.0.1, for the length of the block."""
    with WebhookReceiver() as receiver:
        yield Target(url.rstrip("/"), admin_key, receiver)
