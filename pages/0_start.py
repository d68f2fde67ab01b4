"""Start: what the app answers, the methods (cost, speed, when to use), the sample set in one
click, and what to upload (with a template)."""

import streamlit as st

from ui import data as ud
from ui import state
from ui.start import home

st.title("RAG evaluation dashboard")
st.markdown(
    "**Is each answer of your RAG system backed by the documents it retrieved?** Give it test cases "
    "— a question, the retrieved documents and the generated answer — and it labels every sentence: "
    "which document sentences are relevant, which the answer used, and whether each answer sentence "
    "is supported. From those labels come the scores (relevance, utilization, completeness, "
    "adherence), and the cases to look at first.")
st.markdown("1. **Load** test cases: the sample below, or your own file on **Upload**.\n"
            "2. **Evaluate** them with one of the methods below.\n"
            "3. **Results** shows the scores and the suspicious cases; **Inspect** one case sentence by "
            "sentence; **Compare** two runs, or the scores with your own human labels.\n\n"
            "No answers yet? **Make a test set** writes questions from your documents, and **Run your app** "
            "asks them of two versions of your app, then scores and compares both.\n\n"
            "Every metric is explained on **Glossary** (and when you hover its name).")

samples = {p.name: p for p in ud.sample_files()}
main = samples.get("sample_rag.jsonl") or next(iter(samples.values()), None)
if main is not None:
    data = home.sample(main)  # (read once per process: every new visitor lands here)
    with st.container(border=True):
        st.subheader("Try it on the sample set")
        st.write(home.sample_summary(main, data.cases))
        b1, b2 = st.columns(2)
        if b1.button(f"Load the sample ({len(data.cases)} cases) and go to Evaluate", type="primary",
                     key="start.sample"):
            state.set_data(data)
            state.push_notice(f"Loaded {main.name}: {len(data.cases)} cases. Next: press “Run” below "
                              "(TRACE needs no key) — Results opens when the run is done.")
            st.switch_page("pages/2_evaluate.py")
        if (v2 := samples.get(home.SAMPLE_V2)) is not None:
            st.caption(home.SAMPLE_V2_TEXT)
            if b2.button("Load version 2 of the sample and go to Evaluate", key="start.sample_v2"):
                state.set_data(home.sample(v2))
                state.push_notice(f"Loaded {v2.name}: the same questions, answered by version 2. Press “Run”; "
                                  "then Compare tells which version is better and lists the regressions.")
                st.switch_page("pages/2_evaluate.py")
    cases = data.cases
else:
    cases = ()

st.subheader("The methods: what they cost and how long they take")
st.caption("Each method labels the sentences its own way; the scores are computed from the labels "
           "the same way for all. LLM methods need a key (sidebar, or the server's).")
if cases and main is not None:  # (cases come from the sample file only)
    rows = home.sample_methods(main)
    for col, row in zip(st.columns(len(rows)), rows.to_dict("records")):
        with col.container(border=True):
            st.markdown(f"**{row['method']}**  \n{row['what it does']}")
            st.markdown(f"**Needs:** {row['needs']}  \n**Cost** ({len(cases)} sample cases): {row['cost']}  \n"
                        f"**Speed:** {row['speed']}")
            st.caption(f"When: {row['when to use it']}")
    st.caption("Costs are estimates from the providers' published list prices (kept in the app; they "
               "change); no call is made. Evaluate shows the same estimate for your own data before you run. "
               "Family metrics (ragas / Tonic) can be added there too.")

st.subheader("Your own data")
st.markdown("Upload a **CSV, JSON, JSONL or Parquet** file (up to "
            f"{ud.MAX_UPLOAD_MB} MB), one row per case. These column layouts are recognised "
            "automatically; others can be mapped by hand after the upload. `documents` is a list of "
            "passages (in a CSV, a JSON-encoded list). Optional: an `id` column, and human label "
            "columns such as `hallucinated` (true/false) to measure how well the scores agree.")
st.dataframe(home.SHAPES, hide_index=True, width="stretch")
# one row that wraps (each button as wide as its words: none is cut, at any width)
row = st.container(horizontal=True, vertical_alignment="center")
# callables: built on click. Bytes would be served as files the browser fetches at once, and a quick
# "Load the sample" click dropped them first: two 404s in the console (issue 35).
row.download_button("Download a template (CSV)", home.template_csv, file_name="rag_eval_template.csv",
                    mime="text/csv", key="start.template_csv", on_click="ignore", width="content")
row.download_button("Download a template (JSONL)", home.template_jsonl, file_name="rag_eval_template.jsonl",
                    mime="application/json", key="start.template_jsonl", on_click="ignore", width="content")
row.page_link("pages/1_upload.py", label="Upload your file →", icon=":material/upload_file:", width="content")
