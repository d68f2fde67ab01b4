"""Paired statistics of two runs on the same cases, and the joint resampling behind a leaderboard.

* the difference of the means, B − A, over the cases both runs scored, with a **paired percentile
  bootstrap** interval (the cases are resampled, each keeping its two scores; seeded, so a rerun
  gives the same interval). Above :data:`BOOTSTRAP_MAX_N` pairs the t interval is used instead (the
  bootstrap gives the same at that size, at a thousand times the cost);
* a two-sided p-value from the **paired t-test** (``scipy.stats.ttest_rel``);
* **Holm**'s step-down correction of the p-values of several pairs (:func:`holm`);
* win / tie / loss counts (a tie: the two scores within :data:`TIE`);
* the smallest difference the cases could have detected (80 % power, two-sided, at the level used —
  after the Bonferroni bound of the correction when there are several pairs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..stats import LEVEL, N_BOOT

#: Two scores closer than this are a tie (they agree to 3 decimals).
TIE = 5e-4
#: Above this many pairs the interval is the t interval (see the module doc).
BOOTSTRAP_MAX_N = 20_000
#: Power at which the smallest detectable difference is stated.
POWER = 0.8
#: Numbers drawn per bootstrap batch (bounds the memory of a resampling step).
_BATCH_CELLS = 2_000_000


@dataclass(frozen=True)
class PairStats:
    """B − A on the cases both runs scored. ``None`` where a figure is undefined (``note`` says why)."""

    n: int
    #: paired cases without a value in one of the runs (left out of every figure)
    n_missing: int
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    wins: int
    ties: int
    losses: int
    #: the smallest |B − A| these cases could have detected (80 % power)
    detectable: float | None
    method: str
    note: str = ""
    level: float = LEVEL


def _batches(n_boot: int, n: int) -> list[int]:
    step = max(1, _BATCH_CELLS // max(1, n))
    return [min(step, n_boot - s) for s in range(0, n_boot, step)]


def resampled_means(values: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Bootstrap means of every column of ``values`` (cases × columns, NaN = no value), the same
    resampled cases for every column: shape (n_boot, columns). A resample where a column has no
    value is NaN."""
    n, k = values.shape
    ok = np.isfinite(values)
    filled = np.where(ok, values, 0.0)
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, k))
    start = 0
    okf = ok.astype(float)
    for b in _batches(n_boot, n):
        idx = rng.integers(0, n, (b, n))
        # how often each case is drawn in each resample, then the sums as one matrix product
        times = np.bincount((idx + n * np.arange(b)[:, None]).ravel(), minlength=b * n).reshape(b, n).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + b] = (times @ filled) / (times @ okf)
        start += b
    return out


def _z(q: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(q))


def paired_stats(a: np.ndarray, b: np.ndarray, *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL,
                 n_tests: int = 1) -> PairStats:
    """B − A of two aligned arrays (NaN = the case has no value in that run). ``n_tests``: how many
    pairs are tested together (for the detectable difference)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired_stats: {a.shape} values against {b.shape}")
    return paired_stats_many(a[:, None], b[:, None], n_boot=n_boot, seed=seed, level=level, n_tests=n_tests)[0]


def paired_stats_many(a: np.ndarray, b: np.ndarray, *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL,
                      n_tests: int = 1) -> list[PairStats]:
    """:func:`paired_stats` of every column of two aligned (cases × metrics) arrays, the same
    resampled cases for every column (one draw per pair of runs, not one per metric)."""
    from scipy.stats import t as student

    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"paired_stats_many: {a.shape} values against {b.shape}")
    d = b - a
    both = np.isfinite(d)
    n_all = both.sum(axis=0)
    boot_cols = [k for k in range(d.shape[1]) if 2 <= n_all[k] <= BOOTSTRAP_MAX_N and n_boot > 0]
    reps = resampled_means(d[:, boot_cols], n_boot, seed) if boot_cols else np.empty((0, 0))
    where = {k: i for i, k in enumerate(boot_cols)}
    alpha = (1.0 - level) / max(1, n_tests)
    z_detect = _z(1 - alpha / 2) + _z(POWER)
    out = []
    for k in range(d.shape[1]):
        ok = both[:, k]
        n, missing = int(ok.sum()), int((~ok).sum())
        if n == 0:
            out.append(PairStats(0, missing, None, None, None, None, None, None, 0, 0, 0, None, "",
                                 "no case has a value in both runs", level))
            continue
        x, y, dk = a[ok, k], b[ok, k], d[ok, k]
        diff = float(dk.mean())
        wins, losses = int((dk > TIE).sum()), int((dk < -TIE).sum())
        base: dict[str, Any] = dict(n=n, n_missing=missing, mean_a=float(x.mean()), mean_b=float(y.mean()), diff=diff,
                    wins=wins, ties=n - wins - losses, losses=losses, level=level)
        if n == 1:
            out.append(PairStats(**base, ci_low=None, ci_high=None, p_value=None, detectable=None, method="",
                                 note="one paired case: no interval"))
            continue
        sd = float(dk.std(ddof=1))
        se = sd / math.sqrt(n)
        if sd == 0.0:  # every case moved by the same amount (an identical rerun: by nothing)
            out.append(PairStats(**base, ci_low=diff, ci_high=diff, p_value=1.0 if diff == 0.0 else 0.0,
                                 detectable=z_detect * se, method="exact",
                                 note="every paired case differs by the same amount"))
            continue
        # the paired t-test (what scipy.stats.ttest_rel computes), without its per-call overhead
        p = float(2.0 * student.sf(abs(diff / se), n - 1))
        if k in where:
            lo, hi = (float(v) for v in np.quantile(reps[:, where[k]], [(1 - level) / 2, (1 + level) / 2]))
            lo, hi, method = min(lo, diff), max(hi, diff), f"paired bootstrap ({n_boot} resamples, seed {seed})"
        else:
            half = float(student.ppf(0.5 + level / 2, n - 1)) * se
            lo, hi, method = diff - half, diff + half, "paired t interval"
        out.append(PairStats(**base, ci_low=lo, ci_high=hi, p_value=p, detectable=z_detect * se, method=method))
    return out


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (None stays None and does not count as a test)."""
    idx = [i for i, p in enumerate(p_values) if p is not None]
    m = len(idx)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: float(p_values[i]))):  # type: ignore[arg-type]
        running = max(running, min(1.0, (m - rank) * float(p_values[i])))  # type: ignore[arg-type]
        out[i] = running
    return out


@dataclass(frozen=True)
class RankedMean:
    """One run on the cases every run has: its mean with an interval and its rank with an interval
    (1 = best; the ranks of the bootstrap resamples)."""

    mean: float | None
    ci_low: float | None
    ci_high: float | None
    rank: int
    rank_low: int
    rank_high: int


def _ranks(means: np.ndarray, higher_better: bool) -> np.ndarray:
    """Rank of every column of every row (1 = best; equal means share the best rank; NaN last)."""
    score = np.where(np.isfinite(means), means if higher_better else -means, -np.inf)
    return (score[:, None, :] > score[:, :, None]).sum(axis=2) + 1


def standings(values: np.ndarray, *, higher_better: bool = True, n_boot: int = N_BOOT, seed: int = 0,
              level: float = LEVEL) -> list[RankedMean]:
    """Means and ranks of the columns (runs) of ``values`` (cases × runs, NaN = no value), the cases
    resampled jointly (above :data:`BOOTSTRAP_MAX_N` cases: draws from the means' joint normal law)."""
    with np.errstate(invalid="ignore"):
        means = np.nanmean(np.where(np.isfinite(values), values, np.nan), axis=0) if len(values) else \
            np.full(values.shape[1], np.nan)
    point = _ranks(means[None, :], higher_better)[0]
    if len(values) < 2 or n_boot <= 0:
        return [RankedMean(None if not np.isfinite(m) else float(m), None, None, int(r), int(r), int(r))
                for m, r in zip(means, point)]
    if len(values) > BOOTSTRAP_MAX_N:  # the means' normal law (what the bootstrap converges to), drawn
        complete = values[np.isfinite(values).all(axis=1)]
        cov = np.atleast_2d(np.cov(complete, rowvar=False)) / max(1, len(complete))
        ok = np.isfinite(means)
        reps = np.full((n_boot, len(means)), np.nan)
        reps[:, ok] = np.random.default_rng(seed).multivariate_normal(means[ok], cov[np.ix_(ok, ok)], n_boot)
    else:
        reps = resampled_means(values, n_boot, seed)
    ranks = _ranks(reps, higher_better)
    lo_q, hi_q = (1 - level) / 2, (1 + level) / 2
    out = []
    for j, m in enumerate(means):
        col = reps[:, j][np.isfinite(reps[:, j])]
        lo, hi = (float(v) for v in np.quantile(col, [lo_q, hi_q])) if len(col) else (None, None)
        r_lo, r_hi = np.quantile(ranks[:, j], [lo_q, hi_q], method="nearest")
        fm = None if not np.isfinite(m) else float(m)
        out.append(RankedMean(fm, None if lo is None or fm is None else min(lo, fm),
                            None if hi is None or fm is None else max(hi, fm), int(point[j]),
                            int(min(r_lo, point[j])), int(max(r_hi, point[j]))))
    return out
