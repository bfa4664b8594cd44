"""API keys and profiles in the domain alone: the key table, keys on the mock clock, per-profile events."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import orjson
import pytest

from mocksrv.app import create_sandbox
from mocksrv.domain.controls.snapshot import Snapshots
from mocksrv.domain.errors import InvalidField, ResourceNotFound, Unauthorized
from mocksrv.domain.models import ApiKeyStatus
from mocksrv.domain.sandbox import Sandbox
from mocksrv.settings import Settings
from tests.payloads import MERCHANT_ID, PROFILE_ID, SECRET_KEY
from tests.unit.fakes import T0, FakeSystemTime


def create_key(sandbox: Sandbox, **fields: Any) -> tuple[str, str]:
    record, plaintext = sandbox.api_keys.create(MERCHANT_ID, {"name": "ci", "expiration": "never", **fields})
    return record.key_id, plaintext


def test_a_revoked_key_is_stored_as_revoked_and_refused(sandbox: Sandbox) -> None:
    key_id, plaintext = create_key(sandbox)

    revoked = sandbox.api_keys.revoke(MERCHANT_ID, key_id)

    assert (revoked.status, revoked.updated_at) == (ApiKeyStatus.REVOKED, T0)
    with pytest.raises(Unauthorized):
        sandbox.merchants.authenticate(plaintext)
    with pytest.raises(ResourceNotFound):
        sandbox.api_keys.revoke(MERCHANT_ID, key_id)


def test_a_key_works_until_its_expiration_on_the_merchants_clock(
    sandbox: Sandbox, system_time: FakeSystemTime
) -> None:
    sandbox.clock.freeze(MERCHANT_ID)
    _, plaintext = create_key(sandbox, expiration=(T0 + timedelta(minutes=1)).isoformat())
    sandbox.scheduler.advance(MERCHANT_ID, 59.999)
    assert sandbox.merchants.authenticate(plaintext).merchant_id == MERCHANT_ID

    sandbox.scheduler.advance(MERCHANT_ID, 0.001)

    with pytest.raises(Unauthorized):
        sandbox.merchants.authenticate(plaintext)


def test_an_expiration_already_past_is_refused(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField) as raised:
        create_key(sandbox, expiration=T0.isoformat())
    assert raised.value.param == "expiration"


def test_a_revoked_key_survives_a_snapshot_round_trip(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    key_id, plaintext = create_key(sandbox)
    sandbox.api_keys.revoke(MERCHANT_ID, key_id)
    document = orjson.loads(orjson.dumps(Snapshots(sandbox).take(None, producer="test")))
    other = create_sandbox(Settings(), system_time)

    Snapshots(other).restore(document, None)

    with pytest.raises(Unauthorized):
        other.merchants.authenticate(plaintext)
    assert other.merchants.authenticate(SECRET_KEY).merchant_id == MERCHANT_ID


@dataclass(frozen=True)
class OfProfile:
    """A resource that names its profile, as payments, refunds, disputes and payouts do."""

    profile_id: str


def test_an_event_belongs_to_its_resources_profile_or_else_the_default(sandbox: Sandbox) -> None:
    outlet = sandbox.merchants.create_profile(MERCHANT_ID, {"profile_name": "outlet"})
    refund = OfProfile(outlet.profile_id)

    assert sandbox.merchants.profile_id_of(MERCHANT_ID, refund) == outlet.profile_id
    assert sandbox.merchants.profile_id_of(MERCHANT_ID, object()) == PROFILE_ID
    assert sandbox.merchants.event_profile(MERCHANT_ID, refund) == outlet


def test_the_default_profile_cannot_be_deleted(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField):
        sandbox.merchants.delete_profile(MERCHANT_ID, PROFILE_ID)
    assert sandbox.merchants.default_profile(MERCHANT_ID).profile_id == PROFILE_ID


def test_production_serves_the_fixture_keys_with_its_own_prefix(system_time: FakeSystemTime) -> None:
    production = create_sandbox(Settings(environment="production"), system_time)

    (credentials,) = production.seeded

    assert (credentials.secret_key, credentials.publishable_key) == (
        "prd_default_secret_key",
        "pk_prd_default_publishable_key",
    )
    assert production.merchants.authenticate("prd_default_secret_key").merchant_id == MERCHANT_ID
