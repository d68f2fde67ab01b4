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
4. **A real swap.** The response's term is absent from the document sentence and from the question
   and the conversation's earlier turns, the document's term is absent from the whole response (a
   paraphrase keeps the entity), the two are not spellings of one another (stem, lemma, shared
   prefix, acronym, abbreviation) nor synonyms (their embeddings), and neither is a month or a day.
5. **Guards against false alarms** (``GUARDS``; issue 47 counted them on the supported sentences of
   the dev sets): both sides name the same kind of thing (a name for a name, a noun for a noun, a code
   for a code — never a verb, adjective or adverb, by lemminflect's lexicon, nor capitalised
   dictionary words such as a menu item "Try Now"); no verb on both sides of the slot (another
   predicate, not a swapped term); derived forms are one term ("China" / "Chinese"); and no document
   sentence states the term beside the claim's other words (``_stated``: an answer that joins two
   sentences takes its term from there). A stricter reading — the term in no document at all — was
   measured and not kept (``bench/i47_guards.py``): it removes most real swaps, which put a term
   the documents use elsewhere into the wrong relation.

The result is a :class:`~evaluators.labelers.heuristic_contradiction.Clash` of kind
``"substitution"`` with the phrases as written (a capital that only starts the sentence is dropped).
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from ..sentencize import split_sentences
from .heuristic_contradiction import DATE_WORDS, Clash
from .heuristic_features import analyze, strip_markup
from .heuristic_text import NEGATIONS, NUM_WORDS, STOPWORDS, lemma_forms, stem, word_pos, word_ranks

#: A word is common when it is among this many most frequent whole words of the model's vocabulary
#: (of ~21,700): the size of an everyday vocabulary, set once, not fitted.
COMMON_RANK = 10_000
#: Aligned content words the two sentences must share besides the slot.
MIN_ALIGNED = 2
#: Most content words a slot may hold on either side (more is another clause, not a swapped term).
MAX_SLOT = 4
#: Two terms whose embeddings are at least this close are synonyms ("Penal Law" / "Penal Code"), never
#: a swap: set above every swapped pair of ``tests/test_entities.py`` (Tokyo / Osaka 0.81), not on dev sets.
SYNONYM_COS = 0.82
#: Words of the claim (besides the term) a document sentence naming the term must share to state it
#: for this claim (fewer will do when they are half of that sentence's words): see ``_stated``.
STATED_WORDS = 3
#: The guards against false alarms (module docstring); ``bench/i47_guards.py`` measures sets of them.
GUARDS = frozenset({"numbers", "kind", "stated", "abbreviation", "lemma", "synonym", "derived", "clause",
                    "title", "split"})
_NOMINAL = frozenset({"NOUN", "PROPN"})
_PREFIXES = ("non", "un", "anti", "multi", "semi", "pre", "post", "sub", "inter", "over", "under", "counter")
_ACRONYM_SKIP = frozenset({"of", "and", "for", "the", "&", "de", "du", "la"})
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-]*")
_CODE = re.compile(r"(?=.*[A-Za-z])(?=.*\d)")
#: Endings of verbs, adverbs and adjectives (a rare word with one is not read as a term).
_NOT_NOUN = ("ed", "ing", "ly", "ize", "izes", "ise", "ises", "ify", "ifies", "ive", "ous", "able", "ible",
             "ful", "less", "ic", "ical", "ary", "ish")
_CLAUSE = re.compile(r"(?:^|[:;(\"“‘\n.!?]|\s[-–—•*]|^\s*\d+[.)])\s*$")
_FLAT = re.compile(r"[^a-z0-9]")
_ABBREV_END = re.compile(r"(?:^|\s)[A-Z][a-z]{0,3}\.$")  # "No.", "St.", "Dr.", "Inc.", "J."
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
    if low[0].isdigit() and (not _CODE.match(low) or "numbers" in GUARDS):
        return False  # a number, or a number with its unit glued on ("12V", "30Hz", "44K"): numbers' own check
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
    if _same(a, b) or ("lemma" in GUARDS and lemma_forms(a) & lemma_forms(b)):
        return True
    a2, b2 = sorted((_FLAT.sub("", a), _FLAT.sub("", b)), key=len)
    if a2 == b2 or (len(a2) >= 2 and a2.isalpha() and b2.startswith(a2) and b2[len(a2)].isalpha()):
        return True
    if b in a.split("-") or a in b.split("-"):
        return True
    if "derived" in GUARDS and len(a2) >= 5 and len(os.path.commonprefix((a2, b2))) >= len(a2) - 1:
        return True  # a derived form: "China" / "Chinese", "Canada" / "Canadian"
    return min(len(a2), len(b2)) >= 5 and difflib.SequenceMatcher(None, a2, b2).ratio() >= 0.8  # "Schieffen"


def _acronym(short: str, words: list[str]) -> bool:
    return len(short) >= 2 and short.isalpha() and short.upper() == "".join(w[0] for w in words).upper()


def _kind(run: list[_Tok], text: str, seen: frozenset[str] | _Seen) -> str | None:
    """What a phrase names: "code" ("AX3000"), "name" (capitalised where a common word would not
    be, an acronym), "title" (capitalised dictionary words), "noun" (lower case), "either" (capitalised
    only at a sentence or clause start, lower case elsewhere); None when its head is no noun in
    lemminflect's lexicon ("Using", "Several", "darkens", "nonlinear")."""
    if any(any(ch.isdigit() for ch in t.low) for t in run):
        return "code"
    head = run[-1]
    w = head.low.split("-")[-1]
    pre = next((x for x in _PREFIXES if "derived" in GUARDS and w.startswith(x) and len(w) - len(x) >= 4), "")
    pos = word_pos(w) or word_pos(w[len(pre):])  # "nonlinear": "linear", an adjective
    if pos and not pos & _NOMINAL and not head.text.isupper():
        return None
    if any(t.text.isupper() and len(t.text) > 1 for t in run):
        return "name"
    if not any(t.text[:1].isupper() for t in run):
        return "noun"
    if all(not t.text[:1].isupper() or (_clause_start(text, t.start) and t.low in seen) for t in run):
        return "either"
    if "title" in GUARDS and len(run) > 1 and all(word_pos(t.low) and not _rare(t.low) for t in run):
        return "title"  # capitalised dictionary words (a menu item, a heading: "Try Now"), not a name
    return "name"


def _verb(slot: Sequence[_Tok]) -> bool:
    """A slot holds a verb (lemminflect knows a word only as one): with a verb on both sides the
    slot is another predicate ("commemorating the resurrection" / "surrounded by quirks"), not a
    swapped term."""
    return any((pos := word_pos(t.low)) and "VERB" in pos and not pos & _NOMINAL for t in slot)


def _same_kind(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return False
    return a == b or (a == "either" and b in ("name", "noun")) or (b == "either" and a in ("name", "noun"))


def _initials(run: list[_Tok], text: str) -> str:
    """Initials of the capitalised words from the phrase on ("Illinois State University" -> ISU;
    "of", "and", "the" skipped), as far as the capitals run in ``text``."""
    words = _raw_words(text)
    i = next((k for k, (a, _) in enumerate(words) if a == run[0].start), -1)
    out = ""
    while 0 <= i < len(words):
        a, low = words[i]
        if text[a].isupper():
            out += low[0]
        elif low not in _ACRONYM_SKIP:
            break
        i += 1
    return out


def _abbreviates(a: list[list[_Tok]], at: str, b: list[list[_Tok]], bt: str) -> bool:
    """One side is an acronym of the other's words as written in its sentence ("ISU" for
    "Illinois State [University]", "EPA" for "Environmental Protection Agency"): the acronym's letters
    and the other phrase's initials, one a start of the other, two letters at least."""
    for x, y, yt in ((a, b, bt), (b, a, at)):
        for run in x:
            acro = "".join(t.text for t in run)
            if not (acro.isalpha() and acro.isupper() and len(acro) >= 2):
                continue
            for other in y:
                ini = _initials(other, yt)
                if len(ini) >= 2 and (acro.lower().startswith(ini) or ini.startswith(acro.lower())):
                    return True
    return False


def _stated(claimed: list[list[_Tok]], R: Sequence[_Tok], doc_sentences: Sequence[str]) -> bool:
    """The documents state a claimed term in a sentence about the claim: a document sentence holds
    one of its words (by stem or lemma) and the claim's other words are there too — at least
    ``STATED_WORDS`` of them, or (a short sentence: "She was born in Guangzhou, China.") at least half
    of that sentence's other content words. Then the response took the term from there (a multi-hop
    answer, two sentences joined), not swapped it. A sentence that names the term in another
    connection ("improves insulin sensitivity" beside "Insulin injections are the usual first-line
    medicine"; "…, according to the Environmental Protection Agency" beside a death toll the WHO
    estimates) does not count."""
    terms = {t.key for run in claimed for t in run}
    lemmas = {f for run in claimed for t in run for f in lemma_forms(t.low)}
    rest = {t.key for t in R} - terms
    for sent in doc_sentences:
        toks = _tokens(_plain(sent))
        hit = {t.key for t in toks if t.key in terms or lemma_forms(t.low) & lemmas}
        if not hit:
            continue
        others = {t.key for t in toks} - hit - terms
        shared = rest & others
        if len(shared) >= STATED_WORDS or (shared and len(shared) >= 0.5 * len(others)):
            return True
    return False


def _synonyms(a: str, b: str) -> bool:
    """The two phrases name one thing (their embeddings at least ``SYNONYM_COS`` apart); the encoder
    is the one ``trace`` loaded already, so this costs two short texts per candidate swap."""
    from ..encoder import embeddings

    v = embeddings.encode([a, b]).reshape(2, -1)
    return float(v[0] @ v[1]) >= SYNONYM_COS


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


def find(resp_text: str, doc_text: str, response: str = "", documents: str | Sequence[str] = "",
         question: str = "") -> list[Clash]:
    """The substitutions of one response sentence against the document sentence it best matches
    (``response``: the whole response, whose words never count as swapped in; ``documents``: the
    case's document sentences (or its text, split here): a term they state beside the claim's other
    words is not swapped in, and a term is written the way they write it; ``question``: a term the
    question names is the answer's subject, taken from wherever the documents state it, not a
    swap)."""
    if isinstance(documents, str):
        documents = tuple(split_sentences(documents)) if documents else ()
    doc_sentences = tuple(documents)
    all_docs = " ".join(doc_sentences)
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
             and aligned >= 0.5 * (len(R) - (i2 - i1))  # the rest of the sentence must match
             and not ("clause" in GUARDS and _verb(R[i1:i2]) and _verb(D[j1:j2]))]
    if aligned < MIN_ALIGNED or not slots:
        return []
    asked = {t.key for t in _tokens(_plain(question))} | _continued(doc_text, doc_sentences)
    words = {t.low for t in _tokens(_plain(response or resp_text))} | {t.low for t in R}
    resp_words = words | {stem(w) for w in words}
    seen = _Seen((_lower_seen(all_docs), _lower_seen(response), _lower_seen(rt), _lower_seen(dt)))

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
        if not _guarded(claimed, rt, said, dt, seen, R, doc_sentences):
            continue
        elsewhere = all_docs + " " + response
        out.append(Clash("substitution", tuple(_display(r, rt, elsewhere) for r in claimed),
                         tuple(_display(d, dt, elsewhere) for d in said)))
    return out


def _continued(doc_text: str, doc_sentences: Sequence[str]) -> set[str]:
    """The words of the sentence after ``doc_text`` when the splitter cut it at an abbreviation
    ("… discovered at the Premier No." | "2 mine in Cullinan, South Africa."): one sentence, so a
    term the continuation names is not swapped in."""
    if "split" not in GUARDS or not _ABBREV_END.search(doc_text) or doc_text not in doc_sentences:
        return set()
    i = doc_sentences.index(doc_text) + 1
    return {t.key for t in _tokens(_plain(doc_sentences[i]))} if i < len(doc_sentences) else set()


def _guarded(claimed: list[list[_Tok]], rt: str, said: list[list[_Tok]], dt: str, seen: _Seen,
             R: Sequence[_Tok], doc_sentences: Sequence[str]) -> bool:
    """A candidate swap passes every guard of ``GUARDS``, cheapest first: the two sides name the
    same kind of thing (``_kind``), neither abbreviates the other, the documents do not state the
    claimed term beside the claim's other words (``_stated``), and the two are not synonyms."""
    if "kind" in GUARDS:
        kinds_c = [_kind(r, rt, seen) for r in claimed]
        kinds_s = [_kind(r, dt, seen) for r in said]
        if not any(_same_kind(a, b) for a in kinds_c for b in kinds_s):
            return False
    if "abbreviation" in GUARDS and _abbreviates(claimed, rt, said, dt):
        return False
    if "stated" in GUARDS and _stated(claimed, R, doc_sentences):
        return False
    if "synonym" in GUARDS and not any(any(ch.isdigit() for ch in t.low) for r in claimed + said for t in r):
        a = " ".join(rt[r[0].start: r[-1].start + len(r[-1].text)] for r in claimed)
        b = " ".join(dt[r[0].start: r[-1].start + len(r[-1].text)] for r in said)
        if _synonyms(a, b):
            return False
    return True


def find_in(ev: dict, resp_text: str, doc_text: str, response: str, documents: str | Sequence[str],
            question: str, partial_floor: float) -> list[Clash]:
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
