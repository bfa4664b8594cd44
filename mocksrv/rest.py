"""HTTP helpers shared by the API, the control plane and the pages: errors, bodies, keys, limits."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Mapping
from typing import Any

import orjson
from flask import Flask, Response, current_app, g, jsonify, request
from flask.json.provider import JSONProvider
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import HTTPException
from werkzeug.routing import BaseConverter

from mocksrv.domain.errors import (
    BodyTooLarge,
    DomainError,
    ErrorKind,
    InvalidField,
    MalformedBody,
    RateLimited,
    ResourceNotFound,
    Unauthorized,
)
from mocksrv.domain.models import KeyKind, Payment, Principal
from mocksrv.domain.sandbox import Sandbox
from mocksrv.representations import payment_view
from mocksrv.settings import Settings

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
ORDER_LINE_ALIASES = ("items", "line_items", "cart_items")

_EXTENSION = "mocksrv"


class OrjsonProvider(JSONProvider):
    """JSON through orjson: several times faster than the standard library on every request."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        obj = self._prepare_response_obj(args, kwargs)
        return Response(orjson.dumps(obj), mimetype="application/json")


class ResourceIdConverter(BaseConverter):
    """A resource id in a path: never `list`, so `GET /payments/list` is a wrong method, not an id."""

    regex = r"(?!list(?![A-Za-z0-9_-]))[^/]+"


def sandbox() -> Sandbox:
    sandbox_: Sandbox = current_app.extensions[_EXTENSION]["sandbox"]
    return sandbox_


def settings() -> Settings:
    settings_: Settings = current_app.extensions[_EXTENSION]["settings"]
    return settings_


def init_app(app: Flask, sandbox_: Sandbox, settings_: Settings) -> None:
    """Attach the sandbox and settings, and make every error leave in the spec's shape."""
    app.extensions[_EXTENSION] = {"sandbox": sandbox_, "settings": settings_}
    app.config["MAX_CONTENT_LENGTH"] = settings_.max_body_bytes
    app.url_map.converters["id"] = ResourceIdConverter
    app.json = OrjsonProvider(app)
    app.register_error_handler(DomainError, _domain_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected_error)
    app.after_request(_rate_limit_headers)


def error_response(status: int, code: str, message: str, param: str | None = None) -> Response:
    error: dict[str, str] = {
        "type": "invalid_request" if status < 500 else "api",
        "code": code,
        "message": message,
    }
    if param is not None:
        error["param"] = param
    response = jsonify({"error": error})
    response.status_code = status
    return response


def _domain_error(error: DomainError) -> Response:
    response = error_response(STATUS_OF_KIND[error.kind], error.code, error.message, error.param)
    if isinstance(error, RateLimited):
        g.rate_status = (g.get("rate_limit", 0), 0, error.reset_at)
    return response


def _http_error(error: HTTPException) -> Response:
    status = error.code or 500
    if status == 404:
        return error_response(404, "IR_02", "Unrecognized request URL")
    if status == 405:
        return error_response(405, "IR_03", "The HTTP method is not applicable for this API")
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
        response.headers["X-RateLimit-Limit"] = str(limit)
        response.headers["X-RateLimit-Remaining"] = str(remaining)
        response.headers["X-RateLimit-Reset"] = str(reset)
    return response


# -- request bodies ---------------------------------------------------------------------------


def json_body() -> dict[str, Any]:
    """Return the JSON object sent; an empty body is an empty object."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    if not request.is_json:
        raise MalformedBody("the Content-Type must be application/json")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise MalformedBody(str(error)) from None
    if not isinstance(data, dict):
        raise MalformedBody("expected a JSON object")
    return data


def load(schema: Schema, data: Mapping[str, Any]) -> Any:
    """Validate `data` with a schema; the first problem becomes IR_04 (or IR_06) naming its path."""
    for alias in ORDER_LINE_ALIASES:
        if alias in data:
            raise InvalidField(alias, "order lines are sent as order_details")
    try:
        return schema.load(data)
    except ValidationError as error:
        path, message = _first_error(error.messages)
        if message == "Unknown field.":
            raise MalformedBody(f"unknown field `{path}`") from None
        if message == "Missing data for required field.":
            raise InvalidField(path, missing=True) from None
        raise InvalidField(path, message.rstrip(".")[:1].lower() + message.rstrip(".")[1:]) from None


def _first_error(messages: Any, prefix: str = "") -> tuple[str, str]:
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            name = prefix if key == "_schema" else f"{prefix}.{key}" if prefix else str(key)
            return _first_error(value, name)
    if isinstance(messages, list) and messages:
        return _first_error(messages[0], prefix)
    return prefix or "body", str(messages)


# -- keys and limits --------------------------------------------------------------------------


def authenticate(*, publishable: bool = False) -> Principal:
    """Check the `api-key` header and count the request against the key's rate limit."""
    principal = sandbox().merchants.authenticate(request.headers.get("api-key"))
    g.merchant_id = principal.merchant_id
    if principal.kind is KeyKind.PUBLISHABLE and not publishable:
        raise Unauthorized()
    g.rate_limit = principal.rate_limit
    status = sandbox().rate_limiter.hit(principal)
    if status is not None:
        g.rate_status = (status.limit, status.remaining, status.reset)
    return principal


def is_admin() -> bool:
    key = request.headers.get("api-key") or ""
    return hmac.compare_digest(key.encode(), settings().admin_key.encode())


def authenticate_for_merchant(merchant_id: str) -> None:
    """Admit the admin key, or the secret key of this merchant; another merchant's key gets 404."""
    if is_admin():
        sandbox().merchants.require_merchant_id(merchant_id)
        g.merchant_id = merchant_id
        return
    principal = authenticate()
    if principal.merchant_id != merchant_id:
        raise ResourceNotFound("Merchant")


def show_payment(payment: Payment) -> dict[str, Any]:
    """A payment as every route answers it: with its next action and its disputes."""
    return payment_view(payment, base_url(), sandbox())


def base_url() -> str:
    """The address that links and pages name: the configured one, or the one asked for."""
    return settings().public_url or f"{request.scheme}://{request.host}/"
