"""End-to-end fixtures: one real `mocksrv serve` process per session, one fresh merchant per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from tests.e2e.harness import (
    LOCALHOST,
    Merchant,
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
    """Create isolated merchants on the session's server; keyword arguments seed them."""
    created: list[Merchant] = []

    def create(**seed: Any) -> Merchant:
        merchant = create_merchant(base_url, ADMIN_KEY, **seed)
        created.append(merchant)
        return merchant

    yield create
    for merchant in created:
        merchant.session.close()


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
