"""Review mode in real headless Chromium (marker ``review``): a hybrid run made through the real
pipeline against the loopback LLM server (``bench.review_fixture``), then as a person uses it —
Inspect with both labelings side by side, cross-highlighting by keyboard only, five cases reviewed
(one corrected), a reload that keeps them, Compare's gold agreement with n = 5, and the export
uploaded again. Uploaded HTML stays text in every new view."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from evaluators import datasets
from evaluators.review import ReviewStore, labels_from_case
from evaluators.store import RunStore
from evaluators.types import TestCase
from tests.app_server import CHROMIUM, app_env, free_port, start_app, stop, wait_healthy
from ui.state import COOKIE

pytestmark = [
    pytest.mark.browser,
    pytest.mark.review,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium"),
]

TOKEN = "e2e-review-visitor-000001"
XSS_CASE = TestCase(
    id="xss-review", question="What is the capital of France?",
    response="The capital of France is Paris. It has <img src=x onerror=alert(1)> forty dragons.",
    documents=("Paris is the capital of France. <script>window.__xss=1</script> It lies on the Seine.",
               "Lyon is a large city in France."))


def press_until(page, key: str, target, attr: str, value: str, focus=None, tries: int = 3) -> None:
    """Press ``key`` (after focusing ``focus``) until ``target`` has ``attr`` = ``value``: a key press
    that lands while a rerun replaces the focused widget is pressed again, never clicked."""
    from playwright.sync_api import expect

    for i in range(tries):
        if focus is not None:
            focus.focus()
        page.keyboard.press(key)
        try:
            expect(target).to_have_attribute(attr, value, timeout=5_000)
            return
        except AssertionError:
            if i == tries - 1:
                raise


def test_review_walk_in_chromium(tmp_path, chromium):
    from playwright.sync_api import expect, sync_playwright

    from bench.review_fixture import build, sample_cases

    ids = build(tmp_path / "runs.sqlite3", TOKEN, cases=[XSS_CASE, *sample_cases()[:7]])
    hybrid = RunStore(tmp_path / "runs.sqlite3").load(ids["hybrid"], owner=TOKEN)
    assert hybrid.method == "hybrid" and all(set(r.variants) == {"trace", "gpt_labeling"} for r in hybrid.results)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(tmp_path), tmp_path / "streamlit.log")
    dialogs: list[str] = []
    try:
        wait_healthy(url, proc)
        with sync_playwright() as p:
            browser = chromium(p)
            page = browser.new_page(viewport={"width": 1400, "height": 1200}, accept_downloads=True)
            page.context.add_cookies([{"name": COOKIE, "value": TOKEN, "url": url}])  # the visitor's history
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            main = page.locator(".rag-response[data-view=main]")

            # -- the Results panel's link: both labelings side by side, differences marked
            page.goto(f"{url}/inspect?run={ids['hybrid']}&case=xss-review&compare=1")
            expect(main).to_be_visible(timeout=30_000)
            expect(page.get_by_text("Both labelings side by side: trace vs gpt_labeling")).to_be_visible()
            expect(page.locator(".rag-response[data-view=trace]")).to_be_visible()
            expect(page.locator(".rag-response[data-view=gpt_labeling]")).to_be_visible()
            expect(page.locator(".rag-docs")).to_be_visible()  # the page's last block: the run is done

            # -- cross-highlighting with the keyboard only (focus lands on the sentence picker)
            r0 = next(r for r in hybrid.results if r.case.id == "xss-review")
            group = page.get_by_role("radiogroup", name="Response sentence")
            first = group.get_by_role("radio").first
            press_until(page, "Space", main.locator('[data-key="a"]'), "data-state", "focus", focus=first)
            want = set(r0.labels.sentences[0].supporting_keys)
            lit = page.locator('.rag-docs [data-state="lit"]')
            expect(lit).to_have_count(len(want))
            assert {lit.nth(i).get_attribute("data-key") for i in range(lit.count())} == want
            style = "e => getComputedStyle(e).outlineStyle"  # the page's stylesheet makes it visible
            assert main.locator('[data-key="a"]').evaluate(style) == "solid" and lit.first.evaluate(style) == "dashed"
            press_until(page, "ArrowRight", main.locator('[data-key="b"]'), "data-state", "focus")
            expect(main.locator('[data-key="a"]')).not_to_have_attribute("data-state", "focus")
            expect(page.locator(".rag-focus")).to_contain_text("It has <img src=x onerror=alert(1)> forty dragons.")
            assert page.evaluate("document.activeElement.type") == "radio"  # focus kept through the rerun
            page.get_by_role("combobox", name=re.compile("Document sentence")).focus()
            page.keyboard.type("0a")
            page.keyboard.press("Enter")
            expect(page.locator('.rag-docs [data-key="0a"]')).to_have_attribute("data-state", "focus")
            citing = {s.key for s in r0.labels.sentences if "0a" in s.supporting_keys}
            expect(main.locator('[data-state="lit"]')).to_have_count(len(citing))
            # uploaded HTML is text in the focus panel, the side-by-side view and the documents
            expect(page.locator(".rag-docs")).to_contain_text("<script>window.__xss=1</script>")
            for sel in (".rag-docs", ".rag-focus", ".rag-response"):
                assert page.locator(f"{sel} img, {sel} script").count() == 0
            assert page.evaluate("window.__xss") is None

            # -- review five cases, in the queue's order (the two labelers disagree most first)
            page.get_by_test_id("stSelectbox").filter(has_text="Order cases by").click()
            page.get_by_role("option").filter(has_text="disagree most").click()
            expect(page.get_by_text(re.compile(r"Review queue — 0 of 8 cases reviewed"))).to_be_visible()
            page.get_by_text("Review mode: correct the labels").click()
            page.get_by_role("textbox", name="Your name").fill("Ann E2E")
            page.keyboard.press("Tab")
            expect(page.get_by_text("Type your name to review")).to_have_count(0, timeout=30_000)
            expect(page.get_by_role("button", name="✓ Mark reviewed")).to_be_enabled()
            first_case = parse_qs(urlparse(page.url).query)["case"][0]
            press_until(page, "Space", main.locator('[data-key="a"]'), "data-state", "focus", focus=first)
            page.get_by_test_id("stButtonGroup").get_by_text("Not", exact=True).click()
            expect(page.get_by_text(re.compile(r"Saved ✓ a: not supported .* by Ann E2E"))).to_be_visible()
            expect(main.locator('[data-key="a"]')).to_have_attribute("data-changed", "1")
            for n in range(1, 6):
                page.get_by_role("button", name="✓ Reviewed, next →").click()
                expect(page.get_by_text(re.compile(rf"Review queue — {n} of 8 cases reviewed"))).to_be_visible()
            store = ReviewStore(tmp_path / "runs.sqlite3")
            done = {c for c, (_, rev) in store.status(ids["hybrid"], owner=TOKEN).items() if rev}
            assert len(done) == 5
            corrected = next(c for c in store.of_run(ids["hybrid"], owner=TOKEN).values() if c.corrections)
            assert first_case == corrected.case_id

            # -- a reload keeps every review
            page.goto(f"{url}/inspect?run={ids['hybrid']}&case={corrected.case_id}")
            expect(main).to_be_visible(timeout=30_000)
            expect(page.get_by_text(re.compile(r"Review queue — 5 of 8 cases reviewed"))).to_be_visible()
            page.get_by_text("Review mode: correct the labels").click()
            expect(page.get_by_text(re.compile("Reviewed by Ann E2E"))).to_be_visible(timeout=30_000)
            expect(main.locator('[data-key="a"]')).to_have_attribute("data-level", "none")

            # -- Compare: every labeling scored against the five gold cases
            page.goto(f"{url}/compare")
            expect(page.get_by_text("Agreement with your reviewed labels (gold)")).to_be_visible(timeout=30_000)
            gold_metric = page.get_by_test_id("stMetric").filter(has_text="Reviewed cases (gold)")
            expect(gold_metric).to_contain_text("5", timeout=30_000)  # drawn after the heading, same run

            # -- export, and upload the file again
            with page.expect_download(timeout=30_000) as dl:
                page.get_by_role("button", name=re.compile("Export 5 reviewed cases")).first.click()
            exported = tmp_path / "reviewed.jsonl"
            Path(dl.value.path()).replace(exported)
            back = datasets.load_cases(exported)
            assert len(back.cases) == 5 and not back.errors
            gold = {c.case_id: c for c in store.gold(owner=TOKEN).values()}
            for c in back.cases:
                got, _ = labels_from_case(c)
                want_labels = gold[c.id].labels
                assert [(s.key, s.level) for s in got.sentences] == [(s.key, s.level) for s in want_labels.sentences]
                assert got.relevant_keys == want_labels.relevant_keys
            page.get_by_role("link", name="Upload").first.click()
            with page.expect_file_chooser() as fc:
                page.get_by_test_id("stFileUploaderDropzone").click()
            fc.value.set_files(str(exported))
            expect(page.get_by_test_id("stMetric").filter(has_text="Cases ready")).to_contain_text("5", timeout=30_000)
            browser.close()
    finally:
        stop(proc)
    assert not dialogs, dialogs
