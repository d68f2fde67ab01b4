"""``hybrid``: heuristic + LLM labels, with per-case agreement; optionally selective.

Every case gets the heuristic (``trace``) labels. Without a selective option every case also gets
LLM (``gpt_labeling``) labels; with ``options.selective_budget`` (at most N LLM calls) and/or
``options.selective_share`` (at most that share of cases, rounded up; the smaller limit wins) only
the cases where the heuristic is least certain (lowest ``SentenceLabels.confidence``; cases the
heuristic could not label come first, then unknown confidence, counted as 0.5) go to the LLM.
The ranking is global over the run: the pipeline calls :meth:`HybridMethod.prepare` with all cases
before labeling chunks. ``LabelOutcome.labels`` are the LLM labels when available, else the
heuristic's (an LLM failure is then recorded in the labels' notes); ``labeled_by`` says which;
``variants`` holds both sets; ``agreement`` (when both exist) holds the figures of
``labelers.agreement``. The selective logic is all here (``selection_size``, ``least_certain``,
``HybridMethod.prepare`` / ``_chosen``).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from ..llm.errors import LLMUnavailable
from ..methods import BaseMethod, Tick
from ..options import EvalOptions
from ..types import LabelOutcome, SentencizedCase, Usage
from .agreement import agreement
from .llm import DRY_RUN_REASON, estimate_items, label_with_client, llm_client, settings_for_estimate, unavailable
from .llm import METHOD as LLM_METHOD


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


def _combine(h: LabelOutcome, llm: LabelOutcome | None) -> LabelOutcome:
    hl = h.labels
    if llm is not None and llm.labels is not None:
        variants = {"trace": hl, LLM_METHOD: llm.labels} if hl is not None else {LLM_METHOD: llm.labels}
        if hl is None:
            note = f"no heuristic labels: {h.error}"
            labels = llm.labels.model_copy(update={"notes": llm.labels.notes + (note,)})
            variants[LLM_METHOD] = labels
        else:
            labels = llm.labels
        return LabelOutcome(labels=labels, labeled_by=LLM_METHOD, variants=variants,
                            agreement=agreement(hl, llm.labels) if hl is not None else {},
                            usage=h.usage + llm.usage)
    if hl is not None:
        labels = hl
        if llm is not None:
            labels = hl.model_copy(update={"notes": hl.notes + (f"{LLM_METHOD} failed ({llm.error}); "
                                                                 "heuristic labels used",)})
        return LabelOutcome(labels=labels, labeled_by="trace", variants={"trace": labels},
                            usage=h.usage + (llm.usage if llm is not None else Usage()))
    reason = f"hybrid: trace: {h.error}" + (f"; {LLM_METHOD}: {llm.error}" if llm is not None else "")
    return LabelOutcome(error=reason, usage=h.usage + (llm.usage if llm is not None else Usage()))


class HybridMethod(BaseMethod):
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

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick: Tick) -> list[LabelOutcome]:
        if options.dry_run:
            return unavailable(items, DRY_RUN_REASON)
        try:
            client = llm_client(options.llm, "hybrid")
        except LLMUnavailable as exc:
            return unavailable(items, str(exc))
        cached = [self._heur.get(id(it)) for it in items]
        if all(c is not None and c[0] is it for c, it in zip(cached, items)):
            heur = [c[1] for c in cached if c is not None]
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
        llm_outs = label_with_client(client, [items[i] for i in chosen],
                                     on_done=lambda i: tick(1)) if chosen else []
        by_index = dict(zip(chosen, llm_outs))
        tick(len(items) - len(chosen))  # the cases the heuristic alone labels
        return [_combine(h, by_index.get(i)) for i, h in enumerate(heur)]

    def warm_up(self) -> None:
        from ..methods import get_method

        get_method("trace").build().warm_up()

    def estimate(self, items: Sequence[SentencizedCase], options: EvalOptions) -> dict[str, Any]:
        """LLM calls / tokens / cost of the LLM half (the heuristic makes none); in selective mode
        the figures are scaled to the cases that will go to the LLM."""
        settings, notes = settings_for_estimate(options)
        e = estimate_items(items, settings)
        if is_selective(options):
            k = selection_size(len(items), options)
            notes.append(f"selective: the {k} least certain of {len(items)} cases go to the LLM "
                         "(which ones is decided at run time; figures are scaled)")
            scale = k / len(items) if items else 0.0
            e = {**e, **{f: (round(e[f] * scale) if f != "cost_usd" else e[f] * scale)
                         for f in ("calls", "cached_calls", "prompt_tokens", "completion_tokens", "cost_usd")}}
        out: dict[str, Any] = {"cases": len(items), **e}
        if notes:
            out["notes"] = notes
        return out


__all__ = ["HybridMethod", "agreement", "is_selective", "least_certain", "selection_size"]
