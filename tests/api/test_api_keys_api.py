"""API keys (spec 4.5, decisions sections 1 and 4): created, listed, retrieved, updated and revoked
through /api_keys/:merchant_id, judged on the merchant's mock clock; and the keys of each environment."""

from __future__ import annotations

from typing import Any

import pytest

from mocksrv.settings import Settings
from tests.api.conftest import OtherMerchant
from tests.api.expected import (
    UNAUTHORIZED,
    Matches,
    case_id,
    error,
    invalid,
    invalid_for_any_reason,
    later,
    malformed,
    missing,
)
from tests.api.scenarios import advance, ok
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

KEYS = f"/api_keys/{MERCHANT_ID}"
LIST = f"{KEYS}/list"
GENERATED_KEY = Matches(r"snd_[0-9a-f]{32}")
GENERATED_KEY_ID = Matches(r"key_[A-Za-z0-9]{20}")
GENERATED_PREFIX = Matches(r"snd_[0-9a-f]{4}")
KEY_NOT_FOUND = error("HE_02", "API Key does not exist in our records")
MERCHANT_NOT_FOUND = error("HE_02", "Merchant does not exist in our records")
REFUSED = error("IR_01", UNAUTHORIZED)
FUTURE = "2099-01-01T00:00:00.000Z"


def new_key(api: Api, merchant_id: str = MERCHANT_ID, **fields: Any) -> dict[str, Any]:
    return ok(api.post(f"/api_keys/{merchant_id}", {"name": "ci", "expiration": "never", **fields}))


def health(api: Api, key: str) -> int:
    """The status of GET /health with `key`: 200 while the key works, 401 once it does not."""
    status: int = api.as_key(key).get("/health").status_code
    return status


def shown(created: dict[str, Any]) -> dict[str, Any]:
    """A created key as retrieve and list show it: its prefix instead of the key."""
    listed = {name: value for name, value in created.items() if name != "api_key"}
    return {**listed, "prefix": created["api_key"][:8]}


def default_key(api: Api) -> dict[str, Any]:
    """The fixture's secret key, as the list shows it."""
    (key,) = [key for key in ok_list(api.get(LIST)) if key["name"] == "default"]
    return key


def ok_list(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.get_json()
    body: list[dict[str, Any]] = response.get_json()
    return body


# -- POST /api_keys/:merchant_id ------------------------------------------------------------------


def test_create_answers_the_key_in_full_once(api: Api, frozen: str) -> None:
    response = api.post(KEYS, {"name": "ci", "description": "the CI runner", "expiration": "never"})

    assert response.status_code == 200
    assert response.json == {
        "key_id": GENERATED_KEY_ID,
        "merchant_id": MERCHANT_ID,
        "name": "ci",
        "description": "the CI runner",
        "api_key": GENERATED_KEY,
        "created": frozen,
        "expiration": "never",
    }


def test_the_journal_keeps_the_last_four_of_a_key_it_hands_out(api: Api) -> None:
    created = new_key(api)

    [entry] = ok(api.get(f"/__mock/requests?path=/api_keys/{MERCHANT_ID}"))["data"]

    assert entry["response_body"]["api_key"] == "*" * (len(created["api_key"]) - 4) + created["api_key"][-4:]


def test_create_with_an_empty_name_keeps_it(api: Api) -> None:
    # The real CreateApiKeyRequest bounds `name` to 64 characters and sets no minimum.
    created = new_key(api, name="")

    assert created["name"] == ""
    assert ok(api.get(f"{KEYS}/{created['key_id']}"))["name"] == ""
    assert [key["name"] for key in ok_list(api.get(LIST))] == ["", "default"]


def test_a_created_key_works_at_once(api: Api) -> None:
    created = new_key(api)

    assert health(api, created["api_key"]) == 200


def test_a_created_key_acts_as_its_merchant(api: Api) -> None:
    created = new_key(api)

    response = api.as_key(created["api_key"]).get(LIST)

    assert response.status_code == 200
    assert response.json[0]["key_id"] == created["key_id"]


def test_create_with_an_expiration_answers_it(api: Api) -> None:
    created = new_key(api, expiration="2099-01-01T01:00:00+01:00")

    assert created["expiration"] == FUTURE


def test_create_with_the_admin_key_works(admin: Api) -> None:
    response = admin.post(KEYS, {"name": "ops", "expiration": "never"})

    assert response.status_code == 200
    assert response.json["merchant_id"] == MERCHANT_ID


def test_each_created_key_is_new(api: Api) -> None:
    first, second = new_key(api), new_key(api)

    assert (first["key_id"], first["api_key"]) != (second["key_id"], second["api_key"])


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"expiration": "never"}, missing("name")),
        ({"name": "ci"}, missing("expiration")),
        ({"name": "ci", "expiration": None}, invalid_for_any_reason("expiration")),
        ({"name": "x" * 65, "expiration": "never"}, invalid_for_any_reason("name")),
        (
            {"name": "ci", "description": "x" * 257, "expiration": "never"},
            invalid_for_any_reason("description"),
        ),
        ({"name": "ci", "expiration": "soon"}, invalid_for_any_reason("expiration")),
        ({"name": "ci", "expiration": 60}, invalid_for_any_reason("expiration")),
        (
            {"name": "ci", "expiration": "2000-01-01T00:00:00Z"},
            invalid("expiration", "a time after now, on the merchant's clock"),
        ),
        (
            {"name": "ci", "expiration": "9999-12-31T23:59:59Z"},
            invalid("expiration", "no later than 9000-01-01T00:00:00.000Z, where the mock clock ends"),
        ),
        ({"name": "ci", "expiration": "never", "prefix": "snd_"}, malformed("unknown field `prefix`")),
    ],
    ids=case_id,
)
def test_create_with_an_invalid_field_is_refused_and_creates_nothing(
    api: Api, body: dict, expected: dict
) -> None:
    response = api.post(KEYS, body)

    assert response.status_code == 400
    assert response.json == expected
    assert len(ok_list(api.get(LIST))) == 1


def test_create_with_an_expiration_of_now_is_refused(api: Api, frozen: str) -> None:
    response = api.post(KEYS, {"name": "ci", "expiration": frozen})

    assert response.status_code == 400
    assert response.json == invalid("expiration", "a time after now, on the merchant's clock")


def test_create_for_another_merchant_is_404(api: Api, other_merchant: OtherMerchant) -> None:
    response = api.post(f"/api_keys/{other_merchant.merchant_id}", {"name": "ci", "expiration": "never"})

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


def test_create_for_no_such_merchant_with_the_admin_key_is_404(admin: Api) -> None:
    response = admin.post("/api_keys/merchant_nobody", {"name": "ci", "expiration": "never"})

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


def test_create_with_the_publishable_key_is_401(browser: Api) -> None:
    response = browser.post(KEYS, {"name": "ci", "expiration": "never"})

    assert response.status_code == 401
    assert response.json == REFUSED


# -- GET /api_keys/:merchant_id/list --------------------------------------------------------------


def test_list_shows_the_fixture_secret_key_by_its_prefix(api: Api) -> None:
    response = api.get(LIST)

    assert response.status_code == 200
    assert response.json == [
        {
            "key_id": GENERATED_KEY_ID,
            "merchant_id": MERCHANT_ID,
            "name": "default",
            "description": None,
            "prefix": "snd_defa",
            "created": Matches(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"),
            "expiration": "never",
        }
    ]


def test_list_shows_created_keys_newest_first_without_the_key(api: Api, frozen: str) -> None:
    first = new_key(api, name="first")
    advance(api, 1)
    second = new_key(api, name="second", expiration=FUTURE)

    response = api.get(LIST)

    assert response.status_code == 200
    assert response.json == [shown(second), shown(first), default_key(api)]


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("limit=1", ["second"]),
        ("skip=1", ["first", "default"]),
        ("offset=1", ["first", "default"]),  # the spec's name
        ("offset=1&limit=1", ["first"]),
        ("skip=2&offset=1", ["default"]),  # the real name first
    ],
)
def test_list_is_paged_with_limit_and_skip(api: Api, frozen: str, query: str, names: list[str]) -> None:
    new_key(api, name="first")
    advance(api, 1)
    new_key(api, name="second")

    response = api.get(f"{LIST}?{query}")

    assert response.status_code == 200
    assert [key["name"] for key in response.json] == names


def test_keys_made_in_the_same_millisecond_are_listed_by_id(api: Api, frozen: str) -> None:
    advance(api, 1)
    made = [new_key(api, name=f"key {number}")["key_id"] for number in range(8)]

    listed = [key["key_id"] for key in ok(api.get(LIST))]

    assert listed[:8] == sorted(made)
    assert len(listed) == 9  # and the fixture's, made before


def test_list_takes_the_creation_bounds_of_every_list(api: Api, frozen: str) -> None:
    advance(api, 60)
    first = new_key(api, name="first")
    advance(api, 60)
    second = new_key(api, name="second")

    since = api.get(f"{LIST}?created_gte={second['created']}")
    until = api.get(f"{LIST}?created_lte={first['created']}&created_gte={first['created']}")
    refused = api.get(f"{LIST}?created_gte=not-a-time")

    assert [key["name"] for key in since.json] == ["second"]
    assert [key["name"] for key in until.json] == ["first"]
    assert (refused.status_code, refused.json) == (400, invalid_for_any_reason("created_gte"))


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "limit=x", "skip=-1", "offset=-1"])
def test_list_with_an_invalid_page_is_ir_04(api: Api, query: str) -> None:
    response = api.get(f"{LIST}?{query}")

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason(query.split("=")[0])


def test_list_of_another_merchant_is_404(api: Api, other_merchant: OtherMerchant) -> None:
    response = api.get(f"/api_keys/{other_merchant.merchant_id}/list")

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


def test_list_with_the_admin_key_names_the_merchant(admin: Api, other_merchant: OtherMerchant) -> None:
    response = admin.get(f"/api_keys/{other_merchant.merchant_id}/list")

    assert response.status_code == 200
    assert [key["merchant_id"] for key in response.json] == [other_merchant.merchant_id]


# -- GET /api_keys/:merchant_id/:key_id -----------------------------------------------------------


def test_retrieve_shows_the_prefix_not_the_key(api: Api) -> None:
    created = new_key(api)

    response = api.get(f"{KEYS}/{created['key_id']}")

    assert response.status_code == 200
    assert response.json == shown(created)


def test_retrieve_of_no_such_key_is_404(api: Api) -> None:
    response = api.get(f"{KEYS}/key_nothing")

    assert response.status_code == 404
    assert response.json == KEY_NOT_FOUND


def test_retrieve_of_another_merchants_key_is_404(api: Api, other_merchant: OtherMerchant) -> None:
    theirs = new_key(other_merchant.api, other_merchant.merchant_id)

    response = api.get(f"{KEYS}/{theirs['key_id']}")

    assert response.status_code == 404
    assert response.json == KEY_NOT_FOUND


def test_retrieve_with_another_merchants_key_is_404(api: Api, other_merchant: OtherMerchant) -> None:
    created = new_key(api)

    response = other_merchant.api.get(f"{KEYS}/{created['key_id']}")

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


# -- POST /api_keys/:merchant_id/:key_id ----------------------------------------------------------


def test_update_changes_name_description_and_expiration(api: Api) -> None:
    created = new_key(api)

    response = api.post(
        f"{KEYS}/{created['key_id']}", {"name": "renamed", "description": "why", "expiration": FUTURE}
    )

    assert response.status_code == 200
    assert response.json == shown(created) | {"name": "renamed", "description": "why", "expiration": FUTURE}
    assert ok(api.get(f"{KEYS}/{created['key_id']}")) == response.json


def test_update_with_an_empty_name_sets_it(api: Api) -> None:
    created = new_key(api)

    response = api.post(f"{KEYS}/{created['key_id']}", {"name": ""})

    assert response.status_code == 200
    assert response.json == shown(created) | {"name": ""}


def test_update_with_nulls_changes_nothing(api: Api) -> None:
    created = new_key(api, description="kept")

    response = api.post(
        f"{KEYS}/{created['key_id']}", {"name": None, "description": None, "expiration": None}
    )

    assert response.status_code == 200
    assert response.json == shown(created)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"name": "x" * 65}, invalid_for_any_reason("name")),
        ({"expiration": "tomorrow"}, invalid_for_any_reason("expiration")),
        (
            {"expiration": "2000-01-01T00:00:00Z"},
            invalid("expiration", "a time after now, on the merchant's clock"),
        ),
        ({"api_key": "snd_mine"}, malformed("unknown field `api_key`")),
    ],
    ids=case_id,
)
def test_update_with_an_invalid_field_is_refused_and_changes_nothing(
    api: Api, body: dict, expected: dict
) -> None:
    created = new_key(api)

    response = api.post(f"{KEYS}/{created['key_id']}", body)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get(f"{KEYS}/{created['key_id']}")) == shown(created)


def test_update_of_no_such_key_is_404(api: Api) -> None:
    response = api.post(f"{KEYS}/key_nothing", {"name": "renamed"})

    assert response.status_code == 404
    assert response.json == KEY_NOT_FOUND


# -- DELETE /api_keys/:merchant_id/:key_id --------------------------------------------------------


def test_a_key_created_used_revoked_and_refused(api: Api) -> None:
    created = new_key(api)
    assert health(api, created["api_key"]) == 200

    response = api.delete(f"{KEYS}/{created['key_id']}")

    assert response.status_code == 200
    assert response.json == {"merchant_id": MERCHANT_ID, "key_id": created["key_id"], "revoked": True}
    refused = api.as_key(created["api_key"]).get("/health")
    assert (refused.status_code, refused.json) == (401, REFUSED)


def test_a_revoked_key_is_known_no_more(api: Api) -> None:
    created = new_key(api)
    ok(api.delete(f"{KEYS}/{created['key_id']}"))

    assert api.get(f"{KEYS}/{created['key_id']}").json == KEY_NOT_FOUND
    assert api.post(f"{KEYS}/{created['key_id']}", {"name": "back"}).json == KEY_NOT_FOUND
    assert [key["name"] for key in ok_list(api.get(LIST))] == ["default"]


def test_revoking_a_revoked_key_is_404(api: Api) -> None:
    created = new_key(api)
    ok(api.delete(f"{KEYS}/{created['key_id']}"))

    response = api.delete(f"{KEYS}/{created['key_id']}")

    assert response.status_code == 404
    assert response.json == KEY_NOT_FOUND


def test_the_fixture_key_is_an_ordinary_key_that_can_be_revoked(api: Api, admin: Api) -> None:
    created = new_key(api)

    response = api.delete(f"{KEYS}/{default_key(api)['key_id']}")

    assert response.status_code == 200
    assert health(api, api.key) == 401
    assert health(api, created["api_key"]) == 200


def test_revoke_with_the_admin_key_works(api: Api, admin: Api) -> None:
    created = new_key(api)

    response = admin.delete(f"{KEYS}/{created['key_id']}")

    assert response.status_code == 200
    assert health(api, created["api_key"]) == 401


def test_revoke_with_another_merchants_key_is_404_and_revokes_nothing(
    api: Api, other_merchant: OtherMerchant
) -> None:
    created = new_key(api)

    response = other_merchant.api.delete(f"{KEYS}/{created['key_id']}")

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND
    assert health(api, created["api_key"]) == 200


def test_the_revocation_is_listed_among_the_transitions(api: Api) -> None:
    response = api.get("/__mock/transitions")

    assert response.status_code == 200
    assert response.json["api_key"] == [
        {"from": "active", "event": "revoke.requested", "to": "revoked", "emits": None}
    ]


# -- expiration on the mock clock -----------------------------------------------------------------


def test_a_key_expires_when_the_mock_clock_reaches_its_expiration(api: Api, frozen: str) -> None:
    created = new_key(api, expiration=later(frozen, 60))
    advance(api, 59)
    assert health(api, created["api_key"]) == 200

    advance(api, 1)

    refused = api.as_key(created["api_key"]).get("/health")
    assert (refused.status_code, refused.json) == (401, REFUSED)


def test_an_expiration_below_a_millisecond_is_cut_to_the_millisecond_it_shows(api: Api, frozen: str) -> None:
    created = new_key(api, expiration=later(frozen, 60).replace("Z", "5Z"))  # ...:00.0005Z
    advance(api, 60)

    assert created["expiration"] == later(frozen, 60)
    assert health(api, created["api_key"]) == 401


def test_an_expired_key_given_a_later_expiration_works_again(api: Api, frozen: str) -> None:
    created = new_key(api, expiration=later(frozen, 60))
    advance(api, 60)

    ok(api.post(f"{KEYS}/{created['key_id']}", {"expiration": "never"}))

    assert health(api, created["api_key"]) == 200


def test_an_expired_key_is_still_listed(api: Api, frozen: str) -> None:
    created = new_key(api, expiration=later(frozen, 60))
    advance(api, 120)

    assert shown(created) in ok_list(api.get(LIST))


# -- environments ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["prd_default_secret_key", "pk_prd_default_publishable_key"])
def test_a_production_key_is_refused_by_the_sandbox(api: Api, key: str) -> None:
    response = api.as_key(key).get("/health")

    assert response.status_code == 401
    assert response.json == error("IR_01", "Production keys are not accepted by the sandbox")


class TestProduction:
    @pytest.fixture
    def settings(self) -> Settings:
        return Settings(environment="production")

    @pytest.mark.parametrize("key", ["snd_default_secret_key", "pk_snd_default_publishable_key"])
    def test_a_sandbox_key_is_refused_in_production(self, api: Api, key: str) -> None:
        response = api.as_key(key).get("/health")

        assert response.status_code == 401
        assert response.json == error("IR_01", "Sandbox keys are not accepted in production")

    def test_the_fixture_keys_are_served_with_the_production_prefix(self, api: Api) -> None:
        secret = api.as_key("prd_default_secret_key").get("/health")
        publishable = api.as_key("pk_prd_default_publishable_key").get(
            "/account/merchant_default/business_profile"
        )

        assert (secret.status_code, publishable.status_code) == (200, 401)
        assert publishable.json == REFUSED  # a publishable key, not one refused for its environment

    def test_a_created_key_is_a_production_key(self, api: Api) -> None:
        production = api.as_key("prd_default_secret_key")

        created = new_key(production)

        assert created["api_key"] == Matches(r"prd_[0-9a-f]{32}")
        assert health(api, created["api_key"]) == 200
