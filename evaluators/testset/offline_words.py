"""The words the offline generator reasons with: tokens with their character spans, closed word
classes (determiners, auxiliaries, pronouns, prepositions), and what a dictionary says of an open
word — lemminflect's lexicon (shipped inside its wheel, nothing downloaded) for "can this be a verb,
what is its base form, its past participle".

Contract: :func:`tokens` never changes the text (every token is ``text[start:end]``); the lexicon
look-ups are cached and pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

#: Words, numbers (1,234.5 / 3.5x / 9:30 / v2.1), and any other single character.
_TOKEN = re.compile(r"[$€£¥]?\d[\d,.:/]*\d(?:%|st|nd|rd|th|s)?|[$€£¥]?\d(?:%|st|nd|rd|th)?|"
                    r"[^\W\d_](?:[\w'’.&+-]*[\w+])?|\S", re.UNICODE)


@dataclass(frozen=True)
class Tok:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower()

    @property
    def is_cap(self) -> bool:
        return self.text[:1].isupper()

    @property
    def is_num(self) -> bool:
        return any(c.isdigit() for c in self.text)

    @property
    def is_word(self) -> bool:
        return self.text[:1].isalpha()


def tokens(text: str) -> list[Tok]:
    return [Tok(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _set(s: str) -> frozenset[str]:
    return frozenset(s.split())


DETERMINERS = _set("the a an this that these those each every some any no its their his her our your my "
                   "all both either neither several many most few another such")
PRONOUNS = _set("i me my mine we us our ours you your yours he him his she her hers it its they them their "
                "theirs this that these those there here one someone something anyone anything everyone "
                "everything nobody nothing which who whom whose what")
#: Subjects a question cannot stand on (who is "it"?), and first-person / second-person voice.
VAGUE_SUBJECT = _set("it this that these those they he she we i you there here such which one ones both "
                     "others another either neither each all some most many several few")
PERSONAL = _set("i me my mine we us our ours you your yours")
AUX_BE = {"is": "VBZ", "are": "VBP", "was": "VBD", "were": "VBD"}
AUX_HAVE = {"has": "VBZ", "have": "VBP", "had": "VBD"}
AUX_DO = {"does": "VBZ", "do": "VBP", "did": "VBD"}
MODALS = _set("can could will would shall should may might must")
AUXILIARIES = frozenset(AUX_BE) | frozenset(AUX_HAVE) | frozenset(AUX_DO) | MODALS
PREPOSITIONS = _set("of in on at by for with from to into onto over under about after before during since "
                    "until through between among across along around behind beyond within without against "
                    "per via near toward towards upon than like inside outside off up down out")
CONJUNCTIONS = _set("and or but nor so yet because although though while whereas if unless when whenever "
                    "where wherever as once whether")
NEGATIONS = _set("not never no n't cannot none nor")
#: A negated auxiliary written as one word -> the auxiliary a yes/no question puts first ("cannot" -> "can").
NEG_AUX = {"cannot": "can", "can't": "can", "won't": "will", "doesn't": "does", "don't": "do", "didn't": "did",
           "isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were", "hasn't": "has", "haven't": "have",
           "hadn't": "had", "shouldn't": "should", "couldn't": "could", "wouldn't": "would", "mustn't": "must"}
ADVERBS = _set("also only just still already often usually always generally typically formally officially "
               "first finally then now later once even mostly mainly primarily largely approximately about "
               "roughly nearly almost around originally initially eventually currently recently previously "
               "automatically directly immediately successfully unexpectedly")
#: Words that open a sentence by linking it to the previous one; the question drops them.
LINKERS = ("yes", "no", "otherwise", "however", "for example", "for instance", "in addition", "additionally", "also",
           "moreover", "furthermore", "in fact", "in general", "generally", "typically", "by default", "note that",
           "in practice", "today", "currently", "historically", "originally")
#: Adjectives a proper name is made of, kept capitalised at the start of a question.
PROPER_ADJ = _set("german english french spanish italian chinese japanese american british european "
                  "african asian russian indian canadian australian dutch swiss swedish korean mexican "
                  "brazilian roman greek latin christian muslim jewish catholic protestant arab irish scottish")


@lru_cache(maxsize=1)
def _lex():
    import lemminflect

    return lemminflect


@lru_cache(maxsize=65536)
def lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """{UPOS: lemmas} of a word the dictionary knows (lower-case), {} otherwise."""
    if not word or not word[:1].isalpha():
        return {}
    return dict(_lex().getAllLemmas(word.lower()))


def known(word: str) -> bool:
    return bool(lemmas(word))


def can_be(word: str, upos: str) -> bool:
    return upos in lemmas(word)


#: Irregular past participles that are not also past forms (the rest of the irregular forms read as past).
_PARTICIPLE_ENDINGS = ("en", "wn", "ne", "un", "ung")


def _tag_of(low: str, lemma: str) -> str:
    """The tag of an inflected form by its ending (the dictionary's inflection tables load slowly)."""
    fixed = {**AUX_BE, **AUX_HAVE, **AUX_DO, "am": "VBP", "goes": "VBZ", "been": "VBN"}
    if low in fixed:
        return fixed[low]
    if low.endswith("ing"):
        return "VBG"
    if low.endswith("ed"):
        return "VBD"
    if low.endswith("s") and (low[:-1] == lemma or low[:-2] == lemma or low[:-3] + "y" == lemma or low == "has"):
        return "VBZ"
    return "VBN" if low.endswith(_PARTICIPLE_ENDINGS) and not lemma.endswith(_PARTICIPLE_ENDINGS) else "VBD"


@lru_cache(maxsize=16384)
def _verb_reading(word: str) -> tuple[str, str] | None:
    """(lemma, tag) of a verb form the dictionary knows; an inflected reading wins over a base form
    ("fell" -> ("fall", "VBD"), not the verb "to fell")."""
    ls = lemmas(word).get("VERB") or lemmas(word).get("AUX")
    if not ls:
        return None
    low = word.lower()
    other = [lemma for lemma in ls if lemma != low]
    if other:
        return other[0], _tag_of(low, other[0])
    return low, "VBP"


def verb_lemma(word: str) -> str | None:
    """The base form of a verb form the dictionary knows ("fell" -> "fall"), else None."""
    r = _verb_reading(word)
    return r[0] if r else None


def verb_tag(word: str) -> str | None:
    """VBD (past), VBZ (3rd person present), VBN (participle), VBG, VBP (base / present), or None."""
    r = _verb_reading(word)
    return r[1] if r else None


@lru_cache(maxsize=4096)
def guessed_verb(word: str) -> tuple[str, str] | None:
    """(lemma, tag) of an inflected verb form the dictionary does not hold ("downmixes" -> ("downmix",
    "VBZ"), "prepended" -> ("prepend", "VBD")), by lemminflect's rules for unknown words; None for a
    word the dictionary knows or one without a verb's ending. Only the clause reader's context says
    whether the word is a verb (:func:`.offline_clause.finite_verb`)."""
    low = word.lower()
    if known(low) or not low.isalpha() or len(low) < 5 or not low.endswith(("es", "ed")) or low.endswith("ss"):
        return None
    ls = _lex().getAllLemmasOOV(low, "VERB").get("VERB") or ()
    lemma = next((x for x in ls if x != low), None)
    if not lemma:
        return None
    return lemma, "VBD" if low.endswith("ed") else "VBZ"


@lru_cache(maxsize=4096)
def is_participle(word: str) -> bool:
    """Whether a base-looking form is also its verb's past participle ("set", "put", "run"; not "access")."""
    low = word.lower()
    lemma = verb_lemma(low)
    return bool(lemma) and low in (_lex().getInflection(lemma, "VBN") or ())


def past(lemma: str, form: str = "") -> str:
    """The past form of a verb: ``form`` itself when it is a regular "-ed" form, else the dictionary's
    (its inflection tables load on first use)."""
    if form.lower().endswith("ed"):
        return form.lower()
    forms = _lex().getInflection(lemma, "VBD")
    return forms[0] if forms else lemma + "ed"


def is_plural_noun(word: str) -> bool:
    """A noun in its plural form ("moons", "jobs", "data"), by the dictionary."""
    low = word.lower()
    ls = lemmas(low).get("NOUN") or ()
    return bool(ls) and (low not in ls or low in ("data", "people", "media", "criteria"))


def lower_first(word: str, next_word: str = "") -> str:
    """How the first word of a sentence is written inside a question: determiners and common words
    lower-cased; names, acronyms, code and proper adjectives kept."""
    low = word.lower()
    if low in DETERMINERS:
        return low
    if word.isupper() or any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word):
        return word
    ls = lemmas(low)
    common = "NOUN" in ls or any(low in ls.get(pos, ()) for pos in ("ADJ", "ADV", "VERB")) or \
        ("VERB" in ls and low.endswith(("ed", "ing")))  # "Ingested events"
    if low in PROPER_ADJ or not common:
        return word  # not a dictionary noun, nor a word in this very form ("Mars" is not "mar" + s): a name
    if next_word[:1].isupper():  # "Great Barrier Reef": part of a name
        return word
    return low
