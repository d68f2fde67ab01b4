"""Inspect's side-by-side view: the same question under two versions (a baseline run and a candidate
run of the history), each answer with its sentence highlighting, the sentences that lost their
support said in words, and the documents each version retrieved.

Opened from Compare's regression list as ``inspect?run=<A>&case=<id in A>&vs=<B>&vs_case=<id in B>``;
both runs are read from the visitor's own history (``ui.history``), so another visitor's run id is
"not found"."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evaluators.comparison import SentenceDetail, sentence_details
from evaluators.comparison import unsupported_sentences as unsupported
from evaluators.sentencize import sentences_of
from evaluators.types import EXPECTED_ADHERENCE, TRACE_METRICS, CaseResult

from .. import highlight as hl
from .. import history, state, vocab
from ..data import md_escape
from . import answer_view

COMPARE_PAGE = "pages/5_compare.py"


def _load(run_id: str) -> tuple[str, Any] | None:
    try:
        summary = history.get(run_id)
    except KeyError:
        st.warning(history.NOT_FOUND.format(rid=run_id))
        return None
    return summary.label, history.load_memo(summary)


def _case(run: Any, case_id: str, name: str) -> CaseResult | None:
    r = history.case(run, case_id)  # the one case, read alone
    if r is None:
        st.warning(f"No case with id {case_id!r} in {name}.")
    return r


def lost_lines(worse: tuple[SentenceDetail, ...], better: tuple[SentenceDetail, ...]) -> list[str]:
    """The answer sentences of one version not fully supported, in words."""
    return hl.sentence_lines(unsupported(worse, better))


def _column(name: str, r: CaseResult, other: CaseResult, role: str) -> None:
    st.markdown(f"**{role}: {md_escape(name)}**")
    s = r.scores
    if s is not None:
        st.caption(" · ".join(f"{vocab.nice(m)} {s.value(m):.2f}" for m in (EXPECTED_ADHERENCE, *TRACE_METRICS)))
    elif r.error:
        st.html(hl.note_html(f"Not scored: {r.error}", error=True))
    sc = sentences_of(r)
    st.html(hl.response_html(sc, r.labels, view=role))
    if (against := answer_view.reference_html(r) + answer_view.declined_html(r)):  # the reference facts it states
        st.html(against)
    lines = lost_lines(sentence_details(r), sentence_details(other))
    if lines:
        st.caption("Sentences not fully supported by this version's documents:")
        st.html("<ul class='rag-lost' style='margin:4px 0 8px 0;font-size:0.9em'>"
                + "".join(f"<li>{hl.e(x)}</li>" for x in lines) + "</ul>")
    st.markdown(f"Documents ({len(r.case.documents)})")
    st.html('<div class="rag-docs">' + "".join(hl.documents_html(sc, r.labels)) + "</div>")


def page() -> None:
    """The side-by-side view of the query parameters (run, case, vs, vs_case)."""
    qp = st.query_params
    a, b = _load(qp.get("run") or ""), _load(qp.get("vs") or "")
    if a is None or b is None:
        st.page_link(COMPARE_PAGE, label="Back to Compare", icon=":material/arrow_back:")
        return
    ra, rb = _case(a[1], qp.get("case") or "", a[0]), _case(b[1], qp.get("vs_case") or qp.get("case") or "", b[0])
    if ra is None or rb is None:
        st.page_link(COMPARE_PAGE, label="Back to Compare", icon=":material/arrow_back:")
        return
    state.set_case_id(ra.case.id)
    st.subheader("The same question under both versions")
    st.html(hl.stylesheet())
    st.html(f'<div style="font-size:1.05em"><b>Question:</b> {hl.e(ra.case.question)}</div>')
    if ra.case.question.strip() != rb.case.question.strip():
        st.html(hl.note_html(f"The candidate's question reads: {rb.case.question}"))
    st.html(hl.legend_html("response") + hl.legend_html("documents"))
    left, right = st.columns(2)
    with left:
        _column(a[0], ra, rb, "Baseline (A)")
    with right:
        _column(b[0], rb, ra, "Candidate (B)")
    st.page_link(COMPARE_PAGE, label="Back to Compare", icon=":material/arrow_back:")
