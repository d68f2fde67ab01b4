"""Saved test sets, kept beside the runs (table ``testsets`` of the history's SQLite file): a visitor's
test set survives a reload and a restart as their runs do, and other pages ("Run your app", Compare)
read its name from here.

    ts = TestsetStore()                                          # the history's file, or ``path``
    tid = ts.save("my-docs", rows, owner=token, documents=["faq.md", "guide.pdf"], generator="offline")
    ts.latest(owner=token)      # {"id", "name", "rows", "saved_at", "documents", "generator"} or None
    ts.list(owner=token)        # [TestsetSummary(id, name, saved_at, num_questions, documents, generator)]
    ts.name_of(tid, owner=token)                                 # "my-docs"

Contract: every read / rename / delete takes ``owner=`` explicitly, as the run store does (a token
sees only its own test sets; ``None`` means any owner). ``rows`` are the question file's rows exactly
as given (JSON). :func:`default_name` names a test set after its documents when nobody typed a name:
one document by its stem, two or three by their stems, more by the first and how many others.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import AbstractContextManager
from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePath
from typing import Any, Sequence

from pydantic import BaseModel, ConfigDict

from ..paths import store_path
from .pool import ConnectionPool
from .runs import owner_clause

_SCHEMA = """
CREATE TABLE IF NOT EXISTS testsets (
    id TEXT PRIMARY KEY,
    owner TEXT,
    name TEXT NOT NULL,
    saved_at TEXT NOT NULL,
    num_questions INTEGER NOT NULL,
    documents TEXT NOT NULL,
    generator TEXT NOT NULL,
    rows TEXT NOT NULL
)
"""
_INDEX = "CREATE INDEX IF NOT EXISTS testsets_owner ON testsets (owner, saved_at)"


class TestsetSummary(BaseModel):
    """One saved test set, without its rows."""

    __test__ = False
    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    saved_at: str
    num_questions: int
    documents: tuple[str, ...] = ()
    generator: str = ""


def default_name(documents: Sequence[str]) -> str:
    """A test set's name from its documents' names (``["faq.md"]`` -> ``"faq"``; three -> ``"a, b and c"``;
    more -> ``"a and 14 more"``)."""
    stems = [PurePath(str(d).replace("\\", "/")).stem or str(d) for d in documents]
    stems = list(dict.fromkeys(s for s in stems if s))
    if not stems:
        return "test set"
    if len(stems) == 1:
        return stems[0]
    if len(stems) <= 3:
        return ", ".join(stems[:-1]) + f" and {stems[-1]}"
    return f"{stems[0]} and {len(stems) - 1} more"


default_name.__test__ = False  # type: ignore[attr-defined]  # not a pytest test when imported as testset_name


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class TestsetStore:
    """Save, list, read, rename and delete test sets (thread-safe: a small connection pool)."""

    __test__ = False

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path).expanduser() if path else store_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._pool = ConnectionPool(self.path)
        with self._db() as con, con:
            con.execute(_SCHEMA)
            con.execute(_INDEX)

    def _db(self) -> AbstractContextManager[sqlite3.Connection]:
        return self._pool.connection()

    def save(self, name: str, rows: Sequence[dict[str, Any]], *, owner: str | None,
             documents: Sequence[str] = (), generator: str = "") -> str:
        """Keep a test set; returns its id."""
        tid = uuid.uuid4().hex[:12]
        name = " ".join(str(name).split()) or default_name(documents)
        with self._db() as con, con:
            con.execute("INSERT INTO testsets VALUES (?,?,?,?,?,?,?,?)",
                        (tid, owner, name, _now(), len(rows), json.dumps(list(documents)), generator,
                         json.dumps([dict(r) for r in rows], ensure_ascii=False)))
        return tid

    def list(self, *, owner: str | None) -> list[TestsetSummary]:
        """The test sets ``owner`` saved, newest first."""
        clause, args = owner_clause(owner)
        with self._db() as con:
            got = con.execute("SELECT id, name, saved_at, num_questions, documents, generator FROM testsets "
                              f"WHERE 1=1{clause} ORDER BY saved_at DESC, rowid DESC", args).fetchall()
        return [TestsetSummary(id=i, name=n, saved_at=s, num_questions=k, documents=tuple(json.loads(d)), generator=g)
                for i, n, s, k, d, g in got]

    def get(self, testset_id: str, *, owner: str | None) -> dict[str, Any]:
        """``{"id", "name", "rows", "saved_at", "documents", "generator"}``; KeyError when ``owner``
        has no such test set."""
        clause, args = owner_clause(owner)
        with self._db() as con:
            got = con.execute("SELECT id, name, saved_at, documents, generator, rows FROM testsets "
                              f"WHERE id = ?{clause}", (testset_id, *args)).fetchone()
        if got is None:
            raise KeyError(f"no test set with id {testset_id!r}")
        i, n, s, d, g, r = got
        return {"id": i, "name": n, "rows": json.loads(r), "saved_at": s, "documents": json.loads(d), "generator": g}

    def latest(self, *, owner: str | None) -> dict[str, Any] | None:
        """The test set ``owner`` saved last, or None."""
        got = self.list(owner=owner)
        return self.get(got[0].id, owner=owner) if got else None

    def name_of(self, testset_id: str, *, owner: str | None) -> str | None:
        """A test set's name (what Run your app and Compare call it), or None."""
        clause, args = owner_clause(owner)
        with self._db() as con:
            got = con.execute(f"SELECT name FROM testsets WHERE id = ?{clause}", (testset_id, *args)).fetchone()
        return got[0] if got else None

    def rename(self, testset_id: str, name: str, *, owner: str | None) -> bool:
        name = " ".join(str(name).split())
        if not name:
            return False
        clause, args = owner_clause(owner)
        with self._db() as con, con:
            cur = con.execute(f"UPDATE testsets SET name = ? WHERE id = ?{clause}", (name, testset_id, *args))
        return cur.rowcount > 0

    def delete(self, testset_id: str, *, owner: str | None) -> bool:
        clause, args = owner_clause(owner)
        with self._db() as con, con:
            cur = con.execute(f"DELETE FROM testsets WHERE id = ?{clause}", (testset_id, *args))
        return cur.rowcount > 0

    def purge(self, keep_days: float | None) -> int:
        """Delete test sets saved more than ``keep_days`` ago (None: keep all), as runs are."""
        if keep_days is None:
            return 0
        cutoff = (datetime.now(timezone.utc) - timedelta(days=keep_days)).isoformat(timespec="seconds")
        with self._db() as con, con:
            cur = con.execute("DELETE FROM testsets WHERE saved_at < ?", (cutoff,))
        return cur.rowcount
