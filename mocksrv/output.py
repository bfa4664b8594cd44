"""What a command prints, until whatever reads it goes away (`| head`): the command goes on, and its
files and exit code are as if all had been read. And what `serve` says, and does, when a signal stops
it before it serves."""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Callable, Mapping
from contextlib import suppress
from types import FrameType
from typing import Any, NoReturn, TextIO

INTERRUPTED = 130  # the exit code of a command that SIGINT ended, as a shell reports it
STOPPED_BEFORE_SERVING = "mocksrv: stopped before it served"  # SIGINT or SIGTERM while `serve` starts


class Lines:
    """A stream to print lines on, dropped once its reader has gone."""

    def __init__(self, out: TextIO) -> None:
        self._out: TextIO | None = out

    def say(self, text: str) -> None:
        if self._out is None:
            return
        try:
            print(text, file=self._out, flush=True)
        except BrokenPipeError:
            # So that the interpreter's own last flush, at exit, has nowhere to fail either.
            with suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), self._out.fileno())
            self._out = None


def flush_logs() -> None:
    """Write the log lines made so far now, before a line of the command's own that comes after them."""
    for handler in logging.getLogger().handlers:
        with suppress(Exception):
            handler.flush()


def stop_before_serving(signum: int, frame: FrameType | None) -> NoReturn:
    """SIGINT or SIGTERM while `serve` starts: say so and end now, exit 0, the state file as it
    was. Not by an exception: one raised from a signal handler can be lost in an import, and the
    start go on. The log lines already made are written first."""
    flush_logs()
    with suppress(OSError):
        os.write(2, f"{STOPPED_BEFORE_SERVING}\n".encode())
    os._exit(0)


# What a command's SIGINT and SIGTERM are once it no longer starts: Python's own.
_DEFAULT_HANDLERS: dict[signal.Signals, Callable[[int, FrameType | None], Any] | int] = {
    signal.SIGINT: signal.default_int_handler,
    signal.SIGTERM: signal.SIG_DFL,
}


def put_back_handlers(
    previous: Mapping[signal.Signals, Callable[[int, FrameType | None], Any] | int | None],
) -> None:
    """Put back the signal handlers a command replaced; where one was `stop_before_serving`,
    Python's own, since what it says is no longer true."""
    for number, handler in previous.items():
        signal.signal(number, _DEFAULT_HANDLERS[number] if handler is stop_before_serving else handler)
