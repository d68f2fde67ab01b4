"""One app call as a case records it: what the target runner writes in a case's ``metadata``.

Contract: :func:`app_call` reads ``target``, ``latency_s`` (seconds), ``attempts``, ``usage`` (the
token counts the app reported: ``prompt_tokens`` / ``completion_tokens`` / ``total_tokens``, or
``input_tokens`` / ``output_tokens``) and ``error`` (None, or why the call failed after its retries)
from a case's metadata — at its top level (a case given as a dict) or under ``metadata["metadata"]``
(a file's ``metadata`` column, kept whole). A case without these fields (none of ``latency_s``,
``usage``, ``attempts``) has no app call: None, and nothing is shown for it. Values that
are not numbers are read as absent, never as an error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

#: The metadata keys the target runner writes. ``latency_s``, ``usage`` or ``attempts`` make a record;
#: ``error`` or ``target`` alone do not (a file may have columns of those names of its own).
KEYS: tuple[str, ...] = ("target", "latency_s", "attempts", "usage", "error")
_MARKS = ("latency_s", "usage", "attempts")


@dataclass(frozen=True)
class AppCall:
    """The app's side of one case (None where the record does not say)."""

    latency_s: float | None = None
    attempts: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    error: str | None = None
    target: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None


def _record(metadata: Mapping[str, Any]) -> Mapping[str, Any] | None:
    if any(k in metadata for k in _MARKS):
        return metadata
    inner = metadata.get("metadata")
    if isinstance(inner, Mapping) and any(k in inner for k in _MARKS):
        return inner
    return None


def _number(v: Any) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) and f >= 0 else None


def _count(v: Any) -> int | None:
    f = _number(v)
    return None if f is None else int(round(f))


def app_call(metadata: Mapping[str, Any] | None) -> AppCall | None:
    """The app call a case's ``metadata`` records (see the module docstring), or None."""
    rec = _record(metadata or {})
    if rec is None:
        return None
    raw = rec.get("usage")
    usage: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    prompt = _count(usage.get("prompt_tokens", usage.get("input_tokens")))
    completion = _count(usage.get("completion_tokens", usage.get("output_tokens")))
    total = _count(usage.get("total_tokens"))
    if total is None and (prompt is not None or completion is not None):
        total = (prompt or 0) + (completion or 0)
    err = rec.get("error")
    error = None if err is None or err is False or (isinstance(err, str) and not err.strip()) else str(err)
    target = rec.get("target")
    return AppCall(latency_s=_number(rec.get("latency_s")), attempts=_count(rec.get("attempts")),
                   prompt_tokens=prompt, completion_tokens=completion, total_tokens=total, error=error,
                   target=None if target is None else str(target))


__all__ = ["KEYS", "AppCall", "app_call"]
