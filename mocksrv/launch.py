"""The `mocksrv` command's entry point: on glibc, `mocksrv serve` starts again on the C allocator.

CPython's own allocator gives a 1 MiB arena back to the system only once nothing in it lives. After
a load and a reset, the few objects made during the load that outlive it keep most of the load's
arenas, so the RSS stays near the load's peak. glibc's malloc, which a reset trims page by page
(mocksrv/serving/memory.py), gives nearly all of it back. So `mocksrv serve` runs itself once more (exec, the
same process id) with `PYTHONMALLOC=malloc`, a single malloc arena (requests allocate under the
interpreter lock, so more arenas would only spread what survives) and a per-thread cache of one
freed chunk per size, not seven: the chunks a request thread keeps cached are scattered over the
load's pages, and each keeps its page from going back (+5% to +7% after a soak and a reset with one
or none, +7% to +12% with seven; none cost 5% more instructions per create, one 1.5%). The cost in
all is about 9% more instructions per create and one more interpreter start. A `PYTHONMALLOC`
already set (for example `PYTHONMALLOC=pymalloc mocksrv serve`) is left as it is, and so is any other
command; a `MALLOC_ARENA_MAX` or `GLIBC_TUNABLES` of one's own is kept.

This module imports nothing of the server (only the line it says when stopped while starting), so
that the exec happens before the expensive imports.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Mapping, Sequence

from mocksrv.output import stop_before_serving

C_ALLOCATOR = {
    "PYTHONMALLOC": "malloc",
    "MALLOC_ARENA_MAX": "1",
    "GLIBC_TUNABLES": "glibc.malloc.tcache_count=1",
}


def allocator_environ(argv: Sequence[str], environ: Mapping[str, str]) -> dict[str, str] | None:
    """The environment to run `mocksrv serve` again with, or None to go on as this process is."""
    if list(argv[:1]) != ["serve"] or "PYTHONMALLOC" in environ or not _glibc():
        return None
    return {**C_ALLOCATOR, **environ}  # a MALLOC_ARENA_MAX or GLIBC_TUNABLES of one's own is kept


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError, AttributeError):  # the name, or confstr itself, is unknown: not glibc
        return False


def main() -> None:
    if sys.argv[1:2] == ["serve"]:
        # From the first line that runs, not once the command's imports are done (a tenth of a
        # second): SIGINT or SIGTERM stops the start in one line. `serve` keeps this until it serves.
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, stop_before_serving)
    environ = allocator_environ(sys.argv[1:], os.environ)
    if environ is not None and sys.executable:
        # sys.orig_argv holds the interpreter's own options and the script or `-m mocksrv`.
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], environ)
    from mocksrv.cli import main as cli_main

    sys.exit(cli_main())
