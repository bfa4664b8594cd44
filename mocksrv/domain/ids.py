"""Identifiers the sandbox generates.

Their randomness comes from the operating system a block at a time. A system call for every id
would let go of the interpreter lock several times in each create, and under concurrent requests
handing that lock back and forth costs more than all the rest of an id's work.

A merchant given a seed draws from a stream of its own instead: the same seed, merchant and
sequence of requests give the same ids and secrets, whatever other merchants do meanwhile.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import string
import threading
from collections.abc import Callable
from dataclasses import dataclass

_ALPHABET = (string.digits + string.ascii_letters).encode()
# A random byte read as one of the 62 letters and digits. Each comes up 4 or 5 times in 256, so a
# character carries 5.950 bits against a uniform choice's 5.954: an id of 20 has 119.
_LETTERS_AND_DIGITS = bytes(_ALPHABET[byte % len(_ALPHABET)] for byte in range(256))
_BLOCK = 4096
_HEX = frozenset("0123456789abcdef")
MAX_SEED = 2**63 - 1  # a seed is written in snapshots, as a JSON number of 64 bits


class Entropy:
    """A source of the bytes ids are made of."""

    def take(self, count: int) -> bytes:
        raise NotImplementedError

    def state(self) -> IdState | None:
        """Where a seeded stream stands; None for the operating system's randomness."""
        return None

    def mark(self) -> Mark | None:
        """Where a seeded stream stands now, for `give_back`; None for the operating system's."""
        return None

    def give_back(self, mark: Mark) -> bool:
        """Go back to `mark`, when every draw since was this thread's; whether it did."""
        return False


@dataclass(frozen=True, slots=True)
class Mark:
    """Where a seeded stream stood: the bytes drawn, and the draws made in all and by one thread."""

    drawn: int
    takes: int
    mine: int


@dataclass(frozen=True, slots=True)
class IdState:
    """A seeded stream as plain data: its seed, its scope (a merchant id) and the bytes drawn."""

    seed: int
    scope: str
    drawn: int = 0


class _SystemEntropy(Entropy):
    """Random bytes from `os.urandom`, fetched in blocks, each thread drawing from a block of its own.

    No lock: under concurrent requests, threads that waited for one another's draws (and for the
    system call that refills a block, which lets go of the interpreter lock) fell into step, each
    draw handing the interpreter lock on: a create called from 4 threads cost 540 µs of CPU with a
    shared lock against 430 µs without. A forked child starts afresh, so that it never repeats its
    parent's bytes.
    """

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._local = _Block()

    def take(self, count: int) -> bytes:
        local = self._local
        block, start = local.block, local.used
        if start + count > len(block):
            local.block = block = os.urandom(max(_BLOCK, count))
            start = 0
        local.used = start + count
        return block[start : start + count]


class _Block(threading.local):
    """A thread's block of OS randomness and how much of it is drawn; each thread starts empty."""

    block = b""
    used = 0


class SeededEntropy(Entropy):
    """A reproducible stream: block n is SHAKE-256 of the seed, the scope and n; it can resume anywhere."""

    def __init__(self, state: IdState) -> None:
        self._lock = threading.Lock()
        self._key = f"mocksrv-ids\0{state.seed}\0{state.scope}\0".encode()
        self._seed = state.seed
        self._scope = state.scope
        self._drawn = state.drawn
        self._block = self._make(state.drawn // _BLOCK)
        self._takes = 0  # draws made, by every thread
        self._mine = threading.local()  # draws made by each thread, as `takes`

    def _make(self, number: int) -> bytes:
        return hashlib.shake_256(self._key + str(number).encode()).digest(_BLOCK)

    def take(self, count: int) -> bytes:
        with self._lock:
            self._takes += 1
            self._mine.takes = getattr(self._mine, "takes", 0) + 1
            out = bytearray()
            while count:
                offset = self._drawn % _BLOCK
                piece = self._block[offset : offset + count]
                out += piece
                count -= len(piece)
                self._drawn += len(piece)
                if self._drawn % _BLOCK == 0:
                    self._block = self._make(self._drawn // _BLOCK)
            return bytes(out)

    def state(self) -> IdState:
        with self._lock:
            return IdState(self._seed, self._scope, self._drawn)

    def mark(self) -> Mark:
        with self._lock:
            return Mark(self._drawn, self._takes, getattr(self._mine, "takes", 0))

    def give_back(self, mark: Mark) -> bool:
        """Another thread's draw since `mark` may be in a record already: the stream then goes on."""
        with self._lock:
            mine = getattr(self._mine, "takes", 0) - mark.mine
            if mine == 0 or self._takes - mark.takes != mine:
                return False
            self._drawn = mark.drawn
            self._block = self._make(mark.drawn // _BLOCK)
            return True


SYSTEM = _SystemEntropy()  # the default: the operating system's randomness


def new_id(prefix: str, length: int = 20, entropy: Entropy = SYSTEM) -> str:
    """Return `prefix_` followed by `length` random letters and digits."""
    return prefix + "_" + entropy.take(length).translate(_LETTERS_AND_DIGITS).decode()


# The length the real service's document gives its payment, refund and payout ids (30 exactly), which
# a client generated from that document may check.
REAL_ID_LENGTH = 30


def new_real_id(prefix: str, entropy: Entropy = SYSTEM) -> str:
    """`prefix_` and random letters and digits, 30 characters in all, as the real service makes the
    ids of payments (`pay_`), refunds (`ref_`) and payouts (`payout_`)."""
    return new_id(prefix, REAL_ID_LENGTH - len(prefix) - 1, entropy)


def unused(make: Callable[[], str], taken: Callable[[str], bool]) -> str:
    """The first of `make`'s ids that is not `taken`. A seeded stream started again from its
    beginning (`PUT /__mock/ids`, after a reset) gives the ids it gave before, and the records that
    outlive a reset (profiles, API keys) may hold them."""
    while True:
        made = make()
        if not taken(made):
            return made


def new_client_secret(owner_id: str, entropy: Entropy = SYSTEM) -> str:
    """A payment's or payout's client secret: its id, `_secret_` and 20 random letters and digits, as
    the real service writes one. Not hex: one hex secret in 70 holds 12 digits in a row, which the
    journal and the access log would take for a card number and mask."""
    return new_id(f"{owner_id}_secret", 20, entropy)


def same_secret(sent: str, own: str | None) -> bool:
    """Whether a secret sent (a client secret, a signature) is the one expected, compared in constant
    time; what was sent may be any text, a character past ASCII or a lone surrogate too."""
    return own is not None and hmac.compare_digest(
        sent.encode("utf-8", "surrogatepass"), own.encode("utf-8", "surrogatepass")
    )


def client_secret_owner(client_secret: str) -> str:
    """The id a client secret was made for: all before its last `_secret_` (an id may hold one too)."""
    return client_secret.rpartition("_secret_")[0]


def new_secret(length: int = 32, entropy: Entropy = SYSTEM) -> str:
    """Return `length` random hex digits."""
    return entropy.take((length + 1) // 2).hex()[:length]


def merchant_in_secret(secret: str, prefix: str, digits: int) -> str | None:
    """The merchant a secret of the form `prefix`, `digits` hex digits and a merchant's id names
    (legacy tokens, ephemeral keys); None for a secret of another shape."""
    digits_end = len(prefix) + digits
    if not secret.startswith(prefix) or len(secret) <= digits_end:
        return None
    if not _HEX.issuperset(secret[len(prefix) : digits_end]):
        return None
    return secret[digits_end:]
