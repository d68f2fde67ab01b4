"""The run history: runs in SQLite, stored case by case (see :mod:`.runs`); a run read as pages
need it (:mod:`.view`); how one case is stored (:mod:`.rows`); what a run is called (:mod:`.names`:
the file's stem by default, editable, and the labels that tell runs of one name apart); saved test
sets beside the runs (:mod:`.testsets`: per owner, named after their documents by default).

    store = RunStore()
    rid = store.save(run, default_name("data/v2.jsonl"), owner=token)   # named "v2"
    store.rename(rid, "v2 (new prompt)", owner=token)
    labels(store.list(owner=token))                                     # {run id: label}
"""

from __future__ import annotations

from .names import app_run_name, app_run_of, default_name, labels, short_labels
from .runs import DEPENDENT_TABLES, LAYOUT, RunStatus, RunStore, RunSummary, owner_clause
from .testsets import TestsetStore, TestsetSummary
from .testsets import default_name as testset_name
from .view import StoredRun, view

__all__ = ["DEPENDENT_TABLES", "LAYOUT", "RunStatus", "RunStore", "RunSummary", "StoredRun", "TestsetStore",
           "TestsetSummary", "app_run_name", "app_run_of", "default_name", "labels", "owner_clause", "short_labels",
           "testset_name", "view"]
