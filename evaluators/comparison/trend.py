"""A metric over a series of runs of the same test set (nightly runs, say): each run's mean with
its 95 % interval, in time order."""

from __future__ import annotations

from typing import Any, Sequence

from ..stats import LEVEL, N_BOOT, mean_ci
from .matching import norm_question
from .table import RunTable


def same_test_set(base: RunTable, other: RunTable, min_share: float = 0.8) -> bool:
    """``other`` asks at least ``min_share`` of ``base``'s questions (and ``base`` of ``other``'s)."""
    qa = {norm_question(q) for q in base.questions}
    qb = {norm_question(q) for q in other.questions}
    if not qa or not qb:
        return False
    shared = len(qa & qb)
    return shared >= min_share * len(qa) and shared >= min_share * len(qb)


def trend(tables: Sequence[RunTable], metric: str, *, n_boot: int = N_BOOT, seed: int = 0,
          level: float = LEVEL) -> list[dict[str, Any]]:
    """One point per run that has ``metric`` (sorted by start time): name, started_at, mean, ci_low,
    ci_high, n (cases with a value)."""
    out = []
    for t in sorted(tables, key=lambda t: t.started_at):
        if metric not in t.values:
            continue
        iv = mean_ci(list(t.values[metric]), n_boot=n_boot, seed=seed, level=level)
        if iv.estimate is None:
            continue
        out.append({"name": t.name, "started_at": t.started_at, "mean": iv.estimate, "ci_low": iv.low,
                    "ci_high": iv.high, "n": iv.n})
    return out
