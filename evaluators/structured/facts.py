"""The facts of a structured document: what every other module of ``structured`` exchanges.

A :class:`Fact` is one thing a record states, written so a person and the encoder can read it
(``hours › Monday: 08:00–14:00``, ``attributes › Wi Fi: no``, ``Revenue 2023 › Q4: 1.2 bn``), with
the ``(start, end)`` span of where it sits in the original text (a JSON member ``"WiFi": "no"``, a
sentence inside a long string value, a table row), so a highlight can point at it. Spans are in
text order and never overlap. A :class:`Structure` is a parsed document: its kind, its facts, and
what a lenient parser had to repair.

Keys are shown as words: ``RestaurantsTakeOut`` reads ``Restaurants Take Out``, ``review_stars``
``review stars`` (short runs stay together: ``WiFi``, ``HasTV`` -> ``Has TV``). Values are shown as
written, except booleans (``yes`` / ``no``), times (``8:0`` -> ``08:00``) and time ranges
(``8:0-14:0`` -> ``08:00–14:00``); ``null`` and empty values stay visible (``null``, ``""``,
``[]``, ``{}``): a claim about a value the record leaves empty is unsupported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

#: Separator between the parts of a fact's path.
SEP = " › "
#: Paths deeper than this show their first two and last three parts around "…".
MAX_PATH_PARTS = 6

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_]+")
_TIME = re.compile(r"^(\d{1,2}):(\d{1,2})$")
_PY_LITERAL = re.compile(r"^u?'(.*)'$", re.S)
_SPACES = re.compile(r"\s+")
_TIME_RANGE = re.compile(r"^\s*(\d{1,2}):(\d{1,2})\s*[-–]\s*(\d{1,2}):(\d{1,2})\s*$")


@dataclass(frozen=True)
class Fact:
    """One fact of a structured document.

    ``path``: keys and indices from the root (``("attributes", "WiFi")``, ``("reviews", 2, "text")``;
    a table row: ``(row_label,)``); ``value``: the JSON value (a piece of a long text: that sentence;
    a table row: ``{column: cell}``); ``kind``: "field" (one JSON value), "text" (one sentence of a
    long string value) or "row" (one table row); ``text``: how it reads; ``start`` / ``end``: its
    span in the original document."""

    path: tuple[str | int, ...]
    value: Any
    kind: str
    text: str
    start: int
    end: int

    @property
    def key(self) -> str:
        """The last named key of the path ("" for a bare array item)."""
        for p in reversed(self.path):
            if isinstance(p, str):
                return p
        return ""

    @property
    def parents(self) -> tuple[str, ...]:
        """The named keys above the fact's own key (closest last)."""
        names = [p for p in self.path if isinstance(p, str)]
        return tuple(names[:-1])


@dataclass(frozen=True)
class Finding:
    """What a response sentence claims about a record (``claims.check``): ``verdict``
    ("contradicts", "unstated" or "confirms"), the indices of the facts it is about, the
    sentence's words it concerns, and what the record says."""

    verdict: str
    facts: tuple[int, ...]
    claimed: str
    said: str


@dataclass(frozen=True)
class Structure:
    """A parsed structured document: ``kind`` ("json", "jsonl", "markdown", "html", "csv"), its
    facts in text order, and the repairs a lenient parser made (empty for well-formed input)."""

    kind: str
    facts: tuple[Fact, ...]
    repairs: tuple[str, ...] = ()
    #: A JSON document's top-level value (for a tree view); a table's header and rows.
    data: Any = None


@lru_cache(maxsize=100_000)
def humanize(key: str) -> str:
    """``RestaurantsTakeOut`` -> ``Restaurants Take Out``; ``review_stars`` -> ``review stars``;
    ``WiFi`` and ``HasTV`` keep their short runs (``WiFi``, ``Has TV``)."""
    out: list[str] = []
    for chunk in re.split(r"[_\-\s]+", key.strip()):
        if not chunk:
            continue
        shape = "".join("A" if c.isupper() else "a" if c.islower() else c for c in chunk)  # 'durée' is one word
        parts = [chunk[m.start():m.end()] for m in _CAMEL.finditer(shape)] or [chunk]
        merged: list[str] = []
        for p in parts:  # "Wi" + "Fi" -> "WiFi": camel pieces of two letters stay one word
            if merged and len(p) <= 2 and len(merged[-1]) <= 2 and p.isalpha() and merged[-1].isalpha():
                merged[-1] += p
            else:
                merged.append(p)
        out.extend(merged)
    return " ".join(out) if out else key


def path_text(path: tuple[str | int, ...]) -> str:
    """``("reviews", 2, "stars")`` -> ``reviews[2] › stars``; ``(3, "name")`` -> ``[3] › name``."""
    parts: list[str | int] = []  # keys, each with its indices ("reviews[2]")
    for p in path:
        if isinstance(p, int) and parts:
            parts[-1] = f"{parts[-1]}\x00[{p}]"
        else:
            parts.append(f"\x00[{p}]" if isinstance(p, int) else p)
    if len(parts) > MAX_PATH_PARTS:
        parts = parts[:2] + ["…"] + parts[-3:]

    def show(part: str | int) -> str:
        key, _, idx = str(part).partition("\x00")
        return (humanize(key) if key and key != "…" else key) + idx.replace("\x00", "")

    return SEP.join(show(p) for p in parts)


def _hhmm(h: str, m: str) -> str:
    return f"{int(h):02d}:{int(m):02d}"


def value_text(value: Any, raw: str | None = None) -> str:
    """How a value reads in a fact (``raw``: a number as the source writes it, "4.0")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return raw if raw else repr(value)
    if isinstance(value, dict):
        return "{}" if not value else "{…}"
    if isinstance(value, list):
        return "[]" if not value else "[…]"
    s = str(value)
    if s == "":
        return '""'
    m = _TIME_RANGE.match(s)
    if m:
        return f"{_hhmm(m.group(1), m.group(2))}–{_hhmm(m.group(3), m.group(4))}"
    m = _TIME.match(s.strip())
    if m:
        return _hhmm(m.group(1), m.group(2))
    s = _PY_LITERAL.sub(r"\1", s.strip())  # Python-literal strings: u'free' -> free
    return _SPACES.sub(" ", s)


def fact_text(path: tuple[str | int, ...], value: Any, raw: str | None = None) -> str:
    """``hours › Monday: 08:00–14:00``; a bare value (an array item) reads as the value."""
    head = path_text(path)
    return f"{head}: {value_text(value, raw)}" if head else value_text(value, raw)
