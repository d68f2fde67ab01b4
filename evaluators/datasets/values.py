"""Value helpers shared by the readers and the row validation (type names, missing values,
numpy/pandas values to plain Python)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd


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



def _short(v: Any, n: int = 60) -> str:
    s = repr(_py(v))
    return s if len(s) <= n else s[: n - 1] + "…"

