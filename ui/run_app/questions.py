"""The questions a run asks: the sample's, the test set saved on "Make a test set" in this session
(``state.get_testset()``), or a question file the visitor uploads (``evaluators.datasets.load_questions``:
a test set without answers; rows that cannot be read are named and skipped)."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from typing import Any

import streamlit as st

from evaluators.datasets import DatasetError, QuestionSet, load_questions
from evaluators.sample_app import SAMPLE_QUESTIONS
from evaluators.store import default_name

from .. import data as ud
from .. import state, vocab

KINDS = ["csv", "tsv", "json", "jsonl", "parquet"]
_READ = "run_app.questions_read"  # (file id, QuestionSet | error text) of the uploaded file
_sample: list[QuestionSet] = []
_sample_lock = threading.Lock()


#: How the sample's questions are named in the runs made of them ("v1 on the sample's questions").
SAMPLE_NAME = "the sample's questions"


def sample() -> QuestionSet:
    """The sample's questions (read once per process), named :data:`SAMPLE_NAME`."""
    with _sample_lock:
        if not _sample:
            _sample.append(replace(load_questions(SAMPLE_QUESTIONS), name=SAMPLE_NAME))
        return _sample[0]


def testset_questions(saved: dict[str, Any]) -> QuestionSet:
    """The saved test set's rows as a question set (read once per saved version)."""
    def read() -> QuestionSet:  # named as it was saved ("test set from 3 documents"), as its runs are
        text = "\n".join(json.dumps(r, ensure_ascii=False, default=str) for r in saved["rows"])
        return replace(load_questions(text.encode("utf-8"), f"{saved['name']}.jsonl"), name=str(saved["name"]))
    return state.memo(("run_app.testset", saved["saved_at"], len(saved["rows"])), read, max_items=2)


def summary(qs: QuestionSet) -> str:
    """'16 questions · 16 with reference passages (retrieval is scored) · 16 with a reference answer'."""
    rows = [q.case for q in qs.rows]
    refs = sum(bool(c.reference_context_ids or c.reference_contexts or c.reference_context_relevance) for c in rows)
    answers = sum(c.ground_truth is not None for c in rows)
    convs = sum(bool(c.history) for c in rows)
    parts = [f"{len(rows)} question{'s' if len(rows) != 1 else ''}"]
    parts.append(f"{refs} with reference passages (retrieval is scored)" if refs else
                 "no reference passages (retrieval is not scored)")
    if answers:
        parts.append(f"{answers} with a reference answer")
    if convs:
        parts.append(f"{convs} ending a conversation (earlier turns sent as history)")
    return " · ".join(parts)


def pick() -> QuestionSet | None:
    """The questions section; the questions picked (None: none yet)."""
    saved = state.get_testset()
    options = ["sample", *(["testset"] if saved else []), "upload"]
    names = {"sample": f"The sample's {len(sample().rows)} questions",
             "testset": f"Your test set “{saved['name']}” ({len(saved['rows'])} questions)" if saved else "",
             "upload": "A question file"}
    if st.session_state.get("run_app.source") not in options:
        st.session_state["run_app.source"] = "testset" if saved else "sample"
    src = st.radio("Questions", options, format_func=names.__getitem__, key="run_app.source", horizontal=True,
                   help="A test set without answers: a `question` column, and optionally `id`, `ground_truth`, "
                        "`reference_context_ids` / `reference_contexts` (to score retrieval) and `history`. "
                        "Make one from your documents on “Make a test set”.")
    qs: QuestionSet | None
    if src == "sample":
        qs = sample()
        st.caption("The sample's questions over its 15 documents, with the passages that answer each: what the "
                   "sample app retrieves from.")
    elif src == "testset" and saved:
        qs = testset_questions(saved)
    else:
        qs = _uploaded()
        if qs is None:
            return None
    st.caption(ud.md_escape(summary(qs)))
    if qs.errors:
        unread = vocab.count(len(qs.errors), "row")
        with st.expander(f"{unread} could not be read — not asked", icon=":material/warning:"):
            for e in qs.errors[:50]:
                st.markdown(f"- {ud.md_escape(str(e))}")
    if not qs.rows:
        st.error("No question to ask in this file.")
        return None
    return qs


def _uploaded() -> QuestionSet | None:
    up = st.file_uploader("Drop a question file: CSV, TSV, JSON, JSONL or Parquet", type=KINDS, key="run_app.file",
                          help=f"Up to {ud.MAX_UPLOAD_MB} MB. The same columns as a test set, without answers.")
    if up is None:
        st.session_state.pop(_READ, None)
        return None
    held = st.session_state.get(_READ)
    if held is None or held[0] != up.file_id:
        try:  # named by the file's stem, as its runs are ("v1 on my_questions")
            got: QuestionSet | str = replace(load_questions(up.getvalue(), up.name,
                                                            max_bytes=ud.MAX_UPLOAD_MB * 1024 * 1024),
                                             name=default_name(up.name))
        except DatasetError as exc:
            got = str(exc)
        st.session_state[_READ] = held = (up.file_id, got)
    if isinstance(held[1], str):
        st.error(f"Could not read {ud.md_escape(up.name)}: {ud.md_escape(held[1])}")
        return None
    return held[1]
