"""Predictors: every (method, metric) series of a run that can be set against a human label, and
which of them measure what a label measures."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..types import EXPECTED_ADHERENCE, OVERALL_SUPPORTED, TRACE_METRICS, RunResult, SentenceLabels, TraceScores

#: The labeler's lowest per-sentence support probability (when it gives one).
MIN_SENTENCE_SUPPORT = "min_sentence_support"
#: The labeler's support metrics: after ``adherence`` they share its yes/no decision.
SUPPORT_METRICS = ("adherence", EXPECTED_ADHERENCE, OVERALL_SUPPORTED, MIN_SENTENCE_SUPPORT)
#: TRACE metrics (and the labeler's own) that measure each target of a human label.
_TARGET_METRICS = {
    "support": SUPPORT_METRICS,
    "relevance": ("context_relevance",),
    "utilization": ("context_utilization",),
    "completeness": ("completeness",),
}
#: Family-metric name fragments that measure the same target.
_TARGET_FAMILY = {
    "support": ("faithful", "grounded", "adherence", "augmentation_accuracy"),
    "relevance": ("context_relevance", "context_precision", "retrieval_precision"),
    "utilization": ("utiliz",),
    "completeness": ("completeness", "context_recall"),
}


@dataclass(frozen=True)
class Predictor:
    method: str
    metric: str
    #: case id -> value in [0, 1] (higher = better / more supported)
    values: dict[str, float]
    #: case id -> the method's own yes/no "supported / good" decision, when it has one
    default: dict[str, bool] = field(default_factory=dict)
    default_rule: str = ""


def _labeler_values(scores: TraceScores, labels: SentenceLabels | None,
                    with_expected: bool = False) -> dict[str, float]:
    vals = {m: float(getattr(scores, m)) for m in TRACE_METRICS}
    vals[OVERALL_SUPPORTED] = float(scores.overall_supported)
    if labels is not None:
        probs = [s.score for s in labels.sentences if s.score is not None]
        if probs:
            vals[MIN_SENTENCE_SUPPORT] = float(min(probs))
    if with_expected:
        vals[EXPECTED_ADHERENCE] = float(scores.expected_adherence)
    return vals


def predictors(run: RunResult, with_expected: bool = False) -> list[Predictor]:
    """Every (method, metric) series in a run: the run's labels, each hybrid variant, and each
    family metric. A labeler's support metrics carry its own decision (``overall_supported``);
    every other series is decided at 0.5. ``with_expected`` adds each labeler's
    ``expected_adherence`` (the ranking metric; off by default so the ``agreement`` command's
    output stays what it was)."""
    series: dict[tuple[str, str], dict[str, float]] = {}
    defaults: dict[tuple[str, str], dict[str, bool]] = {}
    for r in run.results:
        if r.scores is None or not r.ok:
            continue
        cid = r.case.id
        sets: list[tuple[str, TraceScores, SentenceLabels | None]] = [(run.method, r.scores, r.labels)]
        sets += [(f"{run.method}:{k}", r.variant_scores[k], v) for k, v in r.variants.items()
                 if k in r.variant_scores]
        for meth, sc, lab in sets:
            for m, v in _labeler_values(sc, lab, with_expected).items():
                series.setdefault((meth, m), {})[cid] = v
                defaults.setdefault((meth, m), {})[cid] = bool(sc.overall_supported)
        for name, mv in r.metrics.items():
            if mv.value is not None and math.isfinite(mv.value):
                series.setdefault((run.method, name), {})[cid] = float(mv.value)
    out = []
    for (meth, m), vals in series.items():
        if m in SUPPORT_METRICS and (meth, m) in defaults:
            out.append(Predictor(meth, m, vals, defaults[(meth, m)], "default decision = overall_supported"))
        else:
            out.append(Predictor(meth, m, vals, {k: v >= 0.5 for k, v in vals.items()}, "default threshold 0.5"))
    return out


def matches(pred: Predictor, target: str, explicit: str | None) -> bool:
    if explicit:
        return pred.metric == explicit
    if pred.metric in _TARGET_METRICS[target]:
        return True
    if pred.metric in (*TRACE_METRICS, OVERALL_SUPPORTED, MIN_SENTENCE_SUPPORT):
        return False
    return any(k in pred.metric.lower() for k in _TARGET_FAMILY[target])

