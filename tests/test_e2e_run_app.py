"""'Run your app' in real headless Chromium against the served dashboard: the sample's questions put to
the sample app's two versions (started by the dashboard in its own process on first use), progress,
then Compare opens by itself on the two runs with the verdict, the app's own latency / tokens / errors
lines and the retrieval grid; Results shows the app's line too. Phone width (390 px) and desktop
(1280 px): nothing is cut off. Screenshots with ``RAG_EVAL_SHOTS=folder``."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.app_server import CHROMIUM
from tests.browser_fixtures import shots_wanted, snap

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium")]

#: A width a phone shows (the iPhone 12-15's CSS width) and a laptop's.
WIDTHS = (390, 1280)


#: The elements (of those ``sel`` selects) wider than the window: cut off or scrolled sideways — but
#: those inside a box of their own that scrolls sideways (a data frame, Compare's nine-column "Every
#: metric" table on a phone): they are read by scrolling that box, nothing is cut.
_WIDE = """(sel) => {
    const w = document.documentElement.clientWidth, out = [];
    const scrolls = (el) => {
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
            const o = getComputedStyle(a).overflowX;
            if ((o === 'auto' || o === 'scroll') && a.getBoundingClientRect().right <= w + 1
                && a.scrollWidth > a.clientWidth) return true;
        }
        return false;
    };
    for (const el of document.querySelectorAll(sel)) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > w + 1 && !el.closest('[data-testid="stDataFrame"]')
            && getComputedStyle(el).position !== 'fixed' && !scrolls(el))
            out.push((el.getAttribute('data-testid') || el.tagName) + ' ' + Math.round(r.right) + '>' + w);
    }
    return out.slice(0, 10);
}"""


def overflowing(page, width: int, within: str = '[data-testid="stMain"] *') -> list[str]:
    """At ``width`` px, the elements of the main area (or those ``within`` selects) wider than the
    window, once the page has laid itself out again (polled, no fixed wait; up to 5 s)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.set_viewport_size({"width": width, "height": 1000})
    try:
        page.wait_for_function(f"(sel) => ({_WIDE})(sel).length === 0", arg=within, timeout=5_000, polling="raf")
    except PlaywrightTimeout:
        pass
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")  # (settled)
    return page.evaluate(_WIDE, within)


def shot(page, path, width: int) -> None:
    """The whole page at ``width`` (Streamlit scrolls inside the window: the window is made tall)."""
    if shots_wanted():
        page.set_viewport_size({"width": width, "height": 2600})
        page.wait_for_timeout(700)
        page.screenshot(path=str(path))
        page.set_viewport_size({"width": width, "height": 1000})


def test_run_the_sample_app_then_compare_opens_on_both_versions(tmp_path, chromium, app_url):
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        main = page.get_by_test_id("stMain")
        page.goto(f"{app_url}/run_app")
        expect(page.get_by_role("heading", name="Run your app")).to_be_visible(timeout=60_000)
        expect(main.get_by_text("32 calls to the app")).to_be_visible(timeout=30_000)
        for w in WIDTHS:  # the form before the run, on a phone and a laptop
            assert (wide := overflowing(page, w)) == [], f"cut off at {w} px: {wide}"
            shot(page, shots / f"run_app_{w}.png", w)
        page.set_viewport_size({"width": 1280, "height": 1000})
        page.get_by_role("button", name="Run 2 versions on 16 questions").click()
        expect(main.get_by_text(re.compile(r"Asking your app|Evaluating the answers"))).to_be_visible(timeout=30_000)
        snap(page, shots / "run_app_progress.png")
        # the calls, then both evaluations; then Compare opens by itself on v1 (baseline) and v2
        expect(page.get_by_role("heading", name="Compare")).to_be_visible(timeout=240_000)
        expect(main.get_by_text(re.compile(r"v2 is worse than v1 on expected adherence"))).to_be_visible(
            timeout=60_000)
        expect(main.get_by_text("The app itself")).to_be_visible(timeout=30_000)
        expect(main.get_by_text(re.compile(r"v2 used \d+ % more tokens than v1"))).to_be_visible(timeout=30_000)
        expect(main.get_by_text(re.compile(r"Neither version failed a question"))).to_be_visible(timeout=30_000)
        expect(main.get_by_text(re.compile(r"^Retrieval"))).to_be_visible(timeout=30_000)
        table = main.get_by_test_id("stTable").filter(has_text="K = 5")  # the retrieval grid (not Every metric)
        expect(table).to_contain_text("nDCG", timeout=30_000)
        expect(table).to_contain_text("→", timeout=30_000)
        mine = ('[data-testid="stTable"] *, [data-testid="stMarkdownContainer"] li, '
                '[data-testid="stCaptionContainer"] *')  # the app's lines, the retrieval grid and its legend
        for w in WIDTHS:
            assert (wide := overflowing(page, w, mine)) == [], f"Compare cut off at {w} px: {wide}"
            # the retrieval grid itself fits the window (no sideways scrolling to read it)
            assert table.evaluate("el => el.scrollWidth <= document.documentElement.clientWidth + 1"), w
            shot(page, shots / f"run_app_compare_{w}.png", w)
        page.set_viewport_size({"width": 1280, "height": 1000})
        # Results: both runs, named after their targets, with the app's own line
        page.goto(f"{app_url}/results")
        expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=60_000)
        expect(main.get_by_text(re.compile(r"16 calls, latency p50 .* none failed"))).to_be_visible(timeout=30_000)
        expect(main.get_by_test_id("stMetric").filter(has_text="Expected adherence")).to_be_visible(timeout=30_000)
        snap(page, shots / "run_app_results.png")
        # back on Run your app: the outcome, with the answers to download and the way to Compare
        page.goto(f"{app_url}/run_app")
        expect(main.get_by_text(re.compile(r"v1 · 16 of 16 answered"))).to_be_visible(timeout=60_000)
        expect(page.get_by_role("button", name="Compare v1 with v2")).to_be_visible(timeout=30_000)
        download = page.get_by_role("button", name="Download v2's answers (JSONL cases file)")
        expect(download).to_be_visible(timeout=30_000)
        for w in WIDTHS:
            assert (wide := overflowing(page, w)) == [], f"the outcome cut off at {w} px: {wide}"
            shot(page, shots / f"run_app_outcome_{w}.png", w)
