"""Pages a browser opens: the SDK and its payment element, the authorization page, the link page."""

from __future__ import annotations

from flask import Flask

from mocksrv.web.links import link_pages
from mocksrv.web.sdk import element_page, sdk
from mocksrv.web.threeds import threeds


def init_app(app: Flask) -> None:
    app.register_blueprint(threeds)
    app.register_blueprint(sdk)
    app.register_blueprint(element_page)
    app.register_blueprint(link_pages)
