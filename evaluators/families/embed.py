"""Embedding helpers of the family metrics (the embedded MiniLM via ``evaluators.encoder.embeddings``;
an optional cross-encoder by local path or hub name, never downloaded)."""

from __future__ import annotations

from typing import Any, Sequence


def encode(texts: Sequence[str]):
    """L2-normalised rows, one per text (process-wide cached model)."""
    from ..encoder.embeddings import encode as _encode

    return _encode(list(texts))


def cosine(a: Any, b: Any) -> float:
    """Cosine of two L2-normalised vectors."""
    import numpy as np

    return float(np.dot(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)))


def cross_encoder_scores(name: str, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """Scores in [0, 1] from ``evaluators.encoder.cross_encoder`` (the one loader: never downloads; the
    same reading as the ``trace`` labeler's NLI plug-in). A model that is not available locally
    raises ``CrossEncoderUnavailable`` (a RuntimeError) naming it."""
    from ..encoder import cross_encoder

    return [float(x) for x in cross_encoder.probabilities(name, list(pairs))]
