"""The dashboard's Streamlit code (``app.py`` and ``pages/`` are its thin entry files).

A page's own code lives in a sub-package of its own, named after the page (``pages/3_results.py``
-> ``ui/results/``); only what several pages (or ``app.py`` / ``serve.py``) use stays at this
level. Imports run one way (``tests/test_import_graph.py``): a page file imports its own package
and the shared modules; a page package imports the shared modules, never another page's package;
the shared modules import no page package; nothing here imports ``pages/``.

    # pages/4_inspect.py
    from ui import history, layout, share, state
    from ui.inspect import inspect_view, review_view

Page packages: ``start``, ``upload``, ``testset``, ``run_app``, ``evaluate``, ``results``, ``inspect``,
``compare`` (with ``cards``, its table that turns into a card per row where its box is narrow),
``glossary`` (each ``__init__`` lists its modules). A new page: ``pages/N_name.py``, one ``st.Page``
line in ``app.py``, and ``ui/name/`` for its code. Two packages are an entry's, not a page's:
``shell`` (``app.py``'s: the ``sidebar`` drawn around every page) and ``serving`` (``serve.py``'s
middleware: ``base_url``, pages opened by their own address; ``share_paint``, a shared link's figures in
its HTML; ``narrow_nav``, the sidebar closed after a page is chosen on a narrow screen; ``warm``, the
pages imported ahead of the first visitor and the image's build step). Like the shared modules below,
they import no page's package.

Shared modules (used by several pages) — session and server: ``state`` (the one owner of session
keys: dataset, the visitor's token, the session's run ids, LLM settings, memo), ``history`` (every
read of the visitor's runs, the session's runs included), ``resources`` (the process's store, review
store and job queue), ``jobs`` (background runs: start, progress with Cancel, filing), ``owner_runs``
(a page's own background work, one per visitor: the test set being made, the app being run),
``layout`` (page flow), ``cookies``. Widgets and words: ``share`` (share links, links to Inspect a
case), ``reviews`` (the review store, reviewed labels exported), ``data`` (uploads and samples read
into cases; ``md_escape``), ``vocab`` (metric names and help texts; a run's headline figures in
words), ``charts``, ``plot`` (a chart drawn with its title above it: wraps, never under the toolbar),
``tables``, ``highlight`` (a package: sentence spans as HTML for Inspect and Compare; ``record_html``
inside it draws a JSON record or table as a tree / tables of its keyed facts).

Layering of the shared modules (each imports only modules of an earlier step): ``cookies``,
``layout``, ``resources``, ``owner_runs``, ``tables``, ``highlight``, ``vocab`` -> ``charts``,
``state`` -> ``data``, ``history`` -> ``plot``, ``share``, ``jobs``, ``reviews`` -> ``shell``, ``serving``.
"""
