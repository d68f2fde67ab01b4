"""Reviews in the run history's SQLite file: every correction with its time and reviewer, and which
cases are marked reviewed.

Tables (beside ``runs``; deleted with their run, see ``store.DEPENDENT_TABLES``):

* ``review_cases`` — one row per (run, case) under review: the owner (the run's owner, so reviews
  are exactly as private as the run: a visitor's token, or None), the case's fingerprint, a
  snapshot of what the reviewer started from (the case, the run's final labels and the sentence
  split; gold never depends on re-reading the run), ``reviewed_at`` / ``reviewer`` of the
  "reviewed" mark (NULL = not marked), ``updated_at``;
* ``review_corrections`` — append-only: one row per saved correction (field, key, value as JSON,
  reviewer, time). Nothing is overwritten; the latest correction of a label counts.

Every read takes ``owner=`` as :class:`~evaluators.store.RunStore` does: a token sees the reviews of
its own runs, None sees every review (shared history, CLI, tests). A write checks that the run is
visible to ``owner`` (KeyError otherwise, without saying whose it is).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..store import RunStore, owner_clause
from ..types import CaseResult, SentenceLabels, SentenceSpans, TestCase
from .labels import Correction, ReviewedCase, check, clean_reviewer, fingerprint

_CASES = """
CREATE TABLE IF NOT EXISTS review_cases (
    run_id TEXT NOT NULL,
    case_id TEXT NOT NULL,
    owner TEXT,
    fingerprint TEXT NOT NULL,
    base TEXT NOT NULL,
    reviewed_at TEXT,
    reviewer TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (run_id, case_id)
)
"""
_CORRECTIONS = """
CREATE TABLE IF NOT EXISTS review_corrections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    case_id TEXT NOT NULL,
    field TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT,
    reviewer TEXT NOT NULL,
    at TEXT NOT NULL
)
"""
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS review_corrections_case ON review_corrections (run_id, case_id, id)",
    "CREATE INDEX IF NOT EXISTS review_cases_owner ON review_cases (owner, fingerprint)",
)
_COLS = "run_id, case_id, fingerprint, base, reviewed_at, reviewer, updated_at"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ReviewStore:
    """Corrections and review marks, in the same SQLite file as a :class:`RunStore` (its ``path``;
    default: the run history of :func:`evaluators.paths.store_path`), through the run store's
    connections."""

    def __init__(self, runs: RunStore | str | Path | None = None) -> None:
        self.runs = runs if isinstance(runs, RunStore) else RunStore(runs)
        self.path = self.runs.path
        with self.runs._db() as con, con:
            con.execute(_CASES)
            con.execute(_CORRECTIONS)
            for sql in _INDEXES:
                con.execute(sql)

    # ------------------------------------------------------------------ writing
    def _open_case(self, con: sqlite3.Connection, run_id: str, result: CaseResult, owner: str | None,
                   now: str) -> SentenceLabels:
        """The base labels of the case (its row created on the first write), after checking that the
        run is visible to ``owner``."""
        clause, args = owner_clause(owner)
        run = con.execute(f"SELECT owner FROM runs WHERE id = ?{clause}", (run_id, *args)).fetchone()
        if run is None:
            raise KeyError(f"no run with id {run_id!r}")
        row = con.execute("SELECT base FROM review_cases WHERE run_id = ? AND case_id = ?",
                          (run_id, result.case.id)).fetchone()
        if row is not None:
            return SentenceLabels.model_validate(json.loads(row[0])["labels"])
        if result.labels is None:
            raise ValueError(f"case {result.case.id!r} was not scored ({result.error or 'no labels'}): "
                             "there are no labels to review")
        base = json.dumps({"case": result.case.model_dump(mode="json"),
                           "labels": result.labels.model_dump(mode="json", exclude_computed_fields=True),
                           "spans": result.spans.model_dump(mode="json") if result.spans else None},
                          ensure_ascii=False)
        con.execute("INSERT INTO review_cases (run_id, case_id, owner, fingerprint, base, created_at, "
                    "updated_at) VALUES (?,?,?,?,?,?,?)",
                    (run_id, result.case.id, run[0], fingerprint(result.case), base, now, now))
        return result.labels

    def correct(self, run_id: str, result: CaseResult, field: str, key: str, value: Any, *,
                reviewer: str, owner: str | None) -> ReviewedCase:
        """Save one correction of case ``result`` of run ``run_id`` (value ``None``: back to the
        method's label). ValueError for a bad correction (message names the label), KeyError when
        the run is not visible to ``owner``. Returns the case as now stored."""
        name = clean_reviewer(reviewer)
        now = _now()
        with self.runs._db() as con, con:
            base = self._open_case(con, run_id, result, owner, now)
            stored = check(base, field, key, value)
            con.execute("INSERT INTO review_corrections (run_id, case_id, field, key, value, reviewer, at) "
                        "VALUES (?,?,?,?,?,?,?)",
                        (run_id, result.case.id, field, key, json.dumps(stored), name, now))
            con.execute("UPDATE review_cases SET updated_at = ? WHERE run_id = ? AND case_id = ?",
                        (now, run_id, result.case.id))
        got = self.get(run_id, result.case.id, owner=None)
        assert got is not None
        return got

    def mark(self, run_id: str, result: CaseResult, *, reviewer: str, owner: str | None,
             reviewed: bool = True) -> ReviewedCase:
        """Mark the case reviewed (its reviewed labels become gold) or take the mark back."""
        name = clean_reviewer(reviewer)
        now = _now()
        with self.runs._db() as con, con:
            self._open_case(con, run_id, result, owner, now)
            con.execute("UPDATE review_cases SET reviewed_at = ?, reviewer = ?, updated_at = ? "
                        "WHERE run_id = ? AND case_id = ?",
                        (now if reviewed else None, name if reviewed else None, now, run_id, result.case.id))
        got = self.get(run_id, result.case.id, owner=None)
        assert got is not None
        return got

    # ------------------------------------------------------------------ reading
    def _read(self, where: str, args: tuple[Any, ...], case_id: str | None = None) -> list[ReviewedCase]:
        with self.runs._db() as con:
            rows = con.execute(f"SELECT {_COLS} FROM review_cases WHERE 1=1{where} "
                               "ORDER BY updated_at, rowid", args).fetchall()
            if not rows:
                return []
            runs = sorted({r[0] for r in rows})
            marks = ",".join("?" * len(runs))
            one = "" if case_id is None else " AND case_id = ?"  # one case: only its corrections
            corr = con.execute(f"SELECT run_id, case_id, field, key, value, reviewer, at FROM review_corrections "
                               f"WHERE run_id IN ({marks}){one} ORDER BY id",
                               (*runs, *(() if case_id is None else (case_id,)))).fetchall()
        by_case: dict[tuple[str, str], list[Correction]] = {}
        for run_id, case_id, field, key, value, reviewer, at in corr:
            by_case.setdefault((run_id, case_id), []).append(
                Correction(field=field, key=key, value=json.loads(value) if value else None,
                           reviewer=reviewer, at=at))
        out = []
        for run_id, case_id, fp, base, reviewed_at, reviewer, updated in rows:
            b = json.loads(base)
            out.append(ReviewedCase(
                run_id=run_id, case_id=case_id, fingerprint=fp, case=TestCase.model_validate(b["case"]),
                base=SentenceLabels.model_validate(b["labels"]),
                spans=SentenceSpans.model_validate(b["spans"]) if b.get("spans") else None,
                corrections=tuple(by_case.get((run_id, case_id), ())), reviewed_at=reviewed_at,
                reviewer=reviewer, updated_at=updated))
        return out

    def get(self, run_id: str, case_id: str, *, owner: str | None) -> ReviewedCase | None:
        clause, args = owner_clause(owner)
        found = self._read(f" AND run_id = ? AND case_id = ?{clause}", (run_id, case_id, *args), case_id)
        return found[0] if found else None

    def of_run(self, run_id: str, *, owner: str | None) -> dict[str, ReviewedCase]:
        """case id -> the case under review, of one run."""
        clause, args = owner_clause(owner)
        return {c.case_id: c for c in self._read(f" AND run_id = ?{clause}", (run_id, *args))}

    def status(self, run_id: str, *, owner: str | None) -> dict[str, tuple[int, bool]]:
        """case id -> (corrections saved, marked reviewed) of one run (one cheap query)."""
        clause, args = owner_clause(owner)
        with self.runs._db() as con:
            rows = con.execute(
                "SELECT c.case_id, c.reviewed_at IS NOT NULL, "
                "(SELECT COUNT(*) FROM review_corrections k WHERE k.run_id = c.run_id AND k.case_id = c.case_id) "
                f"FROM review_cases c WHERE c.run_id = ?{clause}", (run_id, *args)).fetchall()
        return {cid: (int(n), bool(rev)) for cid, rev, n in rows}

    def gold(self, *, owner: str | None) -> dict[str, ReviewedCase]:
        """fingerprint -> the reviewed case (the most recently reviewed one when the same texts were
        reviewed in several runs): every case visible to ``owner`` that is marked reviewed."""
        clause, args = owner_clause(owner)
        found = self._read(f" AND reviewed_at IS NOT NULL{clause}", args)
        out: dict[str, ReviewedCase] = {}
        for c in sorted(found, key=lambda c: c.reviewed_at or ""):
            out[c.fingerprint] = c
        return out

    def count(self, *, owner: str | None) -> int:
        """Cases marked reviewed that ``owner`` can see."""
        clause, args = owner_clause(owner)
        with self.runs._db() as con:
            return int(con.execute(f"SELECT COUNT(*) FROM review_cases WHERE reviewed_at IS NOT NULL{clause}",
                                   args).fetchone()[0])
