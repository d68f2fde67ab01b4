"""The LLM layer: providers, retries, rate limits, cache, cost. Nothing else calls an SDK.

Modules: ``client`` (LLMClient: SDK, event loop, limits, cache, accounting), ``shared`` (the
process-wide clients), ``keys`` (which key a client may send), ``retry`` (what is retried, and how
long to wait), ``settings``, ``cache``, ``parsing``, ``prices``, ``tokens``, ``estimate``, ``errors``.

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

#: name -> module of this package (lazy: client.py pulls pydantic-only code, SDKs load later).
_LAZY = {"LLMClient": "client", "StructuredResult": "client", "check_settings": "keys",
         "resolve_api_key": "keys", "close_clients": "shared", "get_client": "shared"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
