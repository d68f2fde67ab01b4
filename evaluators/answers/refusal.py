"""Right refusal or over-refusal: when an answer declines, do its documents hold the answer?

Contract: :func:`evidence_needed` says whether a declined case needs its reference answer judged
against its documents (:func:`evaluators.answers.judge.judge`); :func:`verdict` gives ``(over_refusal,
why)`` from what is known of the case, in this order:

1. no documents (or only empty ones): a right refusal — nothing to answer from;
2. a reference passage was retrieved (the case's retrieval metrics: ``mrr`` > 0): an over-refusal;
3. the documents state the reference answer (``ground_truth``: at least half its facts fully
   supported by the documents): an over-refusal; a reference answer that declines too: a right refusal;
4. the case carries reference passages or a reference answer and neither of the above holds: a right
   refusal — the documents do not hold the answer;
5. neither reference (the weaker check): the document sentence closest to the question — at a MiniLM
   cosine of :data:`CLOSE_TO_QUESTION` or more, an over-refusal (a sentence that close usually holds
   the answer), else a right refusal. The labeler's relevant sentences would not do: on MTRAG-UN tasks
   whose documents lack the answer it called 47 of 48 refusals over-refusals (docs/answers.md).
"""

from __future__ import annotations

from typing import Any, Sequence

from ..types import CaseResult
from .judge import Judged

#: Share of the reference answer's facts the documents must state for them to "hold the answer".
HOLDS_SHARE = 0.5
#: Without any reference, the cosine (MiniLM) between the question and the closest document sentence from
#: which the documents are taken to hold the answer: the best balanced accuracy (0.82) between MTRAG-UN
#: answerable turns with their own passages and turns whose passages lack the answer (unanswerable turns
#: with retrieved passages, answerable ones with passages retrieved elsewhere or another conversation's);
#: fitted on one collection it holds on the other (bench/answers_bench.py --part overrefusal).
CLOSE_TO_QUESTION = 0.58


def _documents(r: CaseResult) -> bool:
    return any(d and d.strip() for d in r.case.documents)


def _retrieved_reference(r: CaseResult) -> tuple[bool, Any] | None:
    """(a reference passage was retrieved, its rank) when the case's retrieval was scored, else None."""
    mv = r.metrics.get("mrr")
    if mv is None or mv.value is None:
        return None
    ranks = (mv.details or {}).get("relevant_ranks") or []
    return mv.value > 0, (ranks[0] if ranks else None)


def evidence_needed(r: CaseResult, reference: str | None) -> bool:
    """Whether :func:`verdict` wants the reference answer judged against the documents."""
    if not _documents(r) or reference is None:
        return False
    got = _retrieved_reference(r)
    return not (got is not None and got[0])


def closest_needed(r: CaseResult, reference: str | None) -> bool:
    """Whether :func:`verdict` falls back on the sentence closest to the question (no reference at all)."""
    return _documents(r) and reference is None and _retrieved_reference(r) is None


def closest_sentence(pairs: Sequence[tuple[str, Sequence[str]]]) -> list[tuple[float, str] | None]:
    """Per (question, document sentences): (cosine, text) of the sentence closest to the question (one
    encoder call; None without sentences or when the encoder cannot be used)."""
    texts = list(dict.fromkeys(t for q, sents in pairs if sents for t in (q, *sents)))
    if not texts:
        return [None for _ in pairs]
    try:
        from ..encoder import embeddings

        vecs = embeddings.encode(texts)
    except Exception:  # noqa: BLE001 - the verdict says it could not tell
        return [None for _ in pairs]
    row = {t: i for i, t in enumerate(texts)}
    out: list[tuple[float, str] | None] = []
    for q, sents in pairs:
        if not sents:
            out.append(None)
            continue
        cos = vecs[[row[t] for t in sents]] @ vecs[row[q]]
        best = int(cos.argmax())
        out.append((float(cos[best]), sents[best]))
    return out


def verdict(r: CaseResult, reference: str | None, reference_declines: bool,
            in_documents: Judged | None, closest: tuple[float, str] | None = None) -> tuple[bool, str]:
    """(over-refusal?, why in words) of a case whose answer declines (see the module docstring);
    ``closest``: the document sentence closest to the question and its cosine (:func:`closest_sentence`)."""
    if not _documents(r):
        return False, "right refusal: no documents were retrieved, so there was nothing to answer from"
    got = _retrieved_reference(r)
    if got is not None and got[0]:
        at = f" (at rank {got[1]})" if got[1] is not None else ""
        return True, f"over-refusal: a reference passage was retrieved{at}, so the documents hold the answer"
    if reference is not None:
        if reference_declines:
            return False, "right refusal: the reference answer declines too"
        if in_documents is not None and in_documents.error is None:
            share = in_documents.share_stated()
            facts = in_documents.claims
            stated = [s for s in facts if s.stated]
            if share is not None and share >= HOLDS_SHARE:
                first = stated[0]
                quote = first.by[0] if first.by else first.text
                return True, (f"over-refusal: the documents state {len(stated)} of the reference answer's "
                              f"{len(facts)} facts (e.g. \u201c{quote[:160]}\u201d)")
            return False, (f"right refusal: the documents state {len(stated)} of the reference answer's "
                           f"{len(facts)} facts" + (", and no reference passage was retrieved" if got is not None
                                                    else ""))
    if got is not None:
        return False, "right refusal: none of the reference passages was retrieved"
    if closest is None:
        relevant = list(r.labels.relevant_keys) if r.labels is not None else []
        if relevant:
            return True, ("over-refusal (likely): the documents hold sentences relevant to the question; no "
                          "reference answer or passage to say more")
        return False, "right refusal: nothing in the documents is relevant to the question"
    cos, text = closest
    if cos >= CLOSE_TO_QUESTION:
        return True, (f"over-refusal (likely): a document sentence is close to the question (cosine {cos:.2f}): "
                      f"\u201c{text[:160]}\u201d — without a reference answer or passage this is the weaker check")
    return False, (f"right refusal (likely): no document sentence is close enough to the question to hold its "
                   f"answer (the closest at cosine {cos:.2f} < {CLOSE_TO_QUESTION:.2f}); without a reference answer or "
                   "passage this is the weaker check")


__all__ = ["CLOSE_TO_QUESTION", "HOLDS_SHARE", "closest_needed", "closest_sentence", "evidence_needed", "verdict"]
