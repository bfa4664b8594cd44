"""Load the fixture files: the seeded merchants and the magic-value table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from mocksrv.domain.errors import DomainError
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.outcomes import OutcomeTable
from mocksrv.settings import SettingsError

# libyaml's loader when PyYAML was built with it (its wheels are): ten times faster to start.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SEED_FIELDS = set(MerchantSeed.__dataclass_fields__) - {"outcomes"}


def _read(path: Path) -> Any:
    try:
        return yaml.load(path.read_text(), Loader=_LOADER)
    except (OSError, yaml.YAMLError) as error:
        raise SettingsError(f"fixture {path}: {error}") from None


def load_outcomes(directory: Path) -> OutcomeTable:
    path = directory / "outcomes.yaml"
    try:
        return OutcomeTable.from_data(_read(path))
    except DomainError as error:
        raise SettingsError(f"fixture {path}: {error.message}") from None


def load_merchants(directory: Path) -> list[MerchantSeed]:
    path = directory / "merchants.yaml"
    data = _read(path)
    if not isinstance(data, dict) or not isinstance(data.get("merchants"), list):
        raise SettingsError(f"fixture {path}: expected a list under 'merchants'")
    seeds = []
    for index, item in enumerate(data["merchants"]):
        if not isinstance(item, dict) or not set(item) <= _SEED_FIELDS:
            raise SettingsError(f"fixture {path}: merchant {index}: fields are {sorted(_SEED_FIELDS)}")
        seeds.append(MerchantSeed(**item))
    return seeds
