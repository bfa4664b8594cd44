"""Routes of /payments and /health: parse, call one service method, serialize."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from mocksrv.api import schemas
from mocksrv.api.answers.payments import (
    HealthAnswerSchema,
    PaymentAnswerSchema,
    PaymentListAnswerSchema,
    PaymentPageAnswerSchema,
)
from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.domain.errors import InvalidField
from mocksrv.domain.models import KeyKind
from mocksrv.representations import list_json, payment_attempts_json, payment_captures_json, payment_summary
from mocksrv.rest import authenticate, current_request, sandbox, show_payment

payments = Blueprint("payments", __name__)
health = Blueprint("health", __name__)

_create = schemas.PaymentCreateSchema()
_update = schemas.PaymentUpdateSchema()
_confirm = schemas.PaymentConfirmSchema()
_browser_confirm = schemas.BrowserConfirmSchema()
_list = schemas.PaymentListSchema()
_query = schemas.ListQuerySchema()
_retrieve = schemas.PaymentRetrieveQuerySchema()
_capture = schemas.CaptureSchema()
_cancel = schemas.CancelSchema()
_review = schemas.ReviewSchema()

Json = dict[str, Any]


@health.get("/health")
@documented(HealthAnswerSchema)
def check_health() -> Json:
    authenticate()
    return {"status": "healthy"}


@payments.post("/payments")
@documented(PaymentAnswerSchema, body=_create, errors=(404,))
def create_payment() -> Json:
    principal = authenticate()
    fields = load(_create, json_body())
    return show_payment(sandbox().payment_links.create_payment(principal.merchant_id, fields))


@payments.post("/payments/list")
@documented(PaymentListAnswerSchema, body=_list)
def list_payments() -> Json:
    """The spec's list: payment summaries, filtered by the body."""
    principal = authenticate()
    page = sandbox().payments.list(principal.merchant_id, load(_list, json_body()))
    return list_json([payment_summary(p) for p in page.items], page.total_count)


@payments.get("/payments/list")
@documented(PaymentPageAnswerSchema, query=_query)
def query_payments() -> Json:
    """The real service's list: whole payments, filtered by the query string."""
    principal = authenticate()
    page = sandbox().payments.list(principal.merchant_id, load(_query, request.args.to_dict()))
    return {"size": len(page.items), "data": [show_payment(payment) for payment in page.items]}


@payments.get("/payments/<id:payment_id>")
@documented(PaymentAnswerSchema, query=_retrieve, auth=Auth.PUBLISHABLE)
def retrieve_payment(payment_id: str) -> Json:
    principal = authenticate(publishable=True)
    query = load(_retrieve, request.args.to_dict()) if current_request().query_string else {}
    payment = sandbox().payments.retrieve(
        principal.merchant_id,
        payment_id,
        query.get("client_secret"),
        secret_required=principal.kind is KeyKind.PUBLISHABLE,
    )
    shown = show_payment(payment)
    if query.get("expand_attempts"):
        shown["attempts"] = payment_attempts_json(payment)
    if query.get("expand_captures"):
        shown["captures"] = payment_captures_json(payment)
    return shown


@payments.post("/payments/<id:payment_id>")
@documented(PaymentAnswerSchema, body=_update)
def update_payment(payment_id: str) -> Json:
    principal = authenticate()
    fields = load(_update, json_body())
    service = sandbox().payments
    # With `confirm: true`, a confirmation that sends these fields: one step, all or nothing.
    change = service.confirm if fields.get("confirm") else service.update
    return show_payment(change(principal.merchant_id, payment_id, fields))


@payments.post("/payments/<id:payment_id>/confirm")
@documented(PaymentAnswerSchema, body=_confirm, auth=Auth.PUBLISHABLE)
def confirm_payment(payment_id: str) -> Json:
    principal = authenticate(publishable=True)
    by_browser = principal.kind is KeyKind.PUBLISHABLE
    fields = load(_browser_confirm if by_browser else _confirm, json_body())
    payment = sandbox().payments.confirm(
        principal.merchant_id, payment_id, fields, fields.get("client_secret"), secret_required=by_browser
    )
    return show_payment(payment)


@payments.post("/payments/<id:payment_id>/capture")
@documented(PaymentAnswerSchema, body=_capture, errors=(409,))
def capture_payment(payment_id: str) -> Json:
    principal = authenticate()
    fields = load(_capture, json_body())
    if fields.get("merchant_id", principal.merchant_id) != principal.merchant_id:
        raise InvalidField("merchant_id", "not the merchant of the API key")
    descriptor = fields.get("statement_descriptor_prefix", "") + fields.get("statement_descriptor_suffix", "")
    payment = sandbox().payments.capture(
        principal.merchant_id, payment_id, fields.get("amount_to_capture"), descriptor or None
    )
    return show_payment(payment)


@payments.post("/payments/<id:payment_id>/cancel")
@documented(PaymentAnswerSchema, body=_cancel)
def cancel_payment(payment_id: str) -> Json:
    principal = authenticate()
    fields = load(_cancel, json_body())
    payment = sandbox().payments.cancel(principal.merchant_id, payment_id, fields.get("cancellation_reason"))
    return show_payment(payment)


@payments.post("/payments/<id:payment_id>/approve")
@documented(PaymentAnswerSchema, body=_review)
def approve_payment(payment_id: str) -> Json:
    principal = authenticate()
    load(_review, json_body())
    return show_payment(sandbox().payments.approve(principal.merchant_id, payment_id))


@payments.post("/payments/<id:payment_id>/reject")
@documented(PaymentAnswerSchema, body=_review)
def reject_payment(payment_id: str) -> Json:
    principal = authenticate()
    load(_review, json_body())
    return show_payment(sandbox().payments.reject(principal.merchant_id, payment_id))
