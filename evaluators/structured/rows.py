"""Table rows: the cell a sentence speaks of, compared as a value.

A sentence speaks of a row when it names the row's label ("Q3", "Golf", "Weight" — "weighs" counts)
and of a column when it names the column's words ("Revenue 2024": both words; "price" also for
"costs"). In that cell:

* an empty cell is **unstated** ("The Q4 margin was 15 %" against an empty Q4 margin);
* a number is compared with the sentence's numbers (units, scale and rounding as in ``values``;
  the numbers of the row label and column name are not claims) — none equal: **contradicts**;
* a word value ("diesel") is **confirmed** when the sentence states it, **contradicted** when the
  sentence states another row's value of that column instead ("the Golf runs on diesel").

Without a column named, a row whose label is named and whose number cells hold none of the
sentence's numbers, while the sentence's number sits where a value is stated ("costs 14900"), is
contradicted only when the row has a single number column (otherwise it is unclear which cell).
"""

from __future__ import annotations

import re
from typing import Sequence

from . import values
from .facts import Fact, Finding

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’]*")
_SYNONYMS = {"cost": ("price",), "costs": ("price",), "priced": ("price",), "weighs": ("weight",),
             "earned": ("revenue", "income"), "sold": ("sales",)}


def _stem(w: str) -> str:
    w = w.lower()
    for suf in ("ing", "es", "s", "ed"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[: -len(suf)]
    return w


def _words(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def _has(tokens: list[str], word: str) -> bool:
    """``word`` (a label or column word) is among the sentence's tokens, or begins one / is begun
    by one ("weigh" / "weight", "euros" / "eur")."""
    w = word.lower()
    if w in tokens:
        return True
    if len(w) < 3 or w.isdigit():
        return False
    sw = _stem(w)
    for t in tokens:
        st = _stem(t)
        if len(st) >= 3 and (st.startswith(sw) or sw.startswith(st)) and min(len(st), len(sw)) >= 3 \
                and abs(len(st) - len(sw)) <= 3:
            return True
        if w in _SYNONYMS.get(t, ()):
            return True
    return False


def _label_named(tokens: list[str], label: str) -> bool:
    words = _words(label)
    return bool(words) and all(_has(tokens, w) for w in words)


def check(sentence: str, facts: Sequence[Fact], rows: Sequence[int]) -> list[Finding]:
    """Findings of ``sentence`` about the table rows ``rows`` (indices into ``facts``)."""
    tokens = _words(sentence)
    out: list[Finding] = []
    named = [i for i in rows if isinstance(facts[i].path[0], str) and _label_named(tokens, str(facts[i].path[0]))]
    if not named:
        return out
    numbers = values.numbers_in(sentence)
    for i in named:
        f = facts[i]
        cells: dict[str, str] = f.value
        label = str(f.path[0])
        label_col = next((c for c, v in cells.items() if v == label), None)
        cols = [c for c in cells if c != label_col]
        scored = [(sum(_has(tokens, w) for w in _words(c)), c) for c in cols]
        full = [c for n, c in scored if n and n == len(_words(c))]
        best = max(full, key=lambda c: len(_words(c))) if full else None
        reserved = set(_words(label)) | {w for c in cols for w in _words(c)}
        claims = [n for n in numbers if sentence[n.start:n.end].lower().lstrip("$€£¥") not in reserved]
        if best is not None:
            out.extend(_cell(sentence, tokens, claims, facts, rows, i, best))
            continue
        out.extend(_row(sentence, tokens, claims, facts, rows, i, cols))
    return out


def _row(sentence: str, tokens: list[str], claims: list, facts: Sequence[Fact], rows: Sequence[int], i: int,
         cols: list[str]) -> list[Finding]:
    """A row named without a column: its only number cell against the sentence's numbers, its word
    cells against the words of the sentence, an all-empty row as unstated."""
    cells: dict[str, str] = facts[i].value
    label = str(facts[i].path[0])
    if cols and all(not str(cells[c]).strip() for c in cols):
        return [Finding("unstated", (i,), sentence.strip()[:80], f'row "{label}": (empty)')]
    out: list[Finding] = []
    numeric = [c for c in cols if values.number_value(cells[c]) is not None]
    if claims and len(numeric) == 1:
        said = f'{numeric[0]} (row "{label}"): {cells[numeric[0]]}'
        if any(values.number_matches(n, values.number_value(cells[numeric[0]]) or 0.0) for n in claims):
            out.append(Finding("confirms", (i,), sentence.strip()[:80], said))
        else:
            out.append(Finding("contradicts", (i,), sentence[claims[0].start:claims[0].end + 8].strip(), said))
    for c in cols:
        if c in numeric or not str(cells[c]).strip():
            continue
        out.extend(f for f in _cell(sentence, tokens, [], facts, rows, i, c) if f.verdict != "unstated")
    return out


def _cell(sentence: str, tokens: list[str], claims: list, facts: Sequence[Fact], rows: Sequence[int], i: int,
          col: str) -> list[Finding]:
    f = facts[i]
    cell = str(f.value.get(col, "")).strip()
    label = str(f.path[0])
    said = f'{col} (row "{label}"): {cell or "(empty)"}'
    if not cell:
        return [Finding("unstated", (i,), sentence.strip()[:80], said)]
    num = values.number_value(cell)
    if num is not None:
        if not claims:
            return []
        if any(values.number_matches(n, num) for n in claims):
            return [Finding("confirms", (i,), sentence.strip()[:80], said)]
        n = claims[0]
        return [Finding("contradicts", (i,), sentence[n.start:n.end + 8].strip(), said)]
    if _label_named(tokens, cell):
        return [Finding("confirms", (i,), cell, said)]
    others = {str(facts[j].value.get(col, "")).strip() for j in rows if j != i} - {"", cell}
    stated = [o for o in others if _label_named(tokens, o)]
    if stated:
        return [Finding("contradicts", (i,), stated[0], said)]
    return []
