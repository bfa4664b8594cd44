"""Identifiers the sandbox generates.

Their randomness comes from the operating system a block at a time. A system call for every id
would let go of the interpreter lock several times in each create, and under concurrent requests
handing that lock back and forth costs more than all the rest of an id's work.
"""

from __future__ import annotations

import os
import string
import threading

_ALPHABET = (string.digits + string.ascii_letters).encode()
# A random byte read as one of the 62 letters and digits. Each comes up 4 or 5 times in 256, so a
# character carries 5.950 bits against a uniform choice's 5.954: an id of 20 has 119.
_LETTERS_AND_DIGITS = bytes(_ALPHABET[byte % len(_ALPHABET)] for byte in range(256))
_BLOCK = 4096


class _Entropy:
    """Random bytes from `os.urandom`, fetched in blocks; safe across threads and forks."""

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        # A forked child starts afresh, so that it never repeats its parent's bytes.
        self._lock = threading.Lock()
        self._block = b""
        self._used = 0

    def take(self, count: int) -> bytes:
        with self._lock:
            if self._used + count > len(self._block):
                self._block = os.urandom(max(_BLOCK, count))
                self._used = 0
            start = self._used
            self._used += count
            return self._block[start : self._used]


_entropy = _Entropy()


def new_id(prefix: str, length: int = 20) -> str:
    """Return `prefix_` followed by `length` random letters and digits."""
    return prefix + "_" + _entropy.take(length).translate(_LETTERS_AND_DIGITS).decode()


def new_secret(length: int = 32) -> str:
    """Return `length` random hex digits."""
    return _entropy.take((length + 1) // 2).hex()[:length]
