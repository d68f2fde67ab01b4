"""Helpers of the Compare page: which runs can be compared, and calls into ``evaluators.agreement``
(the statistics module) that turn a statistic that cannot be computed into a message."""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from evaluators.agreement import agreement_table, method_vs_method, roc_points
from evaluators.store import RunSummary
from evaluators.types import OVERALL_SUPPORTED, TRACE_METRICS, RunResult

#: Bootstrap resamples for interactive intervals (the CLI/bench use the library default).
N_BOOT = 400


def run_sources(session: Mapping[str, RunResult], saved_ids: Mapping[str, str],
                history: list[RunSummary]) -> dict[str, Any]:
    """Display name -> a session RunResult or a history id (newest first; no duplicates)."""
    out: dict[str, Any] = {}
    for label in reversed(list(session)):
        out[label] = session[label]
    in_session = set(saved_ids.values())
    for h in history:
        if h.id not in in_session:
            out[f"{h.name} (saved {h.created_at[:16]})"] = h.id
    return out


def inspect_link(source: Any, label: str, saved_ids: Mapping[str, str]):
    """case id -> relative Inspect link for a run (session run with a history id, or a history id)."""
    from urllib.parse import urlencode

    sid = source if isinstance(source, str) else saved_ids.get(label)
    return lambda cid: "inspect?" + urlencode({**({"run": sid} if sid else {}), "case": cid})


def correlations(a: RunResult, b: RunResult, metric: str, paired: pd.DataFrame
                 ) -> tuple[list[dict[str, Any]], str]:
    """Correlation rows (with bootstrap intervals) from ``evaluators.agreement.method_vs_method``; plain pandas
    correlations, with the reason, when the statistics cannot be computed for these runs."""
    try:
        res = method_vs_method(a, b, metric, top=15, n_boot=N_BOOT)
        corr = res.get("correlations")
        if isinstance(corr, dict):
            corr = [{"statistic": k, **(v if isinstance(v, dict) else {"value": v})} for k, v in corr.items()]
        return list(corr or []), "evaluators.agreement (with intervals)"
    except ValueError as exc:
        why = str(exc)
    rows = []
    if len(paired) >= 3:
        for how in ("pearson", "spearman"):
            v = paired["a"].corr(paired["b"], method=how)
            rows.append({"statistic": how, "value": None if pd.isna(v) else float(v), "n": len(paired)})
    return rows, f"pandas, no intervals ({why})"


def corr_text(rows: list[dict[str, Any]]) -> str:
    parts = []
    for r in rows:
        v = r.get("value")
        name = r.get("statistic") or r.get("name") or ""
        if isinstance(v, (int, float)):
            parts.append(f"{name} r={v:.2f}")
    return ", ".join(parts[:2])


def history_frame(saved: list[RunSummary]) -> pd.DataFrame:
    rows = [{"id": h.id, "name": h.name, "method": h.method, "created": h.created_at,
             "cases": h.num_cases, "scored": h.num_scored, "status": h.status,
             **{k: h.means.get(k) for k in TRACE_METRICS}} for h in saved]
    return pd.DataFrame(rows)


def history_label(saved: list[RunSummary], run_id: str) -> str:
    h = next((h for h in saved if h.id == run_id), None)
    return h.label if h else run_id


def means_table(saved: list[RunSummary], ids: list[str]) -> pd.DataFrame:
    rows = [{"run": h.label, "metric": k, "mean": h.means[k]}
            for h in saved if h.id in ids
            for k in (*TRACE_METRICS, OVERALL_SUPPORTED) if h.means.get(k) is not None]
    return pd.DataFrame(rows, columns=["run", "metric", "mean"])


def agreement(run: RunResult | list[RunResult]) -> tuple[pd.DataFrame | None, str | None]:
    try:
        return agreement_table(run), None
    except Exception as exc:  # noqa: BLE001
        return None, f"Could not compute agreement: {exc}"


def roc(run: RunResult | list[RunResult], label: str) -> tuple[list[dict[str, Any]], str | None]:
    try:
        return list(roc_points(run, label)), None
    except Exception as exc:  # noqa: BLE001
        return [], f"No ROC for {label!r}: {exc}"
