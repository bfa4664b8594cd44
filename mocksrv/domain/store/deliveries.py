"""The queue of webhook deliveries to attempt, per merchant, one in flight each."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, eq=False, slots=True)
class Turn:
    """A merchant's turn to make one attempt: taken from the queue, and handed back by `finish`.

    Each is its own: a turn the queue forgot (the merchant was reset, deleted or restored while its
    attempt was in flight) ends nothing of the turns taken since.
    """

    merchant_id: str
    event_id: str
    manual: bool


class DeliveryQueue:
    """Webhook deliveries to attempt: one queue per merchant, and at most one attempt in flight
    per merchant, so that a merchant's events are attempted in the order they happened and a
    slow receiver holds up no other merchant. Every operation is O(1) in the queue's length.

    Closing it (when the dispatcher stops) puts each attempt in flight back at the head of its
    merchant's queue, hands out nothing more, and answers every wait for drained deliveries,
    under way or later, with False at once; opening it again lets deliveries go on as before.
    Dropping a merchant forgets its queue and its attempt in flight: its next delivery goes at once.
    """

    def __init__(self) -> None:
        self._queues: dict[str, deque[tuple[str, bool]]] = {}
        self._ready: deque[str] = deque()  # merchants with something queued and nothing in flight
        self._delivering: dict[str, Turn] = {}  # merchant -> the turn of its attempt in flight
        self._closed = False
        lock = threading.Lock()
        # Two conditions on one lock: a new delivery wakes one taker, never a wait for drained
        # deliveries in its place.
        self._readied = threading.Condition(lock)  # takers wait on it
        self._emptied = threading.Condition(lock)  # waits for drained deliveries wait on it

    def put(self, merchant_id: str, event_id: str, manual: bool) -> None:
        with self._readied:
            queue = self._queues.setdefault(merchant_id, deque())
            queue.append((event_id, manual))
            if len(queue) == 1 and merchant_id not in self._delivering:
                self._ready.append(merchant_id)
                self._readied.notify()

    def take(self, timeout: float, stopped: Callable[[], bool]) -> Turn | None:
        """Take the next delivery, waiting up to `timeout` (or until `stopped()` turns true).

        None when nothing was ready in time, when stopped, or while the queue is closed.
        """
        with self._readied:
            self._readied.wait_for(lambda: stopped() or self._closed or bool(self._ready), timeout)
            if stopped() or self._closed or not self._ready:
                return None
            merchant_id = self._ready.popleft()
            event_id, manual = self._queues[merchant_id].popleft()
            turn = self._delivering[merchant_id] = Turn(merchant_id, event_id, manual)
            return turn

    def finish(self, turn: Turn) -> None:
        """The turn's attempt is over: its merchant's next delivery may go."""
        merchant_id = turn.merchant_id
        with self._readied:
            if self._delivering.get(merchant_id) is not turn:
                return  # forgotten: closed since it was taken, or the merchant dropped
            del self._delivering[merchant_id]
            if self._queues.get(merchant_id):
                self._ready.append(merchant_id)
                self._readied.notify()
            else:
                self._queues.pop(merchant_id, None)
            self._emptied.notify_all()

    def pending(self, merchant_id: str) -> int:
        """How many of the merchant's deliveries are queued or under way."""
        with self._readied:
            return self._pending(merchant_id)

    def wait_drained(self, merchant_id: str, timeout: float) -> bool:
        """Wait until the merchant has nothing queued or under way; False if `timeout` passes first,
        or at once when the queue is (or gets) closed."""
        with self._emptied:
            self._emptied.wait_for(lambda: self._closed or self._pending(merchant_id) == 0, timeout)
            return not self._closed and self._pending(merchant_id) == 0

    def wake(self) -> None:
        """Wake every waiting taker, so that one told to stop sees it at once."""
        with self._readied:
            self._readied.notify_all()

    def close(self) -> None:
        """Hand out nothing more; put the attempts in flight back first in line; answer every wait."""
        with self._readied:
            self._closed = True
            for merchant_id, turn in self._delivering.items():
                self._queues.setdefault(merchant_id, deque()).appendleft((turn.event_id, turn.manual))
                self._ready.append(merchant_id)
            self._delivering.clear()
            self._readied.notify_all()
            self._emptied.notify_all()

    def open(self) -> None:
        """Hand out deliveries again, and let waits for drained deliveries wait."""
        with self._readied:
            self._closed = False
            self._readied.notify_all()

    def drop(self, merchant_id: str) -> None:
        """Forget the merchant's queue and its attempt in flight, which ends nothing when it finishes."""
        with self._readied:
            self._queues.pop(merchant_id, None)
            self._delivering.pop(merchant_id, None)
            if merchant_id in self._ready:
                self._ready.remove(merchant_id)
            self._emptied.notify_all()

    def _pending(self, merchant_id: str) -> int:
        return len(self._queues.get(merchant_id, ())) + (merchant_id in self._delivering)

    def queued(self, merchant_id: str) -> list[tuple[str, bool]]:
        """The merchant's deliveries still to attempt, (event_id, manual), the one in flight first."""
        with self._readied:
            turn = self._delivering.get(merchant_id)
            in_flight = [] if turn is None else [(turn.event_id, turn.manual)]
            return [*in_flight, *self._queues.get(merchant_id, ())]
