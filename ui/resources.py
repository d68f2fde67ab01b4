"""Process-wide resources, created lazily and once (``st.cache_resource``): the run history store
(old runs purged by the owner's retention setting when it opens, then hourly) and the one background job queue
of the server. Nothing here loads a model: the queue's worker loads it with the first chunk, once
per process, and every visitor's jobs share it."""

from __future__ import annotations

import streamlit as st

from evaluators.jobs import JobQueue
from evaluators.limits import Limits
from evaluators.paths import store_path
from evaluators.store import RunStore


def secrets():
    """Streamlit secrets as a mapping (None when the app has no secrets file)."""
    try:
        len(st.secrets)  # raises when the app has no secrets file
    except Exception:  # noqa: BLE001 - no secrets.toml is the normal case
        return None
    return st.secrets


def limits() -> Limits:
    """The owner's settings (environment / secrets), read on every call (cheap)."""
    return Limits.load(secrets=secrets())


@st.cache_resource(show_spinner=False)
def _store(path: str) -> RunStore:
    return RunStore(path)


def store() -> RunStore:
    """The run history (path from $RAG_EVAL_STORE or the user data dir), purged of runs older
    than the owner's retention setting when it opens and then hourly."""
    s = _store(str(store_path()))
    s.purge_if_due(limits().keep_days)
    return s


@st.cache_resource(show_spinner=False)
def _queue(path: str) -> JobQueue:
    return JobQueue(_store(path))


def queue() -> JobQueue:
    """The server's one job queue (one worker thread, shared by every session)."""
    return _queue(str(store_path()))
