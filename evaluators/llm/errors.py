"""Exceptions of the LLM layer."""

from __future__ import annotations

from ..types import Usage


class LLMUnavailable(RuntimeError):
    """No usable LLM configuration (no provider/model, no key, no base URL)."""


class StructuredCallError(RuntimeError):
    """A call failed for good (after retries), or its reply never validated (after one re-ask).

    ``reason`` is a one-line, key-free explanation; ``usage`` what the failed attempts cost.
    """

    def __init__(self, reason: str, usage: Usage | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.usage = usage or Usage()
