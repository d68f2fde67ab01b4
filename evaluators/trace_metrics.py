"""Pure TRACE metrics from sentence labels — one function for every method.

Definitions (RAGBench, arXiv:2407.11005), with D = all document sentences, R = relevant keys,
U = utilized keys, S = response sentences:

* context_relevance   = |R| / |D|
* context_utilization = |U| / |D|        (NOT |R ∩ U| / |R|: a widely copied write-up confuses the two)
* completeness        = |R ∩ U| / |R|    (1.0 when R is empty: nothing relevant was left unused)
* adherence           = |{s in S : fully supported}| / |S|
* overall_supported   = every response sentence is fully supported
* expected_adherence  = mean over S of P(s fully supported) — the sentence's ``score`` where the
  labeler gives one (heuristic probability, jury vote share), else 1 / 0 by its verdict. Equal to
  adherence for labels without probabilities; otherwise the tie-free ranking of cases by how likely
  they hold unsupported claims (the hallucination ranking the bench scores, ``bench/lodo.py``).

Edge cases, documented rather than NaN:
* no document sentences: context_relevance = context_utilization = 0.0 (nothing useful was
  retrieved), completeness = 1.0 (no relevant sentence went unused);
* no response sentences: adherence = 1.0 and overall_supported = True (no claim is made); the
  pipeline flags an empty response as unscored before it gets here.
Keys not among the document keys are ignored (labelers record them in ``notes``).
"""

from __future__ import annotations

from .types import SentenceLabels, TraceScores


def compute(labels: SentenceLabels) -> TraceScores:
    doc = set(labels.document_keys)
    n_doc = len(doc)
    relevant = set(labels.relevant_keys) & doc
    utilized = set(labels.utilized_keys) & doc
    sents = labels.sentences
    full = sum(1 for s in sents if s.level == "full")
    partial = sum(1 for s in sents if s.level == "partial")
    none = len(sents) - full - partial
    return TraceScores(
        context_relevance=len(relevant) / n_doc if n_doc else 0.0,
        context_utilization=len(utilized) / n_doc if n_doc else 0.0,
        completeness=len(relevant & utilized) / len(relevant) if relevant else 1.0,
        adherence=full / len(sents) if sents else 1.0,
        overall_supported=full == len(sents),
        fully_supported_sentences=full,
        partially_supported_sentences=partial,
        unsupported_sentences=none,
        num_document_sentences=n_doc,
        num_response_sentences=len(sents),
        expected_adherence=expected_adherence(labels),
    )


def expected_adherence(labels: SentenceLabels) -> float:
    """Mean P(fully supported) of the response sentences (1.0 when there are none)."""
    sents = labels.sentences
    if not sents:
        return 1.0
    total = 0.0
    for s in sents:
        p = s.score if s.score is not None else (1.0 if s.fully_supported else 0.0)
        total += min(1.0, max(0.0, float(p)))
    return total / len(sents)
