"""The app's own cost and latency, version B against version A, paired by question.

Contract: :func:`app_columns` turns a case's metadata into the per-case numbers a table keeps
(``latency_s`` of an answered call, ``tokens``, ``failed`` 1 / 0; NaN where the case records none:
``evaluators.appcost``); :func:`compare_app` compares the paired rows of two runs and says it in
words, beside the quality verdict:

* **latency** — over the questions both versions answered: the ratio of mean latencies B / A, its
  p-value and interval from one test (``signflip.ratio_test``: the paired sign-flip test of B − A, and
  every ratio r for which that test of B − r·A is not rejected), so the interval leaves 1 out exactly
  when p ≤ 0.05, exactly when it says slower / faster; and p50 / p95 of each ("B is 30 % slower than A
  (…), p50 1.2 s vs 0.9 s, p95 1.9 s vs 1.4 s");
* **tokens** — over the questions both report tokens for: the ratio of the sums with a paired
  percentile bootstrap interval ("B used 12 % more tokens than A (…)"; no p-value to disagree with);
* **errors** — over the questions both record a call for: how many each failed, and the exact
  McNemar test on the questions only one of them failed ("B failed 3 of 188 questions, A none").

A run without app records gives nothing (None), never an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from ..appcost import app_call, seconds
from ..stats import LEVEL, N_BOOT
from .paired import resampled_means
from .signflip import ratio_test

#: The per-case columns of a table's ``app``.
APP_COLUMNS = ("latency_s", "tokens", "failed")


def app_columns(metadata: Mapping[str, Any] | None) -> dict[str, float] | None:
    """The app numbers of one case (None when it records no app call)."""
    call = app_call(metadata)
    if call is None:
        return None
    nan = float("nan")
    return {"latency_s": nan if call.failed or call.latency_s is None else call.latency_s,
            "tokens": nan if call.total_tokens is None else float(call.total_tokens),
            "failed": 1.0 if call.failed else 0.0}


@dataclass(frozen=True)
class AppDiff:
    """B against A on the app's own figures (each part None when neither run records it)."""

    a: str
    b: str
    latency: dict[str, Any] | None
    tokens: dict[str, Any] | None
    errors: dict[str, Any] | None
    lines: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "latency": self.latency, "tokens": self.tokens, "errors": self.errors,
                "text": list(self.lines)}


def times(r: float) -> str:
    """A ratio of 2 or more as people say it: 26.35 -> '26×', 2.54 -> '2.5×' (not '+2535 %')."""
    return f"{r:.0f}×" if r >= 9.95 else f"{r:.1f}×"


def _pct(r: float) -> str:
    """1.3 -> '+30 %', 0.96 -> '−4 %'; past +100 % the ratio: 26.35 -> '26×'."""
    if r >= 2:
        return times(r)
    v = (r - 1.0) * 100.0
    digits = 0 if abs(v) >= 1 or v == 0 else 1
    return f"{'+' if v >= 0 else '−'}{abs(v):.{digits}f} %"


def _how_much(ratio: float, word: str) -> str:
    """'30 % slower', '26× slower' (past 100 %: a percentage in the thousands reads badly), '40 % faster'."""
    return f"{times(ratio)} {word}" if ratio >= 2 else f"{abs(ratio - 1) * 100:.0f} % {word}"


def _p(p: float | None) -> str:
    return "n/a" if p is None else ("< 0.001" if p < 0.001 else f"= {p:.3f}")


def _ratio_ci(x: np.ndarray, y: np.ndarray, n_boot: int, seed: int, level: float) -> tuple[float | None, float | None]:
    """Paired bootstrap interval of mean(y) / mean(x)."""
    if len(x) < 2 or n_boot <= 0:
        return None, None
    reps = resampled_means(np.column_stack([x, y]), n_boot, seed)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = reps[:, 1] / reps[:, 0]
    ratios = ratios[np.isfinite(ratios)]
    if len(ratios) < n_boot / 2:
        return None, None
    lo, hi = np.quantile(ratios, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def _latency(a: str, b: str, x: np.ndarray, y: np.ndarray, n_boot: int, seed: int, level: float
             ) -> tuple[dict[str, Any], str]:
    n = len(x)
    ma, mb = float(x.mean()), float(y.mean())
    ratio = mb / ma if ma > 0 else None
    alpha = 1 - level
    # one test for p and the interval of the ratio (signflip.ratio_test): they cannot disagree
    p, (lo, hi), method = ratio_test(x, y, alpha=alpha, seed=seed) if ratio is not None else (None, (None, None), "")
    if ratio is not None and n >= 2 and not np.any(y != x):
        p, lo, hi = 1.0, ratio, ratio
    q = {f"{k}_{side}": float(np.quantile(v, f)) for side, v in (("a", x), ("b", y))
         for k, f in (("p50", 0.5), ("p95", 0.95))}
    out = {"n": n, "mean_a": ma, "mean_b": mb, "ratio": ratio, "ci_low": lo, "ci_high": hi, "p_value": p, **q,
           "test": f"paired {method}; the ratio of means: every ratio that test does not reject"}
    clear = ratio is not None and p is not None and p <= alpha
    verdict = ("slower" if ratio > 1 else "faster") if clear else "same"  # type: ignore[operator]
    out["verdict"] = verdict
    tail = (f"p50 {seconds(q['p50_b'])} vs {seconds(q['p50_a'])}, p95 {seconds(q['p95_b'])} vs {seconds(q['p95_a'])}, "
            f"on {n} question{'s' if n != 1 else ''} both answered")
    ci = f"95 % CI {_pct(lo)} to {_pct(hi)}" if lo is not None and hi is not None else "no interval"
    if verdict != "same" and ratio is not None:
        return out, (f"{b} is {_how_much(ratio, verdict)} than {a} (mean {seconds(mb)} vs {seconds(ma)}, {ci}), {tail} "
                     f"(paired sign-flip p {_p(p)}).")
    # no verdict: "about as long" only where the means are alike (0.03 s vs 0.06 s on a handful of questions is
    # no difference the test can show, not the same time)
    same = (f"{b} and {a} take about as long" if ratio is None or 0.9 <= ratio <= 1.1
            else f"No detectable difference in time between {b} and {a}")
    return out, (f"{same} (mean {seconds(mb)} vs {seconds(ma)}"
                 + (f", {b}/{a} {ci}" if ratio is not None else "") + f"), {tail}.")


def _tokens(a: str, b: str, x: np.ndarray, y: np.ndarray, n_boot: int, seed: int, level: float
            ) -> tuple[dict[str, Any], str]:
    n = len(x)
    sa, sb = float(x.sum()), float(y.sum())
    ratio = sb / sa if sa > 0 else None
    lo, hi = _ratio_ci(x, y, n_boot, seed, level) if ratio is not None else (None, None)
    out = {"n": n, "total_a": sa, "total_b": sb, "per_question_a": sa / n, "per_question_b": sb / n, "ratio": ratio,
           "ci_low": lo, "ci_high": hi}
    tail = f"{sb:,.0f} vs {sa:,.0f} on {n} question{'s' if n != 1 else ''}, {sb / n:,.0f} vs {sa / n:,.0f} per question"
    if ratio is None:
        return out, f"{a} reported no tokens ({b}: {sb:,.0f} on {n} questions)."
    ci = f"95 % CI {_pct(lo)} to {_pct(hi)}" if lo is not None and hi is not None else "no interval"
    if lo is not None and hi is not None and (lo > 1 or hi < 1):
        word = "more" if lo > 1 else "fewer"
        much = (f"{times(ratio)} as many tokens as" if ratio >= 2 else
                f"{abs(ratio - 1) * 100:.0f} % {word} tokens than")
        return out, f"{b} used {much} {a} ({ci}): {tail}."
    return out, f"{b} used about as many tokens as {a} ({b}/{a} {_pct(ratio)}, {ci}): {tail}."


def _errors(a: str, b: str, x: np.ndarray, y: np.ndarray, level: float) -> tuple[dict[str, Any], str]:
    from scipy.stats import binomtest

    n = len(x)
    fa, fb = int(x.sum()), int(y.sum())
    only_a, only_b = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
    p = float(binomtest(only_b, only_a + only_b, 0.5).pvalue) if only_a + only_b else 1.0
    out = {"n": n, "failed_a": fa, "failed_b": fb, "only_a": only_a, "only_b": only_b, "p_value": p,
           "test": "exact McNemar (binomial on the questions only one version failed)"}
    if not fa and not fb:
        return out, f"Neither version failed a question ({n} paired)."
    chance = "" if p < 1 - level else ": could be chance"
    return out, (f"{b} failed {fb} of {n} questions, {a} {fa if fa else 'none'} ({only_b} failed only in {b}, "
                 f"{only_a} only in {a}; exact McNemar p {_p(p)}{chance}).")


def compare_app(a: str, b: str, cols_a: Mapping[str, np.ndarray], cols_b: Mapping[str, np.ndarray], *,
                n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL) -> AppDiff | None:
    """B against A on aligned per-question columns (:data:`APP_COLUMNS`, row i of one with row i of
    the other); None when neither run records an app call."""
    if not cols_a and not cols_b:
        return None
    if not cols_a or not cols_b:
        lone = b if cols_b else a
        return AppDiff(a, b, None, None, None, (f"Only {lone} records its app calls (latency, tokens, errors): "
                                                "nothing to compare them with.",))
    parts: dict[str, tuple[dict[str, Any], str] | None] = {}
    for key, fn in (("latency_s", _latency), ("tokens", _tokens)):
        x, y = cols_a[key], cols_b[key]
        ok = np.isfinite(x) & np.isfinite(y)
        parts[key] = fn(a, b, x[ok], y[ok], n_boot, seed, level) if ok.any() else None
    fx, fy = cols_a["failed"], cols_b["failed"]
    ok = np.isfinite(fx) & np.isfinite(fy)
    parts["failed"] = _errors(a, b, fx[ok], fy[ok], level) if ok.any() else None
    lat, tok, err = (parts[k][0] if parts[k] is not None else None for k in APP_COLUMNS)  # type: ignore[index]
    return AppDiff(a, b, lat, tok, err, tuple(p[1] for p in parts.values() if p is not None))


def has_app(cols: Mapping[str, np.ndarray]) -> bool:
    return bool(cols) and any(bool(np.isfinite(v).any()) for v in cols.values())


__all__ = ["APP_COLUMNS", "AppDiff", "app_columns", "compare_app", "has_app"]
