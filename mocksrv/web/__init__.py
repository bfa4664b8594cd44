"""Pages a browser opens: the 3D Secure challenge."""

from __future__ import annotations

from flask import Flask

from mocksrv.web.threeds import threeds


def init_app(app: Flask) -> None:
    app.register_blueprint(threeds)
