"""Process-wide resources, created lazily and once (``st.cache_resource``): the labeling model
warm-up and the run-history store. Nothing here runs before a page asks for it, so the first page
renders before any model loads."""

from __future__ import annotations

import streamlit as st

from evaluators.store import RunStore, default_path


@st.cache_resource(show_spinner="Loading the labeling model (first run only)…")
def warm_up(method: str) -> bool:
    """Build the method once per process and let it load its models (``Method.warm_up``)."""
    from evaluators.methods import get_method

    get_method(method).build().warm_up()
    return True


@st.cache_resource
def _store(path: str) -> RunStore:
    return RunStore(path)


def store() -> RunStore:
    """The run history (path from $RAG_EVAL_STORE or the user data dir)."""
    return _store(str(default_path()))
