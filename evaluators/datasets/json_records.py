"""JSON and JSONL files -> records (dicts), with per-record problems kept as errors."""

from __future__ import annotations

import json
from typing import Any

from .errors import DatasetError
from .values import _type_name

#: Keys under which a JSON object may hold its list of records (tried in this order).
_RECORD_KEYS = ("data", "test_cases", "cases", "records", "rows", "examples", "items", "samples")


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

