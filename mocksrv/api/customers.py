"""Routes of /customers."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from mocksrv.api import schemas
from mocksrv.api.answers.customers import (
    CustomerAnswerSchema,
    CustomerDeletedAnswerSchema,
    CustomerListAnswerSchema,
)
from mocksrv.bodies import json_body, load
from mocksrv.contract import documented
from mocksrv.representations import customer_json, general_list_json
from mocksrv.rest import authenticate, sandbox

customers = Blueprint("customers", __name__)

_create = schemas.CustomerCreateSchema()
_update = schemas.CustomerFieldsSchema()
_list = schemas.CustomerListSchema()
_no_fields = schemas.NoFieldsSchema()

Json = dict[str, Any]


@customers.post("/customers")
@documented(CustomerAnswerSchema, body=_create)
def create_customer() -> Json:
    principal = authenticate()
    return customer_json(sandbox().customers.create(principal.merchant_id, load(_create, json_body())))


@customers.get("/customers/list")
@documented(CustomerListAnswerSchema, query=_list)
def list_customers() -> Json:
    principal = authenticate()
    query = load(_list, request.args.to_dict())
    page = sandbox().customers.list(principal.merchant_id, query)
    return general_list_json([customer_json(c) for c in page.items], page.total_count, query.offset)


@customers.get("/customers/<id:customer_id>")
@documented(CustomerAnswerSchema)
def retrieve_customer(customer_id: str) -> Json:
    principal = authenticate()
    return customer_json(sandbox().customers.retrieve(principal.merchant_id, customer_id))


@customers.post("/customers/<id:customer_id>")
@documented(CustomerAnswerSchema, body=_update)
def update_customer(customer_id: str) -> Json:
    principal = authenticate()
    fields = load(_update, json_body())
    return customer_json(sandbox().customers.update(principal.merchant_id, customer_id, fields))


@customers.delete("/customers/<id:customer_id>")
@documented(CustomerDeletedAnswerSchema, body=_no_fields, errors=(400,))
def delete_customer(customer_id: str) -> Json:
    principal = authenticate()
    load(_no_fields, json_body())
    customer = sandbox().delete_customer(principal.merchant_id, customer_id)
    return {
        "customer_id": customer.customer_id,
        "customer_deleted": True,
        "address_deleted": True,
        "payment_methods_deleted": True,
    }
