"""End-to-end fixtures: one real `mocksrv serve` process per session, one fresh merchant per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from mocksrv import MockServer
from tests.e2e.harness import (
    DEADLINE,
    LOCALHOST,
    Merchant,
    Receiver,
    ServerProcess,
    TimeoutSession,
    create_merchant,
    free_port,
    running_process,
)
from tests.payloads import ADMIN_KEY, SECRET_KEY

StartServer = Callable[..., ServerProcess]


@pytest.fixture(scope="session")
def mocksrv_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """`mocksrv serve` on a free port; stopped with SIGTERM at the end, which must exit 0."""
    port = free_port()
    stderr = tmp_path_factory.mktemp("mocksrv") / "stderr.log"
    with running_process(["--port", str(port)], stderr) as server:
        assert server.base_url == f"http://{LOCALHOST}:{port}", server.diagnostics()
        with TimeoutSession() as session:
            health = session.get(f"{server.base_url}/health", headers={"api-key": SECRET_KEY})
        assert health.status_code == 200, server.diagnostics()
        yield server


@pytest.fixture(scope="session")
def base_url(mocksrv_process: ServerProcess) -> str:
    return mocksrv_process.base_url


@pytest.fixture
def new_merchant(base_url: str) -> Iterator[Callable[..., Merchant]]:
    """Create isolated merchants on the session's server; keyword arguments are their settings."""
    created: list[Merchant] = []

    def create(**settings: Any) -> Merchant:
        merchant = create_merchant(base_url, ADMIN_KEY, **settings)
        created.append(merchant)
        return merchant

    yield create
    for merchant in created:
        merchant.close()


@pytest.fixture
def merchant(new_merchant: Callable[..., Merchant]) -> Merchant:
    """A merchant of this test alone: ids, keys, and a session that sends its secret key."""
    return new_merchant()


@pytest.fixture
def start_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StartServer]:
    """Start further `mocksrv serve` processes with flags and environment; each must stop cleanly."""
    with ExitStack() as stack:

        def start(*args: str, env: dict[str, str] | None = None) -> ServerProcess:
            stderr = tmp_path_factory.mktemp("mocksrv") / "stderr.log"
            return stack.enter_context(running_process(list(args), stderr, env))

        yield start


# -- webhook receivers and an in-process server -------------------------------------------------


@pytest.fixture(scope="module")
def receiver_server() -> Iterator[HTTPServer]:
    server = HTTPServer(host=LOCALHOST, port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture
def receiver(receiver_server: HTTPServer) -> Iterator[Receiver]:
    """A receiver that answers 200 until told otherwise; errors in its thread fail the test."""
    receiver_server.clear()
    receiver = Receiver(receiver_server)
    yield receiver
    receiver_server.check()


@pytest.fixture(scope="module")
def mock_server() -> Iterator[MockServer]:
    with MockServer() as server:
        yield server


@pytest.fixture
def webhook_merchant(mock_server: MockServer, receiver: Receiver) -> Iterator[Merchant]:
    """A merchant of this test alone on the in-process server, with a frozen clock, whose webhooks
    go to the test's receiver."""
    merchant = create_merchant(mock_server.url, ADMIN_KEY, webhook_url=receiver.url)
    merchant.freeze()
    yield merchant
    # A delivery still on its way would reach the receiver once the next test has cleared it.
    merchant.wait_webhooks(DEADLINE)
    merchant.close()
