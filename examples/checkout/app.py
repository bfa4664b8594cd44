"""An example merchant: its backend creates payments with the secret key; its pages take them with
mocksrv's SDK script, as a shop's checkout takes them with the real service's.

    python examples/checkout/app.py        # http://127.0.0.1:4242, next to `make run`

Settings come from the environment: MOCKSRV_URL (default http://127.0.0.1:8080), MOCKSRV_SECRET_KEY,
MOCKSRV_PUBLISHABLE_KEY and MOCKSRV_PROFILE_ID (default: the default merchant's), CHECKOUT_PORT.
`/` is the plain JavaScript checkout; `/react` the same with the React wrapper, whose packages
`npm ci` puts in this folder's node_modules (`make example` does it).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import requests
from flask import Flask, abort, render_template, request, send_from_directory, url_for
from werkzeug.wrappers import Response

HERE = Path(__file__).resolve().parent
# The only files of node_modules the React page loads: React, ReactDOM and the wrapper, as built.
VENDOR = {
    "react.js": "react/umd/react.production.min.js",
    "react-dom.js": "react-dom/umd/react-dom.production.min.js",
    "react-hyper-js.js": "@juspay-tech/react-hyper-js/dist/bundle.js",
}
PRICE = {"amount": 2599, "currency": "USD"}  # what the shop sells: one pair of shoes
PAYMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what a payment id may be


def create_app(
    mocksrv_url: str | None = None,
    secret_key: str | None = None,
    publishable_key: str | None = None,
    profile_id: str | None = None,
) -> Flask:
    app = Flask(__name__, root_path=str(HERE))
    env = os.environ.get
    mocksrv = (mocksrv_url or env("MOCKSRV_URL") or "http://127.0.0.1:8080").rstrip("/")
    secret = secret_key or env("MOCKSRV_SECRET_KEY") or "snd_default_secret_key"
    publishable = publishable_key or env("MOCKSRV_PUBLISHABLE_KEY") or "pk_snd_default_publishable_key"
    profile = profile_id or env("MOCKSRV_PROFILE_ID") or "pro_default"
    session = requests.Session()
    session.headers.update({"api-key": secret})

    def call(method: str, path: str, **kwargs: Any) -> Any:
        response = session.request(method, f"{mocksrv}{path}", timeout=10, **kwargs)
        response.raise_for_status()
        return response.json()

    def page(template: str) -> str:
        return render_template(
            template,
            mocksrv=mocksrv,
            publishable_key=publishable,
            return_url=url_for("complete", _external=True),
            amount="$25.99",
        )

    @app.get("/")
    def checkout() -> str:
        return page("checkout.html")

    @app.get("/react")
    def react_checkout() -> str:
        return page("react.html")

    @app.post("/create-payment")
    def create_payment() -> dict[str, Any]:
        """The shop's own route: a payment for the cart, made with the secret key."""
        customer_id = (request.get_json(silent=True) or {}).get("customer_id")
        body = {**PRICE, "profile_id": profile, "description": "Red shoes"}
        if customer_id:
            body["customer_id"] = customer_id
        payment = call("POST", "/payments", json=body)
        return {"clientSecret": payment["client_secret"]}

    @app.get("/complete")
    def complete() -> str:
        """Where the customer returns: the status is read from the API, never from the address."""
        secret_of_payment = request.args.get("payment_intent_client_secret", "")
        payment_id = secret_of_payment.rpartition("_secret_")[0]  # an id may hold "_secret_" too
        payment = None
        if PAYMENT_ID.fullmatch(payment_id):  # an address edited by hand may name anything
            answer = session.get(f"{mocksrv}/payments/{payment_id}", timeout=10)
            if answer.status_code != 404:
                answer.raise_for_status()
                payment = answer.json()
        return render_template("complete.html", payment=payment)

    @app.get("/vendor/<name>")
    def vendor(name: str) -> Response:
        if name not in VENDOR:
            abort(404)
        path = HERE / "node_modules" / VENDOR[name]
        if not path.exists():
            abort(404, "run `npm ci` in examples/checkout (make example does) for the React page")
        return send_from_directory(path.parent, path.name, mimetype="text/javascript")

    return app


if __name__ == "__main__":
    create_app().run(host="127.0.0.1", port=int(os.environ.get("CHECKOUT_PORT", "4242")))
