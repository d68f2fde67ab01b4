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
#: Two questions this similar ask the same thing whatever their answers ("What happens when you create
#: the enterprise?" / "What happens after your enterprise is created?": 0.95); "How much can individuals
#: sue for ...?" / "How much can business entities sue for ...?" score 0.88.
SAME_QUESTION = 0.93


def same_question(cosine: float, q1: str, q2: str, a1: str | None = None, a2: str | None = None,
                  threshold: float = NEAR_DUPLICATE) -> bool:
    """Whether two questions ask one thing: as close as ``SAME_QUESTION``; or as close as ``threshold``
    with nearly the same words, or answers that overlap (or no answers to tell them apart)."""
    if cosine >= max(SAME_QUESTION, threshold):
        return True
    if cosine < threshold:
        return False
    w1, w2 = set(norm(q1).split()), set(norm(q2).split())
    if len(w1 & w2) / max(1, len(w1 | w2)) >= SAME_WORDS or a1 is None or a2 is None:
        return True
    s1, s2 = set(norm(a1).split()), set(norm(a2).split())
    return not s1 or not s2 or len(s1 & s2) / max(1, len(s1 | s2)) >= 0.5


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
        self._kept: list[tuple[str, str | None]] = []  # (question, answer)

    def similarity(self, vector: np.ndarray) -> float:
        """The highest cosine similarity to an accepted question (0 when none)."""
        if not self._vecs:
            return 0.0
        return float(np.max(np.stack(self._vecs) @ vector))

    def accept(self, text: str, vector: np.ndarray, answer: str | None = None) -> bool:
        key = norm(text)
        if key in self._seen:
            return False
        if self._vecs:
            sims = np.stack(self._vecs) @ vector
            for k in np.flatnonzero(sims >= self.threshold):
                other_q, other_a = self._kept[int(k)]
                if same_question(float(sims[k]), text, other_q, answer, other_a, self.threshold):
                    return False
        self._seen.add(key)
        self._vecs.append(np.asarray(vector, dtype=np.float32))
        self._kept.append((text, answer))
        return True
