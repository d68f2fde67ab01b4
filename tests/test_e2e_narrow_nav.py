"""On a phone-wide screen, choosing a page in the sidebar closes the sidebar (``ui/serving/narrow_nav.py``),
in real headless Chromium: at 390 px with a desktop browser's user agent (where Streamlit alone leaves
the sidebar over the new page) the sidebar is opened, a page chosen, and the page's heading is in
view with the sidebar off the screen — twice, the second choice after a page change; at 1280 px a
choice leaves the sidebar open; with a phone's user agent (Streamlit closes the sidebar itself) it
stays closed, not reopened by a second press. On the way, the Glossary's cards read in their order at
both widths (the TRACE metrics first, together). Screenshots go to $RAG_EVAL_SHOTS."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.app_server import CHROMIUM
from tests.browser_fixtures import shots_wanted

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium")]

IPHONE_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
             "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")


def choose(page, title: str, heading: str) -> None:
    """Open the sidebar, choose ``title`` in its page list, wait for the page's ``heading``."""
    from playwright.sync_api import expect

    page.get_by_test_id("stExpandSidebarButton").click()
    nav = page.get_by_test_id("stSidebarNav")
    expect(nav).to_be_in_viewport(timeout=30_000)
    nav.get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=heading)).to_be_attached(timeout=60_000)


def assert_closed_over(page, heading: str) -> None:
    """The sidebar is closed (its own button says so, it is off the screen) and ``heading`` is in view."""
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stExpandSidebarButton")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stSidebar")).not_to_be_in_viewport(timeout=30_000)
    expect(page.get_by_role("heading", name=heading)).to_be_in_viewport(ratio=1, timeout=30_000)


def cards_in_order(page) -> None:
    """The Glossary's cards read (top to bottom, left to right) in the order of its entries: the TRACE
    metrics first, together (two columns of cards stacked on a phone put context_utilization 30th)."""
    from tests import layout_checks as lc
    from ui.glossary import entries

    frame = entries.glossary_frame()
    trace = list(frame[frame["family"] == "trace"]["metric"])
    page.wait_for_timeout(500)  # the cards laid out for the width
    assert lc.bold_in_reading_order(page, list(frame["metric"]))[:len(trace)] == trace


def test_choosing_a_page_on_a_phone_wide_screen_closes_the_sidebar(tmp_path, chromium, app_url):
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)

    def shot(page, name: str) -> None:
        if shots_wanted():
            page.wait_for_timeout(500)
            page.screenshot(path=str(shots / name))

    with sync_playwright() as p:
        browser = chromium(p)
        # -- 390 px, a desktop browser's user agent: Streamlit alone keeps the sidebar over the page
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(app_url)
        expect(page.get_by_role("heading", name="RAG evaluation dashboard")).to_be_visible(timeout=90_000)
        expect(page.get_by_test_id("stSidebar")).not_to_be_in_viewport(timeout=30_000)  # closed at first
        choose(page, "Glossary", "Metrics glossary")
        assert_closed_over(page, "Metrics glossary")
        shot(page, "nav_390_glossary.png")
        cards_in_order(page)  # the phone reads the glossary's cards in their order, the TRACE metrics first
        choose(page, "Upload", "Upload test cases")  # a second choice, after a page change: the same
        assert_closed_over(page, "Upload test cases")
        shot(page, "nav_390_upload.png")

        # -- 1280 px: the sidebar sits beside the page and stays open after a choice
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_timeout(500)  # the layout for the new width
        if page.get_by_test_id("stExpandSidebarButton").is_visible():  # closed on the phone: open it
            page.get_by_test_id("stExpandSidebarButton").click()
        nav = page.get_by_test_id("stSidebarNav")
        expect(nav).to_be_in_viewport(timeout=30_000)
        nav.get_by_role("link", name="Glossary").click()
        expect(page.get_by_role("heading", name="Metrics glossary")).to_be_in_viewport(timeout=60_000)
        page.wait_for_timeout(500)  # what would close it runs at once after the click; it must not
        expect(nav).to_be_in_viewport()
        expect(page.get_by_test_id("stExpandSidebarButton")).to_be_hidden()
        shot(page, "nav_1280_glossary.png")
        cards_in_order(page)  # and so does a wide screen, two cards a row
        page.close()

        # -- 390 px, a phone's user agent: Streamlit closes it; the page's script leaves it closed
        phone = browser.new_context(viewport={"width": 390, "height": 844}, user_agent=IPHONE_UA,
                                    is_mobile=True, has_touch=True)
        page = phone.new_page()
        page.goto(app_url)
        expect(page.get_by_role("heading", name="RAG evaluation dashboard")).to_be_visible(timeout=90_000)
        choose(page, "Glossary", "Metrics glossary")
        assert_closed_over(page, "Metrics glossary")
        page.wait_for_timeout(500)  # a second press (the script's) would reopen it
        expect(page.get_by_test_id("stSidebar")).not_to_be_in_viewport()
        shot(page, "nav_390_phone_glossary.png")
