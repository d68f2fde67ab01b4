"""The standalone question: a turn of a chat made readable without the turns before it.

    from evaluators.conversations.standalone import standalone_question
    standalone_question("Which one is cheaper?", (Turn(speaker="user", text="What do the Basic and Pro plans cost?"),
                                                  Turn(speaker="agent", text="Basic is $5, Pro $12.")))
    # 'Which one is cheaper? (Basic Pro plans cost)'

The rule (offline, no model, the same result every time):

1. A question **lacks a subject** when it has at most ``SHORT`` content words ("Rental property"
   is two, "Tax rate for LLC" three), refers back (it, this, that, these, those, they, them, their,
   one, such, same, other, another, both, either, former, latter, there, …) or opens as a follow-up
   ("and …", "what about …", "how about …", "so …", "I mean …", "you said …"). Any other question
   is standalone already and is returned unchanged.
2. A question that lacks a subject gets, in parentheses after it, the content words of the user's
   previous turn — **made standalone first, by this same rule** — that it does not already
   contain, in their order, at most ``MAX_WORDS`` of them. The chain follows the user's turns back
   as far as each one lacks a subject: "and Pro?" after "what does Basic cost?" after "plans?" reads
   as "and Pro? (Basic cost plans)".

Only user turns are read: agent answers are long and name many things, so their words bring in as
much noise as subject (measured: adding the first sentence of the last answer lost 0.02–0.06 nDCG@5
on fiqa, the collection the rule was built on). Content words are words that are not in
:data:`STOPWORDS` (function words, question words, and the generic verbs of requests: tell,
explain, difference, happen, …).

**Parameters and how they were chosen.** ``SHORT`` = 2 and ``MAX_WORDS`` = 8 were picked on MTRAG's
*fiqa* conversations alone (grid SHORT ∈ {1, 2, 3} × MAX_WORDS ∈ {4, 8, 16, all}, by the mean nDCG@5
of a MiniLM and a BM25 ranking of the corpus) and then checked on the *ibmcloud* conversations,
which played no part in the choice (``bench/conversations_bench.py``; figures in
``docs/conversations.md``). Nothing depends on the data set at run time.

Foundations of the conversations package: imports only :mod:`evaluators.types`. A labeler
takes the questions it judges through :func:`as_standalone`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from ..types import SentencizedCase, TestCase, Turn

#: At most this many content words and a question lacks a subject.
SHORT = 2
#: At most this many words of the earlier turn are brought in.
MAX_WORDS = 8

#: Words that are not the subject of a question: function words, question words, pronouns, and the
#: generic words of a request ("tell me the difference", "what happens").
STOPWORDS = frozenset("""
a an the and or but if then so of to in on at by for with from into about as is are was were be been being
do does did done doing have has had having i me my mine we us our you your yours he him his she her it its
they them their this that these those there here what which who whom whose when where why how can could
should would will shall may might must not no yes ok okay please thanks thank just also too very much many
more most some any all each other such same than s t don doesn didn isn aren wasn weren won wouldn couldn
shouldn let lets get got make tell know think mean say said like want need one ones way thing things kind
lot really well again still even only own over under up down out off whats difference between happen
happens happened good better best bad hi hello sure right wrong type types different example possible
able use used using help explain define meaning means give show find
""".split())

#: Words that refer back to something said before.
ANAPHORA = frozenset("""
it its itself this that these those they them their theirs he him his she her one ones such same former
latter there both either neither other others another
""".split())

#: Openings of a follow-up question (lower case, matched at the start).
FOLLOW_UPS = ("and ", "but ", "or ", "so ", "then ", "also ", "what about", "how about", "and what", "what if",
              "ok", "okay", "yes", "no,", "no ", "i mean", "you mean", "you said", "you mention", "that ",
              "this ", "is it", "are they", "does it", "do they", "why not")

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-&.]*[A-Za-z0-9]|[A-Za-z0-9]")


def _norm(word: str) -> str:
    w = word.lower().replace("’", "'")
    return w[:-2] if w.endswith("'s") else w


def words(text: str) -> list[str]:
    """The words of ``text`` as written (numbers, hyphenated and dotted words kept whole)."""
    return _WORD.findall(text)


def content_words(text: str) -> list[str]:
    """The words of ``text`` that can name a subject (not :data:`STOPWORDS`, not negations)."""
    return [w for w in words(text)
            if len(w) > 1 and _norm(w) not in STOPWORDS and not _norm(w).endswith("n't")]


def lacks_subject(question: str, short: int = SHORT) -> bool:
    """True when ``question`` needs the turns before it (see the module docstring, step 1)."""
    if len(content_words(question)) <= short:
        return True
    if any(_norm(w) in ANAPHORA for w in words(question)):
        return True
    return question.strip().lower().startswith(FOLLOW_UPS)


def standalone_question(question: str, history: Sequence[Turn], *, short: int = SHORT,
                        max_words: int = MAX_WORDS) -> str:
    """``question`` made standalone from the earlier turns ``history`` (oldest first): unchanged
    when it has its own subject or there is no earlier user turn; else with the subject of the
    user's previous turn in parentheses after it (see the module docstring)."""
    return _standalone(question, tuple(t.text for t in history if t.speaker == "user"), short, max_words)


@lru_cache(maxsize=65_536)
def _standalone(question: str, users: tuple[str, ...], short: int, max_words: int) -> str:
    if not users or not lacks_subject(question, short):
        return question
    previous = _standalone(users[-1], users[:-1], short, max_words)
    have = {_norm(w) for w in words(question)}
    added: list[str] = []
    for w in content_words(previous):
        n = _norm(w)
        if n not in have:
            have.add(n)
            added.append(w)
            if len(added) >= max_words:
                break
    return f"{question.rstrip()} ({' '.join(added)})" if added else question


def question_of(case: TestCase) -> str | None:
    """The standalone question of a turn of a conversation (``case.history`` given), None for a
    case without history (it is judged against its own question, as it always was)."""
    return standalone_question(case.question, case.history) if case.history else None


def as_standalone(items: Sequence[SentencizedCase]) -> list[SentencizedCase]:
    """``items`` as a labeler judges them: each turn of a conversation with its question made
    standalone; a case without history (or whose question is standalone already) is the same object."""
    out: list[SentencizedCase] = []
    for it in items:
        q = question_of(it.case)
        if q is None or q == it.case.question:
            out.append(it)
        else:
            out.append(it.model_copy(update={"case": it.case.model_copy(update={"question": q})}))
    return out


__all__ = ["ANAPHORA", "FOLLOW_UPS", "MAX_WORDS", "SHORT", "STOPWORDS", "as_standalone", "content_words",
           "lacks_subject", "question_of", "standalone_question", "words"]
