"""The sample RAG app's two versions over one corpus: retrieval, then an extractive answer.

Contract: :meth:`SampleApp.ask` answers ``{"answer", "sources": [{"id", "text", "score"}], "usage",
"version"}`` for a question (and optionally the earlier turns of its conversation); it is
deterministic (the same question always gets the same reply) and needs no key, no model, no network.

* ``v1`` — BM25 over the passages (the earlier user turns help at half weight), the top ``k``
  (default 5) returned; the answer is the one or two sentences (of four words or more) of the top three passages that
  hold most of the question's rare words, or "The documents do not say." when the best passage holds
  less than 30 % of them (by idf, over the words the corpus has).
* ``v2`` — the regression a product should catch: a weaker ranking (word overlap, see
  :mod:`.retrieval`), at most 3 passages whatever ``k`` asks, the conversation ignored; the answer is
  the single best sentence even when it does not answer, and for about half of the questions (chosen
  by a hash of the question) it states something its passages do not say — a number changed, or a
  sentence of a passage it did not return.

``usage`` counts words as tokens (prompt: question and passages; completion: the answer).
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from typing import Any, Sequence

from ..sentencize import split_sentences
from .corpus import Passage, load_corpus
from .retrieval import BM25, Overlap, terms, words

VERSIONS = ("v1", "v2")
NO_ANSWER = "The documents do not say."
_NUMBER = re.compile(r"\b\d{2,}\b")


class SampleApp:
    """Both versions over one corpus (indexed once)."""

    def __init__(self, passages: Sequence[Passage] | None = None) -> None:
        self.passages = list(passages) if passages is not None else load_corpus()
        self.bm25 = BM25(self.passages)
        self.overlap = Overlap(self.passages)
        self._sentences: dict[int, list[str]] = {}
        self.sentences(0)  # loads the sentence splitter now, not on the first call

    def sentences(self, i: int) -> list[str]:
        if i not in self._sentences:
            self._sentences[i] = split_sentences(self.passages[i].text)
        return self._sentences[i]

    # -- retrieval -----------------------------------------------------------------------------
    def _query_v1(self, question: str, history: Sequence[Any]) -> dict[str, float]:
        q: dict[str, float] = dict.fromkeys(terms(question), 1.0)
        for turn in history or ():
            if isinstance(turn, dict) and str(turn.get("speaker", turn.get("role", ""))).lower() in ("user", "human"):
                text = turn.get("text", turn.get("content"))
                for t in terms(text if isinstance(text, str) else ""):
                    q.setdefault(t, 0.5)
        return q

    def retrieve(self, version: str, question: str, history: Sequence[Any] = (), k: int = 5) -> list[tuple[int, float]]:
        if version == "v1":
            return self.bm25.search(self._query_v1(question, history), k)
        return self.overlap.search(Counter(words(question)), min(k, 3))

    # -- answers -------------------------------------------------------------------------------
    def _scored(self, question: str, hits: list[tuple[int, float]], top: int) -> list[tuple[float, int, int, str]]:
        q = set(terms(question))
        out = []
        for rank, (i, _) in enumerate(hits[:top]):
            for j, s in enumerate(self.sentences(i)):
                if len(words(s)) < 4:  # a heading, a lone list marker: not an answer
                    continue
                score = sum(self.bm25.idf.get(t, 0.0) for t in q & set(terms(s)))
                out.append((score, rank, j, s))
        return out

    def _names_missing(self, question: str) -> bool:
        """Whether the question names something (a capitalised word after the first) that no passage
        has: "the capital of Australia" in a corpus without Australia is not answered from "capital"."""
        named = [w for w in question.split()[1:] if w[:1].isupper()]
        return any(t not in self.bm25.idf for w in named for t in terms(w))

    def _answer_v1(self, question: str, hits: list[tuple[int, float]]) -> str:
        q = set(terms(question))
        need = sum(self.bm25.idf.get(t, 0.0) for t in q)
        if not hits or need == 0 or self._names_missing(question):
            return NO_ANSWER
        top = q & set(terms(self.passages[hits[0][0]].text))
        if sum(self.bm25.idf[t] for t in top) < 0.3 * need:  # the best passage is not about the question
            return NO_ANSWER
        scored = [c for c in self._scored(question, hits, 3) if c[0] > 0]
        if not scored:
            return NO_ANSWER
        best = max(c[0] for c in scored)
        chosen = [c for c in sorted(scored, key=lambda c: (-c[0], c[1], c[2]))[:2] if c[0] >= 0.4 * best]
        return " ".join(c[3] for c in sorted(chosen, key=lambda c: (c[1], c[2])))

    def _answer_v2(self, question: str, hits: list[tuple[int, float]]) -> str:
        q = Counter(words(question))
        best: tuple[float, str] | None = None
        for i, _ in hits:
            for s in self.sentences(i):
                score = float(sum(q[w] for w in words(s)))
                if best is None or score > best[0]:
                    best = (score, s)
        answer = best[1] if best is not None else NO_ANSWER
        if zlib.crc32(question.encode("utf-8")) % 2:
            return answer
        m = _NUMBER.search(answer)
        if m is not None:  # a number changed
            return answer[: m.start()] + str(int(m.group()) + 2) + answer[m.end():]
        returned = {i for i, _ in hits}
        for i, _ in self.bm25.search(dict.fromkeys(terms(question), 1.0), 10):
            if i not in returned and self.sentences(i):
                return f"{answer} {self.sentences(i)[0]}"
        return answer

    def ask(self, question: str, version: str = "v1", history: Sequence[Any] = (), k: int = 5) -> dict[str, Any]:
        if version not in VERSIONS:
            raise ValueError(f"unknown version {version!r}; versions: {', '.join(VERSIONS)}")
        hits = self.retrieve(version, question, history, k)
        answer = self._answer_v1(question, hits) if version == "v1" else self._answer_v2(question, hits)
        sources = [{"id": self.passages[i].id, "text": self.passages[i].text, "score": round(s, 4)} for i, s in hits]
        prompt = len(words(question)) + sum(len(words(self.passages[i].text)) for i, _ in hits)
        completion = len(words(answer))
        return {"answer": answer, "sources": sources, "version": version,
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "total_tokens": prompt + completion}}
