"""The TRACE metric vocabulary: every name, typed once.

Everything else (types, export, gate, CLI, agreement statistics, dashboard) reads these tuples;
the metric *declarations* (description, range, direction) are registered with the family metrics
in ``evaluators.families.trace``. Imports nothing, so any module may use it.
"""

from __future__ import annotations

#: The four ratio metrics of one case (``TraceScores`` fields), in report order.
TRACE_METRICS: tuple[str, ...] = ("context_relevance", "context_utilization", "completeness", "adherence")
#: Every response sentence is fully supported (a 0/1 verdict per case; its mean is a share).
OVERALL_SUPPORTED = "overall_supported"
#: Mean over the response sentences of P(fully supported) (the labeler's probability; 1 / 0 where a
#: sentence has none): what adherence is expected to be, and a ranking without ties — sort by it,
#: ascending, to see the likeliest hallucinations first. Equals adherence for labels without
#: probabilities (LLM labeling).
EXPECTED_ADHERENCE = "expected_adherence"
#: Mean of the four ratios of a case.
AVERAGE = "average"
#: Sentence counts of one case (``TraceScores`` fields, reported per case, never averaged).
SENTENCE_COUNTS: tuple[str, ...] = (
    "fully_supported_sentences", "partially_supported_sentences", "unsupported_sentences")
#: The per-case ``metrics`` object of the results JSON, in order.
CASE_METRICS: tuple[str, ...] = (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED, *SENTENCE_COUNTS)
#: The run means of the results JSON (and what ``--fail-under`` accepts besides family metrics).
SUMMARY_METRICS: tuple[str, ...] = (*TRACE_METRICS, OVERALL_SUPPORTED, AVERAGE)
#: Per-case values of TRACE metrics (``CaseResult.value`` reads these from ``TraceScores``).
TRACE_VALUES: frozenset[str] = frozenset((*SUMMARY_METRICS, EXPECTED_ADHERENCE))

__all__ = ["AVERAGE", "CASE_METRICS", "EXPECTED_ADHERENCE", "OVERALL_SUPPORTED", "SENTENCE_COUNTS", "SUMMARY_METRICS",
           "TRACE_METRICS", "TRACE_VALUES"]
