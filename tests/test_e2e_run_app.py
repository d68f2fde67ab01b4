"""The whole loop in real headless Chromium against the served dashboard, as a new user walks it (issue
57 "How to know it works"): documents -> Make a test set (the sample's documents, named "my-docs test
set") -> Run your app: the sample app's two versions (started by the dashboard in its own process on
first use) on the sample's questions — progress, then Compare opens by itself with the verdict, the
app's own latency / tokens / errors lines and the retrieval grid — and on the test set of one's own ->
Results (both question sets told apart in the Run box, the app's line) -> Compare (runs of one question
set called by their targets, the set said once) -> Inspect -> a share link opened in a fresh browser
on a phone (the run named with its method and time) -> Glossary (found by the names the screens
show; p95 defined). Phone width (390 px) and desktop (1280 px): nothing is cut off. One served app,
one browser; the test set is 4 questions so that the second run adds seconds, not minutes.
Screenshots with ``RAG_EVAL_SHOTS=folder``."""

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


def nav(page, name: str) -> None:
    """Open a page by the sidebar's link (at 1280 px the sidebar is open): the session goes on."""
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name).click()


def test_the_whole_loop_documents_test_set_both_versions_results_compare_inspect_share_glossary(
        tmp_path, chromium, app_url):
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        main = page.get_by_test_id("stMain")

        # -- documents -> a test set of one's own, named
        page.goto(f"{app_url}/testset")
        expect(page.get_by_role("heading", name="Make a test set")).to_be_visible(timeout=60_000)
        page.get_by_role("button", name="Use the sample's documents").click()
        expect(main.get_by_text(re.compile(r"Read 15 documents"))).to_be_visible(timeout=30_000)
        count = main.get_by_label("Questions")
        count.fill("4")
        count.press("Enter")
        page.get_by_role("button", name="Make questions").click()
        expect(page.get_by_role("heading", name="Review the questions")).to_be_visible(timeout=120_000)
        name = main.get_by_role("textbox", name="Name of the test set")
        expect(name).to_have_value("test set from the sample's documents")
        name.fill("my-docs test set")
        name.press("Enter")
        page.get_by_role("button", name=re.compile(r"Save these 4 questions")).click()
        expect(main.get_by_text(re.compile(r"Saved 4 questions as the test set “my-docs test set”"))).to_be_visible(
            timeout=30_000)
        shot(page, shots / "loop_1_testset_1280.png", 1280)

        # -- Run your app: the sample app's two versions on the sample's questions (by the page's links:
        # the test set is this browser session's, an address typed anew would start another session)
        page.get_by_role("link", name="Ask these questions of your app: Run your app →").click()
        expect(page.get_by_role("heading", name="Run your app")).to_be_visible(timeout=60_000)
        page.get_by_text("The sample's 16 questions").click()
        expect(main.get_by_text("32 calls to the app")).to_be_visible(timeout=30_000)
        for w in WIDTHS:  # the form before the run, on a phone and a laptop
            assert (wide := overflowing(page, w)) == [], f"cut off at {w} px: {wide}"
            shot(page, shots / f"loop_2_run_app_{w}.png", w)
        page.set_viewport_size({"width": 1280, "height": 1000})
        page.get_by_role("button", name="Run 2 versions on 16 questions").click()
        expect(main.get_by_text(re.compile(r"Asking your app|Evaluating the answers"))).to_be_visible(timeout=30_000)
        snap(page, shots / "loop_2_run_app_progress.png")
        # the calls, then both evaluations; then Compare opens by itself on v1 (baseline) and v2
        expect(page.get_by_role("heading", name="Compare")).to_be_visible(timeout=240_000)
        expect(main.get_by_text("Runs of your app on the sample's questions: v1, v2.")).to_be_visible(timeout=60_000)
        expect(main.get_by_text(re.compile(r"v2 is worse than v1 on expected adherence"))).to_be_visible(
            timeout=60_000)
        expect(main.get_by_text("The app itself")).to_be_visible(timeout=30_000)
        expect(main.get_by_text(re.compile(r"v2 used (\d+ % more|[\d.]+× as many) tokens"))).to_be_visible(
            timeout=30_000)
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
            shot(page, shots / f"loop_3_compare_sample_{w}.png", w)
        page.set_viewport_size({"width": 1280, "height": 1000})

        # -- the same two versions on the test set of one's own (4 questions)
        nav(page, "Run your app")
        expect(page.get_by_role("heading", name="Run your app")).to_be_visible(timeout=60_000)
        page.get_by_text("Your test set “my-docs test set” (4 questions)").click()
        page.get_by_role("button", name="Run 2 versions on 4 questions").click()
        expect(page.get_by_role("heading", name="Compare")).to_be_visible(timeout=240_000)
        expect(main.get_by_text("Runs of your app on my-docs test set: v1, v2.")).to_be_visible(timeout=60_000)
        expect(main.get_by_text(re.compile(r"^(v2 is (better|worse) than v1|No detectable difference between v2 and v1)"
                                           r" on expected adherence"))).to_be_visible(timeout=60_000)
        shot(page, shots / "loop_4_compare_mine_1280.png", 1280)

        # -- Results: the run on screen is one of the test set's; both question sets told apart
        nav(page, "Results")
        expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=60_000)
        run_box = page.get_by_role("combobox", name="Run")
        expect(run_box).to_have_value("v1 on my-docs test set", timeout=30_000)
        expect(main.get_by_text(re.compile(r"8 calls|4 calls, latency p50 .* none failed"))).to_be_visible(
            timeout=30_000)
        expect(page.get_by_test_id("stSidebar").get_by_text(re.compile(r"^Current run: v1 on my-docs test set · ")))\
            .to_be_visible(timeout=30_000)
        run_box.click()
        options = page.get_by_role("option")
        expect(options.filter(has_text="v1 on the sample's questions")).to_have_count(1, timeout=30_000)
        expect(options.filter(has_text="v2 on my-docs test set")).to_have_count(1)
        page.keyboard.press("Escape")
        for w in WIDTHS:
            shot(page, shots / f"loop_5_results_{w}.png", w)
        page.set_viewport_size({"width": 1280, "height": 1000})

        # -- a share link of it, from the Results page
        page.get_by_role("button", name=re.compile("Share this run")).click()
        code = page.get_by_test_id("stCode")
        expect(code).to_contain_text("/results?share=", timeout=30_000)
        link = code.inner_text().strip()
        page.keyboard.press("Escape")

        # -- Inspect: a case of it, from Results' own link
        nav(page, "Inspect")
        expect(page.locator(".rag-response[data-view=main]")).to_be_visible(timeout=60_000)
        expect(page.get_by_role("combobox", name="Run")).to_have_value("v1 on my-docs test set", timeout=30_000)
        for w in WIDTHS:
            assert (wide := overflowing(page, w, ".rag-response *")) == [], f"Inspect cut off at {w} px: {wide}"
            shot(page, shots / f"loop_6_inspect_{w}.png", w)

        # -- the share link in a fresh browser on a phone: the run named with its method and time
        other = browser.new_page(viewport={"width": 390, "height": 844})
        other.goto(link)
        expect(other.get_by_role("heading", name="Results")).to_be_visible(timeout=60_000)
        expect(other.get_by_role("combobox", name="Run")).to_have_value(
            re.compile(r"^v1 on my-docs test set \(shared with you, read-only\) · trace · [0-9: -]{16}$"),
            timeout=30_000)
        expect(other.get_by_test_id("stMetric").first).to_be_visible(timeout=30_000)
        assert (wide := overflowing(other, 390, '[data-testid="stMetric"] *')) == [], wide
        shot(other, shots / "loop_7_shared_390.png", 390)

        # -- Glossary on the phone: found by the names the screens show; the app's words defined
        other.goto(f"{app_url}/glossary")
        expect(other.get_by_role("heading", name="Metrics glossary")).to_be_visible(timeout=60_000)
        find = other.get_by_role("textbox", name="Find a metric or term")
        find.fill("Expected adherence")
        find.press("Enter")
        expect(other.get_by_text("1 metric.")).to_be_visible(timeout=30_000)
        card = other.get_by_test_id("stColumn").get_by_text("expected_adherence", exact=True)
        expect(card).to_be_visible()
        find.fill("p95")
        find.press("Enter")
        expect(other.get_by_text(re.compile(r"^p50 / p95: Percentiles of the latencies"))).to_be_visible(timeout=30_000)
        assert (wide := overflowing(other, 390)) == [], f"Glossary cut off at 390 px: {wide}"
        shot(other, shots / "loop_8_glossary_390.png", 390)
