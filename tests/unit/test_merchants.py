"""MerchantService (decisions section 1): keys and authentication, new merchants, isolation."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import timedelta

import pytest

from mocksrv.domain.errors import DuplicateResource, ErrorKind, InvalidField, ResourceNotFound, Unauthorized
from mocksrv.domain.merchants import API_KEYS, MerchantSeed, key_hash
from mocksrv.domain.models import ApiKeyStatus, Environment, KeyKind
from mocksrv.domain.payments.outcomes import OutcomeTable
from mocksrv.domain.sandbox import Sandbox, SandboxConfig
from mocksrv.domain.store import GLOBAL, Query
from tests.e2e.harness import poll
from tests.payloads import MERCHANT_ID, PROFILE_ID, PUBLISHABLE_KEY, SECRET_KEY, SIGNING_KEY, payment
from tests.unit.fakes import T0, FakeSystemTime
from tests.unit.test_store import DEADLINE, waits_in

INVALID_KEY = "API key not provided or invalid API key used"


def refusal(sandbox: Sandbox, key: str | None) -> Unauthorized:
    with pytest.raises(Unauthorized) as raised:
        sandbox.merchants.authenticate(key)
    return raised.value


def change_key(sandbox: Sandbox, key: str, **changes: object) -> None:
    record = sandbox.store.get(API_KEYS, GLOBAL, key_hash(key))
    sandbox.store.put(API_KEYS, GLOBAL, replace(record, **changes))


# -- authenticate ----------------------------------------------------------------------------------


def test_secret_key_acts_as_its_merchant(sandbox: Sandbox) -> None:
    who = sandbox.merchants.authenticate(SECRET_KEY)
    assert (who.merchant_id, who.kind, who.rate_limit) == (MERCHANT_ID, KeyKind.SECRET, 6000)


def test_publishable_key_is_of_the_publishable_kind(sandbox: Sandbox) -> None:
    who = sandbox.merchants.authenticate(PUBLISHABLE_KEY)
    assert (who.merchant_id, who.kind) == (MERCHANT_ID, KeyKind.PUBLISHABLE)


def test_the_two_keys_have_different_key_ids(sandbox: Sandbox) -> None:
    assert (
        sandbox.merchants.authenticate(SECRET_KEY).key_id
        != sandbox.merchants.authenticate(PUBLISHABLE_KEY).key_id
    )


@pytest.mark.parametrize("key", [None, ""])
def test_missing_key_is_unauthorized(sandbox: Sandbox, key: str | None) -> None:
    error = refusal(sandbox, key)
    assert (error.code, error.kind, error.message) == ("IR_01", ErrorKind.AUTH, INVALID_KEY)


@pytest.mark.parametrize(
    "key", ["snd_unknown", "pk_snd_unknown", "snd_default_secret_key ", "SND_DEFAULT_SECRET_KEY"]
)
def test_unknown_key_is_unauthorized(sandbox: Sandbox, key: str) -> None:
    error = refusal(sandbox, key)
    assert (error.code, error.message) == ("IR_01", INVALID_KEY)


@pytest.mark.parametrize("key", ["prd_default_secret_key", "pk_prd_default_publishable_key"])
def test_production_key_is_refused_by_the_sandbox(sandbox: Sandbox, key: str) -> None:
    error = refusal(sandbox, key)
    assert (error.code, error.kind, error.message) == (
        "IR_01",
        ErrorKind.AUTH,
        "Production keys are not accepted by the sandbox",
    )


def test_revoked_key_is_unauthorized(sandbox: Sandbox) -> None:
    change_key(sandbox, SECRET_KEY, status=ApiKeyStatus.REVOKED)
    assert refusal(sandbox, SECRET_KEY).message == INVALID_KEY


def test_key_expiring_later_is_accepted(sandbox: Sandbox) -> None:
    change_key(sandbox, SECRET_KEY, expiration=T0 + timedelta(seconds=60))
    assert sandbox.merchants.authenticate(SECRET_KEY).merchant_id == MERCHANT_ID


def test_key_is_expired_once_the_mock_clock_reaches_its_expiration(sandbox: Sandbox) -> None:
    change_key(sandbox, SECRET_KEY, expiration=T0 + timedelta(seconds=60))
    sandbox.scheduler.advance(MERCHANT_ID, 60)
    assert refusal(sandbox, SECRET_KEY).message == INVALID_KEY


def test_key_expiry_is_judged_on_the_merchants_clock(sandbox: Sandbox, system_time: FakeSystemTime) -> None:
    change_key(sandbox, SECRET_KEY, expiration=T0 + timedelta(seconds=60))
    sandbox.clock.freeze(MERCHANT_ID)
    system_time.advance(3600)
    assert sandbox.merchants.authenticate(SECRET_KEY).merchant_id == MERCHANT_ID


# -- the default merchant --------------------------------------------------------------------------


def test_default_merchant_has_the_documented_profile(sandbox: Sandbox) -> None:
    profile = sandbox.merchants.default_profile(MERCHANT_ID)
    assert (profile.profile_id, profile.payment_response_hash_key, profile.session_expiry) == (
        PROFILE_ID,
        SIGNING_KEY,
        900,
    )


def test_unknown_merchant_is_not_found(sandbox: Sandbox) -> None:
    with pytest.raises(ResourceNotFound) as raised:
        sandbox.merchants.merchant("merchant_unknown")
    assert (raised.value.code, raised.value.message) == ("HE_02", "Merchant does not exist in our records")


# -- new merchants ---------------------------------------------------------------------------------


def test_new_merchant_gets_sandbox_keys(sandbox: Sandbox) -> None:
    credentials = sandbox.merchants.create(MerchantSeed())
    assert credentials.secret_key.startswith("snd_")
    assert credentials.publishable_key.startswith("pk_snd_")


def test_new_merchant_gets_generated_ids(sandbox: Sandbox) -> None:
    credentials = sandbox.merchants.create(MerchantSeed())
    assert credentials.merchant.merchant_id.startswith("merchant_")
    assert credentials.profile.profile_id.startswith("pro_")
    assert credentials.profile.payment_response_hash_key.startswith("whsec_")


def test_new_merchant_keys_act_as_the_new_merchant(sandbox: Sandbox) -> None:
    credentials = sandbox.merchants.create(MerchantSeed())
    who = sandbox.merchants.authenticate(credentials.secret_key)
    assert (who.merchant_id, who.kind) == (credentials.merchant.merchant_id, KeyKind.SECRET)


def test_new_merchant_publishable_key_is_publishable(sandbox: Sandbox) -> None:
    credentials = sandbox.merchants.create(MerchantSeed())
    assert sandbox.merchants.authenticate(credentials.publishable_key).kind is KeyKind.PUBLISHABLE


def test_two_new_merchants_get_different_keys(sandbox: Sandbox) -> None:
    first = sandbox.merchants.create(MerchantSeed())
    second = sandbox.merchants.create(MerchantSeed())
    assert first.merchant.merchant_id != second.merchant.merchant_id
    assert {first.secret_key, first.publishable_key}.isdisjoint({second.secret_key, second.publishable_key})


def test_new_merchant_sees_none_of_the_default_merchants_payments(sandbox: Sandbox) -> None:
    sandbox.payments.create(MERCHANT_ID, payment())
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    assert sandbox.payments.list(other, Query.of()).total_count == 0


def test_new_merchant_cannot_use_the_default_merchants_profile(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    assert sandbox.merchants.profile(other, PROFILE_ID) is None


def test_new_merchant_has_its_own_outcome_table(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    sandbox.merchants.replace_outcomes(other, OutcomeTable(()))
    assert len(sandbox.merchants.outcomes(MERCHANT_ID).rules) == 37


def test_new_merchant_starts_with_the_default_outcome_table(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    assert sandbox.merchants.outcomes(other) is sandbox.merchants.outcomes(MERCHANT_ID)


def test_duplicate_merchant_id_is_rejected(sandbox: Sandbox) -> None:
    with pytest.raises(DuplicateResource) as raised:
        sandbox.merchants.create(MerchantSeed(merchant_id=MERCHANT_ID))
    assert (raised.value.code, raised.value.message) == (
        "HE_01",
        "The merchant with the specified merchant_id already exists in our records",
    )


def test_key_already_in_use_is_rejected(sandbox: Sandbox) -> None:
    with pytest.raises(DuplicateResource) as raised:
        sandbox.merchants.create(MerchantSeed(merchant_id="merchant_copy", secret_key=SECRET_KEY))
    assert (raised.value.code, raised.value.param) == ("HE_01", "api_key")


def test_merchant_refused_for_a_key_in_use_is_not_created(sandbox: Sandbox) -> None:
    with pytest.raises(DuplicateResource):
        sandbox.merchants.create(MerchantSeed(merchant_id="merchant_copy", publishable_key=PUBLISHABLE_KEY))
    assert not sandbox.merchants.exists("merchant_copy")
    assert "merchant_copy" not in sandbox.merchants.merchant_ids()
    assert "merchant_copy" not in sandbox.store.merchant_ids()  # no space left behind either


def test_key_in_use_still_acts_as_its_first_merchant(sandbox: Sandbox) -> None:
    with pytest.raises(DuplicateResource):
        sandbox.merchants.create(MerchantSeed(merchant_id="merchant_copy", secret_key=SECRET_KEY))
    assert sandbox.merchants.authenticate(SECRET_KEY).merchant_id == MERCHANT_ID


def test_require_merchant_id_refuses_a_missing_id(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField) as raised:
        sandbox.merchants.require_merchant_id(None)
    assert (raised.value.param, raised.value.message) == (
        "merchant_id",
        "Missing required param: merchant_id",
    )


def test_require_merchant_id_refuses_an_unknown_id(sandbox: Sandbox) -> None:
    with pytest.raises(ResourceNotFound):
        sandbox.merchants.require_merchant_id("merchant_unknown")


# -- production mode -------------------------------------------------------------------------------


@pytest.fixture
def production(system_time: FakeSystemTime) -> Sandbox:
    config = SandboxConfig(environment=Environment.PRODUCTION)
    return Sandbox(config, OutcomeTable(()), system_time)


def test_production_merchant_gets_production_keys(production: Sandbox) -> None:
    credentials = production.merchants.create(MerchantSeed())
    assert credentials.secret_key.startswith("prd_")
    assert credentials.publishable_key.startswith("pk_prd_")


def test_production_key_works_in_production_mode(production: Sandbox) -> None:
    credentials = production.merchants.create(MerchantSeed(merchant_id="merchant_live"))
    who = production.merchants.authenticate(credentials.secret_key)
    assert (who.merchant_id, who.kind) == ("merchant_live", KeyKind.SECRET)


@pytest.mark.parametrize("key", ["snd_default_secret_key", "pk_snd_default_publishable_key"])
def test_sandbox_key_is_refused_in_production_mode(production: Sandbox, key: str) -> None:
    with pytest.raises(Unauthorized) as raised:
        production.merchants.authenticate(key)
    assert (raised.value.code, raised.value.kind) == ("IR_01", ErrorKind.AUTH)
    assert raised.value.message.startswith("Sandbox keys are not accepted")


def test_a_delete_waits_for_what_holds_the_merchant_and_until_then_the_merchant_is_whole(
    sandbox: Sandbox,
) -> None:
    seen: list[bool] = []
    with sandbox.store.transaction(MERCHANT_ID):  # an advance, say, whose timers need the merchant
        deleting = threading.Thread(target=sandbox.remove_merchant, args=(MERCHANT_ID,), daemon=True)
        deleting.start()
        came = poll(lambda: waits_in(deleting, "remove_space"), bool, timeout=DEADLINE, max_attempts=10**8)
        seen.append(sandbox.merchants.exists(MERCHANT_ID))
        seen.append(sandbox.merchants.authenticate(SECRET_KEY).merchant_id == MERCHANT_ID)
    deleting.join(DEADLINE)

    assert came, "the delete never came to wait for the merchant's lock"
    assert seen == [True, True]
    assert (sandbox.merchants.exists(MERCHANT_ID), MERCHANT_ID in sandbox.store.merchant_ids()) == (
        False,
        False,
    )
