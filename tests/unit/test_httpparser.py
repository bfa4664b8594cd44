"""The HTTP server's parser, fed a request's bytes as reads split them: the refusals it makes before
waitress would see the end of the head, and what it takes from waitress's parser."""

from __future__ import annotations

import itertools

import pytest
from waitress.adjustments import Adjustments

from mocksrv.serving.httpparser import CHUNKED_TWICE, NO_HOST, NO_VERSION, Parser

HEAD = b"POST /payments HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"


def fed(*reads: bytes) -> Parser:
    """A parser given `reads` one after the other, each taken until it is used up or the request ends."""
    parser = Parser(Adjustments())
    for read in reads:
        while read and not parser.completed:
            read = read[parser.received(read) :]
    return parser


def split(data: bytes, *at: int) -> list[bytes]:
    bounds = [0, *at, len(data)]
    return [data[start:end] for start, end in itertools.pairwise(bounds)]


def refusal(parser: Parser) -> str | None:
    return None if parser.error is None else str(parser.error.body)


@pytest.mark.parametrize("at", [(), (5,), (28,), (29,), (30,), (28, 29, 30)])
def test_a_header_line_ending_in_a_bare_lf_is_refused_however_the_reads_split_it(
    at: tuple[int, ...],
) -> None:
    parser = fed(*split(b"GET /health HTTP/1.1\r\nHost: x\r\nX-A: b\n", *at))

    assert (parser.completed, refusal(parser)) == (True, "lines must end with CRLF")


@pytest.mark.parametrize("at", [(), (len(HEAD) - 1,), (len(HEAD) - 2,), (len(HEAD) - 3,), (len(HEAD),)])
def test_a_body_holding_bare_lfs_is_taken_however_the_reads_split_the_head_from_it(
    at: tuple[int, ...],
) -> None:
    parser = fed(*split(HEAD + b"a\nb\nc", *at))

    assert (parser.completed, refusal(parser)) == (True, None)
    assert parser.get_body_stream().read() == b"a\nb\nc"


def test_blank_lines_before_the_request_line_are_allowed() -> None:
    parser = fed(b"\n\r\n", b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")

    assert (parser.completed, refusal(parser), parser.path) == (True, None, "/health")


def test_a_bare_lf_past_the_part_of_a_long_read_looked_at_for_the_request_line_is_refused() -> None:
    padding = b"X-Padding: " + b"a" * 9000 + b"\r\n"

    parser = fed(b"GET /health HTTP/1.1\r\n" + padding + b"X-A: b\n")

    assert (parser.completed, refusal(parser)) == (True, "lines must end with CRLF")


CHUNKED_HEAD = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"


def chunks_of_one_byte(body: bytes) -> bytes:
    return b"".join(b"1\r\n%c\r\n" % byte for byte in body) + b"0\r\n\r\n"


@pytest.mark.parametrize(("length", "refused"), [(1000, None), (1001, "exceeds max_body of 1001")])
def test_a_chunked_body_is_held_to_the_limit_by_its_decoded_bytes(length: int, refused: str | None) -> None:
    """This pins waitress's use of `body_bytes_received` (its count of a body's bytes, which the
    parser gives as a chunked body's decoded): with it gone, 1,000 bytes in chunks of one byte,
    6,005 bytes sent, would be refused."""
    parser = Parser(Adjustments(max_request_body_size=1001))  # as the server has it, for 1,000 bytes
    read = CHUNKED_HEAD + chunks_of_one_byte(b"x" * length)
    while read and not parser.completed:
        read = read[parser.received(read) :]

    assert (parser.completed, refusal(parser)) == (True, refused)


@pytest.mark.parametrize("at", [(), (12,), (13,), (14,), (29,), (30,), (31,), (13, 14, 30)])
def test_a_line_ending_in_a_bare_cr_is_refused_however_the_reads_split_it(at: tuple[int, ...]) -> None:
    parser = fed(*split(b"GET /health HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n", *at))

    assert (parser.completed, refusal(parser)) == (True, "lines must end with CRLF")


@pytest.mark.parametrize("at", [(), (20,), (21,), (22,)])
def test_a_request_line_ending_in_a_bare_cr_is_refused_however_the_reads_split_it(
    at: tuple[int, ...],
) -> None:
    parser = fed(*split(b"GET /health HTTP/1.1\rHost: x\r\r", *at))

    assert (parser.completed, refusal(parser)) == (True, "lines must end with CRLF")


@pytest.mark.parametrize("at", [(), (20,), (21,), (31,), (32,), (33,), (34,)])
def test_crlf_split_by_the_reads_is_taken(at: tuple[int, ...]) -> None:
    parser = fed(*split(b"GET /health HTTP/1.1\r\nHost: x\r\nX-A: b\r\n\r\n", *at))

    assert (parser.completed, refusal(parser), parser.path) == (True, None, "/health")


def test_a_chunk_declared_past_the_limit_is_refused_before_its_bytes_come() -> None:
    parser = Parser(Adjustments(max_request_body_size=1001))
    for read in (CHUNKED_HEAD, b"3e8\r\n" + b"x" * 1000 + b"\r\n", b"1\r\n"):
        parser.received(read)

    assert (parser.completed, refusal(parser)) == (True, "exceeds max_body of 1001")
    assert len(parser.body_rcv) == 1000  # the declared chunk's bytes never came


@pytest.mark.parametrize("at", [(), (4,), (11,), (12,)])
def test_a_request_line_without_a_version_is_refused_once_it_ends(at: tuple[int, ...]) -> None:
    parser = fed(*split(b"GET /health\r\n", *at))

    assert (parser.completed, refusal(parser)) == (True, NO_VERSION)


@pytest.mark.parametrize(
    ("head", "refused"),
    [
        (b"GET /health HTTP/1.1\r\n\r\n", NO_HOST),
        (b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", None),
        (b"GET /health HTTP/1.0\r\n\r\n", None),
    ],
    ids=["1.1-without", "1.1-with", "1.0-without"],
)
def test_an_http_1_1_request_without_host_is_refused(head: bytes, refused: str | None) -> None:
    parser = fed(head)

    assert (parser.completed, refusal(parser)) == (True, refused)


@pytest.mark.parametrize(
    ("encodings", "refused"),
    [
        (b"Transfer-Encoding: chunked, chunked\r\n", CHUNKED_TWICE),
        (b"Transfer-Encoding: chunked\r\nTransfer-Encoding: CHUNKED\r\n", CHUNKED_TWICE),
        (b"Transfer-Encoding: chunked\r\nX-Note: chunked\r\n", None),
        (b"Transfer-Encoding: chunked\r\n", None),
    ],
    ids=["one-line", "two-lines", "named-elsewhere", "once"],
)
def test_chunked_applied_twice_is_refused(encodings: bytes, refused: str | None) -> None:
    parser = fed(b"POST /payments HTTP/1.1\r\nHost: x\r\n" + encodings + b"\r\n0\r\n\r\n")

    assert (parser.completed, refusal(parser)) == (True, refused)


@pytest.mark.parametrize("version", [b"2.0", b"1.2", b"0.9", b"3.0"])
def test_a_version_other_than_1_0_and_1_1_is_refused(version: bytes) -> None:
    parser = fed(b"GET /health HTTP/" + version + b"\r\nHost: x\r\n\r\n")

    refused = f"HTTP/{version.decode()} is not served: send HTTP/1.1 or HTTP/1.0"
    assert (parser.completed, refusal(parser)) == (True, refused)
