"""The transition table of an API key; the record itself is `models.ApiKey`, kept by key hash."""

from __future__ import annotations

from enum import StrEnum

from mocksrv.domain.models import ApiKeyStatus
from mocksrv.domain.transitions import Transition, TransitionTable


class ApiKeyEvent(StrEnum):
    """What happens to a key; the part before the dot is the operation it belongs to."""

    REVOKE = "revoke.requested"  # DELETE /api_keys/:merchant_id/:key_id


# A key's expiration is not a status: it is judged on the merchant's clock at every request, so that
# moving the expiration later (or to never) makes an expired key work again, as in the real service.
# No row emits a webhook: the real service sends none for keys.
API_KEY_TRANSITIONS: TransitionTable[ApiKeyStatus, ApiKeyEvent] = TransitionTable(
    "API key",
    [Transition(ApiKeyStatus.ACTIVE, ApiKeyEvent.REVOKE, ApiKeyStatus.REVOKED)],
)
