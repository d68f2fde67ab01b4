"""The retrieval metrics of cases: every metric valued, or skipped with the reason — never a 0 for
a case that cannot be scored.

Contract: :func:`score_cases` gives one ``{name: MetricValue}`` per case (family ``retrieval``,
names :func:`.names.metric_names` of ``options.retrieval_k``), what the pipeline adds to each
``CaseResult.metrics``; an empty dict for every case when the run carries no reference at all (a
plain run is unchanged). :func:`case_metrics` scores one case in a given mode. A case is skipped,
with a reason naming what is missing, when it has no reference passage, when nothing relevant is
judged (every grade 0), when its app call failed and retrieved nothing, when matching by id but its
documents carry no ids (or it names its references only as texts), and when matching by text but it
gives no ``reference_contexts``. A case with references whose app retrieved nothing scores 0. The
``mrr`` value carries the case's details: the mode, the ranks of the relevant passages retrieved,
the size of the relevant set, the ranks that repeated a passage.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..options import EvalOptions, RetrievalRun
from ..types import MetricValue, TestCase
from .matching import TEXT_MATCH_THRESHOLD, Ranking, by_id, by_text, text_references
from .measures import measures
from .names import FAMILY, MRR, metric_names
from .plan import Mode, case_mode, has_references, metadata_value, plan_run

NO_REFERENCES = ("no reference passages to score retrieval against (reference_context_ids, "
                 "reference_context_relevance or reference_contexts)")


def skipped(ks: Sequence[int], reason: str) -> dict[str, MetricValue]:
    """Every retrieval metric of ``ks`` skipped with ``reason``."""
    return {n: MetricValue(name=n, family=FAMILY, skipped=reason) for n in metric_names(ks)}


def _app_failure(case: TestCase) -> str | None:
    """The app's error when its call failed and nothing was retrieved (the target runner's
    ``metadata.error``), else None."""
    if case.documents:
        return None
    err = metadata_value(case.metadata, "error")
    return str(err) if err not in (None, "", False) else None


def _why_not(case: TestCase, mode: Mode, why: str) -> str | None:
    """The reason ``case`` cannot be scored in ``mode`` (None: it can)."""
    if not has_references(case):
        return NO_REFERENCES
    failed = _app_failure(case)
    if failed is not None:
        return f"the app call failed and retrieved nothing to score (error: {failed[:200]})"
    if mode == "id":
        if not case.relevance_judgments():
            if case.reference_context_relevance:
                return "no passage is judged relevant (every grade in reference_context_relevance is 0)"
            return (f"matching by id ({why}), but the case gives its reference passages only as texts "
                    "(reference_contexts): match by text (--match text or auto)")
        if case.documents and not case.document_ids:
            fix = ("or match by text (--match text)" if case.reference_contexts
                   else "or give the reference passages' texts (reference_contexts) to match by text")
            return (f"matching by id ({why}), but the retrieved documents carry no ids: give document_ids (a "
                    f"document_ids column, or documents as {{id, text}}) {fix}")
        return None
    if not case.reference_contexts:
        alt = ("; it names them by id only: match by id (--match id)" if case.reference_context_ids
               or case.reference_context_relevance else "")
        return (f"matching by text ({why}), but the case gives no reference_contexts (the texts of the "
                f"passages that should have been retrieved){alt}")
    return None


def ranking(case: TestCase, mode: Mode, threshold: float = TEXT_MATCH_THRESHOLD) -> Ranking:
    """The case's ranking in ``mode`` (the case must be scorable: see :func:`case_metrics`)."""
    if mode == "id":
        return by_id(case.document_ids, case.relevance_judgments())
    refs = text_references(case.reference_contexts, case.reference_context_ids, case.reference_context_relevance)
    return by_text(case.documents, refs, threshold)


def case_metrics(case: TestCase, mode: Mode, ks: Sequence[int], why: str = "",
                 threshold: float = TEXT_MATCH_THRESHOLD) -> dict[str, MetricValue]:
    """Every retrieval metric of one case matched by ``mode`` (``why``: the reason for the mode, in
    skip messages), valued or skipped with the reason."""
    reason = _why_not(case, mode, why or f"match: {mode}")
    if reason is not None:
        return skipped(ks, reason)
    rk = ranking(case, mode, threshold)
    if not rk.relevant:
        return skipped(ks, "no reference passage is judged relevant (every grade is 0)")
    values = measures(rk.grades, list(rk.relevant.values()), ks)
    details: dict[str, Any] = {"match": mode, "relevant_ranks": rk.relevant_ranks(), "num_relevant": len(rk.relevant),
                               "num_retrieved": len(rk.grades)}
    if rk.repeats:
        details["repeated_ranks"] = list(rk.repeats)
    # built without re-validation (21 per case: half the cost of scoring by id); the values are floats
    return {n: MetricValue.model_construct(name=n, family=FAMILY, value=v, skipped=None,
                                           details=details if n == MRR else {})
            for n, v in values.items()}


def score_cases(cases: Sequence[TestCase], options: EvalOptions) -> list[dict[str, MetricValue]]:
    """The retrieval metrics of each case (see the module docstring). The run's matching is
    ``options.retrieval_run``, else decided over ``cases`` (the whole run when called once)."""
    run: RetrievalRun = options.retrieval_run or plan_run(cases, options.retrieval_match)
    if run.match == "none":
        return [{} for _ in cases]
    out = []
    for case in cases:
        if not has_references(case):
            out.append(skipped(options.retrieval_k, NO_REFERENCES))
            continue
        mode, why = case_mode(case, options, run)
        out.append(case_metrics(case, mode, options.retrieval_k, why))
    return out


__all__ = ["NO_REFERENCES", "case_metrics", "ranking", "score_cases", "skipped"]
