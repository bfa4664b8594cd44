"""HTTP helpers shared by the API, the control plane and the pages: errors, bodies, keys, limits."""

from __future__ import annotations

import functools
import hmac
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

import orjson
from flask import Flask, Request, Response, current_app, g, jsonify, request
from flask.json.provider import JSONProvider
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound
from werkzeug.routing import BaseConverter

from mocksrv.domain.ephemeral_keys import is_ephemeral_key
from mocksrv.domain.errors import (
    BodyTooLarge,
    DomainError,
    ErrorKind,
    RateLimited,
    ResourceNotFound,
    Unauthorized,
)
from mocksrv.domain.models import KeyKind, Payment, Principal
from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.waits import WaitSlots
from mocksrv.fieldtypes import RESERVED_IDS
from mocksrv.representations import payment_view
from mocksrv.settings import Settings
from mocksrv.values import http_url

log = logging.getLogger(__name__)

STATUS_OF_KIND = {
    ErrorKind.INVALID: 400,
    ErrorKind.STATE: 400,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.CONFLICT: 409,
    ErrorKind.AUTH: 401,
    ErrorKind.RATE: 429,
    ErrorKind.TOO_LARGE: 413,
}

# Order lines have one name; these get a pointed IR_04 rather than "unknown field".

_EXTENSION = "mocksrv"
STARTED = "mocksrv.access_started"  # the WSGI environment's key for when the request came in


class OrjsonProvider(JSONProvider):
    """JSON through orjson: several times faster than the standard library on every request."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        obj = self._prepare_response_obj(args, kwargs)
        return Response(orjson.dumps(obj), content_type="application/json")


class ResourceIdConverter(BaseConverter):
    """A resource id in a path: never a word that is a route of its own there, so `PUT /payments/list`
    is a wrong method, not an id, and `OPTIONS /payouts/create` allows only what that route takes."""

    regex = rf"(?!(?:{'|'.join(RESERVED_IDS)})(?![A-Za-z0-9_-]))[^/]+"


def sandbox() -> Sandbox:
    sandbox_: Sandbox = current_app.extensions[_EXTENSION]["sandbox"]
    return sandbox_


def on_authenticated(app: Flask, hook: Callable[[Principal], None]) -> None:
    """Have `hook` called with the principal of each API request once its key is checked."""
    app.extensions[_EXTENSION]["authenticated"].append(hook)


def wait_slots(app: Flask) -> WaitSlots:
    """The app's count of requests held open: long-polls, and latency and hang faults."""
    slots: WaitSlots = app.extensions[_EXTENSION]["waits"]
    return slots


def settings() -> Settings:
    settings_: Settings = current_app.extensions[_EXTENSION]["settings"]
    return settings_


def current_request() -> Request:
    """The request itself, not the `request` proxy, which looks it up again on every attribute read.

    The way Flask documents to reach the object behind a proxy; for code that reads the request
    more than once.
    """
    request_: Request = request._get_current_object()  # type: ignore[attr-defined]
    return request_


CONTROL_PLANE = "/__mock/"
# A liveness probe, polled by `mocksrv wait` and load balancers with a merchant's key: no call of the
# payments API. Neither journaled nor faulted: recorded, it would push the requests a test looks for
# out of the ring, and faulted, an outage a scenario stages would take the server for dead.
HEALTH_CHECK = "/health"


def is_api_call(path: str) -> bool:
    """Whether a request's path is a call of the payments API: not the control plane's, nor the
    health check."""
    return not path.startswith(CONTROL_PLANE) and path != HEALTH_CHECK


def init_app(app: Flask, sandbox_: Sandbox, settings_: Settings) -> None:
    """Attach the sandbox and settings, and make every error leave in the spec's shape."""
    app.extensions[_EXTENSION] = {
        "sandbox": sandbox_,
        "settings": settings_,
        "authenticated": [],
        "waits": WaitSlots(settings_.max_waits, settings_.max_waits_per_merchant),
    }
    app.config["MAX_CONTENT_LENGTH"] = settings_.max_body_bytes
    app.url_map.converters["id"] = ResourceIdConverter
    # An empty segment (`/payments//cancel`, or `%2F` for an id) names no route: a 404 in the spec's
    # shape, not an HTML redirect to another route with the slashes merged.
    app.url_map.merge_slashes = False
    app.before_request(_well_formed)
    app.json = OrjsonProvider(app)
    app.register_error_handler(DomainError, domain_error_response)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected_error)
    app.after_request(_rate_limit_headers)
    app.after_request(_cross_origin)
    app.after_request(_answer_headers)
    app.after_request(_give_back_ids)


# A checkout page on the shop's own origin calls the browser routes with the publishable key (the
# SDK's retrievePaymentIntent), as it calls the real service: any origin may, without cookies, since
# every key travels in a header. Written here rather than with flask-cors, whose hook cost 20-50 µs
# on every request, browser or not (measured on a create); this one costs nothing without `Origin`.
_CROSS_ORIGIN = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": ", ".join(
        ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After")
    ),
}
_PREFLIGHT = {
    "Access-Control-Allow-Methods": "GET, POST, PUT, DELETE",
    "Access-Control-Allow-Headers": "api-key, Content-Type",
    "Access-Control-Max-Age": "600",
}


def _cross_origin(response: Response) -> Response:
    """Let a page of any origin read the answer; answer a browser's preflight of a request, as
    every OPTIONS, with no content (Flask's own answer says HTML)."""
    headers = request.headers
    if request.method == "OPTIONS" and response.status_code == 200 and not response.content_length:
        response.status_code = 204
        del response.headers["Content-Type"]
    if "Origin" in headers:
        response.headers.update(_CROSS_ORIGIN)
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in headers:
            response.headers.update(_PREFLIGHT)
    return response


# What every answer says, unless it says otherwise (the SDK's files may be cached): kept out of the
# browser's cache, as a page reached again with Back must ask for a payment's state, not show one it
# kept; and read as the type it says. A page also keeps its address, which holds a client secret,
# out of the `Referer` of whatever it leads to.
ANSWER_HEADERS = (("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"))
PAGE_HEADERS = (("Referrer-Policy", "no-referrer"),)


def _answer_headers(response: Response) -> Response:
    """Give the answer the headers every answer (and page) says, where it says nothing else."""
    headers = response.headers
    for name, value in ANSWER_HEADERS + (PAGE_HEADERS if response.mimetype == "text/html" else ()):
        headers.setdefault(name, value)
    return response


def error_object(status: int, code: str, message: str, param: str | None = None) -> dict[str, Any]:
    """The spec's error shape: `{"error": {type, code, message, param}}`, `param` when there is one."""
    error: dict[str, str] = {
        "type": "invalid_request" if status < 500 else "api",
        "code": code,
        "message": message,
    }
    if param is not None:
        error["param"] = param
    return {"error": error}


def error_response(status: int, code: str, message: str, param: str | None = None) -> Response:
    response = jsonify(error_object(status, code, message, param))
    response.status_code = status
    return response


def domain_error_response(error: DomainError) -> Response:
    """The spec's error answer for a refusal of the domain."""
    response = error_response(STATUS_OF_KIND[error.kind], error.code, error.message, error.param)
    if isinstance(error, RateLimited):
        g.rate_status = (error.limit, 0, error.reset_at)
    return response


BAD_HOST = "Malformed HTTP request: the Host header must be one host, with a port from 1 to 65535 or none"


@functools.lru_cache(maxsize=256)
def names_a_host(host: str) -> bool:
    """Whether a Host header names one host, as a URL's would, and a port of 1 to 65535 or none: a
    name (a compose service's underscore too), an IPv4 address or an IPv6 one in brackets."""
    if any(character in host for character in "/?#@\\"):
        return False
    try:
        http_url(f"http://{host}/")
    except ValueError:
        return False
    return True


def _well_formed() -> Response | None:
    """Refuse a Host header that names no host (`a b`, `[::1`, a port past 65535, two Host lines,
    an empty value), as RFC 9112 asks: every link an answer writes is made from it, and would begin
    `http:/`. A request without one (HTTP/1.0) names the server's own.

    And a leading empty segment names no route either: waitress hands `//payments` over as
    `/payments`, and werkzeug matches it so whatever `merge_slashes` says; the target as sent
    (`REQUEST_URI`) tells."""
    environ = request.environ
    host = environ.get("HTTP_HOST")
    if host is not None and not names_a_host(host):
        return error_response(400, "IR_04", BAD_HOST)
    target = str(environ.get("REQUEST_URI") or "")
    # Its path, decoded (`/%2Fhealth` is `//health` too): all before the query or a fragment, or of
    # an absolute target (`http://host//health`) the path.
    sent = target.split("?", 1)[0].split("#", 1)[0] if target.startswith("/") else urlsplit(target).path
    if "//" in unquote(sent) or "//" in environ.get("PATH_INFO", ""):
        raise NotFound()
    return None


def _http_error(error: HTTPException) -> Response:
    status = error.code or 500
    if status in (404, 405):
        _note_key_holder()
    if status == 404:
        return error_response(404, "IR_02", "Unrecognized request URL")
    if status == 405:
        response = error_response(405, "IR_03", "The HTTP method is not applicable for this API")
        if isinstance(error, MethodNotAllowed) and error.valid_methods:
            response.headers["Allow"] = ", ".join(sorted(error.valid_methods))  # as HTTP asks of a 405
        return response
    if status == 413:
        limit = current_app.config["MAX_CONTENT_LENGTH"]
        too_large = BodyTooLarge(f"Request body is larger than the limit of {limit} bytes")
        return error_response(413, too_large.code, too_large.message)
    if status == 400:
        return error_response(400, "IR_06", f"Json deserialize error: {error.description}")
    if status >= 500:
        return _unexpected_error(error)
    return error_response(status, "IR_04", error.description or error.name)


def _unexpected_error(error: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path, exc_info=error)
    return error_response(500, "HE_00", "Something went wrong")


def _rate_limit_headers(response: Response) -> Response:
    status = g.get("rate_status")
    if status is not None:
        limit, remaining, reset = status
        # Added, not set: no answer carries them before this, so there is none to replace (and
        # adding skips the search for one: 15,000 instructions, 1.5% of a create).
        headers = response.headers
        headers.add("X-RateLimit-Limit", str(limit))
        headers.add("X-RateLimit-Remaining", str(remaining))
        headers.add("X-RateLimit-Reset", str(reset))
    return response


# -- keys and limits --------------------------------------------------------------------------


def authenticate(*, publishable: bool = False, customer_id: str | None = None) -> Principal:
    """Check the `api-key` header and count the request against the key's rate limit.

    Every route takes the merchant's secret key; `publishable` takes its publishable key too, and
    `customer_id` the ephemeral key of that customer (a route that acts for the customer it names).
    """
    sandbox_ = sandbox()
    # The header as the WSGI server hands it over, which is what `request.headers` reads.
    key = current_request().environ.get("HTTP_API_KEY")
    if customer_id is not None and is_ephemeral_key(key):
        principal = sandbox_.ephemeral_keys.authenticate(key, customer_id)
    else:
        principal = sandbox_.merchants.authenticate(key)
    known_merchant(principal.merchant_id)
    if principal.kind is KeyKind.PUBLISHABLE and not publishable:
        g.key_kind = principal.kind
        raise Unauthorized()
    admit(principal)
    return principal


def admit(principal: Principal) -> None:
    """Count the request of an authenticated principal against its rate limit, fire its merchant's
    timers that are due, and run the hooks (fault rules) that look at every authenticated request:
    for any way a request authenticates."""
    known_merchant(principal.merchant_id)
    g.key_kind = principal.kind
    sandbox_ = sandbox()
    status = sandbox_.rate_limiter.hit(principal)
    if status is not None:
        g.rate_status = (status.limit, status.remaining, status.reset)
    # What fell due on the merchant's running clock since the ticker last looked (up to a tick ago)
    # happens before the request acts: no capture gets in after its authorization expired.
    sandbox_.scheduler.fire_now(principal.merchant_id)
    for hook in current_app.extensions[_EXTENSION]["authenticated"]:
        hook(principal)


def _note_key_holder() -> None:
    """A request that no route took is still its merchant's, for the journal, when it carries one of
    the merchant's keys: a client's wrong path or method is what the journal is read for. Noted only,
    not admitted: it counts against no rate limit and meets no fault."""
    key = current_request().environ.get("HTTP_API_KEY")
    if not key or g.get("merchant_id") is not None:
        return
    try:
        principal = sandbox().merchants.authenticate(key)
    except DomainError:
        return
    known_merchant(principal.merchant_id)
    g.key_kind = principal.kind


def known_merchant(merchant_id: str) -> None:
    """Note the merchant the request acts for, and its journal's ring as it is now: taken before
    anything can hold the request, so that a merchant reset, or deleted and made again, meanwhile
    does not record it in the ring that came after."""
    g.merchant_id = merchant_id
    sandbox_ = sandbox()
    g.journal_ring = sandbox_.journal.ring_of(merchant_id)
    if g.get("ids_mark") is None:
        ids = sandbox_.store.ids(merchant_id)
        g.ids_mark = (merchant_id, ids, ids.mark(), sandbox_.store.changes(merchant_id))


def _give_back_ids(response: Response) -> Response:
    """A request refused (4xx) that changed nothing gives back the ids it drew from its merchant's
    seeded stream: the ids that follow are the ones they would have been without it."""
    marked = g.get("ids_mark")
    if marked is None or not 400 <= response.status_code < 500:
        return response
    merchant_id, ids, mark, changes = marked
    if mark is not None and sandbox().store.changes(merchant_id) == changes:
        ids.give_back(mark)
    return response


def is_admin() -> bool:
    key = request.headers.get("api-key") or ""
    return hmac.compare_digest(key.encode(), settings().admin_key.encode())


def authenticate_for_merchant(merchant_id: str) -> None:
    """Admit the admin key, or the secret key of this merchant; another merchant's key gets 404."""
    if is_admin():
        sandbox().merchants.require_merchant_id(merchant_id)
        known_merchant(merchant_id)
        return
    principal = authenticate()
    if principal.merchant_id != merchant_id:
        raise ResourceNotFound("Merchant")


def show_payment(payment: Payment) -> dict[str, Any]:
    """A payment as every route answers it: with its next action and its disputes."""
    extension = current_app.extensions[_EXTENSION]
    return payment_view(payment, _base_url(extension["settings"]), extension["sandbox"])


def base_url() -> str:
    """The address that links and pages name: the configured one, or the one asked for."""
    return _base_url(settings())


def _base_url(settings_: Settings) -> str:
    if settings_.public_url:
        return settings_.public_url
    request_ = current_request()
    # The Host as sent, checked by `_well_formed`: werkzeug's reading of it leaves out what it does not
    # take itself (a compose service's underscore).
    return f"{request_.scheme}://{request_.environ.get('HTTP_HOST') or request_.host}/"
