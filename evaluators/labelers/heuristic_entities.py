"""Substituted entities: a response sentence that matches a document sentence word for word except
that one specific term stands where the document has another ("Insulin injections are the usual
first-line medicine for type 2 diabetes." against "Metformin is recommended as the first-line
medication for most adults with type 2 diabetes."). The commonest hallucination there is; the
``trace`` labeler treats it like a clashing number or date: the sentence is *not supported* and its
explanation says what the documents say instead ("the documents say metformin, not insulin
injections (0a)").

How a substitution is found (nothing fitted, nothing per dataset):

1. **Alignment.** The content words of the response sentence and of the document sentence it best
   matches are aligned in order (``difflib``; a word matches its stem, a shared stem of five letters
   or more for lower-case words: "medicine" ~ "medication"). The sentences must match otherwise: at
   least ``MIN_ALIGNED`` aligned words and at least half of the response sentence's content words.
2. **Slot.** Between the same two aligned anchors (or a sentence edge) each side has a short run of
   unaligned words (at most ``MAX_SLOT`` words): the slot whose filler was changed.
3. **Specific terms on both sides.** A word of the response's slot and a word of the document's slot
   are *specific*: a name (capitalised where a common word would not be, an acronym), a code with
   digits ("AX3000"), or a word outside the ``COMMON_RANK`` most frequent words of the embedded
   model's vocabulary ("metformin", "insulin"). Generic words never fire ("medicine" for
   "metformin" is vaguer, not wrong), nor do numbers (``heuristic_contradiction`` reads them).
4. **A real swap.** The response's term is absent from the document sentence, the document's term is
   absent from the whole response (a paraphrase keeps the entity), the two are not spellings of one
   another (stem, shared prefix, acronym), and neither is a month or a day.

The result is a :class:`~evaluators.labelers.heuristic_contradiction.Clash` of kind
``"substitution"`` with the phrases as written (a capital that only starts the sentence is dropped).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from .heuristic_contradiction import DATE_WORDS, Clash
from .heuristic_features import analyze, strip_markup
from .heuristic_text import NEGATIONS, NUM_WORDS, STOPWORDS, stem, word_ranks

#: A word is common when it is among this many most frequent whole words of the model's vocabulary
#: (of ~21,700): the size of an everyday vocabulary, set once, not fitted.
COMMON_RANK = 10_000
#: Aligned content words the two sentences must share besides the slot.
MIN_ALIGNED = 2
#: Most content words a slot may hold on either side (more is another clause, not a swapped term).
MAX_SLOT = 4
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-]*")
_CODE = re.compile(r"(?=.*[A-Za-z])(?=.*\d)")
#: Endings of verbs, adverbs and adjectives (a rare word with one is not read as a term).
_NOT_NOUN = ("ed", "ing", "ly", "ize", "izes", "ise", "ises", "ify", "ifies", "ive", "ous", "able", "ible",
             "ful", "less", "ic", "ical", "ary", "ish")
_CLAUSE = re.compile(r"(?:^|[:;(\"“‘\n.!?]|\s[-–—•*]|^\s*\d+[.)])\s*$")
_FLAT = re.compile(r"[^a-z0-9]")
#: Words after which a word is a verb ("to configure", "can reset", "you navigate").
_VERB_BEFORE = frozenset("""to can could will would should shall may might must you we they i please not
    don't doesn't didn't cannot can't won't then also""".split())
_DETERMINERS = frozenset("the a an this that these those your its their our my his her any all each".split())


@dataclass(frozen=True)
class _Tok:
    text: str     # as written
    low: str      # lower case, "'s" dropped
    key: str      # stem
    start: int    # offset in the (markup-stripped) sentence
    first: bool   # the sentence's first word


@lru_cache(maxsize=50_000)
def _tokens(text: str) -> tuple[_Tok, ...]:
    out: list[_Tok] = []
    first = -1
    for m in _WORD.finditer(text):
        if first < 0:
            first = m.start()
        w = m.group(0).rstrip("-'’")
        low = w.lower().replace("’", "'")
        if low.endswith("'s"):
            low, w = low[:-2], w[:-2]
        if not low or low in STOPWORDS or low in NEGATIONS or len(low) < 2:
            continue
        out.append(_Tok(w, low, stem(low), m.start(), m.start() == first))
    return tuple(out)


def _forms(low: str) -> tuple[str, ...]:
    """The word and its singular forms (the vocabulary holds "injection", not "injections")."""
    forms = [low]
    if low.endswith("ies") and len(low) > 4:
        forms.append(low[:-3] + "y")
    if low.endswith("es") and len(low) > 4:
        forms.append(low[:-2])
    if low.endswith("s") and len(low) > 3:
        forms.append(low[:-1])
    return tuple(forms)


@lru_cache(maxsize=100_000)
def _rare(low: str) -> bool:
    ranks = word_ranks()
    if not ranks:
        return False
    parts = [p for p in low.split("-") if p] or [low]
    return any(all(ranks.get(f, COMMON_RANK) >= COMMON_RANK for f in _forms(p)) for p in parts if p.isalpha())


@lru_cache(maxsize=50_000)
def _names(text: str) -> frozenset[str]:
    return frozenset(n.lower() for n in analyze(text).names)


class _Seen(tuple):
    """Words written in lower case somewhere, over several texts (membership in any)."""

    def __contains__(self, w: object) -> bool:
        return any(w in part for part in tuple.__iter__(self))


@lru_cache(maxsize=4096)
def _plain(text: str) -> str:
    return strip_markup(text)


def _candidate(t: _Tok) -> bool:
    """Could be a specific term (capitalised, a code or rare): the cheap test before aligning."""
    return t.text[:1].isupper() or bool(_CODE.match(t.low)) or _rare(t.low)


def specific(tok: _Tok, text: str, lower_seen: frozenset[str] | _Seen = frozenset(),
             next_cap: bool = False) -> bool:
    """A name, a code or a rare noun (see the module docstring); never a number, a date word, a
    word whose ending or place reads as a verb, adverb or adjective ("-ing", "-ize", after "to" /
    "can" / "you", an imperative before "the"), nor a capitalised word that only starts the
    sentence or a clause ("Using Smart Hub"): at such a start a word is a name only when the texts
    never write it in lower case (``lower_seen``) and it is rare or starts a run of capitalised
    words (``next_cap``: "Neil Armstrong"). In title-case text (most words capitalised: menu paths,
    headings) capitals say nothing, so only codes, acronyms and rare words count."""
    low = tok.low
    if low[0].isdigit() and not _CODE.match(low):
        return False
    if low in DATE_WORDS or low in NUM_WORDS:
        return False
    if _CODE.match(low) or (tok.text.isupper() and len(tok.text) > 1):
        return True
    start = _clause_start(text, tok.start)
    if low.endswith(_NOT_NOUN) and (start or not tok.text[0].isupper()):
        return False
    if _verb_place(text, tok, start):
        return False
    if tok.text[0].isupper() and not _title_case(text):
        if not start:
            if low in _names(text):
                return True
        elif low not in lower_seen and (next_cap or _rare(low)):
            return True
    return _rare(low)


def _verb_place(text: str, tok: _Tok, start: bool) -> bool:
    words = _raw_words(text)
    i = next((k for k, (a, _) in enumerate(words) if a == tok.start), -1)
    if i > 0 and words[i - 1][1] in _VERB_BEFORE and text[words[i - 1][0]: tok.start].count(" ") <= 2:
        return True
    return start and 0 <= i < len(words) - 1 and words[i + 1][1] in _DETERMINERS


@lru_cache(maxsize=50_000)
def _raw_words(text: str) -> tuple[tuple[int, str], ...]:
    return tuple((m.start(), m.group(0).lower()) for m in _WORD.finditer(text))


@lru_cache(maxsize=50_000)
def _title_case(text: str) -> bool:
    words = [w for w in _WORD.findall(text) if w[0].isalpha() and w.lower() not in STOPWORDS]
    return len(words) >= 6 and sum(w[0].isupper() for w in words[1:]) > 0.8 * (len(words) - 1)


@lru_cache(maxsize=4096)
def _lower_seen(text: str) -> frozenset[str]:
    """Words the text writes in lower case somewhere."""
    return frozenset(w.lower() for w in _WORD.findall(text) if w[0].islower())


def _clause_start(text: str, start: int) -> bool:
    return bool(_CLAUSE.search(text[:start]))


def _same(a: str, b: str) -> bool:
    """One word in two forms (for the alignment): equal, or a shared prefix of five letters or more
    that is most of the shorter word ("medicine" / "medication")."""
    if a == b:
        return True
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= 5 and n >= 0.6 * min(len(a), len(b))


def _variant(a: str, b: str) -> bool:
    """Two spellings of one term (never read as a swap): :func:`_same`; one written without its
    hyphens or spaces ("case-fatality" / "casefatality"); a part of a hyphenated word ("al-Qaeda" /
    "Qaeda"); an abbreviation that starts the other ("Gov" / "Governor", "Matt" / "Matthew"); a
    misspelling (four fifths of the letters in common: "Schlieffen" / "Schieffen")."""
    if _same(a, b):
        return True
    a2, b2 = sorted((_FLAT.sub("", a), _FLAT.sub("", b)), key=len)
    if a2 == b2 or (len(a2) >= 2 and a2.isalpha() and b2.startswith(a2) and b2[len(a2)].isalpha()):
        return True
    if b in a.split("-") or a in b.split("-"):
        return True
    return min(len(a2), len(b2)) >= 5 and difflib.SequenceMatcher(None, a2, b2).ratio() >= 0.8  # "Schieffen"


def _acronym(short: str, words: list[str]) -> bool:
    return len(short) >= 2 and short.isalpha() and short.upper() == "".join(w[0] for w in words).upper()


def _display(toks: list[_Tok], text: str, elsewhere: str) -> str:
    """The phrase as written; a capital that only starts the sentence is dropped ("Insulin
    injections" -> "insulin injections") when the word is common or written lower-case elsewhere."""
    phrase = text[toks[0].start: toks[-1].start + len(toks[-1].text)]
    t = toks[0]
    if t.first and t.text[:1].isupper() and not t.text.isupper():
        if t.low not in _names(text) or re.search(rf"\b{re.escape(t.low)}\b", elsewhere):
            phrase = phrase[:1].lower() + phrase[1:]
    return phrase


def _runs(toks: Sequence[_Tok], idx: list[int]) -> list[list[_Tok]]:
    """The specific words ``idx`` of a slot as phrases: adjacent specific words
    form one ("Insulin injections", "Buzz Aldrin"); at most two phrases."""
    runs: list[list[_Tok]] = []
    for i in idx:
        t = toks[i]
        if runs and runs[-1][-1] is toks[i - 1] and t.start - toks[i - 1].start < len(toks[i - 1].text) + 3:
            runs[-1].append(t)
        else:
            runs.append([t])
    return runs[:2]


def find(resp_text: str, doc_text: str, response: str = "", documents: str = "", question: str = ""
         ) -> list[Clash]:
    """The substitutions of one response sentence against the document sentence it best matches
    (``response``: the whole response, whose words never count as swapped in; ``documents``: all
    document text, used to write a term the way the documents write it; ``question``: a term the
    question names is the answer's subject, taken from wherever the documents state it, not a
    swap)."""
    rt, dt = _plain(resp_text), _plain(doc_text)
    R, D = _tokens(rt), _tokens(dt)
    if len(R) < MIN_ALIGNED + 1 or len(D) < MIN_ALIGNED + 1:
        return []
    dkeys = [t.key for t in D]
    rset = {t.key for t in R}
    # cheap pre-check: a possible term on each side, absent from the other sentence
    if not (any(_candidate(t) for t in R if t.key not in dkeys) and any(_candidate(t) for t in D if t.key not in rset)):
        return []
    rkeys = []
    for t in R:
        k = t.key
        if k not in dkeys and len(t.low) >= 5 and not t.text[:1].isupper():
            k = next((d.key for d in D if not d.text[:1].isupper() and _same(t.low, d.low)), k)
        rkeys.append(k)
    ops = difflib.SequenceMatcher(None, rkeys, dkeys, autojunk=False).get_opcodes()
    aligned = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    slots = [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in ops
             if tag == "replace" and i2 - i1 <= MAX_SLOT and j2 - j1 <= MAX_SLOT
             and aligned >= 0.5 * (len(R) - (i2 - i1))]  # the rest of the sentence must match
    if aligned < MIN_ALIGNED or not slots:
        return []
    asked = {t.key for t in _tokens(_plain(question))}
    words = {t.low for t in _tokens(_plain(response or resp_text))} | {t.low for t in R}
    resp_words = words | {stem(w) for w in words}
    seen = _Seen((_lower_seen(documents), _lower_seen(response), _lower_seen(rt), _lower_seen(dt)))

    def caps(toks: Sequence[_Tok], text: str) -> list[bool]:
        return [i + 1 < len(toks) and toks[i + 1].text[:1].isupper()
                and not text[t.start + len(t.text): toks[i + 1].start].strip(" -") for i, t in enumerate(toks)]

    rc, dc = caps(R, rt), caps(D, dt)
    dlows = [d.low for d in D]

    def r_ok(i: int) -> bool:
        t = R[i]
        return (specific(t, rt, seen, rc[i]) and t.key not in dkeys and t.key not in asked
                and not any(_variant(t.low, d) for d in dlows))

    def d_ok(j: int) -> bool:
        t = D[j]
        return (specific(t, dt, seen, dc[j]) and t.low not in resp_words and t.key not in resp_words
                and not any(_variant(t.low, w) for w in words))

    out: list[Clash] = []
    for i1, i2, j1, j2 in slots:
        claimed = _runs(R, [i for i in range(i1, i2) if r_ok(i)])
        said = _runs(D, [j for j in range(j1, j2) if d_ok(j)])
        if not claimed or not said:
            continue
        cl = [t.low for run in claimed for t in run]
        sd = [t.low for run in said for t in run]
        if any(_variant(a, b) for a in cl for b in sd) or _acronym(cl[0], sd) or _acronym(sd[0], cl):
            continue
        elsewhere = documents + " " + response
        out.append(Clash("substitution", tuple(_display(r, rt, elsewhere) for r in claimed),
                         tuple(_display(d, dt, elsewhere) for d in said)))
    return out

def find_in(ev: dict, resp_text: str, doc_text: str, response: str, documents: str, question: str,
            partial_floor: float) -> list[Clash]:
    """:func:`find` when the best-matching sentence of the evidence ``ev`` is a real match (the
    condition of ``heuristic_contradiction.find``: similarity from ``partial_floor`` or half the
    content words), else nothing."""
    if not ev or ev.get("best", -1) < 0 or (ev["sim_max"] < partial_floor and ev["cov_top"] < 0.5):
        return []
    return find(resp_text, doc_text, response, documents, question)


def merge(clashes: list[Clash], swaps: list[Clash]) -> list[Clash]:
    """Number / name clashes with the substitutions; a name clash that a substitution already
    words (the same claimed name) is left out, so a reason is never given twice."""
    if not swaps:
        return clashes
    claimed = {w.lower() for c in swaps for p in c.claimed for w in p.split()}
    kept = [c for c in clashes if not (c.kind == "name"
                                       and any(w.lower() in claimed for p in c.claimed for w in p.split()))]
    return kept + swaps
