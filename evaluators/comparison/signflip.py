"""The paired test of a mean difference and the interval that goes with it: one procedure gives the
p-value, the interval and so the verdict, which therefore cannot disagree.

Contract. Of n paired cases with differences ``d`` (B − A), the m whose value changed carry the
evidence; ``d = ψ·η`` in the mean, ψ the share of cases that change and η the mean change among them.

* **p**: the paired **sign-flip** (permutation) test — under "the versions are alike" each change is
  as likely up as down, so ``p`` is the share of sign vectors ``s`` with ``|Σ s·d| ≥ |Σ d|`` (the
  unchanged cases never move the sum). For 0/1 values this is the **exact McNemar test** (only the
  discordant pairs count; ``|2X − m| ≥ |b − c|``, X ~ Binomial(m, ½)).
* **η's interval** inverts that same test over the changed cases: the shifts η for which the test of
  "the changes are symmetric about η" is not rejected (a sign vector splits the changes into those
  it keeps, P, and those it flips, N; it is at least as extreme exactly when η lies between the means
  of P and N — both hold the mean, so this is an interval around it). When every change has the
  size v (within 1 %: every 0/1 metric; precision@3's ±1/3), "symmetric about η" cannot hold for η ≠ 0,
  and the test at η is the exact binomial test of P(up) = (1 + η/v)/2 instead (Clopper–Pearson; at
  η = 0 the same McNemar test).
* **The interval of the difference** combines η's interval with the Wilson interval of ψ at the same
  level: on the log scale of |ψ·η| each part's distance from its estimate, added in quadrature (the
  MOVER method of Zou & Donner), for the end on the estimate's side and — when η's interval leaves 0
  out — for the end nearer 0; when η's interval holds 0, the end across 0 is ψ's upper end times
  η's. ψ > 0 and each end keeps the sign of η's: the interval leaves 0 out exactly when η's does,
  and unchanged questions widen it but can never pull an end to 0. (Taking η's interval times the
  observed share alone ignores how ψ varies: it covered the difference 55–88 % of the time in
  small 0/1 samples; taking ψ at its worst made intervals twice as wide as a t interval.)
* 0 lies outside the interval at level 1 − α/f exactly when ``f·p ≤ α`` (``f`` a Holm or Bonferroni
  factor): p and each end are read off the same numbers with the same floating-point comparisons.

How η's test is computed: **exact** when the splits, counted by how many changes of each distinct
value go to P, number at most :data:`EXACT_MAX` (every comparison with up to 16 changes, and any
size of change that repeats); else :data:`DRAWS` seeded **random** sign vectors and the observed one
(p = (1 + #as extreme) / (draws + 1): never below what the data can show), up to
:data:`RANDOM_MAX_N` changes; above that the sign-flip sum's **normal limit** (mean 0, variance
Σ (e − η)²), where the decision is made once, on p, and the interval's end nearest 0 follows it if
rounding would disagree. The equal-size test is always exact (scipy's binomial law).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

#: Changes whose sizes differ by at most this share are of one size (results files keep 4 decimals:
#: precision@3's 1/3 is 0.3333 or 0.3334).
SAME_SIZE = 0.01
#: Largest number of distinct splits enumerated exactly.
EXACT_MAX = 1 << 16
#: Random sign vectors drawn above that (seeded).
DRAWS = 20_000
#: Above this many cases the normal limit of the sign-flip law is used.
RANDOM_MAX_N = 2_000
#: Relative rounding of a sum of differences (times the cases): below it a sum is 0.
_TIE = 1e-12
#: Numbers handled per step of the random path (bounds its memory).
_CELLS = 4_000_000


@dataclass(frozen=True)
class Flip:
    """The test of one column of differences: the p-value at 0 and the interval of the mean
    difference at 1 − α/f for every factor ``f`` asked (``bounds[f]``; None: unbounded)."""

    n: int
    #: cases whose value changed
    changed: int
    p_value: float
    bounds: dict[int, tuple[float | None, float | None]]
    method: str


@dataclass(frozen=True)
class _Ranges:
    """Per split: the range of shifts at which it is at least as extreme, and its weight."""

    lows: np.ndarray
    highs: np.ndarray
    #: None: every split weighs the same (random draws)
    weights: np.ndarray | None
    method: str



def _boundary(kept: Callable[[float], bool], good: float, bad: float, steps: int) -> float:
    """The last value from ``good`` towards ``bad`` that ``kept`` still holds (a test not rejected):
    an end of the interval that inverts the test, found by bisection in ``steps`` halvings."""
    for _ in range(steps):
        mid = (good + bad) / 2.0
        if kept(mid):
            good = mid
        else:
            bad = mid
    return good

def _first_over(f: int, alpha: float, cum: np.ndarray | None, total: int) -> int:
    """The smallest count (1-based) whose share, times ``f``, is above ``alpha``: ``cum`` the
    cumulated weights (shares), or None for equal weights out of ``total`` (then the count itself)."""
    if cum is not None:
        return int(np.argmax(f * cum > alpha)) + 1
    lo, hi = 1, total  # f * (total / total) = f > alpha: the search ends
    while lo < hi:
        mid = (lo + hi) // 2
        if f * (mid / total) > alpha:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _bounds_and_p(r: _Ranges, mean: float, alpha: float, factors: list[int]) -> tuple[float, dict]:
    """p(0) and the interval of every factor, both read off the same cumulated weights per side.

    Every range holds the mean, so right of the mean only the high ends decide whether a range holds
    a shift (left of it only the low ends). On the side of 0: p(0) is the share of ranges whose end
    reaches 0; the interval's end is the end of the k-th range in order, k the smallest count whose
    share, times f, is above α — the same numbers compared, so 0 is outside the interval exactly
    when f·p(0) ≤ α."""
    out: dict[int, tuple[float | None, float | None]] = {}
    equal = r.weights is None
    total = len(r.highs)
    sides = {}
    for name, ends, sign in (("high", r.highs, -1.0), ("low", r.lows, 1.0)):
        if equal:
            sides[name] = (ends if len(factors) == 1 else np.sort(ends), None)
        else:
            order = np.argsort(sign * ends, kind="stable")
            cw = np.cumsum(r.weights[order])  # type: ignore[index]
            sides[name] = (ends[order], cw / cw[-1])
    if mean <= 0.0:
        ends, cum = sides["high"]
        reach = ends >= 0.0
    else:
        ends, cum = sides["low"]
        reach = ends <= 0.0
    if equal:
        p = int(reach.sum()) / total
    else:
        p = float(cum[int(reach.sum()) - 1])  # type: ignore[index]  # sorted: the ranges reaching 0 come first
    for f in factors:
        bound: list[float | None] = []
        for name in ("low", "high"):
            ends, cum = sides[name]
            k = _first_over(f, alpha, cum, total)
            if cum is not None:
                v = float(ends[k - 1])
            elif len(factors) > 1:  # sorted once (ascending) for every factor
                v = float(ends[total - k] if name == "high" else ends[k - 1])
            elif name == "high":
                v = float(np.partition(ends, total - k)[total - k])  # the k-th largest
            else:
                v = float(np.partition(ends, k - 1)[k - 1])  # the k-th smallest
            bound.append(v if math.isfinite(v) else None)
        out[f] = (bound[0], bound[1])
    return p, out


def _ranges(pos_sum: np.ndarray, neg_sum: np.ndarray, pos_n: np.ndarray, n: int, mean: float, scale: float,
            weights: np.ndarray | None, method: str) -> _Ranges:
    """A split whose P or N is empty (every sign kept, or every one flipped) is as extreme at every
    shift: its range is the whole line. A sum within rounding of 0 is 0: a split whose kept (or
    flipped) cases sum to 0 is exactly as extreme as the observed signs at δ = 0 (``|Σ s·d| = |Σ d|``),
    and rounding must not drop it from the p-value."""
    tol = _TIE * n * max(1.0, scale)  # scale: Σ |d|
    pos_sum = np.where(np.abs(pos_sum) <= tol, 0.0, pos_sum)
    neg_sum = np.where(np.abs(neg_sum) <= tol, 0.0, neg_sum)
    neg_n = n - pos_n
    whole = (pos_n == 0) | (neg_n == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mp = np.where(whole, 0.0, pos_sum / np.where(pos_n == 0, 1, pos_n))
        mn = np.where(whole, 0.0, neg_sum / np.where(neg_n == 0, 1, neg_n))
    lows = np.where(whole, -np.inf, np.minimum(np.minimum(mp, mn), mean))
    highs = np.where(whole, np.inf, np.maximum(np.maximum(mp, mn), mean))
    return _Ranges(lows, highs, weights, method)


def _exact(d: np.ndarray) -> _Ranges | None:
    """Every split, grouped by how many cases of each distinct value go to P (None: too many)."""
    values, counts = np.unique(d, return_counts=True)
    size = 1
    for c in counts:
        size *= int(c) + 1
        if size > EXACT_MAX:
            return None
    from scipy.special import gammaln

    idx = np.arange(size)
    x = np.empty((size, len(values)))
    stride = 1
    for j, c in enumerate(counts):
        x[:, j] = (idx // stride) % (int(c) + 1)
        stride *= int(c) + 1
    n = int(counts.sum())
    logw = (gammaln(counts + 1.0) - gammaln(x + 1.0) - gammaln(counts - x + 1.0)).sum(axis=1) - n * math.log(2.0)
    pos_sum = x @ values
    neg_sum = (counts - x) @ values
    pos_n = x.sum(axis=1)
    return _ranges(pos_sum, neg_sum, pos_n, n, float(d.mean()), float(np.abs(d).sum()), np.exp(logw),
                   f"exact (all {2 ** n:,} sign patterns)")


def _random_many(d: np.ndarray, ok: np.ndarray, draws: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(Σ s·d, Σ s) over the present cases of every column, for ``draws`` seeded sign vectors
    (shape draws × columns each). One draw serves every column (as one bootstrap did); equal
    columns (hit@5 and hit@10 often are) and equal sets of present cases are summed once."""
    n_rows, k = d.shape
    filled = np.where(ok, d, 0.0)
    col_of, cols = _distinct(filled)
    mask_of, masks = _distinct(ok.astype(float))
    both = np.hstack([cols, masks])
    out = np.empty((draws, both.shape[1]))
    step = max(1, _CELLS // max(1, n_rows))
    if draws * n_rows <= _CELLS:  # one block: the same for every pair of runs of this many cases
        out[:] = _signs(n_rows, draws, seed) @ both
    else:
        rng = np.random.default_rng(seed)
        for start in range(0, draws, step):
            b = min(step, draws - start)
            signs = rng.integers(0, 2, (b, n_rows), dtype=np.int8).astype(float) * 2.0 - 1.0
            out[start:start + b] = signs @ both
    return out[:, col_of], out[:, cols.shape[1] + mask_of]


@lru_cache(maxsize=2)
def _signs(n_rows: int, draws: int, seed: int) -> np.ndarray:
    """The seeded random sign vectors of one block (drawn as the blockwise loop draws its first and
    only block), kept for the next pair of runs with as many cases (read-only)."""
    signs = np.random.default_rng(seed).integers(0, 2, (draws, n_rows), dtype=np.int8).astype(float) * 2.0 - 1.0
    signs.setflags(write=False)
    return signs


def _distinct(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(for each column the index of its distinct column, the distinct columns)."""
    seen: dict[bytes, int] = {}
    index = np.array([seen.setdefault(x[:, j].tobytes(), len(seen)) for j in range(x.shape[1])], dtype=int)
    firsts = [int(np.flatnonzero(index == i)[0]) for i in range(len(seen))]
    return index, x[:, firsts]


def _normal(d: np.ndarray, alpha: float, factors: list[int]) -> tuple[float, dict]:
    from scipy.stats import norm

    n = len(d)
    mean = float(d.mean())
    ss = float(((d - mean) ** 2).sum())
    sq = float((d ** 2).sum())
    p = 1.0 if sq == 0.0 else float(min(1.0, 2.0 * norm.sf(abs(float(d.sum())) / math.sqrt(sq))))
    out: dict[int, tuple[float | None, float | None]] = {}
    for f in factors:
        z = float(norm.isf(alpha / f / 2.0))
        if n <= z * z:
            out[f] = (None, None)
            continue
        half = z * math.sqrt(ss / (n * (n - z * z)))
        lo, hi = mean - half, mean + half
        if min(1.0, f * p) <= alpha:  # the decision is the p-value's: the end nearest 0 follows it
            lo, hi = (max(lo, 0.0), hi) if mean > 0 else (lo, min(hi, 0.0))
            if mean > 0 and lo <= 0.0:
                lo = math.nextafter(0.0, 1.0)
            if mean < 0 and hi >= 0.0:
                hi = math.nextafter(0.0, -1.0)
        elif not lo <= 0.0 <= hi:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        out[f] = (lo, hi)
    return p, out


def _same_size(e: np.ndarray, alpha: float, factors: Sequence[int]
               ) -> tuple[float, dict[int, tuple[float | None, float | None]]]:
    """Changes all of one size v: p and η's interval at each factor from the exact binomial test of
    P(up) = θ, η = v·(2θ − 1) (at θ = ½ the sign-flip test: McNemar's for 0/1 values)."""
    from scipy.special import bdtr, bdtrc

    m, x, v = len(e), int((e > 0).sum()), float(np.abs(e).mean())

    def p_at(theta: float) -> float:
        up = 1.0 if x == 0 else float(bdtrc(x - 1, m, theta))  # P(X >= x)
        low = float(bdtr(x, m, theta))  # P(X <= x)
        return min(1.0, 2.0 * min(up, low))

    p = p_at(0.5)
    mle = x / m
    out: dict[int, tuple[float | None, float | None]] = {}
    for f in factors:
        def kept(theta: float, f: int = f) -> bool:
            return f * p_at(theta) > alpha

        def bisect(good: float, bad: float) -> float:
            return _boundary(kept, good, bad, 50)

        if kept(0.5):  # 0 inside: each end searched between the certain side and ½
            lo = 0.0 if kept(0.0) else bisect(0.5, 0.0)
            hi = 1.0 if kept(1.0) else bisect(0.5, 1.0)
        elif mle > 0.5:  # both ends above ½ (returned ends are kept, ½ is not: strictly above)
            lo = bisect(mle, 0.5)
            hi = 1.0 if kept(1.0) else bisect(mle, 1.0)
        else:
            hi = bisect(mle, 0.5)
            lo = 0.0 if kept(0.0) else bisect(mle, 0.0)
        out[f] = (v * (2.0 * lo - 1.0), v * (2.0 * hi - 1.0))
    return p, out


def _psi(m: int, n: int, alpha: float) -> tuple[float, float]:
    """Wilson interval of the share of cases that change (m of n) at 1 − α."""
    from ..stats import wilson

    ci = wilson(m, n, level=1.0 - alpha)
    return float(ci.low), float(ci.high)  # type: ignore[arg-type]


def _scaled(eta: tuple[float | None, float | None], eta_hat: float, m: int, n: int, alpha: float,
            span: float | None) -> tuple[float | None, float | None]:
    """The interval of ψ·η from η's and ψ's (same level): the end on the estimate's side, and the
    near end when η's interval leaves 0 out, combine both on the log scale (MOVER: each part's
    distance from its estimate, added in quadrature) — a product of a positive ψ and η of one sign,
    so each end keeps η's sign; the end across 0 (η's interval holds 0) is ψ's upper end times η's.
    An end of η's interval the test cannot bound is the metric's span."""
    psi_hat = m / n
    psi_lo, psi_hi = _psi(m, n, alpha)
    if eta_hat == 0.0:  # balanced changes: both ends across 0
        return tuple(None if x is None else psi_hi * x  # type: ignore[return-value]
                     for x in (eta[0] if eta[0] is not None else (None if span is None else -span),
                               eta[1] if eta[1] is not None else span))
    sign = 1.0 if eta_hat > 0 else -1.0
    near, far = (eta[0], eta[1]) if sign > 0 else (eta[1], eta[0])
    g_psi_lo = math.log(psi_hat) - math.log(psi_lo) if psi_lo > 0 else math.inf
    g_psi_hi = math.log(psi_hi) - math.log(psi_hat)
    centre = math.log(psi_hat) + math.log(abs(eta_hat))
    if far is None or not math.isfinite(far):
        far_end = None if span is None else sign * psi_hi * span
    else:
        far_end = sign * math.exp(centre + math.hypot(g_psi_hi, math.log(abs(far)) - math.log(abs(eta_hat))))
    if near is None or not math.isfinite(near):
        near_end = None if span is None else -sign * psi_hi * span
    elif near * sign > 0:  # η's interval leaves 0 out: so does this one
        near_end = sign * math.exp(centre - math.hypot(g_psi_lo, math.log(abs(eta_hat)) - math.log(abs(near))))
    else:
        near_end = psi_hi * near
    return (near_end, far_end) if sign > 0 else (far_end, near_end)


def paired_tests(d: np.ndarray, *, alpha: float = 0.05, factors: Sequence[int] = (1,), draws: int = DRAWS,
                 seed: int = 0, spans: list[float | None] | None = None) -> list[Flip | None]:
    """The test of every column of ``d`` (cases × columns of B − A; NaN = no pair), each on its own
    present cases, with the interval at 1 − α/f for every ``f`` of ``factors`` (Holm's levels: one
    pass gives them all); None for a column with fewer than 2 of them. ``spans``: the largest |B − A|
    each metric can take (its range; an end of η's interval the test cannot bound — too few changes —
    becomes it, or stays None)."""
    d = np.asarray(d, dtype=float)
    if d.ndim != 2:
        raise ValueError(f"paired_tests: a (cases × columns) array, got shape {d.shape}")
    spans = spans or [None] * d.shape[1]
    fs = sorted(set(factors) | {1})
    ok = np.isfinite(d)
    scale = np.nanmax(np.abs(np.where(ok, d, 0.0)), axis=0) if d.size else np.zeros(d.shape[1])
    changed = ok & (np.abs(np.where(ok, d, 0.0)) > _TIE * np.maximum(1.0, scale))
    out: list[Flip | None] = [None] * d.shape[1]
    random_cols: list[int] = []

    def scaled(eta: dict[int, tuple[float | None, float | None]], e: np.ndarray, n: int, span: float | None
               ) -> dict[int, tuple[float | None, float | None]]:
        return {f: _scaled(eta[f], float(e.mean()), len(e), n, alpha / f, span) for f in fs}

    for j in range(d.shape[1]):
        n, e = int(ok[:, j].sum()), d[changed[:, j], j]
        m = len(e)
        if n < 2:
            continue
        if m == 0:  # nothing changed here: how much could change elsewhere is ψ's upper end, either way
            span = spans[j]
            out[j] = Flip(n, 0, 1.0, {f: (None, None) if span is None else
                                      (-(top := _psi(0, n, alpha / f)[1]) * span, top * span) for f in fs},
                          "no case changed")
            continue
        mags = np.abs(e)
        if float(mags.max() - mags.min()) <= SAME_SIZE * float(mags.max()):
            p, eta = _same_size(e, alpha, fs)
            out[j] = Flip(n, m, p, scaled(eta, e, n, spans[j]),
                          "exact binomial test of the changes' direction (McNemar's exact test for 0/1 values)")
            continue
        if m > RANDOM_MAX_N:
            p, b = _normal(e, alpha, fs)
            out[j] = Flip(n, m, p, scaled(b, e, n, spans[j]),
                          f"sign-flip test, normal limit of its law (more than {RANDOM_MAX_N:,} changed cases)")
            continue
        r = _exact(e)
        if r is None:
            random_cols.append(j)
            continue
        p, b = _bounds_and_p(r, float(e.mean()), alpha, fs)
        out[j] = Flip(n, m, p, scaled(b, e, n, spans[j]), f"sign-flip test, {r.method}")
    if random_cols:
        sums, ks = _random_many(np.where(changed[:, random_cols], d[:, random_cols], np.nan),
                                changed[:, random_cols], draws, seed)
        for i, j in enumerate(random_cols):
            e = d[changed[:, j], j]
            n, m, total, mean = int(ok[:, j].sum()), len(e), float(e.sum()), float(e.mean())
            pos_n = np.concatenate([[m], (m + ks[:, i]) / 2.0])  # the observed signs first: always as extreme
            pos_sum = np.concatenate([[total], (total + sums[:, i]) / 2.0])
            neg_sum = np.concatenate([[0.0], (total - sums[:, i]) / 2.0])
            r = _ranges(pos_sum, neg_sum, pos_n, m, mean, float(np.abs(e).sum()), None, "")
            p, b = _bounds_and_p(r, mean, alpha, fs)
            out[j] = Flip(n, m, p, scaled(b, e, n, spans[j]),
                          f"sign-flip test, {draws:,} random sign flips (seed {seed})")
    return out


def ratio_test(x: np.ndarray, y: np.ndarray, *, alpha: float = 0.05, draws: int = DRAWS, seed: int = 0
               ) -> tuple[float | None, tuple[float | None, float | None], str]:
    """The app's latency, B against A: (p, the interval of mean(y) / mean(x), method). p is the
    sign-flip test of y − x (each question's change as likely up as down); the interval is every
    ratio r for which the same test of y − r·x is not rejected (a Fieller-type inversion): it leaves 1
    out exactly when p ≤ α (each end is searched between 1 and the estimate, or beyond, by the side
    the test decided at 1). Exact over every sign pattern up to 16 questions, else ``draws`` seeded
    random patterns and the observed one. None where the ratio is undefined (no time in A)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(x)
    big_x, big_y = float(x.sum()), float(y.sum())
    if n < 2 or big_x <= 0:
        return None, (None, None), ""
    if n <= 16:
        signs = 1.0 - 2.0 * ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1)
        extra, method = 0, f"sign-flip test, exact (all {1 << n:,} sign patterns)"
    else:
        signs = np.random.default_rng(seed).integers(0, 2, (draws, n), dtype=np.int8).astype(float) * 2.0 - 1.0
        extra, method = 1, f"sign-flip test, {draws:,} random sign flips (seed {seed})"
    sy, sx = signs @ y, signs @ x
    total = len(signs) + extra
    tol = _TIE * n * max(1.0, float(np.abs(y).sum() + np.abs(x).sum()))

    def p_at(r: float) -> float:
        return (extra + int((np.abs(sy - r * sx) >= abs(big_y - r * big_x) - tol).sum())) / total

    def kept(r: float) -> bool:
        return p_at(r) > alpha

    def bisect(good: float, bad: float) -> float:
        return _boundary(kept, good, bad, 60)

    p = p_at(1.0)
    est = big_y / big_x
    far_lo, far_hi = est / 1000.0, est * 1000.0 + 1000.0
    if kept(1.0):
        lo = None if kept(min(far_lo, 1.0)) else bisect(1.0, min(far_lo, 1.0))
        hi = None if kept(max(far_hi, 1.0)) else bisect(1.0, max(far_hi, 1.0))
    elif est > 1.0:  # both ends above 1 (a returned end is kept, 1 is not: strictly above)
        lo = bisect(est, 1.0)
        hi = None if kept(far_hi) else bisect(est, far_hi)
    else:
        hi = bisect(est, 1.0)
        lo = None if kept(far_lo) else bisect(est, far_lo)
    return p, (lo, hi), method
