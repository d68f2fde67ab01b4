"""The Evaluate page's own code (``pages/2_evaluate.py``): the method and metric families, the
estimate before a run, starting it on the server's queue, and resuming an interrupted run.

    from ui.evaluate import resume
    resume.interrupted_area()         # this visitor's interrupted runs, each with Resume / Keep as is

Modules: ``resume`` (interrupted runs: Resume the missing cases, or keep them as they are). Shared
with other pages, at the top of ``ui/``: ``jobs`` (start a run under the owner's limits, its
progress with Cancel on every page, filing it when it ends; ``app.py`` draws the progress).
"""
