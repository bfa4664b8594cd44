"""The composition root: create_app(settings) wires the sandbox into a Flask app."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from flask import Flask

from mocksrv import accesslog, api, control, faults, journal, legacy, rest, web
from mocksrv.contract import document
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
        journal_size=settings.journal_size,
    )
    sandbox = Sandbox(config, load_outcomes(settings.fixtures), system_time)
    if settings.seed is not None:  # before the fixtures' merchants, whose key ids are drawn too
        sandbox.store.seed_all_ids(settings.seed)
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


class SandboxApp(Flask):
    """Flask, remembering which of the app's functions need wrapping to run synchronously.

    Flask asks that of the view and of each hook on every request, and the answer for a function
    never changes: asking cost 5,000 instructions a function, 4% of a bare Flask request for four.
    """

    _KNOWN_MAX = 4096  # functions made on the fly (`after_this_request`) must not fill memory

    def __init__(self, import_name: str) -> None:
        super().__init__(import_name)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        sync = self._sync.get(func)
        if sync is None:
            sync = super().ensure_sync(func)
            if len(self._sync) < self._KNOWN_MAX:
                self._sync[func] = sync
        return sync


def create_app(settings: Settings | None = None, sandbox: Sandbox | None = None) -> Flask:
    settings = settings or Settings()
    app = SandboxApp(__name__)
    accesslog.init_app(app)
    journal.init_app(app)
    rest.init_app(app, sandbox or create_sandbox(settings), settings)
    faults.init_app(app)  # after the shared hooks and the journal's, so that its own runs before them
    api.init_app(app)
    control.init_app(app)
    legacy.init_app(app)
    web.init_app(app)
    document.init_app(app)
    return app
