"""Compare's "Which version is better?", beside the verdict: what the app itself did — its latency,
tokens and errors, candidate against baseline, paired by question (``Comparison.app_between``: "v2
is 21 % slower than v1 (…), p95 …") — and the retrieval metrics (hit@K, precision@K, recall@K,
map@K, ndcg@K, MRR) as one grid: a row per kind, a column per cutoff, each cell "baseline →
candidate" with a mark where the 95 % interval of the difference excludes 0. Each part is drawn
only when the runs carry it (runs of "Run your app" / ``evaluate --target`` do)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from evaluators.comparison import Comparison, short_bound
from evaluators.comparison import short_number as num
from evaluators.retrieval import is_retrieval_metric, split

from .. import vocab
from ..data import md_escape

MARKS = {"b_better": "▲", "a_better": "▼"}
APP_HELP = ("Read from the app's own calls (each case's latency, tokens and error, as the target runner "
            "recorded them), on the questions both versions were asked. Latency: the ratio of mean latencies "
            "with its interval and p from one paired sign-flip test; slower / faster when the interval "
            "excludes 1, which is exactly when p is at most 0.05. Tokens: the ratio of the sums. Errors: an "
            "exact McNemar test on the questions only one version failed.")


def retrieval_grid(c: Comparison, base: str, cand: str) -> tuple[pd.DataFrame, str]:
    """The retrieval metrics of ``cand`` against ``base``: (a grid kind × K of "A → B ▲/▼", the MRR
    line); an empty grid when the runs have none."""
    texts: dict[str, str] = {}
    for m in c.metrics:
        got = split(m)
        if got is None:
            continue
        p = c.pair(base, cand, m)
        s = p.stats
        if s.mean_a is None or s.mean_b is None:
            continue
        text = f"{num(s.mean_a)} → {num(s.mean_b)} {MARKS.get(p.verdict, '·')}"
        if got[1] is None:
            ci = (f", 95 % CI {short_bound(s.ci_low)} to {short_bound(s.ci_high)}"
                  if s.ci_low is not None and s.ci_high is not None else "")
            text = f"MRR: {text} (B − A {num(s.diff or 0.0, True)}{ci})"
        texts[m] = text
    return vocab.retrieval_grid(texts)


def app_lines(c: Comparison, base: str, cands: list[str]) -> None:
    """The app's own latency, tokens and errors, each candidate against the baseline (when recorded)."""
    for cand in cands:
        diff = c.app_between(base, cand)
        if diff is None or not diff.lines:
            continue
        st.markdown(f"**The app itself** — {md_escape(cand)} against {md_escape(base)}, paired by question",
                    help=APP_HELP)
        st.markdown("\n".join(f"- {md_escape(line)}" for line in diff.lines))


def retrieval(c: Comparison, base: str, cands: list[str]) -> None:
    """The retrieval grid of the candidate in focus (when the runs carry retrieval metrics)."""
    if not any(is_retrieval_metric(m) for m in c.metrics):
        return
    focus = cands[0] if len(cands) == 1 else st.session_state.get("versions.table_cand") or cands[0]
    grid, mrr = retrieval_grid(c, base, focus)
    if grid.empty and not mrr:
        return
    st.markdown(f"**Retrieval** — {md_escape(base)} → {md_escape(focus)}, against the passages each question "
                "should retrieve", help="\n\n".join(f"**{m}**: {vocab.help_text(m)}" for m in (
                    "hit@K", "precision@K", "recall@K", "map@K", "ndcg@K", "mrr")))
    if not grid.empty:
        st.table(grid)
    st.caption(md_escape((mrr + " · " if mrr else "") + "▲ better, ▼ worse: the 95 % interval of the paired "
                         "difference excludes 0; · no detectable difference. Each also in the Metric picker above."))
