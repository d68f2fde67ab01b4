"""The visitor's reviews (review mode's corrections, kept with the runs in the run history's SQLite
file), on any page: the store, and the export of reviewed labels (Inspect: the run on screen;
Compare: the gold of every run). Reads are scoped like the history (:func:`ui.history.reader`)."""

from __future__ import annotations

import streamlit as st

from evaluators.review import ReviewedCase, ReviewStore, export_rows, to_jsonl

from . import history, resources


def store() -> ReviewStore:
    return resources.review_store()


def export_button(key: str, run_id: str | None = None, gold: dict[str, ReviewedCase] | None = None) -> None:
    """Download reviewed cases in the upload format: those of the run on screen (``run_id``, on
    Inspect), else every reviewed case of this visitor (``gold``, the deduplicated gold of all runs,
    on Compare). The label says which."""
    store, owner = resources.review_store(), history.reader()  # taken now: the file is built outside this script run
    if run_id is not None:
        cases = [c for c in store.of_run(run_id, owner=owner).values() if c.reviewed]
        where = " of this run"
    else:
        cases = list((gold if gold is not None else store.gold(owner=owner)).values())
        where = " · all your runs"
    n = len(cases)

    def data() -> str:
        return to_jsonl(export_rows(sorted(cases, key=lambda c: c.reviewed_at or "")))

    st.download_button(f"Export {n} reviewed case{'s' * (n != 1)}{where}", data=data, icon=":material/download:",
                       file_name="reviewed_labels.jsonl", mime="application/jsonl", key=key, disabled=not n,
                       on_click="ignore", help="A JSONL file in the upload format: question, response, documents "
                       "and your labels in the columns the Upload page and `python -m evaluators agreement FILE` "
                       "read as human labels.")
