"""The one owner of session-state keys. Pages use these typed getters/setters and never touch
another page's raw keys.

What lives here (per browser session, never on disk): the visitor's history token (kept by the
browser in a cookie, never in the address), the loaded dataset and its cases, the test set in use
(``TESTSET_KEY``; saved test sets are kept in the history store, :func:`set_testset`), which background jobs
this session follows, which runs of the history this session opened (their ids: a run itself is read
from the store as pages need it, never held here), the selected case, and the LLM settings
(including the API key, which is only ever held in memory).

Below ``ui.history``: this module keeps ids and never reads a run, so it never imports the history;
the history reads the session's runs (``history.get_runs``, ``history.get_current_run``) by the ids
and the visitor's token kept here.
"""

from __future__ import annotations

import re
import secrets as _random
from dataclasses import dataclass
from typing import Any

import streamlit as st
from pydantic import SecretStr

from evaluators.llm.settings import (
    DEFAULT_MODELS, PROVIDERS, Credentials, LLMSettings, key_help, resolve_credentials,
)
from evaluators.types import TestCase

from . import cookies, layout, resources

# Raw keys: private to this module.
_DATA = "state.data"
_OWNER = "state.owner"
_WATCHED = "state.watched_jobs"
_FILED = "state.filed_jobs"
_STARTED = "state.started_jobs"
_RUNS = "state.runs"
_CURRENT = "state.current_run"
_CASE = "state.case_id"
_NOTICE = "state.notice"
_SAVED = "state.saved_ids"
#: The run the page of this script run shows (its label and counts), for the sidebar's "Current run".
_ON_SCREEN = "state.on_screen"
#: label -> share token of the runs opened in this session by a share link (read-only, not the
#: visitor's: never in their history, never in ``saved_ids``)
_SHARED = "state.shared"
_MEMO = "state.memo"
_SIDEBAR_KEPT = "state.sidebar_kept"
#: The test set in use: ``{"id", "name", "rows", "saved_at", "documents"}`` with ``rows`` the question
#: file's rows (id, question, ground_truth, reference_contexts, reference_context_ids, history,
#: metadata). The one session key other pages ("Run your app") read it by: :func:`get_testset`.
TESTSET_KEY = "state.testset"
#: Compare's "Which version is better?" asked to open on these runs (baseline id, candidate ids).
_COMPARE_ASK = "state.compare_ask"

# Widget keys of the shared sidebar (app.py renders them on every page, so they persist).
PROVIDER = "sidebar.provider"
MODEL = "sidebar.model"
BASE_URL = "sidebar.base_url"
API_KEY = "sidebar.api_key"
SIDEBAR_KEYS = (PROVIDER, MODEL, BASE_URL, API_KEY)


@dataclass
class LoadedData:
    """An uploaded (or sample) table, the column mapping in use and the cases it gave."""

    filename: str
    df: Any  # pandas.DataFrame
    mapping: Any  # evaluators.datasets.ColumnMapping
    cases: tuple[TestCase, ...] = ()
    errors: tuple[Any, ...] = ()  # DatasetError (str() names file/row/column)
    warnings: tuple[Any, ...] = ()  # DatasetError: rows kept after a fix-up (a renamed id)
    label_columns: tuple[str, ...] = ()
    #: Identity of the source (uploaded file id or sample name): re-read only when it changes.
    source_id: str = ""
    #: For a trace file: the traces read (evaluators.traces.TraceRead); ``df`` is then None.
    traces: Any = None


def _ss() -> Any:
    layout.leave_legacy_pages_mode()  # a page run alone after a restart: rerun it through app.py
    return st.session_state


# ---- dataset ----------------------------------------------------------------------------------
def get_data() -> LoadedData | None:
    return _ss().get(_DATA)


def set_data(data: LoadedData | None) -> None:
    _ss()[_DATA] = data


def get_cases() -> tuple[TestCase, ...]:
    d = get_data()
    return d.cases if d else ()


# ---- the visitor's history token --------------------------------------------------------------
#: The token is kept by the browser in a first-party cookie, so a reload, a page switch or a new tab
#: keeps the same private history — and never in the address: a link a visitor copies (or a page
#: address shared with a colleague) carries no history. One run is shared on purpose with a
#: signed, read-only link (``ui/share.py``). ``?u=`` (the address parameter older versions kept
#: it in) is ignored and taken out of the address.
LEGACY_URL_PARAM = "u"
COOKIE = "rag_eval_u"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def owner_token() -> str:
    """This visitor's history token: from the cookie, else a new random one."""
    tok = _ss().get(_OWNER)
    if tok is None:
        found = cookies.get(COOKIE)
        tok = found if found and _TOKEN.fullmatch(found) else _random.token_urlsafe(18)
        _ss()[_OWNER] = tok
    return tok


def drop_token_from_url() -> None:
    """Take a ``?u=`` of an old link out of the address (it no longer opens a history)."""
    if LEGACY_URL_PARAM in st.query_params:
        del st.query_params[LEGACY_URL_PARAM]


def send_owner_cookie() -> None:
    """Ask the browser to keep the token in a cookie — on every run until the cookie the browser
    connected with holds it. (Sending it once a session lost it when that first run was cut short
    before its elements reached the browser, e.g. by a quick click on the first page: a new tab
    then started another, empty history.) Drawn first in the sidebar, before the page's work."""
    tok = owner_token()
    if cookies.get(COOKIE) != tok:
        cookies.put(COOKIE, tok)


# ---- background jobs this session follows --------------------------------------------------------
def watch_job(job_id: str, started_here: bool = False) -> None:
    """Follow a job of this visitor (its end is announced, and its run filed, in this session)."""
    _ss().setdefault(_WATCHED, set()).add(job_id)
    if started_here:  # (a resumed run keeps its id: its new end is announced again)
        _ss().setdefault(_STARTED, set()).add(job_id)
        _ss().setdefault(_FILED, set()).discard(job_id)


def watched_jobs() -> set[str]:
    return _ss().setdefault(_WATCHED, set())


def started_here(job_id: str) -> bool:
    return job_id in _ss().setdefault(_STARTED, set())


def is_filed(job_id: str) -> bool:
    return job_id in _ss().setdefault(_FILED, set())


def mark_filed(job_id: str) -> bool:
    """True the first time: the job's outcome is announced once per session."""
    filed = _ss().setdefault(_FILED, set())
    if job_id in filed:
        return False
    filed.add(job_id)
    return True


# ---- runs of this session (ids of the run history; the runs are read from the store) ------------
def _ids() -> dict[str, str]:
    """Label -> history id of the runs this session opened (a run put here whole, e.g. by a test or
    an older session, is saved to the visitor's history once and replaced by its id)."""
    runs = _ss().setdefault(_RUNS, {})
    loose = [label for label, v in runs.items() if not isinstance(v, str)]
    if loose:
        saved = _ss().setdefault(_SAVED, {})
        for label in loose:
            v = runs[label]
            rid = saved.get(label) or getattr(v, "id", None)
            if rid is None:
                rid = resources.store().save(v, label, owner=owner_token())
            runs[label] = saved[label] = rid
    return runs


def run_ids() -> dict[str, str]:
    """Label -> history id of every run this session opened (insertion order = age), shared runs
    included; ``ui.history.get_runs`` reads the runs themselves."""
    return dict(_ids())


def _unique(label: str, taken: dict[str, str]) -> str:
    """``label``, or ``label (2)``, ``label (3)`` … the first not in ``taken``."""
    base, i = label, 2
    while label in taken:
        label = f"{base} ({i})"
        i += 1
    return label


def add_run(label: str, run: Any, store_id: str | None = None) -> str:
    """Open a run in this session (and make it current): a run of the history (``store_id``, or a
    ``StoredRun``), or a ``RunResult`` not stored yet (saved to the visitor's history now). Only its
    id is kept. Returns its unique label."""
    runs = _ids()
    rid = store_id or getattr(run, "id", None)
    if rid is None:
        rid = resources.store().save(run, label, owner=owner_token())
    for existing, other in runs.items():
        if other == rid:  # already open: make it current
            _ss()[_CURRENT] = existing
            return existing
    label = _unique(label, runs)
    runs[label] = rid
    _ss()[_CURRENT] = label
    _ss().setdefault(_SAVED, {})[label] = rid
    return label


def add_shared_run(label: str, run_id: str, token: str) -> str:
    """Open a run another visitor shared (``ui/share.py`` checked its signed ``token``), read-only:
    it is kept by id for this session only, and never joins this visitor's history."""
    runs, shared = _ids(), _ss().setdefault(_SHARED, {})
    for existing, other in runs.items():
        if other == run_id and existing in shared:
            _ss()[_CURRENT] = existing
            return existing
    label = _unique(label, runs)
    runs[label], shared[label] = run_id, token
    _ss()[_CURRENT] = label
    return label


def relabel(run_id: str, label: str) -> str | None:
    """A run of this session was renamed: its label becomes ``label`` (made unique), keeping its place
    and whether it is current; returns the new label (None when the session has not opened it)."""
    runs = _ids()
    old = next((lbl for lbl, rid in runs.items() if rid == run_id), None)
    if old is None or old == label:
        return old
    new = _unique(label, {k: v for k, v in runs.items() if k != old})
    ss = _ss()
    ss[_RUNS] = {(new if k == old else k): v for k, v in runs.items()}
    saved = ss.setdefault(_SAVED, {})
    if old in saved:
        saved[new] = saved.pop(old)
    shared = ss.setdefault(_SHARED, {})
    if old in shared:
        shared[new] = shared.pop(old)
    if ss.get(_CURRENT) == old:
        ss[_CURRENT] = new
    return new


def shared_runs() -> dict[str, str]:
    """Label -> share token of the runs shared with this session."""
    return _ss().setdefault(_SHARED, {})


def saved_ids() -> dict[str, str]:
    """Session run label -> its id in the run history."""
    _ids()
    return _ss().setdefault(_SAVED, {})


def current_run_label() -> str | None:
    label = _ss().get(_CURRENT)
    return label if label in _ids() else None


def set_current_run(label: str) -> None:
    if label in _ids():
        _ss()[_CURRENT] = label


def show_on_screen(label: str, scored: int, done: int, note: str = "") -> None:
    """The page shows this run (``note``: "running 3/16"): the sidebar's "Current run" names it."""
    _ss()[_ON_SCREEN] = (label, scored, done, note)


def on_screen() -> tuple[str, int, int, str] | None:
    """The run the page of this script run said it shows (None: it named none)."""
    return _ss().get(_ON_SCREEN)


def clear_on_screen() -> None:
    """A new script run: no page has said yet which run it shows."""
    _ss().pop(_ON_SCREEN, None)


# ---- selected case ----------------------------------------------------------------------------
def get_case_id() -> str | None:
    return _ss().get(_CASE)


def set_case_id(case_id: str | None) -> None:
    _ss()[_CASE] = case_id


# ---- one-shot notices (shown once on the next page render) -------------------------------------
def push_notice(text: str) -> None:
    _ss()[_NOTICE] = text


def pop_notice() -> str | None:
    return _ss().pop(_NOTICE, None)


# ---- LLM settings ------------------------------------------------------------------------------
def restore_sidebar() -> None:
    """Put back the sidebar's values a page switch made by the server dropped.

    ``st.switch_page`` (a finished run opening Results, Compare's "Open") starts the new page with
    no widget states from the browser, and Streamlit then forgets every widget value — the model,
    provider, base URL and typed key the visitor set. A copy kept under a plain (non-widget) key
    survives; called before the sidebar's widgets are drawn."""
    ss = _ss()
    for k, v in (ss.get(_SIDEBAR_KEPT) or {}).items():
        if k not in ss:
            ss[k] = v


def keep_sidebar() -> None:
    """Remember the sidebar's current values (after its widgets are drawn); memory only."""
    ss = _ss()
    ss[_SIDEBAR_KEPT] = {k: ss[k] for k in SIDEBAR_KEYS if k in ss}


def llm_choice() -> dict[str, Any]:
    ss = _ss()
    provider = ss.get(PROVIDER) or PROVIDERS[0]
    return {"provider": provider, "model": ss.get(MODEL) or DEFAULT_MODELS[provider],
            "base_url": (ss.get(BASE_URL) or "").strip() or None}


def typed_key() -> str | None:
    """The API key typed in the sidebar in this session (memory only), if any."""
    return (_ss().get(API_KEY) or "").strip() or None


def credentials() -> Credentials:
    """Which key goes where for the sidebar's choice, by the library's one rule: the owner's key
    (environment / secrets) never goes to a base URL typed in this session."""
    choice = llm_choice()
    return resolve_credentials(choice["provider"], choice["base_url"], _ss().get(API_KEY),
                               secrets=resources.secrets())


def llm_settings() -> tuple[LLMSettings | None, str]:
    """The configured LLM (None when it cannot make calls) and a one-line status for the UI."""
    choice = llm_choice()
    creds = credentials()
    if creds.base_url is None and choice["provider"] == "openai_compatible":
        return None, "An OpenAI-compatible provider needs a base URL (sidebar)."
    if not creds.key and creds.url_source != "typed" and choice["provider"] != "openai_compatible":
        return None, f"No API key for {choice['provider']}: {key_help(choice['provider'])} (environment or Streamlit secrets)."
    settings = LLMSettings(provider=choice["provider"], model=choice["model"], base_url=creds.base_url,
                           api_key=SecretStr(creds.key) if creds.key else None)
    return settings, f"{choice['provider']} · {choice['model']} · {creds.describe()}"


# ---- the saved test set -----------------------------------------------------------------------------
def get_testset() -> dict[str, Any] | None:
    """The test set this visitor uses (``TESTSET_KEY``): the one saved or picked in this session, else
    the one they saved last (kept in the history store beside their runs, so it survives a reload):
    ``{"id", "name", "rows", "saved_at", "documents"}``, or None."""
    got = _ss().get(TESTSET_KEY)
    if got is None:
        try:
            got = resources.testset_store().latest(owner=owner_token())
        except Exception:  # noqa: BLE001 - no history store (a read-only disk): the session's alone
            got = None
        if got is not None:
            _ss()[TESTSET_KEY] = got
    return got


def set_testset(name: str, rows: list[dict[str, Any]], documents: list[str] | None = None,
                generator: str = "") -> dict[str, Any]:
    """Save a test set to the visitor's history (and make it this session's); returns it."""
    from datetime import datetime, timezone

    saved: dict[str, Any] = {"name": name, "rows": [dict(r) for r in rows], "documents": list(documents or []),
                             "saved_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    try:
        store = resources.testset_store()
        saved["id"] = store.save(name, rows, owner=owner_token(), documents=documents or [], generator=generator)
        saved = store.get(saved["id"], owner=owner_token())
    except Exception:  # noqa: BLE001 - kept in the session at least
        pass
    _ss()[TESTSET_KEY] = saved
    return saved


def use_testset(saved: dict[str, Any] | None) -> None:
    """Make a saved test set (``TestsetStore.get``) this session's, or forget the session's (None)."""
    if saved is None:
        _ss().pop(TESTSET_KEY, None)
    else:
        _ss()[TESTSET_KEY] = saved


# ---- a comparison another page asks Compare to open -----------------------------------------------
def ask_comparison(baseline_id: str, candidate_ids: list[str]) -> None:
    """Have Compare open "Which version is better?" on these runs of the history (read once)."""
    _ss()[_COMPARE_ASK] = (baseline_id, list(candidate_ids))


def take_comparison() -> tuple[str, list[str]] | None:
    """The comparison asked for, once (None: none)."""
    return _ss().pop(_COMPARE_ASK, None)


# ---- per-session memo for derived views (tables, intervals) of immutable runs --------------------
def memo(key: tuple, fn: Any, max_items: int = 16) -> Any:
    """``fn()`` computed once per key in this session (runs are immutable, so keys never go stale).
    Each kind of value (the key's first item) keeps its own ``max_items`` most recent entries: a
    kind kept small (whole runs) never evicts the others."""
    kinds: dict = _ss().setdefault(_MEMO, {})
    cache: dict = kinds.setdefault(key[0] if key else None, {})
    if key in cache:
        cache[key] = cache.pop(key)  # most recently used last
    else:
        while len(cache) >= max_items:
            cache.pop(next(iter(cache)))
        cache[key] = fn()
    return cache[key]
