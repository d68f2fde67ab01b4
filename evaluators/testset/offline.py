"""The offline generator: questions from the passages' own sentences, by rule — no key, no model
download, English documents.

Every sentence of every passage (nupunkt, as everywhere in the project) goes through
:func:`.offline_questions.question_for`; the sentences that state a fact it can ask about become
candidates, with the fact as the reference answer (an exact piece of the sentence, so always backed
word for word by the reference passage), the passage as the reference context, and the kind of
fact, the sentence and the rule's score in ``metadata``. An FAQ's own questions come first, with the
answer under them as the reference (:mod:`.offline_page`). A subject the sentence names only by its
kind ("the pilot") takes the name the page gives it. A question asked twice in one document with two
different answers ("How long is the first response due?": 1 hour under P1, 2 business days under P3)
is told apart by its section, or dropped. The generator is exhaustive: its first answer for a
document is every question it can make of it (the run picks among them).

Each document's reason (``reasons``) says what was found and why it was left when it gives few
questions: "14 sentences with numbers or dates: 9 in menus, 3 whose answer is not unique, ...".

Documents not in English are skipped with a note (the rules read English grammar); so are
sentences the rules are not sure of (see :mod:`.offline_questions`).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Sequence

from ..documents import Corpus, Document, language_name
from ..documents.boilerplate import KINDS as LINE_KINDS
from ..sentencize import split_spans
from ..types import Usage
from .offline_page import (
    faq_questions,
    glossary_questions,
    name_questions,
    names_in,
    procedure_questions,
    resolver,
    topic,
)
from .offline_questions import Made, questions_for
from .types import Candidate, Context, Request

_FACTISH = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|hundred|thousand|"
                      r"million|daily|weekly|monthly|annually|January|February|March|April|June|July|August|"
                      r"September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|"
                      r"Sunday)\b", re.I)
NOT_UNIQUE = "answer not unique in its document"
_VAGUE_TERM = re.compile(r"^What (?:is|are) (?:a|an) [a-z]+\?$")
#: Most questions one sentence gives (each with its own answer: "When did X land?" and "Who walked ...?").
PER_SENTENCE = 2
#: Kinds taken only where a file has nothing better (``extra["filler"]``; see :mod:`.build`): a yes/no
#: question about a statement the page makes in the affirmative (and "What is <a heading's name>?").
FILLERS = frozenset({"yes/no"})


def _norm(q: str) -> str:
    return " ".join(re.findall(r"\w+", q.lower()))


class OfflineGenerator:
    model: str | None = None
    exhaustive = True

    def __init__(self, llm: Any = None) -> None:
        self.notes: list[str] = []
        self.dropped: dict[str, int] = {}
        #: document -> what was found in it and why it was left (read when it gives few questions).
        self.reasons: dict[str, str] = {}

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
            cands, left = self._candidates(doc)
            fillers = sum(bool(c.extra.get("filler")) for c in cands)
            self.reasons[doc.name] = self._reason(doc, left, len(cands), fillers)
            if not cands:
                self.notes.append(f"{doc.name}: {self.reasons[doc.name]}")
            out[doc.name] = cands
        return out

    def _candidates(self, doc: Document) -> tuple[list[Candidate], Counter[str]]:
        """Every candidate of ``doc``, and why the sentences with numbers or dates gave none."""
        left: Counter[str] = Counter()
        cands: list[Candidate] = []
        for q, answer, p in faq_questions(doc):
            cands.append(Candidate(q, answer, (p,), "single_hop", doc.name, score=3.5,
                                   extra={"fact": "faq", "evidence": answer, "section": p.section}))
        for q, answer, p in procedure_questions(doc):
            cands.append(Candidate(q, answer, (p,), "single_hop", doc.name, score=2.9,
                                   extra={"fact": "procedure", "evidence": answer, "section": p.section}))
        for q, answer, p in name_questions(doc):
            cands.append(Candidate(q, answer, (p,), "single_hop", doc.name, score=1.6,
                                   extra={"fact": "heading", "evidence": answer, "section": p.section,
                                          "filler": True}))
        for q, answer, p, kind in glossary_questions(doc):
            cands.append(Candidate(q, answer, (p,), "single_hop", doc.name, score=2.4 if kind == "default" else 2.0,
                                   extra={"fact": kind, "evidence": answer, "section": p.section}))
        resolve = resolver(doc)
        page_topic = topic(doc)
        for p in doc.passages:
            for a, b in split_spans(p.text):
                sentence = p.text[a:b]
                why: list[str] = []
                made = questions_for(sentence, p.section, resolve, why)
                if not made:
                    if _FACTISH.search(sentence) and why:
                        left[why[0]] += 1
                    continue
                for m in made[:PER_SENTENCE]:
                    if m.kind == "definition" and _VAGUE_TERM.match(m.question):
                        # "What is a source?": in which product? the name the answer, the passage or the page gives
                        name = next(iter(names_in(m.answer) + names_in(p.text)), None) or page_topic
                        if not name:
                            left["subject not named"] += 1
                            continue
                        m = Made(f"{m.question[:-1]} in {name}?", m.answer, m.kind, m.score + 0.8)
                    extra: dict[str, Any] = {"fact": m.kind, "evidence": sentence, "section": p.section}
                    if m.kind in FILLERS:
                        extra["filler"] = True
                    cands.append(Candidate(m.question, m.answer, (p,), "single_hop", doc.name,
                                           score=m.score, extra=extra))
        cands, not_unique = _unique(cands)
        if not_unique:
            left[NOT_UNIQUE] += not_unique
            self.dropped[f"question whose {NOT_UNIQUE}"] = self.dropped.get(f"question whose {NOT_UNIQUE}", 0) + \
                not_unique
        return cands, left

    def _reason(self, doc: Document, left: Counter[str], made: int, fillers: int = 0) -> str:
        chrome: Counter[str] = Counter()
        for d in doc.dropped:
            if _FACTISH.search(doc.text[d.start:d.end]):
                chrome[d.kind] += 1
        found = sum(left.values()) + sum(chrome.values())
        parts = [f"{n} in {LINE_KINDS.get(k, k)}" for k, n in chrome.most_common()]
        parts += [f"{n} {_LEFT_WORDS.get(k, k)}" for k, n in left.most_common()]
        head = f"{made} question{'s' if made != 1 else ''} made"
        if fillers:
            head += f" ({fillers} of them asked only when no file has a better one: yes/no, a heading's name)"
        if not found:
            return f"{head}; no other sentence states a date, a number, a name or a defined term in a form the " \
                   "offline rules turn into a question"
        return f"{head}; {found} other line{'s' if found != 1 else ''} with numbers or dates left: " + ", ".join(parts)


#: A reason key of ``question_for`` (and the run's) -> how a file's reason says it.
_LEFT_WORDS = {
    "not a sentence": "not sentences (titles, fragments, questions)",
    "markup": "in markup or code",
    "no clause the rules read": "with no subject and verb the rules read",
    "subject not named": "whose subject the page never names (\"the service\")",
    "no fact the rules ask about": "with no fact the rules ask about",
    "answer in the question": "whose question would give its answer away",
    "stands on a word of the page": "that lean on \"it\", \"we\" or \"they\"",
    "question too long": "whose question would be too long",
    NOT_UNIQUE: "whose answer is not unique in the document",
}


def _unique(cands: list[Candidate]) -> tuple[list[Candidate], int]:
    """The candidates without questions asked twice with different answers in one document: each is
    told apart by its section where the sections differ, else all are dropped. Returns the kept and
    how many were dropped."""
    groups: dict[str, list[Candidate]] = {}
    for c in cands:
        groups.setdefault(_norm(c.question), []).append(c)
    kept: list[Candidate] = []
    dropped = 0
    for group in groups.values():
        answers = {_norm(c.ground_truth) for c in group}
        if len(answers) <= 1:
            kept.extend(group)
            continue
        sections = [str(c.extra.get("section") or "").strip(" :") for c in group]
        if all(sections) and len(set(sections)) == len(group):
            for c, sec in zip(group, sections):
                q = f"{c.question[:-1].rstrip()} ({sec})?"
                kept.append(Candidate(q, c.ground_truth, c.passages, c.question_type, c.source, c.history,
                                      c.score - 0.3, {**c.extra, "told_apart_by": "section"}))
        else:
            dropped += len(group)
    return kept, dropped
