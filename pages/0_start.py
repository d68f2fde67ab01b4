"""Start: what the app answers, the methods (cost, speed, when to use), the sample set in one
click, and what to upload (with a template)."""

import streamlit as st

from ui import data as ud
from ui import home, state

st.title("RAG evaluation dashboard")
st.markdown(
    "**Is each answer of your RAG system backed by the documents it retrieved?** Give it test cases "
    "— a question, the retrieved documents and the generated answer — and it labels every sentence: "
    "which document sentences are relevant, which the answer used, and whether each answer sentence "
    "is supported. From those labels come the scores (relevance, utilization, completeness, "
    "adherence), and the cases to look at first.")
st.markdown("1. **Load** test cases (the sample below, or your file on **Upload**) → 2. **Evaluate** "
            "with a method → 3. **Results**: scores and the suspicious cases; **Inspect** shows one case "
            "sentence by sentence; **Compare** puts two runs (or your human labels) side by side. "
            "Every metric is explained on **Glossary**.")

samples = {p.name: p for p in ud.sample_files()}
main = samples.get("sample_rag.jsonl") or next(iter(samples.values()), None)
if main is not None:
    data = state.memo(("sample", main.name), lambda: ud.load_path(main))
    with st.container(border=True):
        st.subheader("Try it on the sample set")
        st.write(home.sample_summary(main, data.cases))
        if st.button(f"Load the sample ({len(data.cases)} cases) and go to Evaluate", type="primary",
                     key="start.sample"):
            state.set_data(data)
            state.push_notice(f"Loaded {main.name}: {len(data.cases)} cases. Next: press “Run” below "
                              "(TRACE needs no key) — Results opens when the run is done.")
            st.switch_page("pages/2_evaluate.py")
    cases = data.cases
else:
    cases = ()

st.subheader("Three ways to label, one set of scores")
if cases:
    st.caption(f"Cost and speed for the {len(cases)} sample cases; LLM prices are the providers' list "
               "prices in evaluators/llm/prices.py (an estimate: no call is made). The Evaluate page "
               "shows the same estimate for your data before you run.")
    st.dataframe(state.memo(("start.methods", len(cases)), lambda: home.method_rows(cases)),
                 hide_index=True, width="stretch")
st.caption("All methods give the same TRACE scores from their sentence labels; LLM methods need a key "
           "in the sidebar (or the server's). Family metrics (ragas / Tonic) can be added on Evaluate.")

st.subheader("Your own data")
st.markdown("Upload a **CSV, JSON, JSONL or Parquet** file (up to "
            f"{ud.MAX_UPLOAD_MB} MB), one row per case. These column layouts are recognised "
            "automatically; others can be mapped by hand after the upload. `documents` is a list of "
            "passages (in a CSV, a JSON-encoded list). Optional: an `id` column, and human label "
            "columns such as `hallucinated` (true/false) to measure how well the scores agree.")
st.dataframe(home.SHAPES, hide_index=True, width="stretch")
c1, c2, c3 = st.columns([1, 1, 2])
c1.download_button("Template (CSV)", home.template_csv(), file_name="rag_eval_template.csv",
                   mime="text/csv", key="start.template_csv", on_click="ignore")
c2.download_button("Template (JSONL)", home.template_jsonl(), file_name="rag_eval_template.jsonl",
                   mime="application/json", key="start.template_jsonl", on_click="ignore")
with c3:
    st.page_link("pages/1_upload.py", label="Upload your file →", icon="📤")
