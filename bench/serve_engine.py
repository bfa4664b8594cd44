"""Serve the mocksrv app or the bare app on one engine, for bench.py: waitress or gunicorn gthread."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("app", choices=["mocksrv", "bare"])
    parser.add_argument("engine", choices=["waitress", "gunicorn"])
    parser.add_argument("port", type=int)
    args = parser.parse_args()
    threads = int(os.environ.get("MOCKSRV_THREADS", "8"))
    if args.app == "bare":
        from bare_app import app
    else:
        from mocksrv.app import create_app
        from mocksrv.settings import load_settings

        app = create_app(load_settings())
    if args.engine == "waitress":
        # Both apps run on waitress with mocksrv's worker pool, as `mocksrv serve` does.
        from waitress.server import create_server

        from mocksrv.workerpool import WorkerPool

        pool = WorkerPool(threads)
        create_server(app, host="127.0.0.1", port=args.port, ident="bench", _dispatcher=pool).run()
    else:
        from gunicorn.app.base import BaseApplication

        class Gunicorn(BaseApplication):  # type: ignore[misc]
            def load_config(self) -> None:
                self.cfg.set("bind", f"127.0.0.1:{args.port}")
                self.cfg.set("workers", 1)
                self.cfg.set("worker_class", "gthread")
                self.cfg.set("threads", threads)
                self.cfg.set("keepalive", 30)
                self.cfg.set("loglevel", "warning")

            def load(self) -> object:
                return app

        Gunicorn().run()


if __name__ == "__main__":
    main()
