"""Compare: regressions by conversation, for runs whose cases are turns of chats.

Under the question-by-question regressions: how many conversations regressed, improved or stayed
the same on the headline metric, then the regressed ones worst first — the mean over their turns
in each run, the first unsupported turn in each, the turns that lost most — with the worst lost
turn's answers side by side in Inspect. Built from ``PairResult.conversations``
(``evaluators.comparison``); nothing is shown for runs without conversations. Texts go into data
frames and escaped markdown only.
"""

from __future__ import annotations

from typing import Any, Callable

import pandas as pd
import streamlit as st

from .. import vocab
from ..data import md_escape


def _turn(v: int | None) -> str:
    return "none" if v is None else str(v)


def frame(conv: dict[str, Any], base: str, cand: str) -> pd.DataFrame:
    """One row per regressed conversation, worst first."""
    rows = []
    for c in conv["conversations"]:
        rows.append({
            "conversation": c["conversation_id"] or f"opened by {c['first_case']}",
            "turns": c["turns"],
            base: c["a"], cand: c["b"], "change": c["diff"],
            "first unsupported turn": (f"{_turn(c['first_unsupported_turn_a'])} → "
                                       f"{_turn(c['first_unsupported_turn_b'])}"),
            "turns that lost most": ", ".join(f"{t['turn']} ({t['a']:.2f} → {t['b']:.2f})"
                                             for t in c["turns_lost"][:3]),
        })
    return pd.DataFrame(rows)


def render(conv: dict[str, Any] | None, base: str, cand: str, metric: str,
           side_by_side: Callable[[str, str], dict[str, str]], inspect_page: str) -> None:
    """The section (nothing when ``conv`` is None). ``side_by_side(a_id, b_id)``: the Inspect query
    of one turn's two answers."""
    if conv is None:
        return
    n = conv["regressed"] + conv["improved"] + conv["unchanged"]
    st.markdown("**By conversation**", help="A conversation regressed when the mean of its turns on the metric "
                "moved the wrong way. Its first unsupported turn is the earliest answer not fully supported.")
    st.caption(md_escape(f"{n} conversations with turns in both runs: {conv['regressed']} regressed, "
                         f"{conv['improved']} improved, {conv['unchanged']} unchanged on {vocab.nice(metric)}."))
    if not conv["conversations"]:
        return
    st.dataframe(frame(conv, base, cand), hide_index=True, width="stretch", key="versions.conversations",
                 column_config={base: st.column_config.NumberColumn(format="%.3f"),
                                cand: st.column_config.NumberColumn(format="%.3f"),
                                "change": st.column_config.NumberColumn(format="%+.3f")})
    worst = conv["conversations"][0]
    if worst["turns_lost"]:
        t = worst["turns_lost"][0]
        st.page_link(inspect_page, label=f"Worst turn of the worst conversation (turn {t['turn']}) side by side",
                     icon=":material/manage_search:", query_params=side_by_side(t["id"], t["b_id"]))


__all__ = ["frame", "render"]
