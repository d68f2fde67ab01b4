"""What a run's summary needs, kept case by case without the cases: the per-case metric values.

A :class:`RunTally` takes each finished case (a ``CaseResult``, or its results-file dict) and keeps
only its numbers — the TRACE metrics of a scored case, each family metric's value, the group of
``--group-column``, the error of an unscored case, the usage, the app's own call (latency, error,
tokens: ``evaluators.appcost``). From them come the run's means (equal
to ``RunResult.means()``), the 95 % intervals (equal to ``agreement.run_intervals``) and the counts
of the results file's top level: what the CLI's summary, its CI gates and the dashboard's cards
need, in a few bytes per case (100,000 cases: ~6 MB) instead of the whole run.
"""

from __future__ import annotations

from array import array
from typing import Any, Iterable, Mapping

from .appcost import AppTally
from .stats import N_BOOT, mean_ci, proportion_ci
from .types import AVERAGE, EXPECTED_ADHERENCE, OVERALL_SUPPORTED, TRACE_METRICS, CaseResult, Usage

#: The per-case values of a scored case the tally keeps (``average`` is derived from the four).
KEPT: tuple[str, ...] = (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED)


def lookup(d: Mapping[str, Any], path: str) -> Any:
    """``d[path]``, or the value at a dotted path (``faithfulness.mean``); None when absent."""
    if path in d:
        return d[path]
    cur: Any = d
    for part in path.split("."):
        if isinstance(cur, Mapping) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def group_of(metadata: Mapping[str, Any], labels: Mapping[str, Any], column: str) -> Any:
    """The value of ``column`` for one case (its metadata, its labels, or one level of nesting in
    its metadata, e.g. ``meta.source_id``): the group of grouped resampling. A value that is not a
    scalar is grouped by its ``repr``."""
    v = lookup(metadata, column)
    if v is None:
        v = lookup(labels, column)
    if v is None:
        for sub in metadata.values():
            if isinstance(sub, Mapping):
                v = lookup(sub, column)
                if v is not None:
                    break
    return v if v is None or isinstance(v, (str, int, float, bool)) else repr(v)


class RunTally:
    """Per-case metric values of a run, added one case at a time (see the module docstring)."""

    def __init__(self, group_column: str | None = None) -> None:
        self.group_column = group_column or None
        self.num_cases = 0
        self.errors: list[tuple[str, str]] = []
        self.usage = Usage()
        self._trace: dict[str, array] = {m: array("d") for m in KEPT}
        self._groups: list[Any] = []  # of the scored cases (with group_column)
        self._family: dict[str, tuple[array, list[Any]]] = {}  # name -> (values, groups), first seen first
        #: The app's own calls (the target runner's metadata: latency, errors, tokens).
        self.app = AppTally()

    # ------------------------------------------------------------------ adding cases
    @classmethod
    def of(cls, results: Iterable[CaseResult], group_column: str | None = None) -> RunTally:
        t = cls(group_column)
        for r in results:
            t.add(r)
        return t

    def add(self, r: CaseResult) -> None:
        """One finished case."""
        trace = {m: r.scores.value(m) for m in KEPT} if r.ok and r.scores is not None else None
        fam = {n: (None if mv.value is None else float(mv.value)) for n, mv in r.metrics.items()}
        self._add(r.case.id, r.error, trace, fam, r.case.metadata, r.case.labels, r.usage)

    def add_dict(self, d: Mapping[str, Any]) -> None:
        """One case of a results file (``export.case_dict``: ``metrics``, ``metric_details``, ...)."""
        metrics = d.get("metrics") or {}
        ok = d.get("error") is None and metrics.get("adherence") is not None and d.get("labels") is not None
        trace = None
        if ok:
            trace = {m: float(metrics[m]) for m in KEPT if metrics.get(m) is not None}
            if len(trace) < len(KEPT):  # a file of an older version: expected_adherence = adherence
                trace.setdefault(EXPECTED_ADHERENCE, trace.get("adherence", 0.0))
                trace = {m: float(trace.get(m, 0.0)) for m in KEPT}
        details = d.get("metric_details") or {}
        fam = {n: (None if (v or {}).get("value") is None else float(v["value"])) for n, v in details.items()}
        self._add(str(d.get("id")), d.get("error"), trace, fam, d.get("metadata") or {},
                  d.get("human_labels") or {}, Usage.model_validate(d.get("usage") or {}))

    def add_values(self, case_id: str, error: str | None, metrics: Mapping[str, Any], family: Iterable[str], *,
                   ok: bool, metadata: Mapping[str, Any] | None = None, labels: Mapping[str, Any] | None = None,
                   usage: Usage | None = None) -> None:
        """One case given by its values: ``metrics`` holds the TRACE metrics (when ``ok``) and the
        values of the ``family`` metrics under their names (a stored row of the run history)."""
        trace = {m: float(metrics[m]) for m in KEPT if metrics.get(m) is not None} if ok else None
        if trace is not None and len(trace) < len(KEPT):
            trace = {m: float(trace.get(m, trace.get("adherence", 0.0))) for m in KEPT}
        fam = {n: (None if metrics.get(n) is None else float(metrics[n])) for n in family}
        self._add(case_id, error, trace, fam, metadata or {}, labels or {}, usage or Usage())

    def _add(self, case_id: str, error: str | None, trace: dict[str, float] | None,
             family: Mapping[str, float | None], metadata: Mapping[str, Any], labels: Mapping[str, Any],
             usage: Usage) -> None:
        self.num_cases += 1
        self.usage = self.usage + usage
        self.app.add(metadata, case_id)
        if error is not None:
            self.errors.append((case_id, error))
        group = group_of(metadata, labels, self.group_column) if self.group_column else None
        if trace is not None:
            for m in KEPT:
                self._trace[m].append(float(trace[m]))
            if self.group_column:
                self._groups.append(group)
        for name, v in family.items():
            vals, groups = self._family.setdefault(name, (array("d"), []))
            if v is not None:
                vals.append(v)
                if self.group_column:
                    groups.append(group)

    # ------------------------------------------------------------------ reading
    @property
    def num_scored(self) -> int:
        return len(self._trace[TRACE_METRICS[0]])

    def family_names(self) -> list[str]:
        return list(self._family)

    def values(self, metric: str) -> list[float]:
        """The per-case values of ``metric`` over the cases that have one (TRACE: scored cases)."""
        if metric == AVERAGE:
            cols = [self._trace[m] for m in TRACE_METRICS]
            return [sum(x) / 4.0 for x in zip(*cols)]
        if metric in self._trace:
            return list(self._trace[metric])
        return list(self._family[metric][0]) if metric in self._family else []

    def means(self) -> dict[str, float | None]:
        """Equal to ``RunResult.means()`` of the same cases (the same sums, in the same order)."""
        out: dict[str, float | None] = {}
        for m in (*TRACE_METRICS, OVERALL_SUPPORTED):
            vals = self._trace[m]
            out[m] = sum(vals) / len(vals) if len(vals) else None
        four = [v for v in (out[m] for m in TRACE_METRICS) if v is not None]
        out[AVERAGE] = sum(four) / 4.0 if len(four) == len(TRACE_METRICS) else None
        for name, (vals, _) in self._family.items():
            out[name] = sum(vals) / len(vals) if len(vals) else None
        return out

    def intervals(self, *, n_boot: int = N_BOOT, seed: int = 0) -> dict[str, dict[str, Any]]:
        """95 % interval of every mean (the results file's ``intervals``): the four TRACE ratios,
        ``expected_adherence`` and the average (bootstrap), ``overall_supported`` (Wilson; grouped
        bootstrap with a group column), each family metric (Wilson when 0/1 valued, else bootstrap).
        {metric: {mean, low, high, n, method[, note]}}."""
        g = self._groups if self.group_column else None
        out: dict[str, dict[str, Any]] = {}
        for m in (*TRACE_METRICS, EXPECTED_ADHERENCE):
            out[m] = mean_ci(self._trace[m], groups=g, n_boot=n_boot, seed=seed).as_dict()
        out[OVERALL_SUPPORTED] = proportion_ci(self._trace[OVERALL_SUPPORTED], groups=g, n_boot=n_boot,
                                               seed=seed).as_dict()
        out[AVERAGE] = mean_ci(self.values(AVERAGE), groups=g, n_boot=n_boot, seed=seed).as_dict()
        for name, (vals, groups) in self._family.items():
            gg = groups if self.group_column else None
            if len(vals) and set(vals) <= {0.0, 1.0}:
                out[name] = proportion_ci(vals, groups=gg, n_boot=n_boot, seed=seed).as_dict()
            else:
                out[name] = mean_ci(vals, groups=gg, n_boot=n_boot, seed=seed).as_dict()
        return out

    def top_level(self, *, method: str, settings: Mapping[str, Any], timings: Mapping[str, float],
                  started_at: str, cancelled: bool, warnings: Iterable[str] = (),
                  schema_version: int | None = None, intervals: bool = True) -> dict[str, Any]:
        """The top level of a results file (``export.to_json_dict`` without ``detailed_results``)."""
        from .types import SCHEMA_VERSION

        return {
            "schema_version": schema_version or SCHEMA_VERSION,
            **self.means(),
            "num_samples": self.num_cases,
            "num_scored": self.num_scored,
            "num_errors": len(self.errors),
            "method": method,
            "cancelled": cancelled,
            "settings": dict(settings),
            "timings": dict(timings),
            "usage": self.usage.model_dump(),
            "started_at": started_at,
            "errors": [{"id": i, "error": e} for i, e in self.errors],
            "warnings": list(warnings),
            **({"intervals": self.intervals()} if intervals else {}),
            **({"app": app} if (app := self.app.summary()) is not None else {}),
        }


__all__ = ["KEPT", "RunTally", "group_of", "lookup"]
