"""Plotly figures of the dashboard. Pure functions (no Streamlit), unit-tested.

Each figure is written as plotly's own JSON spec (plain dicts and lists) and wrapped without
validation (:func:`figure`): plotly validates every property it is given, which took ~5 ms a figure,
the bulk of a first Results view's time with ten visitors. The tests validate every figure's spec
(``go.Figure(fig.to_dict())``), so a wrong property still fails, in the suite instead of on each
page view. Each figure carries a template of one property (:data:`TEMPLATE`), not plotly's (6 KB
a figure, sent on every view, and whichever was the process's default): the dashboard's theme,
light or dark, styles the charts.
"""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd
import plotly.graph_objects as go

from evaluators.types import OVERALL_SUPPORTED, TRACE_METRICS, RunResult

from .vocab import nice

#: Display names of the TRACE metrics, in report order.
LABELS = {m: nice(m) for m in (*TRACE_METRICS, OVERALL_SUPPORTED)}

#: The template of every figure: the ten series colours as Streamlit's own plotly template names
#: them, which the browser replaces with the theme's chart colours (light or dark); the theme
#: supplies the rest of the layout (fonts, grid, background). A test checks these are Streamlit's.
TEMPLATE: dict[str, Any] = {"layout": {"colorway": [f"#{i:06d}" for i in range(1, 11)]}}


def figure(data: list[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    """A figure from plotly specs, not validated here (the tests validate every figure's spec)."""
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def layout(title: str, height: int = 360, **more: Any) -> dict[str, Any]:
    return {"title": {"text": title}, "height": height, "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
            "template": TEMPLATE, **more}


def _bound(iv: Mapping[str, Any] | None, key: str) -> float | None:
    v = (iv or {}).get(key)
    return None if v is None else float(v)


def metric_bars(stats: pd.DataFrame, intervals: Mapping[str, Mapping[str, Any]] | None = None) -> go.Figure:
    """Mean per metric with error bars: the bootstrap interval when given (a metric without one
    gets no bar — never a zero-width one), else ± one std."""
    x = [nice(m) for m in stats["metric"]]
    y = [float(v) for v in stats["mean"]]
    hover: list[str] = []
    if intervals:
        lo: list[float | None] = []
        hi: list[float | None] = []
        for m, mean in zip(stats["metric"], y):
            low, high = _bound(intervals.get(m), "low"), _bound(intervals.get(m), "high")
            if low is None or high is None:
                lo.append(None)
                hi.append(None)
                why = (intervals.get(m) or {}).get("note") or "not computed"
                hover.append(f"{nice(m)}: mean {mean:.3f} · no interval ({why})")
            else:
                lo.append(max(0.0, mean - low))
                hi.append(max(0.0, high - mean))
                hover.append(f"{nice(m)}: mean {mean:.3f} · 95% interval {low:.2f}–{high:.2f}")
        err: dict[str, Any] = {"type": "data", "symmetric": False, "array": hi, "arrayminus": lo}
        note = "mean with 95% interval"
    else:
        std = [float(s) for s in stats["std"].fillna(0)]
        err = {"type": "data", "array": std}
        hover = [f"{nice(m)}: mean {mean:.3f} ± {s:.3f} (std)" for m, mean, s in zip(stats["metric"], y, std)]
        note = "mean ± std"
    bar = {"type": "bar", "x": x, "y": y, "error_y": err, "marker": {"color": "#4c78a8"}, "hovertext": hover,
           "hoverinfo": "text", "text": [f"{v:.2f}" for v in y], "textposition": "inside",
           "insidetextanchor": "start", "textfont": {"color": "white"}}
    return figure([bar], layout(f"Metrics ({note})", yaxis={"range": [0, max([1.0, *y]) * 1.15]}))


#: Above this many cases a chart is drawn from its summary (quartiles, bin counts) computed here,
#: not from every value sent to the browser.
SUMMARISE_ABOVE = 5000


def distributions(df: pd.DataFrame, metrics: list[str]) -> go.Figure:
    data: list[dict[str, Any]] = []
    for m in metrics:
        v = pd.to_numeric(df[m], errors="coerce").dropna()
        if len(v) > SUMMARISE_ABOVE:  # the box from its quartiles (no outlier dots: thousands of them)
            q1, med, q3 = (float(x) for x in v.quantile([0.25, 0.5, 0.75]))
            iqr = q3 - q1
            lo, hi = float(v[v >= q1 - 1.5 * iqr].min()), float(v[v <= q3 + 1.5 * iqr].max())
            data.append({"type": "box", "name": nice(m), "q1": [q1], "median": [med], "q3": [q3],
                         "lowerfence": [lo], "upperfence": [hi], "mean": [float(v.mean())], "x": [nice(m)]})
        else:
            data.append({"type": "box", "y": v.astype(float).tolist(), "name": nice(m), "boxpoints": "outliers"})
    return figure(data, layout("Distribution per case", showlegend=False))


def histogram(df: pd.DataFrame, metric: str, bins: int = 20) -> go.Figure:
    v = pd.to_numeric(df[metric], errors="coerce").dropna()
    if len(v) > SUMMARISE_ABOVE:  # bin counts computed here
        import numpy as np

        counts, edges = np.histogram(v.to_numpy(dtype=float), bins=bins)
        trace = {"type": "bar", "x": ((edges[:-1] + edges[1:]) / 2).tolist(), "y": counts.tolist(),
                 "width": float(edges[1] - edges[0]), "marker": {"color": "#72b7b2"}}
    else:
        trace = {"type": "histogram", "x": v.astype(float).tolist(), "nbinsx": bins, "marker": {"color": "#72b7b2"}}
    return figure([trace], layout(f"Histogram: {nice(metric)}", xaxis={"title": {"text": nice(metric)}},
                                  yaxis={"title": {"text": "cases"}}))


def radar(runs: Mapping[str, RunResult]) -> go.Figure:
    """The four TRACE metrics (means) of one or more runs. Two-word names break onto two lines (the
    side labels of a half-width chart were cut at the edge: "Context relevar")."""
    theta = [nice(m).replace(" ", "<br>", 1) for m in TRACE_METRICS]
    data = []
    for label, run in runs.items():
        means = run.means()
        r = [float(means[m] or 0.0) for m in TRACE_METRICS]
        data.append({"type": "scatterpolar", "r": r + r[:1], "theta": theta + theta[:1], "fill": "toself",
                     "name": label, "customdata": [nice(m) for m in (*TRACE_METRICS, TRACE_METRICS[0])],
                     "hovertemplate": "%{customdata}: %{r:.3f}<extra>%{fullData.name}</extra>"})
    return figure(data, layout("TRACE profile", 400, polar={"radialaxis": {"visible": True, "range": [0, 1]}},
                               showlegend=True, legend={"orientation": "h", "y": -0.1},
                               margin={"l": 90, "r": 90, "t": 60, "b": 30}))


def scatter_pair(paired: pd.DataFrame, metric: str, label_a: str, label_b: str,
                 corr_text: str = "", jitter: float = 0.015) -> go.Figure:
    """One dot per case (A's score across, B's up). Dots that would sit on another one (equal
    scores) are nudged by at most ``jitter``, deterministically; the hover shows the exact scores."""
    import numpy as np

    a = pd.to_numeric(paired["a"], errors="coerce").astype(float).to_numpy()
    b = pd.to_numeric(paired["b"], errors="coerce").astype(float).to_numpy()
    dup = pd.Series(list(zip(a, b))).duplicated(keep=False).to_numpy() if len(a) else np.zeros(0, bool)
    rng = np.random.default_rng(0)
    x = a + np.where(dup, rng.uniform(-jitter, jitter, len(a)), 0.0)
    y = b + np.where(dup, rng.uniform(-jitter, jitter, len(b)), 0.0)
    dots = {"type": "scatter", "x": x.tolist(), "y": y.tolist(), "mode": "markers",
            "text": [str(i) for i in paired["id"]], "customdata": np.column_stack([a, b]).tolist(),
            "hovertemplate": "case %{text}<br>A = %{customdata[0]:.3f}<br>B = %{customdata[1]:.3f}<extra></extra>",
            "marker": {"size": 9, "opacity": 0.6}}
    line = {"type": "scatter", "x": [0, 1], "y": [0, 1], "mode": "lines", "line": {"dash": "dot", "color": "#999"},
            "showlegend": False, "hoverinfo": "skip"}
    return figure([dots, line], layout(f"{nice(metric)}: {corr_text}".rstrip(": "), 420, showlegend=False,
                                       xaxis={"title": {"text": label_a}, "range": [-0.05, 1.05]},
                                       yaxis={"title": {"text": label_b}, "range": [-0.05, 1.05]}))


def grouped_means(table: pd.DataFrame) -> go.Figure:
    """Bars of metric means, one group per run: ``table`` has columns run, metric, mean (and low,
    high: the 95 % interval, drawn as whiskers where known)."""
    data = []
    for run, g in table.groupby("run", sort=False):
        bar: dict[str, Any] = {"type": "bar", "x": [nice(m) for m in g["metric"]],
                               "y": [float(v) for v in g["mean"]], "name": str(run)}
        if {"low", "high"} <= set(g.columns) and g["low"].notna().any():
            mean = g["mean"].astype(float)
            bar["error_y"] = {"type": "data", "symmetric": False,
                              "array": (g["high"].astype(float) - mean).clip(lower=0).tolist(),
                              "arrayminus": (mean - g["low"].astype(float)).clip(lower=0).tolist()}
        data.append(bar)
    return figure(data, layout("Run vs run", barmode="group", yaxis={"range": [0, 1.05]}))


def roc(points: list[dict[str, Any]]) -> go.Figure:
    data = []
    df = pd.DataFrame(points)
    if not df.empty:
        keys = [c for c in ("run", "method", "metric") if c in df]  # two runs of one method apart
        for name, g in df.groupby(keys) if keys else [("", df)]:
            label = " · ".join(map(str, name)) if isinstance(name, tuple) else str(name)
            data.append({"type": "scatter", "x": g["fpr"].astype(float).tolist(),
                         "y": g["tpr"].astype(float).tolist(), "mode": "lines", "name": label})
    data.append({"type": "scatter", "x": [0, 1], "y": [0, 1], "mode": "lines", "line": {"dash": "dot", "color": "#999"},
                 "showlegend": False})
    return figure(data, layout("ROC against human labels", 400, xaxis={"title": {"text": "false positive rate"}},
                               yaxis={"title": {"text": "true positive rate"}}))
