"""The Compare page's own code (``pages/5_compare.py``): which version is better, two runs case by
case, the run history, agreement with human labels, and the gold section (review mode's labels).

    from ui.compare import compare_view as cv, gold_view, versions
    versions.render()                                   # "Which version is better?"
    sources = cv.run_sources(runs, saved_ids, summaries) # the runs that can be compared
    gold_view.render(sources, load)                     # every method against the reviewed cases

Modules: ``versions`` (baseline vs candidates: verdicts, charts, regressions), ``app_view`` (beside
the verdict: the app's own latency, tokens and errors; the retrieval metrics as one grid), ``compare_charts``
(its figures: pure), ``compare_view`` (which runs to compare, agreement statistics in words: pure
helpers), ``gold_view`` (scores against gold labels, prediction-powered estimates, calibration),
``conversations_view`` (regressions by conversation, for runs of turns of chats), ``tools_view``
(an agent's: the tools a candidate stopped or started calling).
Shared with other pages, at the top of ``ui/``: ``charts``, ``tables``, ``highlight``
(``sentence_lines``), ``reviews``.
"""
