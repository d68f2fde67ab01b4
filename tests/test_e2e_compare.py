"""Issue 33 in real headless Chromium, as a visitor sees it: the sample and its version 2 loaded from
the Start page in one click each, both evaluated with TRACE, then Compare's "Which version is
better?" opens on them (version 1 as the baseline), says in words that version 2 is worse, draws the
intervals and lists the regressions; one opens both answers side by side in Inspect. Screenshots go
to $RAG_EVAL_SHOTS (or the test's tmp dir)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.app_server import CHROMIUM, app_env, free_port, start_app, stop, wait_healthy
from tests.browser_fixtures import tall_screenshot

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium")]


def test_two_versions_of_the_sample_compared_in_chromium(tmp_path, chromium):
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(tmp_path), tmp_path / "streamlit.log")
    errors: list[str] = []
    try:
        wait_healthy(url, proc)
        with sync_playwright() as p:
            browser = chromium(p)  # fails the test on any console error or failed request
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            page.on("pageerror", lambda e: errors.append(str(e)))

            def shot(name: str) -> None:  # a tall window: Streamlit scrolls inside its main block
                tall_screenshot(page, shots / name, 3000, back=1100)

            def evaluate(button: str, filename: str) -> None:
                page.goto(url)
                expect(page.get_by_role("heading", name="RAG evaluation dashboard")).to_be_visible(timeout=30_000)
                page.get_by_role("button", name=re.compile(button)).click()
                expect(page.get_by_role("heading", name="Evaluate")).to_be_visible(timeout=30_000)
                expect(page.get_by_text(f"16 cases from {filename}")).to_be_visible(timeout=30_000)
                run = page.get_by_role("button", name=re.compile(r"^Run TRACE.* on 16 cases"))
                expect(run).to_be_enabled(timeout=30_000)
                run.click()
                expect(page.get_by_text(re.compile(f"^Finished “trace on {re.escape(filename)}”"))).to_be_visible(
                    timeout=180_000)

            evaluate("Load the sample", "sample_rag.jsonl")
            evaluate("Load version 2 of the sample", "sample_rag_version2.jsonl")
            shot("c0_results_v2.png")

            # -- Compare opens on the two versions, version 1 as the baseline, the verdict first
            page.get_by_role("link", name="Compare").first.click()
            expect(page.get_by_role("heading", name="Compare")).to_be_visible(timeout=30_000)
            verdict = page.get_by_test_id("stAlertContentError").first
            expect(verdict).to_contain_text(
                re.compile(r"trace on sample_rag_version2\.jsonl is worse than trace on sample_rag\.jsonl on "
                           r"expected adherence by 0\.\d+ \(95 % CI 0\.\d+–0\.\d+\), on 16 paired questions"),
                timeout=60_000)
            expect(page.get_by_text(re.compile("Cases paired by case id: 16 cases in both runs"))).to_be_visible()
            expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=30_000)
            expect(page.get_by_text("Regressions", exact=True)).to_be_visible()
            links = page.locator("a[href*='vs=']")
            expect(links.first).to_be_visible(timeout=30_000)
            assert links.count() >= 8  # ten regressions (the three improvements sit in a closed expander)
            # the retriever change: the same answer, its sentences no longer supported by B's documents
            expect(page.get_by_text(re.compile("the baseline had the same sentence fully supported")).first
                   ).to_be_visible()
            shot("c1_compare_versions.png")

            # -- one regression side by side in Inspect
            links.first.click()
            expect(page.get_by_text("The same question under both versions")).to_be_visible(timeout=30_000)
            expect(page.locator(".rag-response")).to_have_count(2, timeout=30_000)
            expect(page.locator('.rag-response[data-view="Candidate (B)"] [data-level="none"], '
                                '.rag-response[data-view="Candidate (B)"] [data-level="partial"]').first
                   ).to_be_visible()
            expect(page.locator(".rag-doc").first).to_be_visible()
            shot("c2_side_by_side.png")
            browser.close()
        assert not errors, errors
    finally:
        stop(proc)
