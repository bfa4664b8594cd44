"""The dispatcher: worker threads that deliver queued events, each with its own HTTP session."""

from __future__ import annotations

import logging
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

CONNECT_TIMEOUT = 2.0
_POLL = 0.2  # how often an idle worker looks whether it should stop


class Dispatcher:
    """Deliver events off the request path; a slow receiver holds up only its own merchant."""

    def __init__(self, sandbox: Sandbox, base_url: str, *, timeout: float = 5.0, workers: int = 4) -> None:
        self._sandbox = sandbox
        self._base_url = base_url
        self._timeout = timeout
        self._workers = workers
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        self._stopping.clear()
        self._threads = [
            threading.Thread(target=self._run, name=f"mocksrv-webhooks-{index}", daemon=True)
            for index in range(self._workers)
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """Finish the attempts under way; what is still queued stays queued, and listed."""
        self._stopping.set()
        self._sandbox.webhooks.wake()
        for thread in self._threads:
            thread.join(timeout=self._timeout + CONNECT_TIMEOUT + 1)
        self._threads = []

    def _run(self) -> None:
        session: requests.Session | None = None  # made at the first delivery, with requests imported then
        try:
            while not self._stopping.is_set():
                task = self._sandbox.webhooks.next_task(_POLL, self._stopping.is_set)
                if task is None:
                    continue
                try:
                    session = session or _new_session()
                    self._deliver(session, task)
                except Exception:
                    log.exception("delivering %s failed", task.event.event_id)
                finally:
                    self._sandbox.webhooks.finish(task)
        finally:
            if session is not None:
                session.close()

    def _deliver(self, session: requests.Session, task: DeliveryTask) -> None:
        import requests

        if task.url is None:
            self._sandbox.webhooks.record(task, None, None)
            return
        body = task.delivery.body or orjson.dumps(event_json(task.event, self._base_url, self._sandbox))
        headers = {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: sign(task.signing_key, body),
            "User-Agent": "mocksrv-webhooks",
        }
        started = time.perf_counter()
        try:
            response = session.post(
                task.url,
                data=body,
                headers=headers,
                timeout=(CONNECT_TIMEOUT, self._timeout),
                allow_redirects=False,
            )
            result = AttemptResult(task.url, response.status_code, _ms_since(started))
        except requests.RequestException as error:
            result = AttemptResult(task.url, None, _ms_since(started), _describe(error))
        self._sandbox.webhooks.record(task, body, result)


def _new_session() -> requests.Session:
    # requests is imported at the first delivery, not at start: its import is about 40 ms of the
    # 300 ms that `mocksrv serve` takes to its first answer, and many runs never send a webhook.
    import requests

    return requests.Session()


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _describe(error: requests.RequestException) -> str:
    import requests

    if isinstance(error, requests.Timeout):
        return "timeout: the receiver did not answer in time"
    if isinstance(error, requests.ConnectionError):
        return "connection error: the receiver could not be reached"
    return f"request error: {type(error).__name__}"
