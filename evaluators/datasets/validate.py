"""Rows -> TestCases: each row is checked field by field; a bad row becomes an error naming
file, row and column, and the other rows still load.

Text cells must be text (a number in the question column of a JSON file is an error, not silently
converted), at most ``MAX_TEXT_CHARS`` long and free of NUL characters. A cell nested deeper than
``MAX_DEPTH`` levels is refused. Ids: a duplicate or missing id does not lose the row: it is kept
under a unique id made from the original (``q1#2``) or from its row number (``row-7``), with a
warning in ``LoadResult.warnings`` naming both rows.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..answers.reference import NOTE_KEY, read_reference
from ..appcost import app_call
from ..turns import TRANSCRIPT_NOTE, HistoryError, read_history
from ..types import TestCase
from .errors import DatasetError
from .ids import IdRegistry, unique_ids
from .mapping import MAPPABLE_FIELDS, ColumnMapping
from .values import (
    MAX_DEPTH,
    is_missing,
    loads,
    nesting_depth,
    shorten,
    to_python,
    too_deep_to_parse,
    type_name,
)

if TYPE_CHECKING:
    from ..traces import TraceRead

#: Longest text accepted in one cell (question, response, one document, ground truth).
MAX_TEXT_CHARS = 1_000_000
#: The metadata key of a case whose history was read from a transcript (the note says so).
HISTORY_NOTE = "history_note"


@dataclass
class LoadResult:
    """Cases that loaded; ``errors``: rows that did not (each names file, row, column and why);
    ``warnings``: rows that loaded after a fix-up the user should know of (a renamed id);
    ``traces``: for a trace file, the traces read (``mapping`` is then None)."""

    cases: list[TestCase]
    errors: list[DatasetError] = field(default_factory=list)
    mapping: ColumnMapping | None = None
    warnings: list[DatasetError] = field(default_factory=list)
    #: For a trace file: what its traces gave (skipped traces and why, format, filter, previews).
    traces: TraceRead | None = None
    #: The file's row number of each case, in the order of ``cases`` (rows read by ``to_cases``).
    rows: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def error_dicts(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.errors]

    def warning_dicts(self) -> list[dict[str, Any]]:
        return [w.to_dict() for w in self.warnings]


class _RowError(Exception):
    def __init__(self, column: str | None, message: str):
        super().__init__(message)
        self.column = column
        self.message = message


def _text(v: Any, column: str, required: bool) -> str | None:
    if is_missing(v):
        if required:
            raise _RowError(column, "missing value")
        return None
    if not isinstance(v, str):
        raise _RowError(column, f"expected text, got a {type_name(v)} ({shorten(v)})")
    if not v.strip():
        if required:
            raise _RowError(column, "empty value")
        return None
    _check_text(v, column, "")
    return v


def _check_text(v: str, column: str, what: str) -> None:
    if len(v) > MAX_TEXT_CHARS:
        raise _RowError(column, f"{what}text is {len(v):,} characters long, over the limit of "
                                f"{MAX_TEXT_CHARS:,} per cell")
    if "\x00" in v:
        raise _RowError(column, f"{what}text contains a NUL character (\\x00) at position "
                                f"{v.index(chr(0))}; remove it")


def _doc_text(d: Any, column: str, i: int) -> str:
    if isinstance(d, str):
        _check_text(d, column, f"document {i + 1}: ")
        return d
    if isinstance(d, dict):  # {"title", "text"} / LangChain {"page_content"} / {"content"}
        for k in ("text", "page_content", "content", "document", "passage", "chunk", "body"):
            if isinstance(d.get(k), str):
                title = d.get("title")
                text = f"{title}\n{d[k]}" if isinstance(title, str) and title.strip() else d[k]
                _check_text(text, column, f"document {i + 1}: ")
                return text
        raise _RowError(column, f"document {i + 1} is an object without a text field "
                                f"(keys: {', '.join(map(str, d)) or 'none'})")
    raise _RowError(column, f"document {i + 1} is a {type_name(d)} ({shorten(d)}), expected text")


_NUMBER_LIST = re.compile(r"\[[\s\d.eE+,-]*\]")


def _looks_like_list(s: str) -> bool:
    """'["a", "b"]', "['a']", '[{"text": …}]', '[]', '[1, 2]' — but not a text that merely starts
    with a bracket ('[1] Paris is …', '[Note] …'): that is one document."""
    if not s.startswith("["):
        return False
    rest = s[1:].lstrip()
    return rest[:1] in ('"', "'", "[", "{", "]") or bool(_NUMBER_LIST.fullmatch(s))


def _documents(v: Any, column: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(texts, ids) of a documents cell; ids only where documents are objects with an id."""
    if is_missing(v):
        return (), ()
    v = to_python(v)
    if isinstance(v, str):
        s = v.strip()
        if not s:
            return (), ()
        if _looks_like_list(s):
            if too_deep_to_parse(s):
                raise _RowError(column, f"documents are nested too deeply (over {MAX_DEPTH} levels "
                                        "of lists)")
            try:
                v = loads(s)
            except RecursionError:
                raise _RowError(column, f"documents are nested too deeply (over {MAX_DEPTH} "
                                        "levels of lists)") from None
            except json.JSONDecodeError as exc:
                try:
                    v = ast.literal_eval(s)  # "['a', 'b']" as written by DataFrame.to_csv
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    raise _RowError(
                        column, f"looks like a JSON list but is not valid JSON ({exc.msg} at "
                                f"character {exc.pos}); give a JSON list of strings or plain text"
                    ) from None
            if not isinstance(v, list):
                raise _RowError(column, f"expected a list of documents, got a {type_name(v)}")
            if nesting_depth(v) > MAX_DEPTH:
                raise _RowError(column, f"documents are nested too deeply (over {MAX_DEPTH} levels "
                                        "of lists)")
        else:
            return (_doc_text(v, column, 0),), ()
    if isinstance(v, dict):
        return (_doc_text(v, column, 0),), _doc_ids([v], column)
    if not isinstance(v, (list, tuple)):
        raise _RowError(column, f"expected a list of documents or text, got a {type_name(v)} ({shorten(v)})")
    missing = [i + 1 for i, d in enumerate(v) if is_missing(d)]
    if missing:
        raise _RowError(column, f"document {missing[0]} is null; remove it or give its text")
    return tuple(_doc_text(d, column, i) for i, d in enumerate(v)), _doc_ids(v, column)


_DOC_ID_KEYS = ("id", "doc_id", "document_id", "passage_id", "chunk_id")


def _doc_ids(docs: Any, column: str) -> tuple[str, ...]:
    """The ids inside documents given as objects (``{"id", "text"}``): one per document, or none
    when no document has one; some with and some without is an error naming the first without."""
    ids: list[str | None] = []
    for d in docs:
        raw = next((d[k] for k in _DOC_ID_KEYS if isinstance(d, dict) and d.get(k) is not None), None)
        ids.append(None if raw is None else _ident(raw, column))
    if all(i is None for i in ids):
        return ()
    if any(i is None for i in ids):
        first = ids.index(None) + 1
        raise _RowError(column, f"document {first} has no id while others have one; give every document "
                                "an id or none")
    return tuple(i for i in ids if i is not None)


def _ground_truth(v: Any, column: str) -> tuple[str | None, str | None]:
    """(reference answer, note): a number, a list (ragas v1 "ground_truths"), an object or an empty
    cell is no row error but a note on the case (``evaluators.answers.read_reference``): the case is
    kept and scored, its answer metrics say the note."""
    v = to_python(v) if not isinstance(v, str) else v
    if is_missing(v) or (isinstance(v, str) and not v.strip()):  # an empty cell: the row has no reference
        return None, None
    if isinstance(v, list):
        v = [x for x in v if not is_missing(x)]
    text, note = read_reference(v)
    if text is not None:
        _check_text(text, column, "")
    return text, (f"column {column!r}: {note}" if note else None)


_BOOL_TEXT = {"true": True, "false": False, "yes": True, "no": False}


def _label_value(v: Any) -> Any:
    """CSV cells are text: 'true' -> True, '0.75' -> 0.75, '{"a": 1}' -> dict."""
    v = to_python(v)
    if not isinstance(v, str):
        return v
    s = v.strip()
    if s.lower() in _BOOL_TEXT:
        return _BOOL_TEXT[s.lower()]
    if re.fullmatch(r"[+-]?\d+", s):
        return int(s)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", s):
        return float(s)
    if s[:1] in "[{" and not too_deep_to_parse(s):
        try:
            parsed = loads(s)
        except (json.JSONDecodeError, RecursionError):
            return v
        return parsed if nesting_depth(parsed) <= MAX_DEPTH else v
    return v


def _ident(v: Any, column: str) -> str | None:
    """The id as text; None when the cell is empty (the row then gets an id from its number)."""
    v = to_python(v)
    if is_missing(v) or (isinstance(v, str) and not v.strip()):
        return None
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise _RowError(column, f"expected a text or integer id, got a {type_name(v)} ({shorten(v)})")
    if isinstance(v, float):
        if not v.is_integer():
            raise _RowError(column, f"expected a text or integer id, got {v!r}")
        v = int(v)
    s = str(v).strip()
    if len(s) > 1000 or "\x00" in s:
        raise _RowError(column, f"id is not a usable name ({shorten(s)}); give a short text or number")
    return s


def to_cases(df: pd.DataFrame, mapping: ColumnMapping, filename: str, ids: IdRegistry | None = None,
             require_response: bool = True) -> LoadResult:
    """Turn a DataFrame into TestCases; bad rows become errors (see module doc for row numbers).
    ``ids``: the ids of earlier chunks of the same file (a file read in pieces).
    ``require_response=False``: rows are questions an app is yet to answer (cases with an empty
    response; a response column, if mapped, may be empty).

    Raises :class:`DatasetError` when a mapped column is not in the frame or no question/response
    column is mapped.
    """
    name = filename
    cols = [str(c) for c in df.columns]
    for fld in ("question", "response") if require_response else ("question",):
        if not getattr(mapping, fld):
            raise DatasetError(name, f"no {fld} column mapped; columns: {', '.join(cols)}", column=fld)
    mapped = {f: getattr(mapping, f) for f in MAPPABLE_FIELDS}
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
    good: list[tuple[int, str | None, dict[str, Any]]] = []  # (row, id or None, TestCase fields)
    notes_seen: list[DatasetError] = []  # rows loaded with a part left out (a history cut to its last turns)
    for row_no, rec in zip(source_rows, df.to_dict("records")):
        try:
            ident, fields, row_errors = _check_row(rec, mapping, meta_cols, row_no, require_response)
        except Exception as exc:  # noqa: BLE001 - last resort: this row is flagged, the rest load
            problem = _RowError(None, f"could not read this row ({type(exc).__name__}: {exc})")
            ident, fields, row_errors = None, {}, [problem]
        errors.extend(DatasetError(name, e.message, row=row_no, column=e.column) for e in row_errors)
        notes_seen += [DatasetError(name, note, row=row_no, column=col) for col, note in fields.pop("_notes", ())]
        if not row_errors:
            good.append((row_no, ident, fields))
    cases, warnings = unique_ids(good, mapping.id, name, ids or IdRegistry())
    warnings = sorted([*warnings, *notes_seen], key=lambda w: w.row or 0)
    final: list[TestCase] = []
    kept: list[int] = []
    for row_no, fields in cases:
        try:
            final.append(TestCase(**fields))
            kept.append(row_no)
        except Exception as exc:  # noqa: BLE001 - e.g. a value pydantic rejects
            errors.append(DatasetError(name, f"invalid record: {exc}", row=row_no))
    errors.sort(key=lambda e: (e.row if e.row is not None else 0))
    return LoadResult(cases=final, errors=errors, mapping=mapping, warnings=warnings, rows=kept)


def _check_row(rec: dict[str, Any], mapping: ColumnMapping, meta_cols: list[str], row_no: int,
               require_response: bool = True) -> tuple[str | None, dict[str, Any], list[_RowError]]:
    """(id or None when missing, TestCase fields, problems) of one row. A ``metadata`` column
    holding an object is the case's metadata (the other columns added to it). A row whose
    metadata names the app's ``error`` (a question the app did not answer, written by ``run``) may
    have an empty response: the case is kept and flagged with that error when evaluated."""
    deep = [_RowError(c, f"value is nested too deeply (over {MAX_DEPTH} levels of lists / objects)")
            for c, v in rec.items() if not isinstance(v, str) and nesting_depth(v) > MAX_DEPTH]
    if deep:
        return None, {}, deep
    row_errors: list[_RowError] = []

    def field_(fn, col, *args):
        try:
            return fn(rec[col], col, *args)
        except _RowError as exc:
            row_errors.append(exc)
            return None

    question = field_(_text, mapping.question, True)
    # a question the app failed to answer (the target runner's metadata.error) is a case, not a bad row
    own_meta = to_python(rec.get("metadata")) if "metadata" in meta_cols else None
    own_meta = _label_value(own_meta) if isinstance(own_meta, str) else own_meta
    failed = app_call({**(own_meta if isinstance(own_meta, dict) else {}),
                       **{c: to_python(rec[c]) for c in meta_cols if not is_missing(rec[c])}})
    need = require_response and (failed is None or not failed.failed)
    response = (field_(_text, mapping.response, need) if mapping.response else None) or ""
    docs, doc_ids = field_(_documents, mapping.documents) or ((), ()) if mapping.documents else ((), ())
    gt, gt_note = (None, None)
    if mapping.ground_truth:
        gt, gt_note = field_(_ground_truth, mapping.ground_truth) or (None, None)
    ident = field_(_ident, mapping.id) if mapping.id else str(row_no)
    labels: dict[str, Any] = {}
    for col in mapping.label_columns:
        v = rec[col]
        if is_missing(v) or (isinstance(v, str) and not v.strip()):
            continue
        v = _label_value(v)
        if col.lower() == "labels":
            if not isinstance(v, dict):
                row_errors.append(_RowError(col, f"expected an object of labels, got {shorten(v)}"))
                continue
            labels.update(v)
        else:
            labels[col] = v
    metadata = {c: to_python(rec[c]) for c in meta_cols if c != "metadata" or not isinstance(own_meta, dict)
                if not is_missing(rec[c]) and not (isinstance(rec[c], str) and not rec[c].strip())}
    if isinstance(own_meta, dict):
        metadata = {**own_meta, **metadata}
    if gt_note:
        metadata[NOTE_KEY] = gt_note
    fields = dict(question=question, response=response, documents=docs or (), ground_truth=gt,
                  labels=labels, metadata=metadata)
    fields.update(_optional_fields(rec, mapping, doc_ids, len(docs or ()), row_errors))
    if "_history_note" in fields:
        fields["metadata"] = {**fields["metadata"], HISTORY_NOTE: fields.pop("_history_note")}
    return ident, fields, row_errors


def _optional_fields(rec: dict[str, Any], mapping: ColumnMapping, doc_ids: tuple[str, ...], n_docs: int,
                     row_errors: list[_RowError]) -> dict[str, Any]:
    """The conversation and retrieval-reference fields of one row (``mapping.OPTIONAL_COLUMNS``);
    a bad value is a row error naming its column."""
    out: dict[str, Any] = {}

    def read(fld: str, fn) -> None:
        col = getattr(mapping, fld)
        if col is None or is_missing(v := to_python(rec[col])) or (isinstance(v, str) and not v.strip()):
            return
        try:
            value = fn(v, col)
        except _RowError as exc:
            row_errors.append(exc)
            return
        except HistoryError as exc:
            row_errors.append(_RowError(col, str(exc)))
            return
        if value not in (None, (), {}) or (fld == "reference_tool_calls" and value == ()):
            out[fld] = value

    def history(v: Any, col: str) -> Any:
        turns, notes = read_history(v)
        if notes:
            out["_notes"] = [(col, n) for n in notes]
        read_as = [n for n in notes if n.startswith(TRANSCRIPT_NOTE)]
        if read_as:  # said on the case too (metadata.history_note: Inspect, the results file)
            out["_history_note"] = f"{read_as[0]} (column {col})"
        return turns

    read("history", history)
    read("conversation_id", _ident)
    read("document_ids", lambda v, col: _id_list(v, col, "document ids"))
    read("reference_context_ids", lambda v, col: _id_list(v, col, "reference context ids"))
    read("reference_context_relevance", _grades)
    read("reference_contexts", _text_list)
    read("tool_calls", _tool_calls)
    read("reference_tool_calls", _tool_calls)
    if "document_ids" in out:
        if doc_ids and tuple(out["document_ids"]) != doc_ids:
            row_errors.append(_RowError(mapping.document_ids, "document ids differ from the ids inside the "
                                                               "documents; give them in one place"))
        elif len(out["document_ids"]) != n_docs:
            row_errors.append(_RowError(mapping.document_ids, f"{len(out['document_ids'])} document ids for "
                                                               f"{n_docs} documents; give one id per document"))
    elif doc_ids:
        out["document_ids"] = doc_ids
    return out


def _tool_calls(v: Any, column: str) -> Any:
    """Tool calls in any shape (``evaluators.toolcalls.read_calls``); a bad one names its item."""
    from ..toolcalls import ToolCallError, read_calls

    try:
        return read_calls(v, "tool calls")
    except ToolCallError as exc:
        raise _RowError(column, str(exc)) from None


def _listish(v: Any, column: str, what: str) -> list[Any]:
    if isinstance(v, str):
        s = v.strip()
        if _looks_like_list(s):
            try:
                v = loads(s)
            except (json.JSONDecodeError, RecursionError):
                raise _RowError(column, f"{what} look like a JSON list but are not valid JSON") from None
        else:
            return [x.strip() for x in s.split(",") if x.strip()] if what.endswith("ids") else [s]
    if isinstance(v, (list, tuple)):
        return list(v)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and what.endswith("ids"):
        return [v]
    raise _RowError(column, f"expected a list of {what}, got a {type_name(v)} ({shorten(v)})")


def _id_list(v: Any, column: str, what: str) -> tuple[str, ...]:
    out = []
    for i, x in enumerate(_listish(v, column, what), start=1):
        ident = _ident(x, column) if not isinstance(x, (list, dict)) else None
        if ident is None:
            raise _RowError(column, f"{what}: item {i} is not an id ({shorten(x)})")
        out.append(ident)
    return tuple(out)


def _text_list(v: Any, column: str) -> tuple[str, ...]:
    out = []
    for i, x in enumerate(_listish(v, column, "reference contexts"), start=1):
        if isinstance(x, dict):
            x = next((x[k] for k in ("text", "page_content", "content") if isinstance(x.get(k), str)), None)
        if not isinstance(x, str) or not x.strip():
            raise _RowError(column, f"reference context {i} is not text ({shorten(x)})")
        _check_text(x, column, f"reference context {i}: ")
        out.append(x)
    return tuple(out)


def _grades(v: Any, column: str) -> dict[str, int]:
    """{id: grade} from an object, or from a list of ``{id, grade|relevance|score}``."""
    if isinstance(v, str):
        v = _label_value(v)
    if isinstance(v, list):
        pairs = {}
        for i, item in enumerate(v, start=1):
            if not isinstance(item, dict) or "id" not in item:
                raise _RowError(column, f"judgment {i} is not an object with an id ({shorten(item)})")
            grade = next((item[k] for k in ("grade", "relevance", "score", "label") if k in item), 1)
            pairs[item["id"]] = grade
        v = pairs
    if not isinstance(v, dict):
        raise _RowError(column, f"expected an object {{passage id: grade}}, got a {type_name(v)} ({shorten(v)})")
    out: dict[str, int] = {}
    for k, g in v.items():
        if isinstance(g, bool) or not isinstance(g, (int, float)) or g != g or g < 0 or float(g) != int(g):
            raise _RowError(column, f"grade of {k!r} is {shorten(g)}; grades are whole numbers ≥ 0 "
                                    "(0 not relevant, 1 relevant, higher more relevant)")
        out[str(k)] = int(g)
    return out
