"""The Results page's own code (``pages/3_results.py``): metric cards with intervals, charts, the
per-case table, the agreement of two labelings, downloads, opening a results file made elsewhere,
and sending the scores of traced cases back to their spans.

    from ui.results import open_results, results_view, traces_view
    open_results.area(expanded=True)         # open a CLI / Ray results file as a run of the history
    results_view.cases_tab(df, metrics, run_id, run)
    results_view.downloads(run, df)          # built on click: the results file and a CSV

Modules: ``results_view`` (cards' help and intervals, the app's own line for runs of an app, the
cases table, the agreement tab, the Download tab), ``exports`` (the download files of a stored run, case by case: pure),
``open_results`` (a results file in: upload or the owner's folder), ``traces_view`` (runs of traced
cases: the note above the table, annotation files, sending to Phoenix), ``conversations_view`` (runs of
turns of chats: metrics by turn, the conversations worst first), ``which_run`` (which run the page shows:
the run just started, with its progress, then its results; the run another page opened), ``tools_view``
(runs of an agent: the tool-call metrics as one table, goal accuracy or why it has none).
"""
