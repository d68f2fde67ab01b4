"""The one owner of session-state keys. Pages use these typed getters/setters and never touch
another page's raw keys.

What lives here (per browser session, never on disk): the loaded dataset and its cases, the
running evaluation job, finished runs of this session, the selected case, and the LLM settings
(including the API key, which is only ever held in memory).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from evaluators.llm.settings import (
    DEFAULT_MODELS, PROVIDERS, Credentials, LLMSettings, key_help, resolve_credentials,
)
from evaluators.options import EvalOptions
from evaluators.types import RunResult, TestCase

# Raw keys: private to this module.
_DATA = "state.data"
_JOB = "state.job"
_RUNS = "state.runs"
_CURRENT = "state.current_run"
_CASE = "state.case_id"
_NOTICE = "state.notice"
_SAVED = "state.saved_ids"
_MEMO = "state.memo"

# Widget keys of the shared sidebar (app.py renders them on every page, so they persist).
PROVIDER = "sidebar.provider"
MODEL = "sidebar.model"
BASE_URL = "sidebar.base_url"
API_KEY = "sidebar.api_key"



@dataclass
class LoadedData:
    """An uploaded (or sample) table, the column mapping in use and the cases it gave."""

    filename: str
    df: Any  # pandas.DataFrame
    mapping: Any  # evaluators.datasets.ColumnMapping
    cases: tuple[TestCase, ...] = ()
    errors: tuple[Any, ...] = ()  # DatasetError (str() names file/row/column)
    label_columns: tuple[str, ...] = ()
    #: Identity of the source (uploaded file id or sample name): re-read only when it changes.
    source_id: str = ""


@dataclass
class Job:
    """An evaluation in progress: run chunk by chunk across reruns so Cancel keeps what finished."""

    cases: tuple[TestCase, ...]
    method: str
    options: EvalOptions
    name: str = ""
    chunk_size: int = 25
    #: One RunResult per finished chunk (merged into one run at the end).
    partial_runs: list[RunResult] = field(default_factory=list)
    started: float = field(default_factory=time.time)

    @property
    def done(self) -> int:
        return sum(len(r.results) for r in self.partial_runs)

    @property
    def total(self) -> int:
        return len(self.cases)

    def next_slice(self) -> tuple[TestCase, ...]:
        return self.cases[self.done : self.done + self.chunk_size]


def _ss() -> Any:
    return st.session_state


# ---- dataset ----------------------------------------------------------------------------------
def get_data() -> LoadedData | None:
    return _ss().get(_DATA)


def set_data(data: LoadedData | None) -> None:
    _ss()[_DATA] = data


def get_cases() -> tuple[TestCase, ...]:
    d = get_data()
    return d.cases if d else ()


# ---- job --------------------------------------------------------------------------------------
def get_job() -> Job | None:
    return _ss().get(_JOB)


def set_job(job: Job | None) -> None:
    _ss()[_JOB] = job


# ---- runs of this session ---------------------------------------------------------------------
def get_runs() -> dict[str, RunResult]:
    """Finished runs of this session by label (insertion order = age)."""
    return _ss().setdefault(_RUNS, {})


def add_run(label: str, run: RunResult, store_id: str | None = None) -> str:
    """Keep a finished run in the session (and make it current). Returns its unique label."""
    runs = get_runs()
    base, i = label, 2
    while label in runs:
        label = f"{base} ({i})"
        i += 1
    runs[label] = run
    _ss()[_CURRENT] = label
    if store_id:
        _ss().setdefault(_SAVED, {})[label] = store_id
    return label


def saved_ids() -> dict[str, str]:
    """Session run label -> its id in the run history."""
    return _ss().setdefault(_SAVED, {})


def current_run_label() -> str | None:
    label = _ss().get(_CURRENT)
    return label if label in get_runs() else None


def set_current_run(label: str) -> None:
    if label in get_runs():
        _ss()[_CURRENT] = label


def get_current_run() -> RunResult | None:
    label = current_run_label()
    return get_runs()[label] if label else None


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
def _secrets() -> Any:
    """Streamlit secrets as a mapping (None when the app has no secrets file)."""
    try:
        len(st.secrets)  # raises when the app has no secrets file
    except Exception:  # noqa: BLE001 - no secrets.toml is the normal case
        return None
    return st.secrets


def llm_choice() -> dict[str, Any]:
    ss = _ss()
    provider = ss.get(PROVIDER) or PROVIDERS[0]
    return {"provider": provider, "model": ss.get(MODEL) or DEFAULT_MODELS[provider],
            "base_url": (ss.get(BASE_URL) or "").strip() or None}


def credentials() -> Credentials:
    """Which key goes where for the sidebar's choice, by the library's one rule: the owner's key
    (environment / secrets) never goes to a base URL typed in this session."""
    choice = llm_choice()
    return resolve_credentials(choice["provider"], choice["base_url"], _ss().get(API_KEY),
                               secrets=_secrets())


def llm_settings() -> tuple[LLMSettings | None, str]:
    """The configured LLM (None when it cannot make calls) and a one-line status for the UI."""
    choice = llm_choice()
    creds = credentials()
    if creds.base_url is None and choice["provider"] == "openai_compatible":
        return None, "An OpenAI-compatible provider needs a base URL (sidebar)."
    if not creds.key and creds.url_source != "typed" and choice["provider"] != "openai_compatible":
        return None, f"No API key for {choice['provider']}: {key_help(choice['provider'])} (environment or Streamlit secrets)."
    settings = LLMSettings(provider=choice["provider"], model=choice["model"], base_url=creds.base_url,
                           api_key=creds.key)
    return settings, f"{choice['provider']} · {choice['model']} · {creds.describe()}"


# ---- per-session memo for derived views (tables, intervals) of immutable runs --------------------
def memo(key: tuple, fn: Any, max_items: int = 16) -> Any:
    """``fn()`` computed once per key in this session (runs are immutable, so keys never go stale)."""
    cache: dict = _ss().setdefault(_MEMO, {})
    if key not in cache:
        while len(cache) >= max_items:
            cache.pop(next(iter(cache)))
        cache[key] = fn()
    return cache[key]
