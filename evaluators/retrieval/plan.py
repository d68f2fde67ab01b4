"""How a run matches passages — by id or by text — decided once for the whole run.

Contract: the decision is a property of the run, never of a chunk of it. :class:`MatchScan` reads
cases one at a time (memory: three flags) and :meth:`MatchScan.decide` turns what it saw into an
``options.RetrievalRun``; :func:`plan_run` does both for an iterable of cases. Whoever cuts a run
into chunks calls it first, over every case of the run, and puts the result in
``EvalOptions.retrieval_run`` (``resultfiles.evaluate_file`` pre-scans its input file — stopping at
the first retrieved id that is a reference id — the job queue scans the cases it is given); a run
evaluated in one call (``evaluate_batch``) is scanned by ``pipeline.Evaluation.run`` itself.

The rule (``retrieval_match="auto"``): **id** when any retrieved id of the run is a reference id (a
``reference_context_ids`` entry or a ``reference_context_relevance`` key); else **text** when some
case gives ``reference_contexts``; else **id** (nothing to match by text: every value will say the
ids do not meet, and the reason says so); **none** when no case carries a reference at all (then no
retrieval metric is computed). An explicit ``retrieval_match`` of ``id`` / ``text`` (``--match``)
is taken as it is. Per case, :func:`case_mode` applies, in order: the explicit setting, the case's
own ``metadata["retrieval_match"]`` (``id`` / ``text``: what the target runner writes when a target
file says ``match:``), the run's decision. When the run gives passage ids and none is a reference id,
the reason says so plainly (:mod:`.idcheck`: whether the texts match instead, an example id of each
side, what to change).
"""

from __future__ import annotations

from typing import Any, Iterable, Literal, Mapping

from ..options import EvalOptions, RetrievalRun
from ..types import TestCase
from .idcheck import IdCheck

Mode = Literal["id", "text"]
#: The metadata key a case may name its matching with (top level, or under ``metadata``).
CASE_MATCH_KEY = "retrieval_match"


def has_references(case: TestCase) -> bool:
    """Whether the case names passages that should have been retrieved (by id or by text)."""
    return bool(case.reference_context_ids or case.reference_context_relevance or case.reference_contexts)


def reference_ids(case: TestCase) -> set[str]:
    return {str(x) for x in case.reference_context_ids} | {str(x) for x in case.reference_context_relevance}


def metadata_value(metadata: Mapping[str, Any], key: str) -> Any:
    """``metadata[key]``, or ``metadata["metadata"][key]`` (a file's ``metadata`` column is kept
    whole under that name); None when neither holds it."""
    v = metadata.get(key)
    if v is None and isinstance(metadata.get("metadata"), Mapping):
        v = metadata["metadata"].get(key)
    return v


def case_setting(case: TestCase) -> Mode | None:
    """The case's own ``retrieval_match`` (``id`` / ``text``), else None."""
    v = metadata_value(case.metadata, CASE_MATCH_KEY)
    v = str(v).strip().lower() if v is not None else ""
    return v if v in ("id", "text") else None  # type: ignore[return-value]


class MatchScan:
    """What the run's decision needs, read one case at a time."""

    def __init__(self) -> None:
        self.cases = 0
        self.with_references = 0
        self.id_hits = 0
        self.with_texts = 0
        #: Whether the app's ids mean anything to the test set (its words go into the reason).
        self.ids = IdCheck()

    def add(self, case: TestCase) -> None:
        self.cases += 1
        if not has_references(case):
            return
        self.with_references += 1
        if case.reference_contexts:
            self.with_texts += 1
        if case.document_ids and not self.id_hits:
            self.ids.add(case)
            refs = reference_ids(case)
            if any(str(d) in refs for d in case.document_ids):
                self.id_hits += 1

    @property
    def settled(self) -> bool:
        """True once nothing more can change an ``auto`` decision (a retrieved id met a reference id)."""
        return self.id_hits > 0

    def decide(self, setting: str = "auto") -> RetrievalRun:
        if not self.with_references:
            return RetrievalRun(match="none", reason="no case carries reference passages "
                                                     "(reference_context_ids / _relevance / reference_contexts)")
        if setting in ("id", "text"):
            return RetrievalRun(match=setting, reason=f"set explicitly (match: {setting})")  # type: ignore[arg-type]
        if self.id_hits:
            return RetrievalRun(match="id", reason="auto: retrieved ids of the run are reference ids")
        said = self.ids.message()
        if said:  # ids were given, none is a reference id: said plainly, with what the texts show
            return RetrievalRun(match="text" if self.with_texts else "id", reason=f"auto: {said}")
        if self.with_texts:
            return RetrievalRun(match="text", reason="auto: no retrieved id of the run is a reference id, so "
                                                     "retrieved passages are matched to reference_contexts by text")
        return RetrievalRun(match="id", reason="auto: no retrieved id of the run is a reference id and no case "
                                               "gives reference_contexts to match by text: matched by id (check "
                                               "that the app's ids are the test set's)")


def plan_run(cases: Iterable[TestCase], setting: str = "auto") -> RetrievalRun:
    """The run's decision over ``cases`` (every case of the run); stops reading once nothing can
    change it (auto: the first retrieved id that is a reference id; id / text: the first case with
    references)."""
    scan = MatchScan()
    for case in cases:
        scan.add(case)
        if scan.settled if setting == "auto" else scan.with_references:
            break
    return scan.decide(setting)


def with_plan(options: EvalOptions, cases: Iterable[TestCase]) -> EvalOptions:
    """``options`` with the run's decision over ``cases`` (unchanged when it already has one)."""
    if options.retrieval_run is not None:
        return options
    return options.model_copy(update={"retrieval_run": plan_run(cases, options.retrieval_match)})


def case_mode(case: TestCase, options: EvalOptions, run: RetrievalRun) -> tuple[Mode, str]:
    """(id / text, why) for one case: the explicit setting, else the case's own, else the run's."""
    if options.retrieval_match in ("id", "text"):
        return options.retrieval_match, f"set explicitly (match: {options.retrieval_match})"
    own = case_setting(case)
    if own is not None:
        return own, f"the case's metadata says {CASE_MATCH_KEY}: {own}"
    return ("text" if run.match == "text" else "id"), run.reason


__all__ = ["CASE_MATCH_KEY", "MatchScan", "Mode", "case_mode", "case_setting", "has_references", "metadata_value",
           "plan_run", "reference_ids", "with_plan"]
