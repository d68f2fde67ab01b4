"""95 % intervals of every mean a run reports (the ``intervals`` of the results JSON)."""

from __future__ import annotations

from typing import Any

from ..stats import N_BOOT
from ..tally import RunTally
from ..types import RunResult


def run_intervals(run: RunResult, group_column: str | None = None, *, n_boot: int = N_BOOT,
                  seed: int = 0) -> dict[str, dict[str, Any]]:
    """95 % interval of every mean a run reports: the four TRACE ratios, ``expected_adherence`` and
    the average (bootstrap), ``overall_supported`` (Wilson; grouped bootstrap with ``group_column``), each
    family metric (Wilson when it is 0/1 valued, else bootstrap). {metric: {mean, low, high, n,
    method[, note]}}; means equal ``run.means()``. The same computation as a streamed run's summary
    (:class:`evaluators.tally.RunTally`, from the per-case values alone)."""
    return RunTally.of(run.results, group_column).intervals(n_boot=n_boot, seed=seed)
