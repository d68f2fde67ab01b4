"""The LLM layer: providers, retries, rate limits, cache, cost. Nothing else calls an SDK.

Importing this package is cheap: SDKs (openai, groq), aiolimiter and tenacity load on first use.

    from evaluators.llm import LLMClient, StructuredCallError, LLMUnavailable
    client = get_client(settings)          # or LLMClient(settings)
    res = await client.structured(messages, Schema, validate=...)   # StructuredResult
    text, usage = await client.complete(messages, json_mode=True)
    results = client.run_all([lambda: client.structured(...), ...])  # bounded concurrency
"""

from __future__ import annotations

from typing import Any

from .errors import LLMUnavailable, StructuredCallError
from .estimate import estimate_cost
from .settings import LLMSettings, Provider

__all__ = [
    "LLMClient", "LLMSettings", "LLMUnavailable", "Provider", "StructuredCallError",
    "StructuredResult", "check_settings", "close_clients", "estimate_cost", "get_client",
    "resolve_api_key",
]

_LAZY = {"LLMClient", "StructuredResult", "check_settings", "close_clients", "get_client",
         "resolve_api_key"}


def __getattr__(name: str) -> Any:  # lazy: client.py pulls pydantic-only code, SDKs load later
    if name in _LAZY:
        from . import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
