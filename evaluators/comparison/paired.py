"""Paired statistics of two runs on the same cases, and the joint resampling behind a leaderboard.

* the difference of the means, B − A, over the cases both runs scored, its p-value and its
  interval from **one procedure**: the paired sign-flip test and the interval that inverts it
  (:mod:`.signflip`: exact for small or tied samples, seeded random sign flips above, its normal
  limit past 2,000 changed cases; for a 0/1 metric the test is the exact McNemar test), the
  interval built on the questions that changed and the share that did. 0 lies outside the interval
  exactly when p ≤ 1 − level: the verdict, the interval and p cannot disagree. A question "changed"
  as the counts below say: a difference under the metric's resolution is tested as none (a shift of
  0.007 on every answer is the encoder's noise, not evidence), so the verdict cannot rest on
  questions the counts call the same;
* **Holm**'s step-down correction of the p-values of several pairs (:func:`holm`), and each pair's
  interval at the level Holm tested it at (:func:`holm_factors`): with three runs the pair Holm
  tests first gets a 98.3 % interval, and again 0 lies outside it exactly when the corrected p is
  ≤ 0.05;
* higher / same / lower counts (wins / ties / losses): a difference counts when it reaches the
  metric's **resolution** (:func:`resolution`): 1 for a 0/1 metric, any change for a share of
  counted sentences or a rank metric (exact fractions; below 1e-9 is rounding), 0.01 of the range
  for a probability or a score (expected adherence, similarity, an LLM's score) — below what a
  comparison writes, and five times the largest change the int8 encoder makes against fp32 on the
  sample;
* the smallest difference the cases could have detected (80 % power, two-sided, at the level used —
  after the Bonferroni bound of the correction when there are several pairs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np

from ..stats import LEVEL, N_BOOT
from .signflip import DRAWS, paired_tests

#: Two scores closer than this are the same whatever the metric (rounding).
ROUNDING = 1e-9
#: A score's resolution, as a share of its range (probabilities and scores).
SCORE_RESOLUTION = 0.01
#: Above this many pairs the leaderboard draws from the means' normal law (see :func:`standings`).
BOOTSTRAP_MAX_N = 20_000
#: Power at which the smallest detectable difference is stated.
POWER = 0.8
#: Numbers drawn per bootstrap batch (bounds the memory of a resampling step).
_BATCH_CELLS = 2_000_000


def resolution(metric: str | None) -> float:
    """The smallest difference of ``metric`` between two runs on one case that counts as higher or
    lower (see the module doc)."""
    from ..retrieval import is_retrieval_metric
    from ..types import EXPECTED_ADHERENCE

    if not metric:
        return SCORE_RESOLUTION
    if is_retrieval_metric(metric):
        return 1.0 if _binary(metric) else ROUNDING
    try:
        from ..families import get_metric

        m = get_metric(metric)
    except Exception:  # noqa: BLE001 - a metric the registry does not know: a score
        return SCORE_RESOLUTION
    if m.binary:
        return 1.0
    if m.family == "trace" and metric != EXPECTED_ADHERENCE:
        return ROUNDING
    return SCORE_RESOLUTION * float(m.range[1] - m.range[0])


def _binary(metric: str) -> bool:
    from ..retrieval import binary

    try:
        return bool(binary(metric))
    except Exception:  # noqa: BLE001
        return False


def resolution_words(metric: str | None) -> str:
    """The resolution in words, e.g. "differences under 0.01 count as the same"."""
    r = resolution(metric)
    if r >= 1.0:
        return "a 0/1 metric: a question counts when its value changed"
    if r <= ROUNDING:
        return "any change counts (the values are exact fractions)"
    return f"differences under {r:g} count as the same"


def counts(d: np.ndarray, metric: str | None) -> tuple[int, int, int]:
    """(higher, same, lower) among the differences ``d`` (B − A, no NaN) at the metric's resolution."""
    r = resolution(metric) * (1 - 1e-6)
    wins, losses = int((d > r).sum()), int((d < -r).sum())
    return wins, len(d) - wins - losses, losses


def tie_margin(metric: str | None) -> float:
    """The largest |B − A| that is still "the same" on ``metric`` (what :func:`counts` uses)."""
    return resolution(metric) * (1 - 1e-6)


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
    #: the smallest |B − A| on a case that counts as higher or lower (:func:`resolution`)
    resolution: float = ROUNDING
    #: the interval is at level 1 − (1 − level) / factor: the level a correction for several pairs
    #: tested this pair at (:func:`holm_factors`; 1: at ``level``)
    factor: int = 1
    #: cases whose value changed (the others carry no evidence either way)
    changed: int = 0
    #: the interval at every factor a correction may test this pair at (:meth:`at`)
    intervals: dict[int, tuple[float | None, float | None]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def ci_level(self) -> float:
        """The level of ``ci_low`` – ``ci_high``."""
        return 1.0 - (1.0 - self.level) / self.factor

    def at(self, factor: int) -> "PairStats":
        """These statistics with the interval at level 1 − (1 − level) / ``factor`` (computed with
        them: ``paired_stats_many(..., n_tests=…)`` gives every factor up to the number of pairs)."""
        if factor == self.factor:
            return self
        if factor not in self.intervals:
            raise KeyError(f"no interval at factor {factor} (computed: {sorted(self.intervals)})")
        lo, hi = self.intervals[factor]
        return replace(self, ci_low=lo, ci_high=hi, factor=factor)


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


def paired_stats(a: np.ndarray, b: np.ndarray, *, seed: int = 0, level: float = LEVEL, n_tests: int = 1,
                 metric: str | None = None, draws: int = DRAWS, factor: int = 1) -> PairStats:
    """B − A of two aligned arrays (NaN = the case has no value in that run). ``n_tests``: how many
    pairs are tested together (the detectable difference); ``factor``: the interval at level
    1 − (1 − level) / factor; ``metric``: its resolution counts higher / lower, its range bounds an
    interval the test cannot bound."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired_stats: {a.shape} values against {b.shape}")
    return paired_stats_many(a[:, None], b[:, None], seed=seed, level=level, n_tests=n_tests,
                             metrics=[metric] if metric else None, draws=draws, factor=factor)[0]


def paired_stats_many(a: np.ndarray, b: np.ndarray, *, seed: int = 0, level: float = LEVEL, n_tests: int = 1,
                      metrics: Sequence[str | None] | None = None, draws: int = DRAWS,
                      factor: int = 1) -> list[PairStats]:
    """:func:`paired_stats` of every column of two aligned (cases × metrics) arrays (``metrics``: the
    name of each column), the same random sign flips for every column."""
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"paired_stats_many: {a.shape} values against {b.shape}")
    names = list(metrics) if metrics is not None else [None] * a.shape[1]
    d = b - a
    both = np.isfinite(d)
    alpha = 1.0 - level
    factors = sorted({factor, *range(1, max(1, n_tests) + 1)})
    # the test reads what the counts read: a change below the metric's resolution is no change (twelve
    # answers 0.007 lower in expected adherence — the encoder's noise — were p < 0.001 beside "12 the same")
    # (scores only: a 0/1 metric's changes are whole, an exact fraction's any change — and a jury's 0.5 of
    # a 0/1 metric stays a change)
    margins = np.array([tie_margin(m) if ROUNDING < resolution(m) < 1.0 else 0.0 for m in names])
    tested = np.where(both & (np.abs(np.where(both, d, 0.0)) > margins), d, np.where(both, 0.0, np.nan))
    tests = paired_tests(tested, alpha=alpha, factors=factors, draws=draws, seed=seed,
                         spans=[span(m) for m in names])
    z_detect = _z(1 - alpha / max(1, n_tests) / 2) + _z(POWER)
    out = []
    for k in range(d.shape[1]):
        ok = both[:, k]
        n, missing = int(ok.sum()), int((~ok).sum())
        res = resolution(names[k])
        if n == 0:
            out.append(PairStats(0, missing, None, None, None, None, None, None, 0, 0, 0, None, "",
                                 "no case has a value in both runs", level, res, factor))
            continue
        x, y, dk = a[ok, k], b[ok, k], d[ok, k]
        wins, ties, losses = counts(dk, names[k])
        base: dict[str, Any] = dict(n=n, n_missing=missing, mean_a=float(x.mean()), mean_b=float(y.mean()),
                                    diff=float(dk.mean()), wins=wins, ties=ties, losses=losses, level=level,
                                    resolution=res, factor=factor)
        t = tests[k]
        if t is None:
            out.append(PairStats(**base, ci_low=None, ci_high=None, p_value=None, detectable=None, method="",
                                 note="one paired case: no interval", changed=int(dk.any())))
            continue
        se = float(dk.std(ddof=1)) / math.sqrt(n)
        lo, hi = t.bounds[factor]
        if t.changed == 0:  # an identical rerun: no case moved (the interval: what n questions cannot rule out)
            out.append(PairStats(**base, ci_low=lo, ci_high=hi, p_value=1.0, detectable=z_detect * se,
                                 method="no case changed", note="every paired case has the same value in both runs",
                                 intervals=dict(t.bounds)))
            continue
        lo, hi = _around((lo, hi), base["diff"])
        note = "" if lo is not None and hi is not None else (
            f"{t.changed} changed question{'s' if t.changed != 1 else ''} are too few for an interval at "
            f"{level_words(1.0 - alpha / factor)}")
        out.append(PairStats(**base, ci_low=lo, ci_high=hi, p_value=t.p_value, detectable=z_detect * se,
                             method=f"paired {t.method}", note=note, changed=t.changed,
                             intervals={f: _around(b, base["diff"]) for f, b in t.bounds.items()}))
    return out


def _around(bounds: tuple[float | None, float | None], diff: float) -> tuple[float | None, float | None]:
    """An interval stretched to hold the estimate (the equal-size test reads the changes at their
    mean size); on the side of 0 the test decided, so 0 stays where it was."""
    lo, hi = bounds
    return (None if lo is None else min(lo, diff), None if hi is None else max(hi, diff))


def span(metric: str | None) -> float | None:
    """The largest |B − A| ``metric`` can take on a case (its range's width; None: unknown)."""
    if not metric:
        return None
    try:
        from ..families import get_metric

        lo, hi = get_metric(metric).range
        return float(hi - lo)
    except Exception:  # noqa: BLE001 - a metric the registry does not know
        from ..retrieval import is_retrieval_metric

        return 1.0 if is_retrieval_metric(metric) else None


def level_words(level: float) -> str:
    """95 %, 97.5 %, 98.3 % — a level as the sentences write it."""
    v = round(level * 100, 1)
    return (f"{v:.0f}" if v == int(v) else f"{v:.1f}") + " %"


def holm_factors(p_values: Sequence[float | None], alpha: float = 1.0 - LEVEL) -> list[int | None]:
    """The factor f at which Holm's procedure decided each p-value (None stays None): the pair of
    rank r (smallest p first) among m is tested at α/(m − r + 1) while every smaller p was rejected;
    from the first one not rejected on, every pair at the level of that one. Its interval at
    1 − α/f (:meth:`PairStats.at`) leaves 0 out exactly when its Holm-corrected p is ≤ α: since
    f·p is what :func:`holm` compares, for the rejected pairs f·p ≤ α, and for the others f·p is at
    least the first unrejected one's, which is above α."""
    idx = [i for i, p in enumerate(p_values) if p is not None]
    m = len(idx)
    out: list[int | None] = [None] * len(p_values)
    stop: int | None = None
    for rank, i in enumerate(sorted(idx, key=lambda i: float(p_values[i]))):  # type: ignore[arg-type]
        f = m - rank
        if stop is None and min(1.0, f * float(p_values[i])) > alpha:  # type: ignore[arg-type]
            stop = f
        out[i] = f if stop is None else stop
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
