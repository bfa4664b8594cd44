"""The /__mock control plane: clocks, reset, merchants, magic values, 3DS results, faults, the journal."""

from __future__ import annotations

from flask import Flask

from mocksrv.control import (  # noqa: F401  (their routes join the blueprint)
    chaos,
    faults,
    journal,
    routes,
    settlement,
    state,
    webhooks,
)
from mocksrv.control.blueprint import control
from mocksrv.rest import wait_slots

__all__ = ["init_app", "wait_slots"]


def init_app(app: Flask) -> None:
    app.register_blueprint(control)
