"""Persistent reply cache (SQLite, WAL mode), shared by every LLM client.

Key = SHA-256 of provider, model, base URL, the full messages, the call parameters and a
caller-supplied salt (prompt version, sample index). The API key is never part of the key nor of
any stored value: only reply text and a few notes are stored. Every write commits at once, so an
interrupted run resumes where it stopped and a rerun of the same file makes zero calls.

Where: ``settings.cache_path`` when given ("" = off); otherwise ``$RAG_EVAL_LLM_CACHE`` (a file
path; ``off`` / ``0`` / ... disable it), else ``llm_cache.sqlite3`` under the user cache dir.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..paths import llm_cache_path


def make_key(**parts: Any) -> str:
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ReplyCache:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False,
                                     isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA busy_timeout=30000")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, kind TEXT NOT NULL, "
            "model TEXT NOT NULL, value TEXT NOT NULL, meta TEXT NOT NULL, created REAL NOT NULL)"
        )

    def get(self, key: str) -> tuple[str, dict[str, Any]] | None:
        with self._lock:
            row = self._conn.execute("SELECT value, meta FROM replies WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        return row[0], json.loads(row[1])

    def contains(self, key: str) -> bool:
        with self._lock:
            return self._conn.execute("SELECT 1 FROM replies WHERE key=?", (key,)).fetchone() is not None

    def put(self, key: str, kind: str, model: str, value: str, meta: dict[str, Any] | None = None) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO replies (key, kind, model, value, meta, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key, kind, model, value, json.dumps(meta or {}, ensure_ascii=False), time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def clear(self) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM replies")

    def close(self) -> None:
        with self._lock:
            self._conn.close()


_open: dict[str, ReplyCache] = {}
_open_lock = threading.Lock()


def open_cache(path: str | Path | None) -> ReplyCache | None:
    """The shared ReplyCache of ``path`` (None = default location, "" = caching disabled)."""
    if path is not None and str(path) == "":
        return None
    p = Path(path).expanduser() if path is not None else llm_cache_path()
    if p is None:
        return None
    k = str(p.resolve())
    with _open_lock:
        if k not in _open:
            _open[k] = ReplyCache(p)
        return _open[k]


def schema_fingerprint(schema: type[BaseModel]) -> str:
    """A short hash of a reply schema (part of a structured call's cache key)."""
    try:
        blob = json.dumps(schema.model_json_schema(), sort_keys=True)
    except Exception:  # noqa: BLE001 - schemas with exotic types
        blob = f"{schema.__module__}.{schema.__qualname__}"
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
