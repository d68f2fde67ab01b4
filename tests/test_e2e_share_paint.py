"""A shared link's first paint in real headless Chromium (issue 47, item 9; ``ui/serving/share_paint.py``): a
colleague opens ``/results?share=<token>`` in a fresh browser; the page's HTML already holds the run's
figures, and they are the figures Streamlit's Results page shows once it renders — when the block is
gone, in the same places (at 1280 and 390 px), nothing cut, in
the page's colours (this app's theme is a custom one: Streamlit shows it light whatever the visitor
picked, and so does the block); a forged link shows no figure at all. Screenshots (the block alone: Streamlit's
scripts held back; then the page) go to $RAG_EVAL_SHOTS. The time itself: ``bench/share_link.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluators import evaluate_batch
from evaluators.store import RunStore
from tests import ui_fixtures as fx
from tests.app_server import CHROMIUM
from tests.browser_fixtures import shots_wanted
from ui import share

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium")]

NAME = 'Q3 <img src=x onerror="window.__xss=1"> & "launch"'
METRIC = "[data-testid=stMain] [data-testid=stMetricValue]"
#: What the block holds when the document is parsed (before Streamlit's scripts run), kept for later.
AT_PARSE = """
document.addEventListener('readystatechange', () => {
  if (document.readyState !== 'interactive') return;
  const b = document.getElementById('rag-first-paint');
  if (!b) { window.__fp = null; return; }
  const t = (s) => [...b.querySelectorAll(s)].map(e => e.textContent);
  const vw = document.documentElement.clientWidth;
  window.__fp = {labels: t('.rag-fp-card .rag-fp-lbl'), values: t('.rag-fp-val'), caps: t('.rag-fp-card .rag-fp-cap'),
    run: t('.rag-fp-box')[0], said: t('.rag-fp-said')[0], line: t('.rag-fp-in > .rag-fp-cap')[0],
    cut: [...b.querySelectorAll('.rag-fp-in > *, .rag-fp-card')]
      .filter(e => e.getBoundingClientRect().right > vw + 0.5).length,
    overflow: b.scrollWidth - b.clientWidth, bg: getComputedStyle(b).backgroundColor};
});"""
#: The page's own figures and lines once Streamlit rendered it.
PAGE = """() => {
  const m = document.querySelector('[data-testid=stMain]');
  const t = (s) => [...m.querySelectorAll(s)].map(e => e.innerText.trim());
  const at = (e) => { const r = e.getBoundingClientRect(); return [Math.round(r.x), Math.round(r.y)]; };
  const caps = t('[data-testid=stCaptionContainer]');
  return {labels: t('[data-testid=stMetricLabel]'), values: t('[data-testid=stMetricValue]'),
    caps: caps.filter(c => c.startsWith('95 % interval') || c.startsWith('± ')),
    line: caps.find(c => c.startsWith('Method ')), said: t('strong').find(s => s.includes('answers')),
    cards: [...m.querySelectorAll('[data-testid=stMetric]')].map(at), cut: m.scrollWidth - m.clientWidth,
    bg: getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor, xss: window.__xss || 0};
}"""
CARDS = """() => [...document.querySelectorAll('#rag-first-paint .rag-fp-card')].map(e => {
  const r = e.getBoundingClientRect(); return [Math.round(r.x), Math.round(r.y)]; })"""


def test_a_shared_link_shows_the_pages_own_figures_at_first_paint(tmp_path, chromium, app_url, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "runs.sqlite3"))  # the server's store: its signing key
    rid = RunStore(tmp_path / "runs.sqlite3").save(evaluate_batch(fx.sample_cases()), NAME, owner="owner-token-000001")
    link = f"{app_url}/results?share={share.token(rid)}"
    shots = Path(os.environ.get("RAG_EVAL_SHOTS") or tmp_path)
    with sync_playwright() as p:
        browser = chromium(p)
        def fresh(width: int, height: int, theme: str):
            """A colleague's browser: no cookie, no cache; the theme they once picked in Streamlit's menu."""
            ctx = browser.new_context(viewport={"width": width, "height": height})
            ctx.add_init_script(f"try {{ localStorage.setItem('stActiveTheme-/results-v2', '\"{theme}\"'); }} "
                                "catch (e) {}" + AT_PARSE)  # (a frame without storage: Streamlit's own)
            return ctx, ctx.new_page()

        for width, height, theme in ((1280, 900, "Light"), (390, 844, "Dark")):

            # -- the block alone (Streamlit's scripts held back): where its cards stand
            ctx, page = fresh(width, height, theme)
            with browser.expecting_problems():
                page.route("**/static/js/**", lambda route: route.abort())
                page.goto(link)
                page.evaluate("document.fonts.ready.then(() => true)")
                alone = page.evaluate(CARDS)
                if shots_wanted():
                    page.screenshot(path=str(shots / f"share_first_paint_{width}.png"))
            ctx.close()

            # -- the page as it comes: the block first, then Streamlit's own figures in its place
            ctx, page = fresh(width, height, theme)
            page.goto(link, wait_until="commit")
            expect(page.locator(METRIC).first).to_be_visible(timeout=90_000)
            expect(page.locator("#rag-first-paint")).to_have_count(0)  # gone once the page shows its metrics
            first, shown = page.evaluate("window.__fp"), page.evaluate(PAGE)
            assert first is not None, "the shared link's HTML had no figures"
            assert first["run"] == share.shared_label(RunStore(tmp_path / "runs.sqlite3").get(rid, owner=None))
            expect(page.get_by_role("combobox", name="Run")).to_have_value(first["run"])
            for key in ("labels", "values", "caps", "line", "said"):
                assert first[key] == shown[key], key
            assert len(first["values"]) >= 6 and first["values"][0] != "n/a"
            assert first["cut"] == 0 and first["overflow"] <= 0 and shown["cut"] <= 0  # nothing cut, no sideways scroll
            assert first["bg"] == shown["bg"]  # the page's theme (this app's custom theme: light, whatever was picked)
            assert [x for x, _ in alone] == [x for x, _ in shown["cards"]]  # the cards do not move…
            assert all(abs(a - b) <= 4 for (_, a), (_, b) in zip(alone, shown["cards"]))  # … nor jump
            assert shown["xss"] == 0
            if shots_wanted():
                page.wait_for_timeout(500)
                page.screenshot(path=str(shots / f"share_page_{width}.png"))
            ctx.close()

        # -- a forged link: no figure, Streamlit's own page saying so
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        ctx.add_init_script(AT_PARSE)
        page = ctx.new_page()
        response = page.goto(f"{app_url}/results?share={rid}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
        assert response is not None and "rag-first-paint" not in response.text()
        expect(page.get_by_text("No finished run yet")).to_be_visible(timeout=60_000)
        assert page.evaluate("window.__fp") is None and "Q3" not in page.content()
        ctx.close()
