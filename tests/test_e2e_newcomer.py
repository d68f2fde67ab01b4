"""Issue 30 in real headless Chromium, as a newcomer would go: the Start page, the sample in one
click, an LLM run of the 16 sample cases against the loopback server (the count moves while it
runs, Run is disabled meanwhile, the sidebar keeps the model, base URL and key after Results opens),
Results keeps its tab when a filter changes, a hybrid run shows the agreement panel, Compare opens
Inspect in the same session. Screenshots go to $RAG_EVAL_SHOTS (or the test's tmp dir)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from evaluators.testing.llm_server import LLMServer, keyed_labels_responder
from tests.app_server import CHROMIUM, app_env, free_port, start_app, stop, wait_healthy
from tests.browser_fixtures import tall_screenshot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium"),
]

MODEL = "loopback-model-e2e"
KEY = "sk-typed-e2e-0001"


def test_a_newcomer_goes_from_start_to_compare(tmp_path, chromium):
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**app_env(tmp_path), "RAG_EVAL_LLM_CACHE": "off"}
    with LLMServer() as llm:
        llm.respond(keyed_labels_responder)
        llm.latency = 2.5  # 16 calls, 8 at a time: the count sits at 8 / 16 for 2.5 s
        proc = start_app(port, env, tmp_path / "streamlit.log")
        try:
            wait_healthy(url, proc)
            with sync_playwright() as p:
                browser = chromium(p)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})

                def shot(name: str, height: int = 2200) -> None:
                    tall_screenshot(page, shots / name, height)

                page.goto(url)
                expect(page.get_by_role("heading", name="RAG evaluation dashboard")).to_be_visible(timeout=30_000)
                expect(page.get_by_text("5 of them as hallucinated")).to_be_visible()
                shot("0_start.png")

                # The sidebar: an OpenAI-compatible server (issue 30 item 9).
                sidebar = page.get_by_test_id("stSidebar")
                sidebar.get_by_test_id("stSelectbox").filter(has_text="Provider").click()
                page.get_by_role("option", name="openai_compatible").click()
                expect(sidebar.get_by_text("needs a base URL")).to_be_visible(timeout=15_000)
                expect(sidebar.get_by_text("No API key for groq")).to_have_count(0)
                expect(sidebar.get_by_text("Base URL (required)")).to_be_visible()
                for label, value in (("Model", MODEL), ("Base URL (required)", llm.base_url), ("API key", KEY)):
                    box = sidebar.get_by_label(label, exact=True)
                    box.fill(value)
                    box.press("Enter")
                    page.wait_for_timeout(400)
                expect(sidebar.get_by_text("key from password field")).to_be_visible(timeout=15_000)

                # The sample in one click, then a gpt_labeling run of its 16 cases.
                page.get_by_role("button", name=re.compile("Load the sample")).click()
                expect(page.get_by_role("heading", name="Evaluate")).to_be_visible(timeout=30_000)
                page.get_by_text("GPT labeling (RAGBench", exact=False).first.click()
                run = page.get_by_role("button", name=re.compile(r"^Run GPT labeling"))
                expect(run).to_be_enabled(timeout=30_000)
                shot("2_evaluate.png")
                run.click()
                progress = page.get_by_test_id("stProgress")
                # issue 30 item 3: the count moves during the run (it stayed at 0 / 16 until done)
                expect(progress).to_contain_text(re.compile(r"(?<![0-9])([1-9]|1[0-5]) / 16 cases"), timeout=30_000)
                # issue 30 item 4: Run is disabled while this session's run goes on
                expect(page.get_by_role("button", name=re.compile(r"^Run GPT labeling"))).to_be_disabled()
                shot("2b_progress.png")
                expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=120_000)
                # issue 30 item 1: the sidebar kept the model, base URL and key
                expect(sidebar.get_by_label("Model", exact=True)).to_have_value(MODEL)
                expect(sidebar.get_by_label("Base URL (required)", exact=True)).to_have_value(llm.base_url)
                expect(sidebar.get_by_label("API key", exact=True)).to_have_value(KEY)
                expect(page.get_by_test_id("stDataFrame")).to_be_visible(timeout=30_000)  # the cases first
                shot("3_results_cases.png")

                # issue 30 item 7: a filter change keeps the Cases tab
                page.get_by_role("tab", name="Cases").click()
                show = page.get_by_test_id("stSelectbox").filter(has_text="Show")
                expect(show).to_be_visible(timeout=30_000)
                page.wait_for_timeout(1500)  # the tab switch reruns the page
                show.get_by_role("combobox").click()
                page.get_by_role("option", name=re.compile("not fully supported")).click()
                page.wait_for_timeout(1500)
                expect(page.get_by_role("tab", name="Cases")).to_have_attribute("aria-selected", "true")
                expect(page.get_by_text(re.compile(r"^\d+ of 16 cases · hover"))).to_be_visible()
                shot("3b_results_cases.png")

                # a hybrid run: the agreement panel, with links to both labelings (the slow replies
                # were for watching the count move, above: 5 s more for nothing here)
                llm.latency = 0.2
                page.get_by_role("link", name="Evaluate").first.click()
                page.get_by_text("Hybrid (heuristic + LLM", exact=False).first.click()
                run = page.get_by_role("button", name=re.compile(r"^Run Hybrid"))
                expect(run).to_be_enabled(timeout=30_000)
                run.click()
                expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=180_000)
                finished = page.get_by_text(re.compile("^Finished “sample_rag · hybrid”"))
                expect(finished).to_be_visible(timeout=30_000)
                page.get_by_role("tab", name="Agreement (trace vs LLM)").click()
                expect(page.get_by_text("Sentence verdicts that agree")).to_be_visible(timeout=30_000)
                both = page.locator("a[href*='compare=1']")
                expect(both.first).to_be_visible(timeout=30_000)
                shot("3c_results_agreement.png")

                # a TRACE run of the same cases, then Compare: it opens on the newest pair of runs of
                # the same cases with different methods (not gpt_labeling vs hybrid, which agree)
                page.get_by_role("link", name="Evaluate").first.click()
                page.get_by_text("TRACE (heuristic, offline)", exact=False).first.click()
                page.get_by_role("button", name=re.compile(r"^Run TRACE")).click()
                expect(page.get_by_text(re.compile("^Finished “sample_rag · trace”"))).to_be_visible(
                    timeout=120_000)
                page.get_by_role("link", name="Compare").first.click()
                expect(page.get_by_role("heading", name="Compare")).to_be_visible(timeout=30_000)
                # issue 33: "Which version is better?" comes first; these are two methods of one file
                expect(page.get_by_text(re.compile("Cases paired by case id: 16 cases"))).to_be_visible(timeout=60_000)
                page.get_by_role("tab", name="Two runs, case by case").click()
                expect(page.get_by_text(re.compile(r"^16 cases in both runs"))).to_be_visible(timeout=60_000)
                page.wait_for_timeout(800)
                shot("5_compare.png")
                page.get_by_role("tab", name="Agreement with human labels").click()
                expect(page.get_by_text("ROC against human labels")).to_be_visible(timeout=60_000)
                expect(page.locator(".js-plotly-plot").last).to_be_visible(timeout=30_000)
                shot("5b_compare_human.png")
                page.get_by_role("tab", name="Two runs, case by case").click()
                expect(page.get_by_role("combobox", name="Run A (across)")).to_have_value("sample_rag · hybrid")
                expect(page.get_by_role("combobox", name="Run B (up)")).to_have_value("sample_rag · trace")
                page.get_by_role("link", name=re.compile(r"^Inspect ")).first.click()
                expect(page.get_by_role("heading", name="Inspect a case")).to_be_visible(timeout=30_000)
                expect(sidebar.get_by_text("Dataset: sample_rag.jsonl · 16 cases")).to_be_visible()
                expect(sidebar.get_by_label("Model", exact=True)).to_have_value(MODEL)
                page.get_by_role("link", name="Glossary").first.click()
                expect(page.get_by_role("heading", name="Metrics glossary")).to_be_visible(timeout=30_000)
                shot("6_glossary.png")
                page.get_by_role("link", name="Upload").first.click()
                expect(page.get_by_role("heading", name="Upload test cases")).to_be_visible(timeout=30_000)
                shot("1_upload.png")
                browser.close()
        finally:
            stop(proc)
    assert KEY.encode() not in (tmp_path / "runs.sqlite3").read_bytes()
