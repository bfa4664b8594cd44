"""A bare Flask app returning a small JSON body: the yardstick for the serving engine."""

from __future__ import annotations

from flask import Flask

app = Flask(__name__)


@app.post("/payments")
def create() -> dict[str, object]:
    return {"payment_id": "pay_bare", "status": "succeeded", "amount": 1000, "currency": "USD"}
