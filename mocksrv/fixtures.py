"""Load the fixture files: the seeded merchants and the magic-value table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mocksrv.domain.errors import DomainError
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.models import MAX_SESSION_EXPIRY
from mocksrv.domain.payments.outcomes import OutcomeTable
from mocksrv.settings import SettingsError, read_yaml
from mocksrv.values import LARGEST_WHOLE, connector_name, http_url, text, whole_number


def load_outcomes(directory: Path) -> OutcomeTable:
    path = directory / "outcomes.yaml"
    try:
        return OutcomeTable.from_data(read_yaml(path, f"fixture {path}"))
    except DomainError as error:
        raise SettingsError(f"fixture {path}: {error.message}") from None


# How each field of a seeded merchant is checked: the parsers of the settings, None for "generate it".
_SEED_FIELDS: dict[str, Callable[[object], Any]] = {
    "merchant_id": text,
    "profile_id": text,
    "profile_name": text,
    "secret_key": text,
    "publishable_key": text,
    "payment_response_hash_key": text,
    "session_expiry": whole_number(0, MAX_SESSION_EXPIRY),
    "return_url": http_url,
    "webhook_url": http_url,
    "rate_limit": whole_number(0, LARGEST_WHOLE),
    "connector": connector_name,
    "legacy_client_id": text,
    "legacy_client_secret": text,
}
_REQUIRED = {"profile_name", "session_expiry"}  # a seed's defaults for these are not None


def load_merchants(directory: Path) -> list[MerchantSeed]:
    path = directory / "merchants.yaml"
    data = read_yaml(path, f"fixture {path}")
    if not isinstance(data, dict) or not isinstance(data.get("merchants"), list):
        raise SettingsError(f"fixture {path}: expected a list under 'merchants'")
    return [_seed(item, f"fixture {path}: merchant {index}") for index, item in enumerate(data["merchants"])]


def _seed(item: object, where: str) -> MerchantSeed:
    if not isinstance(item, dict) or not set(item) <= set(_SEED_FIELDS):
        raise SettingsError(f"{where}: fields are {', '.join(_SEED_FIELDS)}")
    fields = {}
    for name, value in item.items():
        if value is None and name not in _REQUIRED:
            continue
        try:
            fields[name] = _SEED_FIELDS[name](value)
        except ValueError as error:
            raise SettingsError(f"{where}: {name}={value!r}: {error}") from None
    return MerchantSeed(**fields)
