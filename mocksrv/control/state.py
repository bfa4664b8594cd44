"""Snapshots, restores and seeded ids, on the control plane: /__mock/snapshot, /restore, /ids.

A merchant's secret key acts on its own merchant; the admin key on every merchant, or on the one
`merchant_id` names.
"""

from __future__ import annotations

from typing import Any

from flask import request
from marshmallow import fields, validate

from mocksrv.bodies import json_body, load
from mocksrv.contract import AnswerSchema, Auth, documented, one_of
from mocksrv.control.blueprint import MerchantOnlySchema, acting_merchant, control, named_merchant
from mocksrv.domain.controls.snapshot import Snapshots
from mocksrv.domain.ids import MAX_SEED
from mocksrv.fieldtypes import Entries
from mocksrv.rest import is_admin, sandbox
from mocksrv.schema import RequestSchema
from mocksrv.version import __version__

Json = dict[str, Any]


class SnapshotBodySchema(RequestSchema):
    """A snapshot document, as GET /__mock/snapshot answers it (checked by the restore itself)."""

    format = fields.String(required=True)
    version = fields.Integer(required=True)
    mocksrv = fields.String()
    taken_at = fields.String()
    scope = fields.String()
    merchants = Entries(keys=fields.String(), values=fields.Dict(), required=True)
    ids = fields.Dict(allow_none=True)


class SeedIdsSchema(RequestSchema):
    merchant_id = fields.String()
    seed = fields.Integer(strict=True, required=True, allow_none=True, validate=validate.Range(0, MAX_SEED))


class ControlSnapshotAnswerSchema(AnswerSchema):
    format = fields.String()
    version = fields.Integer()
    mocksrv = fields.String()
    taken_at = fields.String()
    scope = one_of(["all", "merchant"])
    merchants = fields.Dict(keys=fields.String(), values=fields.Dict())
    ids = fields.Dict(allow_none=True, metadata={"optional": True})


class ControlRestoreAnswerSchema(AnswerSchema):
    restored = fields.Dict(
        keys=fields.String(), values=fields.Dict(keys=fields.String(), values=fields.Integer())
    )
    removed = fields.List(fields.String())


class ControlIdsAnswerSchema(AnswerSchema):
    merchant_id = fields.String()
    seed = fields.Integer(allow_none=True)


_merchant_query, _snapshot_body, _seed_ids = MerchantOnlySchema(), SnapshotBodySchema(), SeedIdsSchema()


@control.get("/snapshot")
@documented(ControlSnapshotAnswerSchema, query=_merchant_query, auth=Auth.CONTROL, errors=(404,))
def take_snapshot() -> Json:
    """The state of the merchant, or (admin key, no merchant_id) of every merchant, as one document."""
    query = load(_merchant_query, request.args.to_dict())
    everything = is_admin() and named_merchant(query) is None
    merchant_id = None if everything else acting_merchant(query)
    return Snapshots(sandbox()).take(merchant_id, producer=__version__)


@control.post("/restore")
@documented(
    ControlRestoreAnswerSchema, body=_snapshot_body, query=_merchant_query, auth=Auth.CONTROL, errors=(404,)
)
def restore_snapshot() -> Json:
    """Replace the merchant, or (admin key, no merchant_id) every merchant, with a document's."""
    query = load(_merchant_query, request.args.to_dict())
    # The admin may bring back a merchant that is gone; a merchant's key, only its own merchant.
    merchant_id = named_merchant(query) if is_admin() else acting_merchant(query)
    restored = Snapshots(sandbox()).restore(json_body(), merchant_id)
    return {"restored": restored.merchants, "removed": restored.removed}


@control.put("/ids")
@documented(ControlIdsAnswerSchema, body=_seed_ids, auth=Auth.CONTROL, errors=(404,))
def seed_ids() -> Json:
    """Draw the merchant's new ids and secrets from a seeded stream (null: back to the default)."""
    body = load(_seed_ids, json_body())
    merchant_id = acting_merchant(body)
    Snapshots(sandbox()).seed_ids(merchant_id, body["seed"])
    return {"merchant_id": merchant_id, "seed": body["seed"]}
