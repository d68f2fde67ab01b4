"""``hybrid`` (heuristic + LLM, with per-case agreement; optionally selective) and ``jury``
(several LLMs, sentence-level majority vote).

Hybrid
------
Every case gets the heuristic (``trace``) labels. Without a selective option every case also gets
LLM (``gpt_labeling``) labels; with ``options.selective_budget`` (at most N LLM calls) and/or
``options.selective_share`` (at most that share of cases, rounded up; the smaller limit wins) only
the cases where the heuristic is least certain (lowest ``SentenceLabels.confidence``; cases the
heuristic could not label come first, then unknown confidence, counted as 0.5) go to the LLM.
The ranking is global over the run: the pipeline calls :meth:`HybridMethod.prepare` with all cases
before labeling chunks. ``LabelOutcome.labels`` are the LLM labels when available, else the
heuristic's (an LLM failure is then recorded in the labels' notes); ``labeled_by`` says which;
``variants`` holds both sets; ``agreement`` (when both exist) holds:

* ``support_agreement`` — share of response sentences with the same fully-supported verdict;
* ``support_level_agreement`` — same full/partial/none level;
* ``relevance_agreement`` / ``utilization_agreement`` — share of document sentences both call
  relevant / utilized or both do not;
* ``overall_supported_agreement`` — 1.0 when both give the same overall verdict;
* ``<metric>_abs_diff`` for context_relevance, context_utilization, completeness, adherence.

Jury
----
``options.jury`` lists two or more LLMSettings. Each juror labels every case with the gpt_labeling
prompt (the same cache, so a juror reuses earlier gpt_labeling calls of its model). Votes over the
jurors that answered: a document sentence is relevant/utilized when a strict majority says so; a
response sentence gets the full/partial/none level with most votes (ties go to the lower level, the
conservative choice for hallucination detection), with the supporting keys cited by most jurors of
that level. ``SentenceLabels.extra`` keeps the vote split (``votes``), the jurors and any juror that
failed; ``confidence`` is the mean share of jurors behind each sentence verdict.
"""

from __future__ import annotations

import math
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from .. import trace_metrics
from ..llm.errors import LLMUnavailable
from ..options import EvalOptions
from ..types import TRACE_METRICS, LabelOutcome, SentenceLabels, SentenceSupport, SentencizedCase, Usage
from .llm import METHOD as LLM_METHOD
from .llm import DRY_RUN_REASON, PROMPT_VERSION, estimate_items, label_with_client, unavailable

_LEVEL_ORDER = {"none": 0, "partial": 1, "full": 2}


# ---------------------------------------------------------------------- agreement
def agreement(a: SentenceLabels, b: SentenceLabels) -> dict[str, float]:
    """Per-case agreement figures between two label sets of the same case (see module docstring)."""
    sa = {s.key: s for s in a.sentences}
    sb = {s.key: s for s in b.sentences}
    common = [k for k in sa if k in sb]
    out: dict[str, float] = {}
    if common:
        out["support_agreement"] = sum(sa[k].fully_supported == sb[k].fully_supported for k in common) / len(common)
        out["support_level_agreement"] = sum(sa[k].level == sb[k].level for k in common) / len(common)
    doc = list(a.document_keys)
    if doc:
        ra, rb, ua, ub = set(a.relevant_keys), set(b.relevant_keys), set(a.utilized_keys), set(b.utilized_keys)
        out["relevance_agreement"] = sum((k in ra) == (k in rb) for k in doc) / len(doc)
        out["utilization_agreement"] = sum((k in ua) == (k in ub) for k in doc) / len(doc)
    ta, tb = trace_metrics.compute(a), trace_metrics.compute(b)
    out["overall_supported_agreement"] = float(ta.overall_supported == tb.overall_supported)
    for m in TRACE_METRICS:
        out[f"{m}_abs_diff"] = abs(getattr(ta, m) - getattr(tb, m))
    return out


def agreement_summary(run: Any, a: str = "trace", b: str = LLM_METHOD) -> dict[str, Any]:
    """Run-level agreement of two variants (hybrid: trace vs gpt_labeling) from a RunResult:
    how many cases each labeler labeled, the mean of every per-case figure, and Cohen's kappa
    of the pooled sentence-level verdicts (support over response sentences, relevance and
    utilization over document sentences; None when undefined, e.g. one class only)."""
    both = [r for r in run.results if a in r.variants and b in r.variants]
    out: dict[str, Any] = {
        "cases": len(run.results),
        "cases_with_both": len(both),
        "labeled_by": dict(Counter(r.labeled_by for r in run.results if r.labeled_by)),
    }
    keys = sorted({k for r in both for k in r.agreement})
    out["mean"] = {k: sum(r.agreement[k] for r in both if k in r.agreement) /
                   max(1, sum(1 for r in both if k in r.agreement)) for k in keys}
    sup_a, sup_b, rel_a, rel_b, use_a, use_b = [], [], [], [], [], []
    for r in both:
        la, lb = r.variants[a], r.variants[b]
        mb = {x.key: x.fully_supported for x in lb.sentences}
        for x in la.sentences:
            if x.key in mb:
                sup_a.append(int(x.fully_supported))
                sup_b.append(int(mb[x.key]))
        ra, rb, ua, ub = set(la.relevant_keys), set(lb.relevant_keys), set(la.utilized_keys), set(lb.utilized_keys)
        for k in la.document_keys:
            rel_a.append(int(k in ra))
            rel_b.append(int(k in rb))
            use_a.append(int(k in ua))
            use_b.append(int(k in ub))

    def kappa(x: list[int], y: list[int]) -> float | None:
        if not x or len(set(x) | set(y)) < 2:
            return None
        from sklearn.metrics import cohen_kappa_score

        v = float(cohen_kappa_score(x, y))
        return None if v != v else v

    out["support_kappa"] = kappa(sup_a, sup_b)
    out["relevance_kappa"] = kappa(rel_a, rel_b)
    out["utilization_kappa"] = kappa(use_a, use_b)
    out["sentences_compared"] = len(sup_a)
    return out


# ---------------------------------------------------------------------- hybrid
def _heuristic_outcomes(items: Sequence[SentencizedCase], options: EvalOptions) -> list[LabelOutcome]:
    from ..methods import get_method

    try:
        impl = get_method("trace").build()
    except Exception as exc:  # noqa: BLE001 - heuristic missing/broken: hybrid degrades to LLM only
        return [LabelOutcome(error=f"trace labeler unavailable: {type(exc).__name__}: {exc}")
                for _ in items]
    try:
        outs = impl.label(items, options, lambda n: None)
        if len(outs) != len(items):
            raise RuntimeError(f"returned {len(outs)} outcomes for {len(items)} cases")
        return list(outs)
    except Exception as exc:  # noqa: BLE001
        return [LabelOutcome(error=f"trace labeler failed: {type(exc).__name__}: {exc}") for _ in items]


def selection_size(n: int, options: EvalOptions) -> int:
    """How many of ``n`` cases selective hybrid sends to the LLM."""
    k = n
    if options.selective_budget is not None:
        k = min(k, max(0, int(options.selective_budget)))
    if options.selective_share is not None:
        share = min(1.0, max(0.0, float(options.selective_share)))
        k = min(k, math.ceil(share * n - 1e-9))
    return k


def is_selective(options: EvalOptions) -> bool:
    return options.selective_budget is not None or options.selective_share is not None


def least_certain(heur: Sequence[LabelOutcome], k: int) -> list[int]:
    """Indices of the ``k`` cases the heuristic is least sure of (unlabeled first)."""
    def rank(i: int) -> tuple[int, float, int]:
        lab = heur[i].labels
        if lab is None:
            return (0, 0.0, i)
        return (1, lab.confidence if lab.confidence is not None else 0.5, i)

    return sorted(sorted(range(len(heur)), key=rank)[:k])


def _combine(h: LabelOutcome, l: LabelOutcome | None) -> LabelOutcome:
    hl = h.labels
    if l is not None and l.labels is not None:
        variants = {"trace": hl, LLM_METHOD: l.labels} if hl is not None else {LLM_METHOD: l.labels}
        if hl is None:
            labels = l.labels.model_copy(update={"notes": l.labels.notes + (f"no heuristic labels: {h.error}",)})
            variants[LLM_METHOD] = labels
        else:
            labels = l.labels
        return LabelOutcome(labels=labels, labeled_by=LLM_METHOD, variants=variants,
                            agreement=agreement(hl, l.labels) if hl is not None else {},
                            usage=h.usage + l.usage)
    if hl is not None:
        labels = hl
        if l is not None:
            labels = hl.model_copy(update={"notes": hl.notes + (f"{LLM_METHOD} failed ({l.error}); "
                                                                 "heuristic labels used",)})
        return LabelOutcome(labels=labels, labeled_by="trace", variants={"trace": labels},
                            usage=h.usage + (l.usage if l is not None else Usage()))
    reason = f"hybrid: trace: {h.error}" + (f"; {LLM_METHOD}: {l.error}" if l is not None else "")
    return LabelOutcome(error=reason, usage=h.usage + (l.usage if l is not None else Usage()))


class HybridMethod:
    """The ``hybrid`` method (registered in ``evaluators.methods``)."""

    name = "hybrid"

    def __init__(self) -> None:
        self._heur: dict[int, tuple[SentencizedCase, LabelOutcome]] = {}
        self._chosen: set[int] | None = None
        self._budget_left: int | None = None

    def prepare(self, items: Sequence[SentencizedCase], options: EvalOptions) -> None:
        """Called once with every case of the run (before the chunks): in selective mode, label all
        cases with the heuristic and pick the least certain ones globally."""
        if not is_selective(options) or not items:
            return
        heur = _heuristic_outcomes(items, options)
        self._heur = {id(it): (it, h) for it, h in zip(items, heur)}
        self._chosen = {id(items[i]) for i in least_certain(heur, selection_size(len(items), options))}

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick: Any) -> list[LabelOutcome]:
        from ..llm.client import check_settings, get_client

        if options.dry_run:
            return unavailable(items, DRY_RUN_REASON)
        try:
            check_settings(options.llm, "hybrid")
            client = get_client(options.llm)  # type: ignore[arg-type]
        except LLMUnavailable as exc:
            return unavailable(items, str(exc))
        cached = [self._heur.get(id(it)) for it in items]
        if all(c is not None and c[0] is it for c, it in zip(cached, items)):
            heur = [c[1] for c in cached]  # type: ignore[index]
        else:
            heur = _heuristic_outcomes(items, options)
        if not is_selective(options):
            chosen = list(range(len(items)))
        elif self._chosen is not None and all(c is not None for c in cached):
            chosen = [i for i, it in enumerate(items) if id(it) in self._chosen]
        else:  # not prepared (label() called directly): select within what we were given
            if self._budget_left is None:
                self._budget_left = selection_size(len(items), options)
            k = min(self._budget_left, selection_size(len(items), options))
            chosen = least_certain(heur, k)
            self._budget_left -= len(chosen)
        llm_outs = label_with_client(client, [items[i] for i in chosen]) if chosen else []
        by_index = dict(zip(chosen, llm_outs))
        tick(len(items))
        return [_combine(h, by_index.get(i)) for i, h in enumerate(heur)]


# ---------------------------------------------------------------------- jury
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


class JuryMethod:
    """The ``jury`` method (registered in ``evaluators.methods``)."""

    name = "jury"

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick: Any) -> list[LabelOutcome]:
        from ..llm.client import check_settings, get_client

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
                check_settings(s, f"jury member {name}")
                clients.append(get_client(s))
        except LLMUnavailable as exc:
            return unavailable(items, str(exc))
        seen: Counter[str] = Counter()
        salts = []
        for s in jury:  # identical jurors must not share cached answers
            fp = s.model_dump_json()
            salts.append("" if seen[fp] == 0 else f"juror{seen[fp]}")
            seen[fp] += 1
        with ThreadPoolExecutor(max_workers=len(clients), thread_name_prefix="jury") as pool:
            futs = [pool.submit(label_with_client, c, items, LLM_METHOD, salt)
                    for c, salt in zip(clients, salts)]
            per_juror = [f.result() for f in futs]
        outs: list[LabelOutcome] = []
        for i, _item in enumerate(items):
            answers = [(names[j], per_juror[j][i]) for j in range(len(clients))]
            ok = [(n, o.labels) for n, o in answers if o.labels is not None]
            failed = {n: (o.error or "no labels") for n, o in answers if o.labels is None}
            usage = sum((o.usage for _, o in answers), Usage())
            if not ok:
                outs.append(LabelOutcome(error="jury: every juror failed: " +
                                         "; ".join(f"{n}: {e}" for n, e in failed.items()), usage=usage))
                continue
            votes = [lab for _, lab in ok]  # type: ignore[misc]
            voted = majority_vote(votes, [n for n, _ in ok], failed)
            outs.append(LabelOutcome(
                labels=voted, labeled_by="jury",
                variants={f"juror{j + 1}:{n}": o.labels for j, (n, o) in enumerate(answers)
                          if o.labels is not None},
                agreement=_jury_agreement(votes), usage=usage))
        tick(len(items))
        return outs


# ---------------------------------------------------------------------- dry run
_EMPTY = {"calls": 0, "cached_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}


def _add(a: dict, b: dict) -> dict:
    return {k: a.get(k, 0) + b.get(k, 0) for k in _EMPTY}


def estimate_method(items: Sequence[SentencizedCase], method: str, options: EvalOptions) -> dict:
    """Calls, tokens and cost of labeling ``items`` with an LLM method; no call is made."""
    from ..llm.settings import LLMSettings

    out: dict[str, Any] = {"method": method, "cases": len(items)}
    notes: list[str] = []
    if method == "jury":
        jury = tuple(options.jury or ())
        if len(jury) < 2:
            notes.append("jury needs at least two LLM settings in options.jury")
        total = dict(_EMPTY)
        per = {}
        for name, s in zip(_juror_names(jury), jury):
            e = estimate_items(items, s)
            per[name] = e
            total = _add(total, e)
        out.update(total, jurors=per, price_known=all(e["price_known"] for e in per.values()))
    else:
        settings = options.llm
        if settings is None:
            settings = LLMSettings()
            notes.append(f"no LLM configured: priced as the default {settings.provider}/{settings.model}")
        chosen = list(items)
        if method == "hybrid" and is_selective(options):
            k = selection_size(len(items), options)
            notes.append(f"selective: the {k} least certain of {len(items)} cases go to the LLM "
                         "(which ones is decided at run time; figures are scaled)")
            e = estimate_items(items, settings)
            scale = k / len(items) if items else 0.0
            e = {**e, **{f: (round(e[f] * scale) if f != "cost_usd" else e[f] * scale)
                         for f in ("calls", "cached_calls", "prompt_tokens", "completion_tokens", "cost_usd")}}
        else:
            e = estimate_items(chosen, settings)
        out.update(e)
    if notes:
        out["notes"] = notes
    return out


__all__ = ["HybridMethod", "JuryMethod", "agreement", "agreement_summary", "estimate_method", "least_certain",
           "majority_vote", "selection_size"]
