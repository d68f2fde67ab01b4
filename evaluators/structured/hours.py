"""Opening hours: the days and times a sentence claims against a record's week.

A record's week is its fields keyed by day names (``"Monday": "8:0-14:0"``, ``"Tue": "9:00-17:00"``)
with time-range values; a range whose opening equals its closing (``"0:0-0:0"``) is read as
"closed or open all day" and judged by neither. A sentence's claims are the day sets it names
("Monday through Friday", "weekdays", "weekends", "every day", "seven days a week", "except
Monday") paired with the time ranges it gives ("from 8 am to 2 pm", "8:00–14:00"), or "closed on
Mondays". A claim **contradicts** the record when a named day's range differs, when a day the
record gives hours for is said to be closed, or when a day the record leaves out is said to be
open; an hours claim against an hours field that is null is **unstated**.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from . import values
from .facts import Fact, Finding

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_INDEX = {d: i for i, d in enumerate(DAYS)}
_DAY_INDEX.update({d[:3]: i for i, d in enumerate(DAYS)})
_DAY_INDEX.update({"tues": 1, "weds": 2, "thur": 3, "thurs": 3})
#: Day names in full (any case) or abbreviated with a capital ("Sat", not "we sat").
_DAY = (r"(?:(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|"
        r"(?:Mon|Tue|Tues|Wed|Weds|Thu|Thur|Thurs|Fri|Sat|Sun)\b\.?)")
_DAY_RX = re.compile(r"\b(" + _DAY + r")")
_SPAN = re.compile(r"\b(" + _DAY + r")\s*(?i:-|–|—|to|through|thru|until|till)\s*(" + _DAY + r")")
_EVERY = re.compile(r"\b(?:every\s*day|everyday|daily|seven days|7 days|all week|each day|every day of the week)\b",
                    re.I)
_WEEKDAYS = re.compile(r"\bweek\s?days\b", re.I)
_WEEKENDS = re.compile(r"\bweek\s?ends?\b", re.I)
_EXCEPT = re.compile(r"\b(?i:except|excluding|but not|other than)\b(?:\s+(?i:for|on))?\s+((?:" + _DAY +
                     r"(?:\s*(?:,|and|or|&)\s*)?)+)")
_CLOSED = re.compile(r"\bclosed\b", re.I)
_HOURS_WORDS = re.compile(r"\b(?:open|opens|opening|close|closes|closing|hours|operat\w*)\b", re.I)
_SEP = re.compile(r"^\s*(?:-|–|—|to|until|till|through)\s*$", re.I)


@dataclass
class Week:
    """Day index -> (fact index, (open, close) minutes, or None for "0:0-0:0")."""

    days: dict[int, tuple[int, tuple[int, int] | None]] = field(default_factory=dict)
    null_fact: int | None = None  # an "hours": null field

    @classmethod
    def of(cls, facts: Sequence[Fact]) -> "Week | None":
        w = cls()
        for i, f in enumerate(facts):
            if f.kind != "field":
                continue
            key = f.key.strip().lower()
            if key in _DAY_INDEX and isinstance(f.value, str):
                rng = values.time_range(f.value)
                if rng is None:
                    continue
                w.days[_DAY_INDEX[key]] = (i, None if rng[0] % 1440 == rng[1] % 1440 else rng)
            elif f.value is None and re.fullmatch(r"(?:opening|business|operating|open)?[\s_]*(?:hours|times)|"
                                                  r"schedule|opening", key):
                w.null_fact = i
        return w if w.days or w.null_fact is not None else None


def _day(word: str) -> int | None:
    w = word.lower().rstrip(".")
    if w.endswith("s") and w[:-1] in _DAY_INDEX:
        w = w[:-1]
    return _DAY_INDEX.get(w, _DAY_INDEX.get(w[:3]))


@dataclass
class _DaySet:
    days: set[int]
    start: int
    end: int
    loose: bool = False  # "weekdays" / "weekends": a day the record leaves out is no contradiction


def _day_sets(text: str) -> list[_DaySet]:
    out: list[_DaySet] = []
    taken: list[tuple[int, int]] = []
    for m in _SPAN.finditer(text):
        a, b = _day(m.group(1)), _day(m.group(2))
        if a is None or b is None:
            continue
        days = {(a + k) % 7 for k in range(((b - a) % 7) + 1)}
        out.append(_DaySet(days, m.start(), m.end()))
        taken.append((m.start(), m.end()))
    for rx, days in ((_EVERY, set(range(7))), (_WEEKDAYS, set(range(5))), (_WEEKENDS, {5, 6})):
        for m in rx.finditer(text):
            out.append(_DaySet(set(days), m.start(), m.end(), rx is not _EVERY))
            taken.append((m.start(), m.end()))
    for m in _DAY_RX.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        d = _day(m.group(1))
        if d is not None:
            out.append(_DaySet({d}, m.start(), m.end()))
    out.sort(key=lambda x: x.start)
    merged: list[_DaySet] = []  # "Monday, Tuesday and Friday" is one set
    for ds in out:
        if merged and re.fullmatch(r"[\s,]*(?:and|or|&)?[\s,]*", text[merged[-1].end:ds.start]):
            merged[-1] = _DaySet(merged[-1].days | ds.days, merged[-1].start, ds.end, merged[-1].loose and ds.loose)
        else:
            merged.append(ds)
    for m in _EXCEPT.finditer(text):  # "every day except Monday"
        gone = {d for w in _DAY_RX.findall(m.group(1)) for d in [_day(w)] if d is not None}
        for ds in merged:
            if ds.end <= m.start() and len(ds.days) > len(gone):
                ds.days -= gone
        merged = [ds for ds in merged if not (ds.start >= m.start(1) and ds.end <= m.end(1))]
    for ds in merged:  # "weekdays 5 to 9, until 10 on Fridays": the named day overrides the broad set
        if len(ds.days) >= 3:
            ds.days -= {d for o in merged if o is not ds and len(o.days) < len(ds.days) for d in o.days}
    return merged


def _ranges(text: str) -> list[tuple[int, int, int, int]]:
    """(open, close, start, end) of the time ranges of ``text``."""
    ts = values.times_in(text)
    out = []
    for a, b in zip(ts, ts[1:]):
        if _SEP.match(text[a.end:b.start]):
            close = b.minutes if b.minutes != 0 or a.minutes == 0 else 1440
            out.append((a.minutes, close, a.start, b.end))
    return out


def check(sentence: str, week: Week, facts: Sequence[Fact]) -> list[Finding]:
    """Findings (``claims.Finding``) of the hours a sentence claims."""
    sets = _day_sets(sentence)
    ranges = _ranges(sentence)
    closed = [m for m in _CLOSED.finditer(sentence)]
    if not ranges and not closed and not (sets and _HOURS_WORDS.search(sentence)):
        return []
    if week.null_fact is not None and not week.days:
        if ranges or (sets and _HOURS_WORDS.search(sentence)):
            return [Finding("unstated", (week.null_fact,), sentence.strip()[:80], facts[week.null_fact].text)]
        return []
    out: list[Finding] = []
    used: set[int] = set()
    for r_open, r_close, rs, re_ in ranges:
        pick = _pair(sentence, sets, used, rs, re_)
        if pick is not None:
            used.add(pick)
            ds = sets[pick]
            claim = sentence[min(rs, ds.start):max(re_, ds.end)]
            out.extend(_compare(ds, (r_open, r_close), claim, week, facts))
        else:
            out.extend(_compare(None, (r_open, r_close), sentence[rs:re_], week, facts))
    if _HOURS_WORDS.search(sentence):  # "open seven days a week", "operates Monday to Sunday"
        for k, ds in enumerate(sets):
            if k not in used and not ds.loose and len(ds.days) > 1:
                out.extend(_compare(ds, None, sentence[ds.start:ds.end], week, facts))
    for m in closed:
        near = [ds for ds in sets if abs(ds.start - m.end()) < 25 or abs(m.start() - ds.end) < 25]
        for ds in near:
            for d in sorted(ds.days):
                if d in week.days and week.days[d][1] is not None:
                    i = week.days[d][0]
                    out.append(Finding("contradicts", (i,), sentence[min(m.start(), ds.start):max(m.end(), ds.end)],
                                       facts[i].text))
    return out


_GAP_BEFORE = re.compile(r"^[\s,:]*(?:(?:they|it|we|the \w+)\s+)?(?:(?:is|are)\s+)?(?:open|opens|closes|runs|operates|"
                         r"hours are|are open)?\s*(?:from|between|at)?[\s:]*$", re.I)
_GAP_AFTER = re.compile(r"^[\s,]*(?:on|every|each|for|during)?\s*$", re.I)


def _pair(text: str, sets: list[_DaySet], used: set[int], rs: int, re_: int) -> int | None:
    """The day set a time range belongs to: the one just before it when only "from", "open" or a
    comma sits between ("Tuesdays from 6 to 11"), else the one just after it ("6 to 11 on Fridays")."""
    before = [k for k, ds in enumerate(sets) if ds.end <= rs and k not in used]
    after = [k for k, ds in enumerate(sets) if ds.start >= re_ and k not in used]
    b = before[-1] if before else None
    a = after[0] if after else None
    if b is not None and _GAP_BEFORE.match(text[sets[b].end:rs]):
        return b
    if a is not None and _GAP_AFTER.match(text[re_:sets[a].start]):
        return a
    if b is not None and a is not None:
        return b if rs - sets[b].end <= sets[a].start - re_ else a
    return b if b is not None else a


def _compare(ds: _DaySet | None, rng: tuple[int, int] | None, claim: str, week: Week, facts: Sequence[Fact]
             ) -> list[Finding]:
    """A claim of hours ``rng`` (None: "open", no times) on the days of ``ds`` (None: a range
    with no day, which holds when some day of the record has it)."""
    wrong: list[int] = []
    right: list[int] = []
    missing: list[int] = []
    for d in sorted(ds.days if ds is not None else week.days):
        if d not in week.days:
            missing.append(d)
            continue
        i, have = week.days[d]
        if have is None or rng is None:
            continue
        ok = values.same_time(have[0], rng[0]) and values.same_time(have[1], rng[1])
        (right if ok else wrong).append(i)
    claim = claim.strip()

    def said(idx: list[int]) -> str:
        return "; ".join(facts[i].text for i in idx[:3]) + (" …" if len(idx) > 3 else "")

    if ds is None:
        if right or not wrong:
            return [Finding("confirms", tuple(right), claim, said(right))] if right else []
        return [Finding("contradicts", tuple(wrong), claim, said(wrong))]
    out = []
    if wrong:
        out.append(Finding("contradicts", tuple(wrong), claim, said(wrong)))
    if missing and week.days and not ds.loose:
        first = min(i for i, _ in week.days.values())
        out.append(Finding("contradicts", (first,), claim,
                           "no hours for " + ", ".join(DAYS[d].capitalize() for d in missing)))
    if right and not out:
        out.append(Finding("confirms", tuple(right), claim, said(right)))
    return out
