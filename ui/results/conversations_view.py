"""Results: a run of turns of chats, by turn and by conversation.

From the per-case table alone (its ``conversation`` / ``turn`` columns, ``evaluators.export``), so a
stored run of any size is never opened case by case: the metrics by turn index with their 95 %
intervals (resampled by conversation), then the conversations worst first — their worst turn and
first unsupported turn, each a link to Inspect. A run without conversations has no such tab
(:func:`has_conversations`). Texts go into data frames only (Streamlit escapes them).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from evaluators.conversations.grouping import Row, by_conversation, by_turn, row_of_flat
from evaluators.types import EXPECTED_ADHERENCE

from .. import share, vocab

#: The metrics of the by-turn table, in order.
SHOWN = (EXPECTED_ADHERENCE, "adherence", "overall_supported", "context_relevance", "context_utilization")


def has_conversations(df: pd.DataFrame) -> bool:
    return "conversation" in df.columns and bool(df["conversation"].notna().any())


def rows_of(df: pd.DataFrame) -> list[Row]:
    """The grouping rows of the table's cases (a case with neither conversation nor history joins,
    as turn 1, the conversation its question opened)."""
    return [row_of_flat(rec) for rec in df.to_dict("records")]


def turn_frame(turns: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per turn: its cases, conversations and each shown metric as "mean [low, high]"."""
    rows = []
    for t in turns:
        row: dict[str, Any] = {"turn": t["turn"], "cases": t["n"], "conversations": t["conversations"]}
        for m in SHOWN:
            iv = t["metrics"][m]
            mean = iv.get("mean")
            ci = f" [{iv['low']:.2f}, {iv['high']:.2f}]" if iv.get("low") is not None else ""
            row[vocab.nice(m)] = "n/a" if mean is None else f"{mean:.3f}{ci}"
        rows.append(row)
    return pd.DataFrame(rows)


def conversation_frame(convs: list[dict[str, Any]], run_id: str | None) -> pd.DataFrame:
    """One row per conversation, worst first, with links to Inspect its worst and first unsupported turn."""
    rows = []
    for c in convs:
        worst, first = c["worst_turn"], c["first_unsupported_turn"]
        rows.append({
            "conversation": c["conversation_id"] or f"opened by {c['cases'][0]['id']}",
            "turns": c["turns"],
            "mean expected adherence": c["means"].get(EXPECTED_ADHERENCE),
            "worst turn": None if worst is None else worst["turn"],
            "its expected adherence": None if worst is None else worst[EXPECTED_ADHERENCE],
            "inspect worst turn": None if worst is None else share.case_link(worst["id"], run_id),
            "first unsupported turn": None if first is None else first["turn"],
            "inspect first unsupported": None if first is None else share.case_link(first["id"], run_id),
        })
    return pd.DataFrame(rows)


def tab(df: pd.DataFrame, run_id: str | None) -> None:
    """The Conversations tab of Results."""
    rows = rows_of(df)
    turns = by_turn(rows)
    convs = by_conversation(rows)
    st.caption(f"{len(convs)} conversation(s), {sum(t['n'] for t in turns)} turns. Turn = 1 + the user turns "
               "before the question (Inspect: “question N of the chat”); intervals are resampled by "
               "conversation (its turns are not independent). "
               "A turn is judged against its standalone question; an answer the agent already gave in an "
               "earlier turn counts as support, shown as such in Inspect.")
    st.markdown("**By turn**", help="Is the assistant worse later in a conversation? Each metric's mean over "
                "the turns with that index, with its 95 % interval.")
    st.dataframe(turn_frame(turns), hide_index=True, width="stretch", key="results.conv.turns")
    st.markdown("**Conversations, worst first**", help="Ordered by their worst turn's expected adherence. "
                "The first unsupported turn is the earliest answer not fully supported.")
    link = st.column_config.LinkColumn
    st.dataframe(conversation_frame(convs, run_id), hide_index=True, width="stretch", key="results.conv.list",
                 column_config={"inspect worst turn": link("inspect worst turn", display_text="open →"),
                                "inspect first unsupported": link("inspect first unsupported",
                                                                  display_text="open →"),
                                "mean expected adherence": st.column_config.NumberColumn(format="%.3f"),
                                "its expected adherence": st.column_config.NumberColumn(format="%.3f")})


__all__ = ["SHOWN", "conversation_frame", "has_conversations", "rows_of", "tab", "turn_frame"]
