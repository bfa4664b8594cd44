"""The legacy card API's credentials: HTTP Basic for a token, then the token as a Bearer credential.

No credential at all is refused as every route refuses a missing key (IR_01, the same message); a
credential of the wrong scheme or shape, and a wrong one, are refused with IR_01 saying which.
"""

from __future__ import annotations

import base64

from mocksrv.domain.errors import Unauthorized
from mocksrv.domain.legacy.tokens import IssuedToken
from mocksrv.domain.models import KeyKind
from mocksrv.rest import admit, current_request, sandbox

BAD_BASIC = "Invalid Authorization header: expected Basic and the base64 of client_id:client_secret"
LEGACY_CLIENT = "legacy_client"  # the rate limit's name for the credential: one window per merchant
BAD_BEARER = "Invalid Authorization header: expected Bearer and an access token from GET /api/v1"


def issue_token() -> IssuedToken:
    """A token for the client credentials sent with HTTP Basic."""
    scheme, credentials = _authorization()
    if scheme != "basic":
        raise Unauthorized(BAD_BASIC)
    try:
        # A header's non-ASCII character is a ValueError here (b64decode takes ASCII text only).
        decoded = base64.b64decode(credentials, validate=True).decode()
    except ValueError:  # binascii.Error and UnicodeDecodeError among them
        raise Unauthorized(BAD_BASIC) from None
    client_id, colon, client_secret = decoded.partition(":")
    if not colon or not client_id:
        raise Unauthorized(BAD_BASIC)
    tokens = sandbox().legacy_tokens
    merchant_id = tokens.client_merchant(client_id, client_secret)
    _admit(merchant_id)  # a request refused here (a rate limit, a fault) leaves no token stored
    return tokens.issue(merchant_id)


def authenticate() -> str:
    """The merchant whose token is sent as a Bearer credential."""
    scheme, token = _authorization()
    if scheme != "bearer" or not token:
        raise Unauthorized(BAD_BEARER)
    merchant_id = sandbox().legacy_tokens.authenticate(token).merchant_id
    _admit(merchant_id)
    return merchant_id


def _admit(merchant_id: str) -> None:
    """From here on the request is the merchant's: the journal's, its rate limit's, its faults'."""
    admit(sandbox().merchants.principal(merchant_id, LEGACY_CLIENT, KeyKind.SECRET))


def _authorization() -> tuple[str, str]:
    """The Authorization header's scheme, in lower case, and its credentials; IR_01 if none is sent."""
    header = current_request().headers.get("Authorization", "").strip()
    if not header:
        raise Unauthorized()
    scheme, _, credentials = header.partition(" ")
    return scheme.lower(), credentials.strip()
