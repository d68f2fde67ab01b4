"""95 % intervals of every mean a run reports (the ``intervals`` of the results JSON)."""

from __future__ import annotations

from typing import Any

from ..stats import N_BOOT, mean_ci, proportion_ci
from ..types import AVERAGE, EXPECTED_ADHERENCE, OVERALL_SUPPORTED, TRACE_METRICS, RunResult
from .labels import groups_for


def run_intervals(run: RunResult, group_column: str | None = None, *, n_boot: int = N_BOOT,
                  seed: int = 0) -> dict[str, dict[str, Any]]:
    """95 % interval of every mean a run reports: the four TRACE ratios, ``expected_adherence`` and
    the average (bootstrap), ``overall_supported`` (Wilson; grouped bootstrap with ``group_column``), each
    family metric (Wilson when it is 0/1 valued, else bootstrap). {metric: {mean, low, high, n,
    method[, note]}}; means equal ``run.means()``."""
    scored = run.scored
    groups_map = groups_for(run.results, group_column) if group_column else {}
    g = [groups_map.get(r.case.id) for r in scored] if group_column else None
    out: dict[str, dict[str, Any]] = {}
    for m in (*TRACE_METRICS, EXPECTED_ADHERENCE):
        out[m] = mean_ci([r.value(m) for r in scored], groups=g, n_boot=n_boot, seed=seed).as_dict()
    out[OVERALL_SUPPORTED] = proportion_ci([r.value(OVERALL_SUPPORTED) for r in scored],
                                           groups=g, n_boot=n_boot, seed=seed).as_dict()
    out[AVERAGE] = mean_ci([r.value(AVERAGE) for r in scored], groups=g, n_boot=n_boot, seed=seed).as_dict()
    for name in run.family_names():
        rs = [r for r in run.results if r.value(name) is not None]
        vals = [r.value(name) for r in rs]
        gg = [groups_map.get(r.case.id) for r in rs] if group_column else None
        if vals and set(vals) <= {0.0, 1.0}:
            out[name] = proportion_ci(vals, groups=gg, n_boot=n_boot, seed=seed).as_dict()
        else:
            out[name] = mean_ci(vals, groups=gg, n_boot=n_boot, seed=seed).as_dict()
    return out
