"""Fixtures shared by every level: settings, a sandbox, the Flask app and its test client."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from mocksrv.app import create_app, create_sandbox
from mocksrv.domain.sandbox import Sandbox
from mocksrv.settings import Settings
from tests import contract
from tests.payloads import ADMIN_KEY, MERCHANT_ID, SECRET_KEY


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """After a whole run in one process, fail it if a status the document lists was never answered."""
    config = session.config
    whole = config.args in (["tests"], [str(config.rootpath / "tests")]) and not (
        config.option.keyword or config.option.markexpr or getattr(config.option, "lf", False)
    )
    if not whole or hasattr(config, "workerinput") or getattr(config.option, "numprocesses", None):
        return
    unreached = contract.unreached()
    if unreached:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line("Statuses the OpenAPI document lists that no test saw answered:", red=True)
            for line in unreached:
                reporter.write_line(f"  {line}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
def sandbox(settings: Settings) -> Sandbox:
    return create_sandbox(settings)


@pytest.fixture
def app(settings: Settings, sandbox: Sandbox) -> Flask:
    return create_app(settings, sandbox)


class CheckedClient(FlaskClient):
    """The test client, checking every answer against the server's OpenAPI document."""

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        response = super().open(*args, **kwargs)
        contract.check(self.application, response)
        return response


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    app.test_client_class = CheckedClient
    return app.test_client()


class Api:
    """The test client with a key: `api.post("/payments", body)` sends it as JSON."""

    def __init__(self, client: FlaskClient, key: str = SECRET_KEY) -> None:
        self.client = client
        self.key = key

    def as_key(self, key: str) -> Api:
        return Api(self.client, key)

    def _headers(self) -> dict[str, str]:
        return {"api-key": self.key}

    def get(self, path: str, **kwargs: Any) -> TestResponse:
        return self.client.get(path, headers=self._headers(), **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> TestResponse:
        if body is None:
            return self.client.post(path, headers=self._headers(), **kwargs)
        return self.client.post(path, json=body, headers=self._headers(), **kwargs)

    def put(self, path: str, body: Any = None) -> TestResponse:
        return self.client.put(path, json=body, headers=self._headers())

    def delete(self, path: str) -> TestResponse:
        return self.client.delete(path, headers=self._headers())


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


@pytest.fixture
def admin(client: FlaskClient) -> Api:
    return Api(client, ADMIN_KEY)


@pytest.fixture
def frozen(admin: Api) -> str:
    """Freeze the default merchant's clock; returns the frozen time."""
    response = admin.post(f"/__mock/clock/freeze?merchant_id={MERCHANT_ID}")
    assert response.status_code == 200
    now: str = response.json["now"]
    return now
