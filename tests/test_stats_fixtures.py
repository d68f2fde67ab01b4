"""Synthetic RunResults for the stats / compare / gate tests (no model needed; holds no tests)."""

from __future__ import annotations

from typing import Any, Sequence

from evaluators import trace_metrics
from evaluators.types import CaseResult, MetricValue, RunResult, SentenceLabels, SentenceSupport, TestCase


def make_case(i: int, adherence_sents: Sequence[bool], *, relevant: int = 2, utilized: int = 1,
              n_doc: int = 4, labels: dict[str, Any] | None = None, metadata: dict[str, Any] | None = None,
              probs: Sequence[float] | None = None, method: str = "trace",
              family: dict[str, float | None] | None = None, question: str | None = None) -> CaseResult:
    keys = [f"0{chr(97 + k)}" for k in range(n_doc)]
    sents = tuple(
        SentenceSupport(key=chr(97 + j), fully_supported=ok, supporting_keys=(keys[0],) if ok else (),
                        score=None if probs is None else probs[j])
        for j, ok in enumerate(adherence_sents)
    )
    lab = SentenceLabels(method=method, document_keys=tuple(keys), relevant_keys=tuple(keys[:relevant]),
                         utilized_keys=tuple(keys[:utilized]), sentences=sents,
                         overall_supported=all(adherence_sents))
    case = TestCase(id=f"c{i}", question=question or f"question {i}?", response="r",
                    documents=("d",), labels=labels or {}, metadata=metadata or {})
    metrics = {n: MetricValue(name=n, family="ragas", value=v, skipped=None if v is not None else "skipped")
               for n, v in (family or {}).items()}
    return CaseResult(case=case, method=method, labels=lab, scores=trace_metrics.compute(lab), metrics=metrics)


def failed_case(i: int, labels: dict[str, Any] | None = None, method: str = "trace") -> CaseResult:
    case = TestCase(id=f"c{i}", question=f"question {i}?", response="", labels=labels or {})
    return CaseResult(case=case, method=method, error="response is empty: nothing to evaluate")


def make_run(results: Sequence[CaseResult], method: str = "trace") -> RunResult:
    return RunResult(method=method, results=tuple(results))


def make_hybrid_case(i: int, trace_sents: Sequence[bool], llm_sents: Sequence[bool] | None, *,
                     trace_probs: Sequence[float] | None = None, relevant: int = 2,
                     llm_relevant: int = 2) -> CaseResult:
    """A hybrid case: ``trace`` and (when ``llm_sents`` is given) ``gpt_labeling`` labels as
    variants, their scores and per-case agreement, the LLM's labels final (as ``hybrid`` does)."""
    from evaluators.labelers.agreement import agreement

    t = make_case(i, trace_sents, relevant=relevant, probs=trace_probs).labels
    assert t is not None
    variants = {"trace": t}
    final = t
    if llm_sents is not None:
        g = make_case(i, llm_sents, relevant=llm_relevant, method="gpt_labeling").labels
        assert g is not None
        variants["gpt_labeling"] = final = g
    base = make_case(i, trace_sents)
    return base.model_copy(update={
        "method": "hybrid", "labels": final, "scores": trace_metrics.compute(final),
        "labeled_by": final.method, "variants": variants,
        "variant_scores": {k: trace_metrics.compute(v) for k, v in variants.items()},
        "agreement": agreement(t, variants["gpt_labeling"]) if llm_sents is not None else {}})
