"""Owner settings of a deployment (a public Hugging Face Space, say): LLM spending limits, history
privacy and retention. Read like the keys (:func:`evaluators.llm.settings.owner_setting`: Streamlit
secrets first, then the environment).

=============================  =========  ==========================================================
setting                        default    meaning
=============================  =========  ==========================================================
``RAG_EVAL_MAX_LLM_CASES``     200        most cases in one LLM run (0 = no limit)
``RAG_EVAL_MAX_LLM_CALLS``     1000       billed LLM calls per visitor (history token) and server
                                          process (0 = no limit)
``RAG_EVAL_SHARED_HISTORY``    off        1 = one run history for every visitor (a private
                                          deployment); off = each visitor sees only their own runs
``RAG_EVAL_KEEP_DAYS``         30         runs untouched for longer are deleted when the app starts,
                                          then hourly (0 = keep forever)
=============================  =========  ==========================================================

The LLM limits protect the owner's key and server: they apply to runs on the owner's credentials
(a key from the environment / secrets, or the owner's ``RAG_EVAL_BASE_URL``), not to runs where a
visitor typed their own key or their own server.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .llm.settings import Credentials, owner_setting

MAX_LLM_CASES_ENV = "RAG_EVAL_MAX_LLM_CASES"
MAX_LLM_CALLS_ENV = "RAG_EVAL_MAX_LLM_CALLS"
SHARED_HISTORY_ENV = "RAG_EVAL_SHARED_HISTORY"
KEEP_DAYS_ENV = "RAG_EVAL_KEEP_DAYS"

DEFAULT_MAX_LLM_CASES = 200
DEFAULT_MAX_LLM_CALLS = 1000
DEFAULT_KEEP_DAYS = 30.0

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class Limits:
    """The owner's settings. ``None`` limit = unlimited."""

    max_llm_cases: int | None = DEFAULT_MAX_LLM_CASES
    max_llm_calls: int | None = DEFAULT_MAX_LLM_CALLS
    shared_history: bool = False
    keep_days: float | None = DEFAULT_KEEP_DAYS
    #: Settings that could not be read (the default was used instead), one message each.
    problems: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None,
             secrets: Mapping[str, object] | None = None) -> "Limits":
        problems: list[str] = []

        def number(name: str, default: float, kind: type) -> Any:  # kind(raw): int or float
            raw = owner_setting(name, environ, secrets)
            if raw is None:
                return default
            try:
                v = kind(raw)
                if v < 0:
                    raise ValueError
            except ValueError:
                what = "a whole number" if kind is int else "a number"
                problems.append(f"{name} must be {what} >= 0 (0 = no limit), not {raw!r}; "
                                f"using {default:g}")
                return default
            return v or None

        raw_shared = (owner_setting(SHARED_HISTORY_ENV, environ, secrets) or "").lower()
        if raw_shared not in _TRUE | _FALSE:
            problems.append(f"{SHARED_HISTORY_ENV} must be 1 or 0, not {raw_shared!r}; "
                            "history stays private")
        return cls(max_llm_cases=number(MAX_LLM_CASES_ENV, DEFAULT_MAX_LLM_CASES, int),
                   max_llm_calls=number(MAX_LLM_CALLS_ENV, DEFAULT_MAX_LLM_CALLS, int),
                   shared_history=raw_shared in _TRUE,
                   keep_days=number(KEEP_DAYS_ENV, DEFAULT_KEEP_DAYS, float),
                   problems=tuple(problems))

    def calls_left(self, used: int) -> int | None:
        return None if self.max_llm_calls is None else max(0, self.max_llm_calls - used)

    def check_llm_run(self, *, cases: int, calls: int, used: int) -> str | None:
        """Why an LLM run of ``cases`` cases needing about ``calls`` billed calls is refused, after
        ``used`` billed calls of this visitor; None when it may go."""
        if self.max_llm_cases is not None and cases > self.max_llm_cases:
            return (f"This run has {cases:,} cases; this deployment allows at most "
                    f"{self.max_llm_cases:,} cases per LLM run (owner setting {MAX_LLM_CASES_ENV}). "
                    "Evaluate fewer cases at a time, use your own API key, or the offline TRACE method.")
        left = self.calls_left(used)
        if left is not None and calls > left:
            return (f"This run needs about {calls:,} LLM calls, but only {left:,} of "
                    f"{self.max_llm_calls:,} are left for you on this deployment (owner setting "
                    f"{MAX_LLM_CALLS_ENV}). Evaluate fewer cases, use your own API key, or the "
                    "offline TRACE method.")
        return None


def owner_pays(creds: Credentials | None) -> bool:
    """Whether a run on these credentials spends the owner's key or server (limits apply): False
    only when the visitor typed their own key, or their own base URL."""
    if creds is None:
        return False
    return not (creds.key_source == "password field" or creds.url_source == "typed")


class CallLedger:
    """Billed LLM calls per visitor (history token) in this server process. Thread-safe."""

    def __init__(self) -> None:
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    def used(self, owner: str) -> int:
        with self._lock:
            return self._used.get(owner, 0)

    def add(self, owner: str, calls: int) -> int:
        with self._lock:
            self._used[owner] = self._used.get(owner, 0) + int(calls)
            return self._used[owner]


__all__ = ["CallLedger", "KEEP_DAYS_ENV", "Limits", "MAX_LLM_CALLS_ENV", "MAX_LLM_CASES_ENV",
           "SHARED_HISTORY_ENV", "owner_pays"]
