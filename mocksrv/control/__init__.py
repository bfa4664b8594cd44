"""The /__mock control plane: clocks, reset, merchants, magic values, 3DS results."""

from __future__ import annotations

from flask import Flask

from mocksrv.control.routes import WAIT_SLOTS, control
from mocksrv.domain.waits import WaitSlots
from mocksrv.rest import settings


def init_app(app: Flask) -> None:
    app.register_blueprint(control)
    with app.app_context():
        limits = settings()
    app.extensions[WAIT_SLOTS] = WaitSlots(limits.max_waits, limits.max_waits_per_merchant)


def wait_slots(app: Flask) -> WaitSlots:
    """The app's count of open long-polls."""
    slots: WaitSlots = app.extensions[WAIT_SLOTS]
    return slots
