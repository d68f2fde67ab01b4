"""The one set of text -> bool / float converters (human labels, metric parameters, replies).

* :func:`text_bool` — ``"yes"/"no"``-style text (``true/false``, ``y/n``, ``t/f``, ``1/0``) or None;
* :func:`as_bool` — bools, 0/1 numbers and such text, or None;
* :func:`as_float` — a finite float from a number, bool or numeric text, or None.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

TRUE_TEXT = frozenset({"true", "yes", "y", "1", "t"})
FALSE_TEXT = frozenset({"false", "no", "n", "0", "f"})


def text_bool(s: str) -> bool | None:
    t = s.strip().lower()
    if t in TRUE_TEXT:
        return True
    if t in FALSE_TEXT:
        return False
    return None


def as_bool(v: Any) -> bool | None:
    """True/False for a bool, a 0/1 integer or float, or yes/no text; None for anything else."""
    if isinstance(v, bool):
        return v
    if isinstance(v, Integral) and v in (0, 1):
        return bool(v)
    if isinstance(v, float) and v in (0.0, 1.0):
        return bool(v)
    if isinstance(v, str):
        return text_bool(v)
    return None


def as_float(v: Any) -> float | None:
    """A finite float from a bool, a number (numpy included) or numeric text; None otherwise."""
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, Real):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


__all__ = ["FALSE_TEXT", "TRUE_TEXT", "as_bool", "as_float", "text_bool"]
