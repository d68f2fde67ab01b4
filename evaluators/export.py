"""Exports of a RunResult: the JSON shape of the CLI (and the dashboard download) and flat rows
for CSV. The API key is never part of a RunResult, so it cannot reach an export."""

from __future__ import annotations

import json
from typing import Any

from .metric_names import CASE_METRICS
from .types import CaseResult, RunResult


def case_dict(r: CaseResult) -> dict[str, Any]:
    metrics: dict[str, Any] = r.scores.metrics_dict() if r.scores else dict.fromkeys(CASE_METRICS)
    for name, mv in r.metrics.items():
        metrics[name] = mv.value
    return {
        "id": r.case.id,
        "question": r.case.question,
        "llm_response": r.case.response,
        "retrieved_documents": list(r.case.documents),
        "ground_truth": r.case.ground_truth,
        "metrics": metrics,
        "metric_details": {n: mv.model_dump(mode="json") for n, mv in r.metrics.items()},
        "labels": r.labels.model_dump(mode="json") if r.labels else None,
        "labeled_by": r.labeled_by,
        "variants": {
            k: {"labels": v.model_dump(mode="json"),
                "metrics": r.variant_scores[k].metrics_dict() if k in r.variant_scores else None}
            for k, v in r.variants.items()
        },
        "agreement": r.agreement,
        "human_labels": r.case.labels,
        "metadata": r.case.metadata,
        "usage": r.usage.model_dump(),
        "seconds": r.seconds,
        "error": r.error,
        "spans": r.spans.model_dump(mode="json") if r.spans is not None else None,
    }


def to_json_dict(run: RunResult) -> dict[str, Any]:
    return {
        "schema_version": run.schema_version,
        **run.means(),
        "num_samples": len(run.results),
        "num_scored": len(run.scored),
        "num_errors": len(run.errors),
        "method": run.method,
        "cancelled": run.cancelled,
        "settings": run.settings,
        "timings": run.timings,
        "usage": run.usage.model_dump(),
        "started_at": run.started_at,
        "errors": [{"id": i, "error": e} for i, e in run.errors],
        "warnings": list(run.warnings),
        "intervals": intervals(run),
        "detailed_results": [case_dict(r) for r in run.results],
    }


def intervals(run: RunResult) -> dict[str, Any]:
    """95 % interval of every mean above: {metric: {mean, low, high, n, method[, note]}}
    (bootstrap for ratios, Wilson for proportions; see ``agreement.run_intervals``)."""
    from .agreement import run_intervals  # lazy: scipy loads only when a run is exported

    return run_intervals(run)


def to_json(run: RunResult, indent: int | None = 2) -> str:
    return json.dumps(to_json_dict(run), indent=indent, ensure_ascii=False, default=str)


def to_rows(run: RunResult) -> list[dict[str, Any]]:
    """One flat row per case (for CSV / a DataFrame)."""
    rows = []
    for r in run.results:
        d = case_dict(r)
        row: dict[str, Any] = {"id": d["id"], "question": d["question"], "response": d["llm_response"],
                               "num_documents": len(r.case.documents), "method": run.method,
                               "labeled_by": r.labeled_by}
        row.update(d["metrics"])
        for k, v in r.case.labels.items():
            if isinstance(v, (str, int, float, bool)) or v is None:
                row[f"human_{k}"] = v
        row["error"] = r.error
        rows.append(row)
    return rows
