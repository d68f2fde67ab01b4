"""Compare: which version is better, two runs case by case, the run history, and agreement with
human labels."""

import streamlit as st

from evaluators import trust
from ui import charts, history, layout, plot, share, state, tables, vocab
from ui.compare import compare_view as cv
from ui.compare import versions

st.title("Compare")
saved = history.summaries(status=("finished", "cancelled"))  # this visitor's (or the shared) history
sources = cv.run_sources(history.get_runs(), state.saved_ids(), saved)
if not sources:
    st.info("No runs yet: evaluate two versions of your system's answers to the same questions (or the same "
            "cases with two methods) to compare them.")
    st.page_link("pages/2_evaluate.py", label="Evaluate", icon=":material/play_circle:")
    layout.stop()


def load(name: str):
    """A run by display name (read from the history as needed: never held whole here)."""
    src = sources[name]
    return src if not isinstance(src, str) else history.load(src)


def frame(name: str):
    """The run's per-case table (shared by every session, see ui.history.frame)."""
    return history.frame(load(name))


def which_version() -> None:
    """Which version is better: a baseline against candidates, in words, charts and regressions."""
    versions.render()


def two_runs() -> None:
    """Two runs of the same cases, case by case: a scatter, correlations, the largest disagreements."""
    names = list(sources)
    if len(names) < 2:
        st.info("Only one run so far: evaluate another version of the answers, or another method on the same "
                "cases, to compare them.")
    else:
        st.caption("Pick two runs of the same cases (the same ids): two methods, or two versions of your system "
                   "— by default the newest pair of different methods. Each dot is a case: on the dotted "
                   "diagonal both runs give it the same score.")
        if st.session_state.get("compare.a") not in names or st.session_state.get("compare.b") not in names:
            a0, b0 = cv.default_pair(names, lambda n: frozenset(frame(n)["id"].astype(str)),
                                     lambda n: load(n).method)
            st.session_state["compare.a"], st.session_state["compare.b"] = a0, b0
        c1, c2, c3 = st.columns(3)
        a_name = c1.selectbox("Run A (across)", names, key="compare.a")
        b_name = c2.selectbox("Run B (up)", names, key="compare.b")
        run_a, run_b = load(a_name), load(b_name)
        b_metrics = set(tables.metric_columns(frame(b_name)))
        common = [m for m in tables.metric_columns(frame(a_name)) if m in b_metrics]
        if not common:
            st.warning("These runs share no metric.")
        else:
            if st.session_state.get("compare.metric") not in common:
                st.session_state["compare.metric"] = "adherence" if "adherence" in common else common[0]
            metric = c3.selectbox("Metric", common, key="compare.metric", format_func=vocab.nice,
                                  help=vocab.help_text(str(st.session_state.get("compare.metric") or common[0])))
            key = ("compare", a_name, len(run_a), b_name, len(run_b), metric)
            paired = state.memo(key + ("paired",), lambda: tables.paired_frame(frame(a_name), frame(b_name), metric),
                                max_items=8)
            if paired.empty:
                st.warning("No case is scored in both runs: compare runs of the same cases.")
            else:
                with st.spinner("Computing how well they agree…"):
                    corr, how = state.memo(key + ("corr",), lambda: cv.correlations(
                        history.whole(run_a), history.whole(run_b), metric, paired))
                plot.show(charts.scatter_pair(paired, metric, a_name, b_name, cv.corr_text(corr)), "compare.scatter")
                st.caption(f"{len(paired)} cases in both runs · dots of equal scores are nudged apart a "
                           f"little so none hides another (hover for the exact scores) · {how}")
                if corr:
                    stats = [r.get("statistic") for r in corr]
                    frame_c = cv.correlation_frame(corr)
                    st.dataframe(frame_c, hide_index=True, width="stretch", placeholder="",
                                 column_config=cv.columns(frame_c, stats))
                    st.caption(cv.legend(stats))
                st.write(f"**Where they disagree most** — open a case as run B ({b_name}) labeled it")
                top = paired[paired["diff"] != 0].head(10)
                if top.empty:
                    st.caption("They give every common case the same score.")
                sid = cv.history_id(sources[b_name], b_name, state.saved_ids())
                for row in top.itertuples():  # a run shared with this session: by its share token
                    st.page_link("pages/4_inspect.py", icon=":material/manage_search:",
                                 label=f"Inspect {row.id} · A {row.a:.2f} vs B {row.b:.2f} ({row.diff:+.2f})",
                                 query_params=share.case_params(str(row.id), sid, label=b_name))


def run_history() -> None:
    """The run history: a table, means with intervals, open, rename or delete a saved run."""
    if not saved:
        st.info("The run history is empty (finished runs are saved automatically, without keys).")
    else:
        hist = cv.history_frame(saved)
        st.dataframe(hist, hide_index=True, width="stretch", placeholder="", column_config={
            m: st.column_config.NumberColumn(vocab.nice(m), help=vocab.help_text(m), format="%.3f")
            for m in hist.columns if vocab.help_text(m)})
        for words in dict.fromkeys(w for h in saved if (w := trust.caveat(h.method))):
            st.caption(f":material/info: {words}")  # beside the absolute means of an offline method
        picks = st.multiselect("Runs to compare", list(hist["id"]), default=list(hist["id"])[:2],
                               key="compare.hist_runs",
                               format_func=lambda i: cv.history_label(saved, i))
        if picks:
            by_id = {h.id: h for h in saved}
            ivs = {i: history.load_memo(by_id[i]).intervals() or None  # (kept with each ended run)
                   for i in picks if i in by_id}
            plot.show(charts.grouped_means(cv.means_table(saved, picks, ivs)), "compare.grouped")
            st.caption("Bars: each run's mean; whiskers: its 95 % interval (bootstrap over the run's cases).")
        h1, h2 = st.columns(2)
        target = h1.selectbox("Saved run", list(hist["id"]), key="compare.target",
                              format_func=lambda i: cv.history_label(saved, i))
        if h2.button("Open in Results", key="compare.open"):
            state.add_run(cv.history_label(saved, target), None, target)
            st.switch_page("pages/3_results.py")
        if h2.button("Delete from history", key="compare.delete"):
            history.delete(target)
            st.rerun()
        current = next((h.name for h in saved if h.id == target), "")
        with h1.form("compare.rename_form", border=False, enter_to_submit=True):
            r1, r2 = st.columns([3, 1], vertical_alignment="bottom")
            new = r1.text_input("Rename it", value=current, key=f"compare.rename.{target}", max_chars=120,
                                help="The name every page shows for this run (Results, Compare, Inspect).")
            if r2.form_submit_button("Rename") and new.strip() and new.strip() != current:
                history.rename(target, new.strip())
                st.rerun()


def human_labels() -> None:
    """Agreement of the runs' scores with human labels of their cases (bootstrap intervals)."""
    labeled = [n for n in sources if tables.human_label_columns(frame(n))] if len(sources) <= 12 else list(sources)
    h_names = st.multiselect("Runs (one block of rows per run)", list(sources), default=labeled[:2],
                             key="compare.human_runs")
    h_stored = {n: load(n) for n in h_names}
    label_cols = sorted({c for r in h_stored.values() for c in tables.human_label_columns(r)})
    h_runs = {n: w for n, r in h_stored.items() if (w := history.whole(r)) is not None}
    too_big = [n for n, r in h_stored.items() if n not in h_runs]
    if too_big:
        st.info(history.too_big(load(too_big[0]), "Agreement with human labels"))
    if not h_runs:
        st.info("Pick at least one run whose cases carry human labels (e.g. the sample set's `hallucinated`).")
    elif not label_cols:
        st.info("These runs' cases carry no human labels (map label columns on the Upload page).")
    else:
        st.caption("How well each score finds what a person marked (e.g. hallucinated answers), run by run. "
                   "expected_adherence is the score to rank by.")
        key = ("human", tuple(h_names), tuple(len(r.results) for r in h_runs.values()))
        table, err = state.memo(key + ("agreement",), lambda: cv.agreement(h_runs))
        if err:
            st.warning(err)
        elif table is not None:
            frame_h = cv.human_frame(table)
            st.dataframe(frame_h, hide_index=True, width="stretch", placeholder="",
                         column_config=cv.columns(frame_h, table["statistic"]))
            st.caption(cv.legend(table["statistic"]))
        label = st.selectbox("ROC against", label_cols, key="compare.roc_label")
        points, err = state.memo(key + ("roc", label), lambda: cv.roc(h_runs, label))
        if err:
            st.caption(err)
        elif points:
            plot.show(charts.roc(points), "compare.roc")


TABS = {"Which version is better?": which_version, "Two runs, case by case": two_runs,
        "Run history": run_history, "Agreement with human labels": human_labels}
# Only the open tab's content is built (the tabs rerun the page when switched): the agreement with
# human labels (bootstrap intervals) costs seconds of the server's time, and a visitor on another
# tab never pays for it.
if versions.take_request():  # "Run your app" opened Compare on the versions it ran
    st.session_state["compare.tab"] = next(iter(TABS))
for tab, build in zip(st.tabs(list(TABS), key="compare.tab", on_change="rerun"), TABS.values()):
    with tab:
        if tab.open:
            build()

from ui.compare import gold_view  # noqa: E402 - the gold section (review mode), kept at the end
gold_view.render(sources, load)
