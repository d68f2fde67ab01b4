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
5. neither reference: the labeler's relevant document sentences — some: an over-refusal (the documents
   hold sentences relevant to the question), none: a right refusal.
"""

from __future__ import annotations

from typing import Any

from ..types import CaseResult
from .judge import Judged

#: Share of the reference answer's facts the documents must state for them to "hold the answer".
HOLDS_SHARE = 0.5


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


def verdict(r: CaseResult, reference: str | None, reference_declines: bool,
            in_documents: Judged | None) -> tuple[bool, str]:
    """(over-refusal?, why in words) of a case whose answer declines (see the module docstring)."""
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
    relevant = list(r.labels.relevant_keys) if r.labels is not None else []
    if relevant:
        keys = ", ".join(relevant[:5]) + (" …" if len(relevant) > 5 else "")
        return True, (f"over-refusal: the documents hold sentences relevant to the question ({keys}); no reference "
                      "answer or passage to say more")
    return False, "right refusal: nothing in the documents is relevant to the question"


__all__ = ["HOLDS_SHARE", "evidence_needed", "verdict"]
