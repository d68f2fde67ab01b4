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

_DESCRIPTIONS = {
    "context_relevance": "Share of document sentences relevant to the question (|relevant| / |document "
                         "sentences|).",
    "context_utilization": "Share of document sentences the response uses (|utilized| / |document "
                           "sentences|).",
    "completeness": "Share of the relevant sentences the response uses (|relevant ∩ utilized| / "
                    "|relevant|; 1 when nothing is relevant).",
    "adherence": "Share of response sentences fully supported by the documents.",
    EXPECTED_ADHERENCE: "Mean P(fully supported) over the response sentences (the labeler's probability; "
                        "its verdict where it has none): the expected adherence, a ranking without ties "
                        "(lowest = likeliest hallucination).",
    OVERALL_SUPPORTED: "1 when every response sentence is fully supported, else 0.",
    AVERAGE: "Mean of context_relevance, context_utilization, completeness and adherence.",
}


def _reader(name: str):
    def compute(ctx: Ctx) -> float:
        if ctx.scores is None:
            raise Skip("the case has no sentence labels")
        return ctx.scores.value(name)
    return compute


for _name, _description in _DESCRIPTIONS.items():
    register(Metric(
        name=_name, family=FAMILY, description=_description, inputs=("question", "response", "documents"),
        compute=_reader(_name), binary=_name == OVERALL_SUPPORTED, reference_llm_calls="0",
        llm_calls_note="from the method's sentence labels (no call of its own)",
    ))
