"""What a response sentence claims about a record, checked field by field: :func:`check`.

A :class:`Record` indexes the facts of a case's structured documents once; :func:`check` reads one
response sentence against it and returns :class:`Finding`\\ s:

* **contradicts** — the sentence states a field's value other than the record's: it affirms what
  the record gives as false / "no" ("offers free WiFi" vs ``"WiFi": "no"``), denies what it gives as
  true, says "free" where the record says "paid", gives another number ("4.5 stars" vs
  ``"stars": 4.0``, "30 reviews" vs three), another date, or other opening hours (``hours``);
* **unstated** — the sentence claims something about a field the record leaves empty (``null``,
  ``""``): "live music" vs ``"Music": null``, "open daily 11 to 11" vs ``"hours": null``;
* **confirms** — the sentence states the record's value (the fact is its support).

A field is *mentioned* when the words of its key (``RestaurantsTakeOut`` -> "take out", also
"takeout", "take-out") appear in one clause of the sentence; a key word that another value of the
record also uses ("Street" in an address) or of three letters ("lot") needs its parent's word too
("street parking"). A clause is negated by "no", "not", "n't", "without", "lack", … before the
mention. A false field whose words the record also states as a value (a "Breakfast" category beside
``"breakfast": false``) is not contradicted, and a null field is not "unstated" when another value
of the record (a review) mentions it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from . import hours, rows, values
from .facts import Fact, Finding, humanize

#: Key words that name no attribute ("RestaurantsReservations" is about reservations).
GENERIC = frozenset(
    """restaurants restaurant business businesses good for has have is are accepts accept allowed allows by
    the of a an and or with info information attributes attribute details detail data id ids count
    num number value values code flag enabled option options type level only appointment general
    misc other item items field fields record records properties property meta""".split())
#: A few words people use for the same attribute (a key's words -> other words that mention it).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "wifi": ("internet", "wireless", "wlan"), "tv": ("television",), "kid": ("child", "children", "famili"),
    "takeout": ("takeaway", "carryout"), "ambienc": ("atmospher", "vibe", "ambianc"),
    "reserv": ("booking",), "alcohol": ("booz",), "dog": ("pet",), "wheelchair": ("accessibl",),
}
_NEGATION = frozenset("no not never without lack lacks lacking neither nor none absence absent unavailable "
                      "cannot instead".split())
_NOT_NEGATION = re.compile(r"\bnot\s+(?:only|just)\b|\bno\s+(?:matter|doubt)\b", re.I)
_RATHER = re.compile(r"\b(?:rather|other)\s+than\b", re.I)
_OFFERED = r"(?:available|offered|provided|allowed|accepted|permitted|an option|included|present)"
#: "… reservations are not accepted", "WiFi: Not available", "no valet, garage parking is available".
_AFTER_NEG = re.compile(r"^(?:[\s,]*[\w'’-]+){0,4}?[\s,]*(?:(?:is|are|was|were)\s+(?:also\s+)?(?:not|n't)\s+"
                        r"(?:currently\s+|always\s+)?" + _OFFERED + r"|(?:isn't|aren't|wasn't)\s+" + _OFFERED +
                        r"|unavailable)\b|^\s*:\s*(?:no|none|not|n/a|unavailable)\b", re.I)
_AFTER_POS = re.compile(r"^(?:[\s,]*[\w'’-]+){0,3}?[\s,]*(?:is|are)\s+(?:also\s+)?(?:readily\s+)?" + _OFFERED +
                        r"\b|^\s*:\s*(?:yes|available|free)\b", re.I)
_CLAUSE = re.compile(r";|\.\s|,?\s+\b(?:but|while|whereas|although|though|however|yet|except)\b|"
                     r"\band\s+(?:it\s+|they\s+|also\s+)?(?:has|have|is|are|offers?|provides?|features?|accepts?|"
                     r"allows?|serves?)\b", re.I)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’]*")
_ANTONYM_VALUES = {"free": ("paid", "fee", "charge"), "paid": ("free", "complimentary")}


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A crude stem: reservations / reserve / reserved -> reserv; seating / seats -> seat."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    for suf in ("ations", "ation", "ings", "ing", "ed", "es", "s", "y"):
        if w.endswith(suf) and len(w) - len(suf) >= 3 and not (suf == "y" and w[-2] in "aou"):
            return w[: -len(suf)]
    if w.endswith("e") and len(w) > 5:
        return w[:-1]
    return w


@lru_cache(maxsize=100_000)
def key_terms(key: str, digits: bool = False) -> tuple[str, ...]:
    """The stems that mention a key ("RestaurantsTakeOut" -> ("take", "out")); () if all generic.
    Numbers in a key ("RestaurantsPriceRange2") count only with ``digits`` (``Record.of`` asks for
    them where they tell fields apart: "Feature12Enabled" from "Feature13Enabled")."""
    words = [w.lower() for w in humanize(key).split() if digits or not w.isdigit()]
    return tuple(stem(w) for w in words if (w not in GENERIC and len(w) > 1) or w.isdigit())


@dataclass
class Record:
    """The facts of a case's structured documents, indexed for :func:`check`."""

    facts: Sequence[Fact]
    truth: dict[int, bool | None] = field(default_factory=dict)
    terms: dict[int, tuple[str, ...]] = field(default_factory=dict)
    parent_terms: dict[int, tuple[str, ...]] = field(default_factory=dict)
    groups: dict[tuple, list[int]] = field(default_factory=dict)
    numeric: dict[int, float] = field(default_factory=dict)
    counts: dict[tuple, int] = field(default_factory=dict)
    dates: dict[int, values.Date] = field(default_factory=dict)
    value_words: set[str] = field(default_factory=set)
    text_words: set[str] = field(default_factory=set)
    rows: list[int] = field(default_factory=list)
    week: hours.Week | None = None
    #: every form that can name a yes / no / null field (its stems, joined form, synonyms) -> the fields
    forms: dict[str, set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, facts: Sequence[Fact]) -> "Record":
        r = cls(facts)
        for i, f in enumerate(facts):
            if f.kind == "text":
                r.text_words.update(stem(w) for w in _WORD.findall(str(f.value)))
                continue
            if f.kind == "row":
                r.rows.append(i)
                continue
            if f.kind != "field":
                continue
            for depth, p in enumerate(f.path):
                if isinstance(p, int):
                    prefix = f.path[:depth]
                    r.counts[prefix] = max(r.counts.get(prefix, 0), p + 1)
            t = values.truth(f.value)
            terms = key_terms(f.key)
            if t != "other":
                r.truth[i] = t  # type: ignore[assignment]
                if terms:
                    r.terms[i] = terms
                    parents = [key_terms(p) for p in f.parents]
                    parents = [p for p in parents if p]
                    r.parent_terms[i] = parents[-1] if parents else ()
                    r.groups.setdefault(f.path[:-1], []).append(i)
            else:
                num = values.number_value(f.value)
                if num is not None and terms:
                    r.numeric[i] = num
                    r.terms[i] = terms
                elif isinstance(f.value, str):
                    found = values.dates_in(f.value)
                    if found and terms and found[0][1] == 0:
                        r.dates[i] = found[0][0]
                        r.terms[i] = terms
                    elif len(f.value) <= 120:
                        r.value_words.update(stem(w) for w in _WORD.findall(f.value))
        r.week = hours.Week.of(facts)
        keys_of: dict[tuple[str, ...], set[str]] = {}
        for i, terms in r.terms.items():
            keys_of.setdefault(terms, set()).add(facts[i].key)
        for i, terms in list(r.terms.items()):  # fields told apart only by a number keep it
            if len(keys_of[terms]) > 1 and any(c.isdigit() for c in facts[i].key):
                r.terms[i] = key_terms(facts[i].key, True)
        for i in r.truth:
            terms = r.terms.get(i, ())
            joined = stem("".join(terms)) if terms else ""
            for form in {*terms, joined, *SYNONYMS.get(joined, ()), *(SYNONYMS.get(terms[0], ()) if terms else ())}:
                if form:
                    r.forms.setdefault(form, set()).add(i)
        return r


@dataclass
class _Clause:
    start: int
    end: int
    stems: list[str]  # per token
    spans: list[tuple[int, int]]
    joined: dict[str, int]  # stem of two adjacent tokens joined ("take out" -> "takeout") -> token index


def _clauses(text: str) -> list[_Clause]:
    cuts = [0] + [m.start() for m in _CLAUSE.finditer(text)] + [len(text)]
    out: list[_Clause] = []
    for a, b in zip(cuts, cuts[1:]):
        toks = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text, a, b)]
        stems = [stem(t) for t, _, _ in toks]
        joined: dict[str, int] = {}
        for k in range(len(toks) - 1):
            joined.setdefault(stem(toks[k][0] + toks[k + 1][0]), k)
        out.append(_Clause(a, b, stems, [(s, e) for _, s, e in toks], joined))
    return out


def _find(cl: _Clause, terms: tuple[str, ...], synonyms: bool = True) -> tuple[int, int] | None:
    """Token range (first, last) where all ``terms`` (or their joined form, or a synonym) occur."""
    if not terms:
        return None
    joined = stem("".join(terms))
    alts = (joined,) + (SYNONYMS.get(joined, ()) + (SYNONYMS.get(terms[0], ()) if len(terms) == 1 else ())
                        if synonyms else ())
    for alt in alts:
        for k, s in enumerate(cl.stems):
            if s == alt or (len(alt) >= 6 and s.startswith(alt)):
                return k, k
        if alt in cl.joined:
            k = cl.joined[alt]
            return k, k + 1
    pos = []
    for t in terms:
        hits = [k for k, s in enumerate(cl.stems) if s == t]
        if not hits:
            return None
        pos.append(hits[0])
    if max(pos) - min(pos) > 4:
        return None
    return min(pos), max(pos)


def _negated(text: str, cl: _Clause, first: int, last: int) -> bool:
    """The clause denies the mention: a negation before it (not across a comma that starts a new
    statement, "no valet, street parking is available"), or "… is not available" after it."""
    after = text[cl.spans[last][1]:cl.end]
    if _AFTER_NEG.match(after):
        return True
    if _AFTER_POS.match(after):
        return False
    before = _RATHER.sub(" not ", _NOT_NEGATION.sub(" ", text[cl.start:cl.spans[first][0]]))
    words = [w.lower() for w in _WORD.findall(before)]
    return any(w in _NEGATION or w.endswith(("n't", "n’t")) for w in words)


def _ambiguous(rec: Record, term: tuple[str, ...]) -> bool:
    """"lot" (three letters) or "street" (also in the address) alone does not name the field."""
    return all(len(t) <= 3 or t in rec.value_words for t in term)


def check(sentence: str, rec: Record) -> list[Finding]:
    """The findings of one response sentence against a record (empty when it mentions no field)."""
    out: list[Finding] = []
    clauses = _clauses(sentence)
    for cl in clauses:
        out.extend(_fields(sentence, cl, rec))
        out.extend(_numbers(sentence, cl, rec))
    if rec.week is not None:
        out.extend(hours.check(sentence, rec.week, rec.facts))
    if rec.rows:
        out.extend(rows.check(sentence, rec.facts, rec.rows))
    seen: set[tuple] = set()
    unique = []
    for f in out:
        k = (f.verdict, f.facts)
        if k not in seen:
            seen.add(k)
            unique.append(f)
    return unique


def _fields(text: str, cl: _Clause, rec: Record) -> list[Finding]:
    out: list[Finding] = []
    mentioned_groups: set[tuple] = set()
    named: set[int] = set()  # the fields one of whose forms the clause holds (the others cannot match)
    for st in [*cl.stems, *cl.joined]:
        for n in range(6, len(st) + 1) if len(st) >= 6 else (len(st),):
            named |= rec.forms.get(st[:n], set())
    for i in sorted(named):
        terms = rec.terms.get(i, ())
        if not terms:
            continue
        where = _find(cl, terms)
        if where is None:
            continue
        parent = rec.parent_terms.get(i, ())
        group = rec.facts[i].path[:-1]
        in_group = len(rec.groups.get(group, ())) > 1 and parent
        if in_group and _ambiguous(rec, terms) and _find(cl, parent) is None:
            continue
        mentioned_groups.add(group)
        out.extend(_verdict(text, cl, rec, (i,), rec.truth[i], where, terms))
    for group, members in rec.groups.items():  # "parking" when only the parking group's fields exist
        if group in mentioned_groups or len(members) < 2 or not group or not isinstance(group[-1], str):
            continue
        parent = key_terms(group[-1])
        where = _find(cl, parent, synonyms=False) if parent else None
        if where is None:
            continue
        ts = [rec.truth[i] for i in members]
        known = [x for x in ts if x is not None]
        if not known:
            t: bool | None = None
        elif _negated(text, cl, where[0], where[1]):  # "no parking": wrong when most fields are true
            t = sum(known) * 2 > len(known) or None
        else:  # "has parking": wrong only when every field is false
            t = True if any(known) else (False if len(known) == len(ts) else None)
        if t is None and known:
            continue
        out.extend(_verdict(text, cl, rec, tuple(members), t, where, parent))
    return out


def _verdict(text: str, cl: _Clause, rec: Record, idx: tuple[int, ...], t: bool | None | str,
             where: tuple[int, int], terms: tuple[str, ...]) -> list[Finding]:
    a, b = cl.spans[where[0]][0], cl.spans[where[1]][1]
    said = "; ".join(rec.facts[i].text for i in idx[:4]) + (" …" if len(idx) > 4 else "")
    negated = _negated(text, cl, where[0], where[1])
    claimed = text[cl.spans[max(0, where[0] - 2)][0]:b].strip()  # "offers free WiFi", "no WiFi"
    if t is None:
        if all(s in rec.text_words or s in rec.value_words for s in terms):
            return []
        return [Finding("unstated", idx, claimed, said)]
    if t is True and not negated and len(idx) == 1:
        value = str(rec.facts[idx[0]].value).lower().strip("u'")
        before = {w.lower() for w in _WORD.findall(text[max(cl.start, a - 20):a])}
        if any(w in before for w in _ANTONYM_VALUES.get(value, ())):
            return [Finding("contradicts", idx, text[max(cl.start, a - 20):b].strip(), said)]
    if (t is True) != negated:
        return [Finding("confirms", idx, claimed, said)]
    if t is False and not negated and all(s in rec.value_words for s in terms):
        return []  # a "Breakfast" category beside "breakfast": false
    return [Finding("contradicts", idx, claimed, said)]


_SCALE_OF = re.compile(r"(?:out\s+of|/)\s*$", re.I)
_SCALE_REST = re.compile(r"^\s*(?:-|out\s+of\s+\d+(?:\.\d+)?|/\s*\d+(?:\.\d+)?)", re.I)
#: Words that name a number's field in place of its key's word ("rated 4.5" for ``stars``).
_NUMBER_SYNONYMS = {"rat": ("star", "score"), "score": ("star", "rat"), "cost": ("price",), "pric": ("price",)}


def _numbers(text: str, cl: _Clause, rec: Record) -> list[Finding]:
    """Numbers next to a key's words: "4.5 stars" vs ``stars: 4.0``; "30 reviews" vs a list of 3."""
    if not rec.numeric and not rec.counts and not rec.dates:
        return []
    out: list[Finding] = []
    seg = text[cl.start:cl.end]
    times = [(t.start, t.end) for t in values.times_in(seg)]
    for n in values.numbers_in(seg):
        if any(s <= n.start < e for s, e in times) and ":" in seg[n.start:n.end + 3]:
            continue  # a time of day ("8:00"), read by ``hours``
        if _SCALE_OF.search(seg[max(0, n.start - 10):n.start]):
            continue  # "4.0 out of 5": the 5 is the scale
        rest = _SCALE_REST.sub(" ", seg[n.end:n.end + 40])  # "4 out of 5 stars" -> "4 stars"
        near = {stem(w) for w in _WORD.findall(seg[max(0, n.start - 30):n.start])[-2:]}
        near |= {stem(w) for w in _WORD.findall(rest)[:2]}
        near |= {a for w in list(near) for a in _NUMBER_SYNONYMS.get(w, ())}
        cands = [i for i in rec.numeric if rec.terms[i][-1] in near]
        num = values.Number(n.value, n.decimals, cl.start + n.start, cl.start + n.end, n.percent)
        claimed = text[num.start:min(cl.end, num.end + 12)].strip()
        if cands:
            hit = [i for i in cands if values.number_matches(num, rec.numeric[i])]
            if hit:
                out.append(Finding("confirms", tuple(hit[:3]), claimed, rec.facts[hit[0]].text))
            else:  # a contradiction needs every word of the key next to the number
                whole = [i for i in cands if all(t in near for t in rec.terms[i])]
                if whole:
                    best = min(whole, key=lambda i: (-len(rec.terms[i]), len(rec.facts[i].path)))
                    out.append(Finding("contradicts", (best,), claimed, rec.facts[best].text))
            continue
        after = [stem(w) for w in _WORD.findall(rest)[:2]]
        if n.value < 2 or n.decimals or not after:
            continue
        for prefix, count in rec.counts.items():
            if not prefix or not isinstance(prefix[-1], str):
                continue
            terms = key_terms(prefix[-1])
            if terms and terms[-1] in after:
                members = [i for i, f in enumerate(rec.facts) if f.path[:len(prefix)] == prefix][:1]
                said = f"{humanize(prefix[-1])}: {count} item{'s' if count != 1 else ''}"
                verdict = "confirms" if float(count) == n.value else "contradicts"
                out.append(Finding(verdict, tuple(members), claimed, said))
    for d, s, e in values.dates_in(seg):
        near = {stem(w) for w in _WORD.findall(seg[max(0, s - 50):e + 20])}
        cands = [i for i in rec.dates if any(t in near for t in rec.terms[i])]
        if cands and not any(values.date_matches(d, rec.dates[i]) for i in cands):
            out.append(Finding("contradicts", (cands[0],), seg[s:e], rec.facts[cands[0]].text))
    return out
