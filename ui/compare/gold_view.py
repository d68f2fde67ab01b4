"""Compare's section on gold labels: every method scored against the reviewed cases (and human
sentence labels of uploads), prediction-powered estimates over whole runs, the export of reviewed
labels, and "Calibrate to my labels" (cross-validated before / after; applied to a copy of the run
only when the user clicks)."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import pandas as pd
import streamlit as st

from evaluators.review import calibrate as cal
from evaluators.review import collect, gold_table, ppi
from evaluators.review.gold import from_reviews
from evaluators.types import RunResult

from .. import history, reviews, state, vocab

#: Bootstrap resamples for interactive intervals (the CLI/bench use the library default).
N_BOOT = 400
#: Statistic of the gold table -> its column in the summary (in this order).
SHORT = {"AUROC: hallucinated": "AUROC hallucinated", "kappa: sentence supported": "κ supported",
         "kappa: relevant": "κ relevant", "kappa: utilized": "κ utilized", "RMSE: adherence": "RMSE adherence",
         "RMSE: context_relevance": "RMSE relevance", "RMSE: context_utilization": "RMSE utilization",
         "RMSE: completeness": "RMSE completeness"}
PLAIN = {"reviewed_hallucinated": "share of hallucinated responses", "reviewed_adherence": "adherence",
         "reviewed_relevance": "context relevance", "reviewed_utilization": "context utilization",
         "reviewed_completeness": "completeness"}


_STAT_HELP = "\n\n".join(vocab.term_help(t) for t in ("AUROC", "Cohen's kappa (κ)", "RMSE", "95 % interval"))


def summary_columns() -> dict[str, Any]:
    """A tooltip on every figure column of :func:`summary` (AUROC, κ, RMSE: Glossary terms)."""
    term = {"AUROC": "AUROC", "κ": "Cohen's kappa (κ)", "RMSE": "RMSE"}
    out: dict[str, Any] = {"gold cases": st.column_config.NumberColumn(help=vocab.term_help("gold"))}
    for short in SHORT.values():
        out[short] = st.column_config.TextColumn(short, help=vocab.term_help(term[short.split()[0]])
                                                 + "\n\n[low, high] = " + vocab.TERMS["95 % interval"])
    return out


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per run and labeling, one column per figure: "value [low, high]" ("—" when undefined)."""
    def cell(row: Any) -> str:
        v = row["value"]
        if v is None or pd.isna(v):
            return "—"
        lo, hi = row["ci_low"], row["ci_high"]
        return f"{v:.2f}" + ("" if lo is None or pd.isna(lo) else f" [{lo:.2f}, {hi:.2f}]")

    rows = []
    for (run, labeling), g in table.groupby(["run", "labeling"], sort=False):
        out = {"run": run, "labeling": labeling, "gold cases": int(g["n"].max())}
        by = {r["statistic"]: cell(r) for _, r in g.iterrows()}
        out.update({short: by.get(stat, "—") for stat, short in SHORT.items()})
        rows.append(out)
    return pd.DataFrame(rows)


def _ids(sources: Mapping[str, Any], names: list[str]) -> dict[str, str]:
    saved = state.saved_ids()
    return {n: s for n in names if (s := sources[n] if isinstance(sources[n], str) else saved.get(n))}


def render(sources: Mapping[str, Any], load: Callable[[str], RunResult]) -> None:
    st.divider()
    st.subheader("Agreement with your reviewed labels (gold)")
    st.caption("A case you mark reviewed on Inspect (review mode) is **gold**: the method's labels with your "
               "corrections. Every method is scored against the gold cases it has (matched by their texts); "
               "human sentence labels of an uploaded file count as gold too. 95 % bootstrap intervals.")
    reviewed = reviews.store().gold(owner=history.reader())
    names = st.multiselect("Runs to score", list(sources), default=list(sources)[:3], key="gold.runs")
    stored = {n: load(n) for n in names}
    runs = {n: w for n, r in stored.items() if (w := history.whole(r)) is not None}
    for n in stored:
        if n not in runs:
            st.info(history.too_big(stored[n], f"Scoring “{n}” against the gold"))
    names = list(runs)
    gold = collect(reviewed, list(runs.values()))
    c1, c2 = st.columns(2)
    c1.metric("Reviewed cases (gold)", len(from_reviews(reviewed)))
    c2.metric("Gold from uploaded labels", len(gold) - len(from_reviews(reviewed)))
    # a line of its own: with its icon the label does not fit a third of the page at 1280 px
    reviews.export_button("gold.export", gold=reviewed)
    if not gold:
        st.info("No gold yet: open a case in Inspect, turn on ✎ Review mode, correct what is wrong and mark "
                "it reviewed (the queue there orders the cases worth reviewing first).")
        return
    version = tuple(sorted((fp, c.updated_at) for fp, c in reviewed.items()))
    key = ("gold", tuple(names), tuple(len(r.results) for r in runs.values()), version, len(gold))
    table = state.memo(key, lambda: gold_table(runs, gold, run_ids=_ids(sources, names), n_boot=N_BOOT))
    if table.empty:
        st.info("None of these runs has a gold case (gold matches cases by question, response and documents).")
        return
    st.dataframe(summary(table), hide_index=True, width="stretch", column_config=summary_columns())
    st.caption("AUROC: how well 1 − expected adherence ranks the gold-hallucinated cases first (0.5 = chance). "
               "κ: Cohen's kappa of the sentence verdicts (1 = same as yours, 0 = chance). RMSE: distance of each "
               "TRACE metric from the gold's (0 = equal). [95 % interval] over gold cases; — = undefined (see "
               "the notes).")
    with st.expander("Every figure with its notes"):
        st.dataframe(table, hide_index=True, width="stretch", column_config={
            "statistic": st.column_config.TextColumn(width="medium", help=_STAT_HELP),
            "value": st.column_config.NumberColumn(format="%.3f"),
            "ci_low": st.column_config.NumberColumn("95 % low", format="%.3f",
                                                    help=vocab.term_help("95 % interval")),
            "ci_high": st.column_config.NumberColumn("95 % high", format="%.3f"),
            "n": st.column_config.NumberColumn("n (gold cases)")})
    target = st.selectbox("Estimate over the whole run", names, key="gold.ppi_run",
                          help=vocab.term_help("prediction-powered estimate"))
    if target:
        est = state.memo(key + ("ppi", target), lambda: ppi(runs[target], gold))
        if est:
            st.dataframe(pd.DataFrame([{"what": PLAIN.get(e["label"], e["label"]), "estimate": e["estimate"],
                                        "low": e["low"], "high": e["high"], "gold cases": e["n_labeled"],
                                        "all cases": e["n_total"],
                                        "gold only": e["labels_only"].get("mean"), "note": e["note"]}
                                       for e in est]), hide_index=True, width="stretch")
        else:
            st.caption("This run has no gold case.")
    with st.expander("Calibrate the offline method to my labels"):
        calibration(runs, gold, key)


def calibration(runs: Mapping[str, RunResult], gold: Any, key: tuple) -> None:
    offline = [n for n, r in runs.items() if any(cal.trace_labels(x) is not None for x in r.results)]
    st.caption(f"Fits how the offline method's sentence probability maps to your verdicts (Platt scaling) once "
               f"there are {cal.MIN_CASES} gold cases with at least {cal.MIN_PER_CLASS} sentences of each verdict; "
               "shows the agreement before and after, each sentence predicted by a fit that never saw its case. "
               "Nothing changes until you apply it, and then only a copy of the run.")
    if not offline:
        st.info("None of the runs scored above has labels of the offline method (trace).")
        return
    name = st.selectbox("Run", offline, key="gold.cal_run")
    run = runs[name]
    d = cal.data(run, gold)
    why = cal.readiness(d)
    if why:
        st.info(why)
        return
    rows = state.memo(key + ("cv", name), lambda: cal.cross_validate(d, n_boot=N_BOOT))
    st.dataframe(pd.DataFrame(rows).rename(columns={"change_low": "change: 95 % low", "change_high": "high"}),
                 hide_index=True, width="stretch", column_config={
                     c: st.column_config.NumberColumn(format="%.3f")
                     for c in ("before", "after", "change", "change: 95 % low", "high")})
    helps, text = cal.verdict(rows)
    (st.success if helps else st.info)(text)
    try:
        c = cal.fit(d)
    except ValueError as exc:
        st.warning(str(exc))
        return
    st.caption(f"On all {c.n_sentences} gold sentences of {c.n_cases} cases: a sentence counts as fully "
               f"supported from P(supported) {c.threshold:.2f} instead of {c.old_threshold:.2f}.")
    if st.button(f"Apply to a copy of “{name}”", key="gold.apply"):
        new = cal.apply(run, c)
        label = f"{name} · calibrated to {c.n_cases} reviews"
        state.add_run(label, new)  # saved to the visitor's history
        st.success(f"Saved “{label}” to your history (the original run is unchanged); it is the current run "
                   "on Results and Inspect.")
