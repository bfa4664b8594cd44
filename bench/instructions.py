"""Instructions per one-step create, counted by valgrind's callgrind: a figure the machine's drift spares.

    python bench/instructions.py [--creates 500] [--journal-size 1000] [--bare]

The app is called through WSGI in one thread, with no server, the access log at info (written to
/dev/null) and the rate limit out of the way. The process runs twice under callgrind, making 100
creates and then 100 + `--creates`; the difference of the two totals, divided by `--creates`, is
what one create costs, start-up and warm-up left out. About a minute per run. `--bare` counts the
bare Flask app of bench/bare_app.py instead. Needs valgrind (Debian's `valgrind` package).
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness import CREATE, KEY

WARM_UP = 100


def app(bare: bool, journal_size: int) -> Any:
    if bare:
        from bare_app import app as bare_app

        return bare_app
    from mocksrv.app import create_app, create_sandbox
    from mocksrv.settings import Settings

    settings = Settings(rate_limit=10**9, journal_size=journal_size)
    return create_app(settings, create_sandbox(settings))


def make_creates(wsgi: Any, count: int) -> None:
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/payments",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8080",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1:8080",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(CREATE)),
        "HTTP_API_KEY": KEY,
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    statuses: list[str] = []
    for _ in range(count):
        b"".join(wsgi({**environ, "wsgi.input": io.BytesIO(CREATE)}, lambda s, h, e=None: statuses.append(s)))
    if any(not status.startswith("200") for status in statuses):
        raise SystemExit(f"not every create answered 200: {sorted(set(statuses))}")


def counted(count: int, args: argparse.Namespace) -> int:
    """The instructions of a whole run that makes `count` creates, under callgrind."""
    command = [sys.executable, __file__, "--run", str(count), "--journal-size", str(args.journal_size)]
    command += ["--bare"] if args.bare else []
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run(valgrind + command, capture_output=True, text=True, check=True, timeout=600)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no total:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--creates", type=int, default=500, help="creates counted (default 500)")
    parser.add_argument("--journal-size", type=int, default=1000, help="the request journal's size; 0 is off")
    parser.add_argument("--bare", action="store_true", help="count the bare Flask app instead")
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)  # the process callgrind runs
    args = parser.parse_args()
    if args.run is not None:
        logging.basicConfig(level=logging.INFO, stream=open(os.devnull, "w"))  # noqa: SIM115
        make_creates(app(args.bare, args.journal_size), args.run)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian's valgrind package)")
    if args.creates < 1:
        parser.error("--creates must be at least 1")
    per_create = (counted(WARM_UP + args.creates, args) - counted(WARM_UP, args)) / args.creates
    subject = "bare Flask request" if args.bare else f"create (journal size {args.journal_size})"
    print(f"instructions per {subject}: {per_create:,.0f} ({Path(__file__).name}, {args.creates} counted)")


if __name__ == "__main__":
    main()
