"""Compare's "Which version is better?" view: a baseline and one or more candidates from the run
history, compared on the questions they share (``evaluators.comparison``). Plain words first (the
verdict, how the cases were paired), then the charts (means and differences with their 95 %
intervals, the pairwise verdicts, the trend over runs of the same test set), then the regressions,
each opening a side-by-side Inspect of the same question under both versions.

Runs come from the visitor's history through ``ui.history`` (``summaries`` / ``load``): the
comparison works on each run's compact table (``table_from_run``), memoised per run."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence

import pandas as pd
import streamlit as st

from evaluators.comparison import (
    Comparison,
    ComparisonError,
    PairResult,
    RunTable,
    compare_tables,
    same_test_set,
    table_from_run,
    trend,
    verdict_sentence,
)
from evaluators.comparison import short_number as num
from evaluators.store import RunSummary

from .. import highlight as hl
from .. import history, state, vocab
from ..data import md_escape
from . import compare_charts

INSPECT_PAGE = "pages/4_inspect.py"
#: How many recent runs the default pair and the trend look at.
LOOK_AT = 8
TREND_RUNS = 12

#: Every term of the view in plain words (help tooltips).
TERMS = {
    "baseline": "The version you compare against (A) — usually what runs today. Its run is the reference "
                "every difference is measured from.",
    "candidates": "The versions you want to judge (B): a new prompt, model or retriever, evaluated on the same "
                  "questions. Several candidates are ranked together.",
    "metric": "The score the verdict is about. By default expected adherence for TRACE runs (how likely each "
              "answer sentence is backed by the documents), adherence otherwise.",
    "paired": "Both versions answered the same questions, so each question is compared with itself: how hard a "
              "question is cancels out, and far fewer questions are needed to see a real difference.",
    "interval": "95 % interval: the range the true difference lies in with 95 % confidence. It comes from "
                "2,000 resamples of the paired questions (seeded: the same figures every time). If it "
                "excludes 0, the difference is real.",
    "p": "p-value: how often a difference at least this large would appear by chance if both versions were "
         "equally good (paired t-test). Below 0.05 counts as a difference.",
    "holm": "With three or more runs many pairs are tested at once, and some would look different by luck: "
            "Holm's method raises each p-value to account for the number of pairs.",
    "detectable": "The smallest difference these questions could have revealed (80 % of the time). A real "
                  "difference smaller than this can hide in the noise: add questions to see it.",
    "wins": "Questions where the candidate scores higher (win), the same within 0.0005 (tie) or lower (loss).",
    "regressions": "The paired questions where the candidate's score drops most, worst first — each with both "
                   "scores and the candidate's answer sentences that are not fully supported (saying which of "
                   "them the baseline had supported).",
    "rank": "Rank 1 = best mean. The range shows where the rank falls in 95 % of resamples: overlapping "
            "ranges mean the order is not settled.",
}


# ------------------------------------------------------------------------------------ pure helpers
def short_names(saved: Sequence[RunSummary]) -> dict[str, str]:
    """Run id -> a name for the comparison: the run's name, with its time when two runs share one."""
    counts: dict[str, int] = {}
    for s in saved:
        counts[s.name] = counts.get(s.name, 0) + 1
    return {s.id: s.name if counts[s.name] == 1 else f"{s.name} ({s.created_at[:16].replace('T', ' ')})"
            for s in saved}


def default_pair(ids: Sequence[str], table_of: Callable[[str], RunTable], look_at: int = LOOK_AT
                 ) -> tuple[str, str] | None:
    """(baseline, candidate) to open on, from run ids newest first, the earlier run as baseline: the
    newest two runs on different files (other answers) that share questions — the two latest when
    they qualify; else the newest two runs that share questions (say, two methods on one file); else
    the two latest. None with fewer than two runs."""
    top = list(ids)[:look_at]
    if len(top) < 2:
        return None
    pairs = [(older, newer) for i, newer in enumerate(top) for older in top[i + 1:]]
    shared = [(o, n) for o, n in pairs if same_test_set(table_of(o), table_of(n), min_share=0.5)]
    other_files = [(o, n) for o, n in shared if table_of(o).fingerprint != table_of(n).fingerprint]
    return (other_files or shared or [(top[1], top[0])])[0]


def pair_words(c: Comparison, p: PairResult) -> str:
    """The pair's verdict in words, the metric named as people read it ("expected adherence")."""
    n_tests = len(c.names) * (len(c.names) - 1) // 2 if c.corrected else 1
    return verdict_sentence(p.a, p.b, vocab.nice(p.metric).lower(), p.stats, p.verdict, p.p_adjusted, n_tests)


def verdict_kind(p: PairResult) -> str:
    """'better' / 'worse' / 'same' for the candidate (run b) against the baseline (run a)."""
    return {"b_better": "better", "a_better": "worse"}.get(p.verdict, "same")


def metrics_frame(c: Comparison, baseline: str, candidate: str) -> pd.DataFrame:
    """One row per metric: both means, the difference with its interval, p, the verdict in words."""
    rows = []
    for m in c.metrics:
        p = c.pair(baseline, candidate, m)
        s = p.stats
        ci = "" if s.ci_low is None or s.ci_high is None else f"{num(s.ci_low, True)} to {num(s.ci_high, True)}"
        rows.append({"metric": vocab.nice(m), "baseline": s.mean_a, "candidate": s.mean_b, "difference": s.diff,
                     "95% interval": ci, "p-value": p.p_adjusted,
                     "candidate is": {"better": "better", "worse": "worse",
                                      "same": "no detectable difference"}[verdict_kind(p)],
                     "wins / ties / losses": f"{s.wins} / {s.ties} / {s.losses}", "questions": s.n})
    return pd.DataFrame(rows)


def standings_frame(c: Comparison, metric: str) -> pd.DataFrame:
    rows = []
    for s in sorted(c.standings[metric], key=lambda s: (s.rank, s.name)):
        rows.append({"rank": s.rank, "run": s.name, "mean": s.mean,
                     "95% interval": "" if s.ci_low is None else f"{s.ci_low:.3f} – {s.ci_high:.3f}",
                     "rank range": f"{s.rank_low}" if s.rank_low == s.rank_high else f"{s.rank_low}–{s.rank_high}",
                     "questions": s.n_compared})
    return pd.DataFrame(rows)


def side_by_side_params(base_id: str, cand_id: str, a_id: str, b_id: str) -> dict[str, str]:
    """Inspect's query parameters for the same question under both versions."""
    return {"run": base_id, "case": a_id, "vs": cand_id, "vs_case": b_id}


# ------------------------------------------------------------------------------------ data access
def _table(s: RunSummary) -> RunTable:
    """A run of the history as a comparison table, read once per session; the sentences of the
    regressions it lists are read from the store when shown."""
    return state.memo(("versions.table", s.id), lambda: table_from_run(history.load(s.id), s.name))


def _compare(tables: list[RunTable], metric: str | None) -> Comparison:
    key = ("versions.compare", tuple(t.name for t in tables), tuple(t.fingerprint for t in tables), metric)

    def run() -> Comparison:
        first = compare_tables(tables)
        if metric is None or metric == first.metric:
            return first
        return compare_tables(tables, [metric, *[m for m in first.metrics if m != metric]])
    return state.memo(key, run)


# ------------------------------------------------------------------------------------ the view
def render() -> None:
    saved = history.summaries(status=("finished", "cancelled"))
    by_id = {s.id: s for s in saved}
    if len(saved) < 2:
        st.info("Evaluate two versions of your system's answers to the same questions (two files), and this "
                "view says which is better. No files? The Start page loads the sample and its version 2 "
                "in one click each.")
        st.page_link("pages/0_start.py", label="Start: the sample in two versions", icon="🏁")
        return
    names = short_names(saved)
    ids = [s.id for s in saved]
    if st.session_state.get("versions.base") not in by_id:
        pair = default_pair(ids, lambda i: _table(by_id[i]))
        if pair is not None:
            st.session_state["versions.base"], st.session_state["versions.cands"] = pair[0], [pair[1]]
    c1, c2, c3 = st.columns([2, 3, 2])
    base_id = c1.selectbox("Baseline (A)", ids, key="versions.base", format_func=lambda i: by_id[i].label,
                           help=TERMS["baseline"])
    if not set(st.session_state.get("versions.cands") or []) <= set(ids):
        st.session_state["versions.cands"] = [i for i in st.session_state.get("versions.cands") or [] if i in ids]
    cand_ids = c2.multiselect("Candidates (B …)", [i for i in ids if i != base_id], key="versions.cands",
                              format_func=lambda i: by_id[i].label, help=TERMS["candidates"],
                              placeholder="pick one or more runs")
    cand_ids = [i for i in cand_ids if i != base_id]
    if not cand_ids:
        st.info("Pick at least one candidate to compare with the baseline.")
        return
    run_ids = [base_id, *cand_ids]
    with st.spinner("Comparing…"):
        tables = [replace(_table(by_id[i]), name=names[i]) for i in run_ids]
        try:
            first = _compare(tables, None)
        except ComparisonError as exc:
            st.warning(f"These runs cannot be compared: {exc}")
            return
    if st.session_state.get("versions.metric") not in first.metrics:
        st.session_state["versions.metric"] = first.metric
    metric = c3.selectbox("Metric", first.metrics, key="versions.metric", format_func=vocab.nice,
                          help=TERMS["metric"] + "\n\n" + (vocab.help_text(
                              str(st.session_state.get("versions.metric") or first.metric)) or ""))
    c = _compare(tables, metric)
    base = names[base_id]
    cands = [names[i] for i in cand_ids]
    _words(c, base, cands, metric)
    _charts(c, base, cands, metric, by_id[base_id], saved)
    _regressions(c, base, cands, metric, base_id, dict(zip(cands, cand_ids)))


def _words(c: Comparison, base: str, cands: list[str], metric: str) -> None:
    for cand in cands:
        p = c.pair(base, cand, metric)
        box = {"better": st.success, "worse": st.error, "same": st.info}[verdict_kind(p)]
        box(md_escape(pair_words(c, p)), icon={"better": "✅", "worse": "⚠️", "same": "🟰"}[verdict_kind(p)])
        s = p.stats
        st.caption(md_escape(f"{s.wins} questions score higher under {cand}, {s.losses} lower, {s.ties} the same."),
                   help=TERMS["wins"])
    if len(cands) > 1:
        top = min(c.standings[metric], key=lambda s: (s.rank, s.name))
        settled = top.rank_low == top.rank_high == 1
        st.markdown(f"**Best on {vocab.nice(metric)}: {md_escape(top.name)}**"
                    + (" — first in 95 % of resamples." if settled else
                       f" — but the order is not settled: it ranks {top.rank_low}–{top.rank_high} in 95 % of "
                       "resamples."), help=TERMS["rank"])
    st.caption(f"{md_escape(c.matching_words())} The statistics are paired: each question is compared with itself.",
               help=TERMS["paired"])
    if c.corrected:
        st.caption(c.correction_words(), help=TERMS["holm"])
    lone = {k: v for k, v in c.unmatched.items() if v}
    if lone:
        with st.expander(f"{sum(map(len, lone.values()))} case(s) without a partner (left out of every figure)"):
            for name, ids in lone.items():
                st.markdown(f"**{md_escape(name)}** ({len(ids)}): " + ", ".join(md_escape(i) for i in ids[:200])
                            + (" …" if len(ids) > 200 else ""))
    st.markdown("**Every metric**", help="Each row compares the candidate with the baseline on one metric. "
                + TERMS["interval"] + " " + TERMS["detectable"])
    focus = cands[0] if len(cands) == 1 else st.selectbox("Candidate", cands, key="versions.table_cand")
    st.dataframe(metrics_frame(c, base, focus), hide_index=True, width="stretch", placeholder="", column_config={
        "baseline": st.column_config.NumberColumn(format="%.3f", help=f"{base}: " + TERMS["baseline"]),
        "candidate": st.column_config.NumberColumn(format="%.3f", help=f"{focus}: " + TERMS["candidates"]),
        "difference": st.column_config.NumberColumn("difference (B − A)", format="%+.3f",
                                                    help="Mean over the paired questions of candidate − baseline."),
        "95% interval": st.column_config.TextColumn(help=TERMS["interval"]),
        "p-value": st.column_config.NumberColumn(format="%.4f", help=TERMS["p"]
                                                 + (" " + TERMS["holm"] if c.corrected else "")),
        "candidate is": st.column_config.TextColumn(help="Better or worse only when the 95 % interval excludes 0 "
                                                         "and the p-value is below 0.05."),
        "wins / ties / losses": st.column_config.TextColumn(help=TERMS["wins"]),
    })


def _charts(c: Comparison, base: str, cands: list[str], metric: str, base_summary: RunSummary,
            saved: list[RunSummary]) -> None:
    left, right = st.columns(2)
    left.plotly_chart(compare_charts.means_chart(c.standings[metric], metric, base), key="versions.means")
    focus = cands[0] if len(cands) == 1 else st.session_state.get("versions.table_cand") or cands[0]
    right.plotly_chart(compare_charts.diff_chart([c.pair(base, focus, m) for m in c.metrics], base, focus),
                       key="versions.diffs")
    if len(c.names) >= 3:
        st.markdown("**Every pair of runs**", help=TERMS["holm"])
        st.dataframe(standings_frame(c, metric), hide_index=True, width="stretch", placeholder="",
                     column_config={"mean": st.column_config.NumberColumn(format="%.3f"),
                                    "rank range": st.column_config.TextColumn(help=TERMS["rank"])})
        st.plotly_chart(compare_charts.verdict_matrix(c, metric), key="versions.matrix")
    points = _trend(base_summary, saved, metric)
    if len(points) >= 3:
        st.plotly_chart(compare_charts.trend_chart(points, metric), key="versions.trend")
        st.caption(f"The {len(points)} most recent runs of your history on the baseline's questions, oldest first.")


def _trend(base: RunSummary, saved: list[RunSummary], metric: str) -> list[dict[str, Any]]:
    """The metric over the recent runs of the baseline's test set (runs with about as many cases that
    ask the baseline's questions)."""
    near = [s for s in saved[:TREND_RUNS] if abs(s.num_cases - base.num_cases) <= max(2, base.num_cases // 5)]
    ids = tuple(s.id for s in near)

    def compute() -> list[dict[str, Any]]:
        ref = _table(base)
        tables = [t for s in near if same_test_set(ref, t := _table(s))]
        return trend(tables, metric)
    return state.memo(("versions.trend", base.id, ids, metric), compute)


def _regressions(c: Comparison, base: str, cands: list[str], metric: str, base_id: str,
                 cand_ids: dict[str, str]) -> None:
    st.subheader("Regressions", help=TERMS["regressions"])
    cand = cands[0] if len(cands) == 1 else st.selectbox("Regressions of", cands, key="versions.reg_cand")
    p = c.pair(base, cand, metric)
    if not p.regressions:
        st.caption(f"No question scores lower under {cand} than under {base} on {vocab.nice(metric)}.")
    for k, r in enumerate(p.regressions, 1):
        with st.container(border=True):
            st.markdown(f"**{k}. {md_escape(r.question)}**")
            st.caption(md_escape(f"{base}: {num(r.a)} → {cand}: {num(r.b)} ({num(r.diff, True)} on "
                                 f"{vocab.nice(metric)})"))
            for line in hl.sentence_lines(list(r.sentences)[:4], other="the baseline"):
                st.markdown(f"- {md_escape(line)}")
            st.page_link(INSPECT_PAGE, label="Open both answers side by side", icon="🔎",
                         query_params=side_by_side_params(base_id, cand_ids[cand], r.a_id, r.b_id))
    if p.improvements:
        with st.expander(f"Improvements ({len(p.improvements)}): where {cand} scores higher"):
            for r in p.improvements:
                st.markdown(f"- {md_escape(r.question)} — {num(r.a)} → {num(r.b)} ({num(r.diff, True)})")
                st.page_link(INSPECT_PAGE, label="side by side", icon="🔎",
                             query_params=side_by_side_params(base_id, cand_ids[cand], r.a_id, r.b_id))
