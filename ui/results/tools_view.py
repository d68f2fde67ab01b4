"""Results for a run of an agent: its tool-call metrics as one table — a row per metric with its
mean, 95 % interval, the cases it is computed on and which way is better, each defined in the
header's help — instead of thirteen more cards; and goal accuracy, with its value or the reason it
has none (offline: "not available", never a guess). Drawn only when the run's cases carry tool calls
or reference tool calls."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from evaluators.toolcalls import GOAL, NAMES, is_toolcall_metric

from .. import vocab
from ..data import md_escape

TITLE = "**Tool calls** — the agent's calls against the reference calls, and what they cost (mean [95 % interval])"


def tool_table(stats: pd.DataFrame, ivs: dict[str, Any] | None) -> pd.DataFrame:
    """metric, mean, 95% interval, cases, better — the run's tool-call metrics in report order."""
    by = {str(r["metric"]): r for _, r in stats.iterrows() if is_toolcall_metric(str(r["metric"]))}
    rows = []
    for m in (n for n in NAMES if n in by):
        r = by[m]
        if pd.isna(r["mean"]):
            continue
        iv = (ivs or {}).get(m) or {}
        ci = f"{iv['low']:.3f}–{iv['high']:.3f}" if iv.get("low") is not None and iv.get("high") is not None else ""
        d = vocab.declaration(m) or {}
        rows.append({"metric": vocab.nice(m), "mean": f"{float(r['mean']):.3f}", "95% interval": ci,
                     "cases": int(r["n"]), "better": "higher" if d.get("direction") != "lower" else "lower"})
    return pd.DataFrame(rows, columns=["metric", "mean", "95% interval", "cases", "better"])


def goal_note(run: Any, stats: pd.DataFrame) -> str | None:
    """Why the run has no goal accuracy (its warning: offline, dry run, no key …), None when it has
    values or is no agent's run."""
    if any(str(m) == GOAL for m in stats["metric"]):
        return None
    why = next((str(w).split(": ", 1)[1] for w in getattr(run, "warnings", ()) or ()
                if str(w).startswith(f"{GOAL}: ")), None)
    return why


def render(stats: pd.DataFrame, ivs: dict[str, Any] | None, run: Any) -> None:
    """The table and the goal-accuracy line (nothing for a run of no agent)."""
    table = tool_table(stats, ivs)
    why = goal_note(run, stats)
    if table.empty and why is None:
        return
    names = [m for m in NAMES if vocab.help_text(m)]
    st.markdown(TITLE, help="\n\n".join(f"**{vocab.nice(m)}**: {(vocab.help_text(m) or '').split(chr(10))[0]}"
                                        for m in names))
    if not table.empty:
        cc = st.column_config
        st.dataframe(table, hide_index=True, width="stretch", column_config={
            "metric": cc.TextColumn(width=190, help="hover the title above for what each means (all of them: "
                                                    "Glossary)"),
            "cases": cc.NumberColumn(width=60, help="cases with a value (the comparisons need reference tool calls)"),
            "better": cc.TextColumn(width=70, help="which way is better: counts and seconds are better lower")})
    if why is not None:
        st.caption(md_escape(f"{vocab.nice(GOAL)}: {why}."))
