"""Run your app: questions -> versions of the app called -> answers evaluated -> Compare / Results."""

import streamlit as st

from ui import layout, state
from ui.run_app import choices, questions, view

st.title("Run your app")
st.markdown("Put every question of a test set to **one or more versions of your RAG app**, then score what "
            "each answered — the retrieval (hit rate, recall, MRR, nDCG against the reference passages) and "
            "the answers (sentence by sentence) — and let **Compare** say which version is better, with the "
            "app's own latency and tokens beside the verdict. No app at hand? The sample app's two versions "
            "are ready (no key). From the command line: `python -m evaluators run QUESTIONS --target T.yaml`.")
if notice := state.pop_notice():
    st.info(notice)
owner, problem = choices.owner_choices()
view.resume_area(owner)

st.subheader("1. Questions")
qs = questions.pick()
st.subheader("2. Versions of your app")
picked = choices.pick(owner, problem)
st.subheader("3. Run")
if qs is None:
    st.info("Pick the questions to ask first.")
    layout.stop()
p = view.plan(qs, picked)
going = view.going()
label = f"Run {len(picked)} version{'s' if len(picked) != 1 else ''} on {len(qs.rows)} questions"
if st.button(label, type="primary", key="run_app.go", disabled=p is None or going) and p is not None:
    view.start(p)
if going:
    st.caption("A run is going on (below): a new one can start when it ends or is cancelled.")
view.progress()
view.outcome(owner)
