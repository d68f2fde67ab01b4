"""Inspect one case: documents and response, sentence by sentence, with their labels; pick a sentence
to light up what it is linked to; review mode corrects labels; the review queue orders the cases."""

import streamlit as st

from evaluators.review import next_case
from evaluators.sentencize import sentences_of
from evaluators.store import RunSummary
from ui import history, inspect_runs, inspect_view, layout, review_view, side_by_side, state, traces_view

st.title("Inspect a case")
if st.query_params.get("vs"):  # Compare's "side by side": the same question under two versions
    side_by_side.page()
    layout.stop()

run = inspect_view.run_from_url(st.query_params.get("run"))
if run is None:
    st.info("Run an evaluation first; then pick a case here (or open …/inspect?case=ID).")
    st.page_link("pages/2_evaluate.py", label="Evaluate", icon="⚙️")
    layout.stop()

run_id = review_view.run_id_of(run) or review_view.visible_run(st.query_params.get("run"))
inspect_runs.run_picker(run, run_id)
results = {r.case.id: r for r in run.results}

# ---- which case: the review queue's order, a filter, the case picker ---------------------------
c_case, c_order, c_next = st.columns([5, 3, 2], vertical_alignment="bottom")
orders = ["run", "uncertainty"] + (["variants"] if any(len(r.variants) > 1 for r in run.results) else [])
others = {k: v for k, v in history.choices().items() if v is not run}
how = c_order.selectbox("Order cases by", orders + (["runs"] if others else []), key="inspect.order",
                        format_func=review_view.ORDER_NAMES.get,
                        help="The review queue: spend a few dozen reviews where they matter most.")
other = None
if how == "runs":
    pick = st.selectbox("Other run (same cases)", list(others), key="inspect.other")
    other = history.load_memo(others[pick]) if isinstance(others[pick], RunSummary) else others[pick]
queue = review_view.queue(run, run_id, how, other)
ids = [q.case_id for q in queue] or list(results)
if st.toggle("Only cases with a sentence not fully supported", key="inspect.only_bad"):
    ids = [i for i in ids if results[i].scores and not results[i].scores.overall_supported] or ids

status = {q.case_id: q for q in queue}


def _tag(cid: str) -> str:
    r, q = results[cid], status.get(cid)
    done = " · ✓ reviewed" if q and q.reviewed else ""
    question = " ".join(r.case.question.split())  # typing words of the question finds the case
    question = f" · {question[:70]}{'…' if len(question) > 70 else ''}" if question else ""
    if not r.ok:
        return f"{cid}{question} · ⛔ not scored{done}"
    s = r.scores
    bad = s.partially_supported_sentences + s.unsupported_sentences
    mark = "✓ supported" if s.overall_supported else f"⚠️ {bad} not fully supported"
    return f"{cid}{question} · adherence {s.adherence:.2f} · {mark}{done}"


qp = st.query_params.get("case")
if qp and qp != st.session_state.get("inspect.url_case"):  # a (new) ?case=ID in the URL
    st.session_state["inspect.url_case"] = qp
    if qp in ids:
        st.session_state["inspect.case"] = qp
    else:
        st.warning(f"No case with id {qp!r} in this run.")
nxt = st.session_state.pop(review_view.NEXT, None)  # "Reviewed, next →" of the case fragment
if nxt in ids:
    st.session_state["inspect.case"] = nxt
if st.session_state.get("inspect.case") not in ids:
    st.session_state["inspect.case"] = state.get_case_id() if state.get_case_id() in ids else ids[0]
if c_next.button("Next to review →", key="inspect.next", help="The next case of the queue not reviewed yet"):
    after = next_case(queue, after=st.session_state["inspect.case"])
    if after in ids:
        st.session_state["inspect.case"] = after
cid = c_case.selectbox("Case", ids, key="inspect.case", format_func=_tag,
                       help="Type an id or words of the question to find a case.")
state.set_case_id(cid)
if qp != cid or (run_id and st.query_params.get("run") != run_id):
    st.query_params["case"] = cid
    if run_id:
        st.query_params["run"] = run_id
    st.session_state["inspect.url_case"] = cid

n_done = sum(q.reviewed for q in queue)
with st.expander(f"Review queue — {n_done} of {len(queue)} cases reviewed ({review_view.ORDER_NAMES[how]})"):
    review_view.queue_table(queue, run_id, lambda c: inspect_view.case_link(c, run_id))
    if run_id:  # the reviews of the run on screen (Compare exports those of every run)
        review_view.export_button("inspect.export", run_id)

r = results[cid]
sc = sentences_of(r)  # the split the labels refer to (stored with them)
inspect_view.header(r)
traces_view.trace_panel(r.case)  # a case from a trace: its trace and spans
inspect_view.compare_section(r, sc, expanded=st.query_params.get("compare") == "1")
inspect_view.case_view(run, run_id, r, sc, queue)
