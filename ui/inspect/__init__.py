"""The Inspect page's own code (``pages/4_inspect.py``): one case sentence by sentence with its
labels and cross-highlighting, review mode and the review queue, which run is shown, and the same
question under two versions side by side (opened from Compare: ``inspect?...&vs=``).

    from ui.inspect import inspect_runs, inspect_view, review_view, side_by_side
    run = inspect_view.run_from_url(st.query_params.get("run"))
    queue = review_view.queue(run, run_id, "uncertainty", None)
    inspect_view.case_view(run, run_id, r, sentences_of(r), queue)

Modules: ``inspect_view`` (which run, the case header and its trace, the two labelings of a hybrid
run, the case fragment), ``review_view`` (review mode: corrections, the reviewed mark, the queue),
``inspect_runs`` (the run picker), ``side_by_side`` (two versions of one question),
``conversation_view`` (a turn of a chat: the turns before its question, the earliest collapsed),
``trajectory_view`` (an agent's tool calls above the sentence view, a failed step in red),
``answer_view`` (the reference answer's facts stated or missing; a declined answer's verdict). Shared with
other pages, at the top of ``ui/``: ``highlight`` (sentence markup), ``reviews`` (the review store
and the export of reviewed labels), ``share`` (``case_link``: a link to Inspect one case).
"""
