"""The run history's tables, and the move of a run of the first layout to the current one.

Layout 2 (this version): table ``run_cases``, one row per finished case (compact row, aux row,
compressed ``CaseResult``: :mod:`.rows`); ``run_inputs``, the input cases of a run going on, one row
each, deleted as they finish; ``run_tables``, the compact rows of an ended run as one Parquet table
(a page reads a 50,000-case table in a fraction of a second), made when the run ends.
Table ``store_meta`` records the one-time moves done to the whole history (``names``: runs named by
an older version's default, ``"trace on v2.jsonl"``, renamed to the file's stem: :mod:`.names`).
Layout 1 (before): one JSON payload per finished run in ``runs.payload``;
a run going on as ``run_chunks`` (a ``RunResult`` per finished chunk) and its input cases as one JSON
list in ``runs.inputs``. :func:`adopt` moves a run of layout 1 to layout 2 (its format version is
migrated by ``schema.load_run``), the first time it is read.
"""

from __future__ import annotations

import json
import sqlite3

from ..schema import load_run
from ..tally import RunTally
from ..types import SCHEMA_VERSION, TestCase
from . import names as run_names
from . import rows as row_codec

#: The layout this version writes.
LAYOUT = 2

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
#: Columns added after the first release (older databases get them by ALTER TABLE). ``layout``:
#: NULL / 1 = one payload per run (or ``run_chunks``), 2 = one row per case; ``case_version``: the
#: run format its cases were written in.
_COLUMNS = {"owner": "TEXT", "status": "TEXT", "num_done": "INTEGER", "updated_at": "TEXT",
            "inputs": "TEXT", "needs_key": "INTEGER", "error": "TEXT", "layout": "INTEGER",
            "case_version": "INTEGER"}
_CHUNKS = """
CREATE TABLE IF NOT EXISTS run_chunks (
    run_id TEXT NOT NULL,
    first INTEGER NOT NULL,
    n INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, first)
)
"""
_CASES = """
CREATE TABLE IF NOT EXISTS run_cases (
    run_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    case_id TEXT NOT NULL,
    ok INTEGER NOT NULL,
    row TEXT NOT NULL,
    aux TEXT NOT NULL,
    payload BLOB NOT NULL,
    PRIMARY KEY (run_id, idx)
)
"""
_INPUTS = """
CREATE TABLE IF NOT EXISTS run_inputs (
    run_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
)
"""
_TABLES = """
CREATE TABLE IF NOT EXISTS run_tables (
    run_id TEXT PRIMARY KEY,
    num_done INTEGER NOT NULL,
    parquet BLOB NOT NULL
)
"""
_META = "CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
_INDEXES = ("CREATE INDEX IF NOT EXISTS run_cases_id ON run_cases (run_id, case_id)",)
#: (after the ``owner`` column is added to an older database)
RUNS_OWNER_INDEX = "CREATE INDEX IF NOT EXISTS runs_owner ON runs (owner, created_at)"


def create(con: sqlite3.Connection) -> None:
    """Every table and column this version needs (older databases get the new columns)."""
    for ddl in (_SCHEMA, _CHUNKS, _CASES, _INPUTS, _TABLES, _META, *_INDEXES):
        con.execute(ddl)
    have = {row[1] for row in con.execute("PRAGMA table_info(runs)")}
    for col, kind in _COLUMNS.items():
        if col not in have:
            con.execute(f"ALTER TABLE runs ADD COLUMN {col} {kind}")
    # A visitor's runs, newest first, on every page: without it each listing read the whole table
    # (4.7 ms with 5,155 runs against 0.05 ms; the columns come after the summaries in each row).
    con.execute(RUNS_OWNER_INDEX)
    rename_old_defaults(con)


def rename_old_defaults(con: sqlite3.Connection) -> int:
    """Once per history: the runs an older version named ``"<method> on <file>"`` by default take the
    file's stem as their name (``names.migrated``); returns how many were renamed (0 once done)."""
    if con.execute("SELECT 1 FROM store_meta WHERE key = 'names'").fetchone() is not None:
        return 0
    renamed = 0
    for rid, name, method in con.execute("SELECT id, name, method FROM runs WHERE name LIKE '% on %'").fetchall():
        new = run_names.migrated(name, method)
        if new is not None:
            con.execute("UPDATE runs SET name = ? WHERE id = ?", (new, rid))
            renamed += 1
    con.execute("INSERT OR REPLACE INTO store_meta VALUES ('names', '1')")
    return renamed


def adopt(con: sqlite3.Connection, run_id: str) -> None:
    """Move a run of the first layout (one payload, or ``run_chunks`` + an ``inputs`` list) to one
    row per case, in the caller's transaction. Its format version is migrated by ``load_run``."""
    got = con.execute("SELECT payload, method, summary, inputs, status FROM runs WHERE id = ?",
                      (run_id,)).fetchone()
    if got is None:
        return
    payload, method, summ, inputs, status = got
    if payload:
        parts = [load_run(payload)]
        firsts = [0]
    else:
        chunks = con.execute("SELECT first, payload FROM run_chunks WHERE run_id = ? ORDER BY first",
                             (run_id,)).fetchall()
        parts = [load_run(p) for _, p in chunks]
        firsts = [int(f) for f, _ in chunks]
    done: set[int] = set()
    for first, part in zip(firsts, parts):
        for i, r in enumerate(part.results):
            row, aux, blob, _ = row_codec.encode(r)
            con.execute("INSERT OR REPLACE INTO run_cases VALUES (?,?,?,?,?,?,?)",
                        (run_id, first + i, r.case.id, int(r.ok), row, aux, blob))
            done.add(first + i)
    if inputs:
        for i, c in enumerate(json.loads(inputs)):
            if i not in done:
                con.execute("INSERT OR REPLACE INTO run_inputs VALUES (?,?,?)",
                            (run_id, i, TestCase.model_validate(c).model_dump_json()))
    s = json.loads(summ or "{}")
    if payload:  # the run's own fields are the truth; the summary gets its intervals
        whole = parts[0]
        s.update(settings=whole.settings, usage=whole.usage.model_dump(), timings=whole.timings,
                 started_at=whole.started_at, warnings=list(whole.warnings))
        if not s.get("intervals"):
            tally = RunTally.of(whole.results)
            s["intervals"] = tally.intervals() if tally.num_cases else {}
    con.execute("UPDATE runs SET payload = '', inputs = NULL, layout = ?, case_version = ?, summary = ? "
                "WHERE id = ?", (LAYOUT, SCHEMA_VERSION, json.dumps(s, default=str), run_id))
    con.execute("DELETE FROM run_chunks WHERE run_id = ?", (run_id,))

