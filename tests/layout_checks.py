"""Layout checks of the Chromium tests, measured in the page (issue 47, item 8): text cut by its box,
chart text cut by the chart, a chart's toolbar over a title, metric tiles out of order, and a
question of the per-case table that needs more lines than its row has. Each returns what it found
(a list of plain dicts); a test asserts the list is empty, so the message names the element.

    page.set_viewport_size({"width": 1280, "height": 1000})
    assert not cut_text(page)
"""

from __future__ import annotations

from typing import Any

#: Text whose box hides part of it: an element whose content is wider than the element, and that
#: hides the rest (overflow hidden / clip, an ellipsis) or scrolls it out of sight (``scroll=True``).
#: Charts and data grids are drawn on SVG / canvas and checked on their own.
_CUT_JS = """
(scroll) => {
  const out = [];
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  for (const e of main.querySelectorAll('*')) {
    if (e.closest('.js-plotly-plot') || e.closest('[data-testid=stDataFrame]')) continue;
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const text = (e.innerText || '').trim();
    if (!text) continue;
    const cs = getComputedStyle(e);
    const hides = cs.overflowX === 'hidden' || cs.overflowX === 'clip' || cs.textOverflow === 'ellipsis';
    const scrolls = scroll && (cs.overflowX === 'auto' || cs.overflowX === 'scroll')
                    && !e.closest('[data-testid=stTabs] [role=tablist]');
    if (e.scrollWidth > e.clientWidth + 1 && (hides || scrolls)) {
      out.push({element: e.tagName + (e.getAttribute('data-testid') ? '[' + e.getAttribute('data-testid') + ']' : ''),
                how: hides ? 'hidden' : 'scrolled out', text: text.slice(0, 80),
                width_needed: e.scrollWidth, width: e.clientWidth});
    }
  }
  return out;
}
"""

#: Chart text (title, axis titles, tick labels, legend, annotations) that reaches past the chart's own
#: width.
_CHART_JS = """
() => {
  const out = [];
  for (const g of document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')) {
    const svg = g.querySelector('svg.main-svg');
    if (!svg) continue;
    const box = svg.getBoundingClientRect();
    for (const t of g.querySelectorAll(
        '.gtitle, .xtitle, .ytitle, .legendtext, .xtick text, .ytick text, .annotation-text')) {
      const b = t.getBoundingClientRect();
      if (!b.width) continue;
      if (b.left < box.left - 1 || b.right > box.right + 1) {
        out.push({chart_text: t.textContent.slice(0, 80), kind: t.getAttribute('class'),
                  from: Math.round(b.left - box.left), to: Math.round(b.right - box.left),
                  chart_width: Math.round(box.width)});
      }
    }
  }
  return out;
}
"""

#: Each chart's plot area (where the data is drawn) against the chart's width.
_PLOT_SHARE_JS = """
() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].map(g => {
  const svg = g.querySelector('svg.main-svg').getBoundingClientRect();
  const plot = g.querySelector('.nsewdrag');
  const w = plot ? plot.getBoundingClientRect().width : svg.width;
  return {x_title: (g.querySelector('.xtitle') || {}).textContent || '',
          plot_width: Math.round(w), chart_width: Math.round(svg.width), share: w / svg.width};
})
"""

#: Titles (a chart's title above it, a title inside it, headings) under a visible toolbar (plotly's
#: mode bar, Streamlit's element toolbar): measured while the pointer rests on a chart.
_TOOLBAR_JS = """
() => {
  const seen = e => {
    const cs = getComputedStyle(e); const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && parseFloat(cs.opacity) > 0.05;
  };
  const bars = [...document.querySelectorAll('.modebar, [data-testid=stElementToolbar]')].filter(seen);
  const titles = [...document.querySelectorAll(
      '[data-testid="stMain"] [data-testid=stMarkdownContainer] strong, [data-testid="stMain"] .gtitle,'
      + '[data-testid="stMain"] h1, [data-testid="stMain"] h2, [data-testid="stMain"] h3')].filter(seen);
  const out = [];
  for (const b of bars) {
    const r = b.getBoundingClientRect();
    for (const t of titles) {
      const q = t.getBoundingClientRect();
      if (r.left < q.right - 1 && q.left < r.right - 1 && r.top < q.bottom - 1 && q.top < r.bottom - 1)
        out.push({toolbar: b.className || b.getAttribute('data-testid'), covers: t.textContent.slice(0, 80)});
    }
  }
  return out;
}
"""

#: The metric tiles (label, top, left).
_TILES_JS = """
() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid=stMetric]')].map(m => {
  const r = m.getBoundingClientRect();
  return {label: (m.querySelector('[data-testid=stMetricLabel]') || m).innerText.trim(),
          top: Math.round(r.top), left: Math.round(r.left)};
})
"""

#: Bold text of the main area that is one of the given names (text, top, left).
_BOLD_JS = """
(names) => [...document.querySelectorAll('[data-testid="stMain"] [data-testid=stMarkdownContainer] strong')]
  .filter(s => names.includes(s.textContent.trim()) && s.getBoundingClientRect().width > 0)
  .map(s => { const r = s.getBoundingClientRect();
              return {text: s.textContent.trim(), top: Math.round(r.top), left: Math.round(r.left)}; })
"""

#: Each question of the per-case table: the lines it needs in its column, measured with the grid's
#: font (the words wrapped greedily into ``width`` pixels less the cell's padding), and the lines its
#: row holds — read from the grid as drawn: its row height (the scrolled height less the header, over
#: the rows); the grid wraps a cell only in rows taller than 4rem, and a line takes ``LINE_PX``.
_QUESTION_LINES_JS = """
([width, pad, header, linePx]) => {
  const grid = [...document.querySelectorAll('[data-testid=stDataFrame]')].find(
      d => [...d.querySelectorAll('th')].some(th => th.textContent.trim() === 'question'));
  if (!grid) return null;
  const table = grid.querySelector('table');
  const nRows = parseInt(table.getAttribute('aria-rowcount')) - 1;
  const rowHeight = (grid.querySelector('.dvn-scroller').scrollHeight - header) / nRows;
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
  const holds = rowHeight > 4 * rem ? Math.floor((rowHeight - pad) / linePx) : 1;
  const col = [...table.querySelectorAll('th')].find(th => th.textContent.trim() === 'question')
              .getAttribute('aria-colindex');
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `14px ${getComputedStyle(document.body).fontFamily}`;
  return [...table.querySelectorAll(`td[aria-colindex="${col}"]`)].map(td => {
    let lines = 1, line = '';
    for (const word of td.textContent.split(/\\s+/).filter(Boolean)) {
      const next = line ? line + ' ' + word : word;
      if (line && ctx.measureText(next).width > width - pad) { lines += 1; line = word; } else { line = next; }
    }
    return {question: td.textContent, lines, row_holds: holds, row_height: Math.round(rowHeight)};
  });
}
"""
#: The grid's header row and a wrapped line of its text, in pixels.
HEADER_PX, LINE_PX = 35, 19


def cut_text(page: Any, scroll: bool = True) -> list[dict[str, Any]]:
    """Text of the main area that its box cuts (``scroll``: also text scrolled out of a box)."""
    return page.evaluate(_CUT_JS, scroll)


def cut_chart_text(page: Any) -> list[dict[str, Any]]:
    """Chart titles, axis titles, tick labels and legend entries that reach past their chart."""
    return page.evaluate(_CHART_JS)


def narrow_plots(page: Any, share: float = 0.5) -> list[dict[str, Any]]:
    """Charts whose plot area takes less than ``share`` of their width (the rest: labels, margins)."""
    return [c for c in page.evaluate(_PLOT_SHARE_JS) if c["share"] < share]


def toolbar_over_titles(page: Any) -> list[dict[str, Any]]:
    """For each chart: rest the pointer on it (its toolbars show), then any title they cover."""
    found: list[dict[str, Any]] = []
    charts = page.locator('[data-testid="stMain"] .js-plotly-plot')
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        chart.hover(position={"x": 10, "y": 10})
        page.wait_for_timeout(300)
        found += page.evaluate(_TOOLBAR_JS)
    page.mouse.move(0, 0)
    return found


def tiles_in_reading_order(page: Any) -> list[str]:
    """The metric tiles' labels as a person reads them: top to bottom, left to right (a test compares
    a phone's order with a wide screen's)."""
    tiles = page.evaluate(_TILES_JS)
    return [t["label"] for t in sorted(tiles, key=lambda t: (t["top"], t["left"]))]


def bold_in_reading_order(page: Any, names: list[str]) -> list[str]:
    """Which of ``names`` the page writes in bold (cards' headings, say), as a person reads them: top to
    bottom, left to right (one line: within 4 px), each once — a test compares it with the intended order."""
    found = page.evaluate(_BOLD_JS, names)
    seen: dict[str, None] = {}
    for b in sorted(found, key=lambda b: (round(b["top"] / 4), b["left"])):
        seen.setdefault(b["text"], None)
    return list(seen)


def question_lines(page: Any, width: int, pad: int = 16) -> list[dict[str, Any]] | None:
    """Each question shown: the lines it needs in a ``width``-pixel column and the lines its row
    holds (None: no per-case table)."""
    return page.evaluate(_QUESTION_LINES_JS, [width, pad, HEADER_PX, LINE_PX])


_BUSY_JS = """
() => !!document.querySelector('[data-testid=stSkeleton]')
      || !!document.querySelector('[data-testid=stStatusWidgetRunningIcon], [data-testid=stStatusWidget] img')
      || document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot').length
         < document.querySelectorAll('[data-testid="stMain"] [data-testid=stPlotlyChart]').length
"""


def settle(page: Any, quiet_ms: int = 500, timeout_s: float = 60) -> None:
    """Wait until the page is drawn: no placeholder left, the script not running, every chart
    rendered — for ``quiet_ms`` in a row (a resize redraws)."""
    import time

    end, quiet = time.time() + timeout_s, None
    while time.time() < end:
        if page.evaluate(_BUSY_JS):
            quiet = None
        elif quiet is None:
            quiet = time.time()
        elif (time.time() - quiet) * 1000 >= quiet_ms:
            return
        page.wait_for_timeout(150)
    raise TimeoutError("the page did not settle")
