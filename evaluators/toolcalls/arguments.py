"""Tool-call arguments compared as a person means them: ``{"order_id": 1042}`` and
``{"order_id": "1042"}`` are the same call, and so are ``{"date": "2024-05-03"}`` and
``{"date": "May 3, 2024"}``.

Contract: :func:`normalize` maps a value to a canonical form — a number (an ``int`` / ``float``, or a
text that is exactly a number, ``"1,042.50"`` included) to a float; a text that is a calendar date or
a date-time (ISO 8601, ``May 3, 2024``, ``3 May 2024``, ``2024/05/03``; a date-time to UTC) to
``date:YYYY-MM-DD`` / ``datetime:…``; ``"true"`` / ``"false"`` to a bool; any other text stripped,
its white space collapsed and case-folded; objects and lists element by element. Day-first and
month-first numeric dates (``03/05/2024``) are ambiguous and are left as text. :func:`same` says two
values are the same after normalisation; :func:`exact` two argument objects are; :func:`by_key` the
share of keys (over both objects' keys, DeepEval's rule) whose values are the same. Pure: imports
nothing of the project.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, timezone
from typing import Any, Mapping

_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?([eE][+-]?\d+)?$|^[+-]?\.\d+$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
_YMD_SLASH = re.compile(r"^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WORDY_DATE = re.compile(r"^(?=.*\b\d{4}\b)(?=.*\b(" + "|".join(_MONTHS) + r")[a-z]*\.?\b)[\w ,.\-/]+$", re.I)
_SPACES = re.compile(r"\s+")


def _date_text(s: str) -> str | None:
    """``date:YYYY-MM-DD`` / ``datetime:…`` of a text that is a date, else None."""
    try:
        if _ISO_DATE.match(s):
            return "date:" + date.fromisoformat(s).isoformat()
        if _ISO_TIME.match(s):
            dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
            dt = dt.astimezone(timezone.utc) if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
            if (dt.hour, dt.minute, dt.second, dt.microsecond) == (0, 0, 0, 0):
                return "date:" + dt.date().isoformat()
            return "datetime:" + dt.isoformat()
        m = _YMD_SLASH.match(s)
        if m:
            return "date:" + date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
        if _WORDY_DATE.match(s) and len(s) <= 40:
            from dateutil import parser  # pandas' own dependency

            dt = parser.parse(s, fuzzy=False, default=datetime(1900, 1, 1))
            if dt.year == 1900:
                return None
            if (dt.hour, dt.minute, dt.second) == (0, 0, 0):
                return "date:" + dt.date().isoformat()
            return "datetime:" + dt.replace(tzinfo=dt.tzinfo or timezone.utc).astimezone(timezone.utc).isoformat()
    except (ValueError, OverflowError):
        return None
    return None


def normalize(v: Any) -> Any:
    """The canonical form of one argument value (see the module docstring)."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        f = float(v)
        return f if math.isfinite(f) else str(f)
    if isinstance(v, str):
        s = v.strip()
        if _NUMBER.match(s):
            return float(s.replace(",", ""))
        low = s.lower()
        if low in ("true", "false"):
            return low == "true"
        if any(c.isdigit() for c in s):
            d = _date_text(s)
            if d is not None:
                return d
        return _SPACES.sub(" ", s).casefold()
    if isinstance(v, Mapping):
        return {str(k): normalize(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [normalize(x) for x in v]
    return normalize(str(v))


def same(a: Any, b: Any) -> bool:
    """The two values are the same after normalisation."""
    return normalize(a) == normalize(b)


def exact(ref: Mapping[str, Any], got: Mapping[str, Any]) -> bool:
    """The two argument objects are the same after normalisation (same keys, same values)."""
    return normalize(dict(ref)) == normalize(dict(got))


def by_key(ref: Mapping[str, Any], got: Mapping[str, Any]) -> float:
    """Share of the keys of either object whose values are the same in both (1.0 for two empty
    objects); a nested object scores its own share. DeepEval's ``_compare_dicts``, on normalised values."""
    a, b = normalize(dict(ref)), normalize(dict(got))
    return _share(a, b)


def _share(a: dict[str, Any], b: dict[str, Any]) -> float:
    if a == b:
        return 1.0
    keys = set(a) | set(b)
    score = 0.0
    for k in set(a) & set(b):
        if a[k] == b[k]:
            score += 1.0
        elif isinstance(a[k], dict) and isinstance(b[k], dict):
            score += _share(a[k], b[k])
    return score / len(keys)


def key_text(args: Mapping[str, Any]) -> str:
    """A stable text of normalised arguments (for sets, sorting and messages)."""
    import json

    return json.dumps(normalize(dict(args)), sort_keys=True, ensure_ascii=False, default=str)


__all__ = ["by_key", "exact", "key_text", "normalize", "same"]
