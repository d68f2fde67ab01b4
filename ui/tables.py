"""Per-case tables and summary statistics of a run. Pure pandas (no Streamlit), unit-tested."""

from __future__ import annotations

import math
import operator
from typing import Any, Callable

import pandas as pd

from evaluators.answers.names import CORRECTNESS_METRICS, REFUSAL_METRICS
from evaluators.export import to_rows
from evaluators.headline import metric_columns as metric_columns  # the library's: one computation of the
from evaluators.headline import summary as summary  # figures the Results page and a shared link show
from evaluators.retrieval import is_retrieval_metric
from evaluators.types import OVERALL_SUPPORTED, SENTENCE_COUNTS, RunResult

COUNT_COLUMNS = SENTENCE_COUNTS
OPS: dict[str, Callable[[Any, Any], Any]] = {
    ">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le,
    "==": operator.eq, "!=": operator.ne,
}


def _count(df: pd.DataFrame, column: str) -> pd.Series:
    return pd.to_numeric(df[column], errors="coerce") if column in df else pd.Series(float("nan"), index=df.index)


def _below(column: str, value: float) -> Callable[[pd.DataFrame], pd.Series]:
    return lambda df: _count(df, column) < value


#: Ready-made filters offered in Results: label -> rows to keep (None: every row). Unscored cases
#: never match a filter.
PRESETS: dict[str, Callable[[pd.DataFrame], pd.Series] | None] = {
    "all cases": None,
    # a partially supported sentence is a hallucination too: part of its claim is in no document
    "a sentence not fully supported (incl. partial)":
        lambda df: (_count(df, "unsupported_sentences") + _count(df, "partially_supported_sentences")) > 0,
    "a sentence with no support at all": lambda df: _count(df, "unsupported_sentences") > 0,
    "adherence < 0.5": _below("adherence", 0.5),
    "context relevance < 0.2": _below("context_relevance", 0.2),
    "completeness < 0.5": _below("completeness", 0.5),
}


def apply_preset(df: pd.DataFrame, label: str) -> pd.DataFrame:
    """The rows of ``df`` a ready-made filter keeps (KeyError for an unknown label)."""
    keep = PRESETS[label]
    if keep is None or df.empty:
        return df
    return df[keep(df).fillna(False).astype(bool)]


def case_frame(run: Any) -> pd.DataFrame:
    """One row per case: id, question, TRACE metrics, sentence counts, family metrics, human
    labels (``human_*``), error. A run of the history (``StoredRun``) gives its stored rows
    (:func:`frame_of_rows`: no response, the question cut short)."""
    if not isinstance(run, RunResult):
        return frame_of_rows(run.table(), run.method)
    return _tidy(pd.DataFrame(to_rows(run)).drop(columns=["history"], errors="ignore"))  # the turns: Inspect


def frame_of_rows(rows: list[dict[str, Any]] | pd.DataFrame, method: str) -> pd.DataFrame:
    """The per-case table of a stored run's compact rows (``evaluators.store.rows``; a list, or the
    DataFrame the store keeps)."""
    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame.from_records(rows)
    if df.empty:
        return df
    df.insert(min(3, len(df.columns)), "method", method)
    return _tidy(df)


def _tidy(df: pd.DataFrame) -> pd.DataFrame:
    if df.empty:
        return df
    if "overall_supported" in df:
        df["overall_supported"] = df["overall_supported"].map(
            lambda v: None if v is None or (isinstance(v, float) and math.isnan(v)) else int(bool(v)))
    return df


def numeric_columns(df: pd.DataFrame, skip: tuple[str, ...] = ()) -> list[str]:
    """Columns that hold numbers (a column of text is ruled out from a sample of its values before
    the whole column is converted: a 50,000-row table stays quick)."""
    out = []
    for c in df.columns:
        if c in skip:
            continue
        col = df[c]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            out.append(c)
            continue
        sample = col.dropna().head(50)
        if len(sample) and pd.to_numeric(sample, errors="coerce").isna().all():
            continue  # text
        if pd.api.types.is_numeric_dtype(pd.to_numeric(col, errors="coerce")):
            out.append(c)
    return out


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


def paired_frame(a: Any, b: Any, metric: str) -> pd.DataFrame:
    """Cases present (and scored) in both runs: id, a, b, diff — sorted by |diff| descending.
    ``a`` / ``b``: runs, or their per-case tables."""
    fa = a if isinstance(a, pd.DataFrame) else case_frame(a)
    fb = b if isinstance(b, pd.DataFrame) else case_frame(b)
    if fa.empty or fb.empty or metric not in fa or metric not in fb:
        return pd.DataFrame(columns=["id", "a", "b", "diff"])
    m = fa[["id", metric]].merge(fb[["id", metric]], on="id", suffixes=("_a", "_b"))
    m = m.rename(columns={f"{metric}_a": "a", f"{metric}_b": "b"})
    m["a"] = pd.to_numeric(m["a"], errors="coerce")
    m["b"] = pd.to_numeric(m["b"], errors="coerce")
    m = m.dropna(subset=["a", "b"])
    m["diff"] = m["b"] - m["a"]
    return m.reindex(m["diff"].abs().sort_values(ascending=False).index).reset_index(drop=True)


#: Columns a person reads first after the scores; the rest follow in file order.
_TEXT_FIRST = ("question", "response")
#: The answer metrics (``evaluators.answers``) come after the question and the counts: answer correctness
#: and its two halves, then the yes / no verdicts (declined, over-refusal) — the TRACE scores and the
#: question keep their place at 1280 px.
_ANSWER_FLAGS = REFUSAL_METRICS
_AFTER_COUNTS = (*CORRECTNESS_METRICS, *REFUSAL_METRICS)
_LAST = ("labeled_by", "num_documents", "method", "error")


def display_frame(view: pd.DataFrame, metrics: list[str], links: list[str] | None = None) -> pd.DataFrame:
    """The per-case table as people read it: id, the scores, the Inspect link, the question, the
    sentence counts, the answer's yes / no verdicts (declined, over-refusal), the retrieval metrics at
    each K, the response, human labels,
    then the rest (the scores before the long texts: every score of a run reads at 1280 px without
    scrolling the table sideways). Booleans (and the 0/1 ``overall_supported``, ``declined``,
    ``over_refusal``) read yes / no, counts are whole numbers, a missing text is blank."""
    out = view.copy()
    if links is not None:
        out["inspect"] = links
    counts = [c for c in COUNT_COLUMNS if c in out]
    for c in counts:
        out[c] = pd.to_numeric(out[c], errors="coerce").round().astype("Int64")
    yes_no = [c for c in out.columns if c in (OVERALL_SUPPORTED, *_ANSWER_FLAGS)
              or pd.api.types.is_bool_dtype(out[c])
              or (c.startswith("human_") and _is_boolish(out[c]))]
    for c in yes_no:
        out[c] = out[c].map(_yes_no)
    if OVERALL_SUPPORTED in out and "declined" in out:  # a declining answer claims nothing: not "supported: yes"
        said = (out["declined"] == "yes") & (out[OVERALL_SUPPORTED] == "yes")
        out.loc[said, OVERALL_SUPPORTED] = "declined"
    for c in out.columns:
        if c not in metrics and c not in counts and not pd.api.types.is_numeric_dtype(out[c]):
            out[c] = out[c].map(lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else v)
    human = [c for c in out.columns if c.startswith("human_")]
    # a run with reference passages has 21 retrieval columns per case (hit@1 … ndcg@10): after the answer's
    # verdicts, or they push the link, the question, declined and correctness 25 columns off screen
    per_k = [m for m in metrics if m in out and is_retrieval_metric(m)]
    first = ["id", *[m for m in metrics if m in out and m not in _AFTER_COUNTS and m not in per_k],
             *(["inspect"] if links is not None else []), *(["question"] if "question" in out else []), *counts,
             *[c for c in _AFTER_COUNTS if c in out], *per_k,
             *[c for c in _TEXT_FIRST if c in out and c != "question"], *human]
    rest = [c for c in out.columns if c not in first and c not in _LAST]
    return out[first + rest + [c for c in _LAST if c in out]]


def _is_boolish(col: pd.Series) -> bool:
    vals = {v for v in col.dropna().unique()}
    return bool(vals) and vals <= {True, False}


def _yes_no(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return "yes" if bool(v) else "no"


def usage_text(usage_calls: int, cost_usd: float, retries: int, settings: dict[str, Any]) -> str:
    """' · 16 LLM calls billed, $0.0107' — or 'cost unknown' when the run's model has no price."""
    from evaluators.llm.prices import lookup

    text = ""
    if usage_calls:
        llm = settings.get("llm") or {}
        known = not llm or lookup(str(llm.get("model") or ""), llm.get("provider"),
                                  llm.get("price_per_mtok")) is not None
        cost = f"${cost_usd:.4f}" if known else f"cost unknown (no price for {llm.get('model')})"
        text += f" · {usage_calls} LLM calls billed, {cost}"
    if retries:
        text += f" · {retries} retries (not billed)"
    return text


def human_label_columns(run: Any) -> list[str]:
    """The human label names of a run's cases (a stored run: its ``human_*`` columns)."""
    if not isinstance(run, RunResult):
        df = run if isinstance(run, pd.DataFrame) else case_frame(run)
        return [c[len("human_"):] for c in df.columns if c.startswith("human_")]
    names: list[str] = []
    for r in run.results:
        names.extend(k for k in r.case.labels if k not in names)
    return names


def page_of(view: pd.DataFrame, page: int, size: int) -> pd.DataFrame:
    """Rows ``page`` (1-based) of ``view`` in pages of ``size``."""
    start = max(0, (page - 1) * size)
    return view.iloc[start:start + size]
