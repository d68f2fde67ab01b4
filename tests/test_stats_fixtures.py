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
