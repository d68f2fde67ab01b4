"""Near-duplicate questions, found with the project's embedded MiniLM (``evaluators.encoder``).

Contract: :class:`Deduper` keeps the questions accepted so far; ``accept(text, vector)`` says
whether a new question is far enough from all of them — cosine similarity of the MiniLM embeddings
below ``NEAR_DUPLICATE`` (0.85), and not the same text once case, spaces and punctuation are
ignored — and remembers it when it is. Vectors come from :func:`embed` (cached, batched; the model
loads on first use, nothing is downloaded).
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

#: Two questions this similar (cosine of their MiniLM embeddings) ask the same thing: "Which port
#: does the PostgreSQL container listen on by default?" / "What port does PostgreSQL use by
#: default?" score 0.83-0.9, a repeated sentence 1.0; questions about different facts of one subject
#: ("When did Apollo 11 land on the Moon?" / "Who walked on the lunar surface?") 0.5-0.7.
NEAR_DUPLICATE = 0.85


def norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def embed(texts: Sequence[str]) -> np.ndarray:
    from ..encoder.embeddings import encode

    return encode(list(texts))


class Deduper:
    def __init__(self, threshold: float = NEAR_DUPLICATE) -> None:
        self.threshold = threshold
        self._vecs: list[np.ndarray] = []
        self._seen: set[str] = set()

    def similarity(self, vector: np.ndarray) -> float:
        """The highest cosine similarity to an accepted question (0 when none)."""
        if not self._vecs:
            return 0.0
        return float(np.max(np.stack(self._vecs) @ vector))

    def accept(self, text: str, vector: np.ndarray) -> bool:
        key = norm(text)
        if key in self._seen or self.similarity(vector) >= self.threshold:
            return False
        self._seen.add(key)
        self._vecs.append(np.asarray(vector, dtype=np.float32))
        return True
