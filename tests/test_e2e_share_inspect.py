"""A shared run's Inspect link, in real headless Chromium: a colleague who has only the link
``/results?share=<token>`` (a fresh browser: no cookie, no history) selects a case on Results and
follows "Inspect case <id> →"; Inspect shows that case of the shared run, read-only (review mode
off). The link's address carries the share token, so it opens the same case in another fresh
browser too; before, it was ``inspect?case=<id>`` alone, which in a fresh browser opens no run.
A token of one run never opens another: with ``?run=`` of a run the visitor does not own, Inspect
still shows the shared run and nothing of the other. Screenshots go to $RAG_EVAL_SHOTS."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from evaluators import evaluate_batch
from evaluators.datasets import load_cases
from evaluators.store import RunStore
from tests.app_server import CHROMIUM, ROOT
from tests.browser_fixtures import snap
from ui import share

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium")]

MAIN = "[data-testid=stMain]"


def _case_shown(page, question: str) -> None:
    """Inspect shows the case asking ``question``, of a run the visitor may only read."""
    from playwright.sync_api import expect

    main = page.locator(MAIN)
    expect(main.get_by_text("Inspect a case")).to_be_visible(timeout=90_000)
    expect(main.get_by_text(f"Question: {question}")).to_be_visible(timeout=60_000)
    expect(main.get_by_text("Run an evaluation first")).to_have_count(0)
    review = main.get_by_role("switch", name="Review mode")
    expect(review).to_be_disabled()  # read-only: a shared run


def test_a_shared_runs_inspect_link_opens_its_case_in_a_fresh_browser(tmp_path, chromium, app_url, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "runs.sqlite3"))  # the server's store: its signing key
    cases = load_cases(ROOT / "data" / "sample_rag.csv")
    run = evaluate_batch(list(cases.cases), method="trace")
    store = RunStore(tmp_path / "runs.sqlite3")
    rid = store.save(run, "sample_rag", owner="owner-token-000001")
    other = store.save(evaluate_batch(list(cases.cases)[:2], method="trace"), "private run", owner="owner-token-000001")
    first, question = str(cases.cases[0].id), cases.cases[0].question
    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path)
    with sync_playwright() as p:
        browser = chromium(p)
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        page.goto(f"{app_url}/results?share={share.token(rid)}")
        grid = page.get_by_test_id("stDataFrame").filter(has=page.locator("th", has_text="Supported"))
        expect(grid).to_be_visible(timeout=90_000)
        grid.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = grid.bounding_box()
        assert box is not None
        # the first row's selection marker: the grid's left edge, below the header row
        page.mouse.click(box["x"] + 12, box["y"] + 35 + 18)
        link = page.locator(MAIN).get_by_role("link", name=f"Inspect case {first}")
        expect(link).to_be_visible(timeout=30_000)
        href = link.get_attribute("href") or ""
        q = parse_qs(urlsplit(href).query)
        assert q.get("case") == [first], href
        assert q.get(share.PARAM) == [share.token(rid)], f"the Inspect link lost the share: {href}"
        snap(page, shots / "share_inspect_results_1280.png")
        link.click()
        _case_shown(page, question)
        snap(page, shots / "share_inspect_clicked_1280.png", wait_ms=500)
        ctx.close()

        # the link's address alone, in another fresh browser: the same case
        target = href if href.startswith("http") else f"{app_url}/{href.lstrip('/')}"
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        page.goto(target)
        _case_shown(page, question)
        ctx.close()

        # the token of one run opens no other: ?run= of a run the visitor does not own shows nothing of it
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        page.goto(f"{app_url}/inspect?{share.PARAM}={share.token(rid)}&run={other}&case={first}")
        _case_shown(page, question)
        expect(page.locator(MAIN).get_by_text("private run")).to_have_count(0)
        ctx.close()
