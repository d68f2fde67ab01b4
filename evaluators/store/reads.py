"""Reading a stored run case by case (mixed into :class:`~.runs.RunStore`): its compact rows, a
few whole cases, or every case one at a time — never the whole run at once."""

from __future__ import annotations

import json
import sqlite3
from contextlib import AbstractContextManager
from typing import Any, Iterator, Sequence

from ..types import CaseResult
from . import rows as row_codec


class CaseReads:
    """The per-case reads of the run store (needs ``_db`` and ``ensure_rows``)."""

    def _db(self) -> AbstractContextManager[sqlite3.Connection]:  # pragma: no cover - provided by RunStore
        raise NotImplementedError

    def ensure_rows(self, run_id: str, owner: str | None) -> int:  # pragma: no cover - provided by RunStore
        raise NotImplementedError

    def iter_cases(self, run_id: str, *, owner: str | None, batch: int = 200) -> Iterator[CaseResult]:
        """Every finished case of a run, in input order, one at a time (memory: ``batch`` stored cases)."""
        version = self.ensure_rows(run_id, owner)
        last = -1
        while True:
            with self._db() as con:
                got = con.execute("SELECT idx, payload FROM run_cases WHERE run_id = ? AND idx > ? ORDER BY idx "
                                  "LIMIT ?", (run_id, last, batch)).fetchall()
            if not got:
                return
            for _, payload in got:
                yield row_codec.decode(payload, version)
            last = int(got[-1][0])

    def case(self, run_id: str, case_id: str, *, owner: str | None) -> CaseResult | None:
        """One case of a run by its id (None when the run has no such case)."""
        got = self.cases(run_id, [case_id], owner=owner)
        return got[0] if got else None

    def _payloads(self, run_id: str, ids: list[str]) -> dict[str, bytes]:
        """Case id -> stored payload of the cases ``ids`` (those the run has)."""
        found: dict[str, bytes] = {}
        with self._db() as con:
            for k in range(0, len(ids), 500):
                part = ids[k:k + 500]
                found.update(con.execute(f"SELECT case_id, payload FROM run_cases WHERE run_id = ? AND case_id IN "
                                         f"({','.join('?' * len(part))})", (run_id, *part)))
        return found

    def cases(self, run_id: str, case_ids: Sequence[str], *, owner: str | None) -> list[CaseResult]:
        """The cases of a run with these ids, in the order asked (missing ids are left out)."""
        version = self.ensure_rows(run_id, owner)
        ids = list(dict.fromkeys(case_ids))
        found = self._payloads(run_id, ids)
        return [row_codec.decode(found[c], version) for c in ids if c in found]

    def texts_of(self, run_id: str, case_ids: Sequence[str], *, owner: str | None) -> dict[str, tuple[str, str]]:
        """Case id -> (question, response) of these cases (a page of a table), read without rebuilding
        each case."""
        self.ensure_rows(run_id, owner)
        out = {}
        for cid, payload in self._payloads(run_id, list(dict.fromkeys(case_ids))).items():
            case = row_codec.raw(payload).get("case") or {}
            out[cid] = (str(case.get("question") or ""), str(case.get("response") or ""))
        return out

    def rows(self, run_id: str, *, owner: str | None, aux: bool = False) -> list[dict[str, Any]]:
        """The compact row of every finished case (:mod:`.rows`), in input order — what a per-case
        table and its aggregates need (with ``aux``: each row gets ``_aux``)."""
        self.ensure_rows(run_id, owner)
        out = []
        with self._db() as con:
            if not aux:
                return [json.loads(r) for (r,) in con.execute(
                    "SELECT row FROM run_cases WHERE run_id = ? ORDER BY idx", (run_id,))]
            for row, a in con.execute("SELECT row, aux FROM run_cases WHERE run_id = ? ORDER BY idx", (run_id,)):
                d = json.loads(row)
                d["_aux"] = json.loads(a)
                out.append(d)
        return out

    def aux(self, run_id: str, *, owner: str | None) -> list[tuple[str, dict[str, Any]]]:
        """(case id, aux) of every finished case, in input order (review queue, gold matching)."""
        self.ensure_rows(run_id, owner)
        with self._db() as con:
            return [(cid, json.loads(a)) for cid, a in
                    con.execute("SELECT case_id, aux FROM run_cases WHERE run_id = ? ORDER BY idx", (run_id,))]

    def case_ids(self, run_id: str, *, owner: str | None) -> list[str]:
        self.ensure_rows(run_id, owner)
        with self._db() as con:
            return [r[0] for r in con.execute("SELECT case_id FROM run_cases WHERE run_id = ? ORDER BY idx",
                                              (run_id,))]


    def texts(self, run_id: str, *, owner: str | None, batch: int = 500) -> Iterator[tuple[str, str, str]]:
        """(case id, question, response) of every finished case, in input order: the texts an export
        needs, read without rebuilding each case."""
        self.ensure_rows(run_id, owner)
        last = -1
        while True:
            with self._db() as con:
                got = con.execute("SELECT idx, case_id, payload FROM run_cases WHERE run_id = ? AND idx > ? "
                                  "ORDER BY idx LIMIT ?", (run_id, last, batch)).fetchall()
            if not got:
                return
            for _, cid, payload in got:
                case = row_codec.raw(payload).get("case") or {}
                yield cid, str(case.get("question") or ""), str(case.get("response") or "")
            last = int(got[-1][0])

    def table(self, run_id: str, *, owner: str | None) -> Any:
        """The compact rows of every finished case as a pandas DataFrame, in input order: the Parquet
        table kept when the run ended, else (a run going on) built from the rows."""
        import io

        import pandas as pd

        self.ensure_rows(run_id, owner)
        with self._db() as con:
            got = con.execute("SELECT t.parquet FROM run_tables t JOIN runs r ON r.id = t.run_id "
                              "WHERE t.run_id = ? AND t.num_done = r.num_done", (run_id,)).fetchone()
        if got is not None:
            return pd.read_parquet(io.BytesIO(got[0]))
        return pd.DataFrame.from_records(self.rows(run_id, owner=owner))
