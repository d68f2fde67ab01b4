"""Rows -> TestCases: each row is checked field by field; a bad row becomes an error naming
file, row and column, and the other rows still load."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..types import TestCase
from .errors import DatasetError
from .mapping import ColumnMapping
from .values import _is_missing, _py, _short, _type_name


@dataclass
class LoadResult:
    cases: list[TestCase]
    errors: list[DatasetError] = field(default_factory=list)
    mapping: ColumnMapping | None = None

    @property
    def ok(self) -> bool:
        return not self.errors

    def error_dicts(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.errors]



class _RowError(Exception):
    def __init__(self, column: str, message: str):
        super().__init__(message)
        self.column = column
        self.message = message


def _text(v: Any, column: str, required: bool) -> str | None:
    if _is_missing(v):
        if required:
            raise _RowError(column, "missing value")
        return None
    if not isinstance(v, str):
        raise _RowError(column, f"expected text, got a {_type_name(v)} ({_short(v)})")
    if not v.strip():
        if required:
            raise _RowError(column, "empty value")
        return None
    return v



def _doc_text(d: Any, column: str, i: int) -> str:
    if isinstance(d, str):
        return d
    if isinstance(d, dict):  # {"title", "text"} / LangChain {"page_content"} / {"content"}
        for k in ("text", "page_content", "content", "document", "passage"):
            if isinstance(d.get(k), str):
                title = d.get("title")
                return f"{title}\n{d[k]}" if isinstance(title, str) and title.strip() else d[k]
        raise _RowError(column, f"document {i + 1} is an object without a text field "
                                f"(keys: {', '.join(map(str, d)) or 'none'})")
    raise _RowError(column, f"document {i + 1} is a {_type_name(d)} ({_short(d)}), expected text")


def _documents(v: Any, column: str) -> tuple[str, ...]:
    if _is_missing(v):
        return ()
    v = _py(v)
    if isinstance(v, str):
        s = v.strip()
        if not s:
            return ()
        if s.startswith("["):
            try:
                v = json.loads(s)
            except json.JSONDecodeError as exc:
                try:
                    v = ast.literal_eval(s)  # "['a', 'b']" as written by DataFrame.to_csv
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    raise _RowError(
                        column, f"looks like a JSON list but is not valid JSON ({exc.msg} at "
                                f"character {exc.pos}); give a JSON list of strings or plain text"
                    ) from None
            if not isinstance(v, list):
                raise _RowError(column, f"expected a list of documents, got a {_type_name(v)}")
        else:
            return (v,)
    if isinstance(v, dict):
        return (_doc_text(v, column, 0),)
    if not isinstance(v, (list, tuple)):
        raise _RowError(column, f"expected a list of documents or text, got a {_type_name(v)} ({_short(v)})")
    missing = [i + 1 for i, d in enumerate(v) if _is_missing(d)]
    if missing:
        raise _RowError(column, f"document {missing[0]} is null; remove it or give its text")
    return tuple(_doc_text(d, column, i) for i, d in enumerate(v))


def _ground_truth(v: Any, column: str) -> str | None:
    v = _py(v) if not isinstance(v, str) else v
    if isinstance(v, list):  # ragas v1 "ground_truths"
        parts = [x for x in v if isinstance(x, str) and x.strip()]
        if len(parts) != len([x for x in v if not _is_missing(x)]):
            raise _RowError(column, f"expected text or a list of texts, got {_short(v)}")
        return "\n".join(parts) if parts else None
    return _text(v, column, required=False)


_BOOL_TEXT = {"true": True, "false": False, "yes": True, "no": False}


def _label_value(v: Any) -> Any:
    """CSV cells are text: 'true' -> True, '0.75' -> 0.75, '{"a": 1}' -> dict."""
    v = _py(v)
    if not isinstance(v, str):
        return v
    s = v.strip()
    if s.lower() in _BOOL_TEXT:
        return _BOOL_TEXT[s.lower()]
    if re.fullmatch(r"[+-]?\d+", s):
        return int(s)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", s):
        return float(s)
    if s[:1] in "[{":
        try:
            return json.loads(s)
        except json.JSONDecodeError:
            return v
    return v


def _ident(v: Any, column: str) -> str:
    v = _py(v)
    if _is_missing(v) or (isinstance(v, str) and not v.strip()):
        raise _RowError(column, "missing id")
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise _RowError(column, f"expected a text or integer id, got a {_type_name(v)}")
    if isinstance(v, float):
        if not v.is_integer():
            raise _RowError(column, f"expected a text or integer id, got {v!r}")
        v = int(v)
    return str(v).strip()


def to_cases(df: pd.DataFrame, mapping: ColumnMapping, filename: str) -> LoadResult:
    """Turn a DataFrame into TestCases; bad rows become errors (see module doc for row numbers).

    Raises :class:`DatasetError` when a mapped column is not in the frame or no question/response
    column is mapped.
    """
    name = filename
    cols = [str(c) for c in df.columns]
    for fld in ("question", "response"):
        if not getattr(mapping, fld):
            raise DatasetError(name, f"no {fld} column mapped; columns: {', '.join(cols)}", column=fld)
    mapped = {f: getattr(mapping, f) for f in ("question", "response", "documents", "ground_truth", "id")}
    for fld, col in mapped.items():
        if col is not None and col not in cols:
            raise DatasetError(name, f"column {col!r} (mapped to {fld}) is not in the file; "
                                     f"columns: {', '.join(cols)}", column=col)
    for col in mapping.label_columns:
        if col not in cols:
            raise DatasetError(name, f"label column {col!r} is not in the file; columns: "
                                     f"{', '.join(cols)}", column=col)
    used = {c for c in mapped.values() if c} | set(mapping.label_columns)
    meta_cols = [c for c in cols if c not in used]
    rows_attr = df.attrs.get("source_rows")
    source_rows = rows_attr if isinstance(rows_attr, list) and len(rows_attr) == len(df) else \
        list(range(1, len(df) + 1))
    errors: list[DatasetError] = list(df.attrs.get("parse_errors") or [])
    cases: list[TestCase] = []
    seen: dict[str, int] = {}
    for row_no, rec in zip(source_rows, df.to_dict("records")):
        row_errors: list[_RowError] = []

        def field_(fn, col, *args):
            try:
                return fn(rec[col], col, *args)
            except _RowError as exc:
                row_errors.append(exc)
                return None

        question = field_(_text, mapping.question, True)
        response = field_(_text, mapping.response, True)
        docs = field_(_documents, mapping.documents) if mapping.documents else ()
        gt = field_(_ground_truth, mapping.ground_truth) if mapping.ground_truth else None
        ident = field_(_ident, mapping.id) if mapping.id else str(row_no)
        labels: dict[str, Any] = {}
        for col in mapping.label_columns:
            v = rec[col]
            if _is_missing(v) or (isinstance(v, str) and not v.strip()):
                continue
            v = _label_value(v)
            if col.lower() == "labels":
                if not isinstance(v, dict):
                    row_errors.append(_RowError(col, f"expected an object of labels, got {_short(v)}"))
                    continue
                labels.update(v)
            else:
                labels[col] = v
        metadata = {c: _py(rec[c]) for c in meta_cols
                    if not _is_missing(rec[c]) and not (isinstance(rec[c], str) and not rec[c].strip())}
        for e in row_errors:
            errors.append(DatasetError(name, e.message, row=row_no, column=e.column))
        if row_errors:
            continue
        assert ident is not None
        if ident in seen:
            errors.append(DatasetError(name, f"duplicate id {ident!r} (first in row {seen[ident]})",
                                       row=row_no, column=mapping.id or "id"))
            continue
        seen[ident] = row_no
        try:
            cases.append(TestCase(id=ident, question=question, response=response,  # type: ignore[arg-type]
                                  documents=docs or (), ground_truth=gt, labels=labels,
                                  metadata=metadata))
        except Exception as exc:  # noqa: BLE001 - e.g. a value pydantic rejects
            errors.append(DatasetError(name, f"invalid record: {exc}", row=row_no))
    errors.sort(key=lambda e: (e.row if e.row is not None else 0))
    return LoadResult(cases=cases, errors=errors, mapping=mapping)

