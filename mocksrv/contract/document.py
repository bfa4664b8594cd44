"""The OpenAPI 3.1 document of an app, built by apispec from the schemas its routes are documented
with: the request schemas that validate bodies and queries, and the answer schemas beside them."""

from __future__ import annotations

import re
from collections import Counter
from http import HTTPStatus
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask, current_app
from marshmallow import Schema, class_registry, fields, validate
from werkzeug.routing import Rule

from mocksrv.contract import Auth, Operation, documented, is_page, operation_of
from mocksrv.fieldtypes import (
    RESERVED_IDS,
    Number,
    OneOrMany,
    StrictBoolean,
    StrictInteger,
    StrictNumber,
    Timestamp,
)
from mocksrv.schema import RequestSchema
from mocksrv.version import __version__

OPENAPI_VERSION = "3.1.0"
# Every key travels in the `api-key` header; the schemes say which kind, named as the real service's
# document names them.
_SECURITY_SCHEMES = {
    "api_key": "A merchant's secret key",
    "publishable_key": "A merchant's publishable key, for a browser",
    "ephemeral_key": "An ephemeral key's secret (POST /ephemeral_keys), for the one customer it was made for",
    "admin_api_key": "The control plane's admin key",
}
# The legacy card API's credentials travel in the `Authorization` header instead.
_HTTP_SECURITY_SCHEMES = {
    "legacy_basic": ("basic", "A merchant's legacy client id and secret, for a token (GET /api/v1)"),
    "legacy_bearer": ("bearer", "A token of the legacy card API (GET /api/v1)"),
}
# Which of them a route takes: any one of those listed.
_SECURITY: dict[Auth, tuple[str, ...]] = {
    Auth.NONE: (),
    Auth.SECRET: ("api_key",),
    Auth.PUBLISHABLE: ("api_key", "publishable_key"),
    Auth.PUBLISHABLE_ONLY: ("publishable_key",),
    Auth.EPHEMERAL: ("api_key", "ephemeral_key"),
    Auth.CONTROL: ("admin_api_key", "api_key"),
    Auth.ADMIN: ("admin_api_key",),
    Auth.LEGACY_BASIC: ("legacy_basic",),
    Auth.LEGACY_BEARER: ("legacy_bearer",),
}
ERROR_RESPONSE = "Error"
PAGE_ERROR_RESPONSE = "PageError"
_EXTENSION = "mocksrv.openapi"
_PATH_ARGUMENT = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
_PATH_CONVERTED = re.compile(r"<(?:([^:<>]+):)?([^<>]+)>")  # its converter (or none) and its name
_NOT_DOCUMENTED = frozenset({"static"})  # Flask's own route for the pages' files
# The project's own field types, by the JSON type they take.
_FIELD_TYPES: dict[type, str] = {
    Number: "number",
    StrictNumber: "number",
    StrictInteger: "integer",
    StrictBoolean: "boolean",
    Timestamp: "string",
}


class ErrorDetailSchema(Schema):
    type = fields.String(required=True, validate=validate.OneOf(["invalid_request", "api"]))
    code = fields.String(required=True)
    message = fields.String(required=True)
    param = fields.String()


class ErrorSchema(Schema):
    """The spec's error shape, which every refusal answers."""

    error = fields.Nested(ErrorDetailSchema, required=True)


def document(app: Flask) -> dict[str, Any]:
    """The app's OpenAPI document, built once and kept."""
    built: dict[str, Any] | None = app.extensions.get(_EXTENSION)
    if built is None:
        built = app.extensions[_EXTENSION] = build(app)
    return built


def build(app: Flask) -> dict[str, Any]:
    plugin = MarshmallowPlugin(schema_name_resolver=_component_name)
    spec = APISpec(
        title="mocksrv",
        version=__version__,
        openapi_version=OPENAPI_VERSION,
        plugins=[plugin],
        info={"description": "A stateful sandbox of a payments REST API."},
    )
    for field_type, openapi_type in _FIELD_TYPES.items():
        plugin.map_to_openapi_type(field_type, openapi_type, None)  # type: ignore[no-untyped-call]
    plugin.converter.add_attribute_function(_or_alternative)  # type: ignore[union-attr]
    plugin.converter.add_attribute_function(_one_or_many)  # type: ignore[union-attr]
    plugin.converter.add_attribute_function(_object_or_name)  # type: ignore[union-attr]
    plugin.converter.add_attribute_function(_alternatives)  # type: ignore[union-attr]
    plugin.converter.add_attribute_function(_null_means_absent)  # type: ignore[union-attr]
    for name, description in _SECURITY_SCHEMES.items():
        scheme = {"type": "apiKey", "in": "header", "name": "api-key", "description": description}
        spec.components.security_scheme(name, scheme)
    for name, (kind, description) in _HTTP_SECURITY_SCHEMES.items():
        spec.components.security_scheme(name, {"type": "http", "scheme": kind, "description": description})
    spec.components.schema("Error", schema=ErrorSchema)
    spec.components.response(
        ERROR_RESPONSE,
        {"description": "Refused", "content": {"application/json": {"schema": "Error"}}},
    )
    spec.components.response(
        PAGE_ERROR_RESPONSE,
        {"description": "Refused, with a page", "content": {"text/html": {"schema": {"type": "string"}}}},
    )
    rules = [rule for rule in app.url_map.iter_rules() if rule.endpoint not in _NOT_DOCUMENTED]
    # An endpoint served with several methods, by one rule or several, names its operations by method.
    methods_of = Counter(rule.endpoint for rule in rules for _ in _methods(rule))
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(rules, key=lambda rule: rule.rule):
        operation = operation_of(app.view_functions[rule.endpoint])
        if operation is None:
            raise LookupError(f"route {rule.rule} ({rule.endpoint}) has no @documented")
        for method in _methods(rule):
            one = methods_of[rule.endpoint] == 1
            operation_id = rule.endpoint if one else f"{rule.endpoint}_{method.lower()}"
            entry = paths.setdefault(openapi_path(rule.rule), {})
            entry[method.lower()] = _operation(app, rule, method, operation, operation_id)
    for path, operations in paths.items():
        spec.path(path=path, operations=operations)
    built: dict[str, Any] = _ecma_patterns(spec.to_dict())
    return built


def _methods(rule: Rule) -> list[str]:
    """The methods a rule documents: HEAD is GET's, and OPTIONS is Flask's own."""
    return sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})


def openapi_path(rule: str) -> str:
    """A Flask rule as the document writes its path: `/payments/<id:payment_id>`, `/payments/{payment_id}`."""
    return _PATH_ARGUMENT.sub(r"{\1}", rule)


def _ecma_patterns(node: Any) -> Any:
    """The document with Python's end-of-text anchor in patterns written as ECMA-262 writes it.

    JSON Schema patterns are ECMA-262 regular expressions, where `$` (without the multiline flag)
    matches only at the end, as Python's `\\Z` does; the schemas' validators are Python's own.
    """
    if isinstance(node, dict):
        return {
            key: value.replace("\\Z", "$")
            if key == "pattern" and isinstance(value, str)
            else _ecma_patterns(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_ecma_patterns(item) for item in node]
    return node


def _component_name(schema: type[Schema] | Schema) -> str:
    """A schema's component name: its class's without "Schema", marked when an instance takes only
    part of it or none of its fields as required."""
    kind = schema if isinstance(schema, type) else type(schema)
    name = kind.__name__.removesuffix("Schema")
    if isinstance(schema, Schema):
        if schema.partial:
            name += "Partial"
        if schema.only:
            name += "Only" + "".join(part.title() for part in sorted(schema.only))
        if schema.exclude:
            name += "Without" + "".join(part.title() for part in sorted(schema.exclude))
    return name


def _or_alternative(
    converter: Any, field: fields.Field[Any], ret: dict[str, Any], **kwargs: Any
) -> dict[str, Any]:
    """A nested field that also takes another shape (`metadata={"or": schema}`): either one."""
    alternative = field.metadata.get("or")
    if alternative is None or "$ref" not in ret:
        return {}
    return {"anyOf": [{"$ref": ret.pop("$ref")}, alternative]}


def _one_or_many(
    converter: Any, field: fields.Field[Any], ret: dict[str, Any], **kwargs: Any
) -> dict[str, Any]:
    """A value, or a list of values, of the same choices."""
    if not isinstance(field, OneOrMany):
        return {}
    one = {"type": "string", "enum": list(field.choices)}
    return {"anyOf": [one, {"type": "array", "items": one}]}


def _object_or_name(
    converter: Any, field: fields.Field[Any], ret: dict[str, Any], **kwargs: Any
) -> dict[str, Any]:
    """An object, or the bare name of a kind without details (`metadata={"names": [...]}`)."""
    names = field.metadata.get("names")
    if names is None:
        return {}
    as_object = {key: ret.pop(key) for key in ("type", "additionalProperties") if key in ret}
    return {"anyOf": [as_object, {"type": "string", "enum": names}]}


def _alternatives(
    converter: Any, field: fields.Field[Any], ret: dict[str, Any], **kwargs: Any
) -> dict[str, Any]:
    """A field that takes any of several shapes (`metadata={"alternatives": [...]}`): each a schema
    of its own (a schema class) or as written."""
    alternatives = field.metadata.get("alternatives")
    if alternatives is None:
        return {}
    return {
        "anyOf": [
            converter.resolve_nested_schema(item) if isinstance(item, type) else item for item in alternatives
        ]
    }


def _null_means_absent(
    converter: Any, field: fields.Field[Any], ret: dict[str, Any], **kwargs: Any
) -> dict[str, Any]:
    """A request's optional field may be sent as null, which means absent: say so in its type."""
    if not isinstance(field.parent, RequestSchema) or field.required or field.allow_none:
        return {}
    if "$ref" in ret:
        return {"anyOf": [{"$ref": ret.pop("$ref")}, {"type": "null"}]}
    if "anyOf" in ret:
        return {"anyOf": [*ret["anyOf"], {"type": "null"}]}
    attributes: dict[str, Any] = {}
    if "type" in ret:
        kinds = ret["type"] if isinstance(ret["type"], list) else [ret["type"]]
        attributes["type"] = [*kinds, "null"]
    if "enum" in ret and None not in ret["enum"]:
        attributes["enum"] = [*ret["enum"], None]
    return attributes


def _operation(
    app: Flask, rule: Rule, method: str, operation: Operation, operation_id: str
) -> dict[str, Any]:
    view = app.view_functions[rule.endpoint]
    summary = (view.__doc__ or rule.endpoint.split(".")[-1].replace("_", " ").capitalize()).strip()
    parameters: list[dict[str, Any]] = [
        {"name": name, "in": "path", "required": True, "schema": _path_schema(converter)}
        for converter, name in _PATH_CONVERTED.findall(rule.rule)
    ]
    if operation.query is not None:
        parameters.append({"in": "query", "schema": operation.query})
    entry: dict[str, Any] = {
        "operationId": operation_id,
        "summary": summary.splitlines()[0],
        "tags": [operation.tag or rule.endpoint.split(".")[0]],
        "responses": _responses(operation, method, rule.rule, has_path_ids=bool(rule.arguments)),
        "security": [{scheme: []} for scheme in _SECURITY[operation.auth]],
    }
    if parameters:
        entry["parameters"] = parameters
    if operation.body is not None:
        required = any(field.required for field in operation.body.fields.values())
        entry["requestBody"] = {
            "required": required,
            "content": {"application/json": {"schema": operation.body}},
        }
    return entry


def _path_schema(converter: str) -> dict[str, Any]:
    """A path argument's schema: a resource id (`<id:...>`) is never a word that is a route beside it."""
    schema: dict[str, Any] = {"type": "string", "minLength": 1}
    if converter == "id":
        schema["not"] = {"enum": list(RESERVED_IDS)}
    return schema


def _responses(operation: Operation, method: str, rule: str, *, has_path_ids: bool) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status in operation.statuses(has_path_ids):
        if status >= 400:
            # A page refuses with a page (mocksrv.web.pages), the API with the spec's error body. The
            # HTTP server tells a page by its path (a script's too), and headers too large by nothing.
            if status == HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE:
                page = False
            elif status == HTTPStatus.REQUEST_ENTITY_TOO_LARGE:
                page = is_page(method, rule)
            else:
                page = operation.content_type == "text/html"
            responses[str(status)] = PAGE_ERROR_RESPONSE if page else ERROR_RESPONSE
            continue
        answer: dict[str, Any] = {"description": HTTPStatus(status).phrase}
        if status == HTTPStatus.NOT_MODIFIED:  # no body
            responses[str(status)] = answer
            continue
        if operation.answer is not None:
            schema = operation.answer
            if isinstance(schema, str):  # a schema class named, from a layer this one cannot import
                schema = class_registry.get_class(schema)
            answer["content"] = {operation.content_type: {"schema": schema}}
        elif operation.content_type != "application/json":
            answer["content"] = {operation.content_type: {"schema": {"type": "string"}}}
        responses[str(status)] = answer
    return responses


class DocumentSchema(Schema):
    """An OpenAPI document: an object with the version it follows."""

    class Meta:
        unknown = "include"

    openapi = fields.String(required=True)


def init_app(app: Flask) -> None:
    app.add_url_rule("/openapi.json", "contract.openapi", serve_document, methods=["GET"])


@documented(DocumentSchema, auth=Auth.NONE, tag="contract")
def serve_document() -> dict[str, Any]:
    """This server's OpenAPI document: every route, what it takes and what it answers."""
    return document(current_app)
