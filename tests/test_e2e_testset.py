"""'Make a test set' in real headless Chromium with the sample's documents: one click for the
documents, the offline generator, progress, the review table, a passage with its answer marked,
saving and the JSONL download; and the passage HTML escapes what documents hold."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.app_server import CHROMIUM
from tests.browser_fixtures import tall_screenshot
from ui.testset.passage import passage_html


def test_a_passage_is_escaped_and_its_answer_marked():
    text = 'Use <script>alert("x")</script> & <img src=x onerror=alert(1)> on port 5432 by default.'
    out = passage_html(text, "5432", source='a"<b>.md#1')
    assert "<script>" not in out and "<img" not in out and "&lt;script&gt;" in out and "&amp;" in out
    assert '<mark class="ts-answer"' in out and ">5432</mark>" in out
    assert 'a&quot;&lt;b&gt;.md#1' in out
    evil = passage_html("Plain passage text here.", '<b onmouseover="x">')  # an answer not in the text
    assert "<b " not in evil and "<mark" not in evil
    by_evidence = passage_html("Some words. The evidence sentence here.", "not in it", "The evidence sentence")
    assert ">The evidence sentence</mark> here." in by_evidence  # no answer in the text: its sentence is marked


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium")
def test_make_a_test_set_from_the_samples_documents(tmp_path, chromium, app_url):
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = chromium(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
        main = page.get_by_test_id("stMain")
        page.goto(f"{app_url}/testset")
        expect(page.get_by_role("heading", name="Make a test set")).to_be_visible(timeout=60_000)
        page.get_by_role("button", name="Use the sample's documents").click()
        expect(main.get_by_text(re.compile(r"Read 15 documents, 33 passages"))).to_be_visible(timeout=30_000)
        count = main.get_by_label("Questions")
        count.fill("8")
        count.press("Enter")
        page.get_by_role("button", name="Make questions").click()
        expect(page.get_by_role("heading", name="Review the questions")).to_be_visible(timeout=120_000)
        expect(main.get_by_text("8 of 8 questions (offline)")).to_be_visible()
        grid = page.get_by_test_id("stDataFrame")
        expect(grid).to_be_visible()
        mark = page.locator("mark.ts-answer").first
        expect(mark).to_be_visible(timeout=30_000)
        assert mark.inner_text().strip()
        tall_screenshot(page, shots / "testset_review.png", 2000, back=1100)
        page.get_by_role("button", name=re.compile(r"Save these 8 questions")).click()
        expect(main.get_by_text(re.compile(r"Saved 8 questions as the test set"))).to_be_visible(timeout=30_000)
        with page.expect_download() as dl:
            page.get_by_role("button", name="Download as JSONL").click()
        rows = [json.loads(line) for line in Path(dl.value.path()).read_text().splitlines()]
        assert len(rows) == 8 and all(r["reference_contexts"] and r["metadata"]["generator"] == "offline"
                                      for r in rows)
        tall_screenshot(page, shots / "testset_saved.png", 2000, back=1100)
