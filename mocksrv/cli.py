"""The `mocksrv` command: `serve` the sandbox, `wait` until one answers, run QA `scenario` files, or
`trigger` an event on a running server."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import NoReturn, TypeGuard

from mocksrv import __version__
from mocksrv.output import INTERRUPTED, put_back_handlers, stop_before_serving
from mocksrv.serving.logwriter import log_writer
from mocksrv.settings import (
    DEFAULT_ADMIN_KEY,
    DEFAULT_URL,
    SETTINGS,
    URL_VARIABLE,
    VARIABLE_PREFIX,
    Setting,
    Settings,
    SettingsError,
    flag_source,
    load_settings,
    variable_source,
)
from mocksrv.values import http_url, number

DEFAULT_WAIT_TIMEOUT = 30.0  # seconds
POLL_INTERVAL = 0.1  # seconds between two looks at /health
POLL_REQUEST_TIMEOUT = 1.0  # seconds one look may take
MIN_POLL_REQUEST_TIMEOUT = 0.05  # seconds one look may take when the deadline is nearer
ADMIN_KEY_VARIABLE = f"{VARIABLE_PREFIX}ADMIN_KEY"
DEFAULT_SCENARIOS = "scenarios"
TRIGGER_TIMEOUT = 30.0  # seconds for each request of `mocksrv trigger`

_wait_timeout = number(0, inclusive=True, reason="not a number of seconds of 0 or more")


def _shown_default(setting: Setting) -> str:
    if setting.default is None:
        return "unset by default"
    if isinstance(setting.default, float):
        return f"default {setting.default:g}"
    return f"default {setting.default}"


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose refusal is one line, as every other refusal of the command is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"mocksrv: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="mocksrv", description="A stateful payments API sandbox.")
    parser.add_argument("--version", action="version", version=f"mocksrv {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("serve", help="serve the sandbox until interrupted")
    run.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="YAML file of settings, `name: value` each (no env variable, none by default)",
    )
    for setting in SETTINGS:
        run.add_argument(
            setting.flag,
            dest=setting.name,
            metavar=setting.name.upper(),
            help=f"{setting.help} (env {setting.variable}, {_shown_default(setting)})".replace("%", "%%"),
        )
    wait = commands.add_parser("wait", help="wait until a server answers GET /health")
    wait.add_argument("--url", help=f"the server's address (env {URL_VARIABLE}, default {DEFAULT_URL})")
    wait.add_argument("--timeout", help=f"seconds to wait at most (default {DEFAULT_WAIT_TIMEOUT:g})")
    openapi = commands.add_parser("openapi", help="print the OpenAPI document that GET /openapi.json serves")
    openapi.add_argument("--output", type=Path, metavar="FILE", help="write it to FILE instead")
    _scenario_parser(commands.add_parser("scenario", help="run, check or list QA scenario files"))
    trigger = commands.add_parser(
        "trigger", help="make an event happen on a running server, and print the ids of what it made"
    )
    trigger.add_argument("event_type", metavar="EVENT_TYPE", help="e.g. payment_succeeded, dispute_lost")
    trigger.add_argument("--url", help=f"the server's address (env {URL_VARIABLE}, default {DEFAULT_URL})")
    trigger.add_argument("--admin-key", help=_ADMIN_KEY_HELP)
    trigger.add_argument(
        "--merchant",
        metavar="MERCHANT_ID",
        default="merchant_default",
        help="the merchant whose objects it makes (default merchant_default)",
    )
    trigger.add_argument("--webhook-url", metavar="URL", help="send the merchant's webhooks here first")
    return parser


_ADMIN_KEY_HELP = f"the server's admin key (env {ADMIN_KEY_VARIABLE}, default {DEFAULT_ADMIN_KEY})"


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return int(text)


def _scenario_parser(scenario: argparse.ArgumentParser) -> None:
    actions = scenario.add_subparsers(dest="scenario_command", required=True, metavar="{run,validate,list}")
    paths_help = f"scenario files, or directories searched for *.yaml and *.yml (default {DEFAULT_SCENARIOS})"
    run = actions.add_parser(
        "run",
        help="run scenarios, each in a fresh merchant",
        description="Run scenarios, each in a fresh merchant: against an embedded server (webhook "
        "timeout 1 s), or the one at --url. Exit 0 if all pass, 1 if any fails, 2 if a file is invalid.",
    )
    run.add_argument("paths", nargs="*", metavar="PATH", help=paths_help)
    run.add_argument("--url", help="run against the mocksrv at URL (default: one embedded in this process)")
    run.add_argument("--admin-key", help=_ADMIN_KEY_HELP)
    run.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report to FILE")
    run.add_argument(
        "-k",
        dest="keyword",
        metavar="EXPR",
        help="only scenarios whose name, file or a tag contains the words: 'cards and not slow'",
    )
    run.add_argument("--jobs", type=_jobs, default=1, metavar="N", help="scenarios run at once (default 1)")
    validate = actions.add_parser("validate", help="check scenario files, listing every problem")
    validate.add_argument("paths", nargs="*", metavar="PATH", help=paths_help)
    listing = actions.add_parser("list", help="list scenarios: name, tags, file, description")
    listing.add_argument("paths", nargs="*", metavar="PATH", help=paths_help)


def _openapi(args: argparse.Namespace) -> int:
    """Print the document of the app on its embedded defaults, as `mocksrv serve` would serve it."""
    from mocksrv.app import create_app
    from mocksrv.contract.document import document

    text = json.dumps(document(create_app()), indent=2) + "\n"
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        args.output.write_text(text)
    except OSError as error:
        print(f"mocksrv: cannot write {args.output}: {error.strerror}", file=sys.stderr)
        return 1
    return 0


def _serve(args: argparse.Namespace) -> int:
    try:
        settings = load_settings(
            args.config, overrides={setting.name: getattr(args, setting.name) for setting in SETTINGS}
        )
    except SettingsError as error:
        print(f"mocksrv: {error}", file=sys.stderr)
        return 2
    level = logging.getLevelNamesMapping()[settings.log_level.upper()]
    # debug is for mocksrv's own loggers; the libraries' say too much below info (waitress, below warning).
    logging.getLogger("mocksrv").setLevel(level)
    logging.getLogger("waitress").setLevel(max(level, logging.WARNING))
    # SIGINT or SIGTERM before the server serves (its imports, a large state file's load) stops the
    # start: nothing is written, and the state file is left as it was. The server's own handlers
    # take over once it serves; once it has stopped, the ones before are back (Python's defaults
    # where those were the launcher's `stop_before_serving`).
    handlers = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.signal(number, stop_before_serving) for number in handlers}
    try:
        return _serve_with(settings, level)
    finally:
        put_back_handlers(previous)


def _serve_with(settings: Settings, level: int) -> int:
    # The server's imports take most of a start; `wait` and a bad setting do without them.
    from mocksrv.server import serve
    from mocksrv.serving.httpserver import ListenError
    from mocksrv.serving.statefile import StateNotWritten

    try:
        with log_writer(max(level, logging.INFO)):
            serve(settings)
    except SettingsError as error:  # a fixture file, a state file
        print(f"mocksrv: {error}", file=sys.stderr)
        return 2
    except (ListenError, StateNotWritten) as error:
        print(f"mocksrv: {error}", file=sys.stderr)
        return 1
    return 0


def _wait_target(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[str, float]:
    """The URL and timeout of `mocksrv wait`; a bad one raises SettingsError naming its source."""
    if args.url is not None:
        url, source = args.url, flag_source("--url", args.url)
    else:
        url = environ.get(URL_VARIABLE) or DEFAULT_URL
        source = variable_source(URL_VARIABLE, url)
    try:
        url = http_url(url)
    except ValueError as error:
        raise SettingsError(f"{source}: {error}") from None
    if args.timeout is None:
        return url, DEFAULT_WAIT_TIMEOUT
    try:
        return url, _wait_timeout(args.timeout)
    except ValueError as error:
        raise SettingsError(f"{flag_source('--timeout', args.timeout)}: {error}") from None


def wait_until_up(url: str, timeout: float) -> bool:
    """Look at GET `url`/health until mocksrv answers it, for at most `timeout` seconds.

    200 (with a key) or 401 (without one, as here) is mocksrv's answer; anything else is not.
    """
    import requests  # here, not at the top: `mocksrv serve` starts without it

    deadline = time.monotonic() + timeout
    health = url.rstrip("/") + "/health"
    with requests.Session() as session:
        while True:
            look_timeout = max(
                min(POLL_REQUEST_TIMEOUT, deadline - time.monotonic()), MIN_POLL_REQUEST_TIMEOUT
            )
            try:
                if session.get(health, timeout=look_timeout, allow_redirects=False).status_code in (200, 401):
                    return True
            except requests.RequestException:
                pass
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(POLL_INTERVAL, remaining))


def _wait(args: argparse.Namespace) -> int:
    try:
        url, timeout = _wait_target(args, os.environ)
    except SettingsError as error:
        print(f"mocksrv: {error}", file=sys.stderr)
        return 2
    try:
        up = wait_until_up(url, timeout)
    except KeyboardInterrupt:
        print("mocksrv wait: interrupted", file=sys.stderr)
        return INTERRUPTED
    if not up:
        print(f"mocksrv wait: {url} is not up after {timeout:g} s", file=sys.stderr)
        return 1
    print(f"mocksrv wait: {url} is up", flush=True)
    return 0


def _admin_key(args: argparse.Namespace, environ: Mapping[str, str]) -> str:
    given: str | None = args.admin_key
    return given or environ.get(ADMIN_KEY_VARIABLE) or DEFAULT_ADMIN_KEY


def _checked_url(url: str, source: str) -> str:
    try:
        return http_url(url)
    except ValueError as error:
        raise SettingsError(f"{source}: {error}") from None


def _scenario(args: argparse.Namespace) -> int:
    # The scenario runner's imports (requests, jsonschema) are its own: `serve` starts without them.
    from mocksrv.scenario import commands

    paths = args.paths or [DEFAULT_SCENARIOS]
    if args.scenario_command == "validate":
        return commands.validate(paths, out=sys.stdout, err=sys.stderr)
    if args.scenario_command == "list":
        return commands.list_scenarios(paths, out=sys.stdout, err=sys.stderr)
    try:
        url = None if args.url is None else _checked_url(args.url, flag_source("--url", args.url))
    except SettingsError as error:
        print(f"mocksrv: {error}", file=sys.stderr)
        return 2
    return commands.run(
        paths,
        url=url,
        admin_key=_admin_key(args, os.environ),
        junit=args.junit,
        keyword=args.keyword,
        jobs=args.jobs,
        out=sys.stdout,
        err=sys.stderr,
    )


def _trigger(args: argparse.Namespace) -> int:
    """Make an event happen through the control plane; print its id and the id of every object made."""
    import requests

    from mocksrv.client import ControlPlaneError, Sandbox, unreachable

    try:
        if args.url is not None:
            url = _checked_url(args.url, flag_source("--url", args.url))
        else:
            url = os.environ.get(URL_VARIABLE) or DEFAULT_URL
            url = _checked_url(url, variable_source(URL_VARIABLE, url))
        webhook_url = None
        if args.webhook_url is not None:
            webhook_url = _checked_url(args.webhook_url, flag_source("--webhook-url", args.webhook_url))
    except SettingsError as error:
        print(f"mocksrv: {error}", file=sys.stderr)
        return 2
    with Sandbox(url, _admin_key(args, os.environ), timeout=TRIGGER_TIMEOUT) as sandbox:
        try:
            if webhook_url is not None:
                sandbox.set_webhook_url(webhook_url, args.merchant)
            triggered = sandbox.trigger(args.event_type, args.merchant)
        except ControlPlaneError as error:
            why = str(error)
            if not error.code:  # every refusal of a mocksrv names its code
                why = f"{url} is not a mocksrv: it answered {error.status}, not an error of mocksrv's"
            print(f"mocksrv trigger: {why}", file=sys.stderr)
            return 1
        except requests.JSONDecodeError:
            print(f"mocksrv trigger: {url} is not a mocksrv: its answer is not JSON", file=sys.stderr)
            return 1
        except requests.RequestException as error:
            print(f"mocksrv trigger: cannot reach {url}: {unreachable(error)}", file=sys.stderr)
            return 1
    objects = triggered.get("objects") if isinstance(triggered, dict) else None
    if (
        not isinstance(triggered, dict)
        or not isinstance(triggered.get("event_id"), str)
        or not _named(objects)
    ):
        print(f"mocksrv trigger: {url} is not a mocksrv: its answer names no event", file=sys.stderr)
        return 1
    lines = [f"event_id {triggered['event_id']}"]
    lines += [f"{name} {object_id}" for name, object_id in objects.items()]
    print("\n".join(lines), flush=True)
    return 0


def _named(objects: object) -> TypeGuard[dict[str, str]]:
    """Whether a trigger's answer names its objects as mocksrv does: by kind, each its id."""
    return isinstance(objects, dict) and all(isinstance(v, str) for v in objects.values())


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "wait":
        return _wait(args)
    if args.command == "openapi":
        return _openapi(args)
    if args.command == "scenario":
        return _scenario(args)
    if args.command == "trigger":
        return _trigger(args)
    return _serve(args)
