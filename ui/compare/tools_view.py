"""Compare's "Which version is better?", beside the verdict, for agents: the tools each candidate
stopped or started calling against the baseline, question by question ("agent_v2 stopped calling
lookup_order on 11 questions", ``Comparison.tools_between``), with the questions named. Drawn only
when the runs record tool calls (an agent's traces, or "Run your app" on an agent); its tool-call
metrics are in the "Every metric" table and the Metric picker like every other metric."""

from __future__ import annotations

import streamlit as st

from evaluators.comparison import Comparison

from ..data import md_escape

#: Questions named after each sentence (the rest counted).
SHOWN_IDS = 12
TOOLS_HELP = ("For each question both versions were asked, the tools the agent called (their names, "
              "whatever the arguments): a tool the baseline called and the candidate did not is a tool it "
              "stopped calling. The tool-call metrics (tool_call_f1, trajectory_superset …) compare the calls "
              "with the reference calls of each question: see Every metric.")


def lines(c: Comparison, base: str, cands: list[str]) -> None:
    """The tools each candidate stopped / started calling against the baseline (when recorded)."""
    for cand in cands:
        diff = c.tools_between(base, cand)
        if diff is None:
            continue
        st.markdown(f"**Tools called** — {md_escape(cand)} against {md_escape(base)}, paired by question",
                    help=TOOLS_HELP)
        found = [*diff.dropped.values(), *diff.added.values()]
        if not found:
            st.caption(md_escape(f"{cand} called the same tools as {base} on all {diff.n_paired} paired questions."))
            continue
        rows = []
        for sentence, ids in zip(diff.sentences, found):
            more = f" … (+{len(ids) - SHOWN_IDS})" if len(ids) > SHOWN_IDS else ""
            rows.append(f"- **{md_escape(sentence)}**: {md_escape(', '.join(ids[:SHOWN_IDS]))}{more}")
        st.markdown("\n".join(rows))
