"""Contradictions the ``trace`` labeler can read off its evidence: a response sentence whose number,
date or name differs from the one the document sentence it best matches states ("fell on 9 November
1991" against "fell on 9 November 1989"). Such a sentence is *not supported*, and its explanation
says what the document says instead ("the document says 1989, not 1991").

The evidence comes from ``heuristic_features.sentence_features``: the response's numbers and names
that no document (nor the question) states, and the numbers / names of the best-matching sentence
the response lacks. A clash needs both sides, of the same kind (a year against a year, a decimal
against a decimal, another number against another number; a name against a name — month and day
names are dates, not names), and a real match: the best sentence must be close (similarity at least
``partial_floor``) or carry at least half of the sentence's content words. Without the document
side the claim is *missing*, not contradicted ("no document mentions 1991").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from .heuristic_features import analyze
from .heuristic_text import TOKEN, norm_number

#: Capitalised words that are dates, not names (a month never contradicts a person).
DATE_WORDS = frozenset(
    """january february march april may june july august september october november december jan
    feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday
    sunday""".split()
)
#: Lower-case words that join the parts of one name ("Otto von Bismarck", "Leonardo da Vinci").
_PARTICLES = r"(?:von|van|der|den|de|del|della|da|di|du|la|le|bin|ibn|al|y|of)"
_JOIN = re.compile(rf"^[\s\-]*(?:{_PARTICLES}[\s\-]+)*$")


@dataclass(frozen=True)
class Clash:
    """What the response claims and what the best-matching document sentence says instead."""

    kind: str  # "number" | "name" | "substitution" (heuristic_entities)
    claimed: tuple[str, ...]
    said: tuple[str, ...]


def _kind(n: str) -> str:
    """"year", "decimal" or "number" (the shape of a normalised number)."""
    if "." in n:
        return "decimal"
    try:
        v = int(n)
    except ValueError:
        return "number"
    return "year" if 1000 <= v <= 2199 and len(n) == 4 else "number"


def raw_number(n: str, text: str) -> str:
    """The way ``text`` writes the normalised number ``n`` ("0.25" for ".25", "1,200" for "1200")."""
    for tok in TOKEN.findall(text):
        tok = tok.rstrip(",")
        if tok[0].isdigit() and norm_number(tok) == n:
            return tok
    return n


def _in_order(items: Sequence[str], text: str) -> tuple[str, ...]:
    """``items`` in the order ``text`` states them."""
    return tuple(sorted(items, key=lambda x: (text.find(x) if x in text else len(text))))


def name_phrases(names: Sequence[str], text: str) -> list[str]:
    """Adjacent names of ``text`` joined into one phrase, in text order ("Chancellor", "Otto",
    "Bismarck" -> "Chancellor Otto von Bismarck")."""
    found = sorted({(m.start(), m.end()) for n in dict.fromkeys(names)
                    for m in [re.search(rf"(?<![\w'’]){re.escape(n)}(?![\w])", text)] if m})
    out: list[tuple[int, int]] = []
    for start, end in found:
        if out and start >= out[-1][1] and _JOIN.match(text[out[-1][1]:start]):
            out[-1] = (out[-1][0], end)
        elif not out or start >= out[-1][1]:
            out.append((start, end))
    phrases = [text[a:b] for a, b in out]
    missing = [n for n in names if not any(n in p for p in phrases)]
    return phrases + missing


def _names(names: Sequence[str]) -> list[str]:
    return [n for n in names if n.lower() not in DATE_WORDS]


def find(ev: dict[str, Any], resp_text: str, doc_text: str, partial_floor: float) -> list[Clash]:
    """The clashes of one response sentence with its best-matching document sentence (empty when
    there is none, or when that sentence is not a real match)."""
    if not ev or ev.get("best", -1) < 0:
        return []
    if ev["sim_max"] < partial_floor and ev["cov_top"] < 0.5:
        return []
    out: list[Clash] = []
    said = list(ev["best_numbers"])
    claimed = [m for m in ev["missing_numbers"] if any(_kind(m) == _kind(b) for b in said)]
    if claimed:
        kinds = {_kind(m) for m in claimed}
        out.append(Clash("number", _in_order([raw_number(m, resp_text) for m in claimed], resp_text),
                         _in_order([raw_number(b, doc_text) for b in said if _kind(b) in kinds], doc_text)))
    missing = _names(ev["missing_names"])
    if missing and _names(ev["best_names"]):
        resp = analyze(resp_text)
        named = [n for n in _names(analyze(doc_text).names)
                 if n.lower() not in resp.words and n not in resp.names]
        if named:
            out.append(Clash("name", tuple(name_phrases(missing, resp_text)),
                             tuple(name_phrases(named, doc_text)[:2])))
    return out


def missing(ev: dict[str, Any], resp_text: str) -> list[str]:
    """Numbers and names of the sentence that no document (nor the question) states, as written."""
    nums = [raw_number(n, resp_text) for n in ev.get("missing_numbers", [])]
    return nums + name_phrases(_names(ev.get("missing_names", [])), resp_text)
