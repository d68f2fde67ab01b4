"""Turns of a chat in real headless Chromium (issue 48): a ``trace`` run of two conversations is in
the visitor's history; Inspect shows a late turn's earlier turns above its question — the last three,
the rest behind "N earlier turns" until clicked — with the standalone question it was judged
against, a sentence the agent's earlier turn supports named as such, and no uploaded markup running;
Results has the Conversations tab."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators import evaluate_batch
from evaluators.store import RunStore
from evaluators.types import TestCase, Turn
from tests.app_server import CHROMIUM
from tests.browser_fixtures import tall_screenshot
from ui.state import COOKIE

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium")]

TOKEN = "e2e-conversations-0000001"
DOCS = ("Basic costs $5 a month.", "Pro costs $12 a month.")
XSS = "Hi <script>window.__xss=1</script><img src=x onerror=\"window.__xss=2\"> there"


def conversation(cid: str, last: str) -> list[TestCase]:
    turns = [("Hello", "Hi! Ask me about our plans."), (XSS, "Hello again."),
             ("What plans are there?", "There are two plans: Basic and Pro."),
             ("What do the Basic and Pro plans cost?",
              "Basic costs $5 a month and Pro $12. Both include email support.")]
    cases, history = [], []
    for i, (q, a) in enumerate(turns, start=1):
        cases.append(TestCase(id=f"{cid}-t{i}", conversation_id=cid, question=q, response=a, documents=DOCS,
                              history=tuple(history)))
        history += [Turn(speaker="user", text=q), Turn(speaker="agent", text=a)]
    cases.append(TestCase(id=f"{cid}-t5", conversation_id=cid, question="Which one is cheaper?", response=last,
                          documents=DOCS, history=tuple(history)))
    return cases


def test_inspect_and_results_show_the_conversation(tmp_path, chromium, app_url):
    from playwright.sync_api import expect, sync_playwright

    run = evaluate_batch([*conversation("c1", "Basic is cheaper. Both plans include email support."),
                          *conversation("c2", "Pro is cheaper at $1 a month.")])
    late = next(r for r in run.results if r.case.id == "c1-t5")
    assert late.labels.sentences[1].supporting_keys == ("turn_8",)  # the agent said it in turn 8
    run_id = RunStore(tmp_path / "runs.sqlite3").save(run, "chat run", owner=TOKEN)
    shots = Path(__import__("os").environ.get("RAG_EVAL_SHOTS") or tmp_path)
    with sync_playwright() as p:
        browser = chromium(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.context.add_cookies([{"name": COOKIE, "value": TOKEN, "url": app_url}])
        page.goto(f"{app_url}/inspect?run={run_id}&case=c1-t5")
        recent = page.locator(".rag-conversation").last
        expect(page.locator(".rag-docs")).to_be_visible(timeout=60_000)
        expect(recent.locator(".rag-turn")).to_have_count(3)
        for n in (6, 7, 8):
            expect(recent.locator(f'.rag-turn[data-turn="{n}"]')).to_be_visible()
        first = page.locator('.rag-turn[data-turn="1"]')
        expect(first).to_be_hidden()  # collapsed: beyond the last three
        expect(page.get_by_text("Judged as:")).to_be_visible()
        page.get_by_text("5 earlier turns").click()
        expect(first).to_be_visible()
        expect(page.locator('.rag-turn[data-turn="3"]')).to_contain_text("<script>window.__xss=1</script>")
        assert page.evaluate("window.__xss === undefined")  # uploaded markup shows as text, never runs
        page.get_by_role("radiogroup", name="Response sentence").get_by_text("b", exact=True).click()
        expect(page.locator(".rag-focus")).to_contain_text("the agent's earlier turn 8 (not a document)")
        tall_screenshot(page, shots / "conversation_inspect.png")

        page.goto(f"{app_url}/results")
        expect(page.get_by_role("tab", name="Conversations")).to_be_visible(timeout=60_000)
        page.get_by_role("tab", name="Conversations").click()
        expect(page.get_by_text("By turn")).to_be_visible(timeout=30_000)
        expect(page.get_by_text("Conversations, worst first")).to_be_visible()
        tall_screenshot(page, shots / "conversation_results.png")
