"""Which failed requests are retried, and how long the server asked us to wait."""

from __future__ import annotations

import asyncio
import email.utils
import random
import time

_RETRY_STATUS = frozenset({408, 409, 425, 429})
#: A Retry-After longer than this (a daily quota, say) fails the call at once with the reason,
#: instead of stalling the run for hours.
MAX_RETRY_AFTER_S = 120.0


def class_names(exc: BaseException) -> set[str]:
    return {c.__name__ for c in type(exc).__mro__}


def status_code(exc: BaseException) -> int | None:
    s = getattr(exc, "status_code", None)
    return s if isinstance(s, int) else None


def is_retryable(exc: BaseException) -> bool:
    s = status_code(exc)
    if s is not None:
        return s in _RETRY_STATUS or s >= 500
    return bool(class_names(exc) & {"APIConnectionError", "APITimeoutError"}) or isinstance(
        exc, (asyncio.TimeoutError, ConnectionError)
    )


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (Retry-After / retry-after-ms), if it said."""
    resp = getattr(exc, "response", None)
    headers = getattr(resp, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        return max(0.0, float(ra))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(ra)
            return max(0.0, when.timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def should_retry(exc: BaseException) -> bool:
    """Retryable, and the server did not ask for a wait longer than :data:`MAX_RETRY_AFTER_S`."""
    if not is_retryable(exc):
        return False
    ra = retry_after_s(exc)
    return ra is None or ra <= MAX_RETRY_AFTER_S


def wait_s(attempt: int, exc: BaseException | None, base_s: float, max_s: float) -> float:
    """Seconds before attempt ``attempt + 1``: the server's Retry-After (capped), else exponential
    backoff with jitter."""
    ra = retry_after_s(exc) if exc is not None else None
    if ra is not None:
        return min(ra, MAX_RETRY_AFTER_S) + random.uniform(0.0, 0.05)
    b = min(max_s, base_s * (2 ** max(0, attempt - 1)))
    return b / 2 + random.uniform(0.0, b / 2)
