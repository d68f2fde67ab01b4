"""Offline token counting.

No tokenizer is downloaded: ``approx_tokens`` is ceil(characters / 4) — OpenAI's rule of thumb for
English text, which is within ~10-20 % of cl100k/o200k and Llama-3 tokenizers on typical prose (it
over-counts code and JSON a little, under-counts CJK). It is only used for estimates (dry run) and
for the tokens-per-minute limiter; real calls report the provider's own counts.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

#: Per-message overhead of the chat format (role markers), in tokens.
MESSAGE_OVERHEAD = 4


def approx_tokens(text: str) -> int:
    return math.ceil(len(text or "") / 4)


def approx_message_tokens(messages: Iterable[Mapping[str, object]]) -> int:
    total = 3
    for m in messages:
        c = m.get("content")
        total += MESSAGE_OVERHEAD + approx_tokens(c if isinstance(c, str) else str(c or ""))
    return total
