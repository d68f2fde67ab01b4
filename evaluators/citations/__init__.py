"""Citations: the answer's own evidence — inline markers checked against the documents they name.

    from evaluators.citations import find, strip, case_metrics
    from evaluators import evaluate

    r = evaluate({"question": "…", "documents": ["WLUR … In July 2001 …", "… extracurricular …"],
                  "response": "Students took over WLUR in 2001 [1]. It is extracurricular [2]."})
    r.metrics["citation_recall"].value      # 1.0: each claim's cited document carries it
    r.metrics["citation_precision"].value   # 1.0: no citation is superfluous
    r.metrics["uncited_claims"].value       # 0.0
    find("… since 2001 [2].", docs)         # the markers, their spans and the documents they name

A marker names a document by its **1-based position** (``[1]`` = the first document), or by the id /
title a document has (``[policy.pdf]``, a ``[^1]: policy.pdf`` footnote). The markers are left out of a
sentence's text when it is judged (``strip``; ``trace`` and the LLM prompt read the sentence without
them), and every claim's citations are judged with ALCE's definitions of citation recall and
precision on the labels of whichever method labelled the case. A run adds the three metrics to every
case when some response **of the run** carries a marker (``CaseResult.metrics``, family ``"citations"``),
so the run's means, intervals, ``--fail-under``, ``compare`` and ``--fail-on-regression`` take them by
name; a run with no marker anywhere gets none. The decision is made once per run, before it is cut into
chunks (``plan``: ``EvalOptions.citation_run``), so a file or a dashboard run evaluated chunk by chunk
has them on every case or on none.

Modules (this package's surface is below):

* ``markers`` — the marker styles, the documents they name, what is no marker (years, code, indexes);
* ``plan`` — the run's decision (does some response of the run cite?), made over all its cases;
* ``judge`` — per sentence: its citations, whether they support it, which are irrelevant; per case the
  three values and their details.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..options import CitationRun
from ..types import CaseResult, MetricValue
from .judge import SentenceCitations, assign, case_values, doc_of, judge
from .markers import MAX_CITATION, Marker, Ref, find, footnote_definitions, strip, titles
from .plan import CiteScan, plan_run, with_plan

FAMILY = "citations"

#: name -> (description, formula, example, direction)
DECLARATIONS: dict[str, tuple[str, str, str, str]] = {
    "citation_recall": (
        "Share of the response's claims whose cited documents together support them (ALCE citation "
        "recall); a claim with no citation scores 0.",
        "mean over claim sentences of [the cited documents together support the sentence]",
        "2 claims, one cited by a document that carries it, one uncited → 0.5", "higher"),
    "citation_precision": (
        "Share of the citations that are relevant (ALCE citation precision): a citation is irrelevant "
        "when its document alone does not support the claim and the claim's other citations do "
        "without it; a citation of a claim its cited documents do not support, or of a document the "
        "case does not have, is not relevant either.",
        "relevant citations / all citations of the claims",
        "'… in 2001 [1][3].' where [1] carries it and [3] adds nothing → 0.5", "higher"),
    "uncited_claims": (
        "Share of the response's claims (sentences that need support) that cite no document.",
        "claims without a citation marker / claims",
        "3 claims, 1 without a marker → 0.33", "lower"),
}


def metric_names() -> tuple[str, ...]:
    return tuple(DECLARATIONS)


def case_metrics(result: CaseResult, required: bool = False) -> dict[str, MetricValue]:
    """The three citation metrics of a scored case (empty when it has no labels or no split).
    ``required``: score it even when its response carries no marker (some response of its run
    does: a claim without a citation then counts against it)."""
    labels, spans = result.labels, result.spans
    if labels is None or spans is None or not result.ok:
        return {}
    case = result.case
    if not required and not find(case.response, case.documents, case.document_ids):
        return {}
    sents = judge(case.response, case.documents, labels, spans.response, case.document_ids)
    values, details = case_values(sents)
    out: dict[str, MetricValue] = {}
    for name in DECLARATIONS:
        v = values[name]
        if v is None:
            why = ("the response cites no document" if name == "citation_precision"
                   else "the response makes no claim that needs support")
            out[name] = MetricValue(name=name, family=FAMILY, skipped=why)
        else:
            out[name] = MetricValue(name=name, family=FAMILY, value=round(float(v), 6),
                                    details=details if name == "citation_recall" else {})
    return out


def score_results(results: Sequence[CaseResult], run: CitationRun | None = None) -> list[dict[str, MetricValue]]:
    """Per case its citation metrics: for every scored case when the run cites (``run``, the run's
    decision made over all its cases: ``plan``; None: decided over ``results``, the whole run when
    called once) — an answer that forgot its citations counts — else none."""
    cites = run.cited if run is not None else plan_run(r.case for r in results).cited
    if not cites:
        return [{} for _ in results]
    return [case_metrics(r, required=True) for r in results]


def details_of(result: CaseResult) -> dict[str, Any]:
    """The per-sentence citation verdicts stored with a case (``citation_recall``'s details)."""
    mv = result.metrics.get("citation_recall")
    return dict(mv.details) if mv is not None else {}


__all__ = ["DECLARATIONS", "FAMILY", "MAX_CITATION", "CiteScan", "Marker", "Ref", "SentenceCitations", "assign",
           "case_metrics", "case_values", "details_of", "doc_of", "find", "footnote_definitions", "judge",
           "metric_names", "plan_run", "score_results", "strip", "titles", "with_plan"]
