"""Embedding vectors on disk, so a re-run only encodes new sentences.

Where: :func:`evaluators.paths.embed_cache_path` (``embeddings.sqlite3`` beside the run history,
or ``$RAG_EVAL_EMBED_CACHE``, a file path; ``off`` / ``0`` / empty-string-like values disable it). Rows are keyed by
(model tag = model id + backend/precision, SHA-256 of the text) and hold only the float32 vector:
no text, nothing secret. A size cap (``$RAG_EVAL_EMBED_CACHE_MB``, default 512 MB) evicts the
least recently used rows (last use kept to the hour: :data:`TOUCH_S`); :func:`clear` / ``python -m
evaluators cache clear`` empties it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import Sequence

import numpy as np

from ..paths import embed_cache_path

ENV_MB = "RAG_EVAL_EMBED_CACHE_MB"
DEFAULT_MAX_MB = 512
_ROW_OVERHEAD = 64  # bytes per row besides the vector (key, tag id, timestamp, index)
#: A row read again within this many seconds keeps its "last used" time: the LRU order is kept to the
#: hour, and a rerun does not rewrite every row it reads (0.24 s of CPU of a 7 s rerun of 817 cases).
TOUCH_S = 3600.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tags (id INTEGER PRIMARY KEY, tag TEXT UNIQUE NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (
    tag INTEGER NOT NULL, h BLOB NOT NULL, v BLOB NOT NULL, used REAL NOT NULL,
    PRIMARY KEY (tag, h)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used);
"""


def from_env() -> "EmbeddingCache | None":
    """The cache configured by the environment (None when disabled)."""
    path = embed_cache_path()
    if path is None:
        return None
    return EmbeddingCache(path, max_mb=float(os.environ.get(ENV_MB, DEFAULT_MAX_MB)))


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]


class EmbeddingCache:
    """(tag, text) -> float32 vector in SQLite, LRU-capped at ``max_mb``."""

    def __init__(self, path: str | Path, max_mb: float = DEFAULT_MAX_MB) -> None:
        self.path = Path(path)
        self.max_bytes = int(max_mb * 1024 * 1024)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._tags: dict[str, int] = {}
        with closing(self._connect()) as con, con:
            con.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=30)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        return con

    def _tag_id(self, con: sqlite3.Connection, tag: str) -> int:
        if tag not in self._tags:
            con.execute("INSERT OR IGNORE INTO tags (tag) VALUES (?)", (tag,))
            self._tags[tag] = int(con.execute("SELECT id FROM tags WHERE tag = ?", (tag,)).fetchone()[0])
        return self._tags[tag]

    def get(self, tag: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors of ``texts`` (missing ones are absent); marks them recently used."""
        if not texts:
            return {}
        keys = {text_key(t): t for t in texts}
        out: dict[str, np.ndarray] = {}
        with self._lock, closing(self._connect()) as con, con:
            tid = self._tag_id(con, tag)
            hs = list(keys)
            for i in range(0, len(hs), 500):
                part = hs[i:i + 500]
                rows = con.execute(f"SELECT h, v FROM vectors WHERE tag = ? AND h IN ({','.join('?' * len(part))})",
                                   [tid, *part]).fetchall()
                for h, v in rows:
                    out[keys[bytes(h)]] = np.frombuffer(v, dtype=np.float32).copy()
            if out:  # recently used: only rows last marked over TOUCH_S ago are written again
                now = time.time()
                found = [text_key(t) for t in out]
                for i in range(0, len(found), 500):
                    part = found[i:i + 500]
                    con.execute(f"UPDATE vectors SET used = ? WHERE tag = ? AND h IN ({','.join('?' * len(part))}) "
                                "AND used < ?", [now, tid, *part, now - TOUCH_S])
        return out

    def put(self, tag: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        if not len(texts):
            return
        now = time.time()
        vecs = np.asarray(vectors, dtype=np.float32)
        with self._lock, closing(self._connect()) as con, con:
            tid = self._tag_id(con, tag)
            con.executemany("INSERT OR REPLACE INTO vectors (tag, h, v, used) VALUES (?, ?, ?, ?)",
                            [(tid, text_key(t), vecs[i].tobytes(), now) for i, t in enumerate(texts)])
            self._evict(con, vecs.shape[1] * 4 + _ROW_OVERHEAD)

    def _evict(self, con: sqlite3.Connection, row_bytes: int) -> None:
        cap_rows = max(1, self.max_bytes // row_bytes)
        n = int(con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
        if n > cap_rows:  # drop the least recently used tenth beyond the cap at once
            drop = n - cap_rows + cap_rows // 10
            con.execute("DELETE FROM vectors WHERE (tag, h) IN "
                        "(SELECT tag, h FROM vectors ORDER BY used LIMIT ?)", (drop,))

    def stats(self) -> dict[str, object]:
        with closing(self._connect()) as con:
            n = int(con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
            per_tag = dict(con.execute("SELECT t.tag, COUNT(*) FROM vectors v JOIN tags t ON t.id = v.tag "
                                       "GROUP BY t.tag").fetchall())
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return {"path": str(self.path), "vectors": n, "by_model": per_tag, "bytes": size,
                "max_bytes": self.max_bytes}

    def clear(self) -> int:
        """Delete every vector; returns how many were removed."""
        with self._lock, closing(self._connect()) as con:
            with con:
                n = int(con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
                con.execute("DELETE FROM vectors")
                con.execute("DELETE FROM tags")
            con.execute("VACUUM")
        self._tags.clear()
        return n


def clear(path: str | Path | None = None) -> int:
    """Empty the disk cache (the configured one, or ``path``); returns the number of vectors removed."""
    cache = EmbeddingCache(path) if path else from_env()
    return cache.clear() if cache is not None else 0
