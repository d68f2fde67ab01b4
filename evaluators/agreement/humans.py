"""Agreement of a run's scores with human labels: the table (one row per figure, each with its
95 % bootstrap interval), ROC points, and prediction-powered estimates of the labels' means."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..stats import LEVEL, N_BOOT, Interval, bootstrap_stats, mean_ci, ppi_mean, proportion_ci
from ..types import RunResult
from .labels import (
    groups_for,
    infer_scale,
    label_target,
    label_values,
    parse_label_spec,
    resolve_label_columns,
)
from .methods import metric_values
from .predictors import SUPPORT_METRICS, matches, predictors
from .stats import (
    BINARY_STATS,
    GRADED_STATS,
    best_f1_fast,
    binary_stats,
    binary_stats_fast,
    graded_stats,
    graded_stats_fast,
)

COLUMNS = ["method", "metric", "label", "statistic", "value", "ci_low", "ci_high", "n", "note"]


def runs_of(run: RunResult | Sequence[RunResult]) -> list[RunResult]:
    return [run] if isinstance(run, RunResult) else list(run)


def agreement_table(run: RunResult | Sequence[RunResult], label_columns: Sequence[str] | None = None,
                    group_column: str | None = None, *, n_boot: int = N_BOOT, seed: int = 0,
                    label_scales: Mapping[str, tuple[float, float]] | None = None,
                    with_expected: bool = False):
    """Agreement of each method and metric with the human labels, one row per figure.

    Columns: method, metric, label, statistic, value, ci_low, ci_high, n, note. ``label_columns``
    entries may be ``"label"`` or ``"label:metric"``; None = detect (see module docstring).
    ``run`` may also be a list of runs (e.g. one per method) of the same cases.
    ``with_expected`` adds ``expected_adherence`` rows for support labels (the dashboard does).
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for rn in runs_of(run):
        rows.extend(_agreement_rows(rn, label_columns, group_column, n_boot, seed, label_scales or {},
                                    with_expected))
    return pd.DataFrame(rows, columns=COLUMNS)


def _agreement_rows(run: RunResult, label_columns: Sequence[str] | None, group_column: str | None,
                    n_boot: int, seed: int, scales: Mapping[str, tuple[float, float]],
                    with_expected: bool = False) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cols = resolve_label_columns(run, label_columns)
    if not cols:
        return rows
    preds = predictors(run, with_expected)
    groups = groups_for(run.results, group_column)
    unscored = sum(1 for r in run.results if not r.ok)
    for label, explicit, kind in cols:
        target, inverted = label_target(label)
        if explicit is None and target is None:
            continue
        labels = label_values(run, label, kind)
        chosen = [p for p in preds if matches(p, target or "support", explicit)]
        if explicit and not chosen:
            avail = sorted({p.metric for p in preds})
            raise ValueError(f"metric '{explicit}' (for label '{label}') is not in the run; "
                             f"available: {', '.join(avail)}")
        scale = None
        if kind == "graded" and labels:
            scale = tuple(scales.get(label) or infer_scale(list(labels.values())))
        for p in chosen:
            ids = [i for i in p.values if i in labels]
            base_note = []
            if unscored:
                base_note.append(f"{unscored} unscored case(s) left out")
            g = [groups.get(i) for i in ids] if group_column else None
            if group_column and g is not None:
                ng = len({x for x in g if x is not None}) + sum(1 for x in g if x is None)
                base_note.append(f"resampled by '{group_column}' ({ng} groups)")
            s = np.array([p.values[i] for i in ids], dtype=float)
            direction = f"score = 1 − {p.metric}" if inverted else f"score = {p.metric}"
            if kind == "binary":
                y = np.array([labels[i] for i in ids], dtype=bool)
                score = 1.0 - s if inverted else s
                # the method's decision "bad" when the label's positive class is bad, else "good"
                dec = np.array([p.default.get(i, False) for i in ids], dtype=bool)
                dec = ~dec if inverted else dec
                ivs = bootstrap_stats(binary_stats_fast, y.astype(int), score, dec, groups=g,
                                      n_boot=n_boot, seed=seed, names=BINARY_STATS,
                                      point_fn=binary_stats(label))
                pos = int(y.sum())
                notes = {
                    "auroc": [direction, f"positives = {label} ({pos} of {len(y)})"]
                    + (["all scores are equal: the method does not rank these cases"]
                       if len(score) and np.all(score == score[0]) else []),
                    "best_f1": [direction],
                    "f1": [p.default_rule], "precision": [p.default_rule], "recall": [p.default_rule],
                }
                if ivs[1].estimate is not None and len(y):
                    thr = best_f1_fast(y.astype(int), score)[1]
                    if thr is not None:
                        notes["best_f1"].append(f"threshold {thr:.3f}")
                for stat, iv in zip(BINARY_STATS, ivs):
                    if stat in ("f1", "precision", "recall") and p.metric in SUPPORT_METRICS[1:]:
                        continue  # same decision as the adherence row (overall_supported)
                    rows.append(_row(run_method=p.method, metric=p.metric, label=label, stat=stat,
                                     iv=iv, notes=notes[stat] + base_note))
            else:
                lo, hi = scale  # type: ignore[misc]
                y = np.array([labels[i] for i in ids], dtype=float)
                y = (y - lo) / (hi - lo) if hi > lo else np.zeros_like(y)
                y = np.clip(y, 0.0, 1.0)
                score = 1.0 - s if inverted else s
                ivs = bootstrap_stats(graded_stats_fast, y, score, groups=g, n_boot=n_boot, seed=seed,
                                      names=GRADED_STATS, point_fn=graded_stats)
                scale_note = f"label scaled from {lo:g}–{hi:g} to 0–1"
                for stat, iv in zip(GRADED_STATS, ivs):
                    extra = [scale_note] if stat == "rmse" else []
                    rows.append(_row(run_method=p.method, metric=p.metric, label=label, stat=stat,
                                     iv=iv, notes=[direction, *extra, *base_note]))
    return rows


def _row(*, run_method: str, metric: str, label: str, stat: str, iv: Interval, notes: list[str]) -> dict[str, Any]:
    note = "; ".join(x for x in [iv.note if iv.estimate is None else "", *notes,
                                 iv.note if iv.estimate is not None else ""] if x)
    return {"method": run_method, "metric": metric, "label": label, "statistic": stat,
            "value": iv.estimate, "ci_low": iv.low, "ci_high": iv.high, "n": iv.n, "note": note}


def roc_points(run: RunResult | Sequence[RunResult], label_column: str,
               with_expected: bool = False) -> list[dict[str, Any]]:
    """ROC curve points of every matching (method, metric) for a binary label:
    [{fpr, tpr, threshold, metric, method, auc}]. ``threshold`` is on the score scale of the
    agreement table (``1 − metric`` for a hallucination-type label); the first point's threshold
    is None (nothing flagged). Returns [] when the label is missing, not binary or has one class."""
    from sklearn.metrics import roc_auc_score, roc_curve

    label, explicit = parse_label_spec(label_column)
    out: list[dict[str, Any]] = []
    for rn in runs_of(run):
        target, inverted = label_target(label)
        labels = label_values(rn, label, "binary")
        if len(set(labels.values())) < 2:
            continue
        for p in predictors(rn, with_expected):
            if not matches(p, target or "support", explicit):
                continue
            ids = [i for i in p.values if i in labels]
            y = np.array([labels[i] for i in ids], dtype=bool)
            if len(np.unique(y)) < 2:
                continue
            s = np.array([p.values[i] for i in ids], dtype=float)
            score = 1.0 - s if inverted else s
            fpr, tpr, thr = roc_curve(y, score)
            auc = float(roc_auc_score(y, score))
            for a, b, t in zip(fpr, tpr, thr):
                out.append({"fpr": float(a), "tpr": float(b),
                            "threshold": float(t) if math.isfinite(t) else None,
                            "metric": p.metric, "method": p.method, "auc": auc})
    return out


def ppi_estimates(run: RunResult, label_columns: Sequence[str] | None = None, *,
                  level: float = LEVEL) -> list[dict[str, Any]]:
    """Prediction-powered estimate of the true mean of each human label (e.g. the real
    hallucination rate) from the method's predictions on every scored case plus the human labels
    on the labeled ones (PPI++, power-tuned). Useful when only a small subset is labeled.
    [{label, metric, estimate, low, high, n_labeled, n_total, labels_only: {...}, note}]."""
    out: list[dict[str, Any]] = []
    for label, explicit, kind in resolve_label_columns(run, label_columns):
        target, inverted = label_target(label)
        metric = explicit or {"support": "overall_supported" if kind == "binary" else "adherence",
                              "relevance": "context_relevance", "utilization": "context_utilization",
                              "completeness": "completeness"}.get(target or "", "adherence")
        vals = metric_values(run, metric)
        if not vals:
            continue
        lab = {k: float(v) for k, v in label_values(run, label, kind).items() if k in vals}
        if not lab:
            continue
        scale_note = ""
        if kind == "graded":
            lo, hi = infer_scale(list(lab.values()))
            lab = {k: min(1.0, max(0.0, (v - lo) / (hi - lo) if hi > lo else 0.0)) for k, v in lab.items()}
            scale_note = f"label scaled from {lo:g}–{hi:g} to 0–1"
        pred = {k: (1.0 - v if inverted else v) for k, v in vals.items()}
        ids = list(lab)
        iv = ppi_mean(list(pred.values()), [pred[i] for i in ids], [lab[i] for i in ids], level=level,
                      power_tuned=True, bounds=(0.0, 1.0))
        classical = (proportion_ci(list(lab.values())) if kind == "binary"
                     else mean_ci(list(lab.values())))
        out.append({"label": label, "metric": metric, "estimate": iv.estimate, "low": iv.low,
                    "high": iv.high, "n_labeled": len(ids), "n_total": len(pred),
                    "labels_only": classical.as_dict(),
                    "note": "; ".join(x for x in [f"prediction = {'1 − ' if inverted else ''}{metric}",
                                                  scale_note, iv.note] if x)})
    return out

