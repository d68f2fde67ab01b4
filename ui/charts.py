"""Plotly figures of the dashboard. Pure functions (no Streamlit), unit-tested."""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from evaluators.types import OVERALL_SUPPORTED, TRACE_METRICS, RunResult


def nice(name: str) -> str:
    return name.replace("_", " ").capitalize()


#: Display names of the TRACE metrics, in report order.
LABELS = {m: nice(m) for m in (*TRACE_METRICS, OVERALL_SUPPORTED)}


#: Every figure of the dashboard is drawn with this template, set once as plotly's default: the same
#: figure as ``template="plotly_white"`` on each, without validating the template again for each
#: figure (~10 ms a figure, a fifth of a Results page's script time).
TEMPLATE = "plotly_white"
pio.templates.default = TEMPLATE


def _layout(fig: go.Figure, title: str, height: int = 360) -> go.Figure:
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=50, b=10))
    return fig


def _bound(iv: Mapping[str, Any] | None, key: str) -> float | None:
    v = (iv or {}).get(key)
    return None if v is None else float(v)


def metric_bars(stats: pd.DataFrame, intervals: Mapping[str, Mapping[str, Any]] | None = None) -> go.Figure:
    """Mean per metric with error bars: the bootstrap interval when given (a metric without one
    gets no bar — never a zero-width one), else ± one std."""
    x = [nice(m) for m in stats["metric"]]
    y = stats["mean"].astype(float).tolist()
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
        err = dict(type="data", symmetric=False, array=hi, arrayminus=lo)
        note = "mean with 95% interval"
    else:
        std = stats["std"].fillna(0).astype(float).tolist()
        err = dict(type="data", array=std)
        hover = [f"{nice(m)}: mean {mean:.3f} ± {s:.3f} (std)" for m, mean, s in zip(stats["metric"], y, std)]
        note = "mean ± std"
    fig = go.Figure(go.Bar(x=x, y=y, error_y=err, marker_color="#4c78a8", hovertext=hover,
                           hoverinfo="text", text=[f"{v:.2f}" for v in y], textposition="inside",
                           insidetextanchor="start", textfont=dict(color="white")))
    fig.update_yaxes(range=[0, max([1.0, *y]) * 1.15])
    return _layout(fig, f"Metrics ({note})")


#: Above this many cases a chart is drawn from its summary (quartiles, bin counts) computed here,
#: not from every value sent to the browser.
SUMMARISE_ABOVE = 5000


def distributions(df: pd.DataFrame, metrics: list[str]) -> go.Figure:
    fig = go.Figure()
    for m in metrics:
        v = pd.to_numeric(df[m], errors="coerce").dropna()
        if len(v) > SUMMARISE_ABOVE:  # the box from its quartiles (no outlier dots: thousands of them)
            q1, med, q3 = (float(x) for x in v.quantile([0.25, 0.5, 0.75]))
            iqr = q3 - q1
            lo, hi = float(v[v >= q1 - 1.5 * iqr].min()), float(v[v <= q3 + 1.5 * iqr].max())
            fig.add_trace(go.Box(name=nice(m), q1=[q1], median=[med], q3=[q3], lowerfence=[lo],
                                 upperfence=[hi], mean=[float(v.mean())], x=[nice(m)]))
        else:
            fig.add_trace(go.Box(y=v, name=nice(m), boxpoints="outliers"))
    fig.update_layout(showlegend=False)
    return _layout(fig, "Distribution per case")


def histogram(df: pd.DataFrame, metric: str, bins: int = 20) -> go.Figure:
    v = pd.to_numeric(df[metric], errors="coerce").dropna()
    if len(v) > SUMMARISE_ABOVE:  # bin counts computed here
        import numpy as np

        counts, edges = np.histogram(v.to_numpy(dtype=float), bins=bins)
        fig = go.Figure(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=float(edges[1] - edges[0]),
                               marker_color="#72b7b2"))
    else:
        fig = go.Figure(go.Histogram(x=v, nbinsx=bins, marker_color="#72b7b2"))
    fig.update_xaxes(title=nice(metric))
    fig.update_yaxes(title="cases")
    return _layout(fig, f"Histogram: {nice(metric)}")


def radar(runs: Mapping[str, RunResult]) -> go.Figure:
    """The four TRACE metrics (means) of one or more runs."""
    fig = go.Figure()
    theta = [nice(m) for m in TRACE_METRICS]
    for label, run in runs.items():
        means = run.means()
        r = [float(means[m] or 0.0) for m in TRACE_METRICS]
        fig.add_trace(go.Scatterpolar(r=r + r[:1], theta=theta + theta[:1], fill="toself", name=label))
    fig.update_layout(polar=dict(radialaxis=dict(visible=True, range=[0, 1])), showlegend=True,
                      legend=dict(orientation="h", y=-0.1))
    fig = _layout(fig, "TRACE profile", height=400)
    fig.update_layout(margin=dict(l=90, r=90, t=60, b=30))
    return fig


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
    fig = go.Figure(go.Scatter(x=x, y=y, mode="markers", text=paired["id"],
                               customdata=paired[["a", "b"]].to_numpy(),
                               hovertemplate="case %{text}<br>A = %{customdata[0]:.3f}<br>B = %{customdata[1]:.3f}"
                                             "<extra></extra>",
                               marker=dict(size=9, opacity=0.6)))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(dash="dot", color="#999"),
                             showlegend=False, hoverinfo="skip"))
    fig.update_xaxes(title=f"{label_a}", range=[-0.05, 1.05])
    fig.update_yaxes(title=f"{label_b}", range=[-0.05, 1.05])
    fig.update_layout(showlegend=False)
    return _layout(fig, f"{nice(metric)}: {corr_text}".rstrip(": "), height=420)


def grouped_means(table: pd.DataFrame) -> go.Figure:
    """Bars of metric means, one group per run: ``table`` has columns run, metric, mean (and low,
    high: the 95 % interval, drawn as whiskers where known)."""
    fig = go.Figure()
    for run, g in table.groupby("run", sort=False):
        err = None
        if {"low", "high"} <= set(g.columns) and g["low"].notna().any():
            mean = g["mean"].astype(float)
            err = dict(type="data", symmetric=False, array=(g["high"].astype(float) - mean).clip(lower=0).tolist(),
                       arrayminus=(mean - g["low"].astype(float)).clip(lower=0).tolist())
        fig.add_trace(go.Bar(x=[nice(m) for m in g["metric"]], y=g["mean"], name=str(run), error_y=err))
    fig.update_layout(barmode="group")
    fig.update_yaxes(range=[0, 1.05])
    return _layout(fig, "Run vs run")


def roc(points: list[dict[str, Any]]) -> go.Figure:
    fig = go.Figure()
    df = pd.DataFrame(points)
    if not df.empty:
        keys = [c for c in ("method", "metric") if c in df]
        for name, g in df.groupby(keys) if keys else [("", df)]:
            label = " / ".join(map(str, name)) if isinstance(name, tuple) else str(name)
            fig.add_trace(go.Scatter(x=g["fpr"], y=g["tpr"], mode="lines", name=label))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(dash="dot", color="#999"),
                             showlegend=False))
    fig.update_xaxes(title="false positive rate")
    fig.update_yaxes(title="true positive rate")
    return _layout(fig, "ROC against human labels", height=400)
