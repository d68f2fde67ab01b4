"""The statistics of agreement: binary (AUROC, best F1, F1 / precision / recall at the method's
decision) and graded (RMSE, Spearman, Kendall τ-b).

Each comes twice, on purpose: the reported figure is computed with scikit-learn / scipy
(``binary_stats(label)``, ``graded_stats``); the 2,000 bootstrap replicates use closed forms of
the same figures (``binary_stats_fast``, ``graded_stats_fast``): AUROC as the Mann–Whitney rank sum
(ties count one half), best F1 over the distinct score thresholds, Kendall τ-b from the pair sign
matrices, Spearman as the Pearson correlation of ``scipy.stats.rankdata`` ranks. They agree with
the library functions to rounding (``tests/test_agreement.py``) and are 10–50× faster per call;
the library functions differ from them in the last bits on a third of inputs, so swapping them in
would change reported intervals.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from scipy.stats import rankdata

BINARY_STATS = ("auroc", "best_f1", "f1", "precision", "recall")
GRADED_STATS = ("rmse", "spearman", "kendall")


def avg_rank(x: np.ndarray) -> np.ndarray:
    """Average ranks (ties share the mean rank)."""
    return np.asarray(rankdata(x), dtype=float)


def kendall_fast(x: np.ndarray, y: np.ndarray) -> float | None:
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


def auroc_fast(y: np.ndarray, s: np.ndarray) -> float | None:
    """AUROC by the Mann–Whitney rank sum (ties count one half) — equal to sklearn's
    ``roc_auc_score``; used for the 2,000 bootstrap replicates."""
    n1 = int(y.sum())
    n0 = len(y) - n1
    if n1 == 0 or n0 == 0:
        return None
    r = avg_rank(s)
    return float((r[y == 1].sum() - n1 * (n1 + 1) / 2.0) / (n1 * n0))


def best_f1_fast(y: np.ndarray, s: np.ndarray) -> tuple[float | None, float | None]:
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


def binary_stats(label: str) -> Callable[[np.ndarray, np.ndarray, np.ndarray], list[Any]]:
    """The reported binary figures (scikit-learn) as ``fn(y, score, decision)``; a one-class
    label gives the reason instead of AUROC / best F1."""
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


def binary_stats_fast(y: np.ndarray, s: np.ndarray, d: np.ndarray) -> list[Any]:
    y = y.astype(bool)
    d = d.astype(bool)
    auroc = auroc_fast(y.astype(int), s)
    best = best_f1_fast(y.astype(int), s)[0] if auroc is not None else None
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


def graded_stats(y: np.ndarray, s: np.ndarray) -> list[Any]:
    """RMSE, Spearman, Kendall τ-b with scipy (the reported figures)."""
    from scipy.stats import kendalltau, spearmanr

    rmse, msg = _graded_checks(y, s)
    if msg:
        return [rmse, msg, msg]
    return [rmse, float(spearmanr(y, s).statistic), float(kendalltau(y, s).statistic)]


def graded_stats_fast(y: np.ndarray, s: np.ndarray) -> list[Any]:
    """Same figures for the bootstrap replicates: Spearman as the Pearson correlation of average
    ranks (what ``spearmanr`` computes), Kendall τ-b from the sign matrices."""
    rmse, msg = _graded_checks(y, s)
    if msg:
        return [rmse, msg, msg]
    rho = float(np.corrcoef(avg_rank(y), avg_rank(s))[0, 1])
    return [rmse, rho, kendall_fast(y, s)]

