"""Whether a run is judged for citations — decided once for the whole run, never per chunk.

Contract: a run has the citation metrics on **every** scored case or on none. They are computed when
some response of the run carries a citation marker (``markers.find``): then an answer that forgot its
citations counts against its run (``uncited_claims``), whichever chunk it was evaluated in. The
decision is an ``options.CitationRun`` in ``EvalOptions.citation_run``, made over every case of the
run before it is cut into chunks — like the retrieval matching (``retrieval.plan``): the job queue
scans the cases it is given, ``resultfiles.evaluate_file`` pre-scans its input (stopping at the
first response with a marker), and a run evaluated in one call (``evaluate_batch``) is scanned by
``pipeline.Evaluation.run`` itself. A stored run's settings keep the decision, so a resumed run keeps
it too.
"""

from __future__ import annotations

from typing import Iterable

from ..options import CitationRun, EvalOptions
from ..types import TestCase
from .markers import find


class CiteScan:
    """What the decision needs, read one case at a time."""

    def __init__(self) -> None:
        self.cases = 0
        self.first: int | None = None  # 0-based position of the first case whose response cites
        self.first_id = ""
        self.marker = ""

    def add(self, case: TestCase) -> None:
        self.cases += 1
        if self.first is not None:
            return
        found = find(case.response, case.documents, case.document_ids)
        if found:
            self.first, self.first_id, self.marker = self.cases - 1, str(case.id), found[0].text

    @property
    def settled(self) -> bool:
        """True once nothing more can change the decision (a response with a marker was seen)."""
        return self.first is not None

    def decide(self) -> CitationRun:
        if self.first is None:
            return CitationRun(cited=False, reason=f"no response of the run's {self.cases:,} cases carries a "
                                                   "citation marker: no citation metrics")
        return CitationRun(cited=True, reason=f"case {self.first_id or self.first + 1} cites ({self.marker}): "
                                              "every case of the run is judged for citations, an answer "
                                              "without a marker counts as uncited")


def plan_run(cases: Iterable[TestCase]) -> CitationRun:
    """The run's decision over ``cases`` (every case of the run); stops at the first that cites."""
    scan = CiteScan()
    for case in cases:
        scan.add(case)
        if scan.settled:
            break
    return scan.decide()


def with_plan(options: EvalOptions, cases: Iterable[TestCase]) -> EvalOptions:
    """``options`` with the run's decision over ``cases`` (unchanged when it already has one)."""
    if options.citation_run is not None:
        return options
    return options.model_copy(update={"citation_run": plan_run(cases)})


__all__ = ["CiteScan", "plan_run", "with_plan"]
