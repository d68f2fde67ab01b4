"""Run history in SQLite: finished runs, and runs that are still going (written chunk by chunk).

``RunStore()`` keeps its database where :func:`evaluators.paths.store_path` says (the user data
directory, or ``$RAG_EVAL_STORE``), or at the ``path`` argument.

* Every run has an **owner** (a visitor's token in the dashboard; None for runs saved by library
  code). Every read / rename / delete takes ``owner=`` explicitly: a token sees only its own runs;
  ``owner=None`` means "any owner" (a server-wide shared history, the CLI, tests).
* A run written while it goes on (:meth:`start`, :meth:`add_chunk` per finished chunk,
  :meth:`finish`) has a **status**: ``running`` -> ``finished`` / ``cancelled``, or ``interrupted``
  when its worker stopped (server restart, crash, error) — then :meth:`pending` gives the cases
  still to evaluate and the run can be resumed; nothing finished is lost.
* A run is stored as ``RunResult.model_dump_json()`` (without computed fields). ``RunResult`` holds
  no API key (``LLMSettings.api_key`` is excluded from every dump), and a payload that still looks
  like it carries one is refused. Whether resuming needs a key typed by the user is kept as a flag,
  never the key.

Listing returns typed :class:`RunSummary` objects.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import uuid
from contextlib import closing
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field

from .paths import store_path
from .schema import load_run  # older stored runs are migrated to the current format
from .types import RunResult, TestCase, Usage

RunStatus = Literal["running", "finished", "cancelled", "interrupted"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    name TEXT,
    method TEXT NOT NULL,
    created_at TEXT NOT NULL,
    num_cases INTEGER NOT NULL,
    num_scored INTEGER NOT NULL,
    cancelled INTEGER NOT NULL,
    summary TEXT NOT NULL,
    payload TEXT NOT NULL
)
"""
#: Columns added after the first release (older databases get them by ALTER TABLE).
_COLUMNS = {"owner": "TEXT", "status": "TEXT", "num_done": "INTEGER", "updated_at": "TEXT",
            "inputs": "TEXT", "needs_key": "INTEGER", "error": "TEXT"}
_CHUNKS = """
CREATE TABLE IF NOT EXISTS run_chunks (
    run_id TEXT NOT NULL,
    first INTEGER NOT NULL,
    n INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, first)
)
"""
_LIST_COLS = ("id, name, method, created_at, num_cases, num_scored, cancelled, summary, status, "
              "num_done, updated_at, needs_key, error")

# A dumped key would appear as a JSON field named like one; RunResult never has such a field.
_KEY_FIELD = re.compile(r'"(api_key|apikey|secret|password)"\s*:\s*"[^"]+"', re.IGNORECASE)


class RunSummary(BaseModel):
    """One run of the history, without its cases (what lists and tables show)."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    method: str
    created_at: str
    updated_at: str = ""
    status: RunStatus = "finished"
    #: Cases the run was started with, and how many of them are evaluated so far.
    num_cases: int
    num_done: int
    num_scored: int
    num_errors: int = 0
    cancelled: bool = False
    means: dict[str, float | None] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    started_at: str = ""
    #: Why the run stopped early (interrupted, limit reached), if it did.
    error: str | None = None
    #: Resuming it needs an API key typed by the user again (the key itself is never stored).
    needs_key: bool = False

    @property
    def resumable(self) -> bool:
        return self.status == "interrupted" and self.num_done < self.num_cases

    @property
    def label(self) -> str:
        return f"{self.name} ({self.created_at[:16]})"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _check_no_key(payload: str) -> None:
    if _KEY_FIELD.search(payload):
        raise ValueError("refusing to store a run whose settings contain a secret")


def owner_clause(owner: str | None) -> tuple[str, tuple[Any, ...]]:
    """The SQL condition (and its argument) of an ``owner=`` read: none for None (every owner), else
    ``owner = ?`` (the review store scopes its tables the same way)."""
    return ("", ()) if owner is None else (" AND owner = ?", (owner,))


#: Tables of other stores in the same file whose rows belong to a run (column ``run_id``): deleted
#: with it (reviews: ``evaluators.review.store``). Tables not created yet are skipped.
DEPENDENT_TABLES = ("review_cases", "review_corrections")


def _delete_dependents(con: sqlite3.Connection, ids: Sequence[str]) -> None:
    have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in DEPENDENT_TABLES:
        if table in have:
            con.executemany(f"DELETE FROM {table} WHERE run_id = ?", [(i,) for i in ids])


class RunStore:
    """Save, list, load and delete runs. Thread-safe: one connection per call (WAL journal, so the
    background worker writes while pages read)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path).expanduser() if path else store_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as con, con:
            con.execute(_SCHEMA)
            con.execute(_CHUNKS)
            have = {row[1] for row in con.execute("PRAGMA table_info(runs)")}
            for col, kind in _COLUMNS.items():
                if col not in have:
                    con.execute(f"ALTER TABLE runs ADD COLUMN {col} {kind}")
        try:
            with closing(self._connect()) as con:
                con.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError:  # e.g. a file system without shared memory
            pass
        self._next_purge = 0.0

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    # ------------------------------------------------------------------ summaries
    @staticmethod
    def summary(run: RunResult) -> dict[str, Any]:
        return {
            "means": run.means(),
            "settings": run.settings,
            "started_at": run.started_at,
            "usage": run.usage.model_dump(),
            "timings": run.timings,
            "num_errors": len(run.errors),
        }

    @staticmethod
    def _row_summary(row: Sequence[Any]) -> RunSummary:
        (rid, name, method, created, n, ns, canc, summ, status, done, updated, needs_key, error) = row
        s = json.loads(summ or "{}")
        status = status or "finished"
        return RunSummary(
            id=rid, name=name or rid, method=method, created_at=created, updated_at=updated or created,
            status=status, num_cases=n, num_done=n if done is None else done, num_scored=ns,
            num_errors=int(s.get("num_errors", 0)), cancelled=bool(canc), means=s.get("means", {}),
            settings=s.get("settings", {}), usage=Usage(**s.get("usage", {})),
            started_at=s.get("started_at", ""), error=error, needs_key=bool(needs_key))

    # ------------------------------------------------------------------ finished runs in one go
    def save(self, run: RunResult, name: str | None = None, *, owner: str | None = None) -> str:
        """Store a finished run; returns its id. ``owner=None``: visible only to ``owner=None``
        readers (shared history, CLI)."""
        # computed fields (e.g. SentenceSupport.level) are derived; the frozen models forbid them
        # as inputs, so they are left out to keep RunResult.model_validate_json a round trip.
        payload = run.model_dump_json(exclude_computed_fields=True)
        _check_no_key(payload)
        run_id = uuid.uuid4().hex[:12]
        created = _now()
        with closing(self._connect()) as con, con:
            con.execute(
                "INSERT INTO runs (id, name, method, created_at, num_cases, num_scored, cancelled, "
                "summary, payload, owner, status, num_done, updated_at, needs_key) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,0)",
                (run_id, name or f"{run.method} {created}", run.method, created, len(run.results),
                 len(run.scored), int(run.cancelled), json.dumps(self.summary(run), default=str),
                 payload, owner, "cancelled" if run.cancelled else "finished", len(run.results),
                 created))
        return run_id

    # ------------------------------------------------------------------ runs written as they go
    def start(self, method: str, cases: Sequence[TestCase], *, name: str | None = None,
              settings: dict[str, Any] | None = None, owner: str | None = None,
              needs_key: bool = False) -> str:
        """Register a run that is about to be evaluated chunk by chunk (status ``running``).
        The cases are kept so that an interrupted run can be resumed."""
        settings = dict(settings or {})
        head = json.dumps({"means": {}, "settings": settings, "started_at": "", "usage": {},
                           "timings": {}, "num_errors": 0}, default=str)
        _check_no_key(head)
        inputs = json.dumps([c.model_dump(mode="json") for c in cases], default=str)
        run_id = uuid.uuid4().hex[:12]
        created = _now()
        with closing(self._connect()) as con, con:
            con.execute(
                "INSERT INTO runs (id, name, method, created_at, num_cases, num_scored, cancelled, "
                "summary, payload, owner, status, num_done, updated_at, inputs, needs_key) "
                "VALUES (?,?,?,?,?,0,0,?,'',?,'running',0,?,?,?)",
                (run_id, name or f"{method} {created}", method, created, len(cases), head, owner,
                 created, inputs, int(needs_key)))
        return run_id

    def add_chunk(self, run_id: str, first: int, part: RunResult) -> None:
        """Keep the results of one finished chunk (cases ``first`` .. ``first + len - 1`` of the
        run's input order) at once, so a crash later loses nothing."""
        payload = part.model_dump_json(exclude_computed_fields=True)
        _check_no_key(payload)
        with closing(self._connect()) as con, con:
            row = con.execute("SELECT summary, num_done, num_scored, status FROM runs WHERE id = ?",
                              (run_id,)).fetchone()
            if row is None:
                raise KeyError(f"no run with id {run_id!r} in {self.path}")
            s = json.loads(row[0] or "{}")
            s["usage"] = (Usage(**s.get("usage", {})) + part.usage).model_dump()
            timings = s.setdefault("timings", {})
            for k, v in part.timings.items():
                timings[k] = timings.get(k, 0.0) + float(v)
            s["num_errors"] = int(s.get("num_errors", 0)) + len(part.errors)
            s["started_at"] = s.get("started_at") or part.started_at
            con.execute("INSERT OR REPLACE INTO run_chunks VALUES (?,?,?,?)",
                        (run_id, first, len(part.results), payload))
            con.execute("UPDATE runs SET num_done = ?, num_scored = ?, summary = ?, updated_at = ?, "
                        "status = 'running', error = NULL WHERE id = ?",
                        ((row[1] or 0) + len(part.results), (row[2] or 0) + len(part.scored),
                         json.dumps(s, default=str), _now(), run_id))

    def finish(self, run_id: str, status: RunStatus = "finished", *, error: str | None = None,
               timings: dict[str, float] | None = None) -> RunResult | None:
        """End a run written chunk by chunk. ``finished`` / ``cancelled``: its chunks are joined into
        one stored run (returned). ``interrupted``: chunks and cases are kept for :meth:`pending`."""
        if status == "interrupted" or status == "running":
            with closing(self._connect()) as con, con:
                con.execute("UPDATE runs SET status = ?, error = ?, updated_at = ? WHERE id = ?",
                            (status, error, _now(), run_id))
            return None
        run = self.load(run_id, owner=None)
        run = run.model_copy(update={"cancelled": status == "cancelled",
                                     "timings": {**run.timings, **(timings or {})}})
        payload = run.model_dump_json(exclude_computed_fields=True)
        _check_no_key(payload)
        with closing(self._connect()) as con, con:
            con.execute("UPDATE runs SET status = ?, error = ?, cancelled = ?, payload = ?, summary = ?, "
                        "num_done = ?, num_scored = ?, updated_at = ?, inputs = NULL WHERE id = ?",
                        (status, error, int(run.cancelled), payload,
                         json.dumps(self.summary(run), default=str), len(run.results),
                         len(run.scored), _now(), run_id))
            con.execute("DELETE FROM run_chunks WHERE run_id = ?", (run_id,))
        return run

    def pending(self, run_id: str, *, owner: str | None) -> list[tuple[int, TestCase]]:
        """(input index, case) of every case of an unfinished run not evaluated yet, in order."""
        clause, args = owner_clause(owner)
        with closing(self._connect()) as con:
            row = con.execute(f"SELECT inputs FROM runs WHERE id = ?{clause}", (run_id, *args)).fetchone()
            chunks = con.execute("SELECT first, n FROM run_chunks WHERE run_id = ?", (run_id,)).fetchall()
        if row is None:
            raise KeyError(f"no run with id {run_id!r}")
        if not row[0]:
            return []
        done = {i for first, n in chunks for i in range(first, first + n)}
        cases = json.loads(row[0])
        return [(i, TestCase.model_validate(c)) for i, c in enumerate(cases) if i not in done]

    def mark_interrupted(self, reason: str = "the server stopped while this run was going on") -> list[str]:
        """Runs left ``running`` by a worker that no longer exists become ``interrupted``."""
        with closing(self._connect()) as con, con:
            ids = [r[0] for r in con.execute("SELECT id FROM runs WHERE status = 'running'")]
            con.execute("UPDATE runs SET status = 'interrupted', error = ? WHERE status = 'running'",
                        (reason,))
        return ids

    # ------------------------------------------------------------------ reading
    def list(self, *, owner: str | None, status: Iterable[RunStatus] | None = None) -> list[RunSummary]:
        """Newest first. ``owner``: a token (its runs only) or None (every run)."""
        clause, args = owner_clause(owner)
        if status is not None:
            st = tuple(status)
            clause += f" AND coalesce(status, 'finished') IN ({','.join('?' * len(st))})"
            args = (*args, *st)
        with closing(self._connect()) as con:
            rows = con.execute(f"SELECT {_LIST_COLS} FROM runs WHERE 1=1{clause} "
                               "ORDER BY created_at DESC, rowid DESC", args).fetchall()
        return [self._row_summary(r) for r in rows]

    def get(self, run_id: str, *, owner: str | None) -> RunSummary:
        clause, args = owner_clause(owner)
        with closing(self._connect()) as con:
            row = con.execute(f"SELECT {_LIST_COLS} FROM runs WHERE id = ?{clause}",
                              (run_id, *args)).fetchone()
        if row is None:
            raise KeyError(f"no run with id {run_id!r}")
        return self._row_summary(row)

    def load(self, run_id: str, *, owner: str | None) -> RunResult:
        """The run (a running / interrupted run: the cases finished so far). KeyError when it does
        not exist or belongs to another owner (the message never says which)."""
        clause, args = owner_clause(owner)
        with closing(self._connect()) as con:
            row = con.execute(f"SELECT payload, method, summary, status FROM runs WHERE id = ?{clause}",
                              (run_id, *args)).fetchone()
            parts = [] if row is None or row[0] else con.execute(
                "SELECT payload FROM run_chunks WHERE run_id = ? ORDER BY first", (run_id,)).fetchall()
        if row is None:
            raise KeyError(f"no run with id {run_id!r}")
        if row[0]:
            return load_run(row[0])
        s = json.loads(row[2] or "{}")
        run = RunResult.merge([load_run(p[0]) for p in parts], method=row[1],
                              settings=s.get("settings", {}), cancelled=row[3] == "cancelled")
        return run if parts else run.model_copy(update={"started_at": s.get("started_at", "")})

    # ------------------------------------------------------------------ housekeeping
    def rename(self, run_id: str, name: str, *, owner: str | None) -> bool:
        clause, args = owner_clause(owner)
        with closing(self._connect()) as con, con:
            cur = con.execute(f"UPDATE runs SET name = ? WHERE id = ?{clause}", (name, run_id, *args))
        return cur.rowcount > 0

    def delete(self, run_id: str, *, owner: str | None) -> bool:
        clause, args = owner_clause(owner)
        with closing(self._connect()) as con, con:
            cur = con.execute(f"DELETE FROM runs WHERE id = ?{clause}", (run_id, *args))
            if cur.rowcount:
                con.execute("DELETE FROM run_chunks WHERE run_id = ?", (run_id,))
                _delete_dependents(con, [run_id])
        return cur.rowcount > 0

    def purge(self, keep_days: float | None) -> int:
        """Delete runs (of every owner) not touched for more than ``keep_days`` days; running runs
        are kept. None or <= 0 keeps everything. Returns how many runs were deleted."""
        if not keep_days or keep_days <= 0:
            return 0
        cutoff = (datetime.now(timezone.utc) - timedelta(days=keep_days)).isoformat(timespec="seconds")
        with closing(self._connect()) as con, con:
            ids = [r[0] for r in con.execute(
                "SELECT id FROM runs WHERE coalesce(status, 'finished') != 'running' "
                "AND coalesce(updated_at, created_at) < ?", (cutoff,))]
            con.executemany("DELETE FROM runs WHERE id = ?", [(i,) for i in ids])
            con.executemany("DELETE FROM run_chunks WHERE run_id = ?", [(i,) for i in ids])
            _delete_dependents(con, ids)
        return len(ids)

    def purge_if_due(self, keep_days: float | None, every_s: float = 3600.0) -> int:
        """:meth:`purge`, at most once every ``every_s`` seconds (cheap to call on every page), so
        a server that runs for weeks still applies the retention setting."""
        now = time.monotonic()
        if now < self._next_purge:
            return 0
        self._next_purge = now + every_s
        return self.purge(keep_days)

    def __len__(self) -> int:
        with closing(self._connect()) as con:
            return int(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
