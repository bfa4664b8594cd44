"""Long-polls open at once: at most so many in all, and so many per merchant.

A long-poll holds a thread while it waits. The server keeps a thread for each slot in use, beside
those that serve everything else, so however many long-polls are open, other requests find a thread
free; `on_change` tells it how many are open each time one opens or ends. A wait that answers at once holds no
thread and takes no slot, but is refused like any other while the slots are full, so that a client
can tell it is at its allowance without taking a slot another long-poll needs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from mocksrv.domain.errors import DomainError, ErrorKind


class TooManyWaits(DomainError):
    kind = ErrorKind.RATE
    code = "RL_01"


class WaitSlots:
    def __init__(self, total: int, per_merchant: int) -> None:
        self.total = total
        self.per_merchant = per_merchant
        self._changed = threading.Condition()
        self._open: dict[str, int] = {}
        self._count = 0
        # Called with the number open now, holding the slots' lock, so that the calls come in order.
        self.on_change: Callable[[int], None] = lambda count: None

    @contextmanager
    def hold(self, merchant_id: str, *, parks: bool = True) -> Iterator[None]:
        """Hold a slot for the block, when the wait `parks`; raise TooManyWaits when none is free."""
        with self._changed:
            mine = self._open.get(merchant_id, 0)
            if self._count >= self.total or mine >= self.per_merchant:
                raise TooManyWaits(
                    f"Too many long-polls open: at most {self.per_merchant} per merchant and {self.total} "
                    "in all; try again once one is answered"
                )
            if parks:
                self._open[merchant_id] = mine + 1
                self._count += 1
                self._changed.notify_all()
        if not parks:
            yield
            return
        try:
            with self._changed:  # in the try: should it raise, the slot is still given back
                self.on_change(self._count)
            yield
        finally:
            with self._changed:
                self._count -= 1
                left = self._open[merchant_id] - 1
                if left:
                    self._open[merchant_id] = left
                else:
                    del self._open[merchant_id]
                self.on_change(self._count)
                self._changed.notify_all()

    def open(self, merchant_id: str) -> int:
        """How many of the merchant's long-polls are open."""
        with self._changed:
            return self._open.get(merchant_id, 0)

    def wait_open(self, merchant_id: str, count: int, timeout: float) -> int:
        """Block until the merchant has `count` long-polls open, or `timeout` s pass; the number open."""
        with self._changed:
            self._changed.wait_for(lambda: self._open.get(merchant_id, 0) == count, timeout)
            return self._open.get(merchant_id, 0)
