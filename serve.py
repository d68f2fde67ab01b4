"""The dashboard as it is served: ``streamlit run serve.py`` (``scripts/dev.sh app``, the Space's
start script, the browser tests).

It runs ``app.py`` — the Streamlit script: the pages and the sidebar — behind one fix to Streamlit's
web server (``ui/serving/base_url.py``): a page opened by its own address (a reload of ``…/inspect``, a link
opened in a new tab) otherwise first asks for the server one folder too deep, two 404s in the
browser console. ``streamlit run app.py`` still serves the same dashboard, with those two 404s.

As served, runs are evaluated in a worker process of their own (``RAG_EVAL_WORKER=process``,
``evaluators/jobs_worker.py``) so pages never wait on the evaluation; set ``RAG_EVAL_WORKER=thread``
to evaluate in a thread of the server instead (the library's default, and ``streamlit run app.py``'s).
While the server starts, the pages' modules are imported in the background (``ui.serving.warm.in_background``).

A shared link (``…/results?share=<token>``) answers with the shared run's headline figures already in
its HTML (``ui/serving/share_paint.py``): a colleague sees them at first paint, before Streamlit's own page is
ready, which then takes their place.

On a narrow screen (below 768 px, where the open sidebar lies over the page) choosing a page in the
sidebar closes it, whatever the browser's user agent (``ui/serving/narrow_nav.py``; Streamlit's own
closes it for a phone's user agent only).
"""

import os

import streamlit as st
from starlette.middleware import Middleware

from ui.serving import NarrowSidebarNav, PageBaseUrl, SharedFirstPaint, warm

os.environ.setdefault("RAG_EVAL_WORKER", "process")
warm.in_background()  # the first visitor (a shared link to a Space just woken) finds the pages imported

# the first paint outermost: it sends the page in parts, after PageBaseUrl's whole-page edit
app = st.App("app.py", middleware=[Middleware(SharedFirstPaint), Middleware(PageBaseUrl),
                                   Middleware(NarrowSidebarNav)])
