"""Results: metric cards, charts, a filterable per-case table and downloads (a run going on shows
the cases finished so far)."""

from typing import Any, Callable

import pandas as pd
import streamlit as st

from evaluators.retrieval import is_retrieval_metric
from evaluators.store import RunSummary
from evaluators.types import TRACE_METRICS
from ui import charts, history, layout, share, state, tables, vocab
from ui.results import open_results, results_view, traces_view

st.title("Results")
if notice := state.pop_notice():
    st.success(notice)

choices = history.choices()
open_results.area(expanded=not choices)
if not choices:
    st.info("No finished run yet.")
    st.page_link("pages/2_evaluate.py", label="Run an evaluation", icon="⚙️")
    layout.stop()
labels = list(choices)
live = next((lbl for lbl, c in choices.items() if isinstance(c, RunSummary) and c.status == "running"), None)
cur = state.current_run_label() or live or labels[0]
if st.session_state.get("results.run") not in labels:  # e.g. a running run that just finished
    st.session_state["results.run"] = cur
picked = st.selectbox("Run", labels, key="results.run")
choice = choices[picked]
if isinstance(choice, RunSummary):
    run = history.load_memo(choice)
    if choice.status in ("running", "interrupted"):
        st.info(f"{history.live_tag(choice).capitalize()}: {choice.num_done} of {choice.num_cases} cases "
                "finished so far" + (" — this page shows the final run when it ends." if
                                      choice.status == "running" else "."))
        st.button("Refresh", key="results.refresh")
    elif choice.error:
        st.caption(f"This run stopped early: {choice.error}.")
    if not choice.num_done:
        layout.stop()
else:
    state.set_current_run(picked)
    run = choice
run_id = history.store_id(picked, choice)
share.button(run_id)

key = ("results", picked, run_id or id(run), len(run) if run_id else 0)
df = history.frame(run)  # the per-case table (shared by every session; never the whole run)
metrics = tables.metric_columns(df)
stats = tables.summary(df, metrics)
n_scored = int(stats.loc[stats["metric"] == "adherence", "n"].iloc[0]) if "adherence" in metrics else 0
st.caption(f"Method **{run.method}** · {n_scored} of {len(df)} cases scored"
           + (" · **cancelled early** (partial run)" if run.cancelled else "")
           + tables.usage_text(run.usage.calls, run.usage.cost_usd, run.usage.retries, run.settings)
           + " · hover a metric for what it means (all of them: Glossary)")

card_ci = state.memo(key + ('ci',), lambda: results_view.intervals(run)) or {}
retrieval, mrr = results_view.retrieval_table(stats, card_ci)  # hit@K … ndcg@K: one table, not 21 cards
stats = stats[~stats["metric"].map(is_retrieval_metric)].reset_index(drop=True)
cards = st.columns(min(5, max(1, len(stats))))
for i, row in stats.iterrows():
    with cards[i % len(cards)]:
        mean = "n/a" if pd.isna(row["mean"]) else f"{row['mean']:.3f}"
        st.metric(vocab.nice(row["metric"]), mean, help=results_view.card_help(row["metric"], row))
        if (line := results_view.card_interval(card_ci.get(row["metric"]), row)):
            st.caption(line)

if not retrieval.empty:
    st.markdown("**Retrieval** — against the passages each case should have retrieved (mean [95 % interval])",
                help="\n\n".join(f"**{m}**: {vocab.help_text(m)}" for m in ("hit@K", "precision@K", "recall@K",
                                                                            "map@K", "ndcg@K", "mrr")))
    st.dataframe(retrieval, width="stretch")
    st.caption(mrr + " · per case: the Cases tab; how passages are matched (by id or by text): the Glossary")

errors = results_view.errors_of(df)
if len(errors):
    with st.expander(f"⚠️ {len(errors)} case(s) could not be scored"):
        st.dataframe(errors.head(1000), hide_index=True, width="stretch")
        if len(errors) > 1000:
            st.caption(f"The first 1,000 of {len(errors):,} (all of them: the CSV download, column error).")

names = ["Charts", "Cases", *(["Agreement (trace vs LLM)"] if history.has_two_labelings(run) else []),
         "Download"]
tabs = dict(zip(names, st.tabs(names, key="results.tab", on_change="rerun")))


def fig(kind: str, build: Callable[[], Any], *more: Any) -> Any:
    """The figures of this run, built once per session (plotly validates every property it is given)."""
    return state.memo(("results.fig", *key[1:], kind, *more), build, max_items=6)


# Only the open tab's content is built (the tabs rerun the page when switched): a visitor on the
# charts does not pay for the case table, nor the reverse.
with tabs["Charts"]:
    if tabs["Charts"].open:
        plotted = stats.dropna(subset=["mean"])
        if plotted.empty:
            st.info("Nothing scored, nothing to plot.")
        else:
            a, b = st.columns(2)
            a.markdown("**Mean of each metric**", help="\n\n".join(
                f"**{vocab.nice(m)}**: {vocab.short_help(m)}" for m in plotted["metric"]))
            a.plotly_chart(fig("bars", lambda: charts.metric_bars(plotted, card_ci or None)), key="results.bars")
            b.markdown("**The four TRACE metrics at a glance**", help="\n\n".join(
                f"**{vocab.nice(m)}**: {vocab.short_help(m)}" for m in TRACE_METRICS))
            b.plotly_chart(fig("radar", lambda: charts.radar({picked: results_view.means_of(run, stats)})),
                           key="results.radar")
            a.markdown("**Spread over the cases**", help="Each box: the middle half of the cases; the line "
                       "is the median; dots are outlying cases.")
            a.plotly_chart(fig("box", lambda: charts.distributions(df, list(plotted["metric"]))), key="results.box")
            hist_metric = b.selectbox("Histogram of", list(plotted["metric"]), key="results.hist",
                                      format_func=vocab.nice,
                                      help=vocab.help_text(str(st.session_state.get("results.hist")
                                                                  or plotted["metric"].iloc[0])))
            b.plotly_chart(fig("hist", lambda: charts.histogram(df, hist_metric), hist_metric),
                           key="results.histogram")

with tabs["Cases"]:
    if tabs["Cases"].open:
        traces_view.cases_note(run)
        results_view.cases_tab(df, metrics, run_id, run)

if "Agreement (trace vs LLM)" in tabs:
    with tabs["Agreement (trace vs LLM)"]:
        if tabs["Agreement (trace vs LLM)"].open:
            results_view.agreement_tab(run, run_id, key)

with tabs["Download"]:  # built on click (a callable), not on every render; a download does not rerun the page
    if tabs["Download"].open:
        results_view.downloads(run, df)
        traces_view.send_back(run, "results.traces")  # runs of trace files: the scores back to the spans
