"""Process-wide resources, created lazily and once (``st.cache_resource``): the run history store
(old runs purged by the owner's retention setting when it opens, then hourly) and the one background job queue
of the server. Nothing here loads a model: the queue's worker loads it with the first chunk, once
per process, and every visitor's jobs share it."""

from __future__ import annotations

import os
from typing import Mapping, MutableMapping

import streamlit as st

from evaluators.jobs import JobQueue
from evaluators.limits import Limits
from evaluators.llm.settings import OWNER_BASE_URL_ENV
from evaluators.net import ENV_TYPED_URLS
from evaluators.paths import store_path
from evaluators.store import RunStore

#: Owner settings the library reads from the environment (the owner's LLM server, whether typed
#: addresses are allowed): set in Streamlit secrets only, they are mirrored into this process's
#: environment so the library's checks see the same setting as the dashboard. Never a key.
MIRRORED = (OWNER_BASE_URL_ENV, ENV_TYPED_URLS)


def mirror_owner_settings(found: Mapping[str, object] | None, environ: MutableMapping[str, str] = os.environ) -> None:
    """Copy :data:`MIRRORED` settings from ``found`` (secrets) into ``environ`` where it has none."""
    if found is None:
        return
    for name in MIRRORED:
        try:
            v = found.get(name)
        except Exception:  # noqa: BLE001 - a missing secrets.toml raises on access
            v = None
        if v is not None and str(v).strip() and not (environ.get(name) or "").strip():
            environ[name] = str(v).strip()


def secrets():
    """Streamlit secrets as a mapping (None when the app has no secrets file)."""
    try:
        len(st.secrets)  # raises when the app has no secrets file
    except Exception:  # noqa: BLE001 - no secrets.toml is the normal case
        return None
    mirror_owner_settings(st.secrets)
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
