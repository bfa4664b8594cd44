"""Fixtures of the HTTP contract tests: a second merchant, and the publishable-key client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.conftest import Api
from tests.payloads import PUBLISHABLE_KEY


@dataclass(frozen=True)
class OtherMerchant:
    """A merchant made with POST /__mock/merchants: its credentials and a client with its secret key."""

    credentials: dict[str, Any]
    api: Api

    @property
    def merchant_id(self) -> str:
        merchant_id: str = self.credentials["merchant_id"]
        return merchant_id


@pytest.fixture
def other_merchant(admin: Api) -> OtherMerchant:
    response = admin.post("/__mock/merchants", {"merchant_id": "merchant_other"})
    assert response.status_code == 200, response.get_json()
    credentials = response.get_json()
    return OtherMerchant(credentials, admin.as_key(credentials["secret_key"]))


@pytest.fixture
def browser(api: Api) -> Api:
    """The client as the browser SDK uses it: with the publishable key."""
    return api.as_key(PUBLISHABLE_KEY)
