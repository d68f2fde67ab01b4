"""The run history: runs in SQLite, stored case by case (see :mod:`.runs`); a run read as pages
need it (:mod:`.view`); how one case is stored (:mod:`.rows`)."""

from __future__ import annotations

from .runs import DEPENDENT_TABLES, LAYOUT, RunStatus, RunStore, RunSummary, owner_clause
from .view import StoredRun, view

__all__ = ["DEPENDENT_TABLES", "LAYOUT", "RunStatus", "RunStore", "RunSummary", "StoredRun", "owner_clause", "view"]
