"""Draw a figure of ``ui.charts`` (or any plotly figure): its title as text above the chart, not
inside it.

Inside the chart a title is one SVG line: cut at the chart's width (Compare's two charts side by side
at 1280 px, every chart at 390 px), and covered by the chart's toolbar, which sits in the figure's top
corner. Above it, the title wraps like any text and carries a help tooltip; the figure keeps a top
margin just tall enough for the toolbar. The figure object is not changed (figures are memoised and
shared): the chart is drawn from a copy of its spec.

    plot.show(charts.metric_bars(stats), key="results.bars", where=left, help="…")
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import streamlit as st

from .data import md_escape

#: The figure's top margin once its title is out: room for the toolbar (28 px high) above the plot.
TOOLBAR_MARGIN = 34


def untitled(fig: go.Figure) -> tuple[str, go.Figure]:
    """(the figure's title text, a copy of the figure without it and with room for the toolbar)."""
    spec = fig.to_dict()
    layout = spec.setdefault("layout", {})
    title = layout.pop("title", None) or {}
    text = str(title.get("text") or "") if isinstance(title, dict) else str(title)
    margin = dict(layout.get("margin") or {})
    margin["t"] = TOOLBAR_MARGIN
    layout["margin"] = margin
    return text, go.Figure(spec, _validate=False)


def show(fig: go.Figure, key: str, where: Any = None, help: str | None = None, **kwargs: Any) -> None:
    """Draw ``fig`` in ``where`` (a column or container; default the page): its title in bold above
    it (with ``help``), then the chart."""
    target = where if where is not None else st
    title, bare = untitled(fig)
    if title:
        target.markdown(f"**{md_escape(title)}**", help=help)
    target.plotly_chart(bare, key=key, **kwargs)
