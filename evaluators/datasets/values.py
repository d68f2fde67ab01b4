"""Value helpers shared by the readers and the row validation (type names, missing values,
numpy/pandas values to plain Python, nesting depth)."""

from __future__ import annotations

import json
import math
import re
import reprlib
from typing import Any

import pandas as pd

#: Deepest nesting of lists / objects accepted in one cell (a record's own level not counted).
#: Real data needs a handful of levels; deeper values are refused with a clear error instead of
#: overflowing a recursion limit further down (Python's in export / JSON, Arrow's 64 levels in
#: the dashboard's tables).
MAX_DEPTH = 32

def type_name(v: Any) -> str:
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


def is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, (str, bytes, list, tuple, dict)) or hasattr(v, "__len__"):
        return False
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


_PLAIN = (str, int, bool, type(None))


def to_python(v: Any) -> Any:
    """numpy / pandas values -> plain JSON-friendly Python."""
    if type(v) in _PLAIN:  # the common leaves, answered without attribute probing
        return v
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        v = v.tolist()
    elif hasattr(v, "item") and not isinstance(v, (str, bytes)):
        try:
            v = v.item()
        except (ValueError, AttributeError):
            pass
    if isinstance(v, dict):
        return {str(k): x if type(x) in _PLAIN else to_python(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [x if type(x) in _PLAIN else to_python(x) for x in v]
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, (pd.Timestamp,)):
        return v.isoformat()
    return v


def shorten(v: Any, n: int = 60) -> str:
    try:
        s = repr(to_python(v))
    except RecursionError:  # a value nested too deeply for to_python: a bounded repr instead
        s = reprlib.repr(v)
    return s if len(s) <= n else s[: n - 1] + "…"


def _children(v: Any) -> Any:
    if type(v) in _PLAIN:
        return None
    if isinstance(v, dict):
        return v.values()
    if isinstance(v, (list, tuple)):
        return v
    if getattr(v, "ndim", 0) and hasattr(v, "tolist"):  # numpy arrays (Parquet list columns)
        return list(v)
    return None


def nesting_depth(v: Any, limit: int = MAX_DEPTH) -> int:
    """Levels of lists / objects in ``v`` (0 for a scalar), counted without recursion and
    stopping once past ``limit`` (so the answer is at most ``limit + 1``)."""
    deepest = 0
    stack = [(v, 1)]
    while stack:
        x, d = stack.pop()
        kids = _children(x)
        if kids is None:
            continue
        deepest = max(deepest, d)
        if d > limit:
            return d
        stack.extend((k, d + 1) for k in kids if type(k) not in _PLAIN)  # leaves add no level
    return deepest


#: JSON as written by people: raw tabs / newlines inside strings are accepted (strict=False).
loads = json.JSONDecoder(strict=False).decode


#: Values deeper than this are flagged without parsing them: json would only hit the recursion
#: limit, and raising that RecursionError costs about a millisecond each time.
PARSE_DEPTH = 200
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
SCAN_CHUNK_CHARS = 1 << 22


def json_skeleton(text: str):
    """The text as uint8 codes with strings blanked out (same length, so positions hold); outside
    strings valid JSON is ASCII."""
    import numpy as np

    return np.frombuffer(_STRING.sub(lambda m: " " * len(m.group()), text).encode("ascii", "replace"),
                         dtype=np.uint8)


def bracket_depths(chunk, carry: int):
    """Bracket depth after each character of a chunk of the skeleton."""
    import numpy as np

    delta = (chunk == 91).astype(np.int32) + (chunk == 123) - (chunk == 93) - (chunk == 125)
    return carry + np.cumsum(delta)  # [ { ] }


def too_deep_to_parse(text: str) -> bool:
    """True when a JSON text nests lists / objects deeper than ``PARSE_DEPTH``, found without
    parsing it (so without recursion): a count of brackets first, and only when there are many,
    the bracket depth with numpy."""
    if text.count("[") + text.count("{") <= PARSE_DEPTH:
        return False
    raw, carry = json_skeleton(text), 0
    for off in range(0, len(raw), SCAN_CHUNK_CHARS):
        depth = bracket_depths(raw[off:off + SCAN_CHUNK_CHARS], carry)
        if int(depth.max()) > PARSE_DEPTH:
            return True
        carry = int(depth[-1])
    return False
