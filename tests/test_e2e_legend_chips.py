"""Inspect's legends (``ui.highlight.legend_html``) in real headless Chromium: at every width from a
phone's (390 px, the walk's /tmp/walk/30_inspect_390_docs.png: "utilized only" broke across two
lines) up to a desktop column, each chip — a colour swatch with its name, or a mark with its words —
stays on one line, and chips wrap as wholes, none overlapping the next line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app_server import CHROMIUM
from ui import highlight as hl

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium")]

#: Per chip of the legend: how many line boxes its text takes, and its box.
CHIPS = """() => [...document.querySelectorAll('.rag-legend > *')].map(c => {
  const r = c.getBoundingClientRect();
  const range = document.createRange(); range.selectNodeContents(c);
  // line boxes: the text's rectangles grouped where they overlap vertically (a mark is smaller type)
  let lines = 0, bottom = -1e9;
  for (const q of [...range.getClientRects()].filter(q => q.width > 0).sort((x, y) => x.top - y.top)) {
    if (q.top >= bottom - 1) { lines += 1; bottom = q.bottom; } else { bottom = Math.max(bottom, q.bottom); }
  }
  return {text: c.textContent, lines, top: r.top, bottom: r.bottom, left: r.left, right: r.right};
})"""


def test_every_legend_chip_stays_on_one_line_at_any_width(chromium):
    from playwright.sync_api import sync_playwright

    legends = "".join(hl.legend_html(k) for k in ("documents", "response", "focus"))
    with sync_playwright() as p:
        page = chromium(p).new_page(viewport={"width": 390, "height": 844})
        page.set_content(f'<body style="margin:0;font:16px sans-serif"><div id="box">{legends}</div></body>')
        texts = [c["text"] for c in page.evaluate(CHIPS)]
        assert "utilized only" in texts and "changed by the review" in " ".join(texts), texts
        for width in range(200, 420, 6):
            page.evaluate(f"document.getElementById('box').style.width = '{width}px'")
            chips = page.evaluate(CHIPS)
            broken = [c["text"] for c in chips if c["lines"] != 1]
            assert not broken, f"at {width} px these chips break across lines: {broken}"
            for a, b in zip(chips, chips[1:]):  # a chip wrapped to the next line sits below, not on top
                assert b["top"] >= a["bottom"] - 1 or b["left"] >= a["right"] - 1, (width, a, b)
