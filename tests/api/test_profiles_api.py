"""Business profiles (decisions section 4) and the webhook routes of the control plane (section 9).

Under the test client no dispatcher runs: queued events stay `pending`, and nothing is attempted.
"""

from __future__ import annotations

import hashlib
import hmac
from contextlib import ExitStack
from typing import Any

import pytest
from flask import Flask

from mocksrv.control import wait_slots
from tests import payloads
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
from tests.api.scenarios import CHALLENGE_CARD, create, ok
from tests.conftest import Api
from tests.payloads import MERCHANT_ID, PROFILE_ID, SIGNING_KEY

PROFILES = f"/account/{MERCHANT_ID}/business_profile"
PROFILE = f"{PROFILES}/{PROFILE_ID}"
HOOK_URL = "http://127.0.0.1:9/webhooks"
GENERATED_SIGNING_KEY = Matches(r"whsec_[0-9a-f]{32}")
GENERATED_EVENT_ID = Matches(r"evt_[A-Za-z0-9]{20}")

MERCHANT_NOT_FOUND = error("HE_02", "Merchant does not exist in our records")
PROFILE_NOT_FOUND = error("HE_02", "Business profile does not exist in our records")
EVENT_NOT_FOUND = error("HE_02", "Event does not exist in our records")
NO_DELIVERIES = {"data": [], "total_count": 0, "has_more": False}
NOT_A_COUNTRY = "not an ISO 3166 alpha-2 country code"
# A return URL as long as the real service takes one: 255 characters.
LONGEST_RETURN_URL = "https://shop.example/" + "a" * 234


# The settings every profile shows as constants, under the real names: the redirect to return_url is
# signed and is a GET; the features these flags switch on are not simulated.
CONSTANT_SETTINGS = {
    "enable_payment_response_hash": True,
    "redirect_to_merchant_with_http_post": False,
    "is_tax_connector_enabled": False,
    "is_network_tokenization_enabled": False,
    "is_auto_retries_enabled": False,
    "is_click_to_pay_enabled": False,
    "is_clear_pan_retries_enabled": False,
    "force_3ds_challenge": False,
    "is_pre_network_tokenization_enabled": False,
}


# The statuses whose events mocksrv sends (decisions section 6), in the order of their enums: what a
# profile shows for each webhook status list until one is set.
PAYMENT_STATUSES_SENT = [
    "requires_customer_action",
    "requires_merchant_action",
    "processing",
    "requires_capture",
    "partially_captured",
    "partially_captured_and_capturable",
    "succeeded",
    "failed",
    "cancelled",
    "expired",
]
REFUND_STATUSES_SENT = ["succeeded", "failed"]
PAYOUT_STATUSES_SENT = ["pending", "success", "failed", "cancelled", "reversed"]


def webhook_details(**changes: Any) -> dict[str, Any]:
    """A profile's `webhook_details` with nothing set but the URL; `changes` override."""
    return {
        "webhook_version": None,
        "webhook_username": None,
        "webhook_password": None,
        "webhook_url": None,
        "payment_created_enabled": None,
        "payment_succeeded_enabled": None,
        "payment_failed_enabled": None,
        "payment_statuses_enabled": PAYMENT_STATUSES_SENT,
        "refund_statuses_enabled": REFUND_STATUSES_SENT,
        "payout_statuses_enabled": PAYOUT_STATUSES_SENT,
        **changes,
    }


def default_profile(**changes: Any) -> dict[str, Any]:
    """The fixture's profile as the API shows it; `changes` override."""
    body: dict[str, Any] = {
        "merchant_id": MERCHANT_ID,
        "profile_id": PROFILE_ID,
        "profile_name": "default",
        "return_url": None,
        "webhook_details": webhook_details(),
        "payment_response_hash_key": SIGNING_KEY,
        "session_expiry": 900,
        **CONSTANT_SETTINGS,
    }
    body.update(changes)
    return body


def event_summary(event_type: str, object_id: str, created: str, state: str = "pending") -> dict[str, Any]:
    return {
        "event_id": GENERATED_EVENT_ID,
        "event_type": event_type,
        "content_type": "payment_details",
        "object_id": object_id,
        "created": created,
        "delivery": {"state": state, "attempts": 0, "next_attempt_at": None},
    }


@pytest.fixture
def hooked(api: Api) -> str:
    """Register a webhook URL for the default merchant through the control plane; returns it."""
    ok(api.put("/__mock/webhook_url", {"webhook_url": HOOK_URL}))
    return HOOK_URL


# -- GET /account/:merchant_id/business_profile ---------------------------------------------------


def test_list_shows_the_fixture_profile(api: Api) -> None:
    response = api.get(PROFILES)

    assert response.status_code == 200
    assert response.json == [default_profile()]


def test_list_with_the_admin_key_shows_the_profile(admin: Api) -> None:
    response = admin.get(PROFILES)

    assert response.status_code == 200
    assert response.json == [default_profile()]


def test_list_of_a_new_merchant_shows_its_generated_profile(other_merchant: OtherMerchant) -> None:
    response = other_merchant.api.get(f"/account/{other_merchant.merchant_id}/business_profile")

    assert response.status_code == 200
    assert response.json == [
        {
            "merchant_id": other_merchant.merchant_id,
            "profile_id": other_merchant.credentials["profile_id"],
            "profile_name": "default",
            "return_url": None,
            "webhook_details": webhook_details(),
            "payment_response_hash_key": other_merchant.credentials["payment_response_hash_key"],
            "session_expiry": 900,
            **CONSTANT_SETTINGS,
        }
    ]


def test_list_with_another_merchants_key_is_404(other_merchant: OtherMerchant) -> None:
    response = other_merchant.api.get(PROFILES)

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


def test_list_of_no_such_merchant_with_the_admin_key_is_404(admin: Api) -> None:
    response = admin.get("/account/merchant_nobody/business_profile")

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


def test_list_with_the_publishable_key_is_401(browser: Api) -> None:
    response = browser.get(PROFILES)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


def test_list_without_a_key_is_401(api: Api) -> None:
    response = api.client.get(PROFILES)

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


# -- POST /account/:merchant_id/business_profile/:profile_id ------------------------------------


def test_update_sets_the_webhook_url(api: Api) -> None:
    response = api.post(PROFILE, {"webhook_details": {"webhook_url": HOOK_URL}})

    assert response.status_code == 200
    assert response.json == default_profile(webhook_details=webhook_details(webhook_url=HOOK_URL))


@pytest.mark.parametrize(
    "url",
    [
        "http://shop_hooks:8000/hooks",
        "http://localhost:65535/hooks",
        f"http://{'a' * 63}.example/hooks",
        "http://bücher.example/hooks",
        "http://[::1]:8000/hooks",
    ],
)
def test_update_takes_a_webhook_url_of_a_compose_service_or_the_highest_port(api: Api, url: str) -> None:
    response = api.post(PROFILE, {"webhook_details": {"webhook_url": url}})

    assert response.status_code == 200
    assert ok(api.get(PROFILES)) == [default_profile(webhook_details=webhook_details(webhook_url=url))]


def test_the_updated_webhook_url_is_listed(api: Api) -> None:
    ok(api.post(PROFILE, {"webhook_details": {"webhook_url": HOOK_URL}}))

    assert ok(api.get(PROFILES)) == [default_profile(webhook_details=webhook_details(webhook_url=HOOK_URL))]


def test_update_with_a_null_webhook_url_keeps_it(api: Api) -> None:
    ok(api.post(PROFILE, {"webhook_details": {"webhook_url": HOOK_URL}}))

    response = api.post(PROFILE, {"webhook_details": {"webhook_url": None}})

    assert response.status_code == 200
    assert response.json == default_profile(webhook_details=webhook_details(webhook_url=HOOK_URL))


def test_update_with_nulls_keeps_the_return_url_and_the_signing_key(api: Api) -> None:
    ok(api.post(PROFILE, {"return_url": "https://shop.example/done"}))

    response = api.post(PROFILE, {"return_url": None, "payment_response_hash_key": None})

    assert response.status_code == 200
    assert response.json == default_profile(return_url="https://shop.example/done")


def test_update_with_empty_webhook_details_keeps_the_url(api: Api) -> None:
    ok(api.post(PROFILE, {"webhook_details": {"webhook_url": HOOK_URL}}))

    response = api.post(PROFILE, {"webhook_details": {}})

    assert response.status_code == 200
    assert response.json == default_profile(webhook_details=webhook_details(webhook_url=HOOK_URL))


def test_update_sets_the_return_url_session_expiry_and_name(api: Api) -> None:
    response = api.post(
        PROFILE,
        {"return_url": "https://shop.example/done", "session_expiry": 60, "profile_name": "shop"},
    )

    assert response.status_code == 200
    assert response.json == default_profile(
        return_url="https://shop.example/done", session_expiry=60, profile_name="shop"
    )


def test_update_of_nothing_changes_nothing(api: Api) -> None:
    response = api.post(PROFILE, {})

    assert response.status_code == 200
    assert response.json == default_profile()


def test_update_with_a_signing_key_sets_it(api: Api) -> None:
    response = api.post(PROFILE, {"payment_response_hash_key": "whsec_chosen_by_the_merchant"})

    assert response.status_code == 200
    assert response.json == default_profile(payment_response_hash_key="whsec_chosen_by_the_merchant")


def test_update_with_the_admin_key_works(admin: Api) -> None:
    response = admin.post(PROFILE, {"webhook_details": {"webhook_url": HOOK_URL}})

    assert response.status_code == 200
    assert response.json == default_profile(webhook_details=webhook_details(webhook_url=HOOK_URL))


def test_the_updated_session_expiry_sets_the_client_secret_lifetime(api: Api, frozen: str) -> None:
    ok(api.post(PROFILE, {"session_expiry": 60}))

    body = create(api, None)

    assert body["expires_on"] == later(frozen, 60)


def test_update_takes_a_return_url_of_255_characters(api: Api) -> None:
    response = api.post(PROFILE, {"return_url": LONGEST_RETURN_URL})

    assert response.status_code == 200
    assert response.json == default_profile(return_url=LONGEST_RETURN_URL)
    assert len(LONGEST_RETURN_URL) == 255


def test_a_session_expiry_of_0_expires_the_client_secret_as_the_payment_is_made(
    api: Api, browser: Api, frozen: str
) -> None:
    updated = api.post(PROFILE, {"session_expiry": 0})
    payment = create(api, None, payment_id="pay_1")

    response = browser.post(
        "/payments/pay_1/confirm", payloads.confirmation(client_secret=payment["client_secret"])
    )

    assert updated.json == default_profile(session_expiry=0)
    assert payment["expires_on"] == frozen
    assert response.status_code == 400
    assert response.json == error("IR_08", "The provided client_secret has expired", "client_secret")
    assert ok(api.get("/payments/pay_1")) == payment


def test_an_empty_signing_key_is_kept_and_signs_with_hmac_of_an_empty_key(api: Api, hooked: str) -> None:
    response = api.post(PROFILE, {"payment_response_hash_key": ""})
    create(api, payment_id="pay_1")
    (event,) = ok(api.get("/__mock/events"))["data"]

    request = ok(api.post(f"/events/{MERCHANT_ID}/{event['event_id']}/retry"))["request"]

    assert response.json == default_profile(
        payment_response_hash_key="", webhook_details=webhook_details(webhook_url=HOOK_URL)
    )
    signature = hmac.new(b"", request["body"].encode(), hashlib.sha512).hexdigest()
    assert request["headers"][1] == ["X-Webhook-Signature-512", signature]


def test_the_updated_return_url_is_the_default_for_payments(api: Api) -> None:
    ok(api.post(PROFILE, {"return_url": "https://shop.example/done"}))
    body = payloads.payment(CHALLENGE_CARD)
    del body["return_url"]

    response = api.post("/payments", body)

    assert response.status_code == 200
    assert (response.json["status"], response.json["return_url"]) == (
        "requires_customer_action",
        "https://shop.example/done",
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"webhook_details": {"webhook_url": "not a url"}},
            invalid(
                "webhook_details.webhook_url", "not an http or https URL with a host and a port of 1 to 65535"
            ),
        ),
        ({"webhook_details": {"webhook_url": 5}}, invalid_for_any_reason("webhook_details.webhook_url")),
        (
            {"webhook_details": {"webhook_url": "http://127.0.0.1:99999/hooks"}},
            invalid(
                "webhook_details.webhook_url", "not an http or https URL with a host and a port of 1 to 65535"
            ),
        ),
        (
            {"webhook_details": {"webhook_url": "http://127.0.0.1:0/hooks"}},
            invalid(
                "webhook_details.webhook_url", "not an http or https URL with a host and a port of 1 to 65535"
            ),
        ),
        ({"webhook_details": "http://shop.example/hooks"}, invalid_for_any_reason("webhook_details")),
        (
            {"return_url": "shop"},
            invalid("return_url", "not an http or https URL with a host and a port of 1 to 65535"),
        ),
        ({"return_url": LONGEST_RETURN_URL + "a"}, invalid_for_any_reason("return_url")),
        ({"session_expiry": -1}, invalid_for_any_reason("session_expiry")),
        ({"session_expiry": "60"}, invalid_for_any_reason("session_expiry")),
        ({"profile_name": "n" * 65}, invalid("profile_name", "longer than maximum length 64")),
        ({"payment_response_hash_key": "k" * 257}, invalid_for_any_reason("payment_response_hash_key")),
        ({"profile_id": "pro_other"}, malformed("unknown field `profile_id`")),
        ({"enable_payment_response_hash": "yes"}, invalid_for_any_reason("enable_payment_response_hash")),
        ({"force_3ds_challenge": 1}, invalid_for_any_reason("force_3ds_challenge")),
        ({"is_tax_connector_enabled": "false"}, invalid_for_any_reason("is_tax_connector_enabled")),
        ({"metadata": "note"}, invalid_for_any_reason("metadata")),
        ({"intent_fulfillment_time": -1}, invalid_for_any_reason("intent_fulfillment_time")),
        ({"max_auto_retries_enabled": 1.5}, invalid_for_any_reason("max_auto_retries_enabled")),
        ({"applepay_verified_domains": "shop.example"}, invalid_for_any_reason("applepay_verified_domains")),
        ({"merchant_business_country": "usa"}, invalid_for_any_reason("merchant_business_country")),
        ({"merchant_business_country": "ZZ"}, invalid("merchant_business_country", NOT_A_COUNTRY)),
        ({"merchant_business_country": "us"}, invalid("merchant_business_country", NOT_A_COUNTRY)),
        ({"is_external_vault_enabled": "always"}, invalid_for_any_reason("is_external_vault_enabled")),
        (
            {"webhook_details": {"payment_statuses_enabled": ["paid"]}},
            invalid_for_any_reason("webhook_details.payment_statuses_enabled.0"),
        ),
        (
            {"webhook_details": {"payment_created_enabled": "true"}},
            invalid_for_any_reason("webhook_details.payment_created_enabled"),
        ),
        (
            {"webhook_details": {"refund_statuses_enabled": "succeeded"}},
            invalid_for_any_reason("webhook_details.refund_statuses_enabled"),
        ),
        (
            {"webhook_details": {"payout_statuses_enabled": ["succeeded"]}},
            invalid_for_any_reason("webhook_details.payout_statuses_enabled.0"),
        ),
        (
            {"webhook_details": {"webhook_password": "x" * 256}},
            invalid_for_any_reason("webhook_details.webhook_password"),
        ),
    ],
    ids=case_id,
)
def test_update_with_an_invalid_field_is_refused_and_changes_nothing(
    api: Api, body: dict, expected: dict
) -> None:
    response = api.post(PROFILE, body)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get(PROFILES)) == [default_profile()]


def test_update_takes_an_empty_name_as_the_real_service_sets_no_minimum(api: Api) -> None:
    response = api.post(PROFILE, {"profile_name": ""})

    assert response.status_code == 200
    assert response.json == default_profile(profile_name="")
    assert ok(api.get(PROFILES)) == [response.json]


def test_update_takes_a_name_of_64_characters(api: Api) -> None:
    response = api.post(PROFILE, {"profile_name": "n" * 64})

    assert response.status_code == 200
    assert response.json == default_profile(profile_name="n" * 64)


def test_update_with_the_real_settings_it_does_not_model_accepts_and_ignores_them(api: Api) -> None:
    response = api.post(
        PROFILE,
        {
            "profile_name": "shop",
            "enable_payment_response_hash": False,
            "redirect_to_merchant_with_http_post": True,
            "use_billing_as_payment_method_billing": True,
            "is_tax_connector_enabled": True,
            "is_network_tokenization_enabled": True,
            "is_auto_retries_enabled": True,
            "max_auto_retries_enabled": 3,
            "is_click_to_pay_enabled": True,
            "is_clear_pan_retries_enabled": True,
            "force_3ds_challenge": True,
            "is_pre_network_tokenization_enabled": True,
            "metadata": {"team": "shoes"},
            "intent_fulfillment_time": 900,
            "applepay_verified_domains": ["shop.example"],
            "payment_link_config": {"theme": "#000000"},
            "merchant_business_country": "US",
            "is_external_vault_enabled": "skip",
            "tax_connector_id": None,
        },
    )

    assert response.status_code == 200
    assert response.json == default_profile(profile_name="shop")
    assert ok(api.get(PROFILES)) == [response.json]


# Every setting of the real WebhookDetails, sent and shown back.
EVERY_WEBHOOK_SETTING = {
    "webhook_version": "1.0.2",
    "webhook_username": "shop",
    "webhook_password": "hook-password",
    "webhook_url": HOOK_URL,
    "payment_created_enabled": True,
    "payment_succeeded_enabled": False,
    "payment_failed_enabled": True,
    "payment_statuses_enabled": ["succeeded", "failed"],
    "refund_statuses_enabled": ["succeeded"],
    "payout_statuses_enabled": ["success"],
}


def test_update_shows_every_webhook_setting_sent(api: Api) -> None:
    response = api.post(PROFILE, {"webhook_details": EVERY_WEBHOOK_SETTING})

    assert response.status_code == 200
    assert response.json == default_profile(webhook_details=EVERY_WEBHOOK_SETTING)
    assert ok(api.get(PROFILES)) == [response.json]
    assert ok(api.get(PROFILE)) == response.json


def test_a_profile_never_given_status_lists_shows_the_statuses_whose_events_are_sent(api: Api) -> None:
    response = api.get(PROFILE)

    assert response.status_code == 200
    assert response.json["webhook_details"] == webhook_details()
    assert (
        response.json["webhook_details"]["refund_statuses_enabled"],
        response.json["webhook_details"]["payout_statuses_enabled"],
    ) == (["succeeded", "failed"], ["pending", "success", "failed", "cancelled", "reversed"])


def test_update_of_one_webhook_setting_keeps_the_others(api: Api) -> None:
    ok(api.post(PROFILE, {"webhook_details": EVERY_WEBHOOK_SETTING}))

    response = api.post(
        PROFILE, {"webhook_details": {"payment_statuses_enabled": ["failed"], "webhook_version": None}}
    )

    assert response.status_code == 200
    assert response.json == default_profile(
        webhook_details={**EVERY_WEBHOOK_SETTING, "payment_statuses_enabled": ["failed"]}
    )


def test_an_empty_status_list_is_shown_as_sent(api: Api) -> None:
    response = api.post(PROFILE, {"webhook_details": {"refund_statuses_enabled": []}})

    assert response.status_code == 200
    assert response.json == default_profile(webhook_details=webhook_details(refund_statuses_enabled=[]))


def test_webhook_details_without_the_status_lists_are_taken(api: Api) -> None:
    # The real type requires both lists; mocksrv takes a URL alone, as README says.
    response = api.post(
        PROFILE, {"webhook_details": {"webhook_url": HOOK_URL, "payment_failed_enabled": False}}
    )

    assert response.status_code == 200
    assert response.json["webhook_details"] == webhook_details(
        webhook_url=HOOK_URL, payment_failed_enabled=False
    )


def test_the_status_lists_change_no_delivery(api: Api, frozen: str, hooked: str) -> None:
    ok(api.post(PROFILE, {"webhook_details": {"payment_statuses_enabled": ["failed"]}}))

    create(api, payment_id="pay_1")

    assert ok(api.get("/__mock/events"))["data"] == [event_summary("payment_succeeded", "pay_1", frozen)]


@pytest.mark.parametrize(
    "url",
    [
        "ftp://shop.example/hooks",
        "ftps://shop.example/hooks",
        # Host names no resolver takes: a label past 63 characters, an empty label.
        f"http://{'a' * 64}.example/hooks",
        "http://a..b:8000/hooks",
        # A name IDNA 2008 refuses: no request could be sent to it.
        "http://😀.example/hooks",
        # In brackets, only an IPv6 address: not IPvFuture's form, nor an IPv4 address.
        "http://[v1.x]:8000/hooks",
        "http://[1.2.3.4]/hooks",
    ],
)
def test_update_with_a_webhook_url_that_is_not_http_is_refused(api: Api, url: str) -> None:
    # A webhook is an HTTP POST: a URL of another scheme could never receive one.
    response = api.post(PROFILE, {"webhook_details": {"webhook_url": url}})

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason("webhook_details.webhook_url")


def test_update_of_no_such_profile_is_404(api: Api) -> None:
    response = api.post(f"{PROFILES}/pro_nothing", {"profile_name": "shop"})

    assert response.status_code == 404
    assert response.json == PROFILE_NOT_FOUND


def test_update_of_another_merchants_profile_with_its_own_merchant_id_is_404(
    api: Api, other_merchant: OtherMerchant
) -> None:
    other_profile = other_merchant.credentials["profile_id"]

    response = api.post(f"{PROFILES}/{other_profile}", {"profile_name": "shop"})

    assert response.status_code == 404
    assert response.json == PROFILE_NOT_FOUND


def test_update_with_another_merchants_key_is_404(other_merchant: OtherMerchant, api: Api) -> None:
    response = other_merchant.api.post(PROFILE, {"webhook_details": {"webhook_url": HOOK_URL}})

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND
    assert ok(api.get(PROFILES)) == [default_profile()]


def test_update_with_the_publishable_key_is_401(browser: Api) -> None:
    response = browser.post(PROFILE, {"webhook_details": {"webhook_url": HOOK_URL}})

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


def test_update_without_a_key_is_401(api: Api) -> None:
    response = api.client.post(PROFILE, json={"profile_name": "shop"})

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


# -- POST /account/:merchant_id/business_profile --------------------------------------------------

GENERATED_PROFILE_ID = Matches(r"pro_[A-Za-z0-9]{20}")
SECOND_HOOK_URL = "http://127.0.0.1:9/second"


def new_profile(api: Api, **fields: Any) -> dict[str, Any]:
    return ok(api.post(PROFILES, fields))


def test_create_with_nothing_makes_a_profile_of_defaults_and_a_new_signing_key(api: Api) -> None:
    response = api.post(PROFILES, {})

    assert response.status_code == 200
    assert response.json == default_profile(
        profile_id=GENERATED_PROFILE_ID, payment_response_hash_key=GENERATED_SIGNING_KEY
    )


def test_create_keeps_its_name_urls_signing_key_and_session_expiry(api: Api) -> None:
    response = api.post(
        PROFILES,
        {
            "profile_name": "outlet",
            "return_url": "https://outlet.example/done",
            "webhook_details": {"webhook_url": SECOND_HOOK_URL, "payment_created_enabled": True},
            "payment_response_hash_key": "whsec_outlet",
            "session_expiry": 60,
            "is_auto_retries_enabled": True,
        },
    )

    assert response.status_code == 200
    assert response.json == default_profile(
        profile_id=GENERATED_PROFILE_ID,
        profile_name="outlet",
        return_url="https://outlet.example/done",
        webhook_details=webhook_details(webhook_url=SECOND_HOOK_URL, payment_created_enabled=True),
        payment_response_hash_key="whsec_outlet",
        session_expiry=60,
    )


def test_create_keeps_an_empty_name(api: Api) -> None:
    response = api.post(PROFILES, {"profile_name": ""})

    assert response.status_code == 200
    assert response.json == default_profile(
        profile_id=GENERATED_PROFILE_ID, profile_name="", payment_response_hash_key=GENERATED_SIGNING_KEY
    )


def test_create_with_a_country_that_is_not_a_real_one_is_refused(api: Api) -> None:
    response = api.post(PROFILES, {"profile_name": "outlet", "merchant_business_country": "ZZ"})

    assert response.status_code == 400
    assert response.json == invalid("merchant_business_country", NOT_A_COUNTRY)
    assert ok(api.get(PROFILES)) == [default_profile()]


def test_create_keeps_an_empty_signing_key_and_a_session_expiry_of_0(api: Api) -> None:
    response = api.post(PROFILES, {"payment_response_hash_key": "", "session_expiry": 0})

    assert response.status_code == 200
    assert response.json == default_profile(
        profile_id=GENERATED_PROFILE_ID, payment_response_hash_key="", session_expiry=0
    )


def test_create_shows_every_webhook_setting_sent(api: Api) -> None:
    response = api.post(PROFILES, {"webhook_details": EVERY_WEBHOOK_SETTING})

    assert response.status_code == 200
    assert response.json == default_profile(
        profile_id=GENERATED_PROFILE_ID,
        payment_response_hash_key=GENERATED_SIGNING_KEY,
        webhook_details=EVERY_WEBHOOK_SETTING,
    )
    assert ok(api.get(f"{PROFILES}/{response.json['profile_id']}")) == response.json


def test_a_created_profile_is_listed_beside_the_default_one(api: Api) -> None:
    created = new_profile(api, profile_name="outlet")

    assert sorted(ok(api.get(PROFILES)), key=lambda profile: profile["profile_name"]) == [
        default_profile(),
        created,
    ]


def test_create_with_the_admin_key_works(admin: Api) -> None:
    response = admin.post(PROFILES, {"profile_name": "outlet"})

    assert response.status_code == 200
    assert response.json["merchant_id"] == MERCHANT_ID


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"webhook_details": {"webhook_url": "not a url"}},
            invalid(
                "webhook_details.webhook_url", "not an http or https URL with a host and a port of 1 to 65535"
            ),
        ),
        ({"session_expiry": -1}, invalid_for_any_reason("session_expiry")),
        ({"return_url": LONGEST_RETURN_URL + "a"}, invalid_for_any_reason("return_url")),
        ({"profile_id": "pro_mine"}, malformed("unknown field `profile_id`")),
    ],
    ids=case_id,
)
def test_create_with_an_invalid_field_is_refused_and_creates_nothing(
    api: Api, body: dict, expected: dict
) -> None:
    response = api.post(PROFILES, body)

    assert response.status_code == 400
    assert response.json == expected
    assert ok(api.get(PROFILES)) == [default_profile()]


def test_create_for_another_merchant_is_404(api: Api, other_merchant: OtherMerchant) -> None:
    response = api.post(f"/account/{other_merchant.merchant_id}/business_profile", {})

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


# -- GET /account/:merchant_id/business_profile/:profile_id ---------------------------------------


def test_retrieve_shows_the_profile(api: Api) -> None:
    created = new_profile(api, profile_name="outlet")

    response = api.get(f"{PROFILES}/{created['profile_id']}")

    assert response.status_code == 200
    assert response.json == created


def test_retrieve_of_the_fixture_profile(api: Api) -> None:
    response = api.get(PROFILE)

    assert response.status_code == 200
    assert response.json == default_profile()


def test_retrieve_of_no_such_profile_is_404(api: Api) -> None:
    response = api.get(f"{PROFILES}/pro_nothing")

    assert response.status_code == 404
    assert response.json == PROFILE_NOT_FOUND


def test_retrieve_of_another_merchants_profile_is_404(api: Api, other_merchant: OtherMerchant) -> None:
    response = api.get(f"{PROFILES}/{other_merchant.credentials['profile_id']}")

    assert response.status_code == 404
    assert response.json == PROFILE_NOT_FOUND


# -- DELETE /account/:merchant_id/business_profile/:profile_id ------------------------------------


def test_delete_answers_true_and_the_profile_is_gone(api: Api) -> None:
    created = new_profile(api, profile_name="outlet")

    response = api.delete(f"{PROFILES}/{created['profile_id']}")

    assert response.status_code == 200
    assert response.json is True
    assert api.get(f"{PROFILES}/{created['profile_id']}").json == PROFILE_NOT_FOUND
    assert ok(api.get(PROFILES)) == [default_profile()]


def test_delete_of_the_default_profile_is_refused(api: Api) -> None:
    response = api.delete(PROFILE)

    assert response.status_code == 400
    assert response.json == invalid("profile_id", "the merchant's default profile cannot be deleted")
    assert ok(api.get(PROFILES)) == [default_profile()]


def test_delete_of_no_such_profile_is_404(api: Api) -> None:
    response = api.delete(f"{PROFILES}/pro_nothing")

    assert response.status_code == 404
    assert response.json == PROFILE_NOT_FOUND


def test_delete_with_another_merchants_key_is_404(api: Api, other_merchant: OtherMerchant) -> None:
    created = new_profile(api, profile_name="outlet")

    response = other_merchant.api.delete(f"{PROFILES}/{created['profile_id']}")

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


def test_a_payment_on_a_deleted_profile_is_refused(api: Api) -> None:
    created = new_profile(api, profile_name="outlet")
    ok(api.delete(f"{PROFILES}/{created['profile_id']}"))

    response = api.post("/payments", payloads.payment(profile_id=created["profile_id"]))

    assert response.status_code == 400
    assert response.json == invalid("profile_id", "no such business profile")


# -- each payment's events go by its own profile -------------------------------------------------


def test_a_payment_records_its_profile(api: Api) -> None:
    created = new_profile(api, profile_name="outlet")

    payment = create(api, profile_id=created["profile_id"])

    assert payment["profile_id"] == created["profile_id"]


def test_the_events_of_a_payment_go_by_its_profiles_webhook_url(api: Api, frozen: str, hooked: str) -> None:
    created = new_profile(api, profile_name="outlet")  # without a webhook URL of its own
    create(api, payment_id="pay_outlet", profile_id=created["profile_id"])
    create(api, payment_id="pay_default")

    response = api.get("/__mock/events")

    assert response.json["data"] == [
        event_summary("payment_succeeded", "pay_default", frozen),
        event_summary("payment_succeeded", "pay_outlet", frozen, "no_endpoint"),
    ]


def test_a_payment_on_a_profile_with_a_url_is_queued_though_the_default_has_none(
    api: Api, frozen: str
) -> None:
    created = new_profile(api, profile_name="outlet", webhook_details={"webhook_url": SECOND_HOOK_URL})

    create(api, payment_id="pay_outlet", profile_id=created["profile_id"])

    assert ok(api.get("/__mock/events"))["data"] == [event_summary("payment_succeeded", "pay_outlet", frozen)]


def test_events_after_the_profile_is_deleted_have_no_endpoint(api: Api, frozen: str) -> None:
    created = new_profile(api, profile_name="outlet", webhook_details={"webhook_url": SECOND_HOOK_URL})
    create(api, payment_id="pay_outlet", profile_id=created["profile_id"], capture_method="manual")
    ok(api.delete(f"{PROFILES}/{created['profile_id']}"))

    ok(api.post("/payments/pay_outlet/capture", {}))

    assert ok(api.get("/__mock/events"))["data"] == [
        event_summary("payment_succeeded", "pay_outlet", frozen, "no_endpoint"),
        event_summary("payment_authorized", "pay_outlet", frozen),
    ]


# -- PUT /__mock/webhook_url ----------------------------------------------------------------------


def test_control_plane_sets_the_webhook_url(api: Api) -> None:
    response = api.put("/__mock/webhook_url", {"webhook_url": HOOK_URL})

    assert response.status_code == 200
    assert response.json == default_profile(webhook_details=webhook_details(webhook_url=HOOK_URL))
    assert ok(api.get(PROFILES)) == [default_profile(webhook_details=webhook_details(webhook_url=HOOK_URL))]


def test_control_plane_removes_the_webhook_url_with_null(api: Api, hooked: str) -> None:
    response = api.put("/__mock/webhook_url", {"webhook_url": None})

    assert response.status_code == 200
    assert response.json == default_profile()


def test_the_admin_sets_the_webhook_url_of_the_merchant_named(admin: Api) -> None:
    response = admin.put("/__mock/webhook_url", {"merchant_id": MERCHANT_ID, "webhook_url": HOOK_URL})

    assert response.status_code == 200
    assert response.json == default_profile(webhook_details=webhook_details(webhook_url=HOOK_URL))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, missing("webhook_url")),
        (
            {"webhook_url": "not a url"},
            invalid("webhook_url", "not an http or https URL with a host and a port of 1 to 65535"),
        ),
    ],
    ids=case_id,
)
def test_control_plane_refuses_an_invalid_webhook_url(api: Api, body: dict, expected: dict) -> None:
    response = api.put("/__mock/webhook_url", body)

    assert response.status_code == 400
    assert response.json == expected


def test_control_plane_webhook_url_of_another_merchant_is_404(
    api: Api, other_merchant: OtherMerchant
) -> None:
    response = api.put(
        "/__mock/webhook_url", {"merchant_id": other_merchant.merchant_id, "webhook_url": HOOK_URL}
    )

    assert response.status_code == 404
    assert response.json == MERCHANT_NOT_FOUND


# -- GET /__mock/events ---------------------------------------------------------------------------


def test_events_of_a_merchant_without_any_are_empty(api: Api) -> None:
    response = api.get("/__mock/events")

    assert response.status_code == 200
    assert response.json == {"data": [], "total_count": 0, "has_more": False}


def test_events_are_listed_newest_first_pending(api: Api, frozen: str, hooked: str) -> None:
    create(api, payment_id="pay_1", capture_method="manual")
    ok(api.post("/__mock/clock/advance", {"seconds": 5}))
    ok(api.post("/payments/pay_1/capture", {}))

    response = api.get("/__mock/events")

    assert response.status_code == 200
    assert response.json == {
        "data": [
            event_summary("payment_succeeded", "pay_1", later(frozen, 5)),
            event_summary("payment_authorized", "pay_1", frozen),
        ],
        "total_count": 2,
        "has_more": False,
    }


def test_events_of_a_merchant_without_a_url_have_no_endpoint(api: Api, frozen: str) -> None:
    create(api, payment_id="pay_1")

    response = api.get("/__mock/events")

    assert response.status_code == 200
    assert response.json["data"] == [event_summary("payment_succeeded", "pay_1", frozen, "no_endpoint")]


def test_events_are_paged_with_limit_and_offset(api: Api, frozen: str, hooked: str) -> None:
    for index in range(3):
        create(api, payment_id=f"pay_{index}")
        ok(api.post("/__mock/clock/advance", {"seconds": 1}))

    response = api.get("/__mock/events?limit=1&offset=1")

    assert response.status_code == 200
    assert response.json == {
        "data": [event_summary("payment_succeeded", "pay_1", later(frozen, 1))],
        "total_count": 3,
        "has_more": True,
    }


def test_events_of_another_merchant_are_not_listed(
    api: Api, hooked: str, other_merchant: OtherMerchant
) -> None:
    create(api, payment_id="pay_1")

    response = other_merchant.api.get("/__mock/events")

    assert response.json == {"data": [], "total_count": 0, "has_more": False}


def test_the_admin_lists_the_events_of_the_merchant_named(
    admin: Api, api: Api, frozen: str, hooked: str
) -> None:
    create(api, payment_id="pay_1")

    response = admin.get(f"/__mock/events?merchant_id={MERCHANT_ID}")

    assert response.status_code == 200
    assert response.json["data"] == [event_summary("payment_succeeded", "pay_1", frozen)]


@pytest.mark.parametrize(
    "query",
    ["limit=0", "limit=101", "limit=x", "offset=-1"],
    ids=lambda query: query.split("=")[0] + "-" + query,
)
def test_events_with_an_invalid_page_is_ir_04(api: Api, query: str) -> None:
    response = api.get(f"/__mock/events?{query}")

    assert response.status_code == 400
    assert response.json == invalid_for_any_reason(query.split("=")[0])


def test_events_with_the_publishable_key_is_401(browser: Api) -> None:
    response = browser.get("/__mock/events")

    assert response.status_code == 401
    assert response.json == error("IR_01", UNAUTHORIZED)


# -- POST /__mock/events/:event_id/redeliver ------------------------------------------------------


def test_redeliver_of_an_unknown_event_is_404(api: Api) -> None:
    response = api.post("/__mock/events/evt_unknown/redeliver")

    assert response.status_code == 404
    assert response.json == EVENT_NOT_FOUND


def test_redeliver_answers_the_event_and_queues_it_again(api: Api, frozen: str, hooked: str) -> None:
    create(api, payment_id="pay_1")
    (listed,) = ok(api.get("/__mock/events"))["data"]

    response = api.post(f"/__mock/events/{listed['event_id']}/redeliver")

    assert response.status_code == 200
    assert response.json == listed
    assert ok(api.post("/__mock/webhooks/wait", {"timeout": 0})) == {"drained": False, "pending": 2}


def test_redeliver_of_another_merchants_event_is_404(
    api: Api, hooked: str, other_merchant: OtherMerchant
) -> None:
    create(api, payment_id="pay_1")
    (listed,) = ok(api.get("/__mock/events"))["data"]

    response = other_merchant.api.post(f"/__mock/events/{listed['event_id']}/redeliver")

    assert response.status_code == 404
    assert response.json == EVENT_NOT_FOUND


# -- GET /__mock/webhooks/deliveries and POST /__mock/webhooks/wait -------------------------------


def test_deliveries_are_empty_before_any_attempt(api: Api, hooked: str) -> None:
    create(api, payment_id="pay_1")

    response = api.get("/__mock/webhooks/deliveries")

    assert response.status_code == 200
    assert response.json == NO_DELIVERIES


def test_deliveries_of_an_unknown_event_are_empty(api: Api) -> None:
    response = api.get("/__mock/webhooks/deliveries?event_id=evt_unknown")

    assert response.status_code == 200
    assert response.json == NO_DELIVERIES


def test_wait_with_nothing_queued_is_drained(api: Api) -> None:
    response = api.post("/__mock/webhooks/wait", {"timeout": 0})

    assert response.status_code == 200
    assert response.json == {"drained": True, "pending": 0}


def test_a_wait_while_the_merchants_long_polls_fill_its_allowance_is_a_429(api: Api, app: Flask) -> None:
    slots = wait_slots(app)
    with ExitStack() as held:
        for _ in range(slots.per_merchant):
            held.enter_context(slots.hold(MERCHANT_ID))

        response = api.post("/__mock/webhooks/wait", {"timeout": 0})

    assert response.status_code == 429
    assert response.json == {
        "error": {
            "type": "invalid_request",
            "code": "RL_01",
            "message": "Too many long-polls open: at most 16 per merchant and 64 in all; "
            "try again once one is answered",
        }
    }
    assert api.post("/__mock/webhooks/wait", {"timeout": 0}).status_code == 200


def test_wait_while_events_are_queued_is_not_drained(api: Api, hooked: str) -> None:
    create(api, payment_id="pay_1")
    create(api, payment_id="pay_2")

    response = api.post("/__mock/webhooks/wait", {"timeout": 0})

    assert response.status_code == 200
    assert response.json == {"drained": False, "pending": 2}


def test_wait_for_events_without_a_url_is_drained(api: Api) -> None:
    create(api, payment_id="pay_1")

    response = api.post("/__mock/webhooks/wait", {"timeout": 0})

    assert response.json == {"drained": True, "pending": 0}


def test_wait_counts_only_the_merchants_own_deliveries(
    api: Api, hooked: str, other_merchant: OtherMerchant
) -> None:
    create(api, payment_id="pay_1")

    response = other_merchant.api.post("/__mock/webhooks/wait", {"timeout": 0})

    assert response.json == {"drained": True, "pending": 0}


def test_reset_drops_the_queued_deliveries(api: Api, hooked: str) -> None:
    create(api, payment_id="pay_1")

    ok(api.post("/__mock/reset"))

    assert ok(api.post("/__mock/webhooks/wait", {"timeout": 0})) == {"drained": True, "pending": 0}
    assert ok(api.get("/__mock/events")) == {"data": [], "total_count": 0, "has_more": False}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"timeout": -1}, invalid_for_any_reason("timeout")),
        ({"timeout": 61}, invalid_for_any_reason("timeout")),
        ({"timeout": "1"}, invalid_for_any_reason("timeout")),
    ],
    ids=case_id,
)
def test_wait_with_an_invalid_timeout_is_ir_04(api: Api, body: dict, expected: dict) -> None:
    response = api.post("/__mock/webhooks/wait", body)

    assert response.status_code == 400
    assert response.json == expected
