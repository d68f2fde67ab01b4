"""Page flow: a page ends early with :func:`stop` (not ``st.stop()``), so app.py still draws what
comes after the page — the sidebar's dataset / run status, which must reflect what the page did
in the same run (an upload, say). :data:`PAGE_ICON` is the browser tab's icon.

:func:`leave_legacy_pages_mode` keeps Streamlit out of its legacy ``pages/``-folder mode."""

from __future__ import annotations

import functools
import os
from contextvars import ContextVar
from typing import Any, NoReturn

import streamlit as st
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, _has_active_trigger_value

_IN_APP: ContextVar[bool] = ContextVar("rag_eval_page_in_app", default=False)

#: The browser tab's icon: a magnifier drawn in SVG, in the theme's colour. An emoji (Streamlit draws
#: it as text in the browser's fonts) shows an empty box where no emoji font is installed, and a
#: ``:material/…:`` icon is fetched from fonts.gstatic.com; an SVG is sent in the page (a data URL).
PAGE_ICON = ('<svg viewBox="0 0 24 24"><circle cx="10" cy="10" r="6.5" fill="none" stroke="#4c78a8" '
             'stroke-width="3"/><path d="M15 15l6.5 6.5" stroke="#4c78a8" stroke-width="3.5" '
             'stroke-linecap="round"/></svg>')


class PageDone(Exception):
    """Raised by :func:`stop` inside :func:`run_page`, which catches it."""


def run_page(page: Any) -> None:
    """Run the page chosen by ``st.navigation``; a :func:`stop` in it ends only the page."""
    token = _IN_APP.set(True)
    try:
        page.run()
    except PageDone:
        pass
    finally:
        _IN_APP.reset(token)


def stop() -> NoReturn:
    """End the current page here; the rest of the app (the sidebar status) still renders. A page
    run on its own (not through app.py) stops like ``st.stop()``."""
    if _IN_APP.get():
        raise PageDone()
    st.stop()
    raise AssertionError("unreachable")  # st.stop() raises


@functools.lru_cache(maxsize=64)
def _real(path: str | None) -> str | None:
    return None if path is None else os.path.realpath(path)


def leave_legacy_pages_mode() -> None:
    """Rerun through app.py a page that Streamlit ran alone, in its legacy ``pages/``-folder mode.

    Streamlit decides at the start of each run whether the app uses the legacy ``pages/`` folder
    (our pages live there): yes until ``st.navigation`` has run once in the process. So the first
    runs after a start — a visitor's tab reconnecting to ``/evaluate`` after a restart or a Space
    wake-up, say — run ``pages/2_evaluate.py`` alone: app.py's ``st.navigation`` never runs, and
    without this every later run stayed a bare legacy page (no shared sidebar, no progress of
    background runs). Called on every session-state access (``ui.state``): in such a run it turns
    the legacy mode off and reruns the same page, through app.py. Cheap otherwise."""
    ctx = get_script_run_ctx()
    if ctx is None or ctx.pages_manager is None or ctx.script_requests is None:
        return
    pages = ctx.pages_manager.get_pages()
    # a legacy run registers the entry script itself as a page next to the pages/ files; app.py's
    # st.navigation registers only the pages (a page file run alone, as in tests, only itself)
    if len(pages) > 1 and any(_real(p.get("script_path")) == _real(ctx.main_script_path)
                              for p in pages.values()):
        PagesManager.uses_pages_directory = False
        ctx.script_requests.request_rerun(RerunData(
            query_string=ctx.query_string, page_script_hash=ctx.page_script_hash,
            replay_trigger_states=_fired_triggers(ctx), context_info=ctx.context_info))
        st.empty()  # Streamlit stops this run here and starts the requested one


def _fired_triggers(ctx: Any) -> WidgetStates | None:
    """The buttons (triggers) this run has seen pressed, for the rerun to see them too: a click
    on a bare legacy page is not lost. (Their callbacks have run: a replayed trigger skips them.)"""
    try:
        states = ctx.session_state._state.get_widget_states()
    except AttributeError:  # another Streamlit: the rerun just loses the click
        return None
    fired = [w for w in states if _has_active_trigger_value(w)]
    if not fired:
        return None
    out = WidgetStates()
    out.widgets.extend(fired)
    return out
