"""Plotly figures of Compare's "Which version is better?" view: the runs' means with their 95 %
intervals, the differences B − A per metric with theirs, the pairwise verdicts of three or more runs
and the trend of a metric over a series of runs. Pure functions (no Streamlit), unit-tested; written
as plotly specs like those of ``ui.charts`` (validated by the tests, not on every view). Numbers are
written by the comparison's one formatter (``short_number``), as in its words and tables; the titles
are drawn above the charts (``ui.plot``), so axis titles stay short enough for a phone's width."""

from __future__ import annotations

import html
import textwrap
from typing import Any, Sequence

import plotly.graph_objects as go

from evaluators.comparison import Comparison, PairResult, Standing
from evaluators.comparison import short_number as num

from ..charts import figure, layout, nice

#: Colours of a verdict (B better / B worse / no detectable difference).
GOOD, BAD, SAME = "#2e7d32", "#c62828", "#7a7a7a"
#: A run's name above its dot is broken into lines of about this many characters (a phone's chart
#: holds ~50 of them).
NAME_CHARS = 40


def _layout(title: str, height: int, **more: Any) -> dict[str, Any]:
    return layout(title, height, showlegend=False, **more)


def wrapped(name: str, width: int = NAME_CHARS) -> str:
    """A run's name for a chart's text: HTML-escaped (plotly reads tags and entities) and broken into
    lines of about ``width`` characters at spaces (a word longer than that stays whole)."""
    lines = textwrap.wrap(name, width, break_long_words=False, break_on_hyphens=False) or [name]
    return "<br>".join(html.escape(line, quote=False) for line in lines)


def means_chart(standings: Sequence[Standing], metric: str, baseline: str) -> go.Figure:
    """Each run's mean on the cases every run has, with its 95 % interval; best first. A run's name
    is written above its dot, not beside it as a tick label: the plot keeps the chart's whole width
    (on a phone, names beside the dots took two thirds of it and cut the axis title)."""
    rows = sorted(standings, key=lambda s: (s.rank, s.name))
    y = [f"{s.name}{' (baseline)' if s.name == baseline else ''}" for s in rows]
    x = [s.mean for s in rows]
    plus = [None if s.ci_high is None or s.mean is None else s.ci_high - s.mean for s in rows]
    minus = [None if s.ci_low is None or s.mean is None else s.mean - s.ci_low for s in rows]
    hover = [f"{s.name}: mean {num(s.mean)}" + (f" · 95% interval {num(s.ci_low)}–{num(s.ci_high)}"
                                                if s.ci_low is not None and s.ci_high is not None else "")
             + f" · rank {s.rank} (ranks {s.rank_low}–{s.rank_high} in 95% of resamples)"
             for s in rows if s.mean is not None]
    dots = {"type": "scatter", "x": x, "y": y, "mode": "markers", "marker": {"size": 12, "color": "#4c78a8"},
            "error_x": {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus,
                        "thickness": 2, "width": 6},
            "hovertext": hover, "hoverinfo": "text"}
    texts = [wrapped(label) for label in y]
    names = [{"text": text, "x": 0, "xref": "paper", "xanchor": "left", "y": label, "yref": "y",
              "yanchor": "bottom", "yshift": 9, "showarrow": False, "align": "left", "font": {"size": 12}}
             for text, label in zip(texts, y)]
    lines = sum(text.count("<br>") + 1 for text in texts)
    return figure([dots], _layout(
        f"{nice(metric)}: mean of each run with its 95% interval", 110 + 30 * len(rows) + 16 * lines,
        annotations=names, yaxis={"autorange": "reversed", "showticklabels": False},
        xaxis={"title": {"text": "mean (95% interval)"}, "automargin": True}))


def _verdict_color(p: PairResult, candidate_is_b: bool = True) -> str:
    if p.verdict == "no_difference":
        return SAME
    b_better = p.verdict == "b_better"
    return GOOD if b_better == candidate_is_b else BAD


def diff_chart(pairs: Sequence[PairResult], baseline: str, candidate: str) -> go.Figure:
    """B − A for every metric (one row each) with its 95 % interval; green where B is better, red where
    it is worse, grey where the cases cannot tell. The dotted line is no difference."""
    rows = [p for p in pairs if p.stats.diff is not None]
    y = [nice(p.metric) for p in rows]
    x = [p.stats.diff for p in rows]
    plus = [None if p.stats.ci_high is None else p.stats.ci_high - p.stats.diff for p in rows]  # type: ignore[operator]
    minus = [None if p.stats.ci_low is None else p.stats.diff - p.stats.ci_low for p in rows]  # type: ignore[operator]
    colors = [_verdict_color(p) for p in rows]
    hover = [f"{nice(p.metric)}: {candidate} − {baseline} = {num(p.stats.diff, True)}"  # type: ignore[arg-type]
             + (f" · 95% interval {num(p.stats.ci_low, True)} to {num(p.stats.ci_high, True)}"
                if p.stats.ci_low is not None and p.stats.ci_high is not None else "")
             + f" · {p.stats.n} paired questions" for p in rows]
    dots = {"type": "scatter", "x": x, "y": y, "mode": "markers", "marker": {"size": 12, "color": colors},
            "error_x": {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus,
                        "thickness": 2, "width": 6, "color": "#555"},
            "hovertext": hover, "hoverinfo": "text"}
    zero = {"type": "line", "x0": 0, "x1": 0, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain",
            "line": {"dash": "dot", "color": "#999"}}  # what fig.add_vline(x=0) draws
    return figure([dots], _layout(
        "Difference per metric, candidate − baseline (95% intervals)", 120 + 40 * len(rows), shapes=[zero],
        yaxis={"autorange": "reversed", "automargin": True},
        xaxis={"title": {"text": "candidate − baseline (right: higher)"}}))


def verdict_matrix(c: Comparison, metric: str) -> go.Figure:
    """Row run against column run: 'better', 'worse' or '≈' (no detectable difference)."""
    names = c.names
    z: list[list[float | None]] = [[None] * len(names) for _ in names]
    text: list[list[str]] = [[""] * len(names) for _ in names]
    for p in c.pairs[metric]:
        i, j = names.index(p.a), names.index(p.b)
        score = {"a_better": 1.0, "b_better": -1.0}.get(p.verdict, 0.0)
        z[i][j], z[j][i] = score, -score
        word = {1.0: "better", -1.0: "worse"}.get(score, "≈")
        text[i][j] = word
        text[j][i] = {"better": "worse", "worse": "better"}.get(word, "≈")
    heat = {"type": "heatmap", "z": z, "x": list(names), "y": list(names), "text": text, "texttemplate": "%{text}",
            "zmin": -1, "zmax": 1, "colorscale": [[0, BAD], [0.5, "#eeeeee"], [1, GOOD]], "showscale": False,
            "hovertemplate": "%{y} vs %{x}: %{text}<extra></extra>"}
    return figure([heat], _layout(f"Row run against column run on {nice(metric)}", 140 + 45 * len(names),
                                  yaxis={"autorange": "reversed"}))


def trend_chart(points: Sequence[dict[str, Any]], metric: str) -> go.Figure:
    """The metric's mean over a series of runs in time order, each with its 95 % interval."""
    x = [f"{p['started_at'][:16].replace('T', ' ')}<br>{p['name']}" for p in points]
    y = [p["mean"] for p in points]
    plus = [None if p["ci_high"] is None else p["ci_high"] - p["mean"] for p in points]
    minus = [None if p["ci_low"] is None else p["mean"] - p["ci_low"] for p in points]
    line = {"type": "scatter", "x": x, "y": y, "mode": "lines+markers", "marker": {"size": 10, "color": "#4c78a8"},
            "error_y": {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus},
            "hovertemplate": "%{x}<br>mean %{y:.2f}<extra></extra>"}
    return figure([line], _layout(f"{nice(metric)} over the runs of this test set (95% intervals)", 360,
                                  yaxis={"title": {"text": f"mean {nice(metric)}"}}))
