"""What follows a payment's own business profile beyond its webhooks: the 3D Secure return signature
and the real events API (its profile_id and the signature of the request it shows)."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from mocksrv import verify_redirect
from mocksrv.domain import signing
from tests import payloads
from tests.api.scenarios import ok
from tests.conftest import Api
from tests.payloads import MERCHANT_ID

pytestmark = pytest.mark.usefixtures("frozen")

THREE_DS_CARD = "4000000000003063"
SECOND_KEY = "whsec_second_profile_key"


@pytest.fixture
def second_profile(api: Api) -> str:
    profile = ok(
        api.post(
            f"/account/{MERCHANT_ID}/business_profile",
            {
                "profile_name": "second shop",
                "payment_response_hash_key": SECOND_KEY,
                "webhook_details": {"webhook_url": "https://second.example/hooks"},
            },
        )
    )
    profile_id: str = profile["profile_id"]
    return profile_id


def test_the_3ds_return_is_signed_with_the_key_of_the_payments_profile(
    api: Api, client: FlaskClient, second_profile: str
) -> None:
    body = payloads.payment(THREE_DS_CARD, authentication_type="three_ds", profile_id=second_profile)
    payment = ok(api.post("/payments", body))

    response = client.post(
        f"/web/3ds/{MERCHANT_ID}/{payment['payment_id']}",
        data={"client_secret": payment["client_secret"], "action": "complete"},
    )

    assert response.status_code == 302
    assert verify_redirect(response.headers["Location"], SECOND_KEY)
    assert not verify_redirect(response.headers["Location"], payloads.SIGNING_KEY)


def test_the_events_api_names_and_signs_with_the_events_profile(api: Api, second_profile: str) -> None:
    ok(api.post("/payments", payloads.payment(profile_id=second_profile)))
    ok(api.post("/payments", payloads.payment()))

    events = ok(api.post(f"/events/{MERCHANT_ID}", {}))["events"]
    [second] = [event for event in events if event["profile_id"] == second_profile]
    retry = ok(api.post(f"/events/{MERCHANT_ID}/{second['event_id']}/retry", {}))
    headers = dict(retry["request"]["headers"])

    assert sorted(event["profile_id"] for event in events) == sorted([second_profile, payloads.PROFILE_ID])
    assert retry["profile_id"] == second_profile
    assert headers["X-Webhook-Signature-512"] == signing.sign(SECOND_KEY, retry["request"]["body"].encode())
