"""Process-wide resources, created lazily and once per run-history path: the run history store
(old runs purged by the owner's retention setting when it opens, then hourly) and the one background job queue
of the server. Nothing here loads a model: the queue's worker loads it with the first chunk, once
per process, and every visitor's jobs share it."""

from __future__ import annotations

import os
import threading
import time
from typing import Callable, Mapping, MutableMapping, TypeVar

import streamlit as st

from evaluators.jobs import JobQueue
from evaluators.limits import Limits
from evaluators.llm.settings import OWNER_BASE_URL_ENV
from evaluators.net import ENV_TYPED_PRIVATE_URLS, ENV_TYPED_URLS
from evaluators.paths import ENV_STORE, store_path
from evaluators.review import ReviewStore
from evaluators.store import RunStore, TestsetStore

#: Owner settings the library reads from the environment (the owner's LLM server, whether typed
#: addresses are allowed, and typed app addresses on private ranges): set in Streamlit secrets only,
#: they are mirrored into this process's environment so the library's checks see the same setting
#: as the dashboard. Never a key.
MIRRORED = (OWNER_BASE_URL_ENV, ENV_TYPED_URLS, ENV_TYPED_PRIVATE_URLS)


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


#: Seconds a missing secrets file is believed missing: Streamlit looks for the files (and parses
#: its config) again on every access while there is none — 7 % of the server's CPU under ten
#: visitors (docs/benchmarks.md, "An hour under load"); a file added later is seen within this time.
NO_SECRETS_RECHECK_S = 30.0
#: (the secrets object found without a file, until when); an AppTest run brings its own object.
_no_secrets: list = [None, 0.0]


def secrets():
    """Streamlit secrets as a mapping (None when the app has no secrets file)."""
    current = st.secrets
    if current is _no_secrets[0] and time.monotonic() < _no_secrets[1]:
        return None
    try:
        len(current)  # raises when the app has no secrets file
    except Exception:  # noqa: BLE001 - no secrets.toml is the normal case
        _no_secrets[:] = [current, time.monotonic() + NO_SECRETS_RECHECK_S]
        return None
    mirror_owner_settings(current)
    return current


def limits() -> Limits:
    """The owner's settings (environment / secrets), read on every call (cheap)."""
    return Limits.load(secrets=secrets())


T = TypeVar("T")
#: (kind, $RAG_EVAL_STORE as set) -> the store / the reviews / the queue. A plain dict, not ``st.cache_resource``:
#: that hashes its arguments on every call, 4 % of the server's time under ten visitors (page
#: scripts ask for the store and the queue several times each); here a lookup is one dict access.
_ONCE: dict[tuple[str, str | None], object] = {}
_ONCE_LOCK = threading.RLock()  # re-entrant: the queue is made with the store


def _once(kind: str, make: Callable[[str], T]) -> T:
    """The process's one ``kind`` for the run history named by the environment (made on first use,
    under a lock: two sessions starting together share one)."""
    key = (kind, os.environ.get(ENV_STORE))
    got = _ONCE.get(key)
    if got is None:
        with _ONCE_LOCK:
            got = _ONCE.get(key)
            if got is None:
                got = _ONCE[key] = make(str(store_path()))
    return got  # type: ignore[return-value]


def store() -> RunStore:
    """The run history (path from $RAG_EVAL_STORE or the user data dir), purged of runs older
    than the owner's retention setting when it opens and then hourly."""
    s = _once("store", RunStore)
    s.purge_if_due(limits().keep_days)
    return s


def testset_store() -> TestsetStore:
    """The visitors' saved test sets, kept beside the run history (in its SQLite file), purged with the runs."""
    s = _once("testsets", TestsetStore)
    _purge_testsets(s)
    return s


_TESTSETS_PURGED = [0.0]


def _purge_testsets(s: TestsetStore, every_s: float = 3600.0) -> None:
    now = time.monotonic()
    if now >= _TESTSETS_PURGED[0]:
        _TESTSETS_PURGED[0] = now + every_s
        s.purge(limits().keep_days)


def review_store() -> ReviewStore:
    """The reviewers' corrections and marks, kept beside the run history (in its SQLite file)."""
    return _once("reviews", lambda path: ReviewStore(_once("store", RunStore)))


def queue() -> JobQueue:
    """The server's one job queue (one scheduling thread, shared by every session; runs evaluated
    in it or in a worker process: ``RAG_EVAL_WORKER``)."""
    return _once("queue", lambda path: JobQueue(_once("store", RunStore)))
