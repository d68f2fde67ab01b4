"""The answer metrics of a run's cases: every metric valued, or skipped with the reason.

Contract: :func:`score_cases` gives one ``{name: MetricValue}`` per case (family ``answers``), what the
pipeline adds to each ``CaseResult.metrics`` after the retrieval metrics (it reads them):

* every scored case gets ``declined`` (0/1: the rule of :mod:`.declined` on its response sentences, or
  its labeler's ``declined`` label) and ``over_refusal`` (0/1: declined although the documents hold the
  answer, :mod:`.refusal`); the details name the declining sentences and say right refusal /
  over-refusal / answered and why;
* when some case of the call has a reference answer (``ground_truth``, or a note on how it could not be
  read), every scored case gets ``answer_correctness``, ``answer_recall`` and ``answer_precision``:
  valued, or skipped naming why (no reference answer, the note of a bad one). ``answer_recall``'s
  details list every reference fact, stated or missing; ``answer_precision``'s every claim of the
  answer, backed or not.

A case that could not be scored (its ``error``) gets nothing here. Judging is offline (:mod:`.judge`,
one batch for the whole call) unless ``options.answer_correctness`` says ``llm`` — or ``auto`` with an
LLM method and an LLM configured — when each case with a reference makes one call (:mod:`.llm`).
"""

from __future__ import annotations

from typing import Any, Sequence

from ..declined import DECLINED_KEY, answer_declines, declines
from ..sentencize import sentences_of, sentencize_response
from ..types import CaseResult, MetricValue, Usage
from . import refusal
from .judge import Judged, frozen_gc, judge, sentences
from .names import (
    ANSWER_CORRECTNESS,
    ANSWER_PRECISION,
    ANSWER_RECALL,
    CORRECTNESS_METRICS,
    DECLINED,
    FAMILY,
    OVER_REFUSAL,
)
from .recall import fact_weights, weighted_recall, with_refusals
from .reference import NOTE_KEY, unusable

#: What a reason calls the evidence of each judging (reference facts against the answer, …).
EVIDENCE_NAMES = {"recall": "the answer", "precision": "the reference answer", "docs": "the documents"}
#: Methods that label with an LLM (``auto`` judges correctness with the LLM for them).
LLM_METHODS = frozenset({"gpt_labeling", "hybrid", "jury"})


def _mv(name: str, value: float | None = None, skipped: str | None = None, **details: Any) -> MetricValue:
    """One answer metric of a case."""
    return MetricValue(name=name, family=FAMILY, value=value, skipped=skipped, details=details)


def response_texts(r: CaseResult) -> list[tuple[str, str]]:
    """(key, text) of the response sentences the labels refer to (the stored split when kept)."""
    text = r.case.response
    if r.spans is not None and r.spans.response:
        from ..sentencize import letters

        return [(letters(i), text[a:b]) for i, (a, b) in enumerate(r.spans.response)]
    return [(s.key, s.text) for s in sentencize_response(text)]


def declined_keys(r: CaseResult, sents: list[tuple[str, str]]) -> list[bool]:
    """Per response sentence: declines by the rule, or by the labeler's ``declined`` label."""
    labeled = {s.key for s in (r.labels.sentences if r.labels else ()) if DECLINED_KEY in s.supporting_keys}
    return [k in labeled or declines(t) for k, t in sents]


def _reference(r: CaseResult) -> tuple[str | None, str | None]:
    """(usable reference text or None, note): the note of how it was read, or why it cannot be used."""
    note = r.case.metadata.get(NOTE_KEY) if isinstance(r.case.metadata, dict) else None
    gt = r.case.ground_truth
    if gt is None and not note:
        return None, "no reference answer (ground_truth) for this case"
    why = unusable(gt)
    if why is not None:
        return None, (str(note) if note and gt is None else why)
    return gt, (str(note) if note else None)


def _mode(options: Any, method: str) -> str:
    mode = str(getattr(options, "answer_correctness", "auto") or "auto")
    if mode == "auto":
        llm_ok = getattr(options, "llm", None) is not None and not getattr(options, "dry_run", False)
        return "llm" if method in LLM_METHODS and llm_ok else "offline"
    return mode


def score_cases(results: Sequence[CaseResult], options: Any, method: str = "trace"
                ) -> tuple[list[dict[str, MetricValue]], list[Usage]]:
    """(the answer metrics of each case, the LLM usage of each case); see the module docstring. The run's
    objects are kept out of the cyclic GC meanwhile (:func:`.judge.frozen_gc`)."""
    with frozen_gc():
        return _score_cases(results, options, method)


def _score_cases(results: Sequence[CaseResult], options: Any, method: str
                 ) -> tuple[list[dict[str, MetricValue]], list[Usage]]:
    n = len(results)
    out: list[dict[str, MetricValue]] = [{} for _ in range(n)]
    usage = [Usage() for _ in range(n)]
    mode = _mode(options, method)
    with_refs = mode != "off" and any(r.case.ground_truth is not None or NOTE_KEY in r.case.metadata
                                      for r in results)
    refs = [_reference(r) for r in results]
    sents = [response_texts(r) if r.ok else [] for r in results]
    flags = [declined_keys(r, s) if r.ok else [] for r, s in zip(results, sents)]
    declined = [r.ok and answer_declines([t for _, t in s], f) for r, s, f in zip(results, sents, flags)]
    ref_declines = [ref is not None and answer_declines(list(sentences(ref))) for ref, _ in refs]

    # one offline batch: reference vs response (recall), response vs reference (precision), and for
    # declined answers the reference vs the documents (do they hold the answer?)
    triples: list[tuple[str, str | Sequence[str], Sequence[str]]] = []
    names: list[str] = []
    slots: dict[tuple[int, str], int] = {}

    def want(i: int, kind: str, claims: str | Sequence[str], evidence: Sequence[str]) -> None:
        slots[(i, kind)] = len(triples)
        triples.append((results[i].case.question, claims, evidence))
        names.append(EVIDENCE_NAMES[kind])

    llm_cases: list[int] = []
    for i, r in enumerate(results):
        if not r.ok:
            continue
        ref = refs[i][0]
        if declined[i] and not ref_declines[i] and refusal.evidence_needed(r, ref):
            want(i, "docs", ref or "", r.case.documents)
        if not with_refs or ref is None or ref_declines[i] or declined[i]:
            continue
        if mode == "llm":
            llm_cases.append(i)
        else:
            want(i, "recall", ref, (r.case.response,))
            want(i, "precision", [t for _, t in sents[i]], (ref,))  # the response as the run split it
    judged = judge(triples, options, evidence_names=names,  # the answers as the run split them
                   splits={r.case.response: [t for _, t in s] for r, s in zip(results, sents) if s})
    sides: dict[int, tuple[Judged, Judged] | str] = {}
    for i in (i for i in range(n) if (i, "recall") in slots):
        sides[i] = (judged[slots[(i, "recall")]], judged[slots[(i, "precision")]])
    if llm_cases:
        from .llm import Failed, judge_with_llm

        got = judge_with_llm([(results[i].case.question, refs[i][0] or "", results[i].case.response)
                              for i in llm_cases], getattr(options, "llm", None))
        for i, g in zip(llm_cases, got):
            if isinstance(g, Failed):
                sides[i], usage[i] = g.reason, g.usage
            else:
                sides[i] = (g[0], g[1])
                usage[i] = g[2]

    # a reference that partly declines: its declining sentences are facts too; each fact weighed by its
    # closeness to the question (one encoder call for the run)
    judged_sides = {i: (with_refusals(side[0], any(flags[i])), side[1]) for i, side in sides.items()
                    if not isinstance(side, str)}
    sides.update(judged_sides)
    order = sorted(judged_sides)
    weights = dict(zip(order, fact_weights([(results[i].case.question, [f.text for f in judged_sides[i][0].sentences])
                                            for i in order])))

    # a declined answer with no reference at all: the document sentence closest to the question
    weak = [i for i, r in enumerate(results) if r.ok and declined[i] and refusal.closest_needed(r, refs[i][0])]
    closest = dict(zip(weak, refusal.closest_sentence(
        [(results[i].case.question, [s.text for s in sentences_of(results[i]).doc_sentences]) for i in weak])))

    for i, r in enumerate(results):
        if not r.ok:
            continue
        vals: dict[str, MetricValue] = {}
        if with_refs:
            vals.update(_correctness(refs[i], ref_declines[i], declined[i], sides.get(i), mode, weights.get(i)))
        keys = [k for (k, _), f in zip(sents[i], flags[i]) if f]
        if declined[i]:
            docs = judged[slots[(i, "docs")]] if (i, "docs") in slots else None
            over, why = refusal.verdict(r, refs[i][0], ref_declines[i], docs, closest.get(i))
            kind = "over_refusal" if over else "right_refusal"
            vals[DECLINED] = _mv(DECLINED, 1.0, verdict=kind, explanation=why, sentences=keys)
            near = closest.get(i)
            cosine: dict[str, Any] = {"closest_cosine": round(near[0], 4)} if near is not None else {}
            vals[OVER_REFUSAL] = _mv(OVER_REFUSAL, float(over), verdict=kind, explanation=why, **cosine)
        else:
            extra: dict[str, Any] = {"sentences": keys} if keys else {}
            why = ("answered: a sentence declines (" + ", ".join(keys) + ") but others answer" if keys
                   else "answered")
            vals[DECLINED] = _mv(DECLINED, 0.0, verdict="answered", explanation=why, **extra)
            vals[OVER_REFUSAL] = _mv(OVER_REFUSAL, 0.0, verdict="answered", explanation="answered: not a refusal")
        out[i] = vals
    return out, usage


def _correctness(ref: tuple[str | None, str | None], ref_declines: bool, declined: bool,
                 sides: tuple[Judged, Judged] | str | None, mode: str,
                 weights: Sequence[float] | None = None) -> dict[str, MetricValue]:
    """answer_correctness / recall / precision of one scored case."""
    text, note = ref
    extra: dict[str, Any] = {"note": note} if note else {}
    by: dict[str, Any] = {"judged_by": "llm" if mode == "llm" else "trace"}
    if text is None:
        reason = note or "no reference answer (ground_truth) for this case"
        return {m: _mv(m, skipped=reason) for m in CORRECTNESS_METRICS}
    if ref_declines:
        v = 1.0 if declined else 0.0
        why = ("the reference answer declines and so does the answer" if declined else
               "the reference answer declines (the question has no answer in the documents), but the answer answers")
        return {m: _mv(m, v, explanation=why, **extra) for m in CORRECTNESS_METRICS}
    if declined:
        ref_facts = list(sentences(text))
        return {
            ANSWER_CORRECTNESS: _mv(ANSWER_CORRECTNESS, 0.0, explanation="the answer declines; the reference answers",
                                    recall=0.0, precision=None, **extra),
            ANSWER_RECALL: _mv(ANSWER_RECALL, 0.0,
                               explanation="the answer declines: it states none of the reference's facts",
                               facts=[{"text": f, "stated": False, "claims": True, "explanation": "the answer declines"}
                                      for f in ref_facts], **extra),
            ANSWER_PRECISION: _mv(ANSWER_PRECISION, skipped="the answer makes no claim (it declines)"),
        }
    if isinstance(sides, str) or sides is None:
        reason = sides if isinstance(sides, str) else "answer correctness was not judged"
        return {m: _mv(m, skipped=reason) for m in CORRECTNESS_METRICS}
    facts, claimed = sides
    for side in (facts, claimed):
        if side.error is not None:
            return {m: _mv(m, skipped=side.error) for m in CORRECTNESS_METRICS}
    w = list(weights) if weights is not None else [1.0] * len(facts.sentences)
    recall = weighted_recall(facts, w)
    if recall is None:
        reason = "the reference answer states nothing to check (only greetings or transitions)"
        return {m: _mv(m, skipped=reason, **extra) for m in CORRECTNESS_METRICS}
    precision = claimed.share_stated()
    if precision is None:
        correctness = recall
    else:
        correctness = 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)
    return {
        ANSWER_CORRECTNESS: _mv(ANSWER_CORRECTNESS, correctness, recall=recall, precision=precision, **by, **extra),
        ANSWER_RECALL: _mv(ANSWER_RECALL, recall, facts=_facts(facts, w), **by, **extra),
        ANSWER_PRECISION: (_mv(ANSWER_PRECISION, precision, claims=[s.as_dict() for s in claimed.sentences],
                               **by, **extra) if precision is not None else
                           _mv(ANSWER_PRECISION, skipped="the answer makes no claim to check (only greetings or "
                                                         "transitions)")),
    }


def _facts(facts: Judged, weights: Sequence[float]) -> list[dict[str, Any]]:
    """``answer_recall``'s details: every reference fact, stated or not, with its weight when it counts."""
    return [{**s.as_dict(), **({"weight": round(x, 4)} if s.claims else {})} for s, x in zip(facts.sentences, weights)]


def estimate(cases: Sequence[Any], options: Any, method: str = "trace") -> dict[str, Any] | None:
    """The LLM calls answer correctness would make on ``cases`` (one per case with a usable reference
    answer, when it is judged by the LLM: at most, since a declined answer needs none), their tokens and
    cost; None when it makes none (offline, off, or no reference answer). No call is made."""
    if _mode(options, method) != "llm":
        return None
    todo = [c for c in cases if unusable(c.ground_truth) is None]
    if not todo or getattr(options, "llm", None) is None:
        return None
    from ..llm import estimate_cost
    from .llm import build_messages, facts_of

    prompts = ["\n".join(m["content"] for m in build_messages(c.question, c.ground_truth or "", c.response))
               for c in todo]
    outs = [60 * (len(facts_of(c.ground_truth or "")) + len(sentences(c.response))) + 40 for c in todo]
    return estimate_cost(prompts, options.llm, outs)


def not_stated(details: dict[str, Any] | None, key: str = "facts") -> list[str]:
    """The texts a metric's details list as not stated: the reference facts the answer misses
    (``answer_recall``, ``key="facts"``) or the answer's claims the reference does not back
    (``answer_precision``, ``key="claims"``)."""
    return [str(f.get("text")) for f in (details or {}).get(key) or []
            if isinstance(f, dict) and f.get("claims", True) and not f.get("stated")]


__all__ = ["LLM_METHODS", "declined_keys", "estimate", "not_stated", "response_texts", "score_cases"]
