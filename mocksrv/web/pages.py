"""What every hosted page shares: amounts as people read them, and refusals as readable pages.

A page route never answers the API's JSON error: `serve_errors_as_pages(blueprint)` turns every
error of a blueprint's routes into `error.html`, with the status the API would answer. The page
links back to the shop only when the route has said which address is the shop's
(`link_back_to(payment.return_url)`, once the payment is known and its client secret matched): an
address taken from the request would let anyone dress a page of mocksrv as a way to their own site.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from urllib.parse import urlsplit

from babel import Locale
from babel.numbers import NumberPattern
from flask import Blueprint, current_app, g, render_template, request
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from mocksrv.domain.errors import (
    BodyTooLarge,
    ClientSecretExpired,
    ClientSecretInvalid,
    ClientSecretMissing,
    DomainError,
    ErrorKind,
    PaymentNotFound,
)
from mocksrv.domain.money import currency_exponent
from mocksrv.rest import STATUS_OF_KIND

log = logging.getLogger(__name__)

DEFAULT_LOCALE = "en_US"
_RETURN_URL = "page_return_url"  # the key in `flask.g` of the shop's address for this request
_LINKABLE_SCHEMES = frozenset({"http", "https"})


def format_amount(amount: int, currency: str, locale: str = DEFAULT_LOCALE) -> str:
    """Write an amount in minor units as the locale writes it: 2599 USD is "$25.99" in en_US, with as
    many decimals as the currency's exponent (the real service's, where Babel would use CLDR's)."""
    exponent = currency_exponent(currency)
    parsed = Locale.parse(locale)
    return str(
        _pattern(parsed, exponent).apply(
            Decimal(amount).scaleb(-exponent), parsed, currency=currency, currency_digits=False
        )
    )


@cache
def _pattern(locale: Locale, decimals: int) -> NumberPattern:
    """The locale's currency pattern, with `decimals` decimals, always."""
    pattern: NumberPattern = copy.copy(locale.currency_formats["standard"])
    pattern.frac_prec = (decimals, decimals)
    return pattern


@dataclass(frozen=True, slots=True)
class ErrorText:
    """What an error page says: a heading, and one plain sentence of what happened and what to do."""

    heading: str
    message: str


_START_AGAIN = "Go back to the shop and start the payment again."

# By the error's class; an error of another class is described by its kind (`_TEXT_OF_KIND`).
DEFAULT_TEXTS: Mapping[type[DomainError], ErrorText] = {
    ClientSecretMissing: ErrorText(
        "This link is incomplete",
        f"The address of this page lacks the payment's client secret, so the payment cannot be shown. "
        f"{_START_AGAIN}",
    ),
    ClientSecretInvalid: ErrorText(
        "This link does not match the payment",
        f"The client secret in the address of this page is not this payment's. {_START_AGAIN}",
    ),
    ClientSecretExpired: ErrorText(
        "This link has expired",
        f"The payment's client secret has expired. {_START_AGAIN}",
    ),
    PaymentNotFound: ErrorText(
        "Payment not found",
        f"There is no such payment: the link may be mistyped or out of date. {_START_AGAIN}",
    ),
}
_TEXT_OF_KIND: Mapping[ErrorKind, ErrorText] = {
    ErrorKind.INVALID: ErrorText(
        "This request could not be handled",
        "The page was sent something it does not accept. Go back to the shop and try again.",
    ),
    ErrorKind.STATE: ErrorText(
        "This payment cannot be changed here",
        "The payment is no longer waiting for this page. Go back to the shop to see where it stands.",
    ),
    ErrorKind.CONFLICT: ErrorText(
        "This payment is busy",
        "Something else is changing the payment right now. Reload this page in a moment.",
    ),
    ErrorKind.NOT_FOUND: ErrorText(
        "Not found",
        "Nothing is at this address: the link may be mistyped or out of date. Go back to the shop.",
    ),
    ErrorKind.AUTH: ErrorText(
        "Not allowed",
        "This page cannot be shown without the right credentials. Go back to the shop and try again.",
    ),
    ErrorKind.RATE: ErrorText(
        "Too many requests",
        "The sandbox is taking too many requests for this merchant. Wait a minute, then reload.",
    ),
    ErrorKind.TOO_LARGE: ErrorText(
        "This request is too large",
        "The form sent more than the sandbox accepts. Go back to the shop and try again.",
    ),
}
_UNEXPECTED = ErrorText(
    "Something went wrong",
    "The sandbox failed to show this page; its log says why. Reload the page, or go back to the shop.",
)


def link_back_to(return_url: str | None) -> None:
    """Offer `return_url` on this request's error page; only the shop's own, once the payment is
    known and its client secret matched."""
    setattr(g, _RETURN_URL, return_url)


def shop_link(url: str | None) -> str | None:
    """The address to link to, or None: a link only ever leads to a web page (http or https), and
    to one a URL parser reads (a snapshot restored by hand may hold any text)."""
    try:
        linkable = bool(url) and urlsplit(url).scheme.lower() in _LINKABLE_SCHEMES
    except ValueError:  # `http://[::1`
        linkable = False
    return url if linkable else None


def error_page(
    status: int, text: ErrorText, return_url: str | None = None, detail: str | None = None
) -> Response:
    """Render the error page: heading, sentence, a link back to the shop, the technical detail."""
    html = render_template(
        "error.html",
        heading=text.heading,
        message=text.message,
        return_url=shop_link(return_url),
        detail=detail,
    )
    return Response(html, status=status, mimetype="text/html")


def serve_errors_as_pages(
    blueprint: Blueprint, texts: Mapping[type[DomainError], ErrorText] | None = None
) -> None:
    """Answer every error of the blueprint's routes with a readable page instead of JSON.

    `texts` says, by error class, what the blueprint's pages say in place of `DEFAULT_TEXTS`.
    """
    chosen = {**DEFAULT_TEXTS, **(texts or {})}
    blueprint.register_error_handler(DomainError, _domain_error_page(chosen))
    blueprint.register_error_handler(HTTPException, _http_error_page)
    blueprint.register_error_handler(Exception, _unexpected_error_page)


def _return_url() -> str | None:
    url: str | None = g.get(_RETURN_URL)
    return url


def _domain_error_page(texts: Mapping[type[DomainError], ErrorText]) -> Callable[[DomainError], Response]:
    def answer(error: DomainError) -> Response:
        text = next((texts[kind] for kind in type(error).__mro__ if kind in texts), None)
        return error_page(
            STATUS_OF_KIND[error.kind],
            text or _TEXT_OF_KIND[error.kind],
            _return_url(),
            f"{error.code}: {error.message}",
        )

    return answer


def _http_error_page(error: HTTPException) -> Response:
    status = error.code or 500
    if status >= 500:
        return _unexpected_error_page(error)
    if status == 413:
        limit = current_app.config["MAX_CONTENT_LENGTH"]
        detail = f"{BodyTooLarge.code}: Request body is larger than the limit of {limit} bytes"
        return error_page(413, _TEXT_OF_KIND[ErrorKind.TOO_LARGE], _return_url(), detail)
    text = ErrorText(error.name, _TEXT_OF_KIND[ErrorKind.INVALID].message)
    return error_page(status, text, _return_url(), error.description)


def _unexpected_error_page(error: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path, exc_info=error)
    return error_page(500, _UNEXPECTED, _return_url())
