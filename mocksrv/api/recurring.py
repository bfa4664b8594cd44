"""Routes of saved payment methods and mandates.

The merchant's routes take the secret key. The two a checkout page calls take the publishable key
with the payment's `client_secret` (or the secret key with it): the saved methods of the payment's
customer (`GET /customers/payment_methods`) and the methods the page may offer for the payment
(`GET /account/payment_methods`; with the secret key and no client secret, the methods the
merchant offers, for no payment, as the real service answers). Updating a saved method takes the
publishable key with the method's own client secret (domain/recurring/payment_methods.py). Setting
a customer's default method also takes that customer's ephemeral key, the one credential the real
service takes there.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from mocksrv.api.answers.recurring import (
    AccountPaymentMethodsAnswerSchema,
    CustomerPaymentMethodsAnswerSchema,
    DefaultPaymentMethodAnswerSchema,
    MandateAnswerSchema,
    MandateRevokedAnswerSchema,
    PaymentMethodAnswerSchema,
    PaymentMethodDeletedAnswerSchema,
)
from mocksrv.api.schemas import NoFieldsSchema
from mocksrv.api.schemas.recurring import (
    PaymentMethodCreateSchema,
    PaymentMethodUpdateSchema,
    SavedMethodsQuerySchema,
)
from mocksrv.bodies import json_body, load
from mocksrv.contract import Auth, documented
from mocksrv.domain.errors import ClientSecretInvalid, ClientSecretMissing
from mocksrv.domain.ids import client_secret_owner
from mocksrv.domain.models import Customer, KeyKind, Payment, Principal
from mocksrv.representations.recurring import (
    account_payment_methods_json,
    customer_payment_methods_json,
    mandate_json,
    mandate_revoked_json,
    payment_method_json,
)
from mocksrv.rest import authenticate, sandbox

recurring = Blueprint("recurring", __name__)

_create = PaymentMethodCreateSchema()
_update = PaymentMethodUpdateSchema()
_saved_query = SavedMethodsQuerySchema()
_no_fields = NoFieldsSchema()

Json = dict[str, Any]


@recurring.post("/payment_methods")
@documented(PaymentMethodAnswerSchema, body=_create)
def create_payment_method() -> Json:
    principal = authenticate()
    fields = load(_create, json_body())
    return payment_method_json(sandbox().payment_methods.create(principal.merchant_id, fields))


@recurring.get("/payment_methods/<id:payment_method_id>")
@documented(PaymentMethodAnswerSchema)
def retrieve_payment_method(payment_method_id: str) -> Json:
    principal = authenticate()
    return payment_method_json(sandbox().payment_methods.retrieve(principal.merchant_id, payment_method_id))


@recurring.post("/payment_methods/<id:payment_method_id>/update")
@documented(PaymentMethodAnswerSchema, body=_update, auth=Auth.PUBLISHABLE)
def update_payment_method(payment_method_id: str) -> Json:
    """Update a saved card: the secret key, or the publishable key with the method's client secret."""
    principal = authenticate(publishable=True)
    fields = load(_update, json_body())
    method = sandbox().payment_methods.update(
        principal.merchant_id,
        payment_method_id,
        fields,
        secret_required=principal.kind is KeyKind.PUBLISHABLE,
    )
    return payment_method_json(method)


@recurring.delete("/payment_methods/<id:payment_method_id>")
@documented(PaymentMethodDeletedAnswerSchema, body=_no_fields)
def delete_payment_method(payment_method_id: str) -> Json:
    principal = authenticate()
    load(_no_fields, json_body())
    method = sandbox().payment_methods.delete(principal.merchant_id, payment_method_id)
    return {"payment_method_id": method.payment_method_id, "deleted": True}


@recurring.get("/customers/<id:customer_id>/payment_methods")
@documented(CustomerPaymentMethodsAnswerSchema, query=_saved_query)
def list_customer_payment_methods(customer_id: str) -> Json:
    principal = authenticate()
    load(_saved_query, request.args.to_dict())
    return _saved_methods(sandbox().customers.retrieve(principal.merchant_id, customer_id))


@recurring.get("/customers/payment_methods")
@documented(CustomerPaymentMethodsAnswerSchema, query=_saved_query, auth=Auth.PUBLISHABLE, errors=(404,))
def list_payment_customer_payment_methods() -> Json:
    """The saved methods of the customer of the payment the client secret belongs to."""
    principal = authenticate(publishable=True)
    payment = _payment_of_client_secret(principal, load(_saved_query, request.args.to_dict()))
    if payment.customer_id is None:
        return customer_payment_methods_json([], None) | {"is_guest_customer": True}
    # A customer deleted since the payment named it has no methods left (they went with it): the
    # checkout page gets an empty list, and the payment can still be paid with a card typed in.
    customer = sandbox().customers.find(payment.merchant_id, payment.customer_id)
    return customer_payment_methods_json([], None) if customer is None else _saved_methods(customer)


@recurring.get("/account/payment_methods")
@documented(AccountPaymentMethodsAnswerSchema, query=_saved_query, auth=Auth.PUBLISHABLE, errors=(404,))
def list_account_payment_methods() -> Json:
    """The methods a checkout page may offer for the client secret's payment, or for none (secret key)."""
    principal = authenticate(publishable=True)
    query = load(_saved_query, request.args.to_dict())
    merchants = sandbox().merchants
    if principal.kind is KeyKind.SECRET and query.get("client_secret") is None:
        return account_payment_methods_json(None, merchants.default_profile(principal.merchant_id))
    payment = _payment_of_client_secret(principal, query)
    return account_payment_methods_json(
        payment, merchants.profile_or_default(payment.merchant_id, payment.profile_id)
    )


@recurring.post("/<id:customer_id>/payment_methods/<id:payment_method_id>/default")
@documented(DefaultPaymentMethodAnswerSchema, body=_no_fields, errors=(400,), auth=Auth.EPHEMERAL)
def set_default_payment_method(customer_id: str, payment_method_id: str) -> Json:
    """Set the customer's default method: the merchant's secret key, or the customer's ephemeral key."""
    principal = authenticate(customer_id=customer_id)
    load(_no_fields, json_body())
    method = sandbox().payment_methods.set_default(principal.merchant_id, customer_id, payment_method_id)
    return {
        "default_payment_method_id": method.payment_method_id,
        "customer_id": customer_id,
        "payment_method": method.payment_method,
        "payment_method_type": method.payment_method_type,
    }


@recurring.get("/mandates/<id:mandate_id>")
@documented(MandateAnswerSchema)
def retrieve_mandate(mandate_id: str) -> Json:
    principal = authenticate()
    return mandate_json(sandbox().mandates.retrieve(principal.merchant_id, mandate_id))


@recurring.post("/mandates/revoke/<id:mandate_id>")
@documented(MandateRevokedAnswerSchema, body=_no_fields, errors=(400,))
def revoke_mandate(mandate_id: str) -> Json:
    principal = authenticate()
    load(_no_fields, json_body())
    return mandate_revoked_json(sandbox().mandates.revoke(principal.merchant_id, mandate_id))


@recurring.get("/customers/<id:customer_id>/mandates")
@documented(MandateAnswerSchema(many=True))
def list_customer_mandates(customer_id: str) -> list[Json]:
    principal = authenticate()
    sandbox().customers.retrieve(principal.merchant_id, customer_id)
    return [mandate_json(m) for m in sandbox().mandates.of_customer(principal.merchant_id, customer_id)]


def _saved_methods(customer: Customer) -> Json:
    methods = sandbox().payment_methods.of_customer(customer.merchant_id, customer.customer_id)
    return customer_payment_methods_json(methods, customer.default_payment_method_id)


def _payment_of_client_secret(principal: Principal, query: Json) -> Payment:
    """The payment a client secret in the query belongs to (`pay_..._secret_...`), checked as a
    retrieve with the publishable key checks it: IR_08 if missing, IR_09 if wrong."""
    client_secret = query.get("client_secret")
    if not client_secret:
        raise ClientSecretMissing()
    payment_id = client_secret_owner(client_secret)
    if not payment_id:  # not a client secret at all, as the real service tells it
        raise ClientSecretInvalid()
    return sandbox().payments.retrieve(principal.merchant_id, payment_id, client_secret, secret_required=True)
