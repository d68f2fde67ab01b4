"""A run's app cost and latency: p50 / p95 latency, errors, tokens — from its cases, one at a time.

Contract: :class:`AppTally` takes each case's metadata (``add``; a few bytes kept per call, so a
100,000-case run streams through it) and :meth:`AppTally.summary` gives the ``app`` block of a
results file's top level, or None when no case records an app call (then nothing is shown)::

    {"calls": 188, "targets": ["v2"],
     "latency_s": {"n": 185, "p50": 0.31, "p50_low": 0.29, "p50_high": 0.33, "p95": 0.52, "p95_low": ...,
                   "p95_high": ..., "mean": 0.33, "max": 1.9},
     "errors": {"count": 3, "share": 0.016, "low": 0.005, "high": 0.046, "ids": ["q17", ...]},
     "attempts": {"total": 195, "retried": 6},
     "tokens": {"cases": 185, "total": 45120, "prompt": 40000, "completion": 5120, "per_case": 243.9}}

Latency is over the answered calls (a failed call's time is its retries' and timeouts', counted in
``errors``); p50 / p95 carry distribution-free 95 % intervals (order statistics:
``scipy.stats.quantile_test``), the error share a Wilson interval. Tokens are the app's own counts
(``usage``), summed over the cases that report them.
"""

from __future__ import annotations

import math
from array import array
from typing import Any, Iterable, Mapping

from ..stats import LEVEL, wilson
from .calls import app_call

#: Ids of failed calls listed in the summary (the count is always whole).
ERROR_IDS_SHOWN = 20


def quantile_interval(values: Any, p: float, level: float = LEVEL) -> tuple[float | None, float | None, float | None]:
    """(the ``p`` quantile, its distribution-free interval low, high); None where undefined (too
    few values for that level)."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    if not len(x):
        return None, None, None
    q = float(np.quantile(x, p))
    if len(x) < 2:
        return q, None, None
    from scipy.stats import quantile_test

    ci = quantile_test(x, q=q, p=p).confidence_interval(level)
    lo, hi = float(ci.low), float(ci.high)
    return q, (lo if math.isfinite(lo) else None), (hi if math.isfinite(hi) else None)


class AppTally:
    """The app calls of a run, added one case at a time (see the module docstring)."""

    def __init__(self) -> None:
        self.calls = 0
        self.latency = array("d")
        self.failed: list[str] = []
        self.targets: dict[str, None] = {}
        self.attempts = 0
        self.retried = 0
        self.token_cases = 0
        self.tokens = {"total": 0, "prompt": 0, "completion": 0}

    def add(self, metadata: Mapping[str, Any] | None, case_id: str = "") -> None:
        call = app_call(metadata)
        if call is None:
            return
        self.calls += 1
        if call.target:
            self.targets[call.target] = None
        if call.attempts is not None:
            self.attempts += call.attempts
            self.retried += call.attempts > 1
        if call.failed:
            self.failed.append(str(case_id))
        elif call.latency_s is not None:
            self.latency.append(call.latency_s)
        if call.total_tokens is not None:
            self.token_cases += 1
            self.tokens["total"] += call.total_tokens
            self.tokens["prompt"] += call.prompt_tokens or 0
            self.tokens["completion"] += call.completion_tokens or 0

    def summary(self, level: float = LEVEL) -> dict[str, Any] | None:
        if not self.calls:
            return None
        out: dict[str, Any] = {"calls": self.calls, "targets": list(self.targets)}
        if len(self.latency):
            lat: dict[str, Any] = {"n": len(self.latency)}
            for name, p in (("p50", 0.5), ("p95", 0.95)):
                q, lo, hi = quantile_interval(self.latency, p, level)
                lat.update({name: q, f"{name}_low": lo, f"{name}_high": hi})
            lat["mean"] = sum(self.latency) / len(self.latency)
            lat["max"] = max(self.latency)
            out["latency_s"] = lat
        share = wilson(len(self.failed), self.calls, level=level)
        out["errors"] = {"count": len(self.failed), "share": share.estimate, "low": share.low, "high": share.high,
                         "ids": self.failed[:ERROR_IDS_SHOWN]}
        if self.attempts:
            out["attempts"] = {"total": self.attempts, "retried": self.retried}
        if self.token_cases:
            out["tokens"] = {"cases": self.token_cases, **self.tokens,
                             "per_case": self.tokens["total"] / self.token_cases}
        return out


def summarize(records: Iterable[tuple[str, Mapping[str, Any] | None]], level: float = LEVEL) -> dict[str, Any] | None:
    """The ``app`` block of ``(case id, metadata)`` pairs (None when none records an app call)."""
    t = AppTally()
    for case_id, metadata in records:
        t.add(metadata, case_id)
    return t.summary(level)


def words(s: Mapping[str, Any] | None) -> str:
    """The ``app`` block in one line (the CLI's summary): calls, p50 / p95, errors, tokens."""
    if not s:
        return ""
    parts = [f"{s['calls']} call{'s' if s['calls'] != 1 else ''}"]
    lat = s.get("latency_s")
    if lat:
        parts.append(f"latency p50 {seconds(lat['p50'])}, p95 {seconds(lat['p95'])}")
    e = s["errors"]
    parts.append(f"{e['count']} failed ({e['share']:.1%})" if e["count"] else "none failed")
    tok = s.get("tokens")
    if tok:
        parts.append(f"{tok['total']:,} tokens ({tok['per_case']:,.0f} per case)")
    return ", ".join(parts)


def seconds(x: float | None) -> str:
    """1.94 -> '1.9 s', 0.31 -> '0.31 s', 0.0042 -> '4 ms'."""
    if x is None:
        return "n/a"
    if x < 0.01:
        return f"{x * 1000:.0f} ms"
    return f"{x:.2f} s" if x < 1 else f"{x:.1f} s"


__all__ = ["ERROR_IDS_SHOWN", "AppTally", "quantile_interval", "seconds", "summarize", "words"]
