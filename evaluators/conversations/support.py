"""Support from the agent's earlier turns: a response sentence the documents do not hold, but that
the agent already said in an earlier turn of the conversation.

    from evaluators.conversations.support import support_from_earlier_turns
    outcomes = support_from_earlier_turns(items, outcomes, label)   # label: the labeler, as a function

Contract:

* Only sentences the documents do not **fully** support are looked at (level partial or none),
  and never one that already needs no support (a special key such as ``general``). A labels set
  whose every sentence is fully supported is returned as it is; so is every case without an earlier
  agent turn — a single-turn case is never touched.
* Whether an earlier turn states the sentence is decided by the labeler itself: ``label`` is called
  on a copy of the case whose documents are the agent's earlier turns (oldest first), so the same
  evidence and the same threshold decide "fully supported by a turn" as "fully supported by a
  document". A sentence fully supported there becomes fully supported with the supporting key of
  the turn (``turn_3``: :func:`evaluators.types.earlier_turn_key`), its probability the larger of
  the two, and an explanation that says so first: "supported by the agent's earlier turn 3, not by
  a document: …". The verdict is never shown as grounded in a document.
* The TRACE metrics stay well defined: the document keys, relevant and utilized sentences do not
  change (a turn is no document sentence), adherence and expected adherence count the sentence as
  supported, ``overall_supported`` is recomputed. ``labels.extra["earlier_turn_support"]`` lists the
  response sentences so supported.
* A failure of the second pass leaves the case's labels as they were, with a note.
"""

from __future__ import annotations

from typing import Callable, Sequence

from ..sentencize import sentencize_case
from ..types import (
    DETAILS_MARK,
    LabelOutcome,
    SentenceLabels,
    SentenceSupport,
    SentencizedCase,
    TestCase,
    earlier_turn_key,
    is_special_key,
    split_explanation,
)

#: ``label(items) -> outcomes``: the labeler applied to cases (one outcome per item, in order).
Labeler = Callable[[Sequence[SentencizedCase]], list[LabelOutcome]]
#: ``overall(sentences) -> text``: the labeler's overall explanation of a set of sentence verdicts.
Overall = Callable[[Sequence[SentenceSupport]], str]

#: The agent turns looked at (the last ones of a long conversation).
MAX_AGENT_TURNS = 50


def agent_turns(case: TestCase) -> list[tuple[int, str]]:
    """(turn number, text) of the agent's earlier turns of ``case`` (turns counted from 1 over the
    whole history, oldest first), the last :data:`MAX_AGENT_TURNS` of them."""
    out = [(n, t.text) for n, t in enumerate(case.history, start=1) if t.speaker == "agent" and t.text.strip()]
    return out[-MAX_AGENT_TURNS:]


def agent_turn_keys(case: TestCase) -> frozenset[str]:
    """The supporting keys an earlier agent turn of ``case`` may be cited by (``turn_2``, …)."""
    return frozenset(earlier_turn_key(n) for n, t in enumerate(case.history, start=1) if t.speaker == "agent")


def _candidates(labels: SentenceLabels) -> list[int]:
    return [i for i, s in enumerate(labels.sentences)
            if not s.fully_supported and not any(is_special_key(k) for k in s.supporting_keys)]


def _turns_case(case: TestCase, turns: list[tuple[int, str]]) -> TestCase:
    return TestCase(id=case.id, question=case.question, response=case.response,
                    documents=tuple(text for _, text in turns))


def support_from_earlier_turns(items: Sequence[SentencizedCase], outcomes: Sequence[LabelOutcome],
                               label: Labeler, overall: Overall | None = None) -> list[LabelOutcome]:
    """``outcomes`` with the sentences an earlier agent turn supports marked so (module docstring);
    ``overall`` rewrites the overall explanation of a revised case (default: a sentence is added)."""
    todo: list[int] = []
    turns_of: dict[int, list[tuple[int, str]]] = {}
    for i, (it, out) in enumerate(zip(items, outcomes)):
        if out.labels is None or not it.case.history:
            continue
        turns = agent_turns(it.case)
        if turns and _candidates(out.labels):
            todo.append(i)
            turns_of[i] = turns
    result = list(outcomes)
    if not todo:
        return result
    pseudo = [sentencize_case(_turns_case(items[i].case, turns_of[i])) for i in todo]
    try:
        second = label(pseudo)
    except Exception as exc:  # noqa: BLE001 - the first labels stand
        second = [LabelOutcome(error=f"{type(exc).__name__}: {exc}") for _ in pseudo]
    for i, p_item, p_out in zip(todo, pseudo, second):
        labels = outcomes[i].labels
        assert labels is not None
        if p_out.labels is None:
            note = f"earlier turns not checked: {p_out.error or 'no labels'}"
            result[i] = outcomes[i].model_copy(update={"labels": labels.model_copy(
                update={"notes": (*labels.notes, note)})})
            continue
        revised = revise(labels, p_out.labels, p_item, turns_of[i], overall)
        if revised is not labels:
            result[i] = outcomes[i].model_copy(update={"labels": revised})
    return result


def revise(labels: SentenceLabels, by_turns: SentenceLabels, turns_item: SentencizedCase,
           turns: list[tuple[int, str]], overall: Overall | None = None) -> SentenceLabels:
    """``labels`` with every candidate sentence that ``by_turns`` (the labels of the case against
    the agent's turns) fully supports marked as supported by its turn; ``labels`` itself when none is."""
    texts = {s.key: s.text for s in turns_item.doc_sentences}
    doc_of = {s.key: s.doc for s in turns_item.doc_sentences}
    verdicts = {s.key: s for s in by_turns.sentences}
    sentences = list(labels.sentences)
    changed: list[str] = []
    for i in _candidates(labels):
        s = sentences[i]
        v = verdicts.get(s.key)
        if v is None or not v.fully_supported or any(is_special_key(k) for k in v.supporting_keys):
            continue
        docs = [doc_of[k] for k in v.supporting_keys if doc_of.get(k) is not None]
        if not docs:
            continue
        numbers = list(dict.fromkeys(turns[d][0] for d in docs if d is not None))
        quote = " ".join(texts[k] for k in v.supporting_keys if k in texts)
        reason, details = split_explanation(s.explanation)
        where = ("the agent's earlier turn " + str(numbers[0]) if len(numbers) == 1
                 else "the agent's earlier turns " + ", ".join(map(str, numbers)))
        why = (f"supported by {where}, not by a document: \u201c{_short(quote)}\u201d"
               + DETAILS_MARK + "; ".join(x for x in (
                   f"P(supported by the earlier turn) {v.score:.2f}" if v.score is not None else "",
                   f"against the documents: {reason}" if reason else "", details) if x))
        score = max(x for x in (s.score, v.score, 0.0) if x is not None)
        sentences[i] = SentenceSupport(key=s.key, supporting_keys=tuple(earlier_turn_key(n) for n in numbers),
                                       fully_supported=True, explanation=why, score=round(float(score), 4))
        changed.append(s.key)
    if not changed:
        return labels
    all_full = all(s.fully_supported for s in sentences)
    by_turn = f"{len(changed)} ({', '.join(changed)}) only by the agent's earlier turns, not by the documents"
    if all_full:
        text = (f"the response's one sentence is supported: {by_turn}." if len(sentences) == 1
                else f"all {len(sentences)} response sentences are supported: {by_turn}.")
    else:
        before = overall(sentences) if overall is not None else labels.overall_explanation
        text = f"{before.rstrip('. ')}. Supported {by_turn}."
    return labels.model_copy(update={
        "sentences": tuple(sentences),
        "overall_supported": all_full,
        "overall_explanation": text,
        "extra": {**labels.extra, "earlier_turn_support": changed},
    })


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


__all__ = ["Labeler", "MAX_AGENT_TURNS", "agent_turn_keys", "agent_turns", "revise", "support_from_earlier_turns"]
