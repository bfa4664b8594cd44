"""Serve the mocksrv app or the bare app on one engine, for bench.py.

    python bench/serve_engine.py {mocksrv,bare} {waitress,gunicorn} PORT

Engines: `waitress`, as `mocksrv serve` runs it (mocksrv's HTTP server on waitress with its own
thread pool), and gunicorn gthread with one worker process; each with MOCKSRV_THREADS threads
(default 4, as `mocksrv serve`). The mocksrv app on `waitress` is `mocksrv serve` itself, on the C
allocator it starts itself on (mocksrv/launch.py). On gunicorn it is the same app on CPython's
allocator, logging as `mocksrv serve` does (an access-log line per request at the default level),
without the timer ticker and the webhook dispatcher. The bare app runs on CPython's allocator.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

ENGINES = ("waitress", "gunicorn")


def mocksrv_app(stack: ExitStack) -> Any:
    """The mocksrv app, with the logging of `mocksrv serve` on until `stack` closes."""
    from mocksrv.app import create_app
    from mocksrv.serving.logwriter import log_writer
    from mocksrv.settings import load_settings

    settings = load_settings()
    level = logging.getLevelNamesMapping()[settings.log_level.upper()]
    logging.getLogger("mocksrv").setLevel(level)
    logging.getLogger("waitress").setLevel(max(level, logging.WARNING))
    stack.enter_context(log_writer(max(level, logging.INFO)))
    return create_app(settings)


def bare_app(stack: ExitStack) -> Any:
    from bare_app import app

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("app", choices=["mocksrv", "bare"])
    parser.add_argument("engine", choices=ENGINES)
    parser.add_argument("port", type=int)
    args = parser.parse_args()
    threads = int(os.environ.get("MOCKSRV_THREADS", "4"))
    make_app = mocksrv_app if args.app == "mocksrv" else bare_app
    if args.engine == "gunicorn":
        from gunicorn.app.base import BaseApplication

        stack = ExitStack()

        class Gunicorn(BaseApplication):  # type: ignore[misc]
            def load_config(self) -> None:
                self.cfg.set("bind", f"127.0.0.1:{args.port}")
                self.cfg.set("workers", 1)
                self.cfg.set("worker_class", "gthread")
                self.cfg.set("threads", threads)
                self.cfg.set("keepalive", 30)
                self.cfg.set("loglevel", "warning")

            def load(self) -> object:
                # Called in the worker process, so the app's log writer thread runs there.
                return make_app(stack)

        Gunicorn().run()
        return
    if args.app == "mocksrv" and args.engine == "waitress":
        from harness import mocksrv_command

        command = mocksrv_command(args.port)
        os.execv(command[0], command)
    from mocksrv.serving.httpserver import HttpServer
    from mocksrv.settings import Settings

    with ExitStack() as stack:
        HttpServer(make_app(stack), Settings(threads=threads), args.port).run()


if __name__ == "__main__":
    main()
