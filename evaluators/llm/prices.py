"""Editable price table: USD per 1M tokens (input, output).

Figures are list prices published by the providers at the time of writing; they change. Correct
them for your account in one of three ways (highest priority first):

1. ``LLMSettings(price_per_mtok=(input, output))`` for one run;
2. a JSON file ``{"model-name": [input, output], ...}`` named by the env var
   ``EVALUATORS_PRICE_TABLE`` (read on every lookup, so edits apply without a restart);
3. ``set_price("model-name", input, output)`` at run time, or editing ``PRICES`` below.

Lookup: exact model name, then ``provider/model``, then the longest table entry the model name
starts with (``gpt-4o-2024-08-06`` -> ``gpt-4o``). Unknown models (typically local servers) cost
0 and are reported with ``price_known = False``.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

PRICES: dict[str, tuple[float, float]] = {
    # Groq
    "llama-3.3-70b-versatile": (0.59, 0.79),
    "llama-3.1-8b-instant": (0.05, 0.08),
    "meta-llama/llama-4-scout-17b-16e-instruct": (0.11, 0.34),
    "meta-llama/llama-4-maverick-17b-128e-instruct": (0.20, 0.60),
    "openai/gpt-oss-120b": (0.15, 0.75),
    "openai/gpt-oss-20b": (0.10, 0.50),
    "qwen/qwen3-32b": (0.29, 0.59),
    "moonshotai/kimi-k2-instruct": (1.00, 3.00),
    "gemma2-9b-it": (0.20, 0.20),
    # OpenAI
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "o4-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
}

_lock = threading.Lock()


def set_price(model: str, input_per_mtok: float, output_per_mtok: float) -> None:
    with _lock:
        PRICES[model] = (float(input_per_mtok), float(output_per_mtok))


def _file_prices() -> dict[str, tuple[float, float]]:
    path = os.environ.get("EVALUATORS_PRICE_TABLE")
    if not path:
        return {}
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        return {str(k): (float(v[0]), float(v[1])) for k, v in raw.items()}
    except (OSError, ValueError, TypeError, IndexError, KeyError) as exc:
        raise ValueError(f"EVALUATORS_PRICE_TABLE={path}: expected a JSON object "
                         f'{{"model": [input_usd_per_mtok, output_usd_per_mtok]}} ({exc})') from exc


def lookup(model: str, provider: str | None = None,
           override: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """(input, output) USD per 1M tokens, or None when the model is unknown."""
    if override is not None:
        return (float(override[0]), float(override[1]))
    with _lock:
        table = {**PRICES, **_file_prices()}
    for name in (model, f"{provider}/{model}" if provider else None):
        if name and name in table:
            return table[name]
    best = max((k for k in table if model.startswith(k)), key=len, default=None)
    return table[best] if best else None


def cost_usd(prompt_tokens: int, completion_tokens: int, model: str, provider: str | None = None,
             override: tuple[float, float] | None = None) -> float:
    p = lookup(model, provider, override)
    if p is None:
        return 0.0
    return (prompt_tokens * p[0] + completion_tokens * p[1]) / 1_000_000
