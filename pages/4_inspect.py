"""Inspect one case: documents and response, sentence by sentence, with their labels."""

import pandas as pd
import streamlit as st

from evaluators.sentencize import sentences_of
from ui import charts, highlight as hl, inspect_view, layout, state

st.title("Inspect a case")

run = inspect_view.run_from_url(st.query_params.get("run"))
if run is None:
    st.info("Run an evaluation first; then pick a case here (or open …/inspect?case=ID).")
    st.page_link("pages/2_evaluate.py", label="Evaluate", icon="⚙️")
    layout.stop()

results = {r.case.id: r for r in run.results}
ids = list(results)
only_bad = st.toggle("Only cases with unsupported sentences", key="inspect.only_bad")
if only_bad:
    ids = [i for i in ids if results[i].scores and results[i].scores.unsupported_sentences > 0] or ids


def _tag(cid: str) -> str:
    r = results[cid]
    if not r.ok:
        return f"{cid} · ⛔ not scored"
    s = r.scores
    mark = "✅" if s.overall_supported else f"⚠️ {s.unsupported_sentences} unsupported"
    return f"{cid} · adherence {s.adherence:.2f} · {mark}"


qp = st.query_params.get("case")
if qp and qp != st.session_state.get("inspect.url_case"):  # a (new) ?case=ID in the URL
    st.session_state["inspect.url_case"] = qp
    if qp in ids:
        st.session_state["inspect.case"] = qp
    else:
        st.warning(f"No case with id {qp!r} in this run.")
if st.session_state.get("inspect.case") not in ids:
    st.session_state["inspect.case"] = state.get_case_id() if state.get_case_id() in ids else ids[0]
cid = st.selectbox("Case", ids, key="inspect.case", format_func=_tag)
state.set_case_id(cid)
if qp != cid:
    st.query_params["case"] = cid
    st.session_state["inspect.url_case"] = cid

r = results[cid]
sc = sentences_of(r)  # the split the labels refer to (stored with them)
variants = {"final": r.labels, **r.variants} if r.variants else {"final": r.labels}
which = "final"
if len(variants) > 1:
    which = st.radio("Labels", list(variants), horizontal=True, key="inspect.variant",
                     help="Hybrid runs keep each labeler's labels; 'final' is what the metrics use.")
labels = variants[which]

st.html(f'<div style="font-size:1.05em"><b>Question:</b> {hl.e(r.case.question)}</div>')
if r.case.ground_truth:
    st.html(f"<div><b>Ground truth:</b> {hl.e(r.case.ground_truth)}</div>")

if r.case.labels:
    st.html(hl.note_html("Human labels: " + ", ".join(f"{k} = {v}" for k, v in r.case.labels.items())))
if r.spans is None and r.labels is not None:
    st.html(hl.note_html("This run was stored before sentence spans were kept: its texts were split again "
                         "with today's splitter, so a key may point at a different sentence than when labeled."))
if r.error:
    st.html(hl.note_html(f"This case was not scored: {r.error}", error=True))
scores = r.variant_scores.get(which, r.scores) if which != "final" else r.scores
if scores is not None:
    cols = st.columns(5)
    for i, m in enumerate(("context_relevance", "context_utilization", "completeness", "adherence")):
        cols[i].metric(charts.nice(m), f"{getattr(scores, m):.2f}", help=(
            f"Expected adherence {scores.expected_adherence:.2f}: the mean P(fully supported) of the "
            "response sentences" if m == "adherence" else None))
    cols[4].metric("Unsupported sentences", scores.unsupported_sentences,
                   help=f"{scores.fully_supported_sentences} fully, {scores.partially_supported_sentences}"
                        f" partially, {scores.unsupported_sentences} not supported")
if r.metrics:
    fam = pd.DataFrame([{"metric": n, "family": mv.family, "value": mv.value, "skipped": mv.skipped or ""}
                        for n, mv in r.metrics.items()])
    with st.expander("Metric families"):
        st.dataframe(fam, hide_index=True, width="stretch")

st.subheader("Response")
st.html(hl.legend_html("response"))
st.html(hl.response_html(sc, labels))
st.caption("Hover a sentence for its supporting keys and explanation, or open the details.")
with st.expander("Sentence details (supporting keys, explanations)"):
    st.dataframe(pd.DataFrame(hl.support_rows(sc, labels)), hide_index=True, width="stretch")
if labels is not None and labels.overall_explanation:
    st.html(hl.note_html(f"Overall: {labels.overall_explanation}"))

st.subheader(f"Documents ({len(r.case.documents)})")
st.html(hl.legend_html("documents"))
if labels is not None:
    st.caption(f"{len(labels.relevant_keys)} relevant, {len(labels.utilized_keys)} utilized of "
               f"{len(labels.document_keys)} document sentences")
for block in hl.documents_html(sc, labels):
    st.html(block)
if labels is not None and labels.relevance_explanation:
    st.html(hl.note_html(f"Relevance: {labels.relevance_explanation}"))
if labels is not None and labels.notes:
    with st.expander(f"Labeler notes ({len(labels.notes)})"):
        for n in labels.notes:
            st.text(n)
