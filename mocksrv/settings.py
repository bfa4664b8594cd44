"""One settings object: defaults, then a config file, then MOCKSRV_* variables, then flags.

Each field of `Settings` carries its parser and help text, so that the defaults, the flags, the
environment variables and the config file's keys all come from that one class.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import yaml

from mocksrv.domain.clock import LONGEST_SPAN_SECONDS
from mocksrv.values import (
    LARGEST_WHOLE,
    LONGEST_WAIT,
    Parse,
    directory,
    host_address,
    number,
    one_of,
    optional_http_url,
    text,
    whole_number,
)
from mocksrv.yamlfile import Loader, yaml_problem

# The default fixtures: inside a built package, mocksrv/defaults (copied from fixtures/ by setup.py);
# in a checkout or an editable install, the top-level fixtures/ itself, their one editable source.
_PACKAGE = Path(__file__).resolve().parent
DEFAULT_FIXTURES = _PACKAGE / "defaults" if (_PACKAGE / "defaults").is_dir() else _PACKAGE.parent / "fixtures"
VARIABLE_PREFIX = "MOCKSRV_"
URL_VARIABLE = "MOCKSRV_URL"  # the running server that `mocksrv wait` and the pytest plugin talk to
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
DEFAULT_URL = f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"
DEFAULT_ADMIN_KEY = "mocksrv_admin_key"
MAX_THREADS = 256
DEFAULT_THREADS = 4
ENVIRONMENTS = ("sandbox", "production")
LOG_LEVELS = ("debug", "info", "warning", "error")

Warn = Callable[[str], None]


class SettingsError(ValueError):
    """A setting has a value the server cannot start with."""


# -- the settings -------------------------------------------------------------------------------


def _about(parse: Parse, help_text: str) -> dict[str, Any]:
    """The metadata of a field of Settings: the parser and help text its flag, variable and key share."""
    return {"parse": parse, "help": help_text}


_PORT = whole_number(0, 65535, "not a port (0 to 65535)")
_SECONDS = number(
    0,
    inclusive=False,
    high=LONGEST_WAIT,
    reason=f"not a number of seconds greater than 0, at most {LONGEST_WAIT}",
)
_SEED = whole_number(0, LARGEST_WHOLE)
# A capture window that ends before the mock clock does (9000-01-01) from any time it reads now.
MAX_CAPTURE_WINDOW = LONGEST_SPAN_SECONDS
MAX_JOURNAL_SIZE = 1_000_000


def _optional_seed(value: object) -> int | None:
    return None if value is None else _SEED(value)


def _state_file(value: object) -> Path | None:
    """Parse the path of a file in an existing directory (the file itself need not exist yet)."""
    if value is None:
        return None
    if not isinstance(value, str | Path) or not str(value):
        raise ValueError("not a file path")
    path = Path(value)
    try:
        if path.is_dir() or not path.parent.is_dir():
            raise ValueError("not a file in an existing directory")
    except OSError as error:  # a directory that may not be searched
        raise ValueError(f"cannot look for it: {error.strerror or error}") from None
    return path


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything `mocksrv serve` can be told; each field carries its parser and help text."""

    host: str = field(
        default=DEFAULT_HOST,
        metadata=_about(host_address, "address to listen on"),
    )
    port: int = field(
        default=DEFAULT_PORT,
        metadata=_about(_PORT, "port to listen on; 0 picks a free one"),
    )
    fixtures: Path = field(
        default=DEFAULT_FIXTURES,
        metadata=_about(directory, "directory of the fixture files merchants.yaml and outcomes.yaml"),
    )
    environment: str = field(
        default="sandbox",
        metadata=_about(one_of(*ENVIRONMENTS), "sandbox or production: which keys are issued and accepted"),
    )
    rate_limit: int = field(
        default=6000,
        metadata=_about(
            whole_number(0, LARGEST_WHOLE), "requests per minute per API key; 0 turns limiting off"
        ),
    )
    journal_size: int = field(
        default=1000,
        metadata=_about(
            whole_number(0, MAX_JOURNAL_SIZE), "API requests the journal keeps per merchant; 0 turns it off"
        ),
    )
    capture_window_seconds: int = field(
        default=7 * 24 * 3600,
        metadata=_about(
            whole_number(1, MAX_CAPTURE_WINDOW), "seconds an authorized payment can still be captured"
        ),
    )
    max_body_bytes: int = field(
        default=1024 * 1024,
        metadata=_about(whole_number(1), "largest request body accepted, in bytes"),
    )
    admin_key: str = field(
        default=DEFAULT_ADMIN_KEY,
        metadata=_about(text, "the control plane's admin key"),
    )
    public_url: str | None = field(
        default=None,
        metadata=_about(
            optional_http_url, "the address that links and pages name, else the one each request was sent to"
        ),
    )
    max_header_bytes: int = field(
        default=64 * 1024,
        metadata=_about(whole_number(1024), "largest request line and headers accepted, in bytes"),
    )
    max_connections: int = field(
        default=2000,
        metadata=_about(whole_number(1), "client connections held open at once"),
    )
    connection_timeout: int = field(
        default=10,
        metadata=_about(
            whole_number(1, LONGEST_WAIT),
            "seconds a connection may sit idle, or take to send one whole request, before it is closed",
        ),
    )
    threads: int = field(
        # Requests are CPU-bound under one interpreter lock: measured under wrk on 2 cores, 4 threads
        # serve about 10% more creates per second than 8, which spend it passing the lock around.
        default=DEFAULT_THREADS,
        metadata=_about(whole_number(1, MAX_THREADS), "requests in progress at once, long-polls aside"),
    )
    max_waits: int = field(
        default=64,
        metadata=_about(whole_number(0, MAX_THREADS), "long-polls open at once, each on a thread of its own"),
    )
    max_waits_per_merchant: int = field(
        default=16,
        metadata=_about(whole_number(1, MAX_THREADS), "long-polls open at once for one merchant"),
    )
    tick_interval: float = field(
        default=0.25,
        metadata=_about(_SECONDS, "seconds between checks for due timers"),
    )
    log_level: str = field(
        default="info",
        metadata=_about(
            one_of(*LOG_LEVELS), "debug (with bodies), info (a line per request), warning or error"
        ),
    )
    webhook_url: str | None = field(
        default=None,
        metadata=_about(optional_http_url, "where the first fixture merchant's webhooks go"),
    )
    webhook_timeout: float = field(
        default=5.0,
        metadata=_about(_SECONDS, "seconds a webhook receiver has to answer"),
    )
    webhook_workers: int = field(
        default=128,
        metadata=_about(
            whole_number(1),
            "webhook deliveries in flight at once, each on a thread of its own; at most one per merchant",
        ),
    )
    state: Path | None = field(
        default=None,
        metadata=_about(_state_file, "file the whole state is loaded from at start and written to"),
    )
    state_interval: float = field(
        default=5.0,
        metadata=_about(
            number(
                0,
                inclusive=True,
                high=LONGEST_WAIT,
                reason=f"not a number of seconds from 0 to {LONGEST_WAIT}",
            ),
            "seconds between writes of the state file; 0 writes it only on stop",
        ),
    )
    seed: int | None = field(
        default=None,
        metadata=_about(_optional_seed, "seed of generated ids and secrets, the same on every run"),
    )


@dataclass(frozen=True, slots=True)
class Setting:
    """One field of Settings as the command line, the environment and a config file name it."""

    name: str
    parse: Parse
    default: Any
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def variable(self) -> str:
        return VARIABLE_PREFIX + self.name.upper()


SETTINGS = tuple(
    Setting(f.name, f.metadata["parse"], f.default, f.metadata["help"]) for f in fields(Settings)
)
_BY_NAME = {setting.name: setting for setting in SETTINGS}
_BY_VARIABLE = {setting.variable: setting for setting in SETTINGS}
_BY_KEY = {
    **_BY_NAME,
    **{setting.name.replace("_", "-"): setting for setting in SETTINGS},
}


# -- how a value is named in a message --------------------------------------------------------------


def quoted(value: str) -> str:
    """Show a value as a shell would take it back, on one line."""
    return shlex.quote(value) if value.isprintable() else repr(value)


def flag_source(flag: str, value: object) -> str:
    return f"{flag} {quoted(str(value))}"


def variable_source(variable: str, value: str) -> str:
    return f"{variable}={quoted(value)}"


def _yaml_shown(value: object) -> str:
    """Show a value of a YAML file as YAML writes it: `true`, `null`, `-5`, and no nested data."""
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, list):
        return "[...]"
    if isinstance(value, dict):
        return "{...}"
    return json.dumps(value, default=str)


def _parsed(setting: Setting, value: object, source: str) -> Any:
    try:
        return setting.parse(value)
    except ValueError as error:
        raise SettingsError(f"{source}: {error}") from None


# -- the sources ------------------------------------------------------------------------------------


Given = list[tuple[Setting, object, str]]  # a setting, its value, and its source as a message names it


def read_yaml(path: Path, name: str | None = None) -> Any:
    """Read a YAML file; a problem raises SettingsError in one line that starts with `name` (or the path)."""
    name = name or str(path)
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)
    except OSError as error:
        reason = error.strerror or str(error)
        raise SettingsError(f"{name}: cannot read: {reason[:1].lower()}{reason[1:]}") from None
    except UnicodeDecodeError:
        raise SettingsError(f"{name}: not UTF-8 text") from None
    except yaml.YAMLError as error:
        raise SettingsError(f"{name}: {yaml_problem(error)}") from None


def _from_file(path: Path, warn: Warn) -> Given:
    data = read_yaml(path)
    if data is None:
        return []
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: expected a mapping of setting: value")
    given: Given = []
    for key, value in data.items():
        setting = _BY_KEY.get(key) if isinstance(key, str) else None
        if setting is None:
            warn(f"{path}: unknown setting {_yaml_shown(key)} (ignored)")
        elif any(setting is seen for seen, _, _ in given):
            raise SettingsError(f"{path}: {setting.name} is given twice")
        else:
            given.append((setting, value, f"{path}: {key}={_yaml_shown(value)}"))
    return given


def _from_environment(environ: Mapping[str, str], warn: Warn) -> Given:
    given: Given = []
    for variable in sorted(environ):
        if not variable.startswith(VARIABLE_PREFIX) or variable == URL_VARIABLE:
            continue
        setting = _BY_VARIABLE.get(variable)
        if setting is None:
            warn(f"unknown environment variable {variable} (ignored)")
        else:
            given.append((setting, environ[variable], variable_source(variable, environ[variable])))
    return given


def _from_flags(overrides: Mapping[str, Any]) -> Given:
    given: Given = []
    for name, value in overrides.items():
        if name not in _BY_NAME:
            raise TypeError(f"unknown setting {name!r}")
        if value is not None:
            setting = _BY_NAME[name]
            given.append((setting, value, flag_source(setting.flag, value)))
    return given


def warn_on_stderr(message: str) -> None:
    print(f"mocksrv: warning: {message}", file=sys.stderr)


def load_settings(
    config_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    warn: Warn = warn_on_stderr,
) -> Settings:
    """Build the settings in order of precedence: defaults < file < environment < overrides.

    Every value given is checked, even one a later source overrides: the first bad one raises
    SettingsError naming its source. An unknown key or variable is named to `warn` and ignored.
    """
    given = [
        *([] if config_file is None else _from_file(config_file, warn)),
        *_from_environment(os.environ if environ is None else environ, warn),
        *_from_flags(overrides or {}),
    ]
    return replace(
        Settings(), **{setting.name: _parsed(setting, value, source) for setting, value, source in given}
    )


def check_settings(settings: Settings) -> Settings:
    """Settings made in code, each value checked as the command line checks it: the first bad one
    raises SettingsError, `Settings(threads=0): not a whole number from 1 to ...`. A value written as
    the command line takes it (`fixtures="fixtures/"`, `threads="4"`) is taken as it reads there."""
    parsed: dict[str, Any] = {}
    for setting in SETTINGS:
        value = getattr(settings, setting.name)
        parsed[setting.name] = _parsed(setting, value, f"Settings({setting.name}={value!r})")
    return replace(settings, **parsed)
