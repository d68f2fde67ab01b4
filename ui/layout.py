"""Page flow: a page ends early with :func:`stop` (not ``st.stop()``), so app.py still draws what
comes after the page — the sidebar's dataset / run status, which must reflect what the page did
in the same run (an upload, say)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, NoReturn

import streamlit as st

_IN_APP: ContextVar[bool] = ContextVar("rag_eval_page_in_app", default=False)


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
