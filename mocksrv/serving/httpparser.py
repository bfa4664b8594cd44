"""The request parser under the HTTP server: waitress's, refusing at once what cannot be a request.

Waitress looks at a request's head only once its blank line has come, and takes some heads that RFC
9112 refuses. This parser refuses, as soon as the bytes show it, a client that is not speaking HTTP,
a line that does not end in CRLF and a request line without a version; and, once the head has come,
Transfer-Encoding outside HTTP/1.1 and an HTTP/1.1 request without Host. A chunked body is held to
the body limit by its decoded bytes, and its framing to a limit of its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from waitress.parser import HTTPRequestParser, ParsingError
from waitress.utilities import BadRequest, RequestEntityTooLarge

FRAMING_BYTES = 64 * 1024  # the least a chunked body's framing may take, whatever the body limit


class FramingTooLarge(RequestEntityTooLarge):
    """A chunked body whose framing (chunk sizes and extensions, line ends, trailers) takes more bytes
    than it may: the body is measured decoded, and the framing has a limit of its own."""


def framing_limit(body_limit: int) -> int:
    """The most bytes a chunked body's framing may take: as many as the body, and 64 KiB at least."""
    return max(body_limit, FRAMING_BYTES)


_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]"  # a method's characters (RFC 9110's token)
_METHOD = re.compile(_TOKEN + rb"*")  # what a request line begins with, before its space
# As waitress reads it, which also takes a line without a version. HTTP/0.9's, sent without headers,
# would wait unanswered for a blank line that never comes: it is refused once the line has ended.
_REQUEST_LINE = re.compile(_TOKEN + rb"+ [^ ]+(?P<version> HTTP/[0-9]\.[0-9])?")
LOOK_BYTES = 8192  # of a chunk, looked at for the request line: not a large body sent with it
# A line end that is not CRLF: an LF without its CR, or a CR that something other than an LF follows
# (one at the end of what has come may yet get its LF).
_BARE_LINE_END = re.compile(rb"(?<!\r)\n|\r(?=[^\n])")
_BARE_CR = re.compile(rb"\r(?=[^\n])")
HEAD_END = b"\r\n\r\n"
INVALID_START = "Start line is invalid"
BARE_LF = "lines must end with CRLF"
NO_VERSION = "the request line must end with an HTTP version (HTTP/0.9 is not served)"
NO_HOST = "an HTTP/1.1 request must have a Host header"
CHUNKED_TWICE = "chunked may be applied to a body only once"
_TRANSFER_ENCODING = re.compile(rb"^transfer-encoding:(.*)$", re.IGNORECASE | re.MULTILINE)


def _chunked_twice(head: bytes) -> bool:
    """Whether the Transfer-Encoding lines of a head, read as one list, name chunked more than once."""
    codings = [
        c.strip(b" \t\r").lower() for line in _TRANSFER_ENCODING.findall(head) for c in line.split(b",")
    ]
    return codings.count(b"chunked") > 1


def not_a_request(head: bytes) -> str | None:
    """Why the bytes received so far of a request's head (without the blank lines that may come
    before it) cannot begin an HTTP request, as soon as that shows; None while they still can.
    Waitress only looks once the head has ended, and a client that is not speaking HTTP (a TLS
    handshake, an SSH banner) or ends its lines with a bare LF never sends that end: it would wait,
    unanswered, until the connection timed out."""
    method = _METHOD.match(head)
    assert method is not None  # the pattern matches the empty start of anything
    if method.end() < len(head) and head[method.end()] != ord(" "):
        return INVALID_START
    line_end = head.find(b"\n")
    if line_end < 0:
        return BARE_LF if _BARE_CR.search(head) else None
    if head[line_end - 1 : line_end] != b"\r" or has_bare_line_end(head, line_end + 1):
        return BARE_LF
    line = _REQUEST_LINE.fullmatch(head[:line_end].rstrip())
    if line is None:
        return INVALID_START
    return None if line["version"] else NO_VERSION


def has_bare_line_end(head: bytes, start: int) -> bool:
    """Whether a line of a head ends in a bare LF (or a bare CR) at or after `start`, up to the blank
    line that ends the head (a body after it may hold any bytes). What comes before `start` has been
    looked at, and is there for a CRLF, or the head's end, that began in it: a CR just before `start`
    is judged now, by what follows it."""
    end = head.find(HEAD_END, max(start - len(HEAD_END) + 1, 0))
    stop = len(head) if end < 0 else end + len(HEAD_END)
    return _BARE_LINE_END.search(head, max(start - 1, 0), stop) is not None


class Parser(HTTPRequestParser):
    """Waitress's parser, refusing a head at once when it cannot be an HTTP request's, and holding a
    chunked body to the body limit by its decoded bytes."""

    request_line_read = False  # once it is, only the ends of the header lines are looked at
    # The method as the client sent it, once seen: waitress parses a head it refuses unread (one too
    # large, or one refused here) as `GET /`, and the answer to HEAD must still have no content.
    method_sent = ""
    close_after = False  # whether the connection closes once the request is answered
    wire_bytes = 0  # of a chunked body: its bytes as sent, framing included
    raw_body_bytes = 0  # of another body: what waitress counts

    # Waitress adds each read of a body to `body_bytes_received` and refuses the body once that
    # reaches the limit. Counted as sent, a chunked body's framing would count against the limit
    # too (16-byte chunks add 37%): the limit is the decoded body's, and the framing has its own.
    @property
    def body_bytes_received(self) -> int:
        """The body's bytes received so far, a chunked body's decoded."""
        if self.chunked and self.body_rcv is not None:
            return len(self.body_rcv)
        return self.raw_body_bytes

    @body_bytes_received.setter
    def body_bytes_received(self, count: int) -> None:
        self.raw_body_bytes = count

    def received(self, data: bytes) -> int:
        if self.body_rcv is None and not self.completed:
            problem = self.head_problem(data)
            if problem is not None:
                self.parse_header(b"GET / HTTP/1.0\r\n")  # as waitress does for a head too large
                self.error = BadRequest(problem)
                self.completed = True
                return len(data)
        chunked_body = self.chunked and self.body_rcv is not None and not self.completed
        consumed: int = super().received(data)
        if chunked_body:
            self.wire_bytes += consumed
            limit = framing_limit(self.adj.max_request_body_size - 1)
            if self.error is None and self.wire_bytes - self.body_bytes_received > limit:
                self.error = FramingTooLarge(f"exceeds the framing limit of {limit}")
                self.completed = True
            elif self.error is None and not self.completed and self.declared_too_large():
                # A chunk whose declared size takes the body past the limit: refused now, not once
                # its bytes have come.
                self.error = RequestEntityTooLarge(f"exceeds max_body of {self.adj.max_request_body_size}")
                self.completed = True
        if self.completed:
            # Received whole (a request without a body, or one refused): there is nothing left to
            # send, so no 100 Continue. Waitress sends one for any request still expecting it, and
            # then marks the request not completed, so that it waits for a body that never comes and
            # parses the connection's next request into this one, headers and all.
            self.expect_continue = False
        return consumed

    def declared_too_large(self) -> bool:
        """Whether the chunk being received, by its declared size, takes the body to the limit."""
        remainder: int = getattr(self.body_rcv, "chunk_remainder", 0)
        return self.body_bytes_received + remainder >= self.adj.max_request_body_size

    def parse_header(self, header_plus: bytes) -> None:
        """Parse the head as waitress does, and also: close after answering a request that says
        `close` among other Connection options (waitress looks for `close` alone), or that has
        both Transfer-Encoding and Content-Length, as RFC 9112 asks; and refuse Transfer-Encoding
        in a request that is not HTTP/1.1, as waitress reads only Content-Length there, and would
        take a chunked body for the connection's next request; and refuse an HTTP/1.1 request
        without Host, as RFC 9112 asks; and refuse chunked applied twice, which RFC 9112 forbids
        (waitress reads it as once), and a version other than HTTP/1.0 and 1.1 (waitress answers
        HTTP/2.0 and 1.2 as 1.0)."""
        # Looked for before waitress takes the header out of what it hands over.
        chunked_twice = header_plus.lower().count(b"chunked") > 1 and _chunked_twice(header_plus)
        super().parse_header(header_plus)
        headers: Mapping[str, str] = self.headers
        if self.version not in ("1.0", "1.1"):
            raise ParsingError(f"HTTP/{self.version} is not served: send HTTP/1.1 or HTTP/1.0")
        if chunked_twice:
            raise ParsingError(CHUNKED_TWICE)
        if self.version != "1.1" and "TRANSFER_ENCODING" in headers:
            raise ParsingError("Transfer-Encoding is only allowed in HTTP/1.1")
        if self.version == "1.1" and "HOST" not in headers:
            raise ParsingError(NO_HOST)
        options = {option.strip(" \t").lower() for option in headers.get("CONNECTION", "").split(",")}
        self.close_after = "close" in options or (self.chunked and "CONTENT_LENGTH" in headers)

    def head_problem(self, data: bytes) -> str | None:
        """Why the head cannot be a request's, now that `data` has come, or None: the request line
        is looked at as it comes, then only the new bytes, for a line ending in a bare LF or CR."""
        if self.request_line_read:
            seen = self.header_plus[-len(HEAD_END) :]  # the head so far: no end in it yet
            return BARE_LF if has_bare_line_end(seen + data, len(seen)) else None
        look = data[:LOOK_BYTES]
        head = (self.header_plus + look).lstrip()  # blank lines before it are allowed
        if not self.method_sent:
            method, space, _ = head.partition(b" ")
            self.method_sent = method.decode("latin-1") if space else ""
        problem = not_a_request(head)
        self.request_line_read = problem is None and b"\n" in head
        if self.request_line_read and len(data) > len(look) and HEAD_END not in head:
            return BARE_LF if has_bare_line_end(data, len(look)) else None  # the rest of a long read
        return problem
