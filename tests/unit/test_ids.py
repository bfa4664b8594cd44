"""Generated ids and secrets: their shape, and no repeats across threads or a fork."""

from __future__ import annotations

import os
import re
import threading

import pytest

from mocksrv.domain.ids import _SystemEntropy, new_client_secret, new_id, new_real_id, new_secret
from mocksrv.masking import mask_card_like


def test_an_id_is_its_prefix_and_twenty_letters_or_digits_or_thirty_characters_as_the_real_ones() -> None:
    assert re.fullmatch(r"pay_[0-9A-Za-z]{20}", new_id("pay"))
    # Payments, refunds and payouts: 30 characters in all, as the real service's document has them.
    assert [len(new_real_id(prefix)) for prefix in ("pay", "ref", "payout")] == [30, 30, 30]
    assert re.fullmatch(r"payout_[0-9A-Za-z]{23}", new_real_id("payout"))
    assert re.fullmatch(r"evt_[0-9A-Za-z]{8}", new_id("evt", 8))


def test_a_secret_is_hex_of_the_length_asked() -> None:
    assert re.fullmatch(r"[0-9a-f]{32}", new_secret())
    assert re.fullmatch(r"[0-9a-f]{7}", new_secret(7))


def test_a_client_secret_is_its_owners_id_and_twenty_letters_or_digits() -> None:
    assert re.fullmatch(r"pay_1_secret_[0-9A-Za-z]{20}", new_client_secret("pay_1"))


def test_client_secrets_are_never_taken_for_card_numbers() -> None:
    # One hex secret of 20 digits in 70 held a run of 12 decimal digits, which the journal masked.
    secrets = [new_client_secret("pay_1") for _ in range(20_000)]
    assert [secret for secret in secrets if mask_card_like(secret) != secret] == []


def test_ids_made_by_many_threads_across_many_blocks_never_repeat() -> None:
    made: list[list[str]] = [[] for _ in range(8)]

    def make(into: list[str]) -> None:
        into.extend(new_id("pay") for _ in range(2_000))  # 30 bytes each: many 4 KiB blocks

    threads = [threading.Thread(target=make, args=(into,)) for into in made]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = [one for into in made for one in into]
    assert len(set(every)) == len(every) == 16_000


def test_a_forked_child_does_not_repeat_its_parents_ids() -> None:
    new_id("pay")  # the parent holds a block partly used
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.write(write, new_id("pay").encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    from_child = os.read(read, 100).decode()
    os.close(read)
    assert from_child != new_id("pay")


def test_a_thread_draws_while_another_waits_for_its_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each thread has a block of its own: none waits for another's draw, nor its system call."""
    entropy = _SystemEntropy()
    has_block, go, refilling, release = (threading.Event() for _ in range(4))
    drawn: list[bytes] = []

    def draw() -> None:
        entropy.take(1)  # this thread's block, with bytes to spare
        has_block.set()
        go.wait(10)
        drawn.append(entropy.take(20))

    here = threading.Thread(target=draw)
    here.start()
    assert has_block.wait(5)
    real_urandom = os.urandom

    def slow_urandom(count: int) -> bytes:
        refilling.set()
        release.wait(10)
        return real_urandom(count)

    monkeypatch.setattr(os, "urandom", slow_urandom)
    other = threading.Thread(target=entropy.take, args=(1,))  # a new thread: it fetches a block
    other.start()
    try:
        assert refilling.wait(5)
        go.set()
        here.join(5)
        assert not here.is_alive()  # it did not wait for the other thread's block
    finally:
        go.set()
        release.set()
        other.join(5)
        here.join(5)
    assert len(drawn[0]) == 20
