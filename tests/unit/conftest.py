"""Unit fixtures: the shared sandbox, but on a system time that moves only when a test moves it."""

from __future__ import annotations

import pytest

from mocksrv.app import create_sandbox
from mocksrv.domain.sandbox import Sandbox
from mocksrv.settings import Settings
from tests.unit.fakes import FakeSystemTime


@pytest.fixture
def system_time() -> FakeSystemTime:
    return FakeSystemTime()


@pytest.fixture
def sandbox(settings: Settings, system_time: FakeSystemTime) -> Sandbox:
    """A fresh sandbox seeded from the fixtures, whose clocks all start at T0 and stand still."""
    return create_sandbox(settings, system_time)
