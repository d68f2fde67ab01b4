"""The TRACE metrics, registered like every family metric (family ``"trace"``).

They are computed for every case from the sentence labels (``trace_metrics.compute``), so they
are never *requested*: ``--metrics`` / ``EvalOptions.metrics`` take the other families, and
:func:`evaluators.families.list_metrics` lists them only with ``include_trace=True``. Their
declarations give one place for what each TRACE metric means, its range and direction; their
``compute`` reads the case's ``TraceScores`` (``CaseResult.value`` semantics).
"""

from __future__ import annotations

from ..types import AVERAGE, EXPECTED_ADHERENCE, OVERALL_SUPPORTED
from .base import Ctx, Family, Metric, Skip, register

FAMILY: Family = "trace"

#: name -> (description, formula, one-line example). Order = report order.
_DECLARATIONS: dict[str, tuple[str, str, str]] = {
    "context_relevance": (
        "Share of the retrieved document sentences that are relevant to the question: how much of "
        "what the retriever brought back is on topic.",
        "|relevant document sentences| / |document sentences|",
        "4 of 10 document sentences help answer the question → 0.40"),
    "context_utilization": (
        "Share of the retrieved document sentences the response actually uses.",
        "|utilized document sentences| / |document sentences|",
        "the answer draws on 2 of 10 document sentences → 0.20"),
    "completeness": (
        "Share of the relevant document sentences the response uses: did the answer use all the "
        "relevant evidence it was given? 1 when nothing is relevant.",
        "|relevant ∩ utilized| / |relevant| (1 when nothing is relevant)",
        "3 of the 4 relevant sentences are used → 0.75"),
    "adherence": (
        "Share of the response sentences fully supported by the documents (grounding; a low value "
        "points at hallucinated or unsupported claims).",
        "|fully supported response sentences| / |response sentences|",
        "2 of 3 answer sentences are fully backed by the documents → 0.67"),
    EXPECTED_ADHERENCE: (
        "Mean probability that a response sentence is fully supported (the labeler's probability; "
        "its 1 / 0 verdict where it gives none): adherence without ties — sort by it, lowest first, "
        "to see the likeliest hallucinations.",
        "mean over response sentences of P(fully supported)",
        "sentence probabilities 0.9, 0.8 and 0.1 → 0.60 (the third sentence is the suspect)"),
    OVERALL_SUPPORTED: (
        "Whether every response sentence is fully supported (per case 1 = yes, 0 = no; its mean "
        "over cases is the share of fully grounded answers).",
        "1 if every response sentence is fully supported, else 0",
        "one partially supported sentence → 0 (no)"),
    AVERAGE: (
        "Mean of the four TRACE ratios of the case.",
        "(context_relevance + context_utilization + completeness + adherence) / 4",
        "0.4, 0.2, 0.8 and 0.6 → 0.50"),
}

#: The per-case sentence counts reported next to the metrics (columns, never averaged).
COUNT_DESCRIPTIONS: dict[str, str] = {
    "fully_supported_sentences": "Response sentences fully supported by the documents.",
    "partially_supported_sentences": "Response sentences only partly supported (part of the claim "
                                     "is in the documents, part is not): possible hallucinations.",
    "unsupported_sentences": "Response sentences with no support in the documents.",
}


def _reader(name: str):
    def compute(ctx: Ctx) -> float:
        if ctx.scores is None:
            raise Skip("the case has no sentence labels")
        return ctx.scores.value(name)
    return compute


for _name, (_description, _formula, _example) in _DECLARATIONS.items():
    register(Metric(
        name=_name, family=FAMILY, description=_description, formula=_formula, example=_example,
        inputs=("question", "response", "documents"),
        compute=_reader(_name), binary=_name == OVERALL_SUPPORTED, reference_llm_calls="0",
        llm_calls_note="from the method's sentence labels (no call of its own)",
    ))
