"""``jury``: several LLMs label the same case; sentence-level majority vote.

``options.jury`` lists two or more LLMSettings. Each juror labels every case with the gpt_labeling
prompt (the same cache, so a juror reuses earlier gpt_labeling calls of its model). Votes over the
jurors that answered: a document sentence is relevant/utilized when a strict majority says so; a
response sentence gets the full/partial/none level with most votes (ties go to the lower level, the
conservative choice for hallucination detection), with the supporting keys cited by most jurors of
that level. ``SentenceLabels.extra`` keeps the vote split (``votes``), the jurors and any juror that
failed; ``confidence`` is the mean share of jurors behind each sentence verdict.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from .. import trace_metrics
from ..llm.errors import LLMUnavailable
from ..methods import BaseMethod, Tick
from ..options import EvalOptions
from ..types import LabelOutcome, SentenceLabels, SentenceSupport, SentencizedCase, Usage
from .agreement import agreement
from .llm import (
    DRY_RUN_REASON,
    PROMPT_VERSION,
    ZERO_ESTIMATE,
    add_estimates,
    estimate_items,
    label_with_client,
    llm_client,
    unavailable,
)
from .llm import METHOD as LLM_METHOD

_LEVEL_ORDER = {"none": 0, "partial": 1, "full": 2}


def _juror_names(jury: Sequence[Any]) -> list[str]:
    names: list[str] = []
    for i, s in enumerate(jury):
        base = f"{s.provider}/{s.model}"
        names.append(base if base not in names else f"{base}#{i + 1}")
    return names


def majority_vote(votes: Sequence[SentenceLabels], jurors: Sequence[str],
                  failed: dict[str, str] | None = None) -> SentenceLabels:
    """Sentence-level majority vote of label sets of the same case (see module docstring)."""
    if not votes:
        raise ValueError("majority_vote needs at least one label set")
    n = len(votes)
    first = votes[0]
    rel = Counter(k for v in votes for k in set(v.relevant_keys))
    util = Counter(k for v in votes for k in set(v.utilized_keys))
    doc = first.document_keys
    relevant = tuple(k for k in doc if rel[k] * 2 > n)
    utilized = tuple(k for k in doc if util[k] * 2 > n)
    sent_votes: dict[str, dict[str, int]] = {}
    sentences: list[SentenceSupport] = []
    shares: list[float] = []
    per_juror = [{s.key: s for s in v.sentences} for v in votes]
    for s0 in first.sentences:
        k = s0.key
        cast = [(j, pj[k]) for j, pj in enumerate(per_juror) if k in pj]
        levels = Counter(s.level for _, s in cast)
        split = {lv: levels.get(lv, 0) for lv in ("full", "partial", "none")}
        sent_votes[k] = split
        top = max(levels.values())
        winner = min((lv for lv, c in levels.items() if c == top), key=_LEVEL_ORDER.__getitem__)
        backers = [(j, s) for j, s in cast if s.level == winner]
        shares.append(len(backers) / n)
        key_votes = Counter(x for _, s in backers for x in dict.fromkeys(s.supporting_keys))
        keys = tuple(x for x, c in key_votes.items() if c * 2 > len(backers))
        if not keys and winner != "none":
            keys = tuple(dict.fromkeys(x for _, s in backers for x in s.supporting_keys))
        if winner == "none":
            keys = ()
        j0, s_first = backers[0]
        sentences.append(SentenceSupport(
            key=k, supporting_keys=keys, fully_supported=winner == "full",
            explanation=f"[{jurors[j0]}] {s_first.explanation}".strip(),
            score=len([1 for _, s in cast if s.level == "full"]) / n,
        ))
    notes = [f"{name} failed: {why}" for name, why in (failed or {}).items()]
    if failed:
        notes.append(f"{n} of {n + len(failed)} jurors answered")
    for name, v in zip(jurors, votes):
        notes.extend(f"{name}: {x}" for x in v.notes)
    return SentenceLabels(
        method="jury",
        document_keys=doc,
        relevant_keys=relevant,
        utilized_keys=utilized,
        sentences=tuple(sentences),
        overall_supported=all(s.fully_supported for s in sentences),
        relevance_explanation=first.relevance_explanation,
        overall_explanation=first.overall_explanation,
        confidence=sum(shares) / len(shares) if shares else 1.0,
        notes=tuple(notes),
        extra={
            "jurors": list(jurors),
            "failed_jurors": dict(failed or {}),
            "votes": {"sentences": sent_votes,
                      "relevant": {k: rel[k] for k in doc if rel[k]},
                      "utilized": {k: util[k] for k in doc if util[k]}},
            "prompt_version": PROMPT_VERSION,
        },
    )


def _jury_agreement(votes: Sequence[SentenceLabels]) -> dict[str, float]:
    out: dict[str, float] = {}
    if len(votes) < 2:
        return out
    keys = [s.key for s in votes[0].sentences]
    if keys:
        maps = [{s.key: s.level for s in v.sentences} for v in votes]
        out["unanimous_support_share"] = sum(len({m.get(k) for m in maps}) == 1 for k in keys) / len(keys)
    adh = [trace_metrics.compute(v).adherence for v in votes]
    out["adherence_spread"] = max(adh) - min(adh)
    pair = [agreement(a, b)["support_agreement"] for i, a in enumerate(votes) for b in votes[i + 1:]
            if a.sentences and b.sentences]
    if pair:
        out["pairwise_support_agreement"] = sum(pair) / len(pair)
    return out


class JuryMethod(BaseMethod):
    """The ``jury`` method (registered in ``evaluators.methods``)."""

    name = "jury"

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick: Tick) -> list[LabelOutcome]:
        if options.dry_run:
            return unavailable(items, DRY_RUN_REASON)
        jury = tuple(options.jury or ())
        if len(jury) < 2:
            return unavailable(items, "jury needs at least two LLM settings in options.jury "
                                      f"(got {len(jury)})")
        names = _juror_names(jury)
        try:
            clients = []
            for name, s in zip(names, jury):
                clients.append(llm_client(s, f"jury member {name}"))
        except LLMUnavailable as exc:
            return unavailable(items, str(exc))
        seen: Counter[str] = Counter()
        salts = []
        for s in jury:  # identical jurors must not share cached answers
            fp = s.model_dump_json()
            salts.append("" if seen[fp] == 0 else f"juror{seen[fp]}")
            seen[fp] += 1
        answered: Counter[int] = Counter()
        lock = threading.Lock()

        def done(i: int) -> None:  # a case is done when every juror answered it
            with lock:
                answered[i] += 1
                complete = answered[i] == len(clients)
            if complete:
                tick(1)

        with ThreadPoolExecutor(max_workers=len(clients), thread_name_prefix="jury") as pool:
            futs = [pool.submit(label_with_client, c, items, LLM_METHOD, salt, done)
                    for c, salt in zip(clients, salts)]
            per_juror = [f.result() for f in futs]
        outs: list[LabelOutcome] = []
        for i, _item in enumerate(items):
            answers = [(names[j], per_juror[j][i]) for j in range(len(clients))]
            ok = [(n, o.labels) for n, o in answers if o.labels is not None]
            failed = {n: (o.error or "no labels") for n, o in answers if o.labels is None}
            usage = Usage.total(o.usage for _, o in answers)
            if not ok:
                outs.append(LabelOutcome(error="jury: every juror failed: " +
                                         "; ".join(f"{n}: {e}" for n, e in failed.items()), usage=usage))
                continue
            votes = [lab for _, lab in ok if lab is not None]
            voted = majority_vote(votes, [n for n, _ in ok], failed)
            outs.append(LabelOutcome(
                labels=voted, labeled_by="jury",
                variants={f"juror{j + 1}:{n}": o.labels for j, (n, o) in enumerate(answers)
                          if o.labels is not None},
                agreement=_jury_agreement(votes), usage=usage))
        return outs

    def estimate(self, items: Sequence[SentencizedCase], options: EvalOptions) -> dict[str, Any]:
        """Calls, tokens and cost of every juror labeling ``items`` (no call is made)."""
        jury = tuple(options.jury or ())
        total = dict(ZERO_ESTIMATE)
        per = {}
        for name, s in zip(_juror_names(jury), jury):
            e = estimate_items(items, s)
            per[name] = e
            total = add_estimates(total, e)
        out: dict[str, Any] = {"cases": len(items), **total, "jurors": per,
                               "price_known": all(e["price_known"] for e in per.values())}
        if len(jury) < 2:
            out["notes"] = ["jury needs at least two LLM settings in options.jury"]
        return out


__all__ = ["JuryMethod", "majority_vote"]
