"""EphemeralKeyService: ids and secrets, expiry on the mock clock, delete, isolation, reset, and
authenticating a request sent with a key's secret."""

from __future__ import annotations

import re

import pytest

from mocksrv.domain.ephemeral_keys import EPHEMERAL_KEY_VALIDITY, EphemeralKey
from mocksrv.domain.errors import ErrorKind, InvalidField, ResourceNotFound, Unauthorized
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.models import KeyKind, Principal
from mocksrv.domain.sandbox import Sandbox
from tests.payloads import MERCHANT_ID
from tests.unit.fakes import at


@pytest.fixture
def key(sandbox: Sandbox) -> EphemeralKey:
    sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_ada"})
    return sandbox.ephemeral_keys.create(MERCHANT_ID, "cus_ada")


def _not_found(sandbox: Sandbox, merchant_id: str, key_id: str) -> tuple[str, ErrorKind, str]:
    with pytest.raises(ResourceNotFound) as raised:
        sandbox.ephemeral_keys.delete(merchant_id, key_id)
    return raised.value.code, raised.value.kind, raised.value.message


NOT_FOUND = ("HE_02", ErrorKind.NOT_FOUND, "Ephemeral key does not exist in our records")


def test_validity_is_one_hour() -> None:
    assert EPHEMERAL_KEY_VALIDITY.total_seconds() == 3600


def test_create_gives_an_id_a_secret_and_mock_clock_times(sandbox: Sandbox) -> None:
    sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_ada"})
    sandbox.scheduler.advance(MERCHANT_ID, 42)

    key = sandbox.ephemeral_keys.create(MERCHANT_ID, "cus_ada")

    assert re.fullmatch(r"eki_[A-Za-z0-9]{20}", key.id)
    assert re.fullmatch(rf"epk_[0-9a-f]{{32}}{MERCHANT_ID}", key.secret)
    assert (key.merchant_id, key.customer_id, key.created, key.expires) == (
        MERCHANT_ID,
        "cus_ada",
        at(42),
        at(42 + 3600),
    )


def test_create_for_an_unknown_customer_is_ir_04(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidField) as raised:
        sandbox.ephemeral_keys.create(MERCHANT_ID, "cus_unknown")
    assert (raised.value.code, raised.value.param) == ("IR_04", "customer_id")


def test_retrieve_answers_the_stored_key(sandbox: Sandbox, key: EphemeralKey) -> None:
    assert sandbox.ephemeral_keys.retrieve(MERCHANT_ID, key.id) == key


def test_delete_returns_the_key_and_removes_it(sandbox: Sandbox, key: EphemeralKey) -> None:
    assert sandbox.ephemeral_keys.delete(MERCHANT_ID, key.id) == key
    assert _not_found(sandbox, MERCHANT_ID, key.id) == NOT_FOUND


def test_unknown_key_is_not_found(sandbox: Sandbox) -> None:
    assert _not_found(sandbox, MERCHANT_ID, "eki_unknown") == NOT_FOUND


def test_key_lives_until_its_expiry_on_the_mock_clock(sandbox: Sandbox, key: EphemeralKey) -> None:
    sandbox.scheduler.advance(MERCHANT_ID, 3599)
    assert sandbox.ephemeral_keys.retrieve(MERCHANT_ID, key.id) == key

    sandbox.scheduler.advance(MERCHANT_ID, 1)
    assert _not_found(sandbox, MERCHANT_ID, key.id) == NOT_FOUND


def test_keys_are_isolated_per_merchant(sandbox: Sandbox, key: EphemeralKey) -> None:
    other = sandbox.add_merchant(MerchantSeed(merchant_id="merchant_other")).merchant.merchant_id

    assert _not_found(sandbox, other, key.id) == NOT_FOUND
    assert sandbox.ephemeral_keys.retrieve(MERCHANT_ID, key.id) == key


def test_reset_removes_the_merchants_keys(sandbox: Sandbox, key: EphemeralKey) -> None:
    sandbox.reset(MERCHANT_ID)

    assert _not_found(sandbox, MERCHANT_ID, key.id) == NOT_FOUND


def _refused(sandbox: Sandbox, secret: str, customer_id: str = "cus_ada") -> tuple[str, ErrorKind]:
    with pytest.raises(Unauthorized) as raised:
        sandbox.ephemeral_keys.authenticate(secret, customer_id)
    return raised.value.code, raised.value.kind


REFUSED = ("IR_01", ErrorKind.AUTH)


def test_a_key_authenticates_for_its_customer_as_its_merchant(sandbox: Sandbox, key: EphemeralKey) -> None:
    assert sandbox.ephemeral_keys.authenticate(key.secret, "cus_ada") == Principal(
        MERCHANT_ID, key.id, KeyKind.EPHEMERAL, 6000
    )


def test_a_key_authenticates_for_no_other_customer(sandbox: Sandbox, key: EphemeralKey) -> None:
    sandbox.customers.create(MERCHANT_ID, {"customer_id": "cus_bob"})

    assert _refused(sandbox, key.secret, "cus_bob") == REFUSED


def test_a_key_authenticates_until_its_expiry_on_the_mock_clock(sandbox: Sandbox, key: EphemeralKey) -> None:
    sandbox.scheduler.advance(MERCHANT_ID, 3599)
    assert sandbox.ephemeral_keys.authenticate(key.secret, "cus_ada").key_id == key.id

    sandbox.scheduler.advance(MERCHANT_ID, 1)
    assert _refused(sandbox, key.secret) == REFUSED


def test_a_deleted_key_authenticates_no_more(sandbox: Sandbox, key: EphemeralKey) -> None:
    sandbox.ephemeral_keys.delete(MERCHANT_ID, key.id)

    assert _refused(sandbox, key.secret) == REFUSED


@pytest.mark.parametrize(
    "secret",
    [
        "epk_" + "0" * 32 + MERCHANT_ID,
        "epk_" + "0" * 32 + "merchant_unknown",
        "epk_" + "0" * 32,
        "epk_" + "g" * 32 + MERCHANT_ID,
        "snd_default_secret_key",
        "",
    ],
)
def test_a_secret_never_issued_authenticates_nothing(
    sandbox: Sandbox, key: EphemeralKey, secret: str
) -> None:
    assert _refused(sandbox, secret) == REFUSED


def test_a_secret_naming_an_unknown_merchant_makes_no_store_for_it(sandbox: Sandbox) -> None:
    _refused(sandbox, "epk_" + "0" * 32 + "merchant_unknown")

    assert "merchant_unknown" not in sandbox.store.merchant_ids()
