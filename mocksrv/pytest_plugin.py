"""The pytest plugin: one mocksrv for the session, and per test a fresh merchant and a webhook receiver.

Fixtures (their names and members are a public API):
- `mocksrv` (session): the server, embedded in the test process unless `--mocksrv-url` or
  `MOCKSRV_URL` names one already running. `url`, `admin_key`, `sandbox` (the live sandbox when
  embedded, else None), `create_merchant(**settings)`.
- `mocksrv_merchant`: a merchant of this test alone (`mocksrv.client.Merchant`).
- `mocksrv_webhooks`: a receiver on 127.0.0.1 registered as that merchant's webhook URL
  (`mocksrv.receiver.WebhookEndpoint`).
- `mocksrv_settings` (session): the embedded server's settings; override it to change them.

`--mocksrv-scenarios PATH...` makes each scenario file there (*.yaml, *.yml) a test of its own, run
against the session's server in a merchant of its own, failing with the runner's failure text.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

import pytest
import requests

from mocksrv.client import ControlPlaneError, Merchant, NotMocksrv, Sandbox, unreachable
from mocksrv.domain.clock import exempt_real_intervals
from mocksrv.masking import mask_text
from mocksrv.receiver import WebhookEndpoint, WebhookReceiver
from mocksrv.settings import DEFAULT_ADMIN_KEY, URL_VARIABLE, VARIABLE_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from mocksrv.domain.sandbox import Sandbox as LiveSandbox
    from mocksrv.scenario import Scenario

ADMIN_KEY_VARIABLE = f"{VARIABLE_PREFIX}ADMIN_KEY"
SCENARIO_SUFFIXES = (".yaml", ".yml")
_SCENARIO_ROOTS = pytest.StashKey[list[Path]]()
_STOPPED = pytest.StashKey[str]()  # why a pytest-xdist worker stopped the session

# Before any test module or conftest makes a freeze: a freeze reads freezegun's ignore list when made.
exempt_real_intervals()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mocksrv", "mocksrv, the payments sandbox")
    group.addoption(
        "--mocksrv-url",
        metavar="URL",
        help="use the mocksrv running at URL instead of one embedded in the test process "
        f"(env {URL_VARIABLE})",
    )
    group.addoption(
        "--mocksrv-admin-key",
        metavar="KEY",
        help=f"that server's admin key (env {ADMIN_KEY_VARIABLE}, default {DEFAULT_ADMIN_KEY})",
    )
    group.addoption(
        "--mocksrv-scenarios",
        nargs="+",
        action="extend",
        default=[],
        metavar="PATH",
        help="run each scenario file in PATH (a file, or a directory searched for *.yaml and *.yml) "
        "as a test",
    )


EMBEDDED_MARKER = "mocksrv_embedded"
EMBEDDED_ONLY = "needs mocksrv in the test process (it follows freezegun); --mocksrv-url names another"


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker; collect the scenario paths too, alone, instead of the configured testpaths."""
    config.addinivalue_line(
        "markers",
        f"{EMBEDDED_MARKER}: the test needs the embedded mocksrv (it moves the sandbox's time with "
        "freezegun); skipped when --mocksrv-url or MOCKSRV_URL names an external server",
    )
    paths: list[str] = config.getoption("mocksrv_scenarios")
    if not paths:
        return
    given = [Path(os.path.abspath(config.invocation_params.dir / path)) for path in paths]
    # As pytest names what it collects (through links, as given), and as the files are.
    config.stash[_SCENARIO_ROOTS] = [*given, *(path.resolve() for path in given)]
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        config.args = []  # `pytest --mocksrv-scenarios scenarios/` runs the scenarios, not the suite too
    config.args += [path for path in paths if path not in config.args]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    roots = parent.config.stash.get(_SCENARIO_ROOTS, [])
    if file_path.suffix in SCENARIO_SUFFIXES and any(
        path.is_relative_to(root) for root in roots for path in (file_path, file_path.resolve())
    ):
        scenario_file: ScenarioFile = ScenarioFile.from_parent(parent, path=file_path)
        return scenario_file
    return None


class ScenarioFile(pytest.File):
    """A scenario file: checked when collected, one test named for the scenario (card numbers and
    CVCs masked, as the runner shows the name)."""

    def collect(self) -> Iterator[pytest.Item]:
        from mocksrv.scenario import InvalidScenario, load_scenario

        shown = os.path.relpath(self.path, self.config.invocation_params.dir)
        try:
            scenario = load_scenario(shown)
        except InvalidScenario as invalid:
            raise self.CollectError(str(invalid)) from None
        item: ScenarioTest = ScenarioTest.from_parent(
            self, name=mask_text(scenario.name, read_escapes=False), callobj=_scenario_test(scenario)
        )
        item.extra_keyword_matches.update(scenario.tags)
        yield item


class ScenarioTest(pytest.Function):
    """A scenario as a test: a function, so that it runs with the plugin's fixtures."""

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """The scenario file and name, where a test function would give its module and line."""
        return self.path, None, self.name


def _scenario_test(scenario: Scenario) -> Callable[..., None]:
    """The test function of one scenario: its arguments are the fixtures it runs with."""

    def run_scenario_file(
        mocksrv: MocksrvServer, _mocksrv_receiver: WebhookReceiver, _mocksrv_errors: ServerErrors
    ) -> None:
        from mocksrv.scenario import Target, run_scenario
        from mocksrv.scenario.report import failure_text

        _mocksrv_errors.take()
        result = run_scenario(scenario, Target(mocksrv.url, mocksrv.admin_key, _mocksrv_receiver))
        errors = _mocksrv_errors.take()
        if not result.passed:
            pytest.fail(failure_text(result), pytrace=False)
        if errors:
            pytest.fail("mocksrv logged an error during this scenario:\n" + "\n".join(errors), pytrace=False)

    return run_scenario_file


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run a scenario file reached twice (under two names, or through a link) once, by the name it
    was first reached by; skip the tests that need the embedded server when another is named: marked
    at collection, so that the skip is reported at the test, not here."""
    again = _scenarios_reached_again(items)
    if again:
        config.hook.pytest_deselected(items=again)
        items[:] = [item for item in items if item not in again]
    if _external(config) is None:
        return
    for item in items:
        if item.get_closest_marker(EMBEDDED_MARKER) is not None:
            item.add_marker(pytest.mark.skip(reason=EMBEDDED_ONLY))


def _scenarios_reached_again(items: list[pytest.Item]) -> list[pytest.Item]:
    reached: set[str] = set()
    again: list[pytest.Item] = []
    for item in items:
        if isinstance(item, ScenarioTest):
            real = os.path.realpath(item.path)
            if real in reached:
                again.append(item)
            reached.add(real)
    return again


def _external(config: pytest.Config) -> tuple[str, str] | None:
    """The URL and admin key of the server named on the command line or in the environment, if any."""
    url = config.getoption("mocksrv_url") or os.environ.get(URL_VARIABLE)
    if not url:
        return None
    key = config.getoption("mocksrv_admin_key") or os.environ.get(ADMIN_KEY_VARIABLE) or DEFAULT_ADMIN_KEY
    return url, key


def pytest_sessionstart(session: pytest.Session) -> None:
    """Check a named server and its admin key once, so that a wrong one stops the run at once."""
    external = _external(session.config)
    if external is None or hasattr(session.config, "workerinput"):
        return
    url, key = external
    with Sandbox(url, key, timeout=10) as server:
        try:
            server.merchant_ids()
        except ControlPlaneError as error:
            reason = "refused the admin key" if error.status == 401 else "answered"
            raise pytest.UsageError(f"mocksrv at {url} {reason}: {error}") from None
        except NotMocksrv as error:
            raise pytest.UsageError(f"mocksrv at {url} is not a mocksrv: {error}") from None
        except requests.RequestException as error:
            raise pytest.UsageError(f"mocksrv at {url} cannot be reached: {unreachable(error)}") from None


class MocksrvServer(Sandbox):
    """The session's server: a control-plane client, plus the live sandbox when it is embedded."""

    def __init__(self, url: str, admin_key: str, sandbox: LiveSandbox | None = None) -> None:
        super().__init__(url, admin_key)
        self.sandbox = sandbox


class ServerErrors(logging.Handler):
    """Collects the errors the embedded server logs, so that the test that caused one fails."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self._messages: list[str] = []
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._guard:
            self._messages.append(self.format(record))

    def take(self) -> list[str]:
        with self._guard:
            messages, self._messages = self._messages, []
        return messages


@pytest.fixture(scope="session")
def mocksrv_settings() -> Settings:
    """Settings of the embedded server (defaults); override this fixture to change them."""
    return Settings()


@pytest.fixture(scope="session")
def _mocksrv_errors() -> Iterator[ServerErrors]:
    handler = ServerErrors()
    logger = logging.getLogger("mocksrv")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


@pytest.fixture(scope="session")
def mocksrv(request: pytest.FixtureRequest, _mocksrv_errors: ServerErrors) -> Iterator[MocksrvServer]:
    """The mocksrv of this test session: embedded on a free port, or the one named by URL. A bad
    setting or fixture, or an address it cannot listen on, stops the session at once, in one line."""
    external = _external(request.config)
    if external is not None:
        with MocksrvServer(*external) as server:
            yield server
        return
    from mocksrv.server import MockServer
    from mocksrv.serving.httpserver import ListenError

    try:
        settings: Settings = request.getfixturevalue("mocksrv_settings")
        embedded = MockServer(settings).start()
    except (SettingsError, ListenError) as error:
        _stop_session(request, f"mocksrv: {error}")
    try:
        with MocksrvServer(embedded.url, settings.admin_key, embedded.sandbox) as server:
            yield server
    finally:
        embedded.stop()


def _stop_session(request: pytest.FixtureRequest, message: str) -> NoReturn:
    """Stop the session at once, in one line, with exit code 4. A pytest-xdist worker cannot end the
    run with `pytest.exit` (its controller would report an internal error): it fails the test with
    the message and tells the controller to stop, which ends the run with the same code."""
    if not hasattr(request.config, "workerinput"):
        pytest.exit(message, returncode=pytest.ExitCode.USAGE_ERROR)
    request.session.shouldstop = message
    raise pytest.fail.Exception(message, pytrace=False) from None


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """pytest-xdist's controller: note a worker stopped by `_stop_session`."""
    stopped = getattr(node, "workeroutput", {}).get("shouldstop")
    if isinstance(stopped, str) and stopped.startswith("mocksrv: "):
        node.config.stash[_STOPPED] = stopped


@pytest.hookimpl(tryfirst=True)  # before a conftest's own, which then sees the code and may change it
def pytest_sessionfinish(session: pytest.Session) -> None:
    if _STOPPED in session.config.stash:
        session.exitstatus = pytest.ExitCode.USAGE_ERROR


@pytest.fixture(autouse=True)
def _mocksrv_logged_no_error(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that uses the server, in any way, if the embedded server logged an error meanwhile."""
    if "mocksrv" not in request.fixturenames:
        yield
        return
    collected: ServerErrors = request.getfixturevalue("_mocksrv_errors")
    collected.take()
    yield
    errors = collected.take()
    if errors:
        pytest.fail("mocksrv logged an error during this test:\n" + "\n".join(errors), pytrace=False)


@pytest.fixture
def mocksrv_merchant(mocksrv: MocksrvServer) -> Iterator[Merchant]:
    """A merchant of this test alone, with its own keys, data and clock; deleted after the test, so
    that a long suite's server holds no more than its running tests' merchants."""
    with _reached(mocksrv):
        merchant = mocksrv.create_merchant()
    yield merchant
    try:
        with _reached(mocksrv):
            # With the admin key: the test may have revoked its own key, or deleted the merchant.
            mocksrv.delete_merchant(merchant.merchant_id)
    except ControlPlaneError as error:
        if error.code != "HE_02":  # gone already: deleted, or removed by a restore
            raise
    finally:
        merchant.close()


@contextlib.contextmanager
def _reached(server: MocksrvServer) -> Iterator[None]:
    """A server gone since the session started (stopped, crashed) fails the test in one line, not
    with the chain of connection errors behind it."""
    try:
        yield
    except requests.ConnectionError as error:
        request = error.request
        sent = "" if request is None else f" ({request.method!s} {urlsplit(str(request.url)).path})"
        message = f"mocksrv at {server.url} cannot be reached{sent}: {unreachable(error)}"
        raise pytest.fail.Exception(message, pytrace=False) from None


@pytest.fixture(scope="session")
def _mocksrv_receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver


@pytest.fixture
def mocksrv_webhooks(
    mocksrv_merchant: Merchant, _mocksrv_receiver: WebhookReceiver
) -> Iterator[WebhookEndpoint]:
    """A webhook receiver on 127.0.0.1, registered as this test's merchant's webhook URL."""
    endpoint = _mocksrv_receiver.endpoint(mocksrv_merchant.signing_key)
    mocksrv_merchant.set_webhook_url(endpoint.url)
    yield endpoint
    _mocksrv_receiver.remove(endpoint)
