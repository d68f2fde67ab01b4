"""Results: metric cards, charts, a filterable per-case table and downloads (a run going on shows
the cases finished so far)."""

import pandas as pd
import streamlit as st

from evaluators.agreement import run_intervals
from evaluators.export import to_csv, to_json
from evaluators.store import RunSummary
from ui import charts, history, inspect_view, layout, state, tables

st.title("Results")
if notice := state.pop_notice():
    st.success(notice)

choices = history.choices()
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
    if choice.status != "finished":
        st.info(f"{history.live_tag(choice).capitalize()}: {choice.num_done} of {choice.num_cases} cases "
                "finished so far" + (" — this page shows the final run when it ends." if
                                      choice.status == "running" else "."))
        st.button("Refresh", key="results.refresh")
    if not run.results:
        layout.stop()
else:
    state.set_current_run(picked)
    run = choice
run_id = history.store_id(picked, choice)


def _intervals(r) -> dict | None:
    try:
        return run_intervals(r)
    except Exception:  # noqa: BLE001 - error bars fall back to ± std
        return None


key = ("results", picked, id(run))
df = state.memo(key + ("frame",), lambda: tables.case_frame(run))
metrics = tables.metric_columns(df)
stats = tables.summary(df, metrics)
st.caption(f"Method **{run.method}** · {len(run.scored)} of {len(run.results)} cases scored"
           + (" · **cancelled early** (partial run)" if run.cancelled else "")
           + (f" · {run.usage.calls} LLM calls billed, ${run.usage.cost_usd:.4f}"
              if run.usage.calls else "")
           + (f" · {run.usage.retries} retries (not billed)" if run.usage.retries else ""))

cards = st.columns(min(5, max(1, len(metrics))))
for i, row in stats.iterrows():
    with cards[i % len(cards)]:
        mean = "n/a" if pd.isna(row["mean"]) else f"{row['mean']:.3f}"
        spread = "" if pd.isna(row["std"]) else f"± {row['std']:.3f} (std) · n={row['n']}"
        st.metric(charts.nice(row["metric"]), mean, help=f"mean over scored cases {spread}")
        st.caption(spread)

if run.errors:
    with st.expander(f"⚠️ {len(run.errors)} case(s) could not be scored"):
        st.dataframe(pd.DataFrame(run.errors, columns=["id", "reason"]), hide_index=True, width="stretch")

tab_charts, tab_cases, tab_dl = st.tabs(["Charts", "Cases", "Download"])
with tab_charts:
    plotted = stats.dropna(subset=["mean"])
    if plotted.empty:
        st.info("Nothing scored, nothing to plot.")
    else:
        a, b = st.columns(2)
        a.plotly_chart(charts.metric_bars(plotted, state.memo(key + ('ci',), lambda: _intervals(run))), key="results.bars")
        b.plotly_chart(charts.radar({picked: run}), key="results.radar")
        a.plotly_chart(charts.distributions(df, list(plotted["metric"])), key="results.box")
        hist_metric = b.selectbox("Histogram of", list(plotted["metric"]), key="results.hist",
                                  format_func=charts.nice)
        b.plotly_chart(charts.histogram(df, hist_metric), key="results.histogram")

with tab_cases:
    f1, f2, f3, f4 = st.columns([2, 2, 1, 1])
    preset = f1.selectbox("Show", list(tables.PRESETS), key="results.preset")
    numeric = [c for c in df.columns if c not in ("question", "response", "method", "labeled_by", "error")]
    col = f2.selectbox("or filter column", ["—", *numeric], key="results.col")
    op = f3.selectbox("op", list(tables.OPS), key="results.op")
    val = f4.number_input("value", value=0.0, step=0.1, key="results.val")
    view = df
    try:
        if tables.PRESETS[preset]:
            view = tables.filter_frame(view, *tables.PRESETS[preset])
        if col != "—":
            view = tables.filter_frame(view, col, op, val)
    except (KeyError, ValueError) as exc:
        st.error(str(exc))
    sort = st.selectbox("Sort by", ["(file order)", *numeric], key="results.sort",
                        help="expected_adherence, ascending: the likeliest hallucinations first")
    if sort != "(file order)":
        desc = st.toggle("Descending", key="results.desc")
        view = view.sort_values(sort, ascending=not desc, kind="stable")
    view = view.assign(inspect=[inspect_view.case_link(str(i), run_id) for i in view["id"]])
    st.caption(f"{len(view)} of {len(df)} cases · click a column header to sort, "
               "or the link to inspect a case")
    st.dataframe(view, hide_index=True, width="stretch", key="results.table", column_config={
        "inspect": st.column_config.LinkColumn("inspect", display_text="open ↗"),
        **{m: st.column_config.NumberColumn(format="%.3f") for m in metrics},
    })

with tab_dl:  # built on click (a callable), not on every render; a download does not rerun the page
    st.download_button("Download JSON (CLI format)", lambda: to_json(run), file_name=f"{run.method}_results.json",
                       mime="application/json", key="results.json", on_click="ignore")
    st.download_button("Download CSV (one row per case)", lambda: to_csv(df),
                       file_name=f"{run.method}_results.csv", mime="text/csv", key="results.csv",
                       on_click="ignore")
    st.caption("Exports never contain an API key.")
