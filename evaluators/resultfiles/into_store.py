"""A results file (JSON or JSON Lines, e.g. from ``evaluate --out`` or the Ray engine) into the run
history, case by case: the dashboard opens runs made elsewhere without holding them in memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..types import CaseResult, Usage
from .read import iter_cases, read_top

#: Cases written to the store at once.
BATCH = 500


def import_results(path: str | Path, store: Any, *, owner: str | None, name: str | None = None) -> str:
    """Store the run of results file ``path`` as a run of ``owner``'s history; returns its id. A file
    of a run that did not finish (a JSON Lines file without its summary) is kept as ``cancelled``
    with the cases it holds. Raises ``ResultsFileError`` naming the file (and the case)."""
    top = read_top(path)
    method = str(top.get("method") or "")
    run_id = store.start(method or "results file", (), name=name or f"{method or 'results'} from {Path(path).name}",
                         settings=top.get("settings") or {}, owner=owner)
    batch: list[CaseResult] = []
    n = 0
    try:
        for case in iter_cases(path, full=True, method=method):
            batch.append(case)
            if len(batch) >= BATCH:
                store.add_results(run_id, n, batch, usage=Usage.total(r.usage for r in batch))
                n += len(batch)
                batch = []
        if batch:
            store.add_results(run_id, n, batch, usage=Usage.total(r.usage for r in batch))
            n += len(batch)
    except BaseException:
        store.delete(run_id, owner=None)
        raise
    store.set_cases(run_id, n)
    cut_short = top.get("status") == "unfinished"
    store.finish(run_id, "cancelled" if cut_short or top.get("cancelled") else "finished",
                 error="the results file is of a run that did not finish" if cut_short else None,
                 exact_timings={k: float(v) for k, v in (top.get("timings") or {}).items()
                                if isinstance(v, (int, float))})
    return run_id
