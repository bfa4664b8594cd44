"""What each route takes and answers, said beside the route, for the OpenAPI document.

A view says it with `@documented(...)`: the schema of its body and query (the same instances that
validate them), the schema of its answer, and the errors it can answer beyond those that follow
from its shape (see `Operation.statuses`). `mocksrv.contract.document` reads them from the app.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

from marshmallow import Schema, fields, validate

F = TypeVar("F", bound=Callable[..., Any])

ATTRIBUTE = "__mocksrv_operation__"


class Auth(Enum):
    """Which key a route takes in its `api-key` header, or which credentials in `Authorization`."""

    NONE = "none"
    SECRET = "secret"  # a merchant's secret key
    PUBLISHABLE = "publishable"  # a merchant's secret or publishable key
    PUBLISHABLE_ONLY = "publishable_only"  # a merchant's publishable key, and no other: a browser's route
    EPHEMERAL = "ephemeral"  # a merchant's secret key, or the ephemeral key of the customer the path names
    CONTROL = "control"  # the admin key, or a merchant's secret key for its own merchant
    ADMIN = "admin"  # the admin key only
    LEGACY_BASIC = "legacy_basic"  # the legacy API's client id and secret, with HTTP Basic
    LEGACY_BEARER = "legacy_bearer"  # a token of the legacy API, as a Bearer credential


@dataclass(frozen=True)
class Operation:
    answer: Schema | type[Schema] | str | None  # a str names a schema class
    body: Schema | None
    query: Schema | None
    errors: frozenset[int]
    auth: Auth
    status: int
    content_type: str
    tag: str | None
    cacheable: bool = False  # revalidated by its ETag: 304 to If-None-Match, 412 to If-Match

    def statuses(self, has_path_ids: bool) -> list[int]:
        """Every status the route can answer: its own, and the errors of its shape and its key.

        Any request can be too large: its body (413) or its request line and headers (431), which
        the HTTP server refuses before the app, on every route. A body or a query can be refused
        (400), an id in the path can name nothing (404), a key can be missing or wrong (401), and
        a merchant's key can pass its rate limit (429). A cacheable answer may be not modified
        (304), or not the version an If-Match names (412).
        """
        found = {self.status, *self.errors, 413, 431}
        if self.cacheable:
            found |= {304, 412}
        if self.body is not None:
            found.add(400)
        if self.query is not None:
            found.add(400)
        if has_path_ids:
            found.add(404)
        if self.auth is not Auth.NONE:
            found.add(401)
        if self.auth not in (Auth.NONE, Auth.CONTROL, Auth.ADMIN):  # the control plane has no rate limit
            found.add(429)
        return sorted(found)


def is_page(method: str, path: str) -> bool:
    """Whether a request is a browser's, to a hosted page: anything under /web/, and a link's page,
    `GET /payment_link/<merchant_id>/<link_id>` (the API's link routes beside it answer JSON).

    The HTTP server's refusal of a body over the limit is a page for these: said here, where the
    document reads it too. A path is as sent, or a route's rule.
    """
    if path.startswith("/web/"):
        return True
    segments = path.split("/")
    return (
        method in ("GET", "HEAD")
        and len(segments) == 4
        and segments[1] == "payment_link"
        and all(segments[2:])
    )


def documented(
    answer: Schema | type[Schema] | str | None = None,
    *,
    body: Schema | None = None,
    query: Schema | None = None,
    errors: Iterable[int] = (),
    auth: Auth = Auth.SECRET,
    status: int = 200,
    content_type: str = "application/json",
    tag: str | None = None,
    cacheable: bool = False,
) -> Callable[[F], F]:
    """Record what the view takes and answers; the view itself is returned unchanged."""
    operation = Operation(answer, body, query, frozenset(errors), auth, status, content_type, tag, cacheable)

    def record(view: F) -> F:
        setattr(view, ATTRIBUTE, operation)
        return view

    return record


def operation_of(view: Callable[..., Any]) -> Operation | None:
    found: Operation | None = getattr(view, ATTRIBUTE, None)
    return found


class AnswerSchema(Schema):
    """The schema of a JSON answer, for the document only: answers are built by the representations.

    Every field is always present unless it says `metadata={"optional": True}`; a field that may be
    null says `allow_none=True`. Unknown fields are refused, so the document says an answer has no
    field beyond those listed.
    """

    def on_bind_field(self, field_name: str, field_obj: Any) -> None:
        field_obj.required = not field_obj.metadata.get("optional", False)


def one_of(values: Iterable[Any], **kwargs: Any) -> fields.String:
    """A string answer field that takes one of `values` (strings, or enum members by their value)."""
    choices = [str(getattr(value, "value", value)) for value in values]
    return fields.String(validate=validate.OneOf(choices), **kwargs)
