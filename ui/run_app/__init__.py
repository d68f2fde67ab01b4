"""The "Run your app" page's own code (``pages/1_run_app.py``): questions (the sample's, the test set
made on "Make a test set", or an uploaded question file) -> one or more versions of an app (the
deployment owner's targets, the sample app's two versions, or an address the visitor types) -> every
question put to each version in the background (progress per version, Cancel, resumed after a
restart) -> each version's answers evaluated on the job queue as a run named after it -> Compare
(and Results) opened on those runs: the verdict, the retrieval metrics, the app's latency and tokens.

    from ui.run_app import choices, questions, view
    qs = questions.pick()
    owner, problem = choices.owner_choices()
    picked = choices.pick(owner, problem)
    if (p := view.plan(qs, picked)) and st.button("Run"):
        view.start(p)

Modules: ``questions`` (the question sources), ``choices`` (the targets offered and the form to add
one's own, under the visitor's policy), ``view`` (the plan with the visitor's limits, start, progress,
outcome, Resume), ``runner`` (the background run: calls, then evaluations; no Streamlit), ``folder``
(the run's questions, cases files and manifest on disk), ``sample`` (the sample app served by this
process on first use).
"""
