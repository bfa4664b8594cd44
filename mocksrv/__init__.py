"""mocksrv: a stateful sandbox of a payments REST API."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mocksrv.signatures import verify_redirect, verify_signature
from mocksrv.version import __version__

if TYPE_CHECKING:
    from mocksrv.server import MockServer
    from mocksrv.settings import Settings, SettingsError

__all__ = ["MockServer", "Settings", "SettingsError", "__version__", "verify_redirect", "verify_signature"]


def __getattr__(name: str) -> object:
    # Imported lazily so that `import mocksrv.domain` does not pull in Flask and waitress.
    if name == "MockServer":
        from mocksrv.server import MockServer

        return MockServer
    if name in ("Settings", "SettingsError"):
        from mocksrv import settings

        return getattr(settings, name)
    raise AttributeError(name)
