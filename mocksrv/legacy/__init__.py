"""The legacy card API, /api/v1: its own credentials, the payments API's domain services."""

from __future__ import annotations

from flask import Flask

from mocksrv.legacy.routes import legacy


def init_app(app: Flask) -> None:
    app.register_blueprint(legacy)
