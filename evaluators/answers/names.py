"""The answer metrics' names and what each means.

Contract: :data:`FAMILY` is the family every answer metric carries (``MetricValue.family``);
:data:`DECLARATIONS` holds each metric's description, formula, one-line example and direction — the
text of docs/metrics.md, the dashboard's help and glossary (registered with the family metrics by
``evaluators.families.answers``). :data:`REFUSAL_METRICS` are computed for every scored case,
:data:`CORRECTNESS_METRICS` for every case of a run where some case has a ``ground_truth``. Imports
nothing of the project.
"""

from __future__ import annotations

FAMILY = "answers"

DECLINED = "declined"
OVER_REFUSAL = "over_refusal"
ANSWER_RECALL = "answer_recall"
ANSWER_PRECISION = "answer_precision"
ANSWER_CORRECTNESS = "answer_correctness"

REFUSAL_METRICS: tuple[str, ...] = (DECLINED, OVER_REFUSAL)
CORRECTNESS_METRICS: tuple[str, ...] = (ANSWER_CORRECTNESS, ANSWER_RECALL, ANSWER_PRECISION)
METRICS: tuple[str, ...] = (*CORRECTNESS_METRICS, *REFUSAL_METRICS)

#: name -> (description, formula, one-line example, direction, binary).
DECLARATIONS: dict[str, tuple[str, str, str, str, bool]] = {
    ANSWER_CORRECTNESS: (
        "Does the answer say what the reference answer (ground_truth) says, and nothing it contradicts? The F1 of "
        "answer recall and answer precision, judged sentence by sentence offline with the same machinery that "
        "judges an answer against its documents (numbers, dates and names must match), or by one LLM call with "
        "an LLM method. Computed for every case with a ground_truth.",
        "2 · recall · precision / (recall + precision)",
        "the answer states 1 of the 2 reference facts (recall 0.5) and all its 2 claims are in the reference "
        "(precision 1.0) → 0.67", "higher", False),
    ANSWER_RECALL: (
        "Expected share of the reference answer's facts (its sentences that claim something) the answer "
        "states: a fact stated counts 1, one half said the share of its words the answer carries (0 with a "
        "number missing), each weighed by its closeness to the question; which reference fact is missing is "
        "listed per case (Inspect). An answer that declines states none.",
        "Σ weight · credit / Σ weight over the reference's facts",
        "reference \"16 weeks at full pay. Partners get 2 weeks.\", answer \"Primary carers get 16 weeks at full "
        "pay.\" → 0.54 (the facts weigh 0.39 and 0.34)", "higher", False),
    ANSWER_PRECISION: (
        "Share of the answer's claims (its sentences, without those that decline or state nothing) that the "
        "reference answer backs.",
        "|answer sentences the reference backs| / |answer sentences that claim something|",
        "2 of the answer's 3 claims are in the reference → 0.67", "higher", False),
    DECLINED: (
        "Whether the answer declines (\"the documents do not say\", \"I don't know\") instead of answering: per "
        "case 1 = yes, 0 = no; its mean is the share of declined answers. A refusal is right when the "
        "documents do not hold the answer, an over-refusal when they do (over_refusal). Counted lower-is-"
        "better (Compare, the gate): a version that declines less wins on it even where the questions had no "
        "answer — judge refusals by over_refusal and adherence.",
        "1 if a sentence declines and no other sentence states anything, else 0",
        "\"I'm sorry, the documents do not say.\" → 1", "lower", True),
    OVER_REFUSAL: (
        "Whether the answer declines although the documents hold the answer (a reference passage was "
        "retrieved, the documents state the reference answer, or — without references, the weaker check — a "
        "document sentence is close to the question): per case 1 = yes; its mean is the share of over-refusals.",
        "1 if declined and the documents hold the answer, else 0",
        "\"I don't know.\" to \"What do index funds track?\" with a document that says it → 1", "lower", True),
}

__all__ = ["ANSWER_CORRECTNESS", "ANSWER_PRECISION", "ANSWER_RECALL", "CORRECTNESS_METRICS", "DECLARATIONS",
           "DECLINED", "FAMILY", "METRICS", "OVER_REFUSAL", "REFUSAL_METRICS"]
