"""The dashboard as served: the ASGI middleware ``serve.py`` wraps Streamlit's web server with.

    # serve.py
    from starlette.middleware import Middleware
    from ui.serving import NarrowSidebarNav, PageBaseUrl, SharedFirstPaint
    middleware = [Middleware(SharedFirstPaint), Middleware(PageBaseUrl), Middleware(NarrowSidebarNav)]
    app = st.App("app.py", middleware=middleware)

The first paint goes outermost: it sends a page in parts, after the others' whole-page edits.
All pass every request that is not theirs through untouched (the websocket, static files, other
pages), so ``streamlit run app.py`` serves the same dashboard, only without what they add.

Modules: ``base_url`` (:class:`PageBaseUrl`: a page opened by its own address — a reload of
``…/inspect``, a link in a new tab — is told where the server is, so the browser asks nothing that
404s; ``edit_html``, the one way this server's HTML is edited, and ``server_base``), ``share_paint``
(:class:`SharedFirstPaint`: ``…/results?share=<token>`` answers with the shared run's headline
figures already in its HTML, seen at first paint, before Streamlit's page is ready),
``narrow_nav`` (:class:`NarrowSidebarNav`: below 768 px, choosing a page in the sidebar closes the
sidebar, which otherwise stays over the chosen page); and ``warm``, imported by ``serve.py`` itself
(not a middleware: the pages' modules imported in a background thread while the server starts, and
``python -m ui.serving.warm``, the image's build step). ``base_url`` imports nothing of the project,
``narrow_nav`` only ``base_url``; ``share_paint`` reads the shared run through the shared modules at
the top of ``ui/`` (``share``, ``history``, ``resources``, ``tables``, ``vocab``, ``state``), which
import nothing of this package.
"""

from __future__ import annotations

from .base_url import PageBaseUrl, edit_html, server_base
from .narrow_nav import NarrowSidebarNav
from .share_paint import SharedFirstPaint

__all__ = ["NarrowSidebarNav", "PageBaseUrl", "SharedFirstPaint", "edit_html", "server_base"]
