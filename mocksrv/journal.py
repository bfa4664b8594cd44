"""Record each API request of a merchant in the sandbox's journal, bodies masked as the access log masks them.

A request is recorded once its merchant is known, that is once its key was checked (`g.merchant_id`):
errors after that are recorded too, a request with no valid key is not, and neither are the control
plane's own requests, the health check or the hosted pages, which name no key.
"""

from __future__ import annotations

import time
from typing import Any

import orjson
from flask import Flask, Request, Response, g
from werkzeug.exceptions import HTTPException

from mocksrv.bodies import request_body
from mocksrv.domain.controls.faults import AppliedFault, FaultRule
from mocksrv.domain.models import KeyKind
from mocksrv.faults import DROP_CONNECTION
from mocksrv.masking import (
    HIDDEN_KEYS,
    LAST_FOUR_KEYS,
    URL_PASSWORD_BYTES,
    has_card_run,
    mask_json,
    mask_text,
)
from mocksrv.rest import STARTED, current_request, is_admin, is_api_call, sandbox

BODY_LIMIT = 64 * 1024  # characters of each body an entry keeps
ADMIN_KEY_KIND = "admin"


def _key_endings(names: frozenset[str]) -> tuple[bytes, ...]:
    """Ends that every masked key has as JSON writes it, fewer than the keys: `_number"` stands for
    `"card_number"` and `"account_number"`, `cvc"` for `"cvc"` and `"card_cvc"`. The closing quote
    keeps `"cvc_check"` from being taken for `"cvc"`; the underscore, `"number"` (of a phone) for a
    card's."""
    ends = {(f"_{name.rsplit('_', 1)[1]}" if "_" in name else name) + '"' for name in names}
    return tuple(sorted(end.encode() for end in ends if not any(end.endswith(o) and end != o for o in ends)))


_KEY_ENDINGS = _key_endings(LAST_FOUR_KEYS | HIDDEN_KEYS)


def init_app(app: Flask) -> None:
    """Record every answered request that reached a merchant."""
    app.after_request(_record)


def _record(response: Response) -> Response:
    merchant_id: str | None = g.get("merchant_id")
    if merchant_id is None:
        return response
    sandbox_ = sandbox()
    journal = sandbox_.journal
    request_ = current_request()
    path = request_.path
    if not journal.enabled or not is_api_call(path):
        return response
    ring = g.get("journal_ring")
    # Looked at before the merchant's clock is read, which would make a deleted merchant's space
    # again; `record` looks again, against a reset or a delete in between.
    if ring is not None and not journal.current(merchant_id, ring):
        return response  # its merchant was reset, or deleted, while it ran
    environ = request_.environ
    started = environ.get(STARTED)
    rule: FaultRule | None = g.get("fault")
    journal.record(
        merchant_id,
        at=sandbox_.clock.now(merchant_id),
        method=request_.method,
        path=path,
        # Card-like numbers masked, as the access log masks them in a request's target.
        query=_query(request_.query_string),
        status=None if environ.get(DROP_CONNECTION) else response.status_code,
        latency_ms=0.0 if started is None else (time.perf_counter() - started) * 1000,
        key_kind=_key_kind(),
        request_body=_request_body(request_),
        response_body=None if environ.get(DROP_CONNECTION) else _response_body(response),
        fault=None if rule is None else AppliedFault.of(rule),
        ring=ring,
    )
    return response


def _query(query: bytes) -> str:
    return mask_text(query.decode("latin-1")) if query else ""


def _key_kind() -> str | None:
    """The kind of key the request was sent with: secret, publishable, ephemeral or admin."""
    kind: KeyKind | None = g.get("key_kind")
    if kind is not None:
        return kind.value
    return ADMIN_KEY_KIND if is_admin() else None


def _request_body(request_: Request) -> Any:
    try:
        return journal_body(request_body(request_))
    except HTTPException:  # larger than the limit, or cut short by the client
        return "(unread)"


def _response_body(response: Response) -> Any:
    if response.is_streamed or response.direct_passthrough:
        return "(streamed)"
    return journal_body(response.get_data())


def journal_body(body: bytes) -> Any:
    """A body as an entry keeps it: the masked JSON, else the masked text; None when empty.

    Masked as the access log masks it: card and account numbers keep their last four characters,
    CVCs become ***, and a run of 12 to 19 digits anywhere keeps its last four. Longer than
    BODY_LIMIT once masked, it is kept as text, cut there and marked. JSON is kept written out, as
    an `orjson.Fragment` the journal's answer embeds as it is: a ring of parsed bodies would hold
    hundreds of thousands of dicts, each one more for the garbage collector to walk on every pass.
    """
    if not body:
        return None
    try:
        data = orjson.loads(body)
        # Written out again only if masked: orjson refuses to write what is nested deeper than 255
        # levels, or holds a number past 64 bits (TypeError).
        text = body if _nothing_to_mask(body) else orjson.dumps(mask_json(data))
    except (orjson.JSONDecodeError, RecursionError, TypeError):
        return _cut(mask_text(body.decode("utf-8", errors="replace")), body)
    if len(text) > BODY_LIMIT:
        return _cut(text.decode("utf-8", errors="replace"), body)
    return orjson.Fragment(text)


def _cut(text: str, body: bytes) -> str:
    return f"{text[:BODY_LIMIT]}...({len(body)} bytes)" if len(text) > BODY_LIMIT else text


def _nothing_to_mask(body: bytes) -> bool:
    """Whether masking could change nothing in this JSON, told by searches of the text alone.

    A walk of a payment's answer costs a tenth of a create; most answers name no card or account
    field and hold no card-like number, and so skip it. A backslash, as in an escape (`\\u`) that
    could spell either in disguise, takes the walk. Each search finds more than it must, never
    less: a body it stops at is walked, and the walk decides.
    """
    return (
        b"\\" not in body
        and not any(map(body.lower().__contains__, _KEY_ENDINGS))  # keys are masked in any case
        and not has_card_run(body)
        and (b"://" not in body or URL_PASSWORD_BYTES.search(body) is None)
    )
