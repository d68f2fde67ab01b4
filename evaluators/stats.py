"""Confidence intervals for every figure the product shows.

* :func:`mean_ci` – mean with a 95 % bootstrap interval (BCa when the cases are independent: the
  figures of ``scipy.stats.bootstrap`` to the last bit, computed here without importing scipy.stats;
  a percentile bootstrap over whole groups when ``groups`` is given, e.g. several answers to one
  question).
* :func:`wilson` – Wilson score interval of a proportion (``scipy.stats.binomtest``'s, to the last bit).
* :func:`bootstrap_stat` / :func:`bootstrap_stats` – percentile bootstrap of any statistic of one
  or more paired arrays (AUROC, F1, Spearman …), optionally resampling whole groups. Resamples on
  which the statistic is undefined (e.g. only one class drawn) are left out and counted in ``note``.
* :func:`ppi_mean` – prediction-powered estimate of a mean from many predictions and a few human
  labels (Angelopoulos et al., 2023), with its normal-approximation interval.

Degenerate input (no values, one value, one class, constant scores) never crashes and never puts a
NaN in the output: the figure is ``None`` and ``note`` says why.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

LEVEL = 0.95
N_BOOT = 2000
#: Above this many values the BCa jackknife (O(n²)) is replaced by the percentile method.
BCA_MAX_N = 5000
#: Most values drawn at once by a bootstrap (resamples x values): bounds its memory (~16 MB of
#: indices) whatever the number of cases; the draws, hence the interval, do not depend on it.
BOOT_DRAWS_AT_ONCE = 2_000_000


def boot_batch(n: int) -> int:
    """Resamples per vectorised step of a bootstrap over ``n`` values (at most 256)."""
    return max(1, min(256, BOOT_DRAWS_AT_ONCE // max(1, n)))


class Undefined(ValueError):
    """A statistic is undefined on this input (message says why)."""


@dataclass(frozen=True)
class Interval:
    """A point estimate with its confidence interval. ``estimate`` is None when undefined."""

    estimate: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0
    method: str = ""
    note: str = ""
    level: float = LEVEL
    #: Number of groups resampled (grouped bootstrap), else None.
    n_groups: int | None = None

    @property
    def mean(self) -> float | None:
        return self.estimate

    @property
    def value(self) -> float | None:
        return self.estimate

    @property
    def defined(self) -> bool:
        return self.estimate is not None

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"mean": self.estimate, "low": self.low, "high": self.high,
                             "n": self.n, "method": self.method}
        if self.n_groups is not None:
            d["n_groups"] = self.n_groups
        if self.note:
            d["note"] = self.note
        return d

    def format(self, digits: int = 3) -> str:
        if self.estimate is None:
            return f"n/a ({self.note})" if self.note else "n/a"
        s = f"{self.estimate:.{digits}f}"
        if self.low is not None and self.high is not None:
            s += f" [{self.low:.{digits}f}, {self.high:.{digits}f}]"
        return s

    def __str__(self) -> str:
        return self.format()


def _undefined(note: str, n: int = 0, method: str = "", n_groups: int | None = None) -> Interval:
    return Interval(None, None, None, n, method, note, n_groups=n_groups)


def _clean_float(x: Any) -> float | None:
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _as_values(values: Sequence[Any]) -> tuple[np.ndarray, np.ndarray, int]:
    """Float array of the finite values, the mask of kept positions and how many were dropped."""
    conv = [_clean_float(v) for v in values]
    mask = np.array([c is not None for c in conv], dtype=bool)
    arr = np.array([c for c in conv if c is not None], dtype=float)
    return arr, mask, int((~mask).sum())


def group_codes(groups: Sequence[Any]) -> np.ndarray:
    """Integer codes for group labels; a missing label (None/NaN) is its own singleton group."""
    codes: dict[Any, int] = {}
    out = np.empty(len(groups), dtype=np.int64)
    for i, g in enumerate(groups):
        key: Any = g
        if g is None or (isinstance(g, float) and math.isnan(g)):
            key = ("__singleton__", i)
        elif isinstance(g, (list, dict, set)):
            key = repr(g)
        out[i] = codes.setdefault(key, len(codes))
    return out


def resample_indices(n: int, groups: np.ndarray | None, n_boot: int, seed: int):
    """Yield ``n_boot`` index arrays: plain resampling of n cases, or of whole groups."""
    rng = np.random.default_rng(seed)
    if groups is None:
        for _ in range(n_boot):
            yield rng.integers(0, n, n)
        return
    uniq, inverse = np.unique(groups, return_inverse=True)
    members = [np.flatnonzero(inverse == g) for g in range(len(uniq))]
    g = len(members)
    for _ in range(n_boot):
        pick = rng.integers(0, g, g)
        yield np.concatenate([members[k] for k in pick])


def _percentile(reps: np.ndarray, level: float) -> tuple[float, float]:
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(reps, [a, 1.0 - a])
    return float(lo), float(hi)


# --------------------------------------------------------------------------- means / proportions


def mean_ci(values: Sequence[Any], *, groups: Sequence[Any] | None = None, n_boot: int = N_BOOT,
            seed: int = 0, level: float = LEVEL) -> Interval:
    """Mean of ``values`` with a bootstrap interval. None/NaN values are left out (counted in
    ``note``). With ``groups`` (one label per value) whole groups are resampled."""
    arr, mask, dropped = _as_values(values)
    note_drop = f"{dropped} missing value(s) left out" if dropped else ""
    n = len(arr)
    if n == 0:
        return _undefined(_join("no values", note_drop), 0, "bootstrap")
    est = float(arr.mean())
    g = None
    if groups is not None:
        if len(groups) != len(values):
            raise ValueError(f"groups has {len(groups)} entries for {len(values)} values")
        g = group_codes([x for x, keep in zip(groups, mask) if keep])
    n_groups = int(len(np.unique(g))) if g is not None else None
    if n == 1:
        return Interval(est, None, None, 1, "bootstrap", _join("one value: no interval", note_drop),
                        level, n_groups)
    if float(arr.max()) == float(arr.min()):
        return Interval(est, est, est, n, "bootstrap",
                        _join("all values equal: the interval has zero width", note_drop), level,
                        n_groups)
    if g is not None and n_groups is not None and n_groups < n:
        if n_groups < 2:
            return Interval(est, None, None, n, "bootstrap-grouped",
                            _join("one group: no interval", note_drop), level, 1)
        # whole-group resampling: mean of the pooled cases of the drawn groups
        uniq, inv = np.unique(g, return_inverse=True)
        sums = np.bincount(inv, weights=arr)
        counts = np.bincount(inv).astype(float)
        rng = np.random.default_rng(seed)
        reps = np.empty(n_boot)
        step = boot_batch(len(uniq))
        for start in range(0, n_boot, step):
            b = min(step, n_boot - start)
            pick = rng.integers(0, len(uniq), (b, len(uniq)))
            reps[start:start + b] = sums[pick].sum(1) / counts[pick].sum(1)
        lo, hi = _percentile(reps, level)
        return Interval(est, lo, hi, n, "bootstrap-grouped", note_drop, level, n_groups)
    method = "BCa" if n <= BCA_MAX_N else "percentile"
    lo = hi = float("nan")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            lo, hi = _bootstrap_mean(arr, n_boot, seed, level, method)
        except Exception:  # noqa: BLE001 - fall back to percentile below
            pass
        if not (math.isfinite(lo) and math.isfinite(hi)) and method == "BCa":
            method = "percentile"
            lo, hi = _bootstrap_mean(arr, n_boot, seed, level, method)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return Interval(est, None, None, n, "bootstrap", _join("interval undefined", note_drop), level)
    # BCa can place the mean a hair outside its interval on tiny samples; keep it inside.
    return Interval(est, min(lo, est), max(hi, est), n, f"bootstrap-{method}", note_drop, level,
                    n_groups)


def wilson(k: int, n: int, *, level: float = LEVEL) -> Interval:
    """Proportion ``k / n`` with its Wilson score interval."""
    k, n = int(k), int(n)
    if n <= 0:
        return _undefined("no cases", 0, "wilson")
    if not 0 <= k <= n:
        raise ValueError(f"wilson: k={k} must be between 0 and n={n}")
    low, high = _wilson_bounds(k, n, level)
    return Interval(k / n, low, high, n, "wilson", "", level)


def _wilson_bounds(k: int, n: int, level: float) -> tuple[float, float]:
    """Wilson's score interval as ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``
    computes it, to the last bit (Newcombe 1998; a test compares them): the same figures without
    importing scipy.stats (0.55 s of CPU at the start of every run that writes its intervals)."""
    from scipy.special import ndtri

    p = k / n
    z = ndtri(0.5 + 0.5 * level)
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z**2)
    return float(0.0 if k == 0 else center - delta), float(1.0 if k == n else center + delta)


def _bootstrap_mean(arr: np.ndarray, n_boot: int, seed: int, level: float, method: str) -> tuple[float, float]:
    """The interval of the mean of ``arr`` as ``scipy.stats.bootstrap((arr,), np.mean, method=…,
    rng=np.random.default_rng(seed), batch=boot_batch(n), vectorized=True)`` gives it, to the last
    bit (the same draws, jackknife, bias and acceleration, and "linear" quantiles; a test compares
    them on hundreds of samples), without importing scipy.stats (0.55 s of CPU at the start of every
    run: the results file's intervals are its only use in a run). ``method``: "BCa" or
    "percentile"; NaN where BCa is undefined (the caller falls back)."""
    from scipy.special import ndtr, ndtri

    n = arr.shape[-1]
    batch = boot_batch(n)
    rng = np.random.default_rng(seed)
    reps = []
    for k in range(0, n_boot, batch):
        idx = rng.integers(0, n, (min(batch, n_boot - k), n))
        reps.append(np.mean(arr[..., idx], axis=-1))
    theta_b = np.concatenate(reps, axis=-1)
    alpha = (1 - level) / 2
    if method == "BCa":
        theta_hat = np.mean(arr, axis=-1)
        below = np.count_nonzero(theta_b < theta_hat) + np.count_nonzero(theta_b <= theta_hat)
        z0 = ndtri(below / (2 * theta_b.shape[-1]))
        jack = []
        for k in range(0, n, batch):  # each row leaves one value out
            b = min(batch, n - k)
            keep = np.ones((b, n), dtype=bool)
            np.fill_diagonal(keep[:, k:k + b], False)
            jack.append(np.mean(arr[..., np.broadcast_to(np.arange(n), (b, n))[keep].reshape((b, n - 1))], axis=-1))
        th_i = np.concatenate(jack, axis=-1)
        nj = float(th_i.shape[-1])
        u = (nj - 1) * (np.mean(th_i, axis=-1, keepdims=True) - th_i)
        a_hat = 1 / 6 * (np.sum(u**3, axis=-1) / nj**3) / (np.sum(u**2, axis=-1) / nj**2) ** (3 / 2)
        z_alpha = float(ndtri(alpha))
        ends = [ndtr(z0 + (z0 + z) / (1 - a_hat * (z0 + z))) for z in (z_alpha, -z_alpha)]
        probs = np.stack(ends, axis=-1)
    else:
        probs = np.asarray([alpha, 1 - alpha])
    ys = np.sort(theta_b, axis=-1)  # Hyndman & Fan's type 7 ("linear"), as scipy.stats.quantile
    jg = probs * len(ys) + (1 - probs)
    jp1 = jg // 1
    j = jp1 - 1
    g = np.where(j < 0, 0, jg % 1)
    j, jp1 = np.clip(j, 0.0, len(ys) - 1), np.clip(jp1, 0.0, len(ys) - 1)
    out = (1 - g) * ys[j.astype(np.int64)] + g * ys[jp1.astype(np.int64)]
    return float(out[0]), float(out[1])


def proportion_ci(flags: Sequence[Any], *, groups: Sequence[Any] | None = None, n_boot: int = N_BOOT,
                  seed: int = 0, level: float = LEVEL) -> Interval:
    """Share of true flags: Wilson when cases are independent, grouped bootstrap otherwise."""
    vals = [None if f is None else float(bool(f)) for f in flags]
    if groups is not None:
        kept_groups = [g for g, v in zip(groups, vals) if v is not None]
        if len(set(map(repr, kept_groups))) < len(kept_groups):
            return mean_ci(vals, groups=groups, n_boot=n_boot, seed=seed, level=level)
    kept = [v for v in vals if v is not None]
    out = wilson(int(sum(kept)), len(kept), level=level)
    dropped = len(vals) - len(kept)
    if dropped:
        out = Interval(out.estimate, out.low, out.high, out.n, out.method,
                       _join(out.note, f"{dropped} missing value(s) left out"), level)
    return out


# --------------------------------------------------------------------------- any statistic


def bootstrap_stats(fn: Callable[..., Any], *arrays: Sequence[Any] | np.ndarray, groups: Sequence[Any] | None = None,
                    n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL,
                    names: Sequence[str] | None = None, min_valid: float = 0.5,
                    point_fn: Callable[..., Any] | None = None) -> list[Interval]:
    """Percentile bootstrap of a statistic returning one or several numbers.

    ``fn(*arrays)`` gets numpy arrays (resampled together, paired) and returns a float or a
    sequence of floats (None/NaN, a string giving the reason, or raising :class:`Undefined` /
    ``ValueError`` = undefined on that sample). The point estimate is ``fn`` on the full data; a
    figure undefined there is None with the reason in ``note``. Resamples where a figure is
    undefined are left out; when fewer than ``min_valid`` of them remain the interval is withheld.
    ``point_fn`` (same signature and output as ``fn``) computes the point estimate when ``fn`` is
    a faster equivalent used for the resamples (e.g. scikit-learn for the reported figure, a
    vectorised formula for 2,000 replicates).
    """
    arrs = [np.asarray(a) for a in arrays]
    if not arrs:
        raise ValueError("bootstrap_stats needs at least one array")
    n = len(arrs[0])
    if any(len(a) != n for a in arrs):
        raise ValueError("bootstrap_stats: arrays differ in length: " + ", ".join(str(len(a)) for a in arrs))
    g = None
    if groups is not None:
        if len(groups) != n:
            raise ValueError(f"groups has {len(groups)} entries for {n} values")
        g = group_codes(list(groups))
    n_groups = int(len(np.unique(g))) if g is not None else None
    grouped = g is not None and n_groups is not None and n_groups < n
    method = "bootstrap-grouped" if grouped else "bootstrap"

    k = len(names) if names else 1

    def call(f: Callable[..., Any], *a: np.ndarray) -> tuple[list[float | None], list[str]]:
        try:
            out = f(*a)
        except (Undefined, ValueError, ZeroDivisionError, FloatingPointError) as exc:
            return [None] * k, [str(exc) or type(exc).__name__] * k
        vals = [out] if out is None or isinstance(out, str) or np.ndim(out) == 0 else list(out)
        reasons = [v if isinstance(v, str) else ("" if _clean_float(v) is not None else
                                                 "undefined on this data") for v in vals]
        return [None if isinstance(v, str) else _clean_float(v) for v in vals], reasons

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        point, why = call(point_fn or fn, *arrs)
        k = len(point)
        if n == 0:
            return [_undefined("no cases", 0, method, n_groups) for _ in point]
        if n < 2 or n_boot <= 0 or (grouped and (n_groups or 0) < 2) or all(p is None for p in point):
            reason = ("fewer than 2 cases: no interval" if n < 2 else
                      "one group: no interval" if grouped else "no resamples requested")
            return [Interval(p, None, None, n, method, reason, level, n_groups) if p is not None
                    else _undefined(w, n, method, n_groups) for p, w in zip(point, why)]
        reps = np.full((n_boot, k), np.nan)
        for b, idx in enumerate(resample_indices(n, g if grouped else None, n_boot, seed)):
            vals, _ = call(fn, *(a[idx] for a in arrs))
            if len(vals) == k:
                reps[b, :] = [np.nan if v is None else v for v in vals]
    out: list[Interval] = []
    for j, (p, w) in enumerate(zip(point, why)):
        if p is None:
            out.append(_undefined(w, n, method, n_groups))
            continue
        col = reps[:, j]
        ok = col[np.isfinite(col)]
        if len(ok) < max(2, min_valid * n_boot):
            out.append(Interval(p, None, None, n, method,
                                f"interval withheld: the statistic was defined on only {len(ok)} of "
                                f"{n_boot} resamples", level, n_groups))
            continue
        lo, hi = _percentile(ok, level)
        note = "" if len(ok) == n_boot else f"{n_boot - len(ok)} of {n_boot} resamples undefined, left out"
        out.append(Interval(p, min(lo, p), max(hi, p), n, method, note, level, n_groups))
    return out


def bootstrap_stat(fn: Callable[..., Any], *arrays: Sequence[Any], groups: Sequence[Any] | None = None,
                   n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL,
                   min_valid: float = 0.5) -> Interval:
    """Percentile bootstrap interval of a scalar statistic ``fn(*arrays)`` (see
    :func:`bootstrap_stats`)."""
    return bootstrap_stats(fn, *arrays, groups=groups, n_boot=n_boot, seed=seed, level=level,
                           names=["stat"], min_valid=min_valid)[0]


# --------------------------------------------------------------------------- prediction-powered


def ppi_mean(pred_all: Sequence[Any], pred_labeled: Sequence[Any], true_labeled: Sequence[Any], *,
             level: float = LEVEL, power_tuned: bool = False,
             bounds: tuple[float, float] | None = None) -> Interval:
    """Prediction-powered mean (Angelopoulos et al., Science 2023).

    estimate = mean(predictions on all N cases) − mean(prediction − human label on the n labeled
    cases); interval = estimate ± z·sqrt(var(pred_all)/N + var(error)/n). ``power_tuned`` uses
    the PPI++ weight λ (Angelopoulos et al., 2023b) so the estimate is never less precise than the
    labels alone. Predictions and labels must be on the same scale (e.g. 0–1); ``bounds`` clips the
    interval to the range the mean can take.
    """
    f_all, _, d_all = _as_values(pred_all)
    pl = [_clean_float(v) for v in pred_labeled]
    yl = [_clean_float(v) for v in true_labeled]
    if len(pl) != len(yl):
        raise ValueError(f"ppi_mean: {len(pl)} labeled predictions but {len(yl)} labels")
    pairs = [(p, y) for p, y in zip(pl, yl) if p is not None and y is not None]
    n, big_n = len(pairs), len(f_all)
    if n < 2:
        return _undefined(f"prediction-powered mean needs at least 2 labeled cases, got {n}", big_n, "ppi")
    if big_n < 2:
        return _undefined(f"prediction-powered mean needs at least 2 predictions, got {big_n}", big_n, "ppi")
    f_l = np.array([p for p, _ in pairs])
    y_l = np.array([y for _, y in pairs])
    lam = 1.0
    if power_tuned:
        var_f = float(np.var(np.concatenate([f_all, f_l]), ddof=1))
        if var_f > 0:
            cov = float(np.cov(y_l, f_l, ddof=1)[0, 1])
            lam = float(np.clip(cov / ((1.0 + n / big_n) * var_f), 0.0, 1.0))
        else:
            lam = 0.0
    rect = lam * f_l - y_l
    est = float(lam * f_all.mean() - rect.mean())
    se = math.sqrt(lam**2 * float(np.var(f_all, ddof=1)) / big_n + float(np.var(rect, ddof=1)) / n)
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + level / 2.0))
    note = f"{n} labeled of {big_n} predicted cases" + (f"; λ={lam:.2f}" if power_tuned else "")
    if d_all:
        note += f"; {d_all} missing prediction(s) left out"
    lo, hi = est - z * se, est + z * se
    if bounds is not None:
        est = min(max(est, float(bounds[0])), float(bounds[1]))
        lo, hi = max(lo, float(bounds[0])), min(hi, float(bounds[1]))
    return Interval(est, lo, hi, big_n, "ppi++" if power_tuned else "ppi", note, level)


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)
