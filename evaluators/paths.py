"""Where the library keeps its files: the one settings module every store and cache asks.

=====================  ==========================  ===============================================
file                   environment variable        default
=====================  ==========================  ===============================================
run history (SQLite)   ``RAG_EVAL_STORE``          ``runs.sqlite3`` in the user data dir
share-link secret      (follows the run history)   ``share_key`` beside the run history
embedding vectors      ``RAG_EVAL_EMBED_CACHE``    ``embeddings.sqlite3`` beside the run history
LLM replies            ``RAG_EVAL_LLM_CACHE``      ``llm_cache.sqlite3`` in the user cache dir
built ONNX encoders    ``RAG_EVAL_MODEL_CACHE``    ``onnx/`` in the user cache dir
results files to open  ``RAG_EVAL_RESULTS_DIR``    none: the dashboard opens uploaded results files
                                                   only (this folder's open at any size)
app runs' answers      (follows the run history)   ``app_runs/`` beside the run history: a "Run
                                                   your app" run's questions and answers until it
                                                   is evaluated (resumed after a restart)
=====================  ==========================  ===============================================

A cache variable set to one of :data:`OFF_VALUES` (``off``, ``0``, ...) turns that cache off
(the functions return None). Imports nothing of the project.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_STORE = "RAG_EVAL_STORE"
ENV_EMBED_CACHE = "RAG_EVAL_EMBED_CACHE"
ENV_LLM_CACHE = "RAG_EVAL_LLM_CACHE"
ENV_MODEL_CACHE = "RAG_EVAL_MODEL_CACHE"
ENV_RESULTS_DIR = "RAG_EVAL_RESULTS_DIR"
#: Set (to 1) by the container's start script when the run history is in a temporary directory.
ENV_STORE_TEMPORARY = "RAG_EVAL_STORE_TEMPORARY"
#: Values of a cache-path variable that turn the cache off.
OFF_VALUES = frozenset({"0", "off", "no", "false", "none", "disabled"})
#: platformdirs names of the run history / model cache, and of the LLM reply cache.
APP_NAME = "rag-eval-dashboard"
LLM_APP_NAME = "rag-evaluators"


def store_path() -> Path:
    """The run history's SQLite file: ``$RAG_EVAL_STORE``, else the user data dir's."""
    env = os.environ.get(ENV_STORE)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False)) / "runs.sqlite3"


def store_is_temporary() -> bool:
    """The run history lives in a temporary directory (a Space without persistent storage): it is
    lost when the server restarts, and the dashboard says so."""
    return os.environ.get(ENV_STORE_TEMPORARY, "").strip().lower() in {"1", "true", "yes", "on"}


def share_key_path() -> Path:
    """The secret that signs the dashboard's read-only links to one run (``share_key`` beside the run
    history: it lives and dies with the runs it opens)."""
    return store_path().parent / "share_key"


def app_runs_dir() -> Path:
    """Where the dashboard's "Run your app" keeps a run's questions and the cases files its app
    calls write, until they are evaluated (``app_runs/`` beside the run history: a restart resumes
    them, and they live and die with the runs they become)."""
    return store_path().parent / "app_runs"


def results_dir() -> Path | None:
    """A folder on the server whose results files (``evaluate --out``, the Ray engine) the dashboard
    lists and opens, whatever their size (``$RAG_EVAL_RESULTS_DIR``; None when not set)."""
    env = os.environ.get(ENV_RESULTS_DIR, "").strip()
    return Path(env).expanduser() if env else None


def embed_cache_path() -> Path | None:
    """The embedding cache's SQLite file: ``$RAG_EVAL_EMBED_CACHE`` (None when it says off, or is
    blank), else ``embeddings.sqlite3`` in the folder of the run history."""
    raw = os.environ.get(ENV_EMBED_CACHE)
    if raw is not None and raw.strip().lower() in OFF_VALUES | {""}:
        return None
    return Path(raw).expanduser() if raw else store_path().parent / "embeddings.sqlite3"


def llm_cache_path() -> Path | None:
    """The LLM reply cache's SQLite file: ``$RAG_EVAL_LLM_CACHE`` (None when it says off), else the
    user cache dir's ``llm_cache.sqlite3``."""
    env = os.environ.get(ENV_LLM_CACHE, "").strip()
    if env:
        return None if env.lower() in OFF_VALUES else Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(LLM_APP_NAME)) / "llm_cache.sqlite3"


def model_cache_dir() -> Path:
    """Where locally built ONNX encoders live: ``$RAG_EVAL_MODEL_CACHE``, else the user cache dir."""
    env = os.environ.get(ENV_MODEL_CACHE, "").strip()
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(APP_NAME, appauthor=False)) / "onnx"
