"""The `mocksrv` command."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from mocksrv import __version__
from mocksrv.server import serve
from mocksrv.settings import SettingsError, load_settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mocksrv", description="A stateful payments API sandbox.")
    parser.add_argument("--version", action="version", version=f"mocksrv {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("serve", help="serve the sandbox until interrupted")
    run.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    run.add_argument("--port", type=int, help="port to listen on (default 8080; 0 picks a free one)")
    run.add_argument("--fixtures", type=Path, help="directory of fixture files (default: fixtures/)")
    run.add_argument("--config", type=Path, help="YAML file of settings")
    run.add_argument("--environment", choices=["sandbox", "production"])
    run.add_argument("--rate-limit", type=int, help="requests per minute per key; 0 turns it off")
    run.add_argument("--admin-key", help="the control plane's admin key")
    run.add_argument("--public-url", help="the address that links and pages name")
    run.add_argument("--webhook-url", help="where the default merchant's webhooks go")
    run.add_argument("--webhook-timeout", type=float, help="seconds a receiver has to answer (default 5)")
    run.add_argument("--threads", type=int, help="worker threads (default 8)")
    run.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    overrides = {
        name: getattr(args, name)
        for name in (
            "host",
            "port",
            "fixtures",
            "environment",
            "rate_limit",
            "admin_key",
            "public_url",
            "webhook_url",
            "webhook_timeout",
            "threads",
            "log_level",
        )
    }
    try:
        settings = load_settings(args.config, overrides=overrides)
    except SettingsError as error:
        print(f"mocksrv: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        serve(settings)
    except (SettingsError, OSError) as error:
        print(f"mocksrv: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
