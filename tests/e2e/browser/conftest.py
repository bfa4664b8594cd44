"""Browser fixtures: Debian's Chromium driven by Playwright, and a merchant's site on its own origin.

The pages under test are served by the session's real `mocksrv serve` process (the e2e fixtures);
the merchant's own pages (a checkout page loading the SDK script) come from a second server on
another port, so the browser treats mocksrv as a third party, as it treats the real service. A
failing test leaves a screenshot of every page it opened in `test-artifacts/screenshots/`.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

CHROMIUM = os.environ.get("MOCKSRV_CHROMIUM", "/usr/bin/chromium")
# Playwright adds --headless; these keep Chromium from reaching out to a network it cannot reach.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}
SCREENSHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "screenshots"
TIMEOUT_MS = 10_000  # the longest any one step may wait for the page


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_FAILED = pytest.StashKey[bool]()


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if shutil.which(CHROMIUM) is None:
        pytest.fail(
            f"Chromium is not at {CHROMIUM}: `make test` installs Debian's chromium package "
            "(or set MOCKSRV_CHROMIUM to its path)",
            pytrace=False,
        )
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def new_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Callable[..., Page]]:
    """Open pages in fresh browser contexts (`viewport` defaults to a desktop's); each is closed after
    the test, and photographed first if the test failed."""
    contexts: list[BrowserContext] = []

    def open_page(viewport: dict[str, int] | None = None) -> Page:
        context = browser.new_context(viewport=viewport or DESKTOP)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield open_page
    failed = request.node.stash.get(_FAILED, False)
    name = re.sub(r"[^\w.-]+", "_", request.node.name)
    for number, context in enumerate(contexts):
        if failed:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            for index, page in enumerate(context.pages):
                page.screenshot(path=SCREENSHOTS / f"{name}-{number}-{index}.png", full_page=True)
        context.close()


@pytest.fixture
def page(new_page: Callable[..., Page]) -> Page:
    """A page in a desktop-sized window."""
    return new_page()


@pytest.fixture
def phone(new_page: Callable[..., Page]) -> Page:
    """A page in a 360 px wide window, a small phone's."""
    return new_page(PHONE)


@pytest.fixture
def merchant_site(httpserver: HTTPServer) -> Callable[[str, str], str]:
    """Serve a page of the merchant's own at `path` (on its own origin); answers its address."""

    def serve(path: str, html: str) -> str:
        def handler(request: Request) -> Response:
            return Response(html, content_type="text/html; charset=utf-8")

        httpserver.expect_request(path).respond_with_handler(handler)
        return httpserver.url_for(path)

    return serve


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    """The merchant's site listens on the loopback address only, on a free port."""
    return ("127.0.0.1", 0)
