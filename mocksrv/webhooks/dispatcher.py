"""The dispatcher: delivery threads that attempt queued events, one thread per attempt in flight.

A merchant has at most one attempt in flight, and its events are attempted in the order they
happened (the delivery queue sees to both). Each attempt in flight holds a thread of its own, up
to `workers` threads, so a receiver that is slow, hangs or is down holds up its own merchant and
no other. A thread that takes a delivery while no other thread is idle starts another, so that one
is always ready for the next merchant; a thread idle for `idle` seconds ends, unless it is the last
idle one. Each thread keeps its own HTTP session. When the merchant's webhook chaos asks for
duplicates, the thread that delivered an event sends the same bytes again before the merchant's
next delivery may go.
"""

from __future__ import annotations

import itertools
import logging
import sys
import threading
import time
from typing import TYPE_CHECKING

import orjson

from mocksrv.domain.sandbox import Sandbox
from mocksrv.domain.signing import sign
from mocksrv.domain.webhooks import AttemptResult, DeliveryTask
from mocksrv.representations import event_json
from mocksrv.webhooks import SIGNATURE_HEADER

if TYPE_CHECKING:
    import requests

log = logging.getLogger(__name__)

IDLE_SECONDS = 5.0  # how long a delivery thread with nothing to do waits before it ends
STOP_WAIT = 0.5  # the longest stop() waits for attempts being recorded and idle threads ending
CLOSED_POLL = 0.1  # how often a thread looks whether delivery, closed from elsewhere, has opened again

Attempt = tuple[bytes | None, AttemptResult | None]  # what to record: (None, None) when there was no URL


class _Crew:
    """The delivery threads of one start(): which are busy, and whether stop() has come."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.threads: set[threading.Thread] = set()
        self.busy: set[threading.Thread] = set()  # making an attempt
        self.recording = 0  # threads recording an attempt right now
        self.stopped = False

    @property
    def idle(self) -> int:
        return len(self.threads) - len(self.busy)


class Dispatcher:
    """Deliver events off the request path; a slow receiver holds up only its own merchant."""

    def __init__(
        self,
        sandbox: Sandbox,
        base_url: str,
        *,
        timeout: float = 5.0,
        workers: int = 128,
        idle: float = IDLE_SECONDS,
    ) -> None:
        self._sandbox = sandbox
        self._base_url = base_url
        self._timeout = timeout
        self._workers = workers
        self._idle = idle
        self._crew: _Crew | None = None
        self._numbers = itertools.count(1)

    @property
    def threads(self) -> int:
        """How many delivery threads there are now, busy or idle."""
        crew = self._crew
        if crew is None:
            return 0
        with crew.changed:
            return len(crew.threads)

    def start(self) -> None:
        """Start delivering (again, after stop), from where the queues stand."""
        if self._crew is not None:
            return
        sandbox, base_url = self._sandbox, self._base_url
        sandbox.webhooks.serialize = lambda event: orjson.dumps(event_json(event, base_url, sandbox))
        sandbox.webhooks.open()
        crew = self._crew = _Crew()
        with crew.changed:
            self._spawn(crew)

    def stop(self) -> None:
        """Stop delivering, within STOP_WAIT seconds or about that, whatever the receivers do.

        An attempt whose receiver has not answered yet is not recorded, now or when it answers: its
        delivery stays queued, and is attempted again at the next start. Every open wait for drained
        deliveries is answered False. Threads waiting on a receiver end once it answers or times out.
        """
        crew, self._crew = self._crew, None
        if crew is None:
            return
        deadline = time.monotonic() + STOP_WAIT
        with crew.changed:
            crew.stopped = True
            crew.changed.wait_for(lambda: crew.recording == 0, STOP_WAIT)
            idle = [thread for thread in crew.threads if thread not in crew.busy]
            crew.changed.notify_all()
        self._sandbox.webhooks.close()  # wakes the idle threads, and every wait for drained deliveries
        for thread in idle:
            thread.join(max(0.0, deadline - time.monotonic()))
        transport = sys.modules.get("mocksrv.webhooks.transport")  # not imported: no delivery, no watchdog
        if transport is not None:
            transport.WATCHDOG.end_when_idle()

    # -- the threads --------------------------------------------------------------------------

    def _spawn(self, crew: _Crew) -> None:
        """Start one more delivery thread; called holding `crew.changed`."""
        thread = threading.Thread(
            target=self._run, args=(crew,), name=f"mocksrv-webhooks-{next(self._numbers)}", daemon=True
        )
        crew.threads.add(thread)
        try:
            thread.start()
        except RuntimeError:  # the system has no thread to spare: the running ones carry on
            crew.threads.discard(thread)
            log.warning("could not start another webhook delivery thread (%d running)", len(crew.threads))

    def _run(self, crew: _Crew) -> None:
        me = threading.current_thread()
        session = _new_session()
        try:
            while (task := self._next(crew, me)) is not None:
                follow_up: DeliveryTask | None = task
                while follow_up is not None:
                    attempt: Attempt | None = None
                    try:
                        attempt = self._attempt(session, follow_up)
                    except Exception as error:  # a fault of mocksrv's, not the receiver's
                        log.exception("delivering %s failed", follow_up.event.event_id)
                        if follow_up.url is not None:  # recorded as failed, so that it is retried
                            failure = f"mocksrv error: {type(error).__name__}"
                            attempt = (None, AttemptResult(follow_up.url, None, 0.0, failure))
                    follow_up = self._settle(crew, me, follow_up, attempt)
        finally:
            session.close()

    def _next(self, crew: _Crew, me: threading.Thread) -> DeliveryTask | None:
        """This thread's next delivery, once one is ready; None when the thread is to end."""
        idle_since = time.monotonic()
        while True:
            task = self._sandbox.webhooks.next_task(self._idle, lambda: crew.stopped)
            with crew.changed:
                if crew.stopped:
                    crew.threads.discard(me)
                    return None  # a task taken meanwhile went back to its queue when delivery closed
                if task is not None:
                    crew.busy.add(me)
                    if crew.idle == 0 and len(crew.threads) < self._workers:
                        self._spawn(crew)
                    return task
                if time.monotonic() - idle_since < self._idle:
                    # Nothing came, yet the idle time is not up: delivery was closed while this
                    # dispatcher runs (by another one that stopped). Look again shortly.
                    crew.changed.wait(CLOSED_POLL)
                elif crew.idle > 1:
                    crew.threads.discard(me)
                    return None
                else:
                    idle_since = time.monotonic()  # the last idle thread stays

    def _settle(
        self, crew: _Crew, me: threading.Thread, task: DeliveryTask, attempt: Attempt | None
    ) -> DeliveryTask | None:
        """Record the attempt; then either answer the duplicate to send next (the thread stays busy
        and the merchant's turn stays taken) or let the merchant's next delivery go. Nothing once stopped."""
        with crew.changed:
            crew.busy.discard(me)
            if crew.stopped:
                return None
            crew.recording += 1
        follow_up: DeliveryTask | None = None
        try:
            if attempt is not None:
                recorded = self._sandbox.webhooks.record(task, *attempt)
                follow_up = self._sandbox.webhooks.follow_up(task, attempt[0], recorded)
        except Exception:
            log.exception("recording an attempt of %s failed", task.event.event_id)
        finally:
            if follow_up is None:
                self._sandbox.webhooks.finish(task)
            with crew.changed:
                crew.recording -= 1
                if follow_up is not None:
                    crew.busy.add(me)
                crew.changed.notify_all()
        return follow_up

    def _attempt(self, session: requests.Session, task: DeliveryTask) -> Attempt:
        from mocksrv.webhooks import transport

        if task.url is None:
            return None, None
        body = task.delivery.body or orjson.dumps(event_json(task.event, self._base_url, self._sandbox))
        headers = {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: sign(task.signing_key, body),
            "User-Agent": "mocksrv-webhooks",
        }
        return body, transport.post(session, task.url, body, headers, self._timeout)


def _new_session() -> requests.Session:
    # Imported here, by the first delivery thread as it starts: off the path to the first answer,
    # which the import of requests (about 40 ms) would delay, and before any load. Imported at the
    # first delivery, mid-load, its objects landed among the records that a reset frees, and kept
    # about 6 MiB of their memory pages from going back to the system (mocksrv/launch.py).
    from mocksrv.webhooks import transport

    return transport.new_session()
