"""Helpers of the Compare page: which runs can be compared, and guarded calls into
``evaluators.compare`` (the statistics module) with a plain fallback for correlations."""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from evaluators.metric_names import OVERALL_SUPPORTED, TRACE_METRICS
from evaluators.types import RunResult

from .optional import compare

#: Bootstrap resamples for interactive intervals (the CLI/bench use the library default).
N_BOOT = 400


def run_sources(session: Mapping[str, RunResult], saved_ids: Mapping[str, str],
                history: list[dict[str, Any]]) -> dict[str, Any]:
    """Display name -> a session RunResult or a history id (newest first; no duplicates)."""
    out: dict[str, Any] = {}
    for label in reversed(list(session)):
        out[label] = session[label]
    in_session = set(saved_ids.values())
    for h in history:
        if h["id"] not in in_session:
            out[f"{h['name']} (saved {h['created_at'][:16]})"] = h["id"]
    return out


def load(source: Any, store: Any) -> RunResult:
    return source if isinstance(source, RunResult) else store.load(source)


def inspect_link(source: Any, label: str, saved_ids: Mapping[str, str]):
    """case id -> relative Inspect link for a run (session run with a history id, or a history id)."""
    from urllib.parse import urlencode

    sid = source if isinstance(source, str) else saved_ids.get(label)
    return lambda cid: "inspect?" + urlencode({**({"run": sid} if sid else {}), "case": cid})


def correlations(a: RunResult, b: RunResult, metric: str, paired: pd.DataFrame
                 ) -> tuple[list[dict[str, Any]], str]:
    """Correlation rows from ``compare.method_vs_method`` when available, else pandas."""
    fn = getattr(compare(), "method_vs_method", None)
    if fn is not None:
        try:
            res = fn(a, b, metric, top=15, n_boot=N_BOOT)
            corr = res.get("correlations") if isinstance(res, dict) else None
            if isinstance(corr, dict):
                corr = [{"statistic": k, **(v if isinstance(v, dict) else {"value": v})}
                        for k, v in corr.items()]
            if corr is not None:
                return list(corr), "evaluators.compare (with intervals)"
        except Exception:  # noqa: BLE001 - fall back below
            pass
    rows = []
    if len(paired) >= 3:
        for how in ("pearson", "spearman"):
            v = paired["a"].corr(paired["b"], method=how)
            rows.append({"statistic": how, "value": None if pd.isna(v) else float(v), "n": len(paired)})
    return rows, "pandas (no intervals)"


def corr_text(rows: list[dict[str, Any]]) -> str:
    parts = []
    for r in rows:
        v = r.get("value")
        name = r.get("statistic") or r.get("name") or ""
        if isinstance(v, (int, float)):
            parts.append(f"{name} r={v:.2f}")
    return ", ".join(parts[:2])


def history_frame(saved: list[dict[str, Any]]) -> pd.DataFrame:
    rows = []
    for h in saved:
        m = h.get("means", {})
        rows.append({"id": h["id"], "name": h["name"], "method": h["method"],
                     "created": h["created_at"], "cases": h["num_cases"], "scored": h["num_scored"],
                     "cancelled": h["cancelled"],
                     **{k: m.get(k) for k in TRACE_METRICS}})
    return pd.DataFrame(rows)


def history_label(saved: list[dict[str, Any]], run_id: str) -> str:
    h = next((h for h in saved if h["id"] == run_id), None)
    return f"{h['name']} ({h['created_at'][:16]})" if h else run_id


def means_table(saved: list[dict[str, Any]], ids: list[str]) -> pd.DataFrame:
    rows = []
    for h in saved:
        if h["id"] in ids:
            for k in (*TRACE_METRICS, OVERALL_SUPPORTED):
                v = h.get("means", {}).get(k)
                if v is not None:
                    rows.append({"run": history_label(saved, h["id"]), "metric": k, "mean": v})
    return pd.DataFrame(rows, columns=["run", "metric", "mean"])


def agreement(run: RunResult | list[RunResult]) -> tuple[pd.DataFrame | None, str | None]:
    fn = getattr(compare(), "agreement_table", None)
    if fn is None:
        return None, "Agreement statistics are not available (evaluators.compare is missing)."
    try:
        return fn(run), None
    except Exception as exc:  # noqa: BLE001
        return None, f"Could not compute agreement: {exc}"


def roc(run: RunResult | list[RunResult], label: str) -> tuple[list[dict[str, Any]], str | None]:
    fn = getattr(compare(), "roc_points", None)
    if fn is None:
        return [], "ROC curves are not available (evaluators.compare is missing)."
    try:
        return list(fn(run, label)), None
    except Exception as exc:  # noqa: BLE001
        return [], f"No ROC for {label!r}: {exc}"
