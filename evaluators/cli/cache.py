"""``cache``: show or clear the on-disk embedding cache (``evaluators.encoder.disk_cache``)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("cache", help="the on-disk embedding cache: info / clear",
                       description="Show or clear the embedding cache (vectors only, keyed by text hash).")
    p.add_argument("action", choices=("info", "clear"))
    p.add_argument("--path", default=None, help="cache file (default: next to the run store, or "
                                                "$RAG_EVAL_EMBED_CACHE)")
    p.set_defaults(func=cmd_cache)


def cmd_cache(args: argparse.Namespace) -> int:
    from ..encoder.disk_cache import EmbeddingCache, from_env
    from ..paths import ENV_EMBED_CACHE

    cache = EmbeddingCache(args.path) if args.path else from_env()
    if cache is None:
        print(f"the embedding cache is disabled (${ENV_EMBED_CACHE})")
        return 0
    if args.action == "clear":
        n = cache.clear()
        print(f"removed {n} vectors from {cache.path}")
    else:
        print(json.dumps(cache.stats(), indent=2))
    return 0
