"""Running scenarios: each in a fresh merchant of a running mocksrv, with a webhook receiver of its own.

A scenario's steps run in order; the first that fails ends it. The mock-clock steps act through the
control plane with the merchant's own key, so that scenarios running at once see nothing of each other.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import requests

from mocksrv.client import ControlPlaneError, Merchant, Sandbox, parse_time
from mocksrv.receiver import ReceivedWebhook, WebhookEndpoint
from mocksrv.scenario.checks import substituted_problem
from mocksrv.scenario.format import (
    HANG_SECONDS,
    NO_ANSWER,
    RECEIVER_VARIABLE,
    WHOLE,
    Scenario,
    Step,
    parse_duration,
)
from mocksrv.scenario.matchers import body_mismatches, lookup, status_mismatch
from mocksrv.scenario.results import Exchange, Outcome, ScenarioResult, StepFailed
from mocksrv.scenario.sending import send
from mocksrv.scenario.targets import Target
from mocksrv.scenario.variables import UnknownVariable, substitute
from mocksrv.scenario.webhooks import arrived, delivery_mismatches, nth_delivery

JOURNAL_OFF = "the server keeps no journal: it was started with --journal-size 0"
JOURNAL_SETTLE_SECONDS = 2.0  # real seconds a request step waits for the server to record a hung request
POLL_SECONDS = 0.05
WAIT_SECONDS = 10.0  # real seconds that expect_webhook, wait_webhooks and expect_deliveries wait at most
NOT_DRAINED = f"the merchant's deliveries were not all attempted within {WAIT_SECONDS:g} s"


def run_scenarios(
    scenarios: Sequence[Scenario],
    where: Target,
    *,
    jobs: int = 1,
    on_result: Callable[[ScenarioResult], None] | None = None,
) -> list[ScenarioResult]:
    """Run every scenario, `jobs` at once; `on_result` hears of each as it finishes. Results in order.

    The scenarios run on daemon threads, so that an interrupted run (Ctrl-C) ends at once: a step
    waiting on its server is left behind rather than waited for, and no further scenario starts.
    """
    todo: queue.SimpleQueue[tuple[int, Scenario]] = queue.SimpleQueue()
    for item in enumerate(scenarios):
        todo.put(item)
    done: queue.SimpleQueue[tuple[int, ScenarioResult]] = queue.SimpleQueue()
    stopping = threading.Event()

    def work() -> None:
        while not stopping.is_set():
            try:
                index, scenario = todo.get_nowait()
            except queue.Empty:
                return
            done.put((index, run_scenario(scenario, where)))

    for number in range(min(max(1, jobs), len(scenarios))):
        threading.Thread(target=work, name=f"scenario-{number}", daemon=True).start()
    results: dict[int, ScenarioResult] = {}
    try:
        while len(results) < len(scenarios):
            index, result = done.get()
            results[index] = result
            if on_result is not None:
                on_result(result)
    finally:
        stopping.set()
    return [results[index] for index in range(len(scenarios))]


def run_scenario(scenario: Scenario, where: Target) -> ScenarioResult:
    """Run one scenario in a merchant of its own; never raises."""
    started = time.monotonic()
    run = _Run(scenario, where)

    def result(
        outcome: Outcome, message: str = "", detail: str = "", exchange: Exchange | None = None
    ) -> ScenarioResult:
        return ScenarioResult(scenario, outcome, time.monotonic() - started, message, detail, exchange)

    try:
        run.set_up()
        for step in scenario.steps:
            run.perform(step)
    except StepFailed as failure:
        message = failure.reason if run.step is None else f"{run.step.label}: {failure.reason}"
        return result(Outcome.FAILED, message, failure.detail, failure.exchange)
    except (ControlPlaneError, requests.RequestException) as error:
        label = run.step.label if run.step is not None else "setting up the merchant"
        return result(Outcome.ERROR, f"{label}: {type(error).__name__}: {error}")
    except Exception as error:
        label = run.step.label if run.step is not None else "setting up the merchant"
        return result(Outcome.ERROR, f"{label}: {type(error).__name__}: {error}", traceback.format_exc())
    finally:
        run.tear_down()
    return result(Outcome.PASSED)


@dataclass
class _Run:
    """The state of one scenario as it runs: its merchant, receiver endpoint and variables."""

    scenario: Scenario
    where: Target
    step: Step | None = None
    merchant: Merchant | None = None
    endpoint: WebhookEndpoint | None = None
    variables: dict[str, Any] = field(default_factory=dict)
    http: requests.Session = field(default_factory=requests.Session)
    clock_after_step: datetime | None = None  # the mock clock when the step before ended, if needed

    # -- the merchant ----------------------------------------------------------------------------

    def set_up(self) -> None:
        settings = self.scenario.merchant
        created: dict[str, Any] = {}
        if "rate_limit" in settings:
            created["rate_limit"] = settings["rate_limit"]
        with Sandbox(self.where.url, self.where.admin_key, timeout=self.where.timeout) as sandbox:
            self.merchant = merchant = sandbox.create_merchant(**created)
        self.variables = {
            "merchant_id": merchant.merchant_id,
            "profile_id": merchant.profile_id,
            "secret_key": merchant.secret_key,
            "publishable_key": merchant.publishable_key,
            "run_id": uuid.uuid4().hex[:16],
        }
        receiver = self.scenario.receiver
        if receiver is not None:
            self.endpoint = self.where.receiver.endpoint(merchant.signing_key)
            if receiver:
                self.endpoint.respond_with(
                    status=receiver.get("status", 200),
                    delay=parse_duration(receiver.get("delay", "0s")),
                    times=receiver.get("times"),
                )
            merchant.set_webhook_url(self.endpoint.url)
            self.variables[RECEIVER_VARIABLE] = self.endpoint.url
        self.variables.update(self._substituted(self.scenario.variables))
        if "outcomes" in settings:
            try:
                merchant.set_outcomes(self._substituted(settings["outcomes"]))
            except ControlPlaneError as error:
                raise StepFailed(f"merchant.outcomes: the control plane refused them: {error}") from None
        self._remember_clock(0)

    def tear_down(self) -> None:
        """Stop the merchant's deliveries and free what the scenario made; the result stands."""
        if self.endpoint is not None:
            self.where.receiver.remove(self.endpoint)
        self.http.close()
        if self.merchant is not None:
            # The server went away or refuses: nothing is left to free.
            with (
                suppress(ControlPlaneError, requests.RequestException),
                Sandbox(self.where.url, self.where.admin_key, timeout=self.where.timeout) as sandbox,
            ):
                sandbox.delete_merchant(self.merchant.merchant_id)
            self.merchant.close()

    # -- the steps -------------------------------------------------------------------------------

    def perform(self, step: Step) -> None:
        self.step = step
        spec = self._substituted(step.spec)
        problem = substituted_problem(spec)
        if problem is not None:
            raise StepFailed(problem)
        try:
            if step.kind == "request":
                self._request(spec)  # with its expect and save
            else:
                action: Callable[[Any], None] = getattr(self, f"_{step.kind}")
                action(spec[step.kind])
        except ControlPlaneError as error:
            raise StepFailed(f"the control plane refused it: {error}") from None
        self._remember_clock(step.number)

    def _request(self, spec: Mapping[str, Any]) -> None:
        request = spec["request"]
        expect = spec.get("expect", {})
        headers = self._key_header(request.get("key", "secret"))
        headers.update({str(name): _text(value) for name, value in request.get("headers", {}).items()})
        query = {str(name): _text(value) for name, value in request.get("query", {}).items()}
        timeout = parse_duration(request["timeout"]) if "timeout" in request else self.where.timeout
        expected = expect.get("answer", WHOLE)
        merchant = self._merchant()
        recorded = merchant.request_count() if expected == NO_ANSWER and merchant.records_requests() else None
        sent = send(self.http, self.where.url, request, headers=headers, query=query, timeout=timeout)
        if sent.timed_out and recorded is not None:
            # Held by a hang until the server sees the client gone (a quarter second or so), and
            # recorded then: the steps after it find it in the journal.
            deadline = time.monotonic() + JOURNAL_SETTLE_SECONDS
            while merchant.request_count() == recorded and time.monotonic() < deadline:
                time.sleep(POLL_SECONDS)
        wrong_answer = sent.mismatch(expected)
        if wrong_answer is not None:
            raise StepFailed(wrong_answer, exchange=sent.exchange)
        exchange = sent.exchange
        if exchange is None:
            return  # none came, as expected
        answer, answer_is_json = exchange.answer, exchange.answer_is_json
        # An unexpected status says it all: the body of an error answer cannot meet a success's.
        wrong_status = status_mismatch(expect.get("status"), exchange.status)
        if wrong_status is not None:
            raise StepFailed(wrong_status, exchange=exchange)
        if "body" in expect:
            if not answer_is_json:
                raise StepFailed("body: expected a JSON answer, got text", exchange=exchange)
            mismatches = body_mismatches(expect["body"], answer)
            if mismatches:
                raise StepFailed("; ".join(mismatches), exchange=exchange)
        for name, path in spec.get("save", {}).items():
            found, value = lookup(answer, path) if answer_is_json else (False, None)
            if not found:
                raise StepFailed(f"save {name}: the answer has no {path}", exchange=exchange)
            self.variables[name] = value

    def _key_header(self, key: str) -> dict[str, str]:
        merchant = self._merchant()
        value = {
            "secret": merchant.secret_key,
            "publishable": merchant.publishable_key,
            "admin": self.where.admin_key,
        }.get(key)
        return {} if value is None else {"api-key": value}

    def _advance(self, duration: str) -> None:
        self._merchant().advance(parse_duration(duration))

    def _freeze(self, frozen: bool) -> None:
        if frozen:
            self._merchant().freeze()
        else:
            self._merchant().resume()

    def _set_outcomes(self, rules: list[Any]) -> None:
        self._merchant().set_outcomes(rules)

    def _receiver(self, answer: Mapping[str, Any]) -> None:
        endpoint = self._endpoint()
        if answer.get("recover"):
            endpoint.respond_with(200)
        elif answer.get("hang"):
            endpoint.respond_with(200, delay=HANG_SECONDS, times=answer.get("times"))
        else:
            delay = parse_duration(answer.get("delay", "0s"))
            endpoint.respond_with(answer.get("status", 200), delay=delay, times=answer.get("times"))

    def _wait_webhooks(self, _: Mapping[str, Any]) -> None:
        if not self._merchant().wait_webhooks(timeout=WAIT_SECONDS):
            raise StepFailed(NOT_DRAINED)

    def _expect_webhook(self, expected: Mapping[str, Any]) -> None:
        endpoint = self._endpoint()
        event_type, object_id = expected["event_type"], expected.get("object_id")
        attempt = expected.get("attempt", 1)
        delivery = endpoint.wait_until(
            lambda events: nth_delivery(events, event_type, object_id, attempt), WAIT_SECONDS
        )
        if delivery is None:
            wanted = event_type if object_id is None else f"{event_type} for {object_id}"
            ordinal = "" if attempt == 1 else f" (attempt {attempt})"
            raise StepFailed(
                f"no {wanted}{ordinal} arrived within {WAIT_SECONDS:g} s", detail=arrived(endpoint.events)
            )
        signed = expected.get("signed", True)
        if delivery.verified != signed:
            state = "does not verify" if signed else "verifies"
            raise StepFailed(
                f"{delivery.event_type} {delivery.event_id}: its signature {state} with the merchant's "
                "signing key",
                detail=arrived(endpoint.events),
            )
        if "within" in expected:
            self._check_within(delivery, parse_duration(expected["within"]), expected["within"])

    def _check_within(self, delivery: ReceivedWebhook, seconds: float, written: str) -> None:
        created_text = delivery.body.get("timestamp") if isinstance(delivery.body, dict) else None
        if not isinstance(created_text, str) or self.clock_after_step is None:
            raise StepFailed(f"{delivery.event_type} {delivery.event_id}: the webhook has no timestamp")
        apart = abs((parse_time(created_text) - self.clock_after_step).total_seconds())
        if apart > seconds:
            before = "the start" if self._step_number() == 1 else f"step {self._step_number() - 1}"
            raise StepFailed(
                f"{delivery.event_type} {delivery.event_id} happened at {created_text}, {apart:g} s of "
                f"mock time from the end of {before} ({_timestamp(self.clock_after_step)}); "
                f"expected within {written}"
            )

    def _expect_deliveries(self, expected: Mapping[str, Any]) -> None:
        merchant = self._merchant()
        event_type, object_id = expected["event_type"], expected.get("object_id")
        wanted = event_type if object_id is None else f"{event_type} for {object_id}"
        # The log is read once every queued delivery has been attempted, so that it no longer changes
        # unless the clock moves; a mismatch then fails at once.
        drained = merchant.wait_webhooks(timeout=WAIT_SECONDS)
        reasons, detail = delivery_mismatches(merchant, event_type, object_id, expected, wanted)
        if reasons:
            if not drained:  # the log was read while deliveries were still to come: says why
                reasons.insert(0, NOT_DRAINED)
            raise StepFailed("; ".join(reasons), detail=detail)

    def _fault(self, rule: Mapping[str, Any]) -> None:
        self._merchant().add_fault(
            rule["effect"], match=rule.get("match"), timing=rule.get("timing"), schedule=rule.get("schedule")
        )

    def _clear_faults(self, _: bool) -> None:
        self._merchant().clear_faults()

    def _expect_requests(self, expected: Mapping[str, Any]) -> None:
        filters = {name: expected[name] for name in ("method", "path", "status") if name in expected}
        counted = self._merchant().request_count(**filters)
        if counted != expected["count"]:
            wanted = " ".join(str(value) for value in filters.values())
            holds = f"the journal holds {counted} request(s) {wanted or 'in all'}"
            off = "" if self._merchant().records_requests() else f" ({JOURNAL_OFF})"
            raise StepFailed(
                f"{holds}; expected {expected['count']}{off}",
                detail="\n".join(
                    f"{entry['method']} {entry['path']} {entry['status'] or 'no answer'}"
                    for entry in reversed(self._merchant().requests())
                ),
            )

    # -- helpers ---------------------------------------------------------------------------------

    def _substituted(self, value: Any) -> Any:
        try:
            return substitute(value, self.variables)
        except UnknownVariable as error:  # a file is checked before it runs; a saved value may be missing
            raise StepFailed(str(error)) from None

    def _merchant(self) -> Merchant:
        if self.merchant is None:
            raise RuntimeError("the scenario's merchant is not created")
        return self.merchant

    def _endpoint(self) -> WebhookEndpoint:
        if self.endpoint is None:
            raise StepFailed("the scenario has no webhook receiver: give it merchant.receiver")
        return self.endpoint

    def _step_number(self) -> int:
        return 0 if self.step is None else self.step.number

    def _remember_clock(self, finished: int) -> None:
        """Read the mock clock after step `finished` (0: the set-up) when the next step measures from it."""
        steps = self.scenario.steps
        following = steps[finished] if finished < len(steps) else None
        if (
            following is not None
            and following.kind == "expect_webhook"
            and "within" in following.spec[following.kind]
        ):
            self.clock_after_step = self._merchant().now()


def _text(value: Any) -> str:
    """A header or query value as text: JSON's way for booleans and numbers, sent as written."""
    return value if isinstance(value, str) else json.dumps(value)


def _timestamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
