"""Process-wide resources, created lazily and once (``st.cache_resource``): the labeling model
warm-up and the run-history store. Nothing here runs before a page asks for it, so the first page
renders before any model loads."""

from __future__ import annotations

import streamlit as st

from evaluators.store import RunStore, default_path


@st.cache_resource(show_spinner="Loading the labeling model (first run only)…")
def warm_up(method: str) -> bool:
    """Build the method once per process (loads the embedded model for ``trace``/``hybrid``)."""
    from evaluators.methods import get_method

    get_method(method).build()
    if method in ("trace", "hybrid"):
        try:
            from evaluators import embeddings
        except ImportError:
            return False
        get_model = getattr(embeddings, "get_model", None)
        if callable(get_model):
            get_model()
    return True


@st.cache_resource
def _store(path: str) -> RunStore:
    return RunStore(path)


def store() -> RunStore:
    """The run history (path from $RAG_EVAL_STORE or the user data dir)."""
    return _store(str(default_path()))
