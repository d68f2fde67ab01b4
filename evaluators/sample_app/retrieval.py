"""The sample app's two retrievers over one corpus.

Contract: ``search(query_terms, k)`` returns at most ``k`` (passage index, score) pairs, best first,
ties broken by corpus order, only passages that share a term with the query.

* :class:`BM25` (version 1) — Okapi BM25 (k1 = 1.5, b = 0.75, idf = ln(1 + (N − df + 0.5) /
  (df + 0.5))) over the passage and its title, stop words left out; query terms may carry weights
  (the earlier user turns of a conversation count half).
* :class:`Overlap` (version 2, the regression) — how many times the question's words occur in the
  passage: no idf, no length normalisation, stop words counted, the conversation ignored. Long
  passages full of "the" and "of" float up.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Mapping, Sequence

from .corpus import Passage

_WORD = re.compile(r"\w+", re.UNICODE)
STOP_WORDS = frozenset("""
a an and are as at be been but by can could did do does doing for from had has have how i if in into is it
its me my of on or our so such than that the their them then there these they this to was we were what when
where which who whom why will with would you your yours about after again also am any because before being
both each few further he her here hers him his itself just many more most much no nor not now off once only other out
over own same she should some too under until up very while
le la les de des du un une et est a à en au aux que qui
""".split())


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def terms(text: str) -> list[str]:
    """The words of ``text`` without stop words (what BM25 indexes and asks)."""
    return [w for w in words(text) if w not in STOP_WORDS]


class BM25:
    def __init__(self, passages: Sequence[Passage], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(terms(f"{p.title}\n{p.text}")) for p in passages]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(1, len(self.lengths))
        df: Counter[str] = Counter()
        for d in self.docs:
            df.update(d.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self.postings: dict[str, list[int]] = {}
        for i, d in enumerate(self.docs):
            for t in d:
                self.postings.setdefault(t, []).append(i)

    def search(self, query: Mapping[str, float], k: int) -> list[tuple[int, float]]:
        scores: dict[int, float] = {}
        for t, w in query.items():
            idf = self.idf.get(t)
            if idf is None:
                continue
            for i in self.postings[t]:
                tf = self.docs[i][t]
                norm = tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg))
                scores[i] = scores.get(i, 0.0) + w * idf * norm
        return sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:k]


class Overlap:
    def __init__(self, passages: Sequence[Passage]) -> None:
        self.docs = [Counter(words(p.text)) for p in passages]

    def search(self, query: Mapping[str, float], k: int) -> list[tuple[int, float]]:
        scores = {i: float(sum(d[t] for t in query)) for i, d in enumerate(self.docs)}
        hits = [(i, s) for i, s in scores.items() if s > 0]
        return sorted(hits, key=lambda x: (-x[1], x[0]))[:k]
