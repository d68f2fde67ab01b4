"""Per-case agreement between two label sets of the same case (hybrid's trace vs LLM labels, the
jurors of a jury):

* ``support_agreement`` — share of response sentences with the same fully-supported verdict;
* ``support_level_agreement`` — same full/partial/none level;
* ``relevance_agreement`` / ``utilization_agreement`` — share of document sentences both call
  relevant / utilized or both do not;
* ``overall_supported_agreement`` — 1.0 when both give the same overall verdict;
* ``<metric>_abs_diff`` for context_relevance, context_utilization, completeness, adherence.

Run-level agreement of two methods is ``evaluators.agreement.method_vs_method``; of a hybrid
run's two variants, ``evaluators.agreement.variant_agreement``.
"""

from __future__ import annotations

from .. import trace_metrics
from ..types import TRACE_METRICS, SentenceLabels


def agreement(a: SentenceLabels, b: SentenceLabels) -> dict[str, float]:
    """Per-case agreement figures between two label sets of the same case (see module docstring)."""
    sa = {s.key: s for s in a.sentences}
    sb = {s.key: s for s in b.sentences}
    common = [k for k in sa if k in sb]
    out: dict[str, float] = {}
    if common:
        out["support_agreement"] = sum(sa[k].fully_supported == sb[k].fully_supported for k in common) / len(common)
        out["support_level_agreement"] = sum(sa[k].level == sb[k].level for k in common) / len(common)
    doc = list(a.document_keys)
    if doc:
        ra, rb, ua, ub = set(a.relevant_keys), set(b.relevant_keys), set(a.utilized_keys), set(b.utilized_keys)
        out["relevance_agreement"] = sum((k in ra) == (k in rb) for k in doc) / len(doc)
        out["utilization_agreement"] = sum((k in ua) == (k in ub) for k in doc) / len(doc)
    ta, tb = trace_metrics.compute(a), trace_metrics.compute(b)
    out["overall_supported_agreement"] = float(ta.overall_supported == tb.overall_supported)
    for m in TRACE_METRICS:
        out[f"{m}_abs_diff"] = abs(getattr(ta, m) - getattr(tb, m))
    return out

