"""Per-case tables and summary statistics of a run. Pure pandas (no Streamlit), unit-tested."""

from __future__ import annotations

import math
import operator
from typing import Any, Callable

import pandas as pd

from evaluators.export import to_rows
from evaluators.types import EXPECTED_ADHERENCE, OVERALL_SUPPORTED, SENTENCE_COUNTS, TRACE_METRICS, RunResult

COUNT_COLUMNS = SENTENCE_COUNTS
OPS: dict[str, Callable[[Any, Any], Any]] = {
    ">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le,
    "==": operator.eq, "!=": operator.ne,
}
#: Ready-made filters offered in Results: label -> (column, op, value).
PRESETS: dict[str, tuple[str, str, float] | None] = {
    "all cases": None,
    "unsupported sentences > 0": ("unsupported_sentences", ">", 0),
    "not overall supported": ("overall_supported", "==", 0),
    "adherence < 0.5": ("adherence", "<", 0.5),
    "context relevance < 0.2": ("context_relevance", "<", 0.2),
    "completeness < 0.5": ("completeness", "<", 0.5),
}


def case_frame(run: RunResult) -> pd.DataFrame:
    """One row per case: id, question, TRACE metrics, sentence counts, family metrics, human
    labels (``human_*``), error."""
    df = pd.DataFrame(to_rows(run))
    if df.empty:
        return df
    if "overall_supported" in df:
        df["overall_supported"] = df["overall_supported"].map(
            lambda v: None if v is None or (isinstance(v, float) and math.isnan(v)) else int(bool(v)))
    return df


def metric_columns(df: pd.DataFrame) -> list[str]:
    """Numeric score columns (TRACE first, then family metrics), without counts or human labels."""
    skip = {"id", "question", "response", "num_documents", "method", "labeled_by", "error",
            *COUNT_COLUMNS}
    trace = [m for m in (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED) if m in df.columns]
    others = [c for c in df.columns if c not in skip and c not in trace and not c.startswith("human_")
              and pd.api.types.is_numeric_dtype(pd.to_numeric(df[c], errors="coerce"))
              and pd.to_numeric(df[c], errors="coerce").notna().any()]
    return trace + others


def filter_frame(df: pd.DataFrame, column: str | None, op: str, value: Any) -> pd.DataFrame:
    """Rows where ``column op value``. Rows with no value in the column (unscored) are dropped."""
    if not column or df.empty:
        return df
    if column not in df.columns:
        raise KeyError(f"no column {column!r}; columns: {', '.join(map(str, df.columns))}")
    if op not in OPS:
        raise ValueError(f"unknown operator {op!r}; use one of {', '.join(OPS)}")
    col = pd.to_numeric(df[column], errors="coerce")
    if col.notna().any():
        mask = col.notna() & OPS[op](col, float(value))
    else:
        mask = OPS[op](df[column].astype(str), str(value))
    return df[mask.fillna(False).astype(bool)]


def summary(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """mean / std / min / median / max / n of each column, over rows that have a value."""
    rows = []
    for c in columns:
        v = pd.to_numeric(df[c], errors="coerce").dropna()
        rows.append({"metric": c, "mean": v.mean() if len(v) else None,
                     "std": v.std(ddof=1) if len(v) > 1 else 0.0 if len(v) else None,
                     "min": v.min() if len(v) else None, "median": v.median() if len(v) else None,
                     "max": v.max() if len(v) else None, "n": int(len(v))})
    return pd.DataFrame(rows)


def paired_frame(a: RunResult, b: RunResult, metric: str) -> pd.DataFrame:
    """Cases present (and scored) in both runs: id, a, b, diff — sorted by |diff| descending."""
    fa, fb = case_frame(a), case_frame(b)
    if fa.empty or fb.empty or metric not in fa or metric not in fb:
        return pd.DataFrame(columns=["id", "a", "b", "diff"])
    m = fa[["id", metric]].merge(fb[["id", metric]], on="id", suffixes=("_a", "_b"))
    m = m.rename(columns={f"{metric}_a": "a", f"{metric}_b": "b"})
    m["a"] = pd.to_numeric(m["a"], errors="coerce")
    m["b"] = pd.to_numeric(m["b"], errors="coerce")
    m = m.dropna(subset=["a", "b"])
    m["diff"] = m["b"] - m["a"]
    return m.reindex(m["diff"].abs().sort_values(ascending=False).index).reset_index(drop=True)


def human_label_columns(run: RunResult) -> list[str]:
    names: list[str] = []
    for r in run.results:
        names.extend(k for k in r.case.labels if k not in names)
    return names
