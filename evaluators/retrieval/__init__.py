"""Retrieval metrics: did the app retrieve the passages that should have been retrieved?

    from evaluators.retrieval import case_metrics, metric_names, plan_run, score_cases
    from evaluators.types import TestCase

    case = TestCase(id="q1", question="...", response="...", documents=("a", "b", "c"),
                    document_ids=("d7", "d2", "d9"), reference_context_ids=("d2", "d4"))
    values = case_metrics(case, "id", ks=(1, 3))   # {name: MetricValue}, family "retrieval"
    values["recall@3"].value                       # 0.5: d2 retrieved, d4 not
    values["mrr"].value                            # 0.5: the first relevant passage is at rank 2

Every case with references gets ``hit@K``, ``precision@K``, ``recall@K``, ``mrr``, ``map@K`` and
``ndcg@K`` (K = 1, 3, 5, 10 by default: ``EvalOptions.retrieval_k``, ``--k``) with trec_eval's
definitions, checked against pytrec_eval. ``evaluate`` / ``evaluate_batch`` add them to every case
of a run that carries references (``CaseResult.metrics``, like the family metrics), so the run's
means, intervals, ``--fail-under``, ``compare`` and ``--fail-on-regression`` take them by name.

Modules (this package's surface is below):

* ``names`` — the metric names (``ndcg@5``), their declarations (description, formula, example),
  ``--k`` parsing;
* ``measures`` — trec_eval's measures of one ranked list of grades (pure arithmetic);
* ``matching`` — retrieved passages against the references: by id, or by text (word-trigram
  overlap ≥ 0.5 of the shorter text), repeats counted once;
* ``plan`` — by id or by text, decided once per run (``auto``: ids when any retrieved id of the run
  is a reference id, else text), the explicit setting and each case's own ``retrieval_match``;
* ``idcheck`` — a run whose passage ids match no reference id, said plainly (and whether its texts
  match instead);
* ``scoring`` — each case's metrics, valued or skipped with the reason.
"""

from __future__ import annotations

from .idcheck import IdCheck
from .matching import TEXT_MATCH_THRESHOLD, Ranking, by_id, by_text, overlap, shingles, text_references, words
from .measures import measures
from .names import (
    DECLARATIONS,
    FAMILY,
    binary,
    is_retrieval_metric,
    metric_names,
    parse_k,
    split,
    template,
)
from .plan import CASE_MATCH_KEY, MatchScan, case_mode, has_references, plan_run, with_plan
from .scoring import NO_REFERENCES, case_metrics, ranking, score_cases, skipped

__all__ = [
    "CASE_MATCH_KEY", "DECLARATIONS", "FAMILY", "IdCheck", "MatchScan", "NO_REFERENCES", "Ranking",
    "TEXT_MATCH_THRESHOLD",
    "binary", "by_id", "by_text", "case_metrics", "case_mode", "has_references", "is_retrieval_metric", "measures",
    "metric_names", "overlap", "parse_k", "plan_run", "ranking", "score_cases", "shingles", "skipped", "split",
    "template", "text_references", "with_plan", "words",
]
