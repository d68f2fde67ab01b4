"""Compare: method vs method on the same cases, run vs run from the history, agreement with humans."""

import pandas as pd
import streamlit as st

from ui import charts, compare_view as cv, history, layout, state, tables

st.title("Compare")
saved = history.summaries(status=("finished", "cancelled"))  # this visitor's (or the shared) history
sources = cv.run_sources(state.get_runs(), state.saved_ids(), saved)
if not sources:
    st.info("No runs yet: evaluate the same cases with two methods (e.g. TRACE and hybrid) to compare.")
    st.page_link("pages/2_evaluate.py", label="Evaluate", icon="⚙️")
    layout.stop()


def load(name: str):
    """A run by display name (history runs are read once per session)."""
    src = sources[name]
    return src if not isinstance(src, str) else state.memo(("history", src), lambda: history.load(src))


def frame(name: str):
    run = load(name)
    return state.memo(("frame", name, id(run)), lambda: tables.case_frame(run))


tab_mm, tab_hist, tab_human = st.tabs(["Method vs method", "Run history", "Agreement with human labels"])

with tab_mm:
    names = list(sources)
    if len(names) < 2:
        st.info("Only one run so far: run another method on the same cases to compare them.")
    else:
        c1, c2, c3 = st.columns(3)
        a_name = c1.selectbox("Run A", names, index=1, key="compare.a")
        b_name = c2.selectbox("Run B", names, index=0, key="compare.b")
        run_a, run_b = load(a_name), load(b_name)
        common = sorted(set(tables.metric_columns(frame(a_name)))
                        & set(tables.metric_columns(frame(b_name))),
                        key=lambda m: list(charts.LABELS).index(m) if m in charts.LABELS else 99)
        if not common:
            st.warning("These runs share no metric.")
        else:
            metric = c3.selectbox("Metric", common, key="compare.metric", format_func=charts.nice)
            key = ("compare", a_name, id(run_a), b_name, id(run_b), metric)
            paired = state.memo(key + ("paired",), lambda: tables.paired_frame(run_a, run_b, metric))
            if paired.empty:
                st.warning("No case is scored in both runs (compare runs on the same cases).")
            else:
                with st.spinner("Computing correlations with bootstrap intervals…"):
                    corr, lib = state.memo(key + ("corr",),
                                           lambda: cv.correlations(run_a, run_b, metric, paired))
                st.plotly_chart(charts.scatter_pair(paired, metric, a_name, b_name, cv.corr_text(corr)),
                                key="compare.scatter")
                st.caption(f"{len(paired)} common cases · correlations from {lib}")
                if corr:
                    st.dataframe(pd.DataFrame(corr), hide_index=True, width="stretch")
                st.write("**Where they disagree most**")
                link = cv.inspect_link(sources[b_name], b_name, state.saved_ids())
                top = paired.head(15).assign(inspect=lambda d: [link(i) for i in d["id"].astype(str)])
                st.dataframe(top.rename(columns={"a": a_name, "b": b_name}), hide_index=True,
                             width="stretch", column_config={
                                 "inspect": st.column_config.LinkColumn(display_text="open ↗")})
                st.caption(f"The links open the case as labeled by run B ({b_name}).")

with tab_hist:
    if not saved:
        st.info("The run history is empty (finished runs are saved automatically, without keys).")
    else:
        hist = cv.history_frame(saved)
        st.dataframe(hist, hide_index=True, width="stretch")
        picks = st.multiselect("Runs to compare", list(hist["id"]), default=list(hist["id"])[:2],
                               key="compare.hist_runs",
                               format_func=lambda i: cv.history_label(saved, i))
        if picks:
            st.plotly_chart(charts.grouped_means(cv.means_table(saved, picks)), key="compare.grouped")
        h1, h2 = st.columns(2)
        target = h1.selectbox("Saved run", list(hist["id"]), key="compare.target",
                              format_func=lambda i: cv.history_label(saved, i))
        if h2.button("Open in Results", key="compare.open"):
            state.add_run(cv.history_label(saved, target), history.load(target), target)
            st.switch_page("pages/3_results.py")
        if h2.button("Delete from history", key="compare.delete"):
            history.delete(target)
            st.rerun()

with tab_human:
    h_names = st.multiselect("Runs (one row block per method)", list(sources), default=list(sources)[:2],
                             key="compare.human_runs")
    h_runs = [load(n) for n in h_names]
    label_cols = sorted({c for r in h_runs for c in tables.human_label_columns(r)})
    if not h_runs:
        st.info("Pick at least one run.")
    elif not label_cols:
        st.info("These runs' cases carry no human labels (map label columns on the Upload page).")
    else:
        key = ("human", tuple(h_names), tuple(id(r) for r in h_runs))
        table, err = state.memo(key + ("agreement",), lambda: cv.agreement(h_runs))
        if err:
            st.warning(err)
        else:
            st.dataframe(table, hide_index=True, width="stretch")
        label = st.selectbox("ROC against", label_cols, key="compare.roc_label")
        points, err = state.memo(key + ("roc", label), lambda: cv.roc(h_runs, label))
        if err:
            st.caption(err)
        elif points:
            st.plotly_chart(charts.roc(points), key="compare.roc")

from ui import gold_view  # noqa: E402 - the gold section (review mode), kept at the end
gold_view.render(sources, load)
