"""Local run history in SQLite: every finished run is saved with its settings (never a key).

``RunStore()`` keeps its database under the user data directory (platformdirs), or at
``$RAG_EVAL_STORE`` / the ``path`` argument. A run is stored as ``RunResult.model_dump_json()`` (without computed fields);
``RunResult`` holds no API key (``LLMSettings.api_key`` is excluded from every dump), and ``save``
refuses a payload that still looks like it carries one.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import uuid
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .types import RunResult

ENV_VAR = "RAG_EVAL_STORE"

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

# A dumped key would appear as a JSON field named like one; RunResult never has such a field.
_KEY_FIELD = re.compile(r'"(api_key|apikey|secret|password)"\s*:\s*"[^"]+"', re.IGNORECASE)


def default_path() -> Path:
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("rag-eval-dashboard", appauthor=False)) / "runs.sqlite3"


class RunStore:
    """Save, list, load and delete runs. Thread-safe enough for Streamlit: one connection per call."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path).expanduser() if path else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as con, con:
            con.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    @staticmethod
    def summary(run: RunResult) -> dict[str, Any]:
        return {
            "means": run.means(),
            "settings": run.settings,
            "started_at": run.started_at,
            "usage": run.usage.model_dump(),
            "num_errors": len(run.errors),
        }

    def save(self, run: RunResult, name: str | None = None) -> str:
        # computed fields (e.g. SentenceSupport.level) are derived; the frozen models forbid them
        # as inputs, so they are left out to keep RunResult.model_validate_json a round trip.
        payload = run.model_dump_json(exclude_computed_fields=True)
        if _KEY_FIELD.search(payload):
            raise ValueError("refusing to store a run whose settings contain a secret")
        run_id = uuid.uuid4().hex[:12]
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        row = (run_id, name or f"{run.method} {created}", run.method, created, len(run.results),
               len(run.scored), int(run.cancelled), json.dumps(self.summary(run), default=str), payload)
        with closing(self._connect()) as con, con:
            con.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?)", row)
        return run_id

    def list(self) -> list[dict[str, Any]]:
        """Newest first: {id, name, method, created_at, num_cases, num_scored, cancelled, means, ...}."""
        with closing(self._connect()) as con:
            rows = con.execute(
                "SELECT id, name, method, created_at, num_cases, num_scored, cancelled, summary "
                "FROM runs ORDER BY created_at DESC, rowid DESC"
            ).fetchall()
        out = []
        for rid, name, method, created, n, ns, canc, summ in rows:
            out.append({"id": rid, "name": name, "method": method, "created_at": created,
                        "num_cases": n, "num_scored": ns, "cancelled": bool(canc), **json.loads(summ)})
        return out

    def load(self, run_id: str) -> RunResult:
        with closing(self._connect()) as con:
            row = con.execute("SELECT payload FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise KeyError(f"no run with id {run_id!r} in {self.path}")
        return RunResult.model_validate_json(row[0])

    def rename(self, run_id: str, name: str) -> None:
        with closing(self._connect()) as con, con:
            con.execute("UPDATE runs SET name = ? WHERE id = ?", (name, run_id))

    def delete(self, run_id: str) -> bool:
        with closing(self._connect()) as con, con:
            cur = con.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        return cur.rowcount > 0

    def __len__(self) -> int:
        with closing(self._connect()) as con:
            return int(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
