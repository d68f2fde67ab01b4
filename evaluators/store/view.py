"""A run of the history read from the store as a page needs it: :class:`StoredRun`.

It answers what a ``RunResult`` answers — ``method``, ``settings``, ``means()``, ``scored``,
``errors``, ``results`` … — but reads the run's cases from the store only when asked, and offers
the bounded reads pages should use instead: :meth:`StoredRun.rows` (the compact per-case rows),
:meth:`StoredRun.case` / :meth:`StoredRun.cases` (a few whole cases), :meth:`StoredRun.iter_results`
(all of them, one at a time). ``results`` (every case at once) is for small runs: it is read anew
each time, never kept.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from ..tally import RunTally
from ..types import CaseResult, RunResult, Usage
from .runs import RunStore, RunSummary


class StoredRun:
    """A run of the history (``store.view(run_id, owner=...)``); see the module docstring."""

    def __init__(self, store: RunStore, summary: RunSummary, owner: str | None) -> None:
        self.store, self.summary, self.owner = store, summary, owner

    # ------------------------------------------------------------------ what a RunResult has
    @property
    def id(self) -> str:
        return self.summary.id

    @property
    def name(self) -> str:
        return self.summary.name

    @property
    def method(self) -> str:
        return self.summary.method

    @property
    def settings(self) -> dict[str, Any]:
        return self.summary.settings

    @property
    def timings(self) -> dict[str, float]:
        return self.summary.timings

    @property
    def usage(self) -> Usage:
        return self.summary.usage

    @property
    def started_at(self) -> str:
        return self.summary.started_at

    @property
    def cancelled(self) -> bool:
        return self.summary.status == "cancelled" or self.summary.cancelled

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.summary.warnings

    @property
    def num_cases(self) -> int:
        """Cases evaluated so far (``summary.num_cases``: the cases the run was started with)."""
        return self.summary.num_done

    def __len__(self) -> int:
        return self.summary.num_done

    @property
    def results(self) -> tuple[CaseResult, ...]:
        """Every case, read now (for small runs; pages read :meth:`rows` and :meth:`case`)."""
        return tuple(self.iter_results())

    @property
    def scored(self) -> list[CaseResult]:
        return [r for r in self.iter_results() if r.ok]

    @property
    def errors(self) -> list[tuple[str, str]]:
        """(case id, reason) of every case that could not be scored (from the rows)."""
        return [(str(r.get("id")), str(r["error"])) for r in self.rows() if r.get("error") is not None]

    def means(self) -> dict[str, float | None]:
        """The run's means: kept with the run once it ended, from the rows while it goes on."""
        if self.summary.ended and self.summary.means:
            return dict(self.summary.means)
        return self.tally().means()

    def intervals(self) -> dict[str, Any]:
        """The 95 % intervals of the means (computed from the rows while the run goes on)."""
        if self.summary.ended and self.summary.intervals:
            return dict(self.summary.intervals)
        t = self.tally()
        return t.intervals() if t.num_cases else {}

    def to_run_result(self) -> RunResult:
        """The whole run in memory (small runs only)."""
        return self.store.load(self.id, owner=self.owner)

    # ------------------------------------------------------------------ bounded reads
    def rows(self, aux: bool = False) -> list[dict[str, Any]]:
        return self.store.rows(self.id, owner=self.owner, aux=aux)

    def table(self) -> Any:
        """The compact rows as a pandas DataFrame (the Parquet table kept with an ended run)."""
        return self.store.table(self.id, owner=self.owner)

    def case(self, case_id: str) -> CaseResult | None:
        return self.store.case(self.id, case_id, owner=self.owner)

    def cases(self, case_ids: Sequence[str]) -> list[CaseResult]:
        return self.store.cases(self.id, case_ids, owner=self.owner)

    def texts_of(self, case_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """Case id -> (question, response) of these cases."""
        return self.store.texts_of(self.id, case_ids, owner=self.owner)

    def case_ids(self) -> list[str]:
        return self.store.case_ids(self.id, owner=self.owner)

    def iter_results(self) -> Iterator[CaseResult]:
        return self.store.iter_cases(self.id, owner=self.owner)

    def tally(self) -> RunTally:
        t = RunTally()
        for r in self.rows(aux=True):
            t.add_values(str(r.get("id")), r.get("error"), r, r["_aux"].get("family") or (),
                         ok=r.get("adherence") is not None and r.get("error") is None)
        return t

    def __repr__(self) -> str:
        return f"StoredRun({self.id!r}, {self.method!r}, {self.summary.num_done} cases, {self.summary.status})"


def view(store: RunStore, run_id: str, *, owner: str | None) -> StoredRun:
    """The run ``run_id`` of ``owner``'s history (KeyError when it is not there)."""
    store.ensure_rows(run_id, owner)
    return StoredRun(store, store.get(run_id, owner=owner), owner)
