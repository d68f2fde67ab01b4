"""The browser of every Chromium test: ``chromium(p)`` launches /usr/bin/chromium through Playwright
as a :class:`~evaluators.testing.app_server.WatchedBrowser`, and the test fails on any console error,
uncaught page error, failed request or HTTP 4xx / 5xx response of any of its pages (issue 35: two 404s
of every page opened by its own address had gone unnoticed). Problems a test causes on purpose go
inside ``browser.expecting_problems()``."""

from __future__ import annotations

import os

import pytest

from tests.app_server import CHROMIUM, CHROMIUM_ARGS, WatchedBrowser, app_env, free_port, start_app, stop, wait_healthy


@pytest.fixture
def chromium():
    """``chromium(p)`` -> a watched headless Chromium of the Playwright instance ``p``."""
    opened: list[WatchedBrowser] = []

    def launch(p, **kwargs) -> WatchedBrowser:
        browser = WatchedBrowser(p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, **kwargs))
        opened.append(browser)
        return browser

    yield launch
    problems = [x for b in opened for x in b.problems]
    assert not problems, "the browser console reported problems:\n" + "\n".join(problems)


@pytest.fixture
def app_url(tmp_path):
    """The served dashboard (``serve.py``) on a free local port, offline, its run history in the test's
    tmp dir (``runs.sqlite3``); stopped after the test."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(tmp_path), tmp_path / "streamlit.log")
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        stop(proc)


def shots_wanted() -> bool:
    """Screenshots are for a person to look at: taken when ``RAG_EVAL_SHOTS`` names a folder, skipped
    otherwise (each costs about a second; the assertions never read them)."""
    return bool(os.environ.get("RAG_EVAL_SHOTS"))


def snap(page, path, wait_ms: int = 0) -> None:
    """``page.screenshot(full_page=True)`` when screenshots are wanted."""
    if shots_wanted():
        if wait_ms:
            page.wait_for_timeout(wait_ms)
        page.screenshot(path=str(path), full_page=True)


def tall_screenshot(page, path, height: int = 2200, width: int = 1400, back: int = 1000) -> None:
    """The whole page (Streamlit scrolls inside the window: the window is made tall, then back);
    only when screenshots are wanted."""
    if not shots_wanted():
        return
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_timeout(700)
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": width, "height": back})
