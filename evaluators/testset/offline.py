"""The ``offline`` generator: questions from the passages' own sentences, by rule — no key, no model
download, English documents.

Every sentence of every passage (nupunkt, as everywhere in the project) goes through
:func:`.offline_questions.question_for`; the sentences that state a fact it can ask about become
candidates, with the fact as the reference answer (an exact piece of the sentence, so always backed
word for word by the reference passage), the passage as the reference context, and the kind of
fact, the sentence and the rule's score in ``metadata``. The generator is exhaustive: its first
answer for a document is every question it can make of it (the run picks among them).

Documents not in English are skipped with a note (the rules read English grammar); so are
sentences the rules are not sure of (see :mod:`.offline_questions`).
"""

from __future__ import annotations

from typing import Any, Sequence

from ..documents import Corpus, language_name
from ..sentencize import split_spans
from ..types import Usage
from .offline_questions import question_for
from .types import Candidate, Context, Request


class OfflineGenerator:
    model: str | None = None
    exhaustive = True

    def __init__(self, llm: Any = None) -> None:
        self.notes: list[str] = []
        self.dropped: dict[str, int] = {}

    @property
    def usage(self) -> Usage:
        return Usage()

    def estimate(self, corpus: Corpus, n: int, types: Sequence[str]) -> dict[str, Any]:
        return {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "price_known": True,
                "model": None}

    def propose(self, requests: Sequence[Request], ctx: Context) -> dict[str, list[Candidate]]:
        out: dict[str, list[Candidate]] = {}
        for r in requests:
            if ctx.cancelled:
                break
            doc = r.document
            if doc.language not in ("en", ""):
                self.notes.append(f"{doc.name}: written in {language_name(doc.language)}; the offline generator "
                                  "writes English questions (use the llm generator)")
                continue
            cands: list[Candidate] = []
            for p in doc.passages:
                for a, b in split_spans(p.text):
                    sentence = p.text[a:b]
                    made = question_for(sentence, p.section)
                    if made is None:
                        continue
                    cands.append(Candidate(made.question, made.answer, (p,), "single_hop", doc.name,
                                           score=made.score, extra={"fact": made.kind, "evidence": sentence}))
            if not cands:
                self.notes.append(f"{doc.name}: no sentence states a date, a number, a name or a defined term "
                                  "in a form the offline rules turn into a question")
            out[doc.name] = cands
        return out
