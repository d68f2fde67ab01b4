"""LLM work of the family metrics, grouped so that a case makes as few calls as possible.

Metrics declare *tasks* (e.g. ``claims``, ``verify.claims_docs``, ``chunk.useful``); the planner
turns the union of a case's tasks into at most these calls (each a structured, pydantic-validated
reply through ``evaluators.llm``: fence-strip, json-repair, validate, re-ask once, else the call
fails with its reason):

=============  =====================================================================================
group          what one call returns
=============  =====================================================================================
response       claims of the response; N questions it answers + a noncommittal flag; binary
               judgments (aspects, duplication, hate speech) when strictness is 1
judge#i        binary judgments, sample i (only when strictness > 1: one call per sample)
chunks         per retrieved chunk: relevant to the question / useful for the reference answer /
               used in the response; the relevant context sentence keys (context_relevancy, n = 1)
relevancy#i    relevant context sentence keys, sample i (context_relevancy strictness > 1)
verify         per response claim: supported by the documents / by the ground truth; per
               ground-truth sentence: attributable to the documents / covered by the response;
               the 0-5 answer-similarity grade; the entities of the ground truth and of the
               context (context_entity_recall, LLM mode). Runs after ``response`` when it needs
               the claims.
pii            PII types (beyond the offline detectors) found in the response and in the context
=============  =====================================================================================

A failed call becomes a :class:`GroupOutcome` with ``error``; the metrics that read it are skipped
with that reason, every other metric and case is unaffected.

The package, by job: ``schemas`` (reply models, aspects, the planner's records), ``prompts`` (one
prompt + validation per group), ``plan`` (which calls a case makes; offline estimates), ``run``
(making the calls).
"""

from __future__ import annotations

from .plan import estimate_calls, estimate_prompts, plan_case
from .prompts import (
    chunks_spec,
    context_sentences,
    ground_truth_sentences,
    judge_specs,
    pii_spec,
    relevancy_specs,
    response_spec,
    verify_spec,
)
from .run import run_groups
from .schemas import (
    ASPECTS,
    LOWER_IS_BETTER,
    SYSTEM,
    AspectVerdict,
    CallSpec,
    ChunkJudgment,
    ChunkVerdict,
    GroupOutcome,
    ItemVerdict,
    Judgments,
    Needs,
    PIIFound,
    RelevantSentences,
    ResponseAnalysis,
    Verification,
)

__all__ = [
    "ASPECTS", "LOWER_IS_BETTER", "SYSTEM", "AspectVerdict", "CallSpec", "ChunkJudgment", "ChunkVerdict",
    "GroupOutcome", "ItemVerdict", "Judgments", "Needs", "PIIFound", "RelevantSentences", "ResponseAnalysis",
    "Verification", "chunks_spec", "context_sentences", "estimate_calls", "estimate_prompts",
    "ground_truth_sentences", "judge_specs", "pii_spec", "plan_case", "relevancy_specs", "response_spec",
    "run_groups", "verify_spec",
]
