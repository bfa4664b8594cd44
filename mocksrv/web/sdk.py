"""The browser SDK: the script a checkout page loads (`HyperLoader.js`) and its payment element.

A checkout page written for the real service's vanilla integration loads
`/web/<version>/v1/HyperLoader.js` from mocksrv instead and works unchanged: the script defines
`window.Hyper`, whose payment element is an iframe of `/web/<version>/v1/element` (same origin as
the API, which it calls with the publishable key). The version segment is accepted whatever it
says, so a page pinned to any release of the real script works. Nothing secret is in these
responses: the element reads its keys from its URL's fragment, which never reaches the server.

The element's contract, for a page that frames it without the script:

- URL: `/web/<version>/v1/element#` + form-encoded `publishableKey`, `clientSecret`, `parentOrigin`
  (the framing page's origin: messages go only there, and only its messages are heard),
  `elementId` (echoed in every message), `layout` (`tabs` or `accordion`),
  `allowedPaymentMethodTypes` (comma-separated method types, e.g. `credit,klarna`; empty: all)
  and `displaySavedPaymentMethods` (`false` hides the customer's saved cards).
- The element posts `{source: "hyper-element", elementId, event, ...}` to the parent, with event
  `ready`, `change` (`complete`, `empty`, `value: {type}`), `focus`, `blur`, `height` (`height`
  in CSS pixels: size the frame to it), `openUrl` (`url`: send the top window there) and
  `result` (`requestId`, then `ok: true, data: <payment>, url: <return_url with
  payment_intent_client_secret, payment_id, status>`; or `ok: false, error: {type, message}`; or
  `ok: true, pending: true` when an `openUrl` went first).
- The parent posts `{source: "hyper-loader", action, ...}`: `submit` (`requestId`,
  `confirmParams: {return_url}`, `redirect`) confirms the payment; `update` (`options` as in the
  URL, `layout` also as `{type}`) redraws; `reload` fetches the payment and its methods again.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path

import pycountry
from flask import Blueprint, render_template, request
from werkzeug.exceptions import NotFound, PreconditionFailed
from werkzeug.wrappers import Response

from mocksrv.contract import Auth, documented
from mocksrv.web.pages import serve_errors_as_pages

sdk = Blueprint("sdk", __name__, template_folder="templates")
# The element is a page: whatever goes wrong on it is a page too (its files' errors stay JSON).
element_page = Blueprint("sdk_element", __name__, template_folder="templates")
serve_errors_as_pages(element_page)

ASSETS = Path(__file__).resolve().parent / "static" / "sdk"
CACHE_SECONDS = 300  # a page picks up a new script within five minutes, as from a CDN
# A release name such as 0.1, 2024.11.2 or v1: letters, digits, dots, dashes and underscores.
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,63}\Z")
# The billing address's country choices: ISO 3166 alpha-2 codes, as the API takes them, by name.
COUNTRIES: tuple[tuple[str, str], ...] = tuple(
    sorted(((country.alpha_2, country.name) for country in pycountry.countries), key=lambda pair: pair[1])
)
# The element runs only its own files, calls only its own origin, and may sit in any page's frame.
ELEMENT_POLICY = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"


def _check_version(version: str) -> None:
    if not _VERSION.match(version):
        raise NotFound()


def _static(name: str, mimetype: str) -> Response:
    """One of the SDK's files, cacheable, with validators; a still valid one is answered 304."""
    path = ASSETS / name
    body = path.read_bytes()
    response = Response(body, mimetype=mimetype)
    response.last_modified = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    return _cacheable(response, body)


def _cacheable(response: Response, body: bytes) -> Response:
    """The answer of `body`, cacheable for a while with its ETag: a request still holding it is
    answered 304, one whose If-Match names another version 412, without the body."""
    response.cache_control.public = True
    response.cache_control.max_age = CACHE_SECONDS
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])
    response = response.make_conditional(request)
    if response.status_code == PreconditionFailed.code:
        raise PreconditionFailed()
    return response


@sdk.get("/web/<version>/v1/HyperLoader.js")
@documented(auth=Auth.NONE, content_type="text/javascript", errors=(404,), cacheable=True)
def loader(version: str) -> Response:
    """The SDK script: defines `window.Hyper` for a checkout page on any origin."""
    _check_version(version)
    return _static("HyperLoader.js", "text/javascript")


@element_page.get("/web/<version>/v1/element")
@documented(auth=Auth.NONE, content_type="text/html", errors=(404,), cacheable=True, tag="sdk")
def payment_element(version: str) -> Response:
    """The payment element's page, framed by the SDK; its keys and options are in the URL's fragment."""
    _check_version(version)
    body = render_template("payment_element.html", version=version, countries=COUNTRIES).encode()
    response = Response(body, mimetype="text/html")
    response.headers["Content-Security-Policy"] = ELEMENT_POLICY
    return _cacheable(response, body)


@sdk.get("/web/<version>/v1/element.js")
@documented(auth=Auth.NONE, content_type="text/javascript", errors=(404,), cacheable=True)
def element_script(version: str) -> Response:
    """The payment element's script."""
    _check_version(version)
    return _static("element.js", "text/javascript")


@sdk.get("/web/<version>/v1/element.css")
@documented(auth=Auth.NONE, content_type="text/css", errors=(404,), cacheable=True)
def element_style(version: str) -> Response:
    """The payment element's style sheet."""
    _check_version(version)
    return _static("element.css", "text/css")
