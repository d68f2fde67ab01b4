"""Make a test set: documents -> questions with reference answers and passages -> review -> saved."""

import streamlit as st

from ui import layout, state
from ui.testset import view

st.title("Make a test set")
st.markdown("No test cases yet? Drop the documents your RAG app answers from, and make **questions with "
            "reference answers and reference passages** — offline by rule (no key), or with an LLM. Review "
            "them, then save them as the test set your app is run on, or download them as JSONL "
            "(`python -m evaluators testset` makes the same file from the command line).")
corpus = view.documents()
if corpus is None:
    view.saved_sets()
    layout.stop()
choice = view.settings(corpus)
running = view.runner.get(state.owner_token())
busy = running is not None and not running.finished
if choice is not None and st.button("Make questions", type="primary", key="testset.go", disabled=busy):
    view.start(corpus, choice)
view.progress()
rows = view.result_rows()
if rows:
    st.subheader("Review the questions")
    kept = view.review(rows, corpus)
    view.save(kept, corpus)
view.saved_sets()
