"""Run history in SQLite: finished runs, and runs that are still going (written as their cases finish).

``RunStore()`` keeps its database where :func:`evaluators.paths.store_path` says (the user data
directory, or ``$RAG_EVAL_STORE``), or at the ``path`` argument.

* Every run has an **owner** (a visitor's token in the dashboard; None for runs saved by library
  code). Every read / rename / delete takes ``owner=`` explicitly: a token sees only its own runs;
  ``owner=None`` means "any owner" (a server-wide shared history, the CLI, tests).
* A run written while it goes on (:meth:`start` with its input cases, :meth:`add_results` /
  :meth:`add_chunk` per finished chunk, :meth:`finish`) has a **status**: ``running`` ->
  ``finished`` / ``cancelled``, or ``interrupted`` when its worker stopped (server restart, crash,
  error) — then :meth:`pending` / :meth:`next_pending` give the cases still to evaluate and the run
  can be resumed; nothing finished is lost.
* **Layout** (table ``run_cases``, one row per case): a compact row for tables and aggregates, an
  aux row for the review queue and gold matching, the compressed ``CaseResult`` (:mod:`.rows`). Pages
  read the rows they show and the one case they open (:meth:`case`, :meth:`rows`, :meth:`iter_cases`,
  :class:`~.view.StoredRun`), never the whole run; the summary (means and 95 % intervals, from the
  per-case values: ``evaluators.tally``) is computed once, when the run ends. The input cases of a
  run going on are rows of ``run_inputs`` (deleted as they finish). A run of the first layout (one
  JSON payload per run, or ``run_chunks`` and an ``inputs`` list while it went on) is moved to this
  one the first time it is read (``layout.adopt``); its format version is migrated as ever
  (``evaluators.schema``).
* ``RunResult`` holds no API key (``LLMSettings.api_key`` is excluded from every dump), and a payload
  that still looks like it carries one is refused. Whether resuming needs a key typed by the user is
  kept as a flag, never the key.

Listing returns typed :class:`RunSummary` objects.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import uuid
from contextlib import AbstractContextManager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Literal, Sequence, cast

from pydantic import BaseModel, ConfigDict, Field

from ..paths import store_path
from ..tally import RunTally
from ..types import SCHEMA_VERSION, CaseResult, RunResult, TestCase, Usage
from . import layout
from . import rows as row_codec
from .layout import LAYOUT
from .pool import ConnectionPool
from .reads import CaseReads

RunStatus = Literal["running", "finished", "cancelled", "interrupted"]

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
    #: 95 % interval of every mean ({metric: {mean, low, high, n, method[, note]}}), once the run ended.
    intervals: dict[str, Any] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    timings: dict[str, float] = Field(default_factory=dict)
    started_at: str = ""
    warnings: tuple[str, ...] = ()
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

    @property
    def ended(self) -> bool:
        return self.status in ("finished", "cancelled")


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
#: This store's own per-run tables (deleted with their run).
_OWN_TABLES = ("run_chunks", "run_cases", "run_inputs", "run_tables")


def _delete_dependents(con: sqlite3.Connection, ids: Sequence[str]) -> None:
    have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in (*_OWN_TABLES, *DEPENDENT_TABLES):
        if table in have:
            con.executemany(f"DELETE FROM {table} WHERE run_id = ?", [(i,) for i in ids])


def _visible(con: sqlite3.Connection, run_id: str, owner: str | None) -> None:
    """KeyError unless ``run_id`` is visible to ``owner``; a run of the first layout is moved (in
    the caller's transaction)."""
    clause, args = owner_clause(owner)
    got = con.execute(f"SELECT layout FROM runs WHERE id = ?{clause}", (run_id, *args)).fetchone()
    if got is None:
        raise KeyError(f"no run with id {run_id!r}")
    if got[0] != LAYOUT:
        layout.adopt(con, run_id)


def _summary_of(row: Sequence[Any]) -> RunSummary:
    """A ``runs`` row (:data:`_LIST_COLS`) as a :class:`RunSummary`, built without validation (the
    store wrote every value itself): lists of a long history are read on every page, and validating
    each summary's nested means and intervals cost 0.18 ms a run against 0.03 ms (a visitor with
    400 runs: 75 ms a page). Kept nowhere: a parsed summary holds ~9 KB of dicts."""
    (rid, name, method, created, n, ns, canc, summ, status, done, updated, needs_key, error) = row
    s = json.loads(summ or "{}")
    return RunSummary.model_construct(
        id=rid, name=name or rid, method=method, created_at=created, updated_at=updated or created,
        status=cast(RunStatus, status or "finished"), num_cases=n, num_done=n if done is None else done,
        num_scored=ns, num_errors=int(s.get("num_errors", 0)), cancelled=bool(canc), means=s.get("means", {}),
        intervals=s.get("intervals") or {}, settings=s.get("settings", {}),
        usage=Usage.model_construct(**s.get("usage", {})),
        timings={k: float(v) for k, v in (s.get("timings") or {}).items() if isinstance(v, (int, float))},
        started_at=s.get("started_at", ""), warnings=tuple(s.get("warnings") or ()), error=error,
        needs_key=bool(needs_key))


def _pragmas(con: sqlite3.Connection) -> None:
    con.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at each checkpoint, safe from corruption


class RunStore(CaseReads):
    """Save, list, read and delete runs. Thread-safe: each call borrows a connection of a small pool
    (:mod:`.pool`; WAL journal, so the background worker writes while pages read)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path).expanduser() if path else store_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._pool = ConnectionPool(self.path, setup=_pragmas)
        with self._db() as con, con:
            layout.create(con)
        try:
            with self._db() as con:
                con.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError:  # e.g. a file system without shared memory
            pass
        self._next_purge = 0.0

    def _db(self) -> AbstractContextManager[sqlite3.Connection]:
        """A connection of the pool for one ``with`` block (``with self._db() as con, con:`` commits)."""
        return self._pool.connection()

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
            "warnings": list(run.warnings),
        }


    # ------------------------------------------------------------------ finished runs in one go
    def save(self, run: RunResult, name: str | None = None, *, owner: str | None = None) -> str:
        """Store a finished run; returns its id. ``owner=None``: visible only to ``owner=None``
        readers (shared history, CLI)."""
        run_id = self.start(run.method, (), name=name, settings=run.settings, owner=owner)
        self.add_results(run_id, 0, run.results, usage=run.usage, warnings=run.warnings, started_at=run.started_at)
        self.set_cases(run_id, len(run.results))
        self.finish(run_id, "cancelled" if run.cancelled else "finished", exact_timings=run.timings)
        return run_id

    # ------------------------------------------------------------------ runs written as they go
    def start(self, method: str, cases: Iterable[TestCase], *, name: str | None = None,
              settings: dict[str, Any] | None = None, owner: str | None = None,
              needs_key: bool = False) -> str:
        """Register a run that is about to be evaluated chunk by chunk (status ``running``).
        The cases are kept (one row each) so that an interrupted run can be resumed."""
        settings = dict(settings or {})
        head = json.dumps({"means": {}, "settings": settings, "started_at": "", "usage": {},
                           "timings": {}, "num_errors": 0, "segment_started": time.time(), "wall_before_s": 0.0},
                          default=str)
        _check_no_key(head)
        run_id = uuid.uuid4().hex[:12]
        created = _now()
        n = 0
        with self._db() as con, con:
            con.execute(
                "INSERT INTO runs (id, name, method, created_at, num_cases, num_scored, cancelled, "
                "summary, payload, owner, status, num_done, updated_at, needs_key, layout, case_version) "
                "VALUES (?,?,?,?,0,0,0,?,'',?,'running',0,?,?,?,?)",
                (run_id, name or f"{method} {created}", method, created, head, owner, created, int(needs_key),
                 LAYOUT, SCHEMA_VERSION))
            for i, c in enumerate(cases):
                con.execute("INSERT INTO run_inputs VALUES (?,?,?)", (run_id, i, c.model_dump_json()))
                n = i + 1
            con.execute("UPDATE runs SET num_cases = ? WHERE id = ?", (n, run_id))
        return run_id

    def add_chunk(self, run_id: str, first: int, part: RunResult) -> None:
        """Keep the results of one finished chunk (cases ``first`` .. ``first + len - 1`` of the
        run's input order) at once, so a crash later loses nothing."""
        self.add_results(run_id, first, part.results, timings=part.timings, usage=part.usage,
                         warnings=part.warnings, started_at=part.started_at)

    def add_results(self, run_id: str, first: int, results: Sequence[CaseResult], *,
                    timings: dict[str, float] | None = None, usage: Usage | None = None,
                    warnings: Sequence[str] = (), started_at: str = "") -> None:
        """Keep finished cases ``first`` .. ``first + len - 1`` (input order) of a run at once: one
        row each, their inputs dropped, the run's counts, usage and time brought up to date."""
        encoded = []
        for i, r in enumerate(results):
            row, aux, payload, text = row_codec.encode(r)
            _check_no_key(text)
            encoded.append((run_id, first + i, r.case.id, int(r.ok), row, aux, payload))
        n_scored = sum(1 for r in results if r.ok)
        n_errors = sum(1 for r in results if r.error is not None)
        usage = usage if usage is not None else Usage.total(r.usage for r in results)
        with self._db() as con, con:
            got = con.execute("SELECT summary, num_done, num_scored, layout FROM runs WHERE id = ?",
                              (run_id,)).fetchone()
            if got is None:
                raise KeyError(f"no run with id {run_id!r} in {self.path}")
            if got[3] != LAYOUT:
                layout.adopt(con, run_id)
                got = con.execute("SELECT summary, num_done, num_scored FROM runs WHERE id = ?",
                                  (run_id,)).fetchone() + (LAYOUT,)
            s = json.loads(got[0] or "{}")
            s["usage"] = (Usage(**s.get("usage", {})) + usage).model_dump()
            tm = s.setdefault("timings", {})
            for k, v in (timings or {}).items():
                if k != "wall_s":
                    tm[k] = tm.get(k, 0.0) + float(v)
            # the run's whole time: earlier sessions (before a restart) + this one so far
            tm["wall_s"] = float(s.get("wall_before_s", 0.0)) + (time.time() - float(s.get("segment_started")
                                                                                   or time.time()))
            s["num_errors"] = int(s.get("num_errors", 0)) + n_errors
            s["started_at"] = s.get("started_at") or started_at
            if warnings:
                s["warnings"] = list(dict.fromkeys([*(s.get("warnings") or []), *warnings]))
            con.executemany("INSERT OR REPLACE INTO run_cases VALUES (?,?,?,?,?,?,?)", encoded)
            con.execute("DELETE FROM run_inputs WHERE run_id = ? AND idx >= ? AND idx < ?",
                        (run_id, first, first + len(results)))
            con.execute("UPDATE runs SET num_done = ?, num_scored = ?, summary = ?, updated_at = ?, "
                        "status = 'running', error = NULL WHERE id = ?",
                        ((got[1] or 0) + len(results), (got[2] or 0) + n_scored, json.dumps(s, default=str),
                         _now(), run_id))

    def finish(self, run_id: str, status: RunStatus = "finished", *, error: str | None = None,
               timings: dict[str, float] | None = None,
               exact_timings: dict[str, float] | None = None) -> RunSummary | None:
        """End a run written case by case. ``finished`` / ``cancelled``: its summary (means and 95 %
        intervals from the per-case values, the whole time) is computed once and kept; its input
        rows go (returns the summary). ``interrupted``: cases and inputs are kept for
        :meth:`pending`, the time so far is kept for the whole time of a resumed run. ``timings``
        are added to the run's; ``exact_timings`` replace them (a run saved whole)."""
        self.ensure_rows(run_id, None)
        with self._db() as con:
            s = json.loads(con.execute("SELECT summary FROM runs WHERE id = ?", (run_id,)).fetchone()[0] or "{}")
        if status in ("interrupted", "running"):
            if status == "running":  # a new session of the run (resumed): its clock starts now
                s["wall_before_s"] = float((s.get("timings") or {}).get("wall_s", s.get("wall_before_s", 0.0)))
                s["segment_started"] = time.time()
            with self._db() as con, con:
                con.execute("UPDATE runs SET status = ?, error = ?, updated_at = ?, summary = ? WHERE id = ?",
                            (status, error, _now(), json.dumps(s, default=str), run_id))
            return None
        tally = RunTally()
        rows: list[dict[str, Any]] = []
        with self._db() as con:  # read, then compute outside any write lock
            for row, aux in con.execute("SELECT row, aux FROM run_cases WHERE run_id = ? ORDER BY idx", (run_id,)):
                r, a = json.loads(row), json.loads(aux)
                tally.add_values(str(r.get("id")), r.get("error"), r, a.get("family") or (),
                                 ok=r.get("adherence") is not None and r.get("error") is None)
                rows.append(r)
        table = row_codec.table_bytes(rows)
        del rows
        tm = s.setdefault("timings", {})
        tm["wall_s"] = float(s.get("wall_before_s", 0.0)) + (time.time() - float(s.get("segment_started")
                                                                               or time.time()))
        tm.update(timings or {})
        if exact_timings is not None:
            s["timings"] = dict(exact_timings)
        s.update(means=tally.means(), intervals=tally.intervals() if tally.num_cases else {},
                 num_errors=len(tally.errors))
        with self._db() as con, con:
            con.execute("UPDATE runs SET status = ?, error = ?, cancelled = ?, summary = ?, num_done = ?, "
                        "num_scored = ?, updated_at = ?, inputs = NULL WHERE id = ?",
                        (status, error, int(status == "cancelled"), json.dumps(s, default=str), tally.num_cases,
                         tally.num_scored, _now(), run_id))
            con.execute("DELETE FROM run_inputs WHERE run_id = ?", (run_id,))
            con.execute("DELETE FROM run_tables WHERE run_id = ?", (run_id,))
            if table is not None:
                con.execute("INSERT INTO run_tables VALUES (?,?,?)", (run_id, tally.num_cases, table))
        return self.get(run_id, owner=None)

    def pending(self, run_id: str, *, owner: str | None) -> list[tuple[int, TestCase]]:
        """(input index, case) of every case of an unfinished run not evaluated yet, in order."""
        return self.next_pending(run_id, owner=owner, limit=None)

    def next_pending(self, run_id: str, *, owner: str | None, limit: int | None = 100,
                     after: int = -1) -> list[tuple[int, TestCase]]:
        """The first ``limit`` (None: all) cases of an unfinished run not evaluated yet whose input
        index is above ``after``, in order: a worker reads its run chunk by chunk."""
        with self._db() as con, con:
            _visible(con, run_id, owner)
            rows = con.execute("SELECT idx, payload FROM run_inputs WHERE run_id = ? AND idx > ? ORDER BY idx"
                               + (" LIMIT ?" if limit is not None else ""),
                               (run_id, after, *((limit,) if limit is not None else ()))).fetchall()
        return [(int(i), TestCase.model_validate_json(p)) for i, p in rows]

    def set_cases(self, run_id: str, n: int) -> None:
        """The number of cases a run was started with (a run stored from a file whose size was unknown)."""
        with self._db() as con, con:
            con.execute("UPDATE runs SET num_cases = ? WHERE id = ?", (n, run_id))

    def count_pending(self, run_id: str, *, owner: str | None) -> int:
        """How many cases of an unfinished run are not evaluated yet."""
        with self._db() as con, con:
            _visible(con, run_id, owner)
            return int(con.execute("SELECT COUNT(*) FROM run_inputs WHERE run_id = ?", (run_id,)).fetchone()[0])

    def mark_interrupted(self, reason: str = "the server stopped while this run was going on") -> list[str]:
        """Runs left ``running`` by a worker that no longer exists become ``interrupted``."""
        with self._db() as con, con:
            ids = [r[0] for r in con.execute("SELECT id FROM runs WHERE status = 'running'")]
            con.execute("UPDATE runs SET status = 'interrupted', error = ? WHERE status = 'running'",
                        (reason,))
        return ids

    def ensure_rows(self, run_id: str, owner: str | None) -> int:
        """Check ``run_id`` is visible to ``owner`` (KeyError) and stored case by case (moved if
        not); the version its cases were written in."""
        clause, args = owner_clause(owner)
        with self._db() as con:
            got = con.execute(f"SELECT layout, case_version FROM runs WHERE id = ?{clause}",
                              (run_id, *args)).fetchone()
        if got is None:
            raise KeyError(f"no run with id {run_id!r}")
        if got[0] != LAYOUT:
            with self._db() as con, con:
                layout.adopt(con, run_id)
            return SCHEMA_VERSION
        return int(got[1] or SCHEMA_VERSION)

    # ------------------------------------------------------------------ reading
    def list(self, *, owner: str | None, status: Iterable[RunStatus] | None = None) -> list[RunSummary]:
        """Newest first. ``owner``: a token (its runs only) or None (every run)."""
        clause, args = owner_clause(owner)
        if status is not None:
            st = tuple(status)
            clause += f" AND coalesce(status, 'finished') IN ({','.join('?' * len(st))})"
            args = (*args, *st)
        with self._db() as con:
            rows = con.execute(f"SELECT {_LIST_COLS} FROM runs WHERE 1=1{clause} "
                               "ORDER BY created_at DESC, rowid DESC", args).fetchall()
        return [_summary_of(r) for r in rows]

    def get(self, run_id: str, *, owner: str | None) -> RunSummary:
        clause, args = owner_clause(owner)
        with self._db() as con:
            row = con.execute(f"SELECT {_LIST_COLS} FROM runs WHERE id = ?{clause}",
                              (run_id, *args)).fetchone()
        if row is None:
            raise KeyError(f"no run with id {run_id!r}")
        return _summary_of(row)

    def load(self, run_id: str, *, owner: str | None) -> RunResult:
        """The whole run (a running / interrupted run: the cases finished so far), for runs that fit
        in memory; pages read :meth:`rows` and :meth:`case` instead. KeyError when it does not exist
        or belongs to another owner (the message never says which)."""
        self.ensure_rows(run_id, owner)  # a run of the first layout is moved first (its summary too)
        summary = self.get(run_id, owner=owner)
        results = tuple(self.iter_cases(run_id, owner=owner))
        return RunResult(method=summary.method, results=results, settings=summary.settings,
                         timings=summary.timings, usage=summary.usage, started_at=summary.started_at,
                         cancelled=summary.status == "cancelled" or summary.cancelled,
                         warnings=summary.warnings)

    # ------------------------------------------------------------------ housekeeping
    def rename(self, run_id: str, name: str, *, owner: str | None) -> bool:
        clause, args = owner_clause(owner)
        with self._db() as con, con:
            cur = con.execute(f"UPDATE runs SET name = ? WHERE id = ?{clause}", (name, run_id, *args))
        return cur.rowcount > 0

    def delete(self, run_id: str, *, owner: str | None) -> bool:
        clause, args = owner_clause(owner)
        with self._db() as con, con:
            cur = con.execute(f"DELETE FROM runs WHERE id = ?{clause}", (run_id, *args))
            if cur.rowcount:
                _delete_dependents(con, [run_id])
        return cur.rowcount > 0

    def purge(self, keep_days: float | None) -> int:
        """Delete runs (of every owner) not touched for more than ``keep_days`` days; running runs
        are kept. None or <= 0 keeps everything. Returns how many runs were deleted."""
        if not keep_days or keep_days <= 0:
            return 0
        cutoff = (datetime.now(timezone.utc) - timedelta(days=keep_days)).isoformat(timespec="seconds")
        with self._db() as con, con:
            ids = [r[0] for r in con.execute(
                "SELECT id FROM runs WHERE coalesce(status, 'finished') != 'running' "
                "AND coalesce(updated_at, created_at) < ?", (cutoff,))]
            con.executemany("DELETE FROM runs WHERE id = ?", [(i,) for i in ids])
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
        with self._db() as con:
            return int(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
