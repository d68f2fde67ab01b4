"""Traces in real headless Chromium, as a person uses the dashboard: the OTLP JSON file of the
instrumented LangChain app dropped on Upload (detected; skipped traces listed with their reason),
a filter by session, a mapping previewed, an offline run, Results showing each case's trace and
sending the scores to a Phoenix address (a loopback recorder of Phoenix's REST API), and Inspect
naming the trace and spans. No browser console error on the way (``chromium``). Screenshots go to
$RAG_EVAL_SHOTS (or the test's tmp dir)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.app_server import CHROMIUM
from tests.browser_fixtures import tall_screenshot
from tests.test_traces_cli import Recorder
from tests.trace_files import otlp_protobuf_json
from tests.trace_fixtures import need

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium"),
]


def pick(page, box: str, option: str) -> None:
    """Choose ``option`` in the select box labelled ``box`` (a rerun landing on the open list closes
    it: open it again)."""
    for i in range(3):
        page.get_by_role("combobox", name=box, exact=True).click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=5_000)
            return
        except Exception:  # playwright's TimeoutError: try again
            page.keyboard.press("Escape")
            if i == 2:
                raise


def click_until(page, button: str, shows: str) -> None:
    """Click ``button`` until the text ``shows`` appears (a click landing while the page is still
    rerunning from the last widget change can be lost: click again)."""
    from playwright.sync_api import expect

    for i in range(3):
        page.get_by_role("button", name=button).click()
        try:
            expect(page.get_by_text(shows)).to_be_visible(timeout=15_000)
            return
        except AssertionError:
            if i == 2:
                raise


def test_traces_upload_to_phoenix_in_chromium(rag_app, tmp_path, app_url, chromium):
    need("google.protobuf", "opentelemetry.exporter.otlp.proto.common")
    from playwright.sync_api import expect, sync_playwright

    data = tmp_path / "app_spans.json"
    data.write_text(otlp_protobuf_json(rag_app.spans), encoding="utf-8")
    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    url = app_url
    recorder = Recorder()
    try:
        with sync_playwright() as p:
            browser = chromium(p)
            page = browser.new_page(viewport={"width": 1400, "height": 1100})

            def shot(name: str) -> None:
                tall_screenshot(page, shots / name, back=1100)

            page.goto(url)  # the front page, then Upload as a newcomer finds it
            page.get_by_role("link", name="Upload").first.click()
            expect(page.get_by_role("heading", name="Upload test cases")).to_be_visible(timeout=30_000)
            with page.expect_file_chooser() as fc:
                page.get_by_test_id("stFileUploaderDropzone").click()
            fc.value.set_files(str(data))
            metric = page.get_by_test_id("stMetric")
            expect(metric.filter(has_text="Cases ready")).to_contain_text("4", timeout=30_000)
            expect(metric.filter(has_text="Traces in the file")).to_contain_text("6")
            expect(page.get_by_text(re.compile(r"^Read as OTLP JSON"))).to_be_visible()  # in words, not a tile
            page.get_by_text("2 traces skipped — why").click()
            expect(page.locator("td", has_text="no retriever span").first).to_be_attached()
            shot("t1_upload_traces.png")

            # -- a mapping previewed (not applied): documents from the retriever spans by name
            page.get_by_text("Map fields by hand").click()
            pick(page, "documents", "VectorStoreRetriever")
            expect(page.get_by_text(re.compile(r"Preview with this mapping: 4 cases, 2 skipped"))).to_be_visible(
                timeout=30_000)
            shot("t2_mapping_preview.png")
            click_until(page, "Apply mapping", "fields mapped by hand: documents ← VectorStoreRetriever")

            # -- only the traces of session s-2
            page.get_by_text("Filter traces (time range").click()
            pick(page, "Session", "s-2")
            page.get_by_role("button", name="Apply filter").click()
            expect(metric.filter(has_text="Cases ready")).to_contain_text("2", timeout=30_000)
            expect(page.get_by_text(re.compile(r"4 traces left out by the filter \(in session 's-2'\)"))
                   ).to_be_visible()
            shot("t3_filtered.png")

            # -- an offline run of the two cases
            page.get_by_role("link", name=re.compile("Evaluate these 2 cases")).click()
            run = page.get_by_role("button", name="Run TRACE")
            expect(run).to_be_enabled(timeout=30_000)
            run.click()
            expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=180_000)
            page.get_by_role("tab", name="Cases").click()
            expect(page.get_by_test_id("stDataFrame").first).to_be_visible(timeout=30_000)
            expect(page.get_by_text(re.compile("These cases came from traces: each id is its trace id"))
                   ).to_be_visible()
            shot("t4_results_cases.png")

            # -- the scores back to "Phoenix"
            page.get_by_role("tab", name="Download").click()
            expect(page.get_by_text(re.compile("Send the scores back to your traces — 2 scored"))).to_be_visible(
                timeout=30_000)
            box = page.get_by_label("Phoenix address")
            box.fill(recorder.url)
            page.get_by_role("button", name="Send to Phoenix").click()
            # 2 cases x (6 TRACE metrics + declined, over_refusal)
            expect(page.get_by_text(re.compile(r"Sent 16 span annotation\(s\)"))).to_be_visible(timeout=30_000)
            assert any(p.startswith("/v1/span_annotations") for p, _, _ in recorder.requests)
            assert all("authorization" not in h for _, h, _ in recorder.requests)
            shot("t5_results_send.png")

            # -- Inspect names the trace and its spans
            page.get_by_role("link", name="Inspect").first.click()
            expect(page.get_by_role("heading", name="Inspect a case")).to_be_visible(timeout=30_000)
            expect(page.get_by_text(re.compile(r"From OTLP JSON \(OpenTelemetry\): trace"))).to_be_visible(
                timeout=30_000)
            expect(page.get_by_text(re.compile("session s-2"))).to_be_visible()
            shot("t6_inspect_trace.png")
            browser.close()
    finally:
        recorder.close()
