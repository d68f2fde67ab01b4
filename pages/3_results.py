"""Results: the run in one sentence, metric cards (with what an offline method's figures are good for),
the per-case table first, then charts and downloads (a run going on shows the cases finished so
far)."""

from typing import Any, Callable

import streamlit as st

from evaluators import trust
from evaluators.headline import headline, intervals_of
from evaluators.retrieval import is_retrieval_metric
from evaluators.store import RunSummary
from evaluators.types import TRACE_METRICS
from ui import charts, history, layout, plot, share, state, tables, vocab
from ui.results import conversations_view, open_results, results_view, tools_view, traces_view, which_run

st.title("Results")
if notice := state.pop_notice():
    st.success(notice)

choices = history.choices()
open_results.area(expanded=not choices)
if not choices:
    st.info("No finished run yet.")
    st.page_link("pages/2_evaluate.py", label="Run an evaluation", icon=":material/play_circle:")
    layout.stop()
labels = list(choices)
which_run.select(choices)  # the run just started (then its results), or the run another page opened
picked = st.selectbox("Run", labels, key=which_run.KEY)
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
    which_run.shown(picked, choice)
    if not choice.num_done:
        layout.stop()
else:
    which_run.shown(picked, choice)
    run = choice
run_id = history.store_id(picked, choice)
with st.container(horizontal=True):
    share.button(run_id)
    results_view.rename_button(run_id, run)

key = ("results", picked, run_id or id(run), len(run) if run_id else 0)
df = history.frame(run)  # the per-case table (shared by every session; never the whole run)
card_ci = state.memo(key + ('ci',), lambda: intervals_of(run)) or {}
figures = headline(df, run.method, card_ci)  # the same figures a shared link's first paint shows (ui/serving/share_paint.py)
metrics = list(figures.stats["metric"])
st.caption(vocab.run_line(run.method, figures.num_scored, figures.num_cases, run.cancelled,
                         tables.usage_text(run.usage.calls, run.usage.cost_usd, run.usage.retries, run.settings)))

if (said := vocab.support_words(figures.support, run.method)):
    st.markdown(f"**{said}**")
if (right := vocab.correctness_words(figures.correctness)):  # answers against their reference answers
    st.markdown(right, help=vocab.help_text("answer_recall"))
retrieval, mrr = results_view.retrieval_table(figures.stats, card_ci)  # hit@K … ndcg@K: one table, not 21 cards
stats = figures.stats[~figures.stats["metric"].map(is_retrieval_metric)].reset_index(drop=True)
# the cards flow in one wrapping row: on a phone they stack two by two, in the same order
cards = st.container(horizontal=True, gap="medium")
for card in figures.cards:
    with cards.container(width=results_view.CARD_PX, gap=None):
        st.metric(vocab.nice(card.metric), vocab.card_value(card), help=vocab.card_help(card))
        if (line := vocab.card_interval(card)):
            st.caption(line)
if (words := trust.caveat(run.method)):
    st.caption(f":material/info: {words}")

id_note = results_view.matching_note(run.settings)  # the app's passage ids matched no reference id
off_map = None
if not retrieval.empty:
    st.markdown("**Retrieval** — against the passages each case should have retrieved (mean [95 % interval])",
                help="\n\n".join(f"**{m}**: {vocab.help_text(m)}" for m in ("hit@K", "precision@K", "recall@K",
                                                                            "map@K", "ndcg@K", "mrr")))
    # every figure 0: said in words, with the likely cause — the run's own when its app's ids matched nothing
    if (off_map := vocab.reach_words(figures.reach, id_note)):
        st.warning(off_map, icon=":material/travel_explore:")
    st.dataframe(retrieval, width="stretch")
    st.caption(mrr + " · per case: the Cases tab; how passages are matched (by id or by text): the Glossary")
tools_view.render(figures.stats, card_ci, run)  # an agent's run: its tool-call metrics in one table, goal accuracy
if id_note and not off_map:  # said once: beside the zeros when there are zeros to explain
    st.warning(f"Retrieval: {id_note}", icon=":material/link_off:")

if (app := state.memo(key + ("app",), lambda: results_view.app_words(run))):  # runs of "Run your app"
    st.markdown(f"**The app itself** — {app}", help=results_view.APP_HELP)
errors = results_view.errors_of(df)
if len(errors):
    with st.expander(f"{vocab.count(len(errors), 'case')} could not be scored", icon=":material/warning:"):
        st.dataframe(errors.head(1000), hide_index=True, width="stretch")
        if len(errors) > 1000:
            st.caption(f"The first 1,000 of {len(errors):,} (all of them: the CSV download, column error).")

# the cases first: a newcomer's question is "which answers are wrong?" (the charts summarise them)
names = ["Cases", "Charts", *(["Conversations"] if conversations_view.has_conversations(df) else []),
         *(["Agreement (trace vs LLM)"] if history.has_two_labelings(run) else []), "Download"]
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
            plot.show(fig("bars", lambda: charts.metric_bars(plotted, card_ci or None)), "results.bars", a,
                      help="\n\n".join(f"**{vocab.nice(m)}**: {vocab.short_help(m)}" for m in plotted["metric"]))
            plot.show(fig("radar", lambda: charts.radar({picked: results_view.means_of(run, stats)})), "results.radar",
                      b, help="\n\n".join(f"**{vocab.nice(m)}**: {vocab.short_help(m)}" for m in TRACE_METRICS))
            plot.show(fig("box", lambda: charts.distributions(df, list(plotted["metric"]))), "results.box", a,
                      help="Each box: the middle half of the cases; the line is the median; dots are outlying "
                           "cases.")
            hist_metric = b.selectbox("Histogram of", list(plotted["metric"]), key="results.hist",
                                      format_func=vocab.nice,
                                      help=vocab.help_text(str(st.session_state.get("results.hist")
                                                                  or plotted["metric"].iloc[0])))
            plot.show(fig("hist", lambda: charts.histogram(df, hist_metric), hist_metric), "results.histogram", b)

with tabs["Cases"]:
    if tabs["Cases"].open:
        traces_view.cases_note(run)
        results_view.cases_tab(df, metrics, run_id, run)

if "Conversations" in tabs:  # turns of chats: by turn, and the conversations worst first
    with tabs["Conversations"]:
        if tabs["Conversations"].open:
            conversations_view.tab(df, run_id)

if "Agreement (trace vs LLM)" in tabs:
    with tabs["Agreement (trace vs LLM)"]:
        if tabs["Agreement (trace vs LLM)"].open:
            results_view.agreement_tab(run, run_id, key)

with tabs["Download"]:  # built on click (a callable), not on every render; a download does not rerun the page
    if tabs["Download"].open:
        results_view.downloads(run, df)
        traces_view.send_back(run, "results.traces")  # runs of trace files: the scores back to the spans
