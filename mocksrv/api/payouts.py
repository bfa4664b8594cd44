"""Routes of /payouts."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from mocksrv.api.answers.payouts import PayoutAnswerSchema, PayoutFiltersAnswerSchema, PayoutListAnswerSchema
from mocksrv.api.schemas.common import ListQuerySchema
from mocksrv.api.schemas.payouts import (
    PayoutConfirmSchema,
    PayoutCreateSchema,
    PayoutIdSchema,
    PayoutListSchema,
    PayoutTimeRangeSchema,
    PayoutUpdateSchema,
)
from mocksrv.bodies import json_body, load
from mocksrv.contract import documented
from mocksrv.domain.errors import InvalidField
from mocksrv.domain.models import Page
from mocksrv.domain.payouts import Payout
from mocksrv.representations import paged_list_json, payout_view
from mocksrv.rest import authenticate, sandbox

payouts = Blueprint("payouts", __name__)

Json = dict[str, Any]
_create, _update, _confirm, _list = (
    PayoutCreateSchema(),
    PayoutUpdateSchema(),
    PayoutConfirmSchema(),
    PayoutListSchema(),
)
_payout_id = PayoutIdSchema()
_query, _time_range = ListQuerySchema(), PayoutTimeRangeSchema()


def _same_payout(payout_id: str) -> None:
    """Load the body of cancel or fulfil; a payout_id in it must be the one in the path."""
    sent = load(_payout_id, json_body()).get("payout_id")
    if sent is not None and sent != payout_id:
        raise InvalidField("payout_id", "does not match the payout in the path")


@payouts.post("/payouts/create")
@documented(PayoutAnswerSchema, body=_create)
def create_payout() -> Json:
    principal = authenticate()
    return _shown(sandbox().payouts.create(principal.merchant_id, load(_create, json_body())))


@payouts.post("/payouts/list")
@documented(PayoutListAnswerSchema, body=_list)
def list_payouts() -> Json:
    principal = authenticate()
    query = load(_list, json_body())
    return _listed(sandbox().payouts.list(principal.merchant_id, query), query.offset)


@payouts.get("/payouts/list")
@documented(PayoutListAnswerSchema, query=_query)
def query_payouts() -> Json:
    """The same list, filtered by the query string, as the real service's GET takes it."""
    principal = authenticate()
    query = load(_query, request.args.to_dict())
    return _listed(sandbox().payouts.list(principal.merchant_id, query), query.offset)


def _shown(payout: Payout) -> Json:
    return payout_view(payout, sandbox())


def _listed(page: Page, offset: int) -> Json:
    payouts_ = [_shown(p) for p in page.items]
    # `size`: the real name of `count`; `has_more`: the spec's general form.
    return {**paged_list_json(payouts_, page.total_count, offset), "size": len(payouts_)}


@payouts.post("/payouts/filter")
@documented(PayoutFiltersAnswerSchema, body=_time_range)
def payout_filters() -> Json:
    """What each list filter may choose among the payouts made in a time range."""
    principal = authenticate()
    sent = load(_time_range, json_body())
    return sandbox().payouts.filters(principal.merchant_id, sent["start_time"], sent.get("end_time"))


@payouts.get("/payouts/<id:payout_id>")
@documented(PayoutAnswerSchema)
def retrieve_payout(payout_id: str) -> Json:
    principal = authenticate()
    return _shown(sandbox().payouts.retrieve(principal.merchant_id, payout_id))


@payouts.post("/payouts/<id:payout_id>")
@payouts.put("/payouts/<id:payout_id>")
@documented(PayoutAnswerSchema, body=_update)
def update_payout(payout_id: str) -> Json:
    principal = authenticate()
    fields_ = load(_update, json_body())
    return _shown(sandbox().payouts.update(principal.merchant_id, payout_id, fields_))


@payouts.post("/payouts/<id:payout_id>/confirm")
@documented(PayoutAnswerSchema, body=_confirm)
def confirm_payout(payout_id: str) -> Json:
    principal = authenticate()
    fields_ = load(_confirm, json_body())
    return _shown(sandbox().payouts.confirm(principal.merchant_id, payout_id, fields_))


@payouts.post("/payouts/<id:payout_id>/cancel")
@documented(PayoutAnswerSchema, body=_payout_id)
def cancel_payout(payout_id: str) -> Json:
    principal = authenticate()
    _same_payout(payout_id)
    return _shown(sandbox().payouts.cancel(principal.merchant_id, payout_id))


@payouts.post("/payouts/<id:payout_id>/fulfill")
@documented(PayoutAnswerSchema, body=_payout_id)
def fulfill_payout(payout_id: str) -> Json:
    principal = authenticate()
    _same_payout(payout_id)
    return _shown(sandbox().payouts.fulfill(principal.merchant_id, payout_id))
