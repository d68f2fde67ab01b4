"""Every score of a run in view on Results at 1280 px, in real headless Chromium: the per-case table of
the sample run (16 cases, TRACE) shows the id and then each of the run's six score columns whole, with
the table scrolled to its left edge — the question, the counts and the response come after them — and
the id stays in view (pinned) when the table is scrolled to its last column (at 390 px). Before, the
question (420 px) and the Inspect link came first and only "Context relevance" was whole at 1280 px.

Streamlit's data grid draws on a canvas; what it has on screen it also writes into an accessible
table, one header cell per column in view (a column partly in view included). A column is whole in
view when the column after it has a header cell too: so the scores are whole when the column after
the last one (the Inspect link) has one. Screenshots go to $RAG_EVAL_SHOTS.

No wait here depends on time (issue 57 item 11: it timed out under load): the grid is located by
its pinned "id" header, which it draws at every width and scroll position (not by a score's header,
which the narrow layout may not draw), and each step waits for the state it needs — the grid drawn
past its score columns, the layout narrowed to the phone's width, the last column drawn."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from evaluators import evaluate_batch
from evaluators.datasets import load_cases
from evaluators.store import RunStore
from tests.app_server import CHROMIUM, ROOT
from tests.browser_fixtures import shots_wanted
from ui import share, vocab

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium")]

#: The pinned id column's header, exactly (not a header that holds the word).
ID_HEADER = re.compile(r"^\s*id\s*$")
SCORES = ["context_relevance", "context_utilization", "completeness", "adherence", "expected_adherence",
          "overall_supported"]
#: The per-case table's headers in view (left to right), its scroll position and widths.
IN_VIEW = """() => {
  const grid = [...document.querySelectorAll('[data-testid=stDataFrame]')].find(
      d => [...d.querySelectorAll('th')].some(th => th.textContent.trim() === 'id'));
  if (!grid) return null;
  const sc = grid.querySelector('.dvn-scroller');
  const ths = [...grid.querySelectorAll('table th')].sort(
      (a, b) => +a.getAttribute('aria-colindex') - +b.getAttribute('aria-colindex'));
  return {headers: ths.map(th => th.textContent.trim()), left: sc.scrollLeft, scroll: sc.scrollWidth,
          view: sc.clientWidth, grid: Math.round(grid.getBoundingClientRect().width)};
}"""


def test_every_score_column_is_in_view_at_1280_px(tmp_path, chromium, app_url, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "runs.sqlite3"))  # the server's store: its signing key
    cases = load_cases(ROOT / "data" / "sample_rag.csv")
    run = evaluate_batch(list(cases.cases), method="trace")
    rid = RunStore(tmp_path / "runs.sqlite3").save(run, "sample_rag", owner="owner-token-000001")
    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path)
    headers = [vocab.column_name(m) for m in SCORES]
    with sync_playwright() as p:
        browser = chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{app_url}/results?share={share.token(rid)}")
        # the per-case table, by the header it keeps at every width and scroll position: its pinned id
        grid = page.get_by_test_id("stDataFrame").filter(has=page.locator("th").filter(has_text=ID_HEADER))
        expect(grid).to_be_visible(timeout=90_000)
        grid.scroll_into_view_if_needed()
        # drawn past its score columns (the column after them, or a later one, has a header cell)
        page.wait_for_function("(h => h && h.length > 7)((" + IN_VIEW + ")()?.headers)", timeout=60_000)
        seen = page.evaluate(IN_VIEW)
        if shots_wanted():
            page.wait_for_timeout(500)
            page.screenshot(path=str(shots / "results_columns_1280.png"))
        assert seen["left"] == 0 and seen["scroll"] > seen["view"], seen  # at its left edge; wider than its view
        assert seen["grid"] >= 800, seen  # the main area's width at 1280 px (the sidebar open)
        assert seen["headers"][:len(headers) + 2] == ["id", *headers, "inspect"], seen  # each score whole
        assert "response" not in seen["headers"], seen  # the long texts come after the scores

        # -- 390 px: the table scrolled to its last column still names each row (the id is pinned)
        page.set_viewport_size({"width": 390, "height": 844})
        # the narrow layout itself: the window and the grid's own box at the phone's width
        page.wait_for_function("document.documentElement.clientWidth <= 390 && (" + IN_VIEW + ")()?.view < 400",
                               timeout=60_000)
        grid.scroll_into_view_if_needed()
        grid.locator(".dvn-scroller").evaluate("e => { e.scrollLeft = e.scrollWidth; }")
        page.wait_for_function("(" + IN_VIEW + ")()?.headers.includes('error')", timeout=60_000)
        seen = page.evaluate(IN_VIEW)
        assert seen["headers"][0] == "id" and "Relevance" not in seen["headers"], seen
        if shots_wanted():
            page.wait_for_timeout(500)
            page.screenshot(path=str(shots / "results_columns_390_scrolled.png"))
