"""The Phoenix spans export -> spans: ``get_spans_dataframe()`` written as Parquet, CSV or JSONL.

Columns: ``context.trace_id``, ``context.span_id``, ``parent_id``, ``name``, ``span_kind``,
``start_time``, ``end_time``, ``status_code``, ``status_message`` and one ``attributes.<key>``
column per OpenInference attribute (``attributes.input.value``, ``attributes.retrieval.documents``
…). A CSV holds lists as text (JSON, or Python's repr as ``DataFrame.to_csv`` writes them); a
Parquet file as arrays; a JSONL file as JSON. Times may be timestamps, ISO text or epoch numbers.
:func:`parquet_ready` makes a frame pandas cannot write as Parquet (an agent's LangGraph metadata)
writable: the columns Arrow cannot type as JSON text.
"""

from __future__ import annotations

from typing import Any, Sequence

from .model import Issue, Span
from .openinference import span_from_attributes
from .values import as_text, missing, parsed, plain, timestamp

TRACE_ID_COLUMNS = ("context.trace_id", "trace_id", "traceId")
SPAN_ID_COLUMNS = ("context.span_id", "span_id", "spanId")
PARENT_COLUMNS = ("parent_id", "parent_span_id", "parentSpanId", "context.parent_id")
_PREFIX = "attributes."


def is_phoenix_columns(columns: Sequence[str]) -> bool:
    cols = set(columns)
    has_ids = any(c in cols for c in TRACE_ID_COLUMNS[:2]) and any(c in cols for c in SPAN_ID_COLUMNS[:2])
    return has_ids and ("span_kind" in cols or any(c.startswith(_PREFIX) for c in cols))


def _first(cols: set[str], names: Sequence[str]) -> str | None:
    return next((c for c in names if c in cols), None)


def _absent(v: Any) -> bool:
    return v is None or (type(v) is float and v != v)


def read_rows(columns: dict[str, list[Any]], rows: Sequence[int]) -> tuple[list[Span], list[Issue]]:
    """Spans of the export given column by column (``{column: values}``); ``rows`` = each row's
    number in the file (for the messages)."""
    cols = set(columns)
    tid_c, sid_c = _first(cols, TRACE_ID_COLUMNS), _first(cols, SPAN_ID_COLUMNS)
    if tid_c is None or sid_c is None:
        raise ValueError("no context.trace_id / context.span_id columns")
    par_c = _first(cols, PARENT_COLUMNS)
    n = len(rows)

    def col(name: str | None) -> list[Any]:
        return columns[name] if name is not None and name in columns else [None] * n

    tids, sids, parents = col(tid_c), col(sid_c), col(par_c)
    names, kinds = col("name"), col("span_kind")
    starts, ends = col("start_time"), col("end_time")
    codes, messages = col("status_code"), col("status_message")
    attr_cols = [(c[len(_PREFIX):], columns[c]) for c in columns if c.startswith(_PREFIX)]
    nested = columns.get("attributes")  # one column holding the attributes as an object
    spans: list[Span] = []
    issues: list[Issue] = []
    for i in range(n):
        row = rows[i]
        name = as_text(names[i]) or ""
        tid, sid = as_text(tids[i]), as_text(sids[i])
        if not tid:
            issues.append(Issue(f"span {name or '(no name)'!r} (span id {sid or 'none'}) has no trace id; "
                                "this span is left out", record=row, field=tid_c))
            continue
        if not sid:
            issues.append(Issue(f"span {name or '(no name)'!r} of trace {tid} has no span id; this span is "
                                "left out", record=row, field=sid_c))
            continue
        attrs = {k: v[i] for k, v in attr_cols if not _absent(v[i])}
        if nested is not None and not _absent(nested[i]):
            extra = parsed(plain(nested[i]))
            if isinstance(extra, dict):
                attrs.update(_flatten(extra))
        status = (as_text(codes[i]) or "").upper()
        spans.append(span_from_attributes(
            attrs, trace_id=tid.strip().lower(), span_id=sid.strip().lower(),
            parent_id=(as_text(parents[i]) or "").strip().lower() or None, name=name,
            kind=as_text(kinds[i]) or "", start=timestamp(starts[i]), end=timestamp(ends[i]),
            status="ERROR" if status == "ERROR" else status,
            status_message="" if missing(messages[i]) else str(messages[i]), record=row,
            flattened=nested is not None))
    return spans, issues


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"llm": {"model_name": "x"}} -> {"llm.model_name": "x"} (lists are kept whole)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and key not in ("metadata",):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _json_cell(v: Any) -> Any:
    """A cell of a column Arrow cannot type, as Parquet can hold it: an object or a list as its JSON
    text (read back by :func:`.values.parsed`), a missing value as None, a text unchanged."""
    v = plain(v)
    if v is None or isinstance(v, str):
        return v
    import json

    return json.dumps(v, ensure_ascii=False, default=str)


def parquet_ready(df: Any) -> Any:
    """A copy of a spans dataframe (``get_spans_dataframe()``) that ``to_parquet`` can write: every
    column Arrow cannot give one type — LangGraph's ``attributes.metadata``, whose
    ``langgraph_path`` lists mix texts, numbers and booleans (``["__pregel_push", 0, False]``) —
    holds its objects as JSON text, which this module reads back as the objects; every other column
    is the frame's own. ``parquet_ready(df).to_parquet("spans.parquet")``."""
    import pyarrow as pa

    out = df.copy(deep=False)
    for name in df.columns:
        col = df[name]
        if col.dtype != object:
            continue
        try:
            pa.array(col, from_pandas=True)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            out[name] = col.map(_json_cell)
    return out
