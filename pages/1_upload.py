"""Upload: a file or a sample set -> preview -> column mapping (correctable) -> cases."""

import pandas as pd
import streamlit as st

from ui import data as ud
from ui import layout, state
from ui.upload import traces_upload

st.title("Upload test cases")
if notice := state.pop_notice():
    st.success(notice)

def load_button(path, key: str, help: str | None) -> None:
    """A sample or example file loaded in one click."""
    if st.button(f"Load {path.name}", key=key, width="stretch", help=help):
        try:
            state.set_data(ud.load_path(path))
            st.session_state["upload.error"] = None
        except ud.DataError as exc:
            st.error(str(exc))


left, right = st.columns([3, 2])
with left:
    up = st.file_uploader(
        "Drop a CSV, JSON, JSONL or Parquet file — a test set, or your app's traces",
        type=["csv", "json", "jsonl", "parquet"],
        key="upload.file",
        help="ragas v1/v2 (question/answer/contexts, user_input/response/retrieved_contexts), "
             "RAGBench (question/response/documents) or the batch format "
             "(query/response/retrieved_documents) are mapped automatically; so are trace exports "
             "(Phoenix spans, OTLP JSON, LangSmith runs, Langfuse traces): one case per trace.")
    read_as = st.selectbox("Read the file as", traces_upload.READ_AS, key="upload.read_as",
                           format_func=traces_upload.read_as_name,
                           help="Detected from the file: a test set (rows), or traces your RAG app logged — a "
                                "Phoenix spans export, OTLP JSON, LangSmith runs, Langfuse traces (one case "
                                "per trace). Pick one if the guess is wrong.")
    st.page_link("pages/0_start.py", label="Which columns? Layouts and a template to download", icon=":material/info:")
with right:
    samples = ud.sample_files()
    st.write("**Or try a sample set** (the same 16 cases in three formats, and version 2 of their answers)")
    if not samples:
        st.caption("No sample files in data/.")
    for p in samples:
        load_button(p, f"upload.sample.{p.name}", ud.SAMPLE_FORMATS.get(p.name))
    if examples := ud.trace_examples():
        st.write("**Or an example of traces** (one small RAG app's six traces, in two formats: four become "
                 "cases, two are skipped with the reason)")
        for p in examples:
            load_button(p, f"upload.trace_example.{p.name}", ud.TRACE_EXAMPLES[p.name])
        st.caption("What is read from a trace, and how the scores go back: docs/traces.md.")

if up is not None and st.session_state.get("upload.seen") != (up.file_id, read_as):  # a new upload / reading
    st.session_state["upload.seen"] = (up.file_id, read_as)
    st.session_state["upload.error"] = None
    try:
        state.set_data(ud.load_bytes(up.getvalue(), up.name, up.file_id, read_as))
    except ud.DataError as exc:
        st.session_state["upload.error"] = f"Could not read {up.name}: {exc}"
data = state.get_data()
if up is not None and st.session_state.get("upload.error"):
    st.error(st.session_state["upload.error"])
    if data is not None:
        st.warning(f"**Still the previous dataset below: {ud.md_escape(data.filename)}** "
                   f"({len(data.cases)} cases) — the new file was not loaded. Fix the file and drop it "
                   "again, or go on with this one.")

if data is None:
    st.info("Upload a file or load a sample set to begin.")
    layout.stop()
if data.traces is not None:  # a trace export: one case per trace
    traces_upload.show(data)
    layout.stop()

n_rows, n_bad = ud.row_counts(data)
n_err = len(data.errors)
st.subheader(f"{data.filename}")
c1, c2, c3 = st.columns(3)
c1.metric("Rows", n_rows)
c2.metric("Cases ready", len(data.cases))
c3.metric("Rows with problems", n_bad)
st.caption(ud.layout_words(data.mapping))

if data.cases:
    st.page_link("pages/2_evaluate.py", label=f"Evaluate these {len(data.cases)} cases →", icon=":material/play_circle:")

if data.warnings:  # rows kept after a fix-up (a renamed duplicate or missing id)
    shown = "\n".join(f"- {ud.md_escape(str(w))}" for w in data.warnings[:5])
    more = f"\n- … and {len(data.warnings) - 5} more (table below)" if len(data.warnings) > 5 else ""
    n_warn = len(data.warnings)
    st.warning(f"**{n_warn} row{'s' if n_warn != 1 else ''} loaded after a fix-up** (they are evaluated):\n\n"
               f"{shown}{more}")
    if len(data.warnings) > 5:
        with st.expander(f"All {len(data.warnings)} rows loaded after a fix-up"):
            st.dataframe(pd.DataFrame(ud.error_rows(data.warnings)), hide_index=True, width="stretch")

if n_err:
    skipped = "this row is skipped" if n_bad == 1 else "these rows are skipped"
    with st.expander(f"{n_err} problem{'s' if n_err != 1 else ''} found — {skipped}", expanded=not data.cases,
                     icon=":material/warning:"):
        st.dataframe(pd.DataFrame(ud.error_rows(data.errors)), hide_index=True, width="stretch")

st.write("**Preview**")
st.dataframe(ud.preview(data.df), width="stretch", height=260)

with st.expander("Column mapping", expanded=not data.cases):
    cols = [str(c) for c in data.df.columns]
    m = ud.mapping_dict(data.mapping)
    none = "— none —"
    picks = {}
    grid = st.columns(3)
    for i, f in enumerate(ud.MAPPING_FIELDS):
        cur = m.get(f)
        with grid[i % 3]:
            if isinstance(cur, (list, tuple)):
                picks[f] = tuple(st.multiselect(f, cols, default=[c for c in cur if c in cols],
                                                key=f"upload.map.{f}"))
            else:
                opts = [none, *cols]
                picks[f] = st.selectbox(f, opts, index=opts.index(cur) if cur in opts else 0,
                                        key=f"upload.map.{f}", help=ud.MAPPING_HELP.get(f))
                picks[f] = None if picks[f] == none else picks[f]
    labels = st.multiselect("human label columns (for agreement in Compare)", cols,
                            default=[c for c in (m.get("label_columns") or ()) if c in cols],
                            key="upload.map.labels")
    if st.button("Apply mapping", key="upload.apply", type="primary"):
        mapping = ud.replace_mapping(data.mapping, **picks, label_columns=tuple(labels))
        try:
            state.set_data(ud.build(data.df, data.filename, mapping, data.source_id))
            st.rerun()
        except Exception as exc:  # noqa: BLE001 - an invalid mapping is the user's to fix
            st.error(f"Mapping not applied: {exc}")
