"""The log writer of `mocksrv serve`: its lines, its cached time, and the logging flags it sets."""

from __future__ import annotations

import io
import logging
import time

import pytest

from mocksrv.serving import logwriter


def record(created: float, message: str = "hello") -> logging.LogRecord:
    made = logging.LogRecord("mocksrv.access", logging.INFO, __file__, 1, message, None, None)
    made.created, made.msecs = created, (created - int(created)) * 1000
    return made


def test_the_cached_time_is_the_standard_formatters_time() -> None:
    cached, standard = logwriter._Formatter(logwriter.LOG_FORMAT), logging.Formatter(logwriter.LOG_FORMAT)
    for created in (1_700_000_000.0, 1_700_000_000.25, 1_700_000_000.999, 1_700_000_001.5, 1_699_999_999.0):
        assert cached.format(record(created)) == standard.format(record(created))


def test_lines_written_in_order_when_the_writer_closes() -> None:
    stream = io.StringIO()
    writer = logwriter.BatchedWriter(stream, interval=60)
    writer.setFormatter(logging.Formatter("%(message)s"))
    writer.start()
    for number in range(3):
        assert writer.handle(record(time.time(), f"line {number}")) is True
    writer.close()
    assert stream.getvalue() == "line 0\nline 1\nline 2\n"


def test_a_filtered_record_is_not_written() -> None:
    stream = io.StringIO()
    writer = logwriter.BatchedWriter(stream, interval=60)
    writer.addFilter(lambda made: made.getMessage() != "hidden")
    assert writer.handle(record(time.time(), "hidden")) is False
    assert writer.handle(record(time.time(), "shown")) is True
    writer.close()
    assert stream.getvalue() == "shown\n"


def test_records_skip_the_caller_lookup_while_the_writer_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """`logging._srcfile = None` is the HOWTO's switch for the caller lookup; this pins that it works."""
    monkeypatch.setattr("sys.stderr", io.StringIO())
    logger = logging.getLogger("mocksrv.test_log_writer")
    made: list[logging.LogRecord] = []
    logger.addFilter(lambda rec: made.append(rec) or True)  # type: ignore[func-returns-value]
    logger.warning("before")
    with logwriter.log_writer(logging.INFO):
        logger.warning("during")
    logger.warning("after")
    assert [(rec.getMessage(), rec.funcName) for rec in made] == [
        ("before", "test_records_skip_the_caller_lookup_while_the_writer_runs"),
        ("during", "(unknown function)"),
        ("after", "test_records_skip_the_caller_lookup_while_the_writer_runs"),
    ]
