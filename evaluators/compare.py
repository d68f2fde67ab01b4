"""How far to trust the scores: agreement with human labels, method vs method, intervals.

UI-free (the dashboard and the CLI call these). Every figure carries a 95 % bootstrap interval;
with ``group_column`` whole groups (e.g. several answers to one source question) are resampled.

Human labels live in ``TestCase.labels`` (nested values by dotted path: ``faithfulness.mean``).
Label columns are detected automatically when not given:

* **binary** – bools, ``"yes"/"no"``-style strings, or 0/1 integers (not named ``*_score``);
* **graded** – other numbers, or ``{"mean": …, "median": …}`` dicts (``.mean`` is used).

Each label is compared with the metrics that measure the same thing (by name, case-insensitive):

===========================================  ===========================  =====================
label name contains                          compared with                direction
===========================================  ===========================  =====================
``halluc``, ``unsupported``, ``unfaithful``  adherence, overall_supported,  score = 1 − metric
                                             min_sentence_support,         (higher = more likely
                                             faithfulness-type family      hallucinated)
                                             metrics
``adherence``, ``faithful``, ``supported``,  the same metrics              score = metric
``grounded``
``relevan``                                  context_relevance (+ family)  score = metric
``utiliz``                                   context_utilization           score = metric
``complete``                                 completeness (+ family)       score = metric
===========================================  ===========================  =====================

``min_sentence_support`` is the lowest per-sentence support probability of the labeler (when it
gives one). Other labels are compared only when named explicitly as ``"label:metric"`` (e.g.
``"quality_score:adherence"``); the same syntax overrides the default mapping.

Binary statistics: ``auroc``; ``best_f1`` (threshold in ``note``); ``f1``, ``precision``,
``recall`` at the method's default decision — for the support metrics of a labeler that is
``overall_supported`` (a case is flagged when any sentence is not fully supported), for other
0–1 metrics the threshold 0.5. Graded statistics: ``rmse`` (label scaled to 0–1; the scale is
inferred — [0, 1], Likert 1–4, 1–5, 0–10, 0–100 — and stated in ``note``), ``spearman``,
``kendall``. A figure that is undefined (one class present, constant scores, < 2 cases) is
``None`` with the reason in ``note``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .stats import (
    LEVEL,
    N_BOOT,
    Interval,
    bootstrap_stats,
    mean_ci,
    ppi_mean,
    proportion_ci,
)
from .types import TRACE_METRICS, CaseResult, RunResult, SentenceLabels, TraceScores

COLUMNS = ["method", "metric", "label", "statistic", "value", "ci_low", "ci_high", "n", "note"]
BINARY_STATS = ("auroc", "best_f1", "f1", "precision", "recall")
GRADED_STATS = ("rmse", "spearman", "kendall")

_TRUE = {"true", "yes", "y", "1", "t"}
_FALSE = {"false", "no", "n", "0", "f"}
_SUPPORT_METRICS = ("adherence", "overall_supported", "min_sentence_support")
_TARGET_METRICS = {
    "support": _SUPPORT_METRICS,
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


# --------------------------------------------------------------------------- labels


def _lookup(d: Mapping[str, Any], path: str) -> Any:
    if path in d:
        return d[path]
    cur: Any = d
    for part in path.split("."):
        if isinstance(cur, Mapping) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def _to_bool(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, np.integer)) and v in (0, 1):
        return bool(v)
    if isinstance(v, float) and v in (0.0, 1.0):
        return bool(v)
    if isinstance(v, str):
        s = v.strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
    return None


def _to_float(v: Any) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


def _graded_dict_key(v: Any) -> str | None:
    if isinstance(v, Mapping):
        for k in ("mean", "median", "value", "score"):
            if _to_float(v.get(k)) is not None:
                return k
    return None


def label_kind(values: Sequence[Any], name: str = "") -> str | None:
    """'binary', 'graded' or None (not a usable label) for the non-missing values of a column."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    if all(isinstance(v, bool) for v in vals):
        return "binary"
    if all(isinstance(v, str) for v in vals) and all(_to_bool(v) is not None for v in vals):
        return "binary"
    nums = [v for v in vals if not isinstance(v, bool) and _to_float(v) is not None
            and not isinstance(v, str)]
    if len(nums) == len(vals):
        if not name.lower().endswith("_score") and all(float(v) in (0.0, 1.0) for v in nums) \
                and all(isinstance(v, (int, np.integer)) for v in nums):
            return "binary"
        return "graded"
    return None


def label_target(name: str) -> tuple[str | None, bool]:
    """(target, inverted) of a label name: what it measures and whether higher = worse."""
    s = name.lower().split(".")[0]
    if any(k in s for k in ("halluc", "unsupported", "unfaithful", "ungrounded", "not_supported")):
        return "support", True
    if any(k in s for k in ("adherence", "faithful", "supported", "grounded")):
        return "support", False
    if "relevan" in s:
        return "relevance", False
    if "utiliz" in s:
        return "utilization", False
    if "complete" in s:
        return "completeness", False
    return None, False


def detect_label_columns(cases: Iterable[Any]) -> dict[str, str]:
    """{column: kind} of the human-label columns of these cases (TestCase or CaseResult) that map
    to a metric. Dict-valued labels such as ``{"mean": 3.7, "median": 4}`` become ``name.mean``."""
    seen: dict[str, list[Any]] = {}
    for c in cases:
        case = getattr(c, "case", c)
        for k, v in (case.labels or {}).items():
            if isinstance(v, Mapping):
                sub = _graded_dict_key(v)
                if sub:
                    seen.setdefault(f"{k}.{sub}", []).append(v.get(sub))
                continue
            seen.setdefault(k, []).append(v)
    out: dict[str, str] = {}
    for k, vals in seen.items():
        kind = label_kind(vals, k)
        if kind and label_target(k)[0]:
            out[k] = kind
    return out


def infer_scale(values: Sequence[float]) -> tuple[float, float]:
    """The range graded labels live on: [0,1], Likert 1–4, 1–5, 0–10, 0–100, else min–max."""
    lo, hi = min(values), max(values)
    for a, b in ((0.0, 1.0), (1.0, 4.0), (1.0, 5.0), (0.0, 10.0), (0.0, 100.0)):
        if lo >= a and hi <= b:
            return a, b
    return float(lo), float(hi)


# --------------------------------------------------------------------------- predictions


@dataclass(frozen=True)
class _Predictor:
    method: str
    metric: str
    #: case id -> value in [0, 1] (higher = better / more supported)
    values: dict[str, float]
    #: case id -> the method's own yes/no "supported / good" decision, when it has one
    default: dict[str, bool] = field(default_factory=dict)
    default_rule: str = ""


def _labeler_values(scores: TraceScores, labels: SentenceLabels | None) -> dict[str, float]:
    vals = {m: float(getattr(scores, m)) for m in TRACE_METRICS}
    vals["overall_supported"] = float(scores.overall_supported)
    if labels is not None:
        probs = [s.score for s in labels.sentences if s.score is not None]
        if probs:
            vals["min_sentence_support"] = float(min(probs))
    return vals


def _predictors(run: RunResult) -> list[_Predictor]:
    """Every (method, metric) series in a run: the run's labels, each hybrid variant, and each
    family metric."""
    series: dict[tuple[str, str], dict[str, float]] = {}
    defaults: dict[tuple[str, str], dict[str, bool]] = {}
    for r in run.results:
        if not r.ok:
            continue
        cid = r.case.id
        sets = [(run.method, r.scores, r.labels)]
        sets += [(f"{run.method}:{k}", r.variant_scores[k], v) for k, v in r.variants.items()
                 if k in r.variant_scores]
        for meth, sc, lab in sets:
            for m, v in _labeler_values(sc, lab).items():  # type: ignore[arg-type]
                series.setdefault((meth, m), {})[cid] = v
                defaults.setdefault((meth, m), {})[cid] = bool(sc.overall_supported)  # type: ignore[union-attr]
        for name, mv in r.metrics.items():
            if mv.value is not None and math.isfinite(mv.value):
                series.setdefault((run.method, name), {})[cid] = float(mv.value)
    out = []
    for (meth, m), vals in series.items():
        if m in (*_SUPPORT_METRICS, "context_relevance", "context_utilization", "completeness") \
                and (meth, m) in defaults:
            if m in _SUPPORT_METRICS:
                out.append(_Predictor(meth, m, vals, defaults[(meth, m)],
                                      "default decision = overall_supported"))
            else:
                out.append(_Predictor(meth, m, vals, {k: v >= 0.5 for k, v in vals.items()},
                                      "default threshold 0.5"))
        else:
            out.append(_Predictor(meth, m, vals, {k: v >= 0.5 for k, v in vals.items()},
                                  "default threshold 0.5"))
    return out


def _matches(pred: _Predictor, target: str, explicit: str | None) -> bool:
    if explicit:
        return pred.metric == explicit
    if pred.metric in _TARGET_METRICS[target]:
        return True
    if pred.metric in (*TRACE_METRICS, "overall_supported", "min_sentence_support"):
        return False
    return any(k in pred.metric.lower() for k in _TARGET_FAMILY[target])


def _groups_for(results: Sequence[CaseResult], group_column: str | None) -> dict[str, Any]:
    if not group_column:
        return {}
    out: dict[str, Any] = {}
    for r in results:
        c = r.case
        v = _lookup(c.metadata, group_column)
        if v is None:
            v = _lookup(c.labels, group_column)
        if v is None:  # one level of nesting, e.g. metadata["meta"]["source_id"]
            for sub in c.metadata.values():
                if isinstance(sub, Mapping):
                    v = _lookup(sub, group_column)
                    if v is not None:
                        break
        out[c.id] = v if v is None or isinstance(v, (str, int, float, bool)) else repr(v)
    return out


# --------------------------------------------------------------------------- statistics


def _avg_rank(x: np.ndarray) -> np.ndarray:
    """Average ranks (ties share the mean rank) — ``scipy.stats.rankdata(x)`` without its
    per-call overhead, for the bootstrap replicates (tested equal)."""
    _, inv, cnt = np.unique(x, return_inverse=True, return_counts=True)
    ends = np.cumsum(cnt)
    return ((ends - cnt + 1 + ends) / 2.0)[inv]


def _kendall_fast(x: np.ndarray, y: np.ndarray) -> float | None:
    """Kendall τ-b from the pair sign matrices (O(n²), used up to 600 cases; scipy above) —
    equal to ``scipy.stats.kendalltau``."""
    if len(x) > 600:
        from scipy.stats import kendalltau

        return float(kendalltau(x, y).statistic)
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    # untied ordered pairs in x and in y (the zero diagonal is not counted)
    denom = np.sqrt(float(np.count_nonzero(sx)) * float(np.count_nonzero(sy)))
    if denom == 0:
        return None
    return float((sx * sy).sum() / denom)


def _auroc_fast(y: np.ndarray, s: np.ndarray) -> float | None:
    """AUROC by the Mann–Whitney rank sum (ties count one half) — equal to sklearn's
    ``roc_auc_score``; used for the 2,000 bootstrap replicates."""
    n1 = int(y.sum())
    n0 = len(y) - n1
    if n1 == 0 or n0 == 0:
        return None
    r = _avg_rank(s)
    return float((r[y == 1].sum() - n1 * (n1 + 1) / 2.0) / (n1 * n0))


def _best_f1_fast(y: np.ndarray, s: np.ndarray) -> tuple[float | None, float | None]:
    """Highest F1 over all thresholds 'score >= t' (and that t) — equal to the maximum over
    sklearn's ``precision_recall_curve``."""
    n1 = int(y.sum())
    if n1 == 0:
        return None, None
    order = np.argsort(-s, kind="mergesort")
    ss, yy = s[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(ss)), len(ss) - 1]  # last index of each distinct score
    tp = np.cumsum(yy)[last]
    fp = (last + 1) - tp
    f1 = 2 * tp / (2 * tp + fp + (n1 - tp))
    j = int(np.argmax(f1))
    return float(f1[j]), float(ss[last[j]])


def _prf(y: np.ndarray, d: np.ndarray) -> tuple[Any, Any, Any]:
    tp = int((y & d).sum())
    fp = int((~y & d).sum())
    fn = int((y & ~d).sum())
    prec: Any = tp / (tp + fp) if tp + fp else "no case was flagged: precision undefined"
    rec: Any = tp / (tp + fn) if tp + fn else "no positive label: recall undefined"
    f1: Any = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else "no positives flagged or labeled: F1 undefined"
    return f1, prec, rec


def _one_class_msg(label: str, y: np.ndarray) -> str:
    val = bool(y[0]) if len(y) else None
    return (f"only one class present in '{label}' (all {len(y)} cases are {val}): AUROC and "
            f"best-F1 need both classes")


def _binary_stats_sklearn(label: str):
    from sklearn.metrics import f1_score, precision_recall_curve, precision_score, recall_score, roc_auc_score

    def fn(y: np.ndarray, s: np.ndarray, d: np.ndarray) -> list[Any]:
        y = y.astype(bool)
        d = d.astype(bool)
        if len(np.unique(y)) < 2:
            msg = _one_class_msg(label, y)
            auroc: Any = msg
            best: Any = msg
        else:
            auroc = float(roc_auc_score(y, s))
            p, r, _ = precision_recall_curve(y, s)
            with np.errstate(all="ignore"):
                f = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
            best = float(np.max(f))
        f1, prec, rec = _prf(y, d)  # messages for undefined cases
        if not isinstance(f1, str):
            f1 = float(f1_score(y, d, zero_division=0))
        if not isinstance(prec, str):
            prec = float(precision_score(y, d, zero_division=0))
        if not isinstance(rec, str):
            rec = float(recall_score(y, d, zero_division=0))
        return [auroc, best, f1, prec, rec]

    return fn


def _binary_stats_fast(y: np.ndarray, s: np.ndarray, d: np.ndarray) -> list[Any]:
    y = y.astype(bool)
    d = d.astype(bool)
    auroc = _auroc_fast(y.astype(int), s)
    best = _best_f1_fast(y.astype(int), s)[0] if auroc is not None else None
    return [auroc, best, *_prf(y, d)]


def _graded_checks(y: np.ndarray, s: np.ndarray) -> tuple[float | None, str | None]:
    rmse = float(np.sqrt(np.mean((y - s) ** 2))) if len(y) else None
    if len(y) < 2:
        return rmse, "fewer than 2 cases"
    if np.all(y == y[0]):
        return rmse, "the human labels are constant: no correlation"
    if np.all(s == s[0]):
        return rmse, "the method's scores are constant: no correlation"
    return rmse, None


def _graded_stats(y: np.ndarray, s: np.ndarray) -> list[Any]:
    """RMSE, Spearman, Kendall τ-b with scipy (the reported figures)."""
    from scipy.stats import kendalltau, spearmanr

    rmse, msg = _graded_checks(y, s)
    if msg:
        return [rmse, msg, msg]
    return [rmse, float(spearmanr(y, s).statistic), float(kendalltau(y, s).statistic)]


def _graded_stats_fast(y: np.ndarray, s: np.ndarray) -> list[Any]:
    """Same figures for the bootstrap replicates: Spearman as the Pearson correlation of average
    ranks (what ``spearmanr`` computes), Kendall with scipy."""
    rmse, msg = _graded_checks(y, s)
    if msg:
        return [rmse, msg, msg]
    rho = float(np.corrcoef(_avg_rank(y), _avg_rank(s))[0, 1])
    return [rmse, rho, _kendall_fast(y, s)]


# --------------------------------------------------------------------------- public API


def _parse_label_spec(spec: str) -> tuple[str, str | None]:
    label, _, metric = spec.partition(":")
    return label.strip(), (metric.strip() or None)


def _runs(run: RunResult | Sequence[RunResult]) -> list[RunResult]:
    return [run] if isinstance(run, RunResult) else list(run)


def agreement_table(run: RunResult | Sequence[RunResult], label_columns: Sequence[str] | None = None,
                    group_column: str | None = None, *, n_boot: int = N_BOOT, seed: int = 0,
                    label_scales: Mapping[str, tuple[float, float]] | None = None):
    """Agreement of each method and metric with the human labels, one row per figure.

    Columns: method, metric, label, statistic, value, ci_low, ci_high, n, note. ``label_columns``
    entries may be ``"label"`` or ``"label:metric"``; None = detect (see module docstring).
    ``run`` may also be a list of runs (e.g. one per method) of the same cases.
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for rn in _runs(run):
        rows.extend(_agreement_rows(rn, label_columns, group_column, n_boot, seed, label_scales or {}))
    return pd.DataFrame(rows, columns=COLUMNS)


def _label_columns(run: RunResult, label_columns: Sequence[str] | None) -> list[tuple[str, str | None, str]]:
    """[(label, explicit metric, kind)]."""
    if label_columns is None:
        return [(k, None, kind) for k, kind in detect_label_columns(run.results).items()]
    out = []
    for spec in label_columns:
        label, metric = _parse_label_spec(spec)
        vals = [_lookup(r.case.labels, label) for r in run.results]
        sub = next((_graded_dict_key(v) for v in vals if isinstance(v, Mapping)), None)
        if sub:
            label = f"{label}.{sub}"
            vals = [_lookup(r.case.labels, label) for r in run.results]
        if all(v is None for v in vals):
            known = sorted({k for r in run.results for k in r.case.labels})
            raise ValueError(f"label column '{label}' not found in any case; labels present: "
                             f"{', '.join(known) or '(none)'}")
        kind = label_kind(vals, label)
        if kind is None:
            raise ValueError(f"label column '{label}' holds neither yes/no nor numeric values "
                             f"(e.g. {next(v for v in vals if v is not None)!r})")
        if metric is None and label_target(label)[0] is None:
            raise ValueError(f"label column '{label}' has no default metric to compare with; "
                             f"name one as '{label}:adherence' (or another metric)")
        out.append((label, metric, kind))
    return out


def _agreement_rows(run: RunResult, label_columns: Sequence[str] | None, group_column: str | None,
                    n_boot: int, seed: int, scales: Mapping[str, tuple[float, float]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cols = _label_columns(run, label_columns)
    if not cols:
        return rows
    preds = _predictors(run)
    groups = _groups_for(run.results, group_column)
    unscored = sum(1 for r in run.results if not r.ok)
    for label, explicit, kind in cols:
        target, inverted = label_target(label)
        if explicit is None and target is None:
            continue
        labels: dict[str, Any] = {}
        for r in run.results:
            v = _lookup(r.case.labels, label)
            v = _to_bool(v) if kind == "binary" else _to_float(v)
            if v is not None:
                labels[r.case.id] = v
        chosen = [p for p in preds if _matches(p, target or "support", explicit)]
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
                ivs = bootstrap_stats(_binary_stats_fast, y.astype(int), score, dec, groups=g,
                                      n_boot=n_boot, seed=seed, names=BINARY_STATS,
                                      point_fn=_binary_stats_sklearn(label))
                pos = int(y.sum())
                notes = {
                    "auroc": [direction, f"positives = {label} ({pos} of {len(y)})"]
                    + (["all scores are equal: the method does not rank these cases"]
                       if len(score) and np.all(score == score[0]) else []),
                    "best_f1": [direction],
                    "f1": [p.default_rule], "precision": [p.default_rule], "recall": [p.default_rule],
                }
                if ivs[1].estimate is not None and len(y):
                    thr = _best_f1_fast(y.astype(int), score)[1]
                    if thr is not None:
                        notes["best_f1"].append(f"threshold {thr:.3f}")
                for stat, iv in zip(BINARY_STATS, ivs):
                    if stat in ("f1", "precision", "recall") and p.metric in _SUPPORT_METRICS[1:]:
                        continue  # same decision as the adherence row (overall_supported)
                    rows.append(_row(run_method=p.method, metric=p.metric, label=label, stat=stat,
                                     iv=iv, notes=notes[stat] + base_note))
            else:
                lo, hi = scale  # type: ignore[misc]
                y = np.array([labels[i] for i in ids], dtype=float)
                y = (y - lo) / (hi - lo) if hi > lo else np.zeros_like(y)
                y = np.clip(y, 0.0, 1.0)
                score = 1.0 - s if inverted else s
                ivs = bootstrap_stats(_graded_stats_fast, y, score, groups=g, n_boot=n_boot, seed=seed,
                                      names=GRADED_STATS, point_fn=_graded_stats)
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


def roc_points(run: RunResult | Sequence[RunResult], label_column: str) -> list[dict[str, Any]]:
    """ROC curve points of every matching (method, metric) for a binary label:
    [{fpr, tpr, threshold, metric, method, auc}]. ``threshold`` is on the score scale of the
    agreement table (``1 − metric`` for a hallucination-type label); the first point's threshold
    is None (nothing flagged). Returns [] when the label is missing, not binary or has one class."""
    from sklearn.metrics import roc_auc_score, roc_curve

    label, explicit = _parse_label_spec(label_column)
    out: list[dict[str, Any]] = []
    for rn in _runs(run):
        target, inverted = label_target(label)
        labels = {r.case.id: _to_bool(_lookup(r.case.labels, label)) for r in rn.results}
        labels = {k: v for k, v in labels.items() if v is not None}
        if len(set(labels.values())) < 2:
            continue
        for p in _predictors(rn):
            if not _matches(p, target or "support", explicit):
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


def _metric_values(run: RunResult, metric: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for r in run.results:
        if not r.ok:
            continue
        if metric in TRACE_METRICS or metric == "overall_supported":
            out[r.case.id] = float(getattr(r.scores, metric))
        elif metric == "average":
            out[r.case.id] = float(r.scores.average())  # type: ignore[union-attr]
        elif metric in r.metrics and r.metrics[metric].value is not None:
            out[r.case.id] = float(r.metrics[metric].value)  # type: ignore[arg-type]
    return out


def method_vs_method(run_a: RunResult, run_b: RunResult, metric: str = "adherence", top: int = 10, *,
                     n_boot: int = N_BOOT, seed: int = 0, group_column: str | None = None) -> dict[str, Any]:
    """Agreement of two runs on the same cases (matched by id) for one metric.

    Returns {metric, method_a, method_b, n, correlations: {pearson, spearman, kendall,
    mean_abs_diff[, cohen_kappa, agreement]}: Interval-as-dict (+ "value" = "mean"),
    disagreements: [{id, question, a, b, diff}] largest |a − b| first}.
    """
    from scipy.stats import kendalltau, pearsonr, spearmanr
    from sklearn.metrics import cohen_kappa_score

    va, vb = _metric_values(run_a, metric), _metric_values(run_b, metric)
    if not va and not vb:
        raise ValueError(f"metric '{metric}' is in neither run")
    ids = [i for i in va if i in vb]
    a = np.array([va[i] for i in ids], dtype=float)
    b = np.array([vb[i] for i in ids], dtype=float)
    binary = bool(len(ids)) and set(np.unique(np.r_[a, b])) <= {0.0, 1.0}

    def corr(x: np.ndarray, y: np.ndarray) -> list[Any]:
        if len(x) < 2:
            return ["fewer than 2 shared cases"] * 3 + [float(np.mean(np.abs(x - y))) if len(x) else None] \
                + ([None, None] if binary else [])
        mad = float(np.mean(np.abs(x - y)))
        if np.all(x == x[0]) or np.all(y == y[0]):
            msg = "one method's scores are constant: no correlation"
            res: list[Any] = [msg, msg, msg, mad]
        else:
            res = [float(pearsonr(x, y).statistic), float(spearmanr(x, y).statistic),
                   float(kendalltau(x, y).statistic), mad]
        if binary:
            both_const = np.all(x == x[0]) and np.all(y == y[0]) and x[0] == y[0]
            kappa: Any = "both methods give one identical verdict: kappa undefined" if both_const \
                else float(cohen_kappa_score(x.astype(int), y.astype(int)))
            res += [kappa, float(np.mean(x == y))]
        return res

    names = ["pearson", "spearman", "kendall", "mean_abs_diff"] + (["cohen_kappa", "agreement"] if binary else [])
    groups = _groups_for([r for r in run_a.results if r.case.id in set(ids)], group_column) if group_column else {}
    g = [groups.get(i) for i in ids] if group_column else None
    ivs = bootstrap_stats(corr, a, b, groups=g, n_boot=n_boot, seed=seed, names=names)
    questions = {r.case.id: r.case.question for r in run_a.results}
    diffs = sorted(((i, x, y) for i, x, y in zip(ids, a, b)), key=lambda t: -abs(t[1] - t[2]))
    dis = [{"id": i, "question": questions.get(i, ""), "a": float(x), "b": float(y), "diff": float(x - y)}
           for i, x, y in diffs[: max(0, top)] if x != y]
    return {
        "metric": metric,
        "method_a": run_a.method,
        "method_b": run_b.method,
        "n": len(ids),
        "only_in_a": len([i for i in va if i not in vb]),
        "only_in_b": len([i for i in vb if i not in va]),
        "correlations": {k: {**iv.as_dict(), "value": iv.estimate} for k, iv in zip(names, ivs)},
        "disagreements": dis,
    }


def run_intervals(run: RunResult, group_column: str | None = None, *, n_boot: int = N_BOOT,
                  seed: int = 0) -> dict[str, dict[str, Any]]:
    """95 % interval of every mean a run reports: the four TRACE ratios and their average
    (bootstrap), ``overall_supported`` (Wilson; grouped bootstrap with ``group_column``), each
    family metric (Wilson when it is 0/1 valued, else bootstrap). {metric: {mean, low, high, n,
    method[, note]}}; means equal ``run.means()`` / the export's family means."""
    scored = run.scored
    groups_map = _groups_for(run.results, group_column) if group_column else {}
    g = [groups_map.get(r.case.id) for r in scored] if group_column else None
    out: dict[str, dict[str, Any]] = {}
    for m in TRACE_METRICS:
        out[m] = mean_ci([getattr(r.scores, m) for r in scored], groups=g, n_boot=n_boot, seed=seed).as_dict()
    out["overall_supported"] = proportion_ci([r.scores.overall_supported for r in scored],  # type: ignore[union-attr]
                                             groups=g, n_boot=n_boot, seed=seed).as_dict()
    out["average"] = mean_ci([r.scores.average() for r in scored], groups=g,  # type: ignore[union-attr]
                             n_boot=n_boot, seed=seed).as_dict()
    names: list[str] = []
    for r in run.results:
        names.extend(n for n in r.metrics if n not in names)
    for name in names:
        rs = [r for r in run.results if name in r.metrics and r.metrics[name].value is not None]
        vals = [float(r.metrics[name].value) for r in rs]  # type: ignore[arg-type]
        gg = [groups_map.get(r.case.id) for r in rs] if group_column else None
        if vals and set(vals) <= {0.0, 1.0}:
            out[name] = proportion_ci(vals, groups=gg, n_boot=n_boot, seed=seed).as_dict()
        else:
            out[name] = mean_ci(vals, groups=gg, n_boot=n_boot, seed=seed).as_dict()
    return out


def ppi_estimates(run: RunResult, label_columns: Sequence[str] | None = None, *,
                  level: float = LEVEL) -> list[dict[str, Any]]:
    """Prediction-powered estimate of the true mean of each human label (e.g. the real
    hallucination rate) from the method's predictions on every scored case plus the human labels
    on the labeled ones (PPI++, power-tuned). Useful when only a small subset is labeled.
    [{label, metric, estimate, low, high, n_labeled, n_total, labels_only: {...}, note}]."""
    out: list[dict[str, Any]] = []
    scored = run.scored
    for label, explicit, kind in _label_columns(run, label_columns):
        target, inverted = label_target(label)
        metric = explicit or {"support": "overall_supported" if kind == "binary" else "adherence",
                              "relevance": "context_relevance", "utilization": "context_utilization",
                              "completeness": "completeness"}.get(target or "", "adherence")
        vals = _metric_values(run, metric)
        if not vals:
            continue
        raw = {r.case.id: _lookup(r.case.labels, label) for r in scored}
        lab = {k: (_to_bool(v) if kind == "binary" else _to_float(v)) for k, v in raw.items()}
        lab = {k: float(v) for k, v in lab.items() if v is not None and k in vals}
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


def format_table(df, digits: int = 3) -> str:
    """Plain-text rendering of an agreement table (value [low, high])."""
    if df is None or len(df) == 0:
        return "(no human labels to compare with)"

    def fmt(row: Any) -> str:
        if row["value"] is None or (isinstance(row["value"], float) and math.isnan(row["value"])):
            return "n/a"
        s = f"{row['value']:.{digits}f}"
        if row["ci_low"] is not None and not (isinstance(row["ci_low"], float) and math.isnan(row["ci_low"])):
            s += f" [{row['ci_low']:.{digits}f}, {row['ci_high']:.{digits}f}]"
        return s

    head = ["method", "metric", "label", "statistic", "value [95% CI]", "n", "note"]
    body = [[str(r["method"]), str(r["metric"]), str(r["label"]), str(r["statistic"]), fmt(r),
             str(r["n"]), str(r["note"] or "")] for _, r in df.iterrows()]
    widths = [max(len(h), *(len(b[i]) for b in body)) if i < 6 else 0 for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip()]
    lines.append("  ".join("-" * w if w else "----" for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(b, widths)).rstrip() for b in body]
    return "\n".join(lines)


def table_records(df) -> list[dict[str, Any]]:
    """JSON-safe rows of an agreement table (NaN -> None)."""
    recs = []
    for rec in df.to_dict(orient="records"):
        recs.append({k: (None if isinstance(v, float) and not math.isfinite(v) else
                         (v.item() if isinstance(v, np.generic) else v)) for k, v in rec.items()})
    return recs


def agreement_report(runs: RunResult | Sequence[RunResult], label_columns: Sequence[str] | None = None,
                     group_column: str | None = None, *, n_boot: int = N_BOOT, seed: int = 0) -> dict[str, Any]:
    """Everything the ``agreement`` command prints and writes: the table (records and text), ROC
    points per binary label, prediction-powered estimates, the intervals of each run's means and,
    for several runs, method-vs-method agreement on adherence."""
    rl = _runs(runs)
    df = agreement_table(rl, label_columns, group_column, n_boot=n_boot, seed=seed)
    labels: dict[str, str] = {}
    for rn in rl:
        for label, _metric, kind in _label_columns(rn, label_columns):
            labels.setdefault(label, kind)
    roc = {lab: roc_points(rl, lab) for lab, kind in labels.items() if kind == "binary"}
    text = [format_table(df)]
    ppi = {rn.method: ppi_estimates(rn, label_columns) for rn in rl}
    for meth, rows in ppi.items():
        for r in rows:
            if r["n_labeled"] < r["n_total"] and r["estimate"] is not None:
                text.append(f"{meth}: prediction-powered mean of {r['label']}: {r['estimate']:.3f} "
                            f"[{r['low']:.3f}, {r['high']:.3f}] ({r['n_labeled']} labeled of {r['n_total']})")
    mvm = []
    for i in range(len(rl)):
        for j in range(i + 1, len(rl)):
            m = method_vs_method(rl[i], rl[j], "adherence", n_boot=n_boot, seed=seed, group_column=group_column)
            mvm.append(m)
            sp = m["correlations"]["spearman"]
            text.append(f"{m['method_a']} vs {m['method_b']} (adherence, n={m['n']}): Spearman "
                        + (f"{sp['mean']:.3f} [{sp['low']:.3f}, {sp['high']:.3f}]"
                           if sp["mean"] is not None and sp["low"] is not None
                           else str(sp.get("note") or "n/a")))
    return {
        "methods": [rn.method for rn in rl],
        "label_columns": labels,
        "group_column": group_column,
        "n_boot": n_boot,
        "seed": seed,
        "num_cases": {rn.method: len(rn.results) for rn in rl},
        "num_scored": {rn.method: len(rn.scored) for rn in rl},
        "table": table_records(df),
        "roc": roc,
        "ppi": ppi,
        "method_vs_method": mvm,
        "intervals": {rn.method: run_intervals(rn, group_column, n_boot=n_boot, seed=seed) for rn in rl},
        "text": "\n".join(text),
    }


__all__ = [
    "COLUMNS", "agreement_report", "agreement_table", "detect_label_columns", "format_table", "infer_scale",
    "label_kind", "label_target", "method_vs_method", "ppi_estimates", "roc_points", "run_intervals",
    "table_records",
]
