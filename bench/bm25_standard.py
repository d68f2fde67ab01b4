"""(helper) BM25 as IR toolkits mean it, for the retrieval benches: Lucene's English analysis and
Lucene's BM25 formula, in Python.

    from bench.bm25_standard import BM25, analyze
    bm25 = BM25(["Cloudant databases replicate.", "Pricing of Db2 plans."])      # Elasticsearch's k1, b
    bm25.scores("How does a Cloudant database replicate?")                        # one score per text

The contract: :func:`analyze` gives, token for token, what Lucene's ``EnglishAnalyzer`` gives (the
analysis of Elasticsearch's ``english`` analyzer and of Anserini / Pyserini's default one):

1. **words** by Unicode's word boundaries (UAX #29, Lucene's ``StandardTokenizer``: "don't", "3.5",
   "U.S", "ibm.com", "foo_bar" stay whole, hyphens split), and emoji-like symbols (®, ™) kept as
   tokens as Lucene does — the ``regex`` module's ``WORD`` flag;
2. a final **possessive** 's dropped ("IBM's" → "IBM");
3. **lower-cased**;
4. Lucene's 33 English **stop words** dropped (:data:`ENGLISH_STOP_WORDS`);
5. **Porter stemming** as Lucene's ``PorterStemFilter`` does it: Martin Porter's reference
   implementation with its departures from the 1980 paper (words of one or two letters unstemmed,
   "logi" → "log", "bli" → "ble"), which is nltk's ``PorterStemmer`` in ``MARTIN_EXTENSIONS`` mode
   (Snowball's "porter" follows the paper and differs: "us" → "u", "technology" → "technologi").

:class:`BM25` scores with ``bm25s`` (``method="lucene"``: idf = ln(1 + (N − n + ½) / (n + ½)),
tf / (tf + k1 (1 − b + b · dl / avgdl)); a query word counted as often as it occurs), by default with
Elasticsearch's k1 = 1.2, b = 0.75 (:data:`PRESETS`: also Anserini's 0.9, 0.4). Lucene itself stores
each document's length in one byte (lossy above 40 or so tokens), so its scores differ from these in
the third digit; ``bench/bm25_check.py`` runs real Lucene (``bench/lucene/LuceneBM25.java``, Debian's
``liblucene8-java``) on MTRAG-UN's passages and questions and records both differences — the tokens
(none) and the scores and nDCG@5 (``bench/results/bm25_check.json``).

Bench-only (``bm25s``, ``nltk`` and ``regex`` are in requirements-dev.txt): the library ranks nothing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

#: Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`` (Elasticsearch's ``_english_``).
ENGLISH_STOP_WORDS = frozenset("""a an and are as at be but by for if in into is it no not of on or such that
the their then there these they this to was will with""".split())

#: (k1, b) of the toolkits' defaults.
PRESETS: dict[str, tuple[float, float]] = {"elasticsearch": (1.2, 0.75), "anserini": (0.9, 0.4)}


@lru_cache(maxsize=1)
def _patterns() -> tuple[object, object]:
    import regex

    return regex.compile(r"\b", flags=regex.WORD | regex.V1), regex.compile(r"\p{Extended_Pictographic}")


@lru_cache(maxsize=1)
def _stemmer() -> object:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer(mode=PorterStemmer.MARTIN_EXTENSIONS)


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return str(_stemmer().stem(word, to_lowercase=False))  # type: ignore[attr-defined]


def analyze(text: str) -> list[str]:
    """The tokens Lucene's ``EnglishAnalyzer`` makes of ``text`` (see the module docstring)."""
    boundary, pictographic = _patterns()
    out = []
    for seg in boundary.split(text):  # type: ignore[attr-defined]
        if not (any(ch.isalnum() for ch in seg) or pictographic.search(seg)):  # type: ignore[attr-defined]
            continue
        if len(seg) >= 2 and seg[-1] in "sS" and seg[-2] in "'’\uff07":
            seg = seg[:-2]
        word = seg.lower()
        if word not in ENGLISH_STOP_WORDS:
            out.append(_stem(word))
    return out


class BM25:
    """Lucene's BM25 over ``texts`` analysed by :func:`analyze` (``bm25s``, exact document lengths)."""

    def __init__(self, texts: Sequence[str], k1: float = PRESETS["elasticsearch"][0],
                 b: float = PRESETS["elasticsearch"][1]) -> None:
        import bm25s

        self.k1, self.b, self.n = k1, b, len(texts)
        self.index = bm25s.BM25(k1=k1, b=b, method="lucene", dtype="float64")
        self.index.index([analyze(t) for t in texts], show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """One score per text, in their order (all zeros for a query with no word of theirs)."""
        ids = self.index.get_tokens_ids(analyze(query))
        if not ids:
            return np.zeros(self.n)
        return np.asarray(self.index.get_scores(ids), dtype=float)
