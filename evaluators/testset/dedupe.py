"""Near-duplicate questions, found with the project's embedded MiniLM (``evaluators.encoder``).

Contract: :class:`Deduper` keeps the questions accepted so far; ``accept(text, vector, answer)`` says
whether a new question is far enough from all of them — cosine similarity of the MiniLM embeddings
below ``NEAR_DUPLICATE`` (0.85), and not the same text once case, spaces and punctuation are
ignored — and remembers it when it is. Two close questions whose answers differ ("How much can
individuals sue for in small claims court?" $12,500 / "How much can business entities sue for ...?"
$6,250) ask about two things and are both kept, unless their words are nearly the same (word
Jaccard ≥ ``SAME_WORDS``). Vectors come from :func:`embed` (cached, batched; the model
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
#: Two questions sharing this share of their words (Jaccard) are one question whatever their answers.
SAME_WORDS = 0.8


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
        self._kept: list[tuple[set[str], set[str]]] = []  # (question words, answer words)

    def similarity(self, vector: np.ndarray) -> float:
        """The highest cosine similarity to an accepted question (0 when none)."""
        if not self._vecs:
            return 0.0
        return float(np.max(np.stack(self._vecs) @ vector))

    def accept(self, text: str, vector: np.ndarray, answer: str | None = None) -> bool:
        key = norm(text)
        if key in self._seen:
            return False
        words, said = set(key.split()), set(norm(answer or "").split())
        if self._vecs:
            sims = np.stack(self._vecs) @ vector
            for k in np.flatnonzero(sims >= self.threshold):
                other_q, other_a = self._kept[int(k)]
                same_words = len(words & other_q) / max(1, len(words | other_q)) >= SAME_WORDS
                if answer is None or same_words or not said or len(said & other_a) / max(1, len(said | other_a)) >= 0.5:
                    return False
        self._seen.add(key)
        self._vecs.append(np.asarray(vector, dtype=np.float32))
        self._kept.append((words, said))
        return True
