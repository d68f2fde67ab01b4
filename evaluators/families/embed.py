"""Embedding helpers of the family metrics (the embedded MiniLM via ``evaluators.embeddings``;
an optional cross-encoder by local path or hub name, never downloaded)."""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from typing import Any, Sequence


def encode(texts: Sequence[str]):
    """L2-normalised rows, one per text (process-wide cached model)."""
    from ..embeddings import encode as _encode

    return _encode(list(texts))


def cosine(a: Any, b: Any) -> float:
    """Cosine of two L2-normalised vectors."""
    import numpy as np

    return float(np.dot(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)))


_ce_lock = threading.Lock()


@lru_cache(maxsize=2)
def _cross_encoder(name: str) -> Any:
    from sentence_transformers import CrossEncoder

    try:
        return CrossEncoder(name, device="cpu", local_files_only=True)
    except TypeError:  # older sentence-transformers
        return CrossEncoder(name, device="cpu")


def cross_encoder_scores(name: str, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """Scores in [0, 1] (a logit output is passed through a sigmoid)."""
    with _ce_lock:
        try:
            model = _cross_encoder(name)
        except Exception as exc:  # noqa: BLE001
            raise RuntimeError(f"cannot load cross-encoder {name!r} (it must exist locally): {exc}") from None
        raw = model.predict(list(pairs), show_progress_bar=False)
    out = []
    for x in list(raw):
        v = float(x if not hasattr(x, "__len__") else x[-1])
        out.append(v if 0.0 <= v <= 1.0 else 1.0 / (1.0 + math.exp(-v)))
    return out
