"""The "Make a test set" page's own code (``pages/1_testset.py``): documents dropped (or the sample's
in one click) -> questions made offline or by an LLM in a background thread -> reviewed in a table
(accept, edit, delete; the passage with its answer highlighted) -> saved as this session's test set
(``ui.state.TESTSET_KEY``, read with ``state.get_testset()``) and downloadable as JSONL.

    from ui.testset import view
    corpus = view.documents()
    choice = view.settings(corpus)

Modules: ``view`` (the page's sections), ``runner`` (the background run per visitor: progress,
Cancel, result), ``passage`` (a passage as escaped HTML with the answer marked).
"""
