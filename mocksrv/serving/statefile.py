"""The state file of `mocksrv serve --state FILE`: the whole sandbox, loaded at start and written
on stop and every `--state-interval` seconds, so that a crash loses at most one interval.

A write never leaves a half-written file: the snapshot goes to a temporary file in the same
directory, is flushed to the disk, and then takes the file's name in one step.
"""

from __future__ import annotations

import fcntl
import gc
import glob
import logging
import os
import threading
import time
from pathlib import Path

import orjson

from mocksrv.domain.controls.snapshot import Snapshots
from mocksrv.domain.errors import DomainError
from mocksrv.domain.sandbox import Sandbox
from mocksrv.settings import Settings, SettingsError
from mocksrv.version import __version__

log = logging.getLogger(__name__)


def load_state(settings: Settings, sandbox: Sandbox, writer: StateWriter | None = None) -> bool:
    """Replace the sandbox's state with the state file's, when there is one; False when there is none.

    A file that cannot be read or restored raises SettingsError, and the sandbox is left as it was.
    With the `writer` that will write it, the file is claimed for it first (`StateWriter.claim`): read
    while another server may still write it, it would not be the state that server leaves.
    """
    path = settings.state
    if path is None:
        return False
    _check_writable(path)
    if writer is not None:
        writer.claim()
    try:
        return _load(path, sandbox)
    except BaseException:
        if writer is not None:
            writer.release()
        raise


def _load(path: Path, sandbox: Sandbox) -> bool:
    _remove_leftovers(Path(os.path.realpath(path)))  # beside the file a link names, where writes go
    if not path.exists():
        return False
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SettingsError(f"state file {path}: cannot read: {error.strerror or error}") from None
    enabled = gc.isenabled()
    gc.disable()  # a large file is millions of small objects: collecting them as they come triples the time
    try:
        document = orjson.loads(data)
        Snapshots(sandbox).restore(document, None)
    except orjson.JSONDecodeError as error:
        raise SettingsError(f"state file {path}: not JSON: {error}") from None
    except DomainError as error:
        raise SettingsError(f"state file {path}: {error.message}") from None
    finally:
        if enabled:
            gc.enable()
    return True


def _check_writable(path: Path) -> None:
    """SettingsError unless `path` can be written as write_state writes it: a regular file (or none
    yet), and a temporary file beside it that can be made. Checked at start, not at the first write."""
    if path.exists() and not path.is_file():
        raise SettingsError(f"state file {path}: not a regular file")
    probe = path.with_name(f".{path.name}.{os.getpid()}.probe.tmp")
    try:
        probe.touch(exist_ok=False)
        probe.unlink()
    except OSError as error:
        raise SettingsError(f"state file {path}: cannot write beside it: {error.strerror or error}") from None


def _remove_leftovers(path: Path) -> None:
    """Delete the temporary files of writes that a process killed in the middle of them left beside
    `path` (each is named after its process: one still running is writing it)."""
    prefix = f".{path.name}."
    for leftover in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid, _, rest = leftover.name.removeprefix(prefix).partition(".")
        if not pid.isdigit() or _writing(int(pid), rest.partition(".")[0]):
            continue
        try:
            leftover.unlink()
        except OSError as error:
            log.warning("state file %s: cannot delete %s: %s", path, leftover.name, error.strerror or error)
        else:
            log.info("state file %s: deleted %s, left by a write that did not finish", path, leftover.name)


def _writing(pid: int, thread: str) -> bool:
    """Whether the process `pid`'s thread may still be writing. This process's own pid names a
    write of this process only while that thread runs: a server that is process 1 in a container
    finds its last run's file named after process 1 too."""
    if pid == os.getpid():
        return any(str(running.ident) == thread for running in threading.enumerate())
    return _running(pid)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's: running
    return True


class StateNotWritten(Exception):
    """The last write of the state file, on stop, failed: what was not written is lost."""


def write_state(path: Path, sandbox: Sandbox) -> int:
    """Write the whole sandbox to `path` atomically; return the bytes written. A path that is a
    link is written where the link points, which stays a link."""
    path = Path(os.path.realpath(path))
    data = orjson.dumps(Snapshots(sandbox).take(None, producer=__version__))
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with temporary.open("wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)
    return len(data)


def _sync_directory(directory: Path) -> None:
    """Make the new name itself last through a power cut (where the system allows it)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


class StateWriter:
    """Writes the state file every `interval` seconds from a thread of its own (none when 0), and
    once more when stopped. From the state's load (`load_state`) to its stop, it holds the file for
    its server alone (`claim`)."""

    def __init__(self, path: Path, sandbox: Sandbox, interval: float) -> None:
        self._path = path
        self._sandbox = sandbox
        self._interval = interval
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # one write at a time: the thread's or the last one's
        self._claim: int | None = None  # the open lock file, while the file is this writer's

    def claim(self) -> None:
        """Hold the state file for this server alone, until `release`: two servers writing one file
        would each write over the other's state. SettingsError if another server holds it. The
        hold is a lock on `.NAME.lock` beside the file (which each write replaces), holding the
        process id of its holder; the system lets go of it when the process ends, however it ends.
        Claimed already, it stays so."""
        if self._claim is not None:
            return
        path = Path(os.path.realpath(self._path))
        try:
            claim = os.open(path.with_name(f".{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise SettingsError(f"state file {self._path}: cannot lock: {error.strerror or error}") from None
        try:
            fcntl.flock(claim, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(claim, 20).decode("ascii", "replace").strip() or "?"
            os.close(claim)
            raise SettingsError(
                f"state file {self._path}: in use by another mocksrv (process {holder}); "
                "each server needs a state file of its own"
            ) from None
        os.ftruncate(claim, 0)
        os.write(claim, str(os.getpid()).encode())
        self._claim = claim

    def release(self) -> None:
        """Let another server have the state file."""
        if self._claim is not None:
            os.close(self._claim)  # closing it lets go of the lock
            self._claim = None

    @classmethod
    def of(cls, settings: Settings, sandbox: Sandbox) -> StateWriter | None:
        """The writer the settings ask for; None without a state file."""
        if settings.state is None:
            return None
        return cls(settings.state, sandbox, settings.state_interval)

    def start(self) -> None:
        if self._interval <= 0:
            return
        self._stopped.clear()
        self._thread = threading.Thread(target=self._run, name="mocksrv-state-writer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (a write under way finishes first), then write the state a last time;
        StateNotWritten if that write fails."""
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        try:
            if not self.write():
                raise StateNotWritten(
                    f"cannot write the state file {self._path}: the state since its last write is lost"
                )
        finally:
            self.release()

    def write(self) -> bool:
        """Write the file now; a failure is logged, and False."""
        with self._lock:
            started = time.perf_counter()
            try:
                size = write_state(self._path, self._sandbox)
            except OSError as error:  # the disk, not mocksrv: one line says which
                log.error("cannot write the state file %s: %s", self._path, error.strerror or error)
                return False
            except Exception:
                log.exception("cannot write the state file %s", self._path)
                return False
            log.debug(
                "state written to %s: %d bytes in %.3f s", self._path, size, time.perf_counter() - started
            )
            return True

    def _run(self) -> None:
        # The interval runs from the end of one write to the start of the next, so that a large
        # state never has the thread writing all the time.
        while not self._stopped.wait(self._interval):
            self.write()
