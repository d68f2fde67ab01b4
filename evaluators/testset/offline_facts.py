"""The facts a sentence states after its verb, found by patterns: a date, a quantity (a count, a
measure with its unit, money, a percentage, a numbered thing such as a port), a name given to
something ("named Eagle"), an agent ("by Linus Torvalds").

Contract: :func:`find_facts` returns :class:`Fact`s over token positions of the clause it is given;
``answer`` is the span that answers the question (an exact piece of the sentence), ``remove`` the
span the question leaves out (the answer and the words the question word takes over, e.g. the
preposition of "on 20 July 1969" or the noun of "64,000 jobs"), ``wh`` the question word(s) that
take its place. Nothing here writes a question; :mod:`.offline_questions` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .offline_words import PREPOSITIONS, Tok, can_be, is_plural_noun, known

MONTHS = ("january february march april may june july august september october november december "
          "jan feb mar apr jun jul aug sep sept oct nov dec").split()
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|" \
         r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH},?\s+\d{{4}}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|"
    rf"{_MONTH}\s+\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}}|(?:1[0-9]|20)\d\d(?:s)?)\b")
NUMBER_WORDS = frozenset(("one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                          "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
                          "eighty ninety hundred thousand dozen").split())
SCALE = frozenset(("hundred thousand million billion trillion").split())
MODIFIERS = (("more", "than"), ("less", "than"), ("fewer", "than"), ("up", "to"), ("at", "least"),
             ("at", "most"), ("as", "many", "as"), ("as", "much", "as"), ("about",), ("around",),
             ("approximately",), ("nearly",), ("almost",), ("over",), ("roughly",), ("some",), ("only",),
             ("just",), ("under",), ("exactly",), ("about",), ("an", "estimated"), ("an", "average", "of"))
DURATION = frozenset("second seconds minute minutes hour hours day days week weeks month months year years "
                     "decade decades century centuries ms sec secs min mins hr hrs".split())
LENGTH = frozenset("kilometre kilometres kilometer kilometers km metre metres meter meters m mile miles foot "
                   "feet ft centimetre centimetres centimeters cm millimetre millimetres mm inch inches".split())
OTHER_UNITS = frozenset("kg kilogram kilograms g gram grams mg milligram milligrams tonne tonnes ton tons pound "
                        "pounds lb lbs gb mb tb kb gbps mbps bytes byte ghz mhz hz kwh kw mw w v volts degrees "
                        "°c °f ml l litres liters iu mcg µg".split())
PERCENT = frozenset(("%", "percent", "per cent", "percentage", "points"))
MONEY_WORDS = frozenset("dollars euros pounds usd eur gbp cents yen".split())
#: Nouns that name a numbered thing: "port 5432" -> "Which port".
NUMBERED = frozenset("port version step level tier phase chapter section page release model option plan "
                     "article rule route channel".split())
MEASURE_ADJ = frozenset("tall high long wide deep old heavy thick large big".split())
NAMING = {"named": "named", "called": "called", "titled": "titled", "dubbed": "dubbed", "nicknamed": "nicknamed"}


FREQUENCY = frozenset("daily weekly monthly yearly annually hourly nightly biweekly fortnightly quarterly "
                      "twice once".split())
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays "
                     "fridays saturdays sundays weekend weekends weekday weekdays".split())
DAY_PARTS = frozenset("morning mornings afternoon afternoons evening evenings night nights".split())
CLOCK = frozenset("a.m p.m am pm".split())
TIME_WORDS = frozenset("noon midnight sunset sunrise dawn dusk".split())
MONTH_NAMES = frozenset("january february march april may june july august september october november december".split())


@dataclass(frozen=True)
class Fact:
    kind: str  # "date" | "count" | "measure" | "number" | "money" | "percent" | "numbered" | "name" | "agent"
    answer: tuple[int, int]  # token range [a, b)
    remove: tuple[int, int]
    wh: str
    #: For "agent": the question is turned to the active voice.
    active: bool = False


def _modifier_start(toks: list[Tok], i: int) -> int:
    """Where the number at ``i`` starts once modifiers before it ("more than", "about") are included."""
    for mod in sorted(MODIFIERS, key=len, reverse=True):
        k = len(mod)
        if i - k >= 0 and tuple(t.low for t in toks[i - k:i]) == mod:
            return i - k
    return i


def _number_end(toks: list[Tok], i: int) -> int:
    """End of the number starting at ``i`` ("2.5 million", "twenty-five", "64,000")."""
    j = i + 1
    while j < len(toks) and (toks[j].low in SCALE or (toks[j].low in NUMBER_WORDS and not toks[i].is_num)):
        j += 1
    return j


def _is_number(t: Tok) -> bool:
    if t.is_num:
        return bool(re.fullmatch(r"[$€£¥]?\d[\d,.]*(?:%)?", t.text))
    low = t.low
    return low in NUMBER_WORDS or (("-" in low) and all(p in NUMBER_WORDS for p in low.split("-")))


def _date_facts(text: str, toks: list[Tok], lo: int) -> list[Fact]:
    out: list[Fact] = []
    for m in _DATE.finditer(text):
        a = next((i for i, t in enumerate(toks) if t.start == m.start()), None)
        b = next((i + 1 for i, t in enumerate(toks) if t.end == m.end()), None)
        if a is None or b is None or a < lo:
            continue
        if b < len(toks) and toks[b].low in DURATION | LENGTH | OTHER_UNITS | {"%", "percent"}:
            continue  # "1000 years": a quantity
        if re.fullmatch(r"\d{4}", m.group()) and a > 0 and toks[a - 1].low in NUMBERED | {"the", "a", "$"}:
            continue  # "port 1989", "the 2020 election"
        while b < len(toks) and (re.fullmatch(r"\d{1,2}:\d\d(?::\d\d)?", toks[b].text) or
                                 toks[b].text in ("UTC", "GMT", "CET", "EST", "PST", "ET", "PT")):
            b += 1  # "1 January 1970 00:00:00 UTC": the time goes with its date
        prep = toks[a - 1].low if a > 0 else ""
        if prep in ("since", "until", "from") and a >= 2 and (toks[a - 2].low in DURATION or
                                                               toks[a - 2].low in ("milliseconds", "ms")):
            continue  # "the number of milliseconds since 1 January 1970": a count's origin, not when
        wh = {"on": "When", "in": "When", "during": "When", "since": "Since when", "until": "Until when",
              "till": "Until when", "by": "By when"}.get(prep)
        if wh is None:
            continue
        out.append(Fact("date", (a, b), (a - 1, b), wh))
    return out


def _quantity_fact(toks: list[Tok], i: int, copula: bool, verb_end: int = 0) -> Fact | None:
    """The fact of the number at ``i``, by what stands around it."""
    a = _modifier_start(toks, i)
    j = _number_end(toks, i)
    num = toks[i]
    nxt = toks[j].low if j < len(toks) else ""
    if a >= 2 and toks[a - 1].text in ("-", "–", "to", "and", "or", "/") and _is_number(toks[a - 2]):
        return None  # the end of a range ("6 - 8 characters")
    if nxt in ("-", "–", "/", "x", "×", ".") or \
            (nxt in ("to", "and", "or") and j + 1 < len(toks) and _is_number(toks[j + 1])):
        return None  # the start of a range, a rate ("$600/year"), a size ("3 x 4")
    if a >= 1 and toks[a - 1].low in ("last", "next", "past", "first", "previous", "following"):
        return None  # "the last 30 days": a window, not a fact
    if a >= 1 and toks[a - 1].low in ("and", "or", ","):
        return None  # "Cuyamaca Rancho State Park and two desert parks": one member of a list
    if j < len(toks) and toks[j].start == num.end and toks[j].is_word and len(toks[j].text) <= 2:
        return None  # "4G", "5x": a code, not a number and its unit
    det = 1 if a > 1 and toks[a - 1].low == "the" and toks[a - 2].low in PREPOSITIONS else 0
    p_at = a - 1 - det
    prep = toks[p_at].low if p_at >= 0 and (toks[p_at].low in PREPOSITIONS or toks[p_at].low == "every") else ""
    prev = toks[i - 1].low if i > 0 else ""
    if copula and a > 0 and toks[a - 1].low in ("is", "are", "was", "were"):  # "The default port is 5432"
        end = j + (1 if nxt in DURATION | LENGTH | OTHER_UNITS | MONEY_WORDS | {"%", "percent"} else 0)
        after = toks[end].low if end < len(toks) else ""
        if after in MEASURE_ADJ:
            return Fact("measure", (a, end), (a, end + 1), f"How {after}")
        if after and after not in PREPOSITIONS and after not in (",", ";", "and"):
            return None  # "is 5 times larger", "is 2 days old"
        return Fact("number", (a, end), (a, end), "What")
    if prev in NUMBERED and a == i:  # "port 5432"
        return Fact("numbered", (i, j), (i - 1, j), f"Which {prev}")
    if num.text[:1] in "$€£¥" or nxt in MONEY_WORDS:
        end = j + (1 if nxt in MONEY_WORDS else 0)
        if prep in ("for", "at", "of", "by", "to") and prep != "of":
            return Fact("money", (a, end), (a - 1, end), {"for": "For how much", "at": "At what price",
                                                          "by": "By how much", "to": "To how much"}[prep])
        return Fact("money", (a, end), (a, end), "How much") if not prep and a == verb_end else None
    if num.text.endswith("%") or nxt in ("%", "percent") or (nxt == "per" and j + 1 < len(toks)
                                                              and toks[j + 1].low == "cent"):
        end = j if num.text.endswith("%") else j + (2 if nxt == "per" else 1)
        if end < len(toks) and toks[end].low == "points":
            end += 1
        wh = {"by": "By how much", "to": "To what level", "at": "At what rate", "from": ""}.get(prep)
        if wh:
            return Fact("percent", (a, end), (a - 1, end), wh)
        return None
    if nxt in ("business", "working", "calendar", "school", "full") and j + 1 < len(toks) and \
            toks[j + 1].low in DURATION:
        unit = j + 1  # "3 business days"
    else:
        unit = j
    if toks[unit].low in DURATION if unit < len(toks) else False:
        ue = unit + 1
        words = " ".join(t.text for t in toks[j:ue])
        if prep in ("for", "in", "within"):
            return Fact("measure", (a, ue), (a - 1, ue), "How long")
        if prep == "every":
            return Fact("measure", (a - 1, ue), (a - 1, ue), "How often")
        if prep == "after":
            return Fact("measure", (a, ue), (a - 1, ue), f"After how many {words}")
        if not prep and ue < len(toks) and toks[ue].low in ("before", "after", "prior") and a > 0:
            return Fact("measure", (a, j), (a, ue), f"How many {words}")  # "at least 15 days before the trial"
        if not prep and copula and ue < len(toks) and toks[ue].low == "old":
            return Fact("measure", (a, ue), (a, ue + 1), "How old")
        if not prep and a > 0 and toks[a - 1].low in ("wait", "takes", "take", "took", "lasts", "lasted", "last"):
            return Fact("measure", (a, ue), (a, ue), "How long")
        return None
    if nxt in LENGTH or nxt in OTHER_UNITS:
        after = toks[j + 1].low if j + 1 < len(toks) else ""
        if copula and after in MEASURE_ADJ and not prep:
            return Fact("measure", (a, j + 1), (a, j + 2), f"How {after}")
        if prep == "for" and nxt in LENGTH:
            return Fact("measure", (a, j + 1), (a - 1, j + 1), "How far")
        if not prep and nxt in OTHER_UNITS and j + 1 < len(toks) and toks[j + 1].is_word and \
                not toks[j + 1].is_cap and can_be(after, "NOUN") and not is_plural_noun(after) and \
                (j + 2 >= len(toks) or toks[j + 2].text in (",", ";", ".") or toks[j + 2].low in PREPOSITIONS):
            return Fact("measure", (a, j + 1), (a, j + 2), f"How much {after}")  # "supports 100 Gbps bandwidth"
        if not prep and nxt in OTHER_UNITS and (after in PREPOSITIONS or after in (",", ";", "") or after == "and"):
            if copula and a > 0 and toks[a - 1].low in ("is", "are", "was", "were"):
                return Fact("measure", (a, j + 1), (a, j + 1), "What")
            return Fact("measure", (a, j + 1), (a, j + 1), f"How many {toks[j].text}")
        return None
    # a count: the number, then the noun counted (an adjective may stand between)
    k = j
    if k < len(toks) and not is_plural_noun(toks[k].text) and k + 1 < len(toks) and is_plural_noun(toks[k + 1].text) \
            and toks[k].is_word and not toks[k].is_cap:
        k += 1
    if k < len(toks) and toks[k].is_word and not toks[k].is_cap and is_plural_noun(toks[k].text):
        if k + 2 < len(toks) and toks[k + 1].low == "of" and toks[k + 2].is_word:
            e = k + 2  # "2 doses of flu vaccine", "24,700 acres of oak and conifer forest": the noun's phrase
            while e < len(toks) and e - k <= 6 and toks[e].is_word and toks[e].low not in PREPOSITIONS and \
                    toks[e].low not in ("that", "which", "who"):
                e += 1
            if toks[e - 1].low not in ("and", "or"):
                k = e - 1
        noun = " ".join(t.text for t in toks[j:k + 1])
        if prep in ("in", "on", "across", "from", "with", "to", "of", "for", "by", "into", "than"):
            if prep in ("than", "of", "by"):
                return None
            return Fact("count", (a, j), (p_at, k + 1), f"{prep.capitalize()} how many {noun}")
        if not prep:
            return Fact("count", (a, j), (a, k + 1), f"How many {noun}")
    return None


def _name_end(toks: list[Tok], i: int) -> int:
    """End of the capitalised name starting at ``i`` ("Buzz Aldrin", "Linus Torvalds", "Eagle")."""
    j = i
    while j < len(toks) and (toks[j].is_cap or toks[j].is_num or toks[j].low in ("of", "de", "von", "van", "&")
                             and j + 1 < len(toks) and toks[j + 1].is_cap):
        j += 1
    return j


def _name_facts(toks: list[Tok], lo: int) -> list[Fact]:
    """Names after "named" / "called" / "known as" (the naming word may close the verb group, so the
    scan starts one token before ``lo``) and person names after "by"."""
    out: list[Fact] = []
    for i in range(max(lo - 1, 0), len(toks)):
        low = toks[i].low
        if low in NAMING and i + 1 < len(toks):
            s = i + 1 + (1 if toks[i + 1].low in ("as",) else 0)
            if s < len(toks) and toks[s].text in ('"', "“", "'"):
                e = next((k for k in range(s + 1, min(len(toks), s + 10)) if toks[k].text in ('"', "”", "'")), None)
                if e is not None:
                    out.append(Fact("name", (s + 1, e), (s, e + 1), "What"))
                continue
            e = _name_end(toks, s)
            if e > s:
                out.append(Fact("name", (s, e), (s, e), "What"))
            elif s + 1 < len(toks) and toks[s].low in ("a", "an") and toks[s + 1].is_word and \
                    can_be(toks[s + 1].text, "NOUN") and (s + 2 == len(toks) or toks[s + 2].text in (",", ";", ".")):
                out.append(Fact("name", (s, s + 2), (s, s + 2), "What"))  # "is called an observation"
        if low == "known" and i + 2 < len(toks) and toks[i + 1].low == "as" and toks[i + 2].is_cap:
            e = _name_end(toks, i + 2)
            out.append(Fact("name", (i + 2, e), (i + 2, e), "What"))
        if low == "by" and i + 1 < len(toks) and toks[i + 1].is_cap and not toks[i + 1].is_num:
            e = _name_end(toks, i + 1)
            while e + 1 < len(toks) and toks[e].low == "and" and toks[e + 1].is_cap and _name_end(toks, e + 1) > e + 2:
                e = _name_end(toks, e + 1)  # "by Stewart Adams and John Nicholson": both people
            person = e - (i + 1) >= 2 and not known(toks[i + 1].text)
            if person:
                out.append(Fact("agent", (i + 1, e), (i, e), "Who", active=True))
    return out


def _time_at(toks: list[Tok], i: int) -> int:
    """End of a time of day, a month or a weekday starting at ``i`` ("8 a.m.", "noon", "April",
    "Wednesday evenings"); ``i`` when there is none."""
    if i >= len(toks):
        return i
    t = toks[i]
    if t.is_num and re.fullmatch(r"\d{1,2}(?::\d\d)?", t.text) and i + 1 < len(toks) and toks[i + 1].low in CLOCK:
        return i + 3 if i + 2 < len(toks) and toks[i + 2].text == "." else i + 2
    if t.low in TIME_WORDS or (t.low in MONTH_NAMES and t.is_cap):
        return i + 1
    if t.low in WEEKDAYS:
        return i + 2 if i + 1 < len(toks) and toks[i + 1].low in DAY_PARTS else i + 1
    return i


def _schedule_piece(toks: list[Tok], i: int) -> int:
    """End of one piece of a schedule starting at ``i`` ("weekly", "on Wednesday evenings", "from 8 a.m.
    to sunset", "at noon", "every Monday", "in April or May"); ``i`` when none starts there."""
    if i >= len(toks):
        return i
    low = toks[i].low
    if low in FREQUENCY - {"twice", "once"}:
        return i + 1
    if low in ("twice", "once") and i + 2 < len(toks) and toks[i + 1].low in ("a", "per") and \
            toks[i + 2].low in DURATION | {"week", "month", "year", "day"}:
        return i + 3
    if low in ("on", "every", "at", "in", "until", "till", "by") or low == "from" or low == "between":
        j = _time_at(toks, i + 1)
        if j == i + 1:
            return i
        if low == "every" and toks[i + 1].low not in WEEKDAYS:
            return i
        if low == "in" and toks[i + 1].low not in MONTH_NAMES:
            return i
        while j + 1 < len(toks) and toks[j].low in ("and", "or", ",", "to", "through", "-", "–", "until") \
                and _time_at(toks, j + 1) > j + 1:
            j = _time_at(toks, j + 1)
        if low in ("from", "between") and j == _time_at(toks, i + 1):
            return i  # "from April": no end
        return j
    return i


def _schedule_facts(toks: list[Tok], after: int) -> list[Fact]:
    """A schedule after the verb: how often and when ("meet weekly on Wednesday evenings", "is open
    daily from 8 a.m. to sunset", "opens on weekends from 10 a.m. to 4 p.m.")."""
    out: list[Fact] = []
    i = after
    while i < len(toks):
        j = _schedule_piece(toks, i)
        if j == i:
            i += 1
            continue
        start, pieces, freq_only = i, 0, True
        while j > i:
            pieces += 1
            freq_only = freq_only and toks[i].low in FREQUENCY
            i = j
            j = _schedule_piece(toks, i)
        out.append(Fact("schedule", (start, i), (start, i), "How often" if freq_only else "When"))
    return out


def find_facts(toks: list[Tok], text: str, after: int, copula: bool) -> list[Fact]:
    """Facts among ``toks`` from position ``after`` on (``text`` is what the tokens index into);
    ``copula``: the verb is a form of *be* (measures like "330 metres tall" then read as "How tall")."""
    facts = _date_facts(text, toks, after)
    facts += [f for f in _schedule_facts(toks, after) if not {k for g in facts for k in range(*g.remove)}
              & set(range(*f.remove))]
    taken = {k for f in facts for k in range(*f.remove)}
    i = after
    while i < len(toks):
        if i not in taken and _is_number(toks[i]):
            f = _quantity_fact(toks, i, copula, after)
            if f is not None and f.remove[0] >= after and not taken & set(range(*f.remove)):
                facts.append(f)
                taken |= set(range(*f.remove))
            i = _number_end(toks, i)
            continue
        i += 1
    facts += [f for f in _name_facts(toks, after) if not taken & set(range(*f.remove))]
    return facts
