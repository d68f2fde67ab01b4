"""Any input file -> test cases: flat rows (the layouts of :mod:`.mapping`) or traces.

The file's shape decides (``TraceOptions.format="auto"``): an OTLP JSON text, or a table whose
columns are a Phoenix spans export, LangSmith runs or Langfuse traces, is read by
:mod:`evaluators.traces` — one case per trace; anything else is rows. The user may force either
(``format="rows"`` or a trace format). Trace problems come back in the same
:class:`~.validate.LoadResult` as row problems: an unreadable record is an error naming its row, a
trace that gives no case is in ``LoadResult.traces.skipped`` with its reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Sequence

import pandas as pd

from ..traces import (
    FORMAT_NAMES,
    TraceError,
    TraceOptions,
    TraceRead,
    detect_columns,
    gc_paused,
    looks_like_otlp,
    read_columns,
    read_otlp,
    read_records,
)
from .encoding import decode_text
from .errors import DatasetError
from .mapping import ColumnMapping, guess_mapping
from .read import name_of, read_bytes, read_table, require_file
from .stream import CHUNK_ROWS, CaseStream, LoadedStream, open_cases
from .validate import LoadResult, to_cases

_JSON_EXTS = (".json", ".jsonl", ".ndjson")


@dataclass
class Input:
    """A file read: its table (rows, or the spans of a Phoenix export; None for OTLP text) and, when
    it holds traces, what they gave."""

    name: str
    df: pd.DataFrame | None
    traces: TraceRead | None = None
    parse_errors: list[DatasetError] = field(default_factory=list)


def read_input(source: str | Path | bytes | BinaryIO, filename: str | None = None,
               max_bytes: int | None = None, trace: TraceOptions | None = None) -> Input:
    """Read a data file as rows or as traces (see the module doc). Raises :class:`DatasetError`
    for problems with the whole file."""
    with gc_paused():
        return _read_input(source, filename, max_bytes, trace)


def _read_input(source: str | Path | bytes | BinaryIO, filename: str | None,
                max_bytes: int | None, trace: TraceOptions | None) -> Input:
    opts = trace or TraceOptions()
    name = name_of(source, filename)
    ext = Path(name).suffix.lower()
    if opts.format != "rows" and ext in _JSON_EXTS:
        data = read_bytes(source, name, max_bytes)
        text = decode_text(data, name, "JSON")
        if opts.format == "otlp" or (opts.format == "auto" and looks_like_otlp(text)):
            try:
                return Input(name, None, read_otlp(text, name, opts))
            except TraceError as exc:
                raise DatasetError(name, f"cannot read as {FORMAT_NAMES['otlp']}: {exc}") from None
        source = data  # read once
    elif opts.format == "otlp":
        raise DatasetError(name, f"OTLP JSON is read from .json / .jsonl files, not {ext or 'this file'}")
    df = read_table(source, name, max_bytes)
    fmt = detect_columns(list(df.columns)) if opts.format == "auto" else (
        None if opts.format == "rows" else opts.format)
    if fmt is None:
        return Input(name, df)
    try:
        tr = _traces_of_frame(df, name, fmt, opts)
    except TraceError as exc:
        seen = ", ".join(map(str, list(df.columns)[:12]))
        raise DatasetError(name, f"cannot read as {FORMAT_NAMES[fmt]}: {exc} (columns: {seen})") from None
    return Input(name, df, tr, list(df.attrs.get("parse_errors") or []))


def _absent(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _traces_of_frame(df: pd.DataFrame, name: str, fmt: str, opts: TraceOptions) -> TraceRead:
    rows_attr = df.attrs.get("source_rows")
    rows: Sequence[int] = rows_attr if isinstance(rows_attr, list) and len(rows_attr) == len(df) else \
        list(range(1, len(df) + 1))
    if fmt == "openinference":
        attrs, df.attrs = df.attrs, {}  # pandas deep-copies attrs into every column taken
        try:
            columns = {str(c): df.iloc[:, i].tolist() for i, c in enumerate(df.columns)}
        finally:
            df.attrs = attrs
        return read_columns(columns, rows, name, opts)
    # JSON records became a frame with every key in every row: give the readers each record's own keys
    records = [(row, {k: v for k, v in rec.items() if not _absent(v)})
               for row, rec in zip(rows, df.to_dict("records"))]
    return read_records(records, name, fmt, opts)


def trace_result(inp: Input) -> LoadResult:
    """The LoadResult of a trace file: cases, unreadable records as errors (by row), notes as
    warnings, and the :class:`TraceRead` (skipped traces, previews, re-mapping) in ``traces``."""
    tr = inp.traces
    assert tr is not None
    errors = list(inp.parse_errors) + [DatasetError(inp.name, i.message, row=i.record, column=i.field)
                                       for i in tr.issues]
    warnings = [DatasetError(inp.name, w.message, row=w.record, column=w.field) for w in tr.warnings]
    return LoadResult(cases=list(tr.cases), errors=errors, mapping=None, warnings=warnings, traces=tr)


def open_input(path: str | Path, *, overrides: dict[str, str] | None = None, trace: TraceOptions | None = None,
               chunk_rows: int = CHUNK_ROWS) -> CaseStream | LoadedStream:
    """The cases of a data file chunk by chunk: rows are read in chunks (:class:`CaseStream`); a trace
    export — detected from the file's head, or forced by ``trace.format`` — is read whole, one case
    per trace, and handed out in chunks the same way (:class:`LoadedStream`). Raises
    :class:`DatasetError` for problems with the whole file."""
    opts = trace or TraceOptions()
    whole = opts.format not in ("auto", "rows")
    require_file(Path(path), Path(path).name)
    if opts.format == "auto" and Path(path).suffix.lower() in _JSON_EXTS:
        with open(path, "rb") as fh:
            head = fh.read(4096)
        whole = looks_like_otlp(head.decode("utf-8", errors="ignore"))
    if not whole:
        try:
            stream = open_cases(path, overrides=overrides, chunk_rows=chunk_rows)
        except DatasetError:
            if opts.format == "rows":
                raise
            whole = True  # not rows: traces, or the loader's own message for the whole file
        else:
            if opts.format == "rows" or detect_columns(stream.columns) is None:
                return stream
    return LoadedStream(path, load_input(path, overrides=overrides, trace=opts), chunk_rows)


def load_input(source: str | Path | bytes | BinaryIO, filename: str | None = None, *,
               mapping: ColumnMapping | None = None, overrides: dict[str, str] | None = None,
               max_bytes: int | None = None, trace: TraceOptions | None = None) -> LoadResult:
    """Read, map and validate a file of rows or of traces (see the module doc)."""
    inp = read_input(source, filename, max_bytes, trace)
    if inp.traces is not None:
        return trace_result(inp)
    assert inp.df is not None
    m = mapping or guess_mapping(list(inp.df.columns), filename=inp.name, overrides=overrides)
    return to_cases(inp.df, m, inp.name)
