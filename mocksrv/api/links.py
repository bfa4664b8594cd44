"""Routes of /payment_link: create, list and retrieve a link; its page is in mocksrv.web.

Retrieving a link also takes the publishable key, as the real service does, with the client secret
of the link's payment (the one its page pays with) as `client_secret` in the query: checked as a
retrieve of that payment with the key checks it (IR_08 when missing, IR_09 when wrong).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from mocksrv.api.answers.links import PaymentLinkAnswerSchema, PaymentLinkListAnswerSchema
from mocksrv.api.answers.payments import PaymentAnswerSchema
from mocksrv.api.schemas.links import (
    CustomerInfoSchema,
    PaymentLinkCreateSchema,
    PaymentLinkListSchema,
    PaymentLinkQuerySchema,
)
from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.domain.links.records import PaymentLink
from mocksrv.domain.models import KeyKind
from mocksrv.representations import paged_list_json, payment_link_json
from mocksrv.rest import authenticate, base_url, sandbox, show_payment

links = Blueprint("links", __name__)

_create = PaymentLinkCreateSchema()
_list = PaymentLinkListSchema()
_query = PaymentLinkQuerySchema()
_customer_info = CustomerInfoSchema()

Json = dict[str, Any]


def _link_json(link: PaymentLink, client_secret: str | None = None, *, secret_required: bool = False) -> Json:
    """The link with its payment; a client secret sent is checked as a retrieve of the payment checks
    it, but for its expiry, which the link's own status tells (`expired`)."""
    payment = sandbox().payments.retrieve(
        link.merchant_id,
        link.payment_id,
        client_secret,
        secret_required=secret_required,
        secret_expires=False,
    )
    return payment_link_json(link, payment, base_url())


@links.post("/payment_link")
@documented(PaymentLinkAnswerSchema, body=_create)
def create_payment_link() -> Json:
    """A link, with the payment its page takes."""
    principal = authenticate()
    link = sandbox().payment_links.create(principal.merchant_id, load(_create, json_body()))
    return _link_json(link)


@links.post("/payment_link/list")
@documented(PaymentLinkListAnswerSchema, body=_list)
def list_payment_links() -> Json:
    principal = authenticate()
    query = load(_list, json_body())
    page = sandbox().payment_links.list(principal.merchant_id, query)
    return paged_list_json([_link_json(link) for link in page.items], page.total_count, query.offset)


@links.get("/payment_link/<id:payment_link_id>")
@documented(PaymentLinkAnswerSchema, query=_query, auth=Auth.PUBLISHABLE, errors=(404,))
def retrieve_payment_link(payment_link_id: str) -> Json:
    principal = authenticate(publishable=True)
    query = load(_query, request.args.to_dict())
    link = sandbox().payment_links.retrieve(principal.merchant_id, payment_link_id)
    return _link_json(link, query.get("client_secret"), secret_required=principal.kind is KeyKind.PUBLISHABLE)


@links.post("/payment_link/<id:payment_link_id>/customer_info")
@documented(PaymentAnswerSchema, body=_customer_info, auth=Auth.PUBLISHABLE, errors=(404,))
def take_customer_info(payment_link_id: str) -> Json:
    """The name and e-mail a link's page asks for, kept on its payment (the link's client secret)."""
    principal = authenticate(publishable=True)
    fields = load(_customer_info, json_body())
    payment = sandbox().payment_links.take_customer_info(
        principal.merchant_id, payment_link_id, fields.get("client_secret"), fields["name"], fields["email"]
    )
    return show_payment(payment)
