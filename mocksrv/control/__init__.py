"""The /__mock control plane: clocks, reset, merchants, magic values, 3DS results."""

from __future__ import annotations

from flask import Flask

from mocksrv.control.routes import control


def init_app(app: Flask) -> None:
    app.register_blueprint(control)
