"""The composition root: create_app(settings) wires the sandbox into a Flask app."""

from __future__ import annotations

from dataclasses import replace

from flask import Flask

from mocksrv import accesslog, api, control, rest, web
from mocksrv.domain.clock import SystemTime, system_now
from mocksrv.domain.errors import DomainError
from mocksrv.domain.models import Environment
from mocksrv.domain.sandbox import Sandbox, SandboxConfig
from mocksrv.fixtures import load_merchants, load_outcomes
from mocksrv.settings import Settings, SettingsError


def create_sandbox(settings: Settings, system_time: SystemTime = system_now) -> Sandbox:
    """Build the sandbox and seed it from the fixtures."""
    config = SandboxConfig(
        environment=Environment(settings.environment),
        capture_window_seconds=settings.capture_window_seconds,
        rate_limit=settings.rate_limit,
    )
    sandbox = Sandbox(config, load_outcomes(settings.fixtures), system_time)
    seeds = load_merchants(settings.fixtures)
    if settings.webhook_url is not None:
        if not seeds:
            raise SettingsError("webhook_url: the fixtures seed no merchant to send webhooks for")
        seeds[0] = replace(seeds[0], webhook_url=settings.webhook_url)
    for index, seed in enumerate(seeds):
        try:
            sandbox.add_merchant(seed)
        except DomainError as error:
            path = settings.fixtures / "merchants.yaml"
            raise SettingsError(f"fixture {path}: merchant {index}: {error.message}") from None
    return sandbox


def create_app(settings: Settings | None = None, sandbox: Sandbox | None = None) -> Flask:
    settings = settings or Settings()
    app = Flask(__name__)
    accesslog.init_app(app)
    rest.init_app(app, sandbox or create_sandbox(settings), settings)
    api.init_app(app)
    control.init_app(app)
    web.init_app(app)
    return app
