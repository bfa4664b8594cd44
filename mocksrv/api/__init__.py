"""The payments API of the spec: Flask blueprints and marshmallow schemas."""

from __future__ import annotations

from flask import Flask

from mocksrv.api.analytics import analytics
from mocksrv.api.customers import customers
from mocksrv.api.disputes import disputes
from mocksrv.api.events import events
from mocksrv.api.keys import keys
from mocksrv.api.links import links
from mocksrv.api.payments import health, payments
from mocksrv.api.payouts import payouts
from mocksrv.api.profiles import profiles
from mocksrv.api.recurring import recurring
from mocksrv.api.refunds import refunds
from mocksrv.api.sessions import sessions


def init_app(app: Flask) -> None:
    app.register_blueprint(health)
    app.register_blueprint(payments)
    app.register_blueprint(customers)
    app.register_blueprint(profiles)
    app.register_blueprint(keys)
    app.register_blueprint(refunds)
    app.register_blueprint(payouts)
    app.register_blueprint(disputes)
    app.register_blueprint(sessions)
    app.register_blueprint(events)
    app.register_blueprint(recurring)
    app.register_blueprint(links)
    app.register_blueprint(analytics)
