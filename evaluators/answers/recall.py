"""``answer_recall``'s arithmetic: how much of the reference answer the answer states.

Contract: :func:`fact_weights` gives, per ``(question, reference facts)``, how much each fact counts —
its closeness to the question (the cosine of the MiniLM vectors every labeling uses, at least
:data:`WEIGHT_FLOOR`): a fact that answers the question weighs more than an aside the reference adds
("Now for the bad news.", a tip about another product); all 1 when the encoder cannot be used.
:func:`with_refusals` turns the sentences of a reference answer that *partly* declines ("the documents
do not say when it was developed") into facts of their own — stated when the answer declines somewhere
too, missing when it answers that part anyway. :func:`weighted_recall` is the weighted mean of each
fact's credit (:attr:`evaluators.answers.judge.Sentence.credit`: 1 when the answer states it, else the
share of its content words the answer carries) over the facts that claim something — the expected
share of the reference's facts the answer states. Nothing here is fitted: the rules follow from what
the metric means (docs/answers.md gives the figures against human completeness).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .judge import Judged

#: The least a fact of the reference counts (one unrelated to the question by its vector still counts).
WEIGHT_FLOOR = 0.05


def fact_weights(pairs: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
    """Per ``(question, fact texts)``: each fact's weight (see the module docstring); one encoder call."""
    texts = list(dict.fromkeys(t for q, facts in pairs if facts for t in (q, *facts)))
    if not texts:
        return [[] for _ in pairs]
    try:
        from ..encoder import embeddings

        vecs = embeddings.encode(texts)
    except Exception:  # noqa: BLE001 - no encoder: every fact counts the same
        return [[1.0] * len(facts) for _, facts in pairs]
    row = {t: i for i, t in enumerate(texts)}
    return [[max(float(vecs[row[f]] @ vecs[row[q]]), WEIGHT_FLOOR) for f in facts] for q, facts in pairs]


def with_refusals(facts: Judged, answer_declines_somewhere: bool) -> Judged:
    """The reference's declining sentences as facts: stated when a sentence of the answer declines too."""
    if not any(s.declines for s in facts.sentences):
        return facts
    said = "the answer says so too" if answer_declines_somewhere else "the answer answers it anyway"
    return Judged(sentences=tuple(
        replace(s, claims=True, stated=answer_declines_somewhere,
                why=f"the reference says the documents do not hold this; {said}") if s.declines else s
        for s in facts.sentences), error=facts.error)


def weighted_recall(facts: Judged, weights: Sequence[float]) -> float | None:
    """The weighted mean credit of the facts that claim something (None: none does)."""
    num = den = 0.0
    for s, w in zip(facts.sentences, weights):
        if s.claims:
            num += w * s.credit
            den += w
    return num / den if den else None


__all__ = ["WEIGHT_FLOOR", "fact_weights", "weighted_recall", "with_refusals"]
