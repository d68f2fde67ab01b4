"""Compare's "Which version is better?" view: a baseline and one or more candidates from the run
history, compared on the questions they share (``evaluators.comparison``). Plain words first (the
verdict, how the cases were paired), then the charts (means and differences with their 95 %
intervals, the pairwise verdicts, the trend over runs of the same test set), then the regressions,
each opening a side-by-side Inspect of the same question under both versions.

Runs come from the visitor's history through ``ui.history`` (``summaries`` / ``load``): the
comparison works on each run's compact table (``table_from_run``), memoised per run. Runs are
labelled by their names (``evaluators.store.labels``); changing the baseline keeps the candidates
that ask its questions, else the last comparable one (or says which runs fit). Every number is
written by the comparison's one formatter (``short_number``, ``short_p_value``), in words, tables and
charts alike; the regressions are listed all, a page at a time (``changes_page``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence

import pandas as pd
import streamlit as st

from evaluators import trust
from evaluators.answers import not_stated
from evaluators.answers.names import ANSWER_CORRECTNESS, ANSWER_PRECISION, ANSWER_RECALL, CORRECTNESS_METRICS
from evaluators.comparison import (
    ChangePage,
    Comparison,
    ComparisonError,
    PairResult,
    RunTable,
    changes_page,
    compare_tables,
    resolution_words,
    same_test_set,
    short_bound,
    short_p_value,
    table_from_run,
    trend,
    verdict_sentence,
)
from evaluators.comparison import short_number as num
from evaluators.retrieval import is_retrieval_metric
from evaluators.store import RunSummary, app_run_of, short_labels
from evaluators.store import labels as run_labels

from .. import highlight as hl
from .. import history, plot, state, vocab
from ..data import md_escape
from . import app_view, cards, compare_charts, conversations_view, tools_view

INSPECT_PAGE = "pages/4_inspect.py"
#: How many recent runs the default pair and the trend look at.
LOOK_AT = 8
TREND_RUNS = 12
#: Regressions shown a page at a time.
PAGE = 10
#: Characters of a repeated question's source (its first document) shown on its card.
SOURCE_CHARS = 80

#: Every term of the view in plain words (help tooltips): the Glossary lists the same words.
TERMS = vocab.COMPARE_TERMS


# ------------------------------------------------------------------------------------ pure helpers
def norm_question(q: Any) -> str:
    """A question as the comparison matches it (case and spacing do not count)."""
    return " ".join(str(q).split()).casefold()


def fitting(base: frozenset[str], others: dict[str, frozenset[str]]) -> list[str]:
    """The runs (of ``others``: id -> its questions, as :func:`norm_question` writes them) that ask at
    least one of the baseline's questions: those a comparison with it can pair, in ``others``' order."""
    return [i for i, qs in others.items() if qs & base]


def keep_candidates(base: str, current: list[str], fit: list[str], recent: list[str]) -> list[str]:
    """The candidates once the baseline became ``base``: those of ``current`` that fit it; else the
    most recent run used (``recent``, newest first: earlier baselines and candidates) that fits; else
    the newest run that fits; else none (the view then says no run fits)."""
    keep = [i for i in current if i in fit and i != base]
    if keep:
        return keep
    pick = next((i for i in recent if i in fit and i != base), None) or next((i for i in fit if i != base), None)
    return [pick] if pick else []


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


def _n(x: float | None, signed: bool = False) -> str:
    return "n/a" if x is None else num(x, signed)


def metrics_frame(c: Comparison, baseline: str, candidate: str) -> pd.DataFrame:
    """One row per metric (but the retrieval metrics, shown apart): both means, the difference with its
    interval, p, the verdict in words — every number written as the verdict sentence writes it (the
    table and the words never disagree)."""
    rows = []
    for m in (m for m in c.metrics if not is_retrieval_metric(m)):  # (retrieval: a grid of its own, app_view)
        p = c.pair(baseline, candidate, m)
        s = p.stats
        ci = ("" if s.ci_low is None or s.ci_high is None  # one line at 1280 px (no-break spaces)
              else f"{short_bound(s.ci_low)}\u00a0to\u00a0{short_bound(s.ci_high)}"
              + (f" ({s.ci_level * 100:.1f}\u00a0%, Holm)" if s.factor != 1 else ""))
        rows.append({"metric": vocab.nice(m), "baseline": _n(s.mean_a), "candidate": _n(s.mean_b),
                     "difference (B − A)": _n(s.diff, True), "95% interval": ci,
                     "p-value": short_p_value(p.p_adjusted),
                     "candidate is": {"better": "better", "worse": "worse",
                                      "same": "no detectable difference"}[verdict_kind(p)],
                     "wins / ties / losses": wins_ties_losses(m, s.wins, s.ties, s.losses), "questions": str(s.n)})
    return pd.DataFrame(rows)


def wins_ties_losses(metric: str, higher: int, same: int, lower: int) -> str:
    """"wins / ties / losses" of the candidate as the "candidate is" column reads them: a win is a question
    it scores higher on, or lower on a metric where lower is better (declined, over-refusal, failed tool
    calls …) — "better" beside "0 / 0 / 8" read as eight losses."""
    d = vocab.declaration(metric)
    if d is not None and d.get("direction") == "lower":
        higher, lower = lower, higher
    return f"{higher} / {same} / {lower}"


def standings_frame(c: Comparison, metric: str) -> pd.DataFrame:
    rows = []
    for s in sorted(c.standings[metric], key=lambda s: (s.rank, s.name)):
        rows.append({"rank": str(s.rank), "run": s.name, "mean": _n(s.mean),
                     "95% interval": "" if s.ci_low is None or s.ci_high is None else f"{num(s.ci_low)} – "
                                                                                     f"{num(s.ci_high)}",
                     "rank range": f"{s.rank_low}" if s.rank_low == s.rank_high else f"{s.rank_low}–{s.rank_high}",
                     "questions": str(s.n_compared)})
    return pd.DataFrame(rows)


def card_caption(r: Any, base: str, cand: str, metric: str, source: str | None = None) -> str:
    """The line under a regression's question: which case (its source where the question repeats),
    then both scores and the difference."""
    who = f"case {r.a_id}" if r.a_id == r.b_id else f"case {r.a_id} → {r.b_id}"
    if source:
        who += f" · source: “{source}”"
    return f"{who} · {base}: {num(r.a)} → {cand}: {num(r.b)} ({num(r.diff, True)} on {vocab.nice(metric)})"


def source_of(case: Any, chars: int = SOURCE_CHARS) -> str:
    """What tells apart cases that ask the same question: the start of the first document."""
    docs = getattr(case, "documents", ()) or ()
    text = " ".join(str(docs[0]).split()) if docs else ""
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


def side_by_side_params(base_id: str, cand_id: str, a_id: str, b_id: str) -> dict[str, str]:
    """Inspect's query parameters for the same question under both versions."""
    return {"run": base_id, "case": a_id, "vs": cand_id, "vs_case": b_id}


# ------------------------------------------------------------------------------------ data access
def _table(s: RunSummary) -> RunTable:
    """A run of the history as a comparison table, read once per session; the sentences of the
    regressions it lists are read from the store when shown."""
    return state.memo(("versions.table", s.id), lambda: table_from_run(history.load(s.id), s.name))


def _questions(s: RunSummary) -> frozenset[str]:
    """The questions a run asks (from its per-case table: no case is opened)."""
    def read() -> frozenset[str]:
        return frozenset(norm_question(q) for q in history.frame(history.load_memo(s))["question"])
    return state.memo(("versions.questions", s.id, s.num_done), read, max_items=64)


def _fitting(base_id: str, saved: list[RunSummary]) -> list[str]:
    by_id = {s.id: s for s in saved}
    if base_id not in by_id:
        return []
    return fitting(_questions(by_id[base_id]), {s.id: _questions(s) for s in saved if s.id != base_id})


def _compare(tables: list[RunTable], metric: str | None) -> Comparison:
    key = ("versions.compare", tuple(t.name for t in tables), tuple(t.fingerprint for t in tables), metric)

    def run() -> Comparison:
        first = compare_tables(tables)
        if metric is None or metric == first.metric:
            return first
        return compare_tables(tables, [metric, *[m for m in first.metrics if m != metric]])
    return state.memo(key, run)


def _page(c: Comparison, key: tuple, base: str, cand: str, metric: str, start: int, improvements: bool = False
          ) -> ChangePage:
    return state.memo(("versions.page", *key, base, cand, metric, start, improvements),
                      lambda: changes_page(c, base, cand, metric, start=start, count=PAGE,
                                           regressions=not improvements))


def _sources(run_id: str, case_ids: list[str]) -> dict[str, str]:
    """Case id -> its source (the start of its first document), read for these cases only."""
    def read() -> dict[str, str]:
        return {r.case.id: source_of(r.case) for r in history.load(run_id).cases(case_ids)}
    return state.memo(("versions.sources", run_id, tuple(case_ids)), read)


# ------------------------------------------------------------------------------------ the view
_BASE, _CANDS, _RECENT = "versions.base", "versions.cands", "versions.recent"


def _on_baseline(saved: list[RunSummary]) -> None:
    """The baseline changed: keep the candidates that ask its questions, else the last comparable one."""
    base = str(st.session_state.get(_BASE) or "")
    fit = _fitting(base, saved)
    st.session_state[_CANDS] = keep_candidates(base, list(st.session_state.get(_CANDS) or []), fit,
                                               list(st.session_state.get(_RECENT) or []))


def render() -> None:
    saved = history.summaries(status=("finished", "cancelled"))
    by_id = {s.id: s for s in saved}
    if len(saved) < 2:
        st.info("Evaluate two versions of your system's answers to the same questions (two files), and this "
                "view says which is better. No files? The Start page loads the sample and its version 2 "
                "in one click each.")
        st.page_link("pages/0_start.py", label="Start: the sample in two versions", icon=":material/home:")
        return
    names = run_labels(saved)
    ids = [s.id for s in saved]
    if st.session_state.get(_BASE) not in by_id:
        pair = default_pair(ids, lambda i: _table(by_id[i]))
        if pair is not None:
            st.session_state[_BASE], st.session_state[_CANDS] = pair[0], [pair[1]]
    c1, c2, c3 = st.columns([2, 3, 2])
    base_id = c1.selectbox("Baseline (A)", ids, key=_BASE, format_func=names.__getitem__, help=TERMS["baseline"],
                           on_change=_on_baseline, args=(saved,))
    if not set(st.session_state.get(_CANDS) or []) <= set(ids):
        st.session_state[_CANDS] = [i for i in st.session_state.get(_CANDS) or [] if i in ids]
    fit = _fitting(base_id, saved)
    cand_ids = c2.multiselect("Candidates (B …)", [i for i in ids if i != base_id], key=_CANDS,
                              format_func=lambda i: names[i] + ("" if i in fit else " (other questions)"),
                              help=TERMS["candidates"], placeholder="pick one or more runs")
    cand_ids = [i for i in cand_ids if i != base_id]
    base = names[base_id]
    if not cand_ids:
        if fit:
            st.info(f"Pick a candidate to compare with {base}. Runs on its questions: "
                    + ", ".join(names[i] for i in fit) + ".")
        else:
            st.info(f"No other run asks {base}'s questions: evaluate another version of the answers to them "
                    "(or pick another baseline).")
        return
    st.session_state[_RECENT] = list(dict.fromkeys([base_id, *cand_ids, *(st.session_state.get(_RECENT) or [])]))[:20]
    run_ids = [base_id, *cand_ids]
    # runs of an app on one question set: called by their targets, the question set said once
    shown, on = short_labels([by_id[i] for i in run_ids], names, {i: _table(by_id[i]).target for i in run_ids})
    base = shown[base_id]
    if on:
        st.caption(md_escape(f"Runs of your app on {on}: " + ", ".join(shown[i] for i in run_ids) + "."))
    with st.spinner("Comparing…"):
        tables = [replace(_table(by_id[i]), name=shown[i]) for i in run_ids]
        try:
            first = _compare(tables, None)
        except ComparisonError as exc:
            others = [names[i] for i in fit]
            st.warning(f"These runs cannot be compared: {exc}. "
                       + (f"Runs on {base}'s questions: {', '.join(others)}." if others else
                          f"No other run asks {base}'s questions."))
            return
    if st.session_state.get("versions.metric") not in first.metrics:
        st.session_state["versions.metric"] = first.metric
    metric = c3.selectbox("Metric", first.metrics, key="versions.metric", format_func=vocab.nice,
                          help=TERMS["metric"] + "\n\n" + (vocab.help_text(
                              str(st.session_state.get("versions.metric") or first.metric)) or ""))
    c = _compare(tables, metric)
    cands = [shown[i] for i in cand_ids]
    key = (tuple(t.name for t in tables), tuple(t.fingerprint for t in tables))
    _words(c, base, cands, metric, [by_id[i].method for i in run_ids])
    app_view.retrieval(c, base, cands)  # the retrieval metrics: one grid, after every other metric
    _charts(c, base, cands, metric, by_id[base_id], saved)
    _regressions(c, key, base, cands, metric, base_id, dict(zip(cands, cand_ids)))


def _words(c: Comparison, base: str, cands: list[str], metric: str, methods: list[str]) -> None:
    for cand in cands:
        p = c.pair(base, cand, metric)
        box = {"better": st.success, "worse": st.error, "same": st.info}[verdict_kind(p)]
        box(md_escape(pair_words(c, p)), icon={"better": ":material/check_circle:", "worse": ":material/warning:",
                                                  "same": ":material/equal:"}[verdict_kind(p)])
        s = p.stats
        st.caption(md_escape(f"{s.wins} question{'s' if s.wins != 1 else ''} score{'' if s.wins != 1 else 's'} higher "
                              f"under {cand}, {s.losses} lower, {s.ties} the same ({resolution_words(metric)})."),
                   help=TERMS["wins"])
    app_view.app_lines(c, base, cands)  # the app's own latency, tokens, errors: beside the verdict
    tools_view.lines(c, base, cands)  # an agent's: the tools the candidate stopped / started calling
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
        alone = vocab.count(sum(map(len, lone.values())), "case")
        with st.expander(f"{alone} without a partner (left out of every figure)"):
            for name, ids in lone.items():
                st.markdown(f"**{md_escape(name)}** ({len(ids)}): " + ", ".join(md_escape(i) for i in ids[:200])
                            + (" …" if len(ids) > 200 else ""))
    st.markdown("**Every metric**", help="Each row compares the candidate with the baseline on one metric. "
                + TERMS["interval"] + " " + TERMS["detectable"] + "\n\n" + TERMS["p"]
                + (" " + TERMS["holm"] if c.corrected else "") + "\n\n" + TERMS["wins"])
    focus = cands[0] if len(cands) == 1 else st.selectbox("Candidate", cands, key="versions.table_cand")
    # an HTML table (its cells wrap, never cut: "no detectable difference"), one card per metric on a phone
    cards.table(metrics_frame(c, base, focus), key="versions_metrics")
    st.caption(f"baseline = {md_escape(base)}, candidate = {md_escape(focus)} · candidate is better or worse when "
               "the 95 % interval excludes 0 — exactly when the p-value is at most 0.05: one test gives both.")
    for words in dict.fromkeys(w for m in methods if (w := trust.caveat(m))):
        st.caption(f":material/info: {words}")  # beside the absolute means of an offline method


def _charts(c: Comparison, base: str, cands: list[str], metric: str, base_summary: RunSummary,
            saved: list[RunSummary]) -> None:
    left, right = st.columns(2)
    plot.show(compare_charts.means_chart(c.standings[metric], metric, base), "versions.means", left)
    focus = cands[0] if len(cands) == 1 else st.session_state.get("versions.table_cand") or cands[0]
    quality = [m for m in c.metrics if not is_retrieval_metric(m)]  # (retrieval: its grid, app_view)
    plot.show(compare_charts.diff_chart([c.pair(base, focus, m) for m in quality], base, focus),
              "versions.diffs", right)
    if len(c.names) >= 3:
        st.markdown("**Every pair of runs**", help=TERMS["holm"])
        st.table(standings_frame(c, metric), hide_index=True)
        st.caption(TERMS["rank"])
        plot.show(compare_charts.verdict_matrix(c, metric), "versions.matrix")
    points = _trend(base_summary, saved, metric)
    if len(points) >= 3:
        plot.show(compare_charts.trend_chart(points, metric), "versions.trend")
        st.caption(f"The {len(points)} most recent runs of your history on the baseline's questions, oldest first.")


def same_origin(base: RunSummary, s: RunSummary) -> bool:
    """Whether ``s`` is a run of the baseline's test set as the trend means it: for a run of an app's
    answers, a run of an app on the same question set (not a file of answers that asks the same
    questions, such as the static sample); for a run of a file, a run of a file."""
    a, b = app_run_of(base), app_run_of(s)
    return (a is None) == (b is None) and (a is None or b is None or a[1] == b[1])


def _trend(base: RunSummary, saved: list[RunSummary], metric: str) -> list[dict[str, Any]]:
    """The metric over the recent runs of the baseline's test set (:func:`same_origin`, with about as
    many cases, that ask the baseline's questions)."""
    near = [s for s in saved[:TREND_RUNS] if abs(s.num_cases - base.num_cases) <= max(2, base.num_cases // 5)
            and same_origin(base, s)]
    ids = tuple(s.id for s in near)

    def compute() -> list[dict[str, Any]]:
        ref = _table(base)
        tables = [t for s in near if same_test_set(ref, t := _table(s))]
        return trend(tables, metric)
    return state.memo(("versions.trend", base.id, ids, metric), compute)


def _pager(total: int, key: str) -> int:
    """The first row of the page shown (a page picker when there is more than one page)."""
    pages = max(1, -(-total // PAGE))
    if pages == 1:
        st.session_state.pop(key, None)
        return 0
    if not 1 <= int(st.session_state.get(key) or 1) <= pages:
        st.session_state[key] = 1
    page = int(st.number_input(f"Page (of {pages})", min_value=1, max_value=pages, step=1, key=key,
                               help=f"{PAGE} questions a page, worst first."))
    return (page - 1) * PAGE


def _regressions(c: Comparison, key: tuple, base: str, cands: list[str], metric: str, base_id: str,
                 cand_ids: dict[str, str]) -> None:
    st.subheader("Regressions", help=TERMS["regressions"])
    cand = cands[0] if len(cands) == 1 else st.selectbox("Regressions of", cands, key="versions.reg_cand")
    total = _page(c, key, base, cand, metric, 0).total
    worse, better, on = _directions(metric)
    if not total:
        st.caption(f"No question scores {worse} under {cand} than under {base} on {on}.")
    else:
        start = _pager(total, "versions.reg_page")
        page = _page(c, key, base, cand, metric, start)
        st.caption(md_escape(f"The one question that scores {worse} under {cand} than under {base} on {on}."
                             if total == 1 else
                             f"{page.start + 1}–{page.end} of the {total} questions that score {worse} under {cand}"
                             f" than under {base} on {on}, worst first."))
        repeated = [r.a_id for r, rep in zip(page.changes, page.repeated) if rep]
        sources = _sources(base_id, repeated) if repeated else {}
        for k, (r, rep) in enumerate(zip(page.changes, page.repeated), page.start + 1):
            with st.container(border=True):
                st.markdown(f"**{k}. {md_escape(r.question)}**")
                st.caption(md_escape(card_caption(r, base, cand, metric, sources.get(r.a_id) if rep else None)))
                lines = (answer_lines(cand_ids[cand], r.b_id, metric) if metric in CORRECTNESS_METRICS else None)
                for line in lines or hl.sentence_lines(list(r.sentences)[:4], other="the baseline"):
                    st.markdown(f"- {md_escape(line)}")
                st.page_link(INSPECT_PAGE, label="Open both answers side by side", icon=":material/manage_search:",
                             query_params=side_by_side_params(base_id, cand_ids[cand], r.a_id, r.b_id))
    conversations_view.render(c.pair(base, cand, metric).conversations, base, cand, metric,  # turns of chats
                              lambda a, b: side_by_side_params(base_id, cand_ids[cand], a, b), INSPECT_PAGE)
    if metric != ANSWER_CORRECTNESS and ANSWER_CORRECTNESS in c.metrics:  # against the reference answers too
        _answer_regressions(c, key, base, cand, base_id, cand_ids[cand])
    ups = _page(c, key, base, cand, metric, 0, improvements=True)
    if ups.total:
        more = f" (the {len(ups.changes)} largest)" if ups.total > len(ups.changes) else ""
        with st.expander(md_escape(f"Improvements ({ups.total}): where {cand} scores {better}{more}")):
            for r in ups.changes:
                st.markdown(f"- {md_escape(r.question)} — {md_escape(card_caption(r, base, cand, metric))}")
                st.page_link(INSPECT_PAGE, label="side by side", icon=":material/manage_search:",
                             query_params=side_by_side_params(base_id, cand_ids[cand], r.a_id, r.b_id))


def answer_lines(run_id: str, case_id: str, metric: str, most: int = 4) -> list[str]:
    """A regression on an answer metric in words: the reference facts the candidate's answer misses
    (answer correctness, answer recall) or its claims the reference answer does not back (answer
    precision) — not the sentences its documents do not support, which say nothing of the reference."""
    try:
        r = history.case(history.load(run_id), case_id)
    except KeyError:
        return []
    if r is None:
        return []
    recall, precision = r.metrics.get(ANSWER_RECALL), r.metrics.get(ANSWER_PRECISION)
    missed = [f"misses the reference fact “{t}”" for t in not_stated(recall.details)] if recall is not None else []
    unbacked = ([f"“{t}”: the reference answer does not say this" for t in not_stated(precision.details, "claims")]
                if precision is not None else [])
    skipped = next((m.skipped for m in (recall, precision) if m is not None and m.skipped), None)
    if metric == ANSWER_PRECISION:
        return unbacked[:most]
    if skipped and not missed:
        return [f"not compared with the reference answer: {skipped}"]
    # answer correctness is the F1 of both halves: a loss with every fact still said is an unbacked claim
    return (missed + (unbacked if metric == ANSWER_CORRECTNESS else []))[:most]


def _directions(metric: str) -> tuple[str, str, str]:
    """(worse, better, the metric's name) for the regression list's words: on a metric where lower is better
    (declined, over-refusal …) a regression scores higher — "the 8 questions that score lower under v1 on
    Declined" listed eight that went from 0 to 1."""
    d = vocab.declaration(metric)
    if d is not None and d.get("direction") == "lower":
        return "higher", "lower", f"{vocab.nice(metric)} (lower is better)"
    return "lower", "higher", vocab.nice(metric)


def _answer_regressions(c: Comparison, key: tuple, base: str, cand: str, base_id: str, cand_id: str) -> None:
    """The questions whose answer says less of the reference answer under the candidate (answer
    correctness), worst first: the first page, each with both answers side by side."""
    page = _page(c, key, base, cand, ANSWER_CORRECTNESS, 0)
    label = (f"Regressions on answer correctness ({page.total}): where {cand}'s answer says less of the reference "
             "answer" if page.total else f"Answer correctness: no question scores lower under {cand}")
    with st.expander(md_escape(label), expanded=bool(page.total) and page.total <= PAGE):
        for r in page.changes:
            st.markdown(f"- {md_escape(r.question)} — {md_escape(card_caption(r, base, cand, ANSWER_CORRECTNESS))}")
            st.page_link(INSPECT_PAGE, label="side by side (which reference fact is missing)",
                         icon=":material/manage_search:", query_params=side_by_side_params(base_id, cand_id, r.a_id,
                                                                                          r.b_id))
        if page.total > len(page.changes):
            st.caption(f"The {len(page.changes)} worst of {page.total}: pick the metric answer correctness above for "
                       "every one, a page at a time.")


def take_request() -> bool:
    """Open on the runs another page asked for (``state.ask_comparison``: "Run your app" on its
    versions); True when there was such a request."""
    ask = state.take_comparison()
    if ask is None:
        return False
    st.session_state["versions.base"], st.session_state["versions.cands"] = ask[0], list(ask[1])
    return True
