"""Exports of a RunResult: the JSON shape of the CLI (and the dashboard download) and flat rows
for CSV. The API key is never part of a RunResult, so it cannot reach an export.

Every CSV the product writes goes through :func:`to_csv`: uploaded texts and LLM answers are
untrusted, and a spreadsheet runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return as a formula even when it is quoted, so such text cells get a leading apostrophe
(OWASP's CSV-injection advice). The JSON export is exact: it is never neutralised."""

from __future__ import annotations

import json
from typing import Any

from .types import CASE_METRICS, CaseResult, RunResult


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


#: First characters that make a spreadsheet read a text cell as a formula (OWASP CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """``value`` as it may go into a CSV cell: text that a spreadsheet would run as a formula gets a
    leading apostrophe (shown as text, not evaluated); numbers and everything else are unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def to_csv(rows: Any) -> str:
    """CSV text of ``rows`` (a DataFrame or dicts, e.g. :func:`to_rows`) with every text cell and
    header passed through :func:`csv_cell`. The one CSV writer of the CLI and the dashboard."""
    import pandas as pd  # lazy: the JSON export needs no pandas

    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    df = df.rename(columns=csv_cell)
    return df.map(csv_cell).to_csv(index=False)


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
