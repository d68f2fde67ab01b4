"""The browser of every Chromium test: ``chromium(p)`` launches /usr/bin/chromium through Playwright
as a :class:`~evaluators.testing.app_server.WatchedBrowser`, and the test fails on any console error,
uncaught page error, failed request or HTTP 4xx / 5xx response of any of its pages (issue 35: two 404s
of every page opened by its own address had gone unnoticed). Problems a test causes on purpose go
inside ``browser.expecting_problems()``."""

from __future__ import annotations

import pytest

from tests.app_server import CHROMIUM, CHROMIUM_ARGS, WatchedBrowser


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
