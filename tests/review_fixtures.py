"""Runs for the review tests, made through the real pipeline by a scripted labeler whose sentence
probabilities the test chooses (labels say ``method = "trace"``, with a threshold, like the offline
method), and hybrid copies of them with a second labeling."""

from __future__ import annotations

from typing import Callable, Sequence

from evaluators import trace_metrics
from evaluators.labelers.agreement import agreement
from evaluators.methods import BaseMethod
from evaluators.options import EvalOptions
from evaluators.pipeline import evaluate_batch
from evaluators.types import LabelOutcome, RunResult, SentenceLabels, SentenceSupport, SentencizedCase, TestCase

THRESHOLD = 0.8


def case(i: int, n_resp: int = 3, n_docs: int = 2) -> TestCase:
    docs = tuple(" ".join(f"Document {d} says fact {j} of item {i} is plain." for j in range(3))
                 for d in range(n_docs))
    resp = " ".join(f"Item {i} has property {k}." for k in range(n_resp))
    return TestCase(id=f"case-{i}", question=f"What about item {i}?", response=resp, documents=docs)


Probs = Callable[[TestCase, int], float]


class Scripted(BaseMethod):
    """Sentence k of a case gets P(supported) = ``probs(case, k)``; fully supported at
    :data:`THRESHOLD`, partial (first document sentence) from 0.3; relevant = the first two document
    sentences, utilized = the supporting ones; ``confidence`` from ``conf(case)`` when given."""

    def __init__(self, probs: Probs, conf: Callable[[TestCase], float | None] | None = None) -> None:
        self.probs, self.conf = probs, conf

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick) -> list[LabelOutcome]:
        out = []
        for it in items:
            keys = it.doc_keys
            sents, used = [], set()
            for k, s in enumerate(it.response_sentences):
                p = float(self.probs(it.case, k))
                sup = (keys[0],) if p >= 0.3 and keys else ()
                used.update(sup)
                sents.append(SentenceSupport(key=s.key, supporting_keys=sup, fully_supported=p >= THRESHOLD,
                                             explanation=f"scripted {p:.2f}", score=p))
            out.append(LabelOutcome(labels=SentenceLabels(
                method="trace", document_keys=keys, relevant_keys=keys[:2],
                utilized_keys=tuple(k for k in keys if k in used), sentences=tuple(sents),
                overall_supported=all(s.fully_supported for s in sents),
                confidence=self.conf(it.case) if self.conf else None, extra={"threshold": THRESHOLD})))
        return out


def scripted_run(register_method, cases: Sequence[TestCase], probs: Probs, conf=None) -> RunResult:
    register_method("scripted", Scripted(probs, conf))
    return evaluate_batch(list(cases), "scripted")


def flip(labels: SentenceLabels, keys: Sequence[str], method: str = "gpt_labeling") -> SentenceLabels:
    """The same labels with the support verdicts of ``keys`` turned over (full <-> none)."""
    sents = tuple(s.model_copy(update={"fully_supported": not s.fully_supported, "score": None,
                                       "supporting_keys": s.supporting_keys if not s.fully_supported else ()})
                  if s.key in keys else s.model_copy(update={"score": None}) for s in labels.sentences)
    return labels.model_copy(update={"method": method, "sentences": sents, "confidence": None,
                                     "overall_supported": all(s.fully_supported for s in sents)})


def hybridize(run: RunResult, flips: dict[str, Sequence[str]]) -> RunResult:
    """A hybrid-shaped copy: variants ``trace`` (the run's labels) and ``gpt_labeling`` (the same with
    the sentences ``flips[case id]`` turned over), which is also the final labeling."""
    out = []
    for r in run.results:
        if r.labels is None:
            out.append(r)
            continue
        other = flip(r.labels, flips.get(r.case.id, ()))
        variants = {"trace": r.labels, "gpt_labeling": other}
        out.append(r.model_copy(update={
            "labels": other, "scores": trace_metrics.compute(other), "labeled_by": "gpt_labeling",
            "variants": variants, "variant_scores": {k: trace_metrics.compute(v) for k, v in variants.items()},
            "agreement": agreement(r.labels, other)}))
    return run.model_copy(update={"method": "hybrid", "results": tuple(out)})
