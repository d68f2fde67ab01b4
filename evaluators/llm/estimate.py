"""Dry-run cost estimates: calls, tokens and USD before anything is spent (no network)."""

from __future__ import annotations

from typing import Sequence

from . import prices
from .settings import LLMSettings
from .tokens import approx_tokens

#: Chat-format overhead per call (system + user message markers), in tokens.
CALL_OVERHEAD_TOKENS = 12


def estimate_cost(prompts: Sequence[str], settings: LLMSettings,
                  expected_output_tokens: int | Sequence[int]) -> dict:
    """Estimate one call per prompt. Tokens are approximated offline (chars / 4, see tokens.py);
    ``expected_output_tokens`` is one figure for every call or one per prompt.

    Returns ``{calls, prompt_tokens, completion_tokens, cost_usd, price_known, model}``."""
    prompts = list(prompts)
    if isinstance(expected_output_tokens, int):
        outs = [expected_output_tokens] * len(prompts)
    else:
        outs = list(expected_output_tokens)
        if len(outs) != len(prompts):
            raise ValueError(f"expected_output_tokens has {len(outs)} values for {len(prompts)} prompts")
    if settings.max_tokens:
        outs = [min(o, settings.max_tokens) for o in outs]
    pt = sum(approx_tokens(p) + CALL_OVERHEAD_TOKENS for p in prompts)
    ct = sum(outs)
    known = prices.lookup(settings.model, settings.provider, settings.price_per_mtok) is not None
    return {
        "calls": len(prompts),
        "prompt_tokens": pt,
        "completion_tokens": ct,
        "cost_usd": prices.cost_usd(pt, ct, settings.model, settings.provider, settings.price_per_mtok),
        "price_known": known,
        "model": f"{settings.provider}/{settings.model}",
    }
