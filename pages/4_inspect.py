"""Inspect one case: documents and response, sentence by sentence, with their labels; pick a sentence
to light up what it is linked to; review mode corrects labels; the review queue orders the cases."""

import pandas as pd
import streamlit as st

from evaluators.review import next_case
from evaluators.sentencize import sentences_of
from evaluators.store import RunSummary
from ui import history, layout, reviews, share, state
from ui.inspect import inspect_runs, inspect_view, review_view, side_by_side

st.title("Inspect a case")
if st.query_params.get("vs"):  # Compare's "side by side": the same question under two versions
    side_by_side.page()
    layout.stop()

run = inspect_view.run_from_url(st.query_params.get("run"))
if run is None:
    st.info("Run an evaluation first; then pick a case here (or open …/inspect?case=ID).")
    st.page_link("pages/2_evaluate.py", label="Evaluate", icon=":material/play_circle:")
    layout.stop()

run_id = review_view.run_id_of(run) or review_view.visible_run(st.query_params.get("run"))
inspect_runs.run_picker(run, run_id)
df = history.frame(run)  # the per-case table (scores, counts): tags, filters; the case itself is read alone
rows = df.assign(id=df["id"].astype(str)).set_index("id", drop=False) if not df.empty else df

# ---- which case: the review queue's order, a filter, the case picker ---------------------------
c_case, c_order, c_next = st.columns([5, 3, 2], vertical_alignment="bottom")
orders = ["run", "uncertainty"] + (["variants"] if history.has_two_labelings(run) else [])
others = {k: v for k, v in history.choices().items() if getattr(v, "id", None) != run_id}
how = c_order.selectbox("Order cases by", orders + (["runs"] if others else []), key="inspect.order",
                        format_func=review_view.ORDER_NAMES.get,
                        help="The review queue: spend a few dozen reviews where they matter most.")
other = None
if how == "runs":
    pick = st.selectbox("Other run (same cases)", list(others), key="inspect.other")
    other = history.load_memo(others[pick]) if isinstance(others[pick], RunSummary) else others[pick]
queue = review_view.queue(run, run_id, how, other)
ids = [q.case_id for q in queue] or list(rows.index)
if st.toggle("Only cases with a sentence not fully supported", key="inspect.only_bad") and not rows.empty:
    bad = set(rows.index[rows["overall_supported"].fillna(1).astype(float) == 0])
    ids = [i for i in ids if i in bad] or ids

status = {q.case_id: q for q in queue}


TAG_COLUMNS = ("question", "adherence", "error", "partially_supported_sentences", "unsupported_sentences",
               "overall_supported", "declined", "over_refusal")


def _tag(cid: str, row: dict) -> str:
    q = status.get(cid)
    done = " · ✓ reviewed" if q and q.reviewed else ""
    question = " ".join(str(row.get("question") or "").split())  # typing words of the question finds the case
    question = f" · {question[:70]}{'…' if len(question) > 70 else ''}" if question else ""
    if pd.isna(row.get("adherence")) or (isinstance(row.get("error"), str) and row.get("error")):
        return f"{cid}{question} · ✗ not scored{done}"
    bad = int(row.get("partially_supported_sentences") or 0) + int(row.get("unsupported_sentences") or 0)
    mark = "✓ supported" if row.get("overall_supported") == 1 else f"⚠ {bad} not fully supported"
    if row.get("declined") == 1 and not bad:  # a declining answer claims nothing: not "supported"
        mark = "⚠ declined (over-refusal)" if row.get("over_refusal") == 1 else "declined (right refusal)"
    return f"{cid}{question} · adherence {row['adherence']:.2f} · {mark}{done}"


def _tags(window: list[str]) -> dict[str, str]:
    """The picker's label of every case in ``window``: the table's columns read once for all of
    them (a row lookup per option cost 3 % of the server's time under ten visitors)."""
    known = [c for c in dict.fromkeys(window) if c in rows.index]
    table = rows[~rows.index.duplicated()].loc[known, [c for c in TAG_COLUMNS if c in rows.columns]]
    return {cid: _tag(cid, row) for cid, row in table.to_dict("index").items()}


qp = st.query_params.get("case")
if qp and qp != st.session_state.get("inspect.url_case"):  # a (new) ?case=ID in the URL
    st.session_state["inspect.url_case"] = qp
    if qp in set(ids):
        st.session_state["inspect.case"] = qp
    else:
        st.warning(f"No case with id {qp!r} in this run.")
nxt = st.session_state.pop(review_view.NEXT, None)  # "Reviewed, next →" of the case fragment
position = {c: i for i, c in enumerate(ids)}
if nxt in position:
    st.session_state["inspect.case"] = nxt
if st.session_state.get("inspect.case") not in position:
    st.session_state["inspect.case"] = state.get_case_id() if state.get_case_id() in position else ids[0]
if c_next.button("Next to review →", key="inspect.next", help="The next case of the queue not reviewed yet"):
    after = next_case(queue, after=st.session_state["inspect.case"])
    if after in position:
        st.session_state["inspect.case"] = after
window = inspect_view.picker_window(ids, position[st.session_state["inspect.case"]])
tags = _tags(window)
cid = c_case.selectbox("Case", window, key="inspect.case", format_func=lambda c: tags.get(c, c),
                       help="Type an id or words of the question to find a case." if len(window) == len(ids) else
                       f"The {len(window)} cases around this one in the order picked (of {len(ids):,}): type an id "
                       "or words of a question to find one of them; go to any case by its id below, or with Next.")
if len(window) < len(ids):
    inspect_view.goto_case(ids, position)
state.set_case_id(cid)
if qp != cid or (run_id and st.query_params.get("run") != run_id):
    st.query_params["case"] = cid
    if run_id:
        st.query_params["run"] = run_id
    st.session_state["inspect.url_case"] = cid

n_done = sum(q.reviewed for q in queue)
# built only while open (opening it reruns the page): the table and the export read the reviews
queue_box = st.expander(f"Review queue — {n_done} of {len(queue)} cases reviewed ({review_view.ORDER_NAMES[how]})",
                        key="inspect.queue_box", on_change="rerun")
if queue_box.open:
    with queue_box:
        review_view.queue_table(queue, run_id, lambda c: share.case_link(c, run_id))
        if run_id:  # the reviews of the run on screen (Compare exports those of every run)
            reviews.export_button("inspect.export", run_id)

r = history.case(run, cid)
if r is None:
    st.warning(f"Case {cid!r} is not in this run any more.")
    layout.stop()
sc = sentences_of(r)  # the split the labels refer to (stored with them)
inspect_view.header(r)
inspect_view.trace_panel(r.case)  # a case from a trace: its trace and spans
inspect_view.compare_section(r, sc, expanded=st.query_params.get("compare") == "1")
inspect_view.case_view(run, run_id, r, sc, queue)
