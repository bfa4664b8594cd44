"""One settings object: defaults, then a config file, then MOCKSRV_* variables, then flags."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import yaml

DEFAULT_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


class SettingsError(ValueError):
    """A setting has a value the server cannot start with."""


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8080
    fixtures: Path = DEFAULT_FIXTURES
    environment: str = "sandbox"
    rate_limit: int = 6000  # requests per minute per API key; 0 turns limiting off
    capture_window_seconds: int = 7 * 24 * 3600
    max_body_bytes: int = 1024 * 1024
    admin_key: str = "mocksrv_admin_key"
    public_url: str | None = None  # the address pages and links name; default: the request's
    threads: int = 8
    tick_interval: float = 0.25  # seconds between checks for due timers in real time
    log_level: str = "info"
    webhook_url: str | None = None  # registered for the first merchant of the fixtures
    webhook_timeout: float = 5.0  # seconds a receiver has to answer a delivery
    webhook_workers: int = 4


_TYPES = {f.name: f.type for f in fields(Settings)}


def _coerce(name: str, value: Any) -> Any:
    kind = _TYPES[name]
    try:
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        if kind == "Path":
            return Path(value)
    except (TypeError, ValueError):
        raise SettingsError(f"setting {name}: {value!r} is not a valid {kind}") from None
    return None if value is None else str(value)


def _apply(settings: Settings, values: Mapping[str, Any], source: str) -> Settings:
    unknown = sorted(set(values) - set(_TYPES))
    if unknown:
        raise SettingsError(f"{source}: unknown setting(s): {', '.join(unknown)}")
    return replace(settings, **{name: _coerce(name, value) for name, value in values.items()})


def load_settings(
    config_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build the settings in order of precedence: defaults < file < environment < overrides."""
    settings = Settings()
    if config_file is not None:
        try:
            data = yaml.safe_load(config_file.read_text()) or {}
        except (OSError, yaml.YAMLError) as error:
            raise SettingsError(f"config file {config_file}: {error}") from None
        if not isinstance(data, dict):
            raise SettingsError(f"config file {config_file}: expected a mapping of settings")
        settings = _apply(settings, data, str(config_file))
    environ = os.environ if environ is None else environ
    from_env = {
        key[len("MOCKSRV_") :].lower(): value
        for key, value in environ.items()
        if key.startswith("MOCKSRV_") and key[len("MOCKSRV_") :].lower() in _TYPES
    }
    settings = _apply(settings, from_env, "environment")
    if overrides:
        settings = _apply(settings, {k: v for k, v in overrides.items() if v is not None}, "flags")
    if settings.environment not in ("sandbox", "production"):
        raise SettingsError("setting environment: sandbox or production")
    return settings
