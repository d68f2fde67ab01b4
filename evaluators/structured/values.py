"""Values compared as values: what a record's value means, and whether a claim's value is it.

* **truth** — ``true`` / ``"yes"`` / ``"free"`` mean present, ``false`` / ``"no"`` / ``"none"``
  absent, ``null`` / ``""`` unknown (:func:`truth`); other strings ("casual", "quiet") are not
  yes/no values.
* **numbers** with units and rounding — "4.0 stars" is ``4.0``, "4 stars" is ``4.0`` too, "4.5" is
  not; "$1.2 bn" is 1,200,000,000; "35 %" is ``0.35`` as well as ``35``; "five-star" is 5
  (:func:`numbers_in`, :func:`number_matches`).
* **times** — "8 am", "8:00 AM", "08:00", Yelp's "8:0" are all 480 minutes; "14:00 pm" is 14:00;
  "noon", "midnight"; a range "8:0-14:0" is (480, 840), a closing time of 0:00 is midnight (1440)
  (:func:`clock`, :func:`time_range`, :func:`times_in`).
* **dates** — "2022-01-16 16:42:35", "January 16, 2022", "16 Jan 2022", "Jan 2022": (year, month,
  day) with the parts a text gives (:func:`dates_in`, :func:`date_matches`).
* **enumerations** — "Breakfast & Brunch, Diners" is two items (:func:`items`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_PY_LITERAL = re.compile(r"^u?'(.*)'$", re.S)
_UNIT_TAIL = re.compile(r"[\s.]*(?:[A-Za-z%]{1,6}\.?)?")
_TRUE = frozenset("yes true y 1 available free paid on included allowed".split())
_FALSE = frozenset("no false n 0 none off not_available unavailable".split())


def truth(value: Any) -> bool | None | str:
    """True (present), False (absent), None (unknown: null or empty) or "other" (not a yes/no value)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (dict, list)):
        return None if not value else "other"
    if isinstance(value, (int, float)):
        return "other"
    s = _PY_LITERAL.sub(r"\1", str(value).strip()).strip().lower()
    if not s or s in ("null", "n/a", "na", "unknown"):
        return None
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    return "other"


# ---------------------------------------------------------------- numbers
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "b": 1e9,
          "billion": 1e9, "trillion": 1e12, "tn": 1e12}
_NUM_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
              "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30,
              "forty": 40, "fifty": 50, "hundred": 100}
_NUMBER = re.compile(
    r"(?<![\w.])(?P<cur>[$€£¥])?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<pct>%|percent\b)|\s?(?P<scale>thousand|million|billion|trillion|bn|mn|tn|[kmb])\b)?"
    r"|(?<![\w-])(?P<word>" + "|".join(_NUM_WORDS) + r")(?=[\s-])", re.I)


@dataclass(frozen=True)
class Number:
    """A number a text states: its value, its decimals as written, its span, and what it is of."""

    value: float
    decimals: int
    start: int
    end: int
    percent: bool = False


def numbers_in(text: str) -> list[Number]:
    """The numbers of ``text`` with scale words applied ("1.2 bn" -> 1.2e9) and percents kept."""
    out: list[Number] = []
    for m in _NUMBER.finditer(text):
        if m.group("word"):
            out.append(Number(float(_NUM_WORDS[m.group("word").lower()]), 0, m.start(), m.end()))
            continue
        raw = m.group("num").replace(",", "")
        dec = len(raw.split(".", 1)[1]) if "." in raw else 0
        v = float(raw)
        scale = (m.group("scale") or "").lower()
        if scale:
            v *= _SCALE[scale]
        out.append(Number(v, dec, m.start(), m.end(), bool(m.group("pct"))))
    return out


def number_value(value: Any) -> float | None:
    """A record value as a number ("4.5", "1,200", 4 -> 4.0); None when it is not one."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    nums = numbers_in(text)
    # "1.2 bn", "$89.99", "14 hours", "12%" — a number first, a short unit after; not "LH 456"
    if len(nums) == 1 and len(text) <= 24 and nums[0].start == 0 and \
            _UNIT_TAIL.fullmatch(text[nums[0].end:]):
        return nums[0].value
    return None


def number_matches(claim: Number, recorded: float) -> bool:
    """The claim states ``recorded`` at its own precision ("4" or "4.0" for 4.0; "33.3" for 33.33;
    "35%" for 0.35 or 35)."""
    targets = [recorded] + ([recorded * 100] if claim.percent else [])
    for t in targets:
        if abs(claim.value - t) < 1e-9 * max(1.0, abs(t)):
            return True
        if claim.decimals < 6 and abs(round(t, claim.decimals) - claim.value) < 1e-9 * max(1.0, abs(t)):
            return claim.decimals > 0 or float(t).is_integer() or abs(t - claim.value) < 0.5
    return False


# ---------------------------------------------------------------- times
_CLOCK = re.compile(
    r"(?<![\d:.])(?P<h>\d{1,2})(?::(?P<m>\d{1,2}))?\s*(?P<ap>a\.?\s?m\.?|p\.?\s?m\.?)?(?![\d:])|"
    r"\b(?P<word>noon|midday|midnight)\b", re.I)
_RANGE = re.compile(r"^\s*(\d{1,2}):(\d{1,2})\s*[-–]\s*(\d{1,2}):(\d{1,2})\s*$")


def clock(h: int, m: int = 0, ampm: str | None = None) -> int | None:
    """Minutes after midnight (None when it is not a time of day)."""
    if ampm:
        a = ampm.lower().replace(".", "").replace(" ", "")
        if h > 12:  # "14:00 pm": the 24-hour figure wins
            pass
        elif a == "pm" and h != 12:
            h += 12
        elif a == "am" and h == 12:
            h = 0
    if not (0 <= h <= 24 and 0 <= m < 60):
        return None
    return h * 60 + m


def time_range(value: Any) -> tuple[int, int] | None:
    """A record's "8:0-14:0" as (480, 840); a closing time of 0:00 after an opening is 1440."""
    if not isinstance(value, str):
        return None
    m = _RANGE.match(value)
    if not m:
        return None
    a = clock(int(m.group(1)), int(m.group(2)))
    b = clock(int(m.group(3)), int(m.group(4)))
    if a is None or b is None:
        return None
    if b == 0 and a > 0:
        b = 1440
    return a, b


@dataclass(frozen=True)
class Time:
    minutes: int
    start: int
    end: int
    explicit: bool  # has minutes or am/pm ("8 am", "8:00"), not a bare number


def times_in(text: str) -> list[Time]:
    """Times of day a text states ("8 am", "8:00", "14:00 pm", "noon"); bare numbers only when
    they sit in a range with an explicit time ("from 8 to 2 pm")."""
    found: list[Time] = []
    for m in _CLOCK.finditer(text):
        if m.group("word"):
            w = m.group("word").lower()
            found.append(Time(0 if w == "midnight" else 720, m.start(), m.end(), True))
            continue
        h, mm, ap = int(m.group("h")), m.group("m"), m.group("ap")
        minutes = clock(h, int(mm) if mm else 0, ap)
        if minutes is None:
            continue
        found.append(Time(minutes, m.start(), m.end(), bool(mm or ap)))
    out: list[Time] = []
    for i, t in enumerate(found):
        if t.explicit:
            out.append(t)
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        if nxt and nxt.explicit and re.fullmatch(r"\s*(?:-|–|to|until|till)\s*", text[t.end:nxt.start], re.I):
            ap = re.search(r"([ap])\.?\s?m", text[nxt.start:nxt.end], re.I)
            mins = t.minutes
            if ap and ap.group(1).lower() == "p" and mins < 720 and (mins + 720) <= nxt.minutes:
                mins += 720
            out.append(Time(mins, t.start, t.end, True))
    return out


def same_time(a: int, b: int) -> bool:
    """Equal times of day (midnight as 0 or 1440)."""
    return a % 1440 == b % 1440


# ---------------------------------------------------------------- dates
_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_MDY = re.compile(r"\b(?P<mon>[A-Za-z]{3,9})\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b")
_DMY = re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>[A-Za-z]{3,9})\.?,?\s+(?P<y>\d{4})\b")
_MY = re.compile(r"\b(?P<mon>[A-Za-z]{3,9})\.?,?\s+(?:of\s+)?(?P<y>\d{4})\b")

Date = tuple[int, int | None, int | None]


def dates_in(text: str) -> list[tuple[Date, int, int]]:
    """(date, start, end) of the dates a text states, most specific reading first."""
    out: list[tuple[Date, int, int]] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    for m in _ISO.finditer(text):
        out.append(((int(m.group(1)), int(m.group(2)), int(m.group(3))), m.start(), m.end()))
        taken.append((m.start(), m.end()))
    for rx in (_MDY, _DMY, _MY):
        for m in rx.finditer(text):
            mon = _MONTHS.get(m.group("mon").lower())
            if mon is None or not free(m.start(), m.end()):
                continue
            day = int(m.group("d")) if "d" in rx.groupindex else None
            out.append(((int(m.group("y")), mon, day), m.start(), m.end()))
            taken.append((m.start(), m.end()))
    return sorted(out, key=lambda x: x[1])


def date_matches(claim: Date, recorded: Date) -> bool:
    """Every part the claim gives equals the record's."""
    return all(c is None or c == r for c, r in zip(claim, recorded))


# ---------------------------------------------------------------- enumerations
def items(value: Any) -> list[str]:
    """The items of an enumeration ("Breakfast & Brunch, Diners" -> two; a list -> its strings)."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if isinstance(v, (str, int, float)) and str(v).strip()]
    if not isinstance(value, str):
        return []
    return [p.strip() for p in re.split(r"\s*[,;|]\s*", value) if p.strip()]
