"""JSON and JSONL files -> records (dicts), with per-record problems kept as errors.

JSON: a list of records, an object holding one list of records (under "data", "test_cases", … or
its only list of objects), an object of equal-length column lists, or one record on its own.
Nesting deeper than the interpreter can parse does not crash: in a top-level list, each record is
parsed on its own so only the too-deep ones are flagged. JSONL: one object per line; a line that
cannot be read is flagged with its line number and the other lines still load. Raw control
characters (tabs, newlines) inside strings are accepted.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import DatasetError
from .mapping import guess_mapping
from .values import (
    MAX_DEPTH,
    PARSE_DEPTH,
    SCAN_CHUNK_CHARS,
    bracket_depths,
    json_skeleton,
    loads,
    too_deep_to_parse,
    type_name,
)

#: Keys under which a JSON object may hold its list of records (tried in this order).
_RECORD_KEYS = ("data", "test_cases", "cases", "records", "rows", "examples", "items", "samples")
_TOO_DEEP = f"nested too deeply (over {MAX_DEPTH} levels of lists / objects)"
Records = tuple[list[dict], list[int], list[DatasetError]]


def _malformed(name: str, text: str, exc: json.JSONDecodeError, offset: int = 0) -> DatasetError:
    pos = offset + exc.pos
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    hint = ""
    if "Extra data" in exc.msg:
        hint = " (one JSON object per line? name the file .jsonl)"
    elif pos >= len(text.rstrip()):
        hint = " (the file ends before the JSON is complete: truncated?)"
    return DatasetError(name, f"malformed JSON at line {line}, column {col}: {exc.msg}{hint}")


def parse_json_records(text: str, name: str) -> Records:
    try:
        obj = loads(text)
    except json.JSONDecodeError as exc:
        raise _malformed(name, text, exc) from None
    except RecursionError:
        return _deep_list_records(text, name)
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
            errors.append(DatasetError(name, f"record is a {type_name(rec)}, expected an object", row=i))
    return records, rows, errors


def _split_top_list(text: str) -> list[tuple[int, int, int]] | None:
    """(start, end, depth) of each element of a top-level JSON list (None if the text is not
    one), found without parsing them: strings are blanked out, then the bracket depth is a
    cumulative sum (numpy, in chunks), so even 50 MB of brackets take seconds, not minutes.
    ``depth`` counts the levels of lists / objects of the element (a flat record: 1)."""
    import numpy as np

    i = len(text) - len(text.lstrip())
    if not text.startswith("[", i):
        return None
    raw = json_skeleton(text)
    spans: list[tuple[int, int, int]] = []
    start, carry, deepest = i + 1, 0, 1
    for off in range(i, len(raw), SCAN_CHUNK_CHARS):
        chunk = raw[off:off + SCAN_CHUNK_CHARS]
        depth = bracket_depths(chunk, carry)
        carry = int(depth[-1])
        closed = np.flatnonzero(depth <= 0)
        end = int(closed[0]) if len(closed) else len(chunk)  # relative; len = not in this chunk
        cuts = np.flatnonzero((chunk[:end] == 44) & (depth[:end] == 1))  # "," between elements
        if end < len(chunk):
            cuts = np.append(cuts, end)
        seg = np.concatenate(([0], cuts + 1))
        seg = seg[seg < len(chunk)]
        maxes = np.maximum.reduceat(depth, seg).tolist()  # deepest point of each piece
        for k, c in enumerate(cuts.tolist()):  # maxes[k]: the piece that ends at cut k
            deepest = max(deepest, maxes[k])
            if not (c == end and not spans and not text[start:off + c].strip()):  # not "[]"
                spans.append((start, off + c, deepest - 1))
            start, deepest = off + c + 1, 1
        if end < len(chunk):
            return spans if not text[off + end + 1:].strip() else None
        if len(maxes) > len(cuts):
            deepest = max(deepest, maxes[len(cuts)])
    return None  # never closed




def _deep_list_records(text: str, name: str) -> Records:
    spans = _split_top_list(text)
    if spans is None:
        raise DatasetError(name, f"JSON is {_TOO_DEEP}; records should be flat objects")
    records, rows, errors = [], [], []
    for i, (a, b, depth) in enumerate(spans, start=1):
        if depth > PARSE_DEPTH:
            errors.append(DatasetError(name, f"record is {_TOO_DEEP}", row=i))
            continue
        try:
            rec = loads(text[a:b])
        except RecursionError:
            errors.append(DatasetError(name, f"record is {_TOO_DEEP}", row=i))
            continue
        except json.JSONDecodeError as exc:
            raise _malformed(name, text, exc, offset=a) from None
        if isinstance(rec, dict):
            records.append(rec)
            rows.append(i)
        else:
            errors.append(DatasetError(name, f"record is a {type_name(rec)}, expected an object", row=i))
    return records, rows, errors


def _is_one_record(obj: dict[str, Any]) -> bool:
    """{"question": "…", "response": "…", …} on its own (not column lists)."""
    try:
        m = guess_mapping(list(obj))
    except DatasetError:
        return False
    return m.question is not None and not isinstance(obj.get(m.question), list)


def _records_in_object(obj: dict[str, Any], name: str) -> list[Any]:
    lists = {k: v for k, v in obj.items() if isinstance(v, list)}
    for k in _RECORD_KEYS:
        if k in lists:
            return lists[k]
    if _is_one_record(obj):
        return [obj]
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


def _lines(text: str) -> list[str]:
    # Not str.splitlines(): it also splits at U+2028, U+0085 … which JSON allows inside strings.
    sep = "\n" if "\n" in text or "\r" not in text else "\r"
    return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split(sep)]


def parse_jsonl_line(line: str, lineno: int, name: str) -> dict | DatasetError | None:
    """One line of a JSONL file: its record, the error naming the line, or None (a blank line)."""
    if not line.strip():
        return None
    if too_deep_to_parse(line):
        return DatasetError(name, f"line is {_TOO_DEEP}", row=lineno)
    try:
        rec = loads(line)
    except json.JSONDecodeError as exc:
        return DatasetError(name, f"malformed JSON line (column {exc.colno}: {exc.msg})", row=lineno)
    except RecursionError:
        return DatasetError(name, f"line is {_TOO_DEEP}", row=lineno)
    if not isinstance(rec, dict):
        return DatasetError(name, f"line holds a {type_name(rec)}, expected an object", row=lineno)
    return rec


def parse_jsonl_records(text: str, name: str) -> Records:
    records, rows, errors = [], [], []
    for lineno, line in enumerate(_lines(text), start=1):
        got = parse_jsonl_line(line, lineno, name)
        if isinstance(got, DatasetError):
            errors.append(got)
        elif got is not None:
            records.append(got)
            rows.append(lineno)
    if not records and len(errors) > 1 and _is_one_document(text):
        raise DatasetError(name, "the file is one JSON document over several lines, not one object "
                                 "per line; name it .json")
    return records, rows, errors


def _is_one_document(text: str) -> bool:
    try:
        loads(text)
    except (ValueError, RecursionError):
        return False
    return True
