"""Small validators for ``metric_params`` (errors name the metric and the parameter)."""

from __future__ import annotations

import math
from typing import Any, Mapping

from .base import MetricParamError


def _err(metric: str, key: str, msg: str) -> MetricParamError:
    return MetricParamError(f"metric {metric!r}: parameter {key!r} {msg}")


def as_int(metric: str, p: Mapping[str, Any], key: str, default: int | None, lo: int | None = None,
           odd: bool = False) -> int | None:
    v = p.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
        try:
            v = int(str(v).strip())
        except ValueError:
            raise _err(metric, key, f"must be an integer, got {v!r}") from None
    v = int(v)
    if lo is not None and v < lo:
        raise _err(metric, key, f"must be >= {lo}, got {v}")
    if odd and v % 2 == 0:
        raise _err(metric, key, f"must be odd (majority vote), got {v}")
    return v


def as_float(metric: str, p: Mapping[str, Any], key: str, default: float | None,
             lo: float | None = None, hi: float | None = None, lo_open: bool = False) -> float | None:
    v = p.get(key, default)
    if v is None:
        return None
    try:
        v = float(v)
    except (TypeError, ValueError):
        raise _err(metric, key, f"must be a number, got {v!r}") from None
    if not math.isfinite(v):
        raise _err(metric, key, "must be finite")
    if lo is not None and (v < lo or (lo_open and v == lo)):
        raise _err(metric, key, f"must be {'>' if lo_open else '>='} {lo}, got {v}")
    if hi is not None and v > hi:
        raise _err(metric, key, f"must be <= {hi}, got {v}")
    return v


def as_bool(metric: str, p: Mapping[str, Any], key: str, default: bool) -> bool:
    v = p.get(key, default)
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false", "1", "0", "yes", "no"):
        return v.strip().lower() in ("true", "1", "yes")
    if isinstance(v, int) and v in (0, 1):
        return bool(v)
    raise _err(metric, key, f"must be true or false, got {v!r}")


def as_str(metric: str, p: Mapping[str, Any], key: str, default: str | None,
           choices: tuple[str, ...] | None = None) -> str | None:
    v = p.get(key, default)
    if v is None:
        return None
    if not isinstance(v, str):
        raise _err(metric, key, f"must be a string, got {type(v).__name__}")
    if choices is not None and v not in choices:
        raise _err(metric, key, f"must be one of {', '.join(choices)}, got {v!r}")
    return v


def as_str_list(metric: str, p: Mapping[str, Any], key: str, default: list[str] | None) -> list[str] | None:
    v = p.get(key, default)
    if v is None:
        return None
    if isinstance(v, str):
        v = [x.strip() for x in v.split(",") if x.strip()]
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
        raise _err(metric, key, "must be a list of strings")
    return list(v)
