"""A sentence read as *subject* + *verb group* + *the rest*, for the offline question rules.

The verb group is found by the closed class of auxiliaries (is, was, has, can, ...), or by a word
the dictionary knows as a finite verb standing after the subject (a word that may also be a noun —
"supports", "effects" — counts as the verb only when no auxiliary follows soon and it does not
follow an adjective); a capitalised base-form verb opening the sentence makes it an imperative,
whose subject is the reader. A list marker and a linking phrase ("However, ") in front are left out.

Contract: :func:`read_clause` returns a :class:`Clause` over the sentence's own text (every token an
exact piece of it) or None when the sentence has no verb group the rules trust (a negated verb, a
subordinate clause before the verb, a *do* auxiliary); :func:`remainder` gives the words after the
verb without a fact's span and without parentheses, up to the end of the fact's clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .offline_words import (
    ADVERBS,
    AUX_BE,
    AUX_DO,
    AUX_HAVE,
    AUXILIARIES,
    CONJUNCTIONS,
    DETERMINERS,
    LINKERS,
    NEG_AUX,
    NEGATIONS,
    PERSONAL,
    PREPOSITIONS,
    PRONOUNS,
    VAGUE_SUBJECT,
    Tok,
    can_be,
    guessed_verb,
    is_participle,
    known,
    lower_first,
    tokens,
    verb_lemma,
    verb_tag,
)

LIST_MARKER = re.compile(r"^\s*(?:[-*•+▪◦]|\d{1,3}[.)]|\(?[a-z][.)])\s+")
MARKUP = re.compile(r"https?://|www\.|\]\(|[|{}<>=\\`@#]|\.\w{2,4}/|_{2,}|\*\*")
BOUNDARY = frozenset((",", ";", ":", "–", "—", "(", ")", "[", '"', "“", "”"))
CLAUSE_WORDS = frozenset(("while", "whereas", "because", "although", "though", "which", "who", "whom", "whose",
                           "where", "so", "but", "unless", "since", "if", "when", "as", "that", "and", "or"))

@dataclass
class Clause:
    text: str  # the sentence from where the clause starts (list marker / linker removed)
    offset: int  # where ``text`` starts in the sentence
    toks: list[Tok]
    subj: tuple[int, int]
    verb: tuple[int, int]
    aux: Tok | None
    main: list[Tok]  # lexical verb(s) of the group (coordinated ones too)
    imperative: bool = False
    #: A phrase fronted before the subject ("Each year in the U.S. on average"), moved to the end of
    #: the question; "" when none.
    front: str = ""
    #: Tokens inside the subject left out of it: an aside between commas (", like a corporation,").
    skip: tuple[int, int] | None = None
    #: The subject as the question names it, when the sentence's own ("the pilot") was resolved to the
    #: name the page gives it ("the California State Park Adventure Pass pilot").
    named: str | None = None
    #: The verb is negated ("does not perform", "cannot contain"); only read with ``negation=True``.
    negated: bool = False

    @property
    def aux_word(self) -> str:
        """The auxiliary as a question puts it first ("cannot" -> "can"; "" when there is none)."""
        if self.aux is None:
            return ""
        return NEG_AUX.get(self.aux.low, self.aux.low)


def strip_front(sentence: str) -> int:
    """Offset past a list marker and a linking phrase ("However, ")."""
    off = 0
    m = LIST_MARKER.match(sentence)
    if m:
        off = m.end()
    low = sentence[off:].lower()
    for linker in LINKERS:
        if low.startswith(linker + ",") or low.startswith(linker + " "):
            rest = off + len(linker)
            if sentence[rest:rest + 1] == ",":
                rest += 1
            while rest < len(sentence) and sentence[rest] == " ":
                rest += 1
            if sentence[rest:rest + 2] in ("- ", "– ", "— "):  # "Otherwise - IRA is not ..."
                rest += 2
            return rest
    return off


def is_adverb(t: Tok) -> bool:
    return t.low in ADVERBS or (t.low.endswith("ly") and len(t.low) > 4 and can_be(t.low, "ADV"))


def finite_verb(toks: list[Tok], i: int) -> bool:
    """Whether ``toks[i]`` reads as the finite verb after a subject ``toks[:i]``."""
    t, prev = toks[i], toks[i - 1]
    if guessed_verb(t.text) is not None:
        return _guessed_finite(toks, i)
    if not t.is_word or t.is_cap or verb_tag(t.text) not in ("VBD", "VBZ", "VBP"):
        return False
    if prev.low in DETERMINERS or prev.low in PREPOSITIONS or prev.low in ("to", "and", "or", ","):
        return False
    if is_adverb(prev) and (i < 2 or toks[i - 2].low in DETERMINERS):
        return False
    head = next((toks[k] for k in range(i - 1, -1, -1) if not is_adverb(toks[k])), prev)
    if verb_tag(t.text) == "VBP" and not (head.low.endswith("s") and not head.low.endswith("ss")) and \
            head.low not in ("people", "children", "men", "women", "data", "media"):
        return False  # a base form after a singular word is a noun ("the power supply")
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if nxt is not None and (nxt.low in AUXILIARIES or nxt.low == "of"):
        return False
    if nxt is not None and can_be(t.text, "NOUN") and t.low.endswith("s") and not nxt.is_cap and \
            verb_tag(nxt.text) == "VBP" and can_be(nxt.text, "VERB") and not can_be(nxt.text, "NOUN"):
        return False  # "Library cards expire ...": the noun's verb comes next
    if can_be(t.text, "NOUN") or can_be(t.text, "ADJ") or t.low.endswith("ed"):
        if can_be(t.text, "NOUN") and (can_be(prev.text, "ADJ") and not can_be(prev.text, "NOUN")
                                       or verb_tag(prev.text) in ("VBN", "VBG")):
            return False  # "actively managed funds"
        for k in range(i + 1, min(len(toks), i + 8)):  # "side effects of X are": the verb comes later
            if toks[k].text in BOUNDARY or toks[k].low in ("that", "which", "who"):
                break
            if toks[k].low in AUXILIARIES:
                return False
    return True


def _guessed_finite(toks: list[Tok], i: int) -> bool:
    """A verb form the dictionary does not hold ("downmixes") is the finite verb only right after a
    determiner and a singular noun ("the service downmixes audio ..."), an object or an adverb after it."""
    if i < 2 or toks[i].is_cap:
        return False
    prev, det = toks[i - 1], toks[i - 2]
    if det.low not in ("the", "a", "an", "this", "each", "every") or not can_be(prev.text, "NOUN") or \
            prev.low.endswith("s"):
        return False
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    return nxt is not None and nxt.is_word and nxt.low not in AUXILIARIES and \
        (nxt.low in DETERMINERS or can_be(nxt.text, "NOUN") or can_be(nxt.text, "ADJ") or is_adverb(nxt))


def lemma_of(t: Tok) -> str | None:
    """The base form of a verb of a clause's verb group (the dictionary's, else the guess for a form it
    does not hold)."""
    g = guessed_verb(t.text)
    return verb_lemma(t.text) or (g[0] if g else None)


def tag_of(t: Tok) -> str | None:
    g = guessed_verb(t.text)
    return verb_tag(t.text) or (g[1] if g else None)


def verb_group(toks: list[Tok], start: int, is_aux: bool) -> tuple[int, list[Tok], bool]:
    """(end, lexical verbs, negated) of the verb group starting at ``start``."""
    j = start + 1
    negated = False
    main: list[Tok] = [] if is_aux else [toks[start]]
    while j < len(toks):
        t = toks[j]
        if t.low in NEGATIONS:
            negated = True
            j += 1
        elif is_adverb(t) and j + 1 < len(toks) and verb_tag(toks[j + 1].text):
            j += 1
        elif is_aux and t.low in ("be", "been", "being", "have") and not main:
            j += 1
        elif is_aux and not main and t.is_word and not t.is_cap and verb_tag(t.text) in ("VBN", "VBD", "VBG", "VBP") \
                and t.low not in PREPOSITIONS and t.low not in DETERMINERS:
            if toks[start].low in AUX_BE and verb_tag(t.text) == "VBP" and not is_participle(t.text):
                break  # "Remote access is access to ...": a base form after "is" is a noun ("is set" is a verb)
            if toks[start].low in AUX_HAVE and verb_tag(t.text) == "VBP" and can_be(t.text, "ADJ"):
                break  # "index funds have lower costs": "have" is the verb, "lower" an adjective
            main.append(t)
            j += 1
        elif main and t.low in ("and", "or") and j + 1 < len(toks) and \
                verb_tag(toks[j + 1].text) == verb_tag(main[-1].text) and not toks[j + 1].is_cap:
            main.append(toks[j + 1])
            j += 2
        else:
            break
    return j, main, negated


#: First words of a phrase that can stand before the subject, up to its comma ("Each year in the U.S.
#: on average, ...", "In 2019, ...", "On weekdays, ...").
_FRONT_START = frozenset(("each", "every", "in", "on", "at", "during", "for", "since", "by", "after", "before",
                          "from", "until", "within", "under", "over", "across", "throughout", "this", "last", "next",
                          "most", "per", "as", "like", "unlike", "according", "starting", "beginning", "today",
                          "currently", "annually", "typically", "usually", "generally", "today", "overall", "together"))
#: Words that open an aside between commas inside a subject ("Business entities, like a corporation, can ...").
_ASIDE = frozenset(("like", "such", "including", "e.g", "i.e", "for", "especially", "particularly", "namely"))


def _front(toks: list[Tok]) -> int:
    """Index of the subject's first token after a fronted phrase and its comma (0 when none)."""
    if not toks or toks[0].low not in _FRONT_START and not (toks[0].low.endswith("ly") and can_be(toks[0].low, "ADV")):
        return 0
    for k in range(1, min(len(toks), 14)):
        t = toks[k]
        if t.text == ",":
            return k + 1 if k >= 2 or toks[0].low.endswith("ly") else 0
        if t.low in AUXILIARIES or t.low in CLAUSE_WORDS - {"and", "or"} or t.text in BOUNDARY or \
                (verb_tag(t.text) in ("VBZ", "VBD") and not can_be(t.text, "NOUN") and not t.is_cap):
            return 0
    return 0


def _aside(toks: list[Tok], i: int) -> int | None:
    """End (index after the second comma) of an aside opening at the comma ``i`` inside a subject."""
    if i + 1 >= len(toks) or toks[i + 1].low not in _ASIDE:
        return None
    for k in range(i + 2, min(len(toks), i + 12)):
        if toks[k].text == ",":
            return k + 1
        if toks[k].low in AUXILIARIES or toks[k].text in BOUNDARY:
            return None
    return None


#: Verbs that open an instruction whatever follows ("Use built-in metrics to ...", "Configure one or more ...").
_COMMANDS = frozenset("use add configure click select create run enter open set choose install enable disable go read "
                      "make check note keep see try ensure verify follow find contact call visit "
                      "specify define deploy connect upload download review edit delete remove type".split())


def read_clause(sentence: str, negation: bool = False) -> Clause | None:
    """The clause of ``sentence`` (see the module docstring); ``negation``: a negated verb group ("does
    not perform", "cannot contain") is read too, with ``Clause.negated`` set (else: None)."""
    off = strip_front(sentence)
    text = sentence[off:].rstrip()
    if text.endswith((".", ":")):
        text = text[:-1]
    front = ""
    toks = tokens(text)
    f = _front(toks)
    if f:
        front = text[:toks[f - 1].start].strip()
        off += toks[f].start
        text = text[toks[f].start:]
        toks = tokens(text)
    if len(toks) < 4:
        return None
    first = toks[0]
    # an imperative: a capitalised base-form verb opening the sentence, an object after it
    if first.is_cap and verb_tag(first.text) == "VBP" and can_be(first.text, "VERB") and len(toks) > 2 and \
            (toks[1].low in DETERMINERS or toks[1].low in ("and", "or") or toks[1].is_cap or
             first.low in _COMMANDS and toks[1].is_word and verb_tag(toks[1].text) not in ("VBZ", "VBD")) and \
            not any(t.low in AUXILIARIES for t in toks[1:12]) and \
            not (toks[1].is_cap and any(not t.is_cap and verb_tag(t.text) == "VBZ" and not can_be(t.text, "NOUN")
                                        for t in toks[2:12])):  # "Bare Metal Server for VPC provides ...": a name
        end, main, negated = verb_group(toks, 0, False)
        if negated:
            return None
        return Clause(text, off, toks, (0, 0), (0, end), None, main, imperative=True, front=front)
    skip: tuple[int, int] | None = None
    i = 1
    while i < min(len(toks), 16):
        t = toks[i]
        if t.text in ("The", "A", "An") and not toks[i - 1].is_num and (toks[i - 1].low not in DETERMINERS) and \
                front == "" and skip is None and i + 2 < len(toks):
            # a run-in heading or a table row's cells before the sentence ("Cloud Type ibm_ctype The cloud
            # type is ..."): the clause starts at the capitalised article
            c = read_clause(text[t.start:], negation)
            if c is not None:
                c.offset += off + t.start
            return c
        if t.text == "(" and (pe := paren_end(toks, i)) is not None and pe < len(toks):
            i = pe  # "A Layer 7 (L7) policy is ...": the parentheses belong to the subject
            continue
        if t.text == "," and skip is None and (ae := _aside(toks, i)) is not None and ae < len(toks):
            skip = (i, ae)
            i = ae
            continue
        if t.low in BOUNDARY or t.low in ("that", "which", "who", "whose", "when", "if", "because"):
            return None
        if (t.low in AUXILIARIES or t.low in NEG_AUX) and not (t.text.isupper() and len(t.text) > 1):
            end, main, negated = verb_group(toks, i, True)
            negated = negated or t.low in NEG_AUX
            if (negated or t.low in AUX_DO) and not negation:
                return None
            if t.low in AUX_DO and not main:
                return None
            if t.low in AUX_HAVE and not main and toks[i + 1].low != "been":  # "has" as the verb: "Mars has two moons"
                return Clause(text, off, toks, (0, i), (i, i + 1), None, [t], front=front, skip=skip)
            return Clause(text, off, toks, (0, i), (i, end), t, main, front=front, skip=skip, negated=negated)
        if finite_verb(toks, i):
            end, main, negated = verb_group(toks, i, False)
            if negated and not negation:
                return None
            a = i
            while a - 1 > 0 and is_adverb(toks[a - 1]) and toks[a - 1].low not in ("only", "just", "even"):
                a -= 1  # "the service automatically detects": the adverb goes with the verb
            return Clause(text, off, toks, (0, a), (a, end), None, main, front=front, skip=skip, negated=negated)
        i += 1
    return None


def reads_back(declarative: str, subject: str) -> bool:
    """Whether a question, put back as a statement (``"the park was established and holds ..."``),
    reads as one clause with ``subject`` as its subject: the same clause reader finds it, and no
    second verb is joined on by "and" / "or" (the question would then ask two things, one of them
    half-said: "When was the park established and holds more than 100 miles of hiking?")."""
    words = declarative.split()
    if not words or words[-1].lower() in DETERMINERS | {"and", "or", "of", "to", "the", "a", "an", ","}:
        return False
    if len(words) < 4:
        return True  # "Mars will have": too short to go wrong
    c = read_clause(" ".join(words))
    if c is None:
        return False
    if not c.imperative and " ".join(subject_text(c).lower().split()) != " ".join(subject.lower().split()):
        return False
    for k in range(c.verb[1], len(c.toks) - 1):
        if c.toks[k].low in ("and", "or"):
            nxt = c.toks[k + 1]
            after = c.toks[k + 2] if k + 2 < len(c.toks) else None
            object_follows = after is not None and (after.low in DETERMINERS or after.is_num or
                                                    after.low in ("more", "less", "fewer", "up", "about"))
            if nxt.low in AUXILIARIES or (verb_tag(nxt.text) in ("VBZ", "VBD") and not nxt.is_cap
                                          and (not can_be(nxt.text, "NOUN") or object_follows)):
                return False
    return True


def subject_ok(c: Clause) -> bool:
    if c.imperative:
        return True
    s = c.toks[c.subj[0]:c.subj[1]]
    if not s or len(s) > 10:
        return False
    if len(s) > 1 and is_adverb(s[0]) and s[1].low in DETERMINERS or any(t.text in ("-", "–", "—") for t in s):
        return False  # "Usually the difference is ...", "Otherwise - IRA is ...": no subject of its own
    quantified = s[0].low in ("each", "every", "all", "many", "most") and len(s) >= 2 and s[1].is_word and \
        s[1].low not in ("of", "the") and s[1].low not in PRONOUNS  # "Each bare metal server", "Many people"
    if s[0].low in VAGUE_SUBJECT and not quantified or any(t.low in PERSONAL for t in s):
        return False
    if s[0].low in CONJUNCTIONS or s[0].low in PREPOSITIONS or not (s[0].is_word or s[0].is_num):
        return False
    if any(t.low in PRONOUNS and t.low not in DETERMINERS for t in s) or s[0].low == "following" or \
            (len(s) > 1 and s[1].low == "following"):
        return False
    if sum(t.text.isupper() and len(t.text) > 2 and t.is_word and known(t.text) for t in s) >= 2:
        return False  # "LIST OF COMPANIES": a heading run into the sentence (acronyms such as IBM are fine)
    if len(s) == 1 and can_be(s[0].text, "ADJ") and not can_be(s[0].text, "NOUN"):
        return False  # "Full means that ...": an adjective, not a thing
    if any(t.low in ("this", "these", "that", "those") for t in s):
        return False  # "support for this feature": which one?
    if s[0].low.endswith("ing") and verb_tag(s[0].text) == "VBG" and not can_be(s[0].text, "NOUN"):
        return False  # a gerund ("Migrating from v1 to v2 is ..."): not a thing to ask "what is" about
    return not (len(s) == 1 and s[0].low in DETERMINERS)


def piece(c: Clause, a: int, b: int) -> str:
    if a >= b:
        return ""
    return " ".join(c.text[c.toks[a].start:c.toks[b - 1].end].split())


def subject_text(c: Clause) -> str:
    if c.imperative:
        return "you"
    if c.named:
        return c.named
    a, b = c.subj
    first = c.toks[a]
    nxt = c.toks[a + 1].text if a + 1 < b else ""
    if c.skip is not None:
        rest = " ".join(x for x in (piece(c, a + 1, c.skip[0]), piece(c, c.skip[1], b)) if x)
    else:
        rest = piece(c, a + 1, b)
    return (lower_first(first.text, nxt) + (" " + rest if rest else "")).strip()


def front_text(c: Clause) -> str:
    """The fronted phrase as it ends a question ("each year in the U.S. on average")."""
    if not c.front:
        return ""
    words = c.front.split()
    nxt = words[1] if len(words) > 1 else ""
    first = words[0].lower() if words[0].lower() in PREPOSITIONS else lower_first(words[0], nxt)
    return " ".join([first, *words[1:]])


def joins_names(toks: list[Tok], k: int) -> bool:
    """"and" / "or" between two names or two nouns ("Stewart Adams and John Nicholson"), not clauses."""
    if toks[k].low not in ("and", "or") or k + 1 >= len(toks):
        return False
    nxt = toks[k + 1]
    if nxt.low in VAGUE_SUBJECT or verb_tag(nxt.text) in ("VBD", "VBZ") and not can_be(nxt.text, "NOUN"):
        return False
    if any(t.low in AUXILIARIES for t in toks[k + 1:k + 5]):
        return False  # "... and Medicare is 1.45%": a clause
    return nxt.is_cap or nxt.low in DETERMINERS or can_be(nxt.text, "NOUN") or can_be(nxt.text, "ADJ")


def paren_end(toks: list[Tok], k: int) -> int | None:
    """Index after the ``)`` closing the ``(`` at ``k`` (None when it does not close soon)."""
    for j in range(k + 1, min(len(toks), k + 15)):
        if toks[j].text == ")":
            return j + 1
        if toks[j].text == "(":
            return None
    return None


def remainder(c: Clause, remove: tuple[int, int]) -> str | None:
    """The words after the verb group without the fact and without parentheses, up to the end of the
    fact's clause; None when the fact sits in another clause than the verb."""
    v_end = c.verb[1]
    ra, rb = remove
    keep: list[tuple[int, int]] = []
    k, run = v_end, v_end
    while k < len(c.toks):
        t = c.toks[k]
        if k == ra:
            keep.append((run, k))
            k = run = rb
            continue
        if t.text == "(" and (pe := paren_end(c.toks, k)) is not None and not (k <= ra < pe):
            keep.append((run, k))
            k = run = pe
            continue
        clause_ahead = t.low in ("before", "after", "until", "once") and k + 1 < len(c.toks) and \
            c.toks[k + 1].low in PRONOUNS and c.toks[k + 1].low not in DETERMINERS  # "before it went bankrupt"
        if t.text in BOUNDARY or clause_ahead or (t.low in CLAUSE_WORDS and not joins_names(c.toks, k)):
            if k < ra and (t.text in BOUNDARY or t.low not in ("and", "or", "as", "that")):
                return None  # the fact is in a later clause
            if k >= rb:
                break
        k += 1
    keep.append((run, min(k, len(c.toks))))
    words = " ".join(piece(c, a, b) for a, b in keep if a < b).split()
    # a preposition may close the question only where the answer was its object ("listen on")
    stranded = rb >= k and ra > v_end and c.toks[ra - 1].low in PREPOSITIONS
    while words:
        last = words[-1].lower()
        if len(words) >= 2 and words[-2].lower() == "to" and verb_tag(words[-1]) == "VBP":
            del words[-2:]  # "to create" without its object
            stranded = False
        elif last in DETERMINERS:
            words.pop()
        elif last in ("and", "or", "to") or (last in PREPOSITIONS and not stranded):
            words.pop()
            stranded = False
        else:
            break
    return " ".join(words)


def verb_words(c: Clause, base: bool) -> str:
    """The lexical verb(s) of the group, in base form when ``base`` ("moves or combines" -> "move or combine"),
    with any adverb that stood between them; a negation left out (a yes/no question asks without it)."""
    if not c.main:
        return " ".join(t.text for t in c.toks[c.verb[0] + (1 if c.aux is not None else 0):c.verb[1]]
                        if t.low not in NEGATIONS)
    start = c.verb[0] + (1 if c.aux is not None else 0)
    words: list[str] = []
    for t in c.toks[start:c.verb[1]]:
        if t.low in NEGATIONS:
            continue
        if base and any(t is m for m in c.main):
            words.append(lemma_of(t) or t.low)
        else:
            words.append(t.text if not t.is_cap or c.imperative is False else t.low)
    if c.imperative and words:
        words[0] = words[0].lower()
    return " ".join(words)
