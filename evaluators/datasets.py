"""Load, validate and map evaluation data sets.

Formats (chosen by file extension): ``.csv``, ``.tsv``, ``.json`` (a list of records, an object
holding one list of records, or an object of equal-length column lists), ``.jsonl`` / ``.ndjson``
and ``.parquet``.

Column layouts accepted as-is (see :func:`guess_mapping`):

* ragas v1  — ``question, answer, contexts, ground_truth``
* ragas v2  — ``user_input, response, retrieved_contexts, reference``
* RAGBench  — ``question, response, documents`` (+ its GPT-4 label columns)
* batch     — ``query, response, retrieved_documents, ground_truth``

Documents may be a list, a JSON-encoded list (or a Python-repr list, as ``DataFrame.to_csv``
writes), or one plain string (= one document). An ``id`` column is kept (else ids are the row
numbers); human-label columns (``hallucinated``, ``adherence_score``, …, a nested ``labels``
object, or any ``human_*`` / ``label_*`` column) go to ``TestCase.labels``; every other column
goes to ``TestCase.metadata``.

Errors: a problem with the whole file or a whole column raises :class:`DatasetError`; a problem
with one row becomes a :class:`DatasetError` in ``LoadResult.errors`` and the other rows still
load. Nothing is dropped silently.

Row numbers are 1-based **data rows**: for CSV/TSV row 1 is the first record after the header; for
JSONL the row is the line number in the file; for JSON and Parquet it is the position of the record.
"""

from __future__ import annotations

import ast
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Mapping, Sequence

import pandas as pd
from pydantic import BaseModel, ConfigDict

from .types import TestCase

SUPPORTED_EXTENSIONS = (".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".parquet")


class DatasetError(ValueError):
    """A problem in an input file, naming the file and, when known, the row and column."""

    def __init__(self, file: str, message: str, row: int | None = None, column: str | None = None):
        self.file = file
        self.row = row
        self.column = column
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [self.file] if self.file else []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        return f"{', '.join(where)}: {self.message}" if where else self.message

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "row": self.row, "column": self.column, "message": self.message,
                "error": str(self)}

    def __reduce__(self):  # keep the fields through pickling (multiprocessing, st.cache)
        return (DatasetError, (self.file, self.message, self.row, self.column))


class ColumnMapping(BaseModel):
    """Which column holds which field. ``format`` says which known layout matched."""

    model_config = ConfigDict(frozen=True)

    question: str | None
    response: str | None
    documents: str | None
    ground_truth: str | None = None
    id: str | None = None
    label_columns: tuple[str, ...] = ()
    #: 'ragas_v1' | 'ragas_v2' | 'ragbench' | 'batch' | 'custom'
    format: str = "custom"


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


# ---------------------------------------------------------------------------------------------
# Reading files
# ---------------------------------------------------------------------------------------------

#: Keys under which a JSON object may hold its list of records (tried in this order).
_RECORD_KEYS = ("data", "test_cases", "cases", "records", "rows", "examples", "items", "samples")


def _name_of(source: Any, filename: str | None) -> str:
    if filename:
        return Path(filename).name
    if isinstance(source, (str, Path)):
        return Path(source).name
    name = getattr(source, "name", None)
    return Path(name).name if isinstance(name, str) else ""


def _read_bytes(source: str | Path | bytes | BinaryIO, name: str, max_bytes: int | None) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, Path)):
        p = Path(source)
        if not p.exists():
            raise DatasetError(name or str(p), f"file not found: {p}")
        if p.is_dir():
            raise DatasetError(name or str(p), f"{p} is a directory, not a file")
        if max_bytes is not None and p.stat().st_size > max_bytes:
            raise DatasetError(name, _too_large(p.stat().st_size, max_bytes))
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise DatasetError(name, f"cannot read file: {exc}") from exc
    elif hasattr(source, "read"):
        data = source.read(max_bytes + 1 if max_bytes is not None else -1)
        if isinstance(data, str):
            data = data.encode("utf-8")
    else:
        raise DatasetError(name, f"cannot read a {type(source).__name__}; give a path, bytes or a file")
    if max_bytes is not None and len(data) > max_bytes:
        raise DatasetError(name, _too_large(len(data), max_bytes))
    return data


def _too_large(size: int, limit: int) -> str:
    return f"file is {size / 1e6:.1f} MB, larger than the limit of {limit / 1e6:.1f} MB"


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(
            name, f"file is not UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 1]!r}); "
                  "save it as UTF-8"
        ) from exc


def read_table(source: str | Path | bytes | BinaryIO, filename: str | None = None,
               max_bytes: int | None = None) -> pd.DataFrame:
    """Read a data file into a DataFrame (format by the extension of ``filename`` or the path).

    Raises :class:`DatasetError` when the file is unreadable, too large (``max_bytes``), of an
    unknown format, or holds no records. Records that cannot be parsed on their own (a broken
    JSONL line, a JSON list element that is not an object) do not stop the others: they are kept
    in ``df.attrs["parse_errors"]`` and reported by :func:`to_cases`. ``df.attrs["source_rows"]``
    holds the 1-based row number of each DataFrame row in the file.
    """
    name = _name_of(source, filename)
    ext = "".join(Path(name).suffixes[-1:]).lower() if name else ""
    if not name:
        raise DatasetError("", "cannot tell the file format: no file name given")
    if ext not in SUPPORTED_EXTENSIONS:
        raise DatasetError(
            name, f"unsupported file type {ext or '(no extension)'!r}; "
                  f"use one of {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    data = _read_bytes(source, name, max_bytes)
    if not data.strip():
        raise DatasetError(name, "file is empty")
    parse_errors: list[DatasetError] = []
    source_rows: list[int] | None = None
    if ext in (".csv", ".tsv"):
        df = _read_csv(data, name, "\t" if ext == ".tsv" else ",")
    elif ext == ".parquet":
        try:
            df = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many types
            raise DatasetError(name, f"not a readable Parquet file: {exc}") from exc
    elif ext == ".json":
        records, source_rows, parse_errors = _json_records(_decode(data, name), name)
        df = _frame(records)
    else:  # jsonl / ndjson
        records, source_rows, parse_errors = _jsonl_records(_decode(data, name), name)
        df = _frame(records)
    raw_header = df.attrs.pop("raw_header", None)
    df.columns = [str(c) for c in df.columns]
    names = raw_header if raw_header and len(raw_header) == len(df.columns) else list(df.columns)
    dup = sorted({c for c in names if names.count(c) > 1})
    if dup:
        raise DatasetError(name, f"duplicate column names: {', '.join(dup)}", column=dup[0])
    if len(df) == 0 and not parse_errors:
        raise DatasetError(name, "no data rows (only a header, or an empty list)")
    if len(df.columns) == 0 and parse_errors:
        first = parse_errors[0]
        raise DatasetError(name, f"no readable records; first problem: {first}", row=first.row)
    df.attrs["source_rows"] = source_rows if source_rows is not None else list(range(1, len(df) + 1))
    df.attrs["parse_errors"] = parse_errors
    df.attrs["filename"] = name
    return df


def _frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    # dtype=object keeps values exactly as parsed (no int->float upcasting, no string dtype).
    cols: list[str] = []
    for r in records:
        cols.extend(k for k in r if k not in cols)
    return pd.DataFrame.from_records(records, columns=cols).astype(object) if cols else pd.DataFrame()


def _read_csv(data: bytes, name: str, sep: str) -> pd.DataFrame:
    text = _decode(data, name)
    try:
        # Every cell as text and "" for empty cells: we decide what is missing, not pandas
        # (pandas would turn the string "NA" or "null" in a question into NaN).
        df = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False,
                         na_values=[], skip_blank_lines=True)
        # pandas renames a repeated header ("response", "response.1"): refuse instead.
        header = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, header=None, nrows=1,
                             keep_default_na=False).iloc[0].tolist()
        df.attrs["raw_header"] = [str(h) for h in header]
        return df
    except pd.errors.EmptyDataError as exc:
        raise DatasetError(name, "file is empty (no header row)") from exc
    except pd.errors.ParserError as exc:
        msg = str(exc).strip()
        m = re.search(r"line (\d+)", msg)
        row = int(m.group(1)) - 1 if m else None
        raise DatasetError(name, f"malformed CSV ({msg}); check quoting and the number of fields",
                           row=row) from exc
    except Exception as exc:  # noqa: BLE001
        raise DatasetError(name, f"cannot read CSV: {exc}") from exc


def _json_records(text: str, name: str) -> tuple[list[dict], list[int], list[DatasetError]]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (one JSON object per line? name the file .jsonl)" if "Extra data" in exc.msg else ""
        raise DatasetError(
            name, f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{hint}"
        ) from exc
    if isinstance(obj, dict):
        obj = _records_in_object(obj, name)
    if not isinstance(obj, list):
        raise DatasetError(name, f"expected a JSON list of records, got a {type(obj).__name__}")
    records, rows, errors = [], [], []
    for i, rec in enumerate(obj, start=1):
        if isinstance(rec, dict):
            records.append(rec)
            rows.append(i)
        else:
            errors.append(DatasetError(name, f"record is a {_type_name(rec)}, expected an object", row=i))
    return records, rows, errors


def _records_in_object(obj: dict[str, Any], name: str) -> list[Any]:
    lists = {k: v for k, v in obj.items() if isinstance(v, list)}
    for k in _RECORD_KEYS:
        if k in lists:
            return lists[k]
    of_dicts = [k for k, v in lists.items() if v and all(isinstance(x, dict) for x in v)]
    if len(of_dicts) == 1:
        return lists[of_dicts[0]]
    if len(of_dicts) > 1:
        raise DatasetError(name, f"JSON object holds several lists of records ({', '.join(of_dicts)}); "
                                 f"keep one, or put it under \"data\"")
    # Column-oriented: {"question": [...], "answer": [...]} (DataFrame.to_dict("list")).
    if lists and len(lists) == len(obj) and len({len(v) for v in lists.values()}) == 1 and len(lists) > 1:
        n = len(next(iter(lists.values())))
        return [{k: v[i] for k, v in lists.items()} for i in range(n)]
    keys = ", ".join(list(obj)[:10]) or "(none)"
    raise DatasetError(name, f"JSON object holds no list of records (keys: {keys}); expected a list "
                             f"of objects, or an object with one under \"data\"")


def _jsonl_records(text: str, name: str) -> tuple[list[dict], list[int], list[DatasetError]]:
    records, rows, errors = [], [], []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(DatasetError(name, f"malformed JSON line (column {exc.colno}: {exc.msg})",
                                       row=lineno))
            continue
        if not isinstance(rec, dict):
            errors.append(DatasetError(name, f"line holds a {_type_name(rec)}, expected an object",
                                       row=lineno))
            continue
        records.append(rec)
        rows.append(lineno)
    return records, rows, errors


# ---------------------------------------------------------------------------------------------
# Column mapping
# ---------------------------------------------------------------------------------------------

_QUESTION = ("question", "user_input", "query", "prompt", "input", "instruction")
_RESPONSE = ("response", "answer", "llm_response", "generated_answer", "output", "prediction",
             "generation", "model_answer")
_DOCUMENTS = ("retrieved_contexts", "contexts", "documents", "retrieved_documents", "context",
              "passages", "docs", "retrieved_passages", "sources")
_GROUND_TRUTH = ("ground_truth", "reference", "ground_truths", "reference_answer", "gold_answer",
                 "expected_answer", "expected_output", "ideal_answer")
_ID = ("id", "query_id", "question_id", "sample_id", "case_id", "example_id", "uid", "qid")
#: Human / reference label columns (RAGBench annotation columns included).
LABEL_COLUMNS = (
    "labels", "hallucinated", "is_hallucinated", "hallucination", "adherence_score", "relevance_score",
    "utilization_score", "completeness_score", "faithfulness_score", "correctness_score",
    "overall_supported", "all_relevant_sentence_keys", "all_utilized_sentence_keys",
    "sentence_support_information", "unsupported_response_sentence_keys", "relevance_explanation",
    "overall_supported_explanation",
)
_LABEL_PREFIXES = ("human_", "label_")


def _find(columns: Sequence[str], candidates: Iterable[str], taken: set[str]) -> str | None:
    lower = {c.strip().lower(): c for c in columns}
    for cand in candidates:
        c = lower.get(cand)
        if c is not None and c not in taken:
            return c
    return None


MAPPABLE_FIELDS = ("question", "response", "documents", "ground_truth", "id")


def guess_mapping(columns: Sequence[str], filename: str = "",
                  overrides: Mapping[str, str] | None = None) -> ColumnMapping:
    """Map known column names (case-insensitive) to fields.

    ``overrides`` ({field: column}) fixes some fields; the rest are guessed from the remaining
    columns (the format is then 'custom'). Raises :class:`DatasetError` when no question or no
    response column can be found, or an override names a missing column or an unknown field.
    """
    cols = [str(c) for c in columns]
    fixed = dict(overrides or {})
    for fld, col in fixed.items():
        if fld not in MAPPABLE_FIELDS:
            raise DatasetError(filename, f"cannot map {fld!r}; fields: {', '.join(MAPPABLE_FIELDS)}")
        if col not in cols:
            raise DatasetError(filename, f"column {col!r} (mapped to {fld}) is not in the file; "
                                         f"columns: {', '.join(cols)}", column=col)
    taken: set[str] = set(fixed.values())

    def pick(fld: str, candidates: Iterable[str]) -> str | None:
        c = fixed[fld] if fld in fixed else _find(cols, candidates, taken)
        if c:
            taken.add(c)
        return c

    q = pick("question", _QUESTION)
    r = pick("response", _RESPONSE)
    missing = [n for n, v in (("question", q), ("response", r)) if v is None]
    if missing:
        want = {"question": _QUESTION, "response": _RESPONSE}
        detail = "; ".join(f"{m} (one of: {', '.join(want[m])})" for m in missing)
        raise DatasetError(
            filename, f"no {' or '.join(missing)} column found; expected {detail}; "
                      f"columns seen: {', '.join(cols) or '(none)'}",
            column=missing[0],
        )
    d = pick("documents", _DOCUMENTS)
    gt_candidates = list(_GROUND_TRUTH)
    if r and r.lower() != "answer":
        gt_candidates.append("answer")  # {question, answer (gold), response (model)}
    gt = pick("ground_truth", gt_candidates)
    ident = pick("id", _ID)
    labels = tuple(
        c for c in cols
        if c not in taken and (c.lower() in LABEL_COLUMNS or c.lower().startswith(_LABEL_PREFIXES))
    )
    names = {c.lower() for c in (q, r, d) if c}
    if fixed:
        fmt = "custom"
    elif {"user_input", "response"} <= names:
        fmt = "ragas_v2"
    elif {"question", "answer"} <= names:
        fmt = "ragas_v1"
    elif {"query", "response"} <= names and (d is None or d.lower() == "retrieved_documents"):
        fmt = "batch"
    elif {"question", "response"} <= names and (d is None or d.lower() == "documents"):
        fmt = "ragbench"
    else:
        fmt = "custom"
    return ColumnMapping(question=q, response=r, documents=d, ground_truth=gt, id=ident,
                         label_columns=labels, format=fmt)


# ---------------------------------------------------------------------------------------------
# Rows -> TestCases
# ---------------------------------------------------------------------------------------------


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)) or _is_number(v):
        return "number"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, (list, tuple)) or hasattr(v, "tolist"):
        return "list"
    return type(v).__name__


def _is_number(v: Any) -> bool:
    try:
        import numpy as np

        return isinstance(v, np.number)
    except Exception:  # noqa: BLE001
        return False


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, (str, bytes, list, tuple, dict)) or hasattr(v, "__len__"):
        return False
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _py(v: Any) -> Any:
    """numpy / pandas values -> plain JSON-friendly Python."""
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        v = v.tolist()
    elif hasattr(v, "item") and not isinstance(v, (str, bytes)):
        try:
            v = v.item()
        except (ValueError, AttributeError):
            pass
    if isinstance(v, dict):
        return {str(k): _py(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_py(x) for x in v]
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, (pd.Timestamp,)):
        return v.isoformat()
    return v


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


def _short(v: Any, n: int = 60) -> str:
    s = repr(_py(v))
    return s if len(s) <= n else s[: n - 1] + "…"


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


def load_cases(path: str | Path, mapping: ColumnMapping | None = None,
               max_bytes: int | None = None) -> LoadResult:
    """Read, map and validate a file. Raises :class:`DatasetError` for file- or column-level
    problems; row-level problems are in ``LoadResult.errors``."""
    name = Path(path).name
    df = read_table(path, max_bytes=max_bytes)
    m = mapping or guess_mapping(list(df.columns), filename=name)
    return to_cases(df, m, name)


def cases_from_records(records: Sequence[Mapping[str, Any]], name: str = "records",
                       mapping: ColumnMapping | None = None) -> LoadResult:
    """Validate in-memory records (e.g. from an API) the same way as a file."""
    df = _frame([dict(r) for r in records])
    if len(df.columns) == 0:
        raise DatasetError(name, "no records")
    m = mapping or guess_mapping(list(df.columns), filename=name)
    return to_cases(df, m, name)
